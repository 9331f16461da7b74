// SPDX-License-Identifier: MIT
// 1D stencil of radius 3 with the halo staged in shared memory.
#include "test_util.h"

constexpr int kRadius = 3, kBlock = 128;

__global__ void stencil(const int *in, int *out, int n)
{
	__shared__ int temp[kBlock + 2 * kRadius];
	int g = blockIdx.x * blockDim.x + threadIdx.x;
	int l = threadIdx.x + kRadius;
	temp[l] = g < n ? in[g] : 0;
	if (threadIdx.x < kRadius) {
		int left = g - kRadius, right = g + kBlock;
		temp[l - kRadius] = left >= 0 && left < n ? in[left] : 0;
		temp[l + kBlock] = right < n ? in[right] : 0;
	}
	__syncthreads();
	int sum = 0;
	for (int o = -kRadius; o <= kRadius; ++o)
		sum += (o + kRadius + 1) * temp[l + o];
	if (g < n)
		out[g] = sum;
}

int main(int argc, char **argv)
{
	const int n = argc > 1 ? std::atoi(argv[1]) : 3000; // bench/cuda_bench.py sizes it
	int *in = new int[n], *out = new int[n];
	Rng rng(8);
	for (int i = 0; i < n; ++i)
		in[i] = rng.range(-100, 100);
	int *din, *dout;
	CHECK_CUDA(cudaMalloc(&din, n * sizeof(int)));
	CHECK_CUDA(cudaMalloc(&dout, n * sizeof(int)));
	CHECK_CUDA(cudaMemcpy(din, in, n * sizeof(int), cudaMemcpyHostToDevice));
	stencil<<<(n + kBlock - 1) / kBlock, kBlock>>>(din, dout, n);
	CHECK_LAUNCH();
	CHECK_CUDA(cudaMemcpy(out, dout, n * sizeof(int), cudaMemcpyDeviceToHost));
	bool ok = true;
	for (int i = 0; i < n; ++i) {
		int sum = 0;
		for (int o = -kRadius; o <= kRadius; ++o)
			if (i + o >= 0 && i + o < n)
				sum += (o + kRadius + 1) * in[i + o];
		ok &= out[i] == sum;
	}
	return report("stencil", ok);
}
