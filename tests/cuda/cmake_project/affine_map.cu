// SPDX-License-Identifier: MIT
// A kernel calling a __device__ function and reading a __device__ variable
// of the static library affine (affine.cu), set from here by symbol;
// checked against reference.cpp's CPU computation.
#include <cstdio>

extern __device__ int affine_scale;
__device__ int affine(int x, int offset);
int affine_reference(int scale, int x, int offset);

__global__ void map(const int *in, int *out, int n, int offset)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = affine(in[i], offset + i % 3);
}

int main()
{
	const int n = 500, scale = -7, offset = 40;
	int in[n], out[n];
	for (int i = 0; i < n; ++i)
		in[i] = i * 13 % 101 - 50;
	int *din, *dout;
	if (cudaMalloc(&din, sizeof(in)) != cudaSuccess || cudaMalloc(&dout, sizeof(out)) != cudaSuccess)
		return 1;
	cudaMemcpy(din, in, sizeof(in), cudaMemcpyHostToDevice);
	cudaMemcpyToSymbol(affine_scale, &scale, sizeof(scale));
	map<<<(n + 63) / 64, 64>>>(din, dout, n, offset);
	cudaMemcpy(out, dout, sizeof(out), cudaMemcpyDeviceToHost);
	bool ok = cudaGetLastError() == cudaSuccess;
	for (int i = 0; i < n; ++i)
		ok &= out[i] == affine_reference(scale, in[i], offset + i % 3);
	std::printf("affine_map: %s\n", ok ? "PASS" : "FAIL");
	return ok ? 0 : 1;
}
