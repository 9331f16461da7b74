// SPDX-License-Identifier: MIT
// y = a * x + y on the device, checked against the CPU.
#include <cstdio>

__global__ void saxpy(int n, float a, const float *x, float *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = a * x[i] + y[i];
}

int main()
{
	const int n = 1000;
	float x[n], y[n], want[n];
	for (int i = 0; i < n; ++i) {
		x[i] = 0.5f * i;
		y[i] = 1000.0f - i;
		want[i] = 3.0f * x[i] + y[i];
	}
	float *dx, *dy;
	if (cudaMalloc(&dx, sizeof(x)) != cudaSuccess || cudaMalloc(&dy, sizeof(y)) != cudaSuccess)
		return 1;
	cudaMemcpy(dx, x, sizeof(x), cudaMemcpyHostToDevice);
	cudaMemcpy(dy, y, sizeof(y), cudaMemcpyHostToDevice);
	saxpy<<<(n + 127) / 128, 128>>>(n, 3.0f, dx, dy);
	cudaMemcpy(y, dy, sizeof(y), cudaMemcpyDeviceToHost);
	bool ok = cudaGetLastError() == cudaSuccess;
	for (int i = 0; i < n; ++i)
		ok &= y[i] == want[i];
	std::printf("saxpy: %s\n", ok ? "PASS" : "FAIL");
	return ok ? 0 : 1;
}
