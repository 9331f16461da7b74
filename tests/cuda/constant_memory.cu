// SPDX-License-Identifier: MIT
// __constant__ arrays written with cudaMemcpyToSymbol, a __device__ global
// initialised in the image and read back with cudaMemcpyFromSymbol, and a
// __device__ counter updated by the kernel.
#include "test_util.h"

__constant__ float coefficients[8];
__constant__ int offset;
__device__ int table[4] = {10, 20, 30, 40};
__device__ unsigned long long calls;

__global__ void polynomial(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float v = 0.0f;
	for (int k = 7; k >= 0; --k)
		v = v * x[i] + coefficients[k];
	y[i] = v + table[i % 4] + offset;
	atomicAdd(&calls, 1ull);
}

int main()
{
	const int n = 300;
	float c[8] = {1.0f, -0.5f, 0.25f, 2.0f, 0.0f, -1.0f, 0.125f, 0.0625f};
	int off = -7;
	float x[n], y[n];
	for (int i = 0; i < n; ++i)
		x[i] = (i % 17) * 0.125f - 1.0f;
	CHECK_CUDA(cudaMemcpyToSymbol(coefficients, c, sizeof(c)));
	CHECK_CUDA(cudaMemcpyToSymbol(offset, &off, sizeof(off)));
	float *dx, *dy;
	CHECK_CUDA(cudaMalloc(&dx, sizeof(x)));
	CHECK_CUDA(cudaMalloc(&dy, sizeof(y)));
	CHECK_CUDA(cudaMemcpy(dx, x, sizeof(x), cudaMemcpyHostToDevice));
	polynomial<<<(n + 127) / 128, 128>>>(dx, dy, n);
	CHECK_LAUNCH();
	CHECK_CUDA(cudaMemcpy(y, dy, sizeof(y), cudaMemcpyDeviceToHost));
	int readback[4];
	unsigned long long count = 0;
	CHECK_CUDA(cudaMemcpyFromSymbol(readback, table, sizeof(readback)));
	CHECK_CUDA(cudaMemcpyFromSymbol(&count, calls, sizeof(count)));
	int tab[4] = {10, 20, 30, 40};
	bool ok = count == n;
	for (int i = 0; i < 4; ++i)
		ok &= readback[i] == tab[i];
	for (int i = 0; i < n; ++i) {
		float v = 0.0f;
		for (int k = 7; k >= 0; --k)
			v = std::fma(v, x[i], c[k]); // the device contracts v * x + c
		ok &= std::fabs(y[i] - (v + tab[i % 4] + off)) <= 1e-5f * (1.0f + std::fabs(v));
	}
	return report("constant_memory", ok);
}
