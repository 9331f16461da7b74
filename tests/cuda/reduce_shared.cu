// SPDX-License-Identifier: MIT
// Sum of an array: tree reduction in shared memory per block, then a second
// launch over the block sums.
#include "test_util.h"

constexpr int kThreads = 256;

__global__ void block_sum(const int *in, int *out, int n)
{
	__shared__ int partial[kThreads];
	unsigned t = threadIdx.x;
	int i = blockIdx.x * blockDim.x * 2 + t;
	int v = 0;
	if (i < n)
		v += in[i];
	if (i + blockDim.x < n)
		v += in[i + blockDim.x];
	partial[t] = v;
	__syncthreads();
	for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
		if (t < s)
			partial[t] += partial[t + s];
		__syncthreads();
	}
	if (t == 0)
		out[blockIdx.x] = partial[0];
}

int main()
{
	const int n = 20000;
	int *in = new int[n];
	Rng rng(3);
	long long ref = 0;
	for (int i = 0; i < n; ++i) {
		in[i] = rng.range(-1000, 1000);
		ref += in[i];
	}
	int blocks = (n + 2 * kThreads - 1) / (2 * kThreads);
	int *din, *dpartial, *dtotal;
	CHECK_CUDA(cudaMalloc(&din, n * sizeof(int)));
	CHECK_CUDA(cudaMalloc(&dpartial, blocks * sizeof(int)));
	CHECK_CUDA(cudaMalloc(&dtotal, sizeof(int)));
	CHECK_CUDA(cudaMemcpy(din, in, n * sizeof(int), cudaMemcpyHostToDevice));
	block_sum<<<blocks, kThreads>>>(din, dpartial, n);
	CHECK_LAUNCH();
	block_sum<<<1, kThreads>>>(dpartial, dtotal, blocks);
	CHECK_LAUNCH();
	int total = 0;
	CHECK_CUDA(cudaMemcpy(&total, dtotal, sizeof(int), cudaMemcpyDeviceToHost));
	return report("reduce_shared", total == ref);
}
