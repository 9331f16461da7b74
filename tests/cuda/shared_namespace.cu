// SPDX-License-Identifier: MIT
// __shared__ variables at namespace scope (issue 18.1): the issue's
// `__device__ __shared__` array (clang lists it in llvm.compiler.used, where
// its window address was an invalid member: an internal compiler error),
// one in a named namespace, a static one, one from a header used by two
// kernels, and an extern __shared__ array sized at launch next to them.
#include "test_util.h"

#include "shared_namespace.h"

__device__ __shared__ unsigned mt[64];
static __shared__ int block_sum;
namespace tiles {
__shared__ float row[64];
}
extern __shared__ int dynamic_ints[];

__global__ void reverse(unsigned *out)
{
	mt[threadIdx.x] = threadIdx.x * 3;
	__syncthreads();
	out[threadIdx.x] = mt[63 - threadIdx.x];
}

// Rotates each block's 64 values by one, through the header's array, and
// scales them through a second namespace-scope array.
__global__ void rotate(const int *in, float *out)
{
	const int t = threadIdx.x, base = blockIdx.x * 64;
	staging[t] = in[base + t];
	tiles::row[t] = 0.5f * (t + 1);
	__syncthreads();
	out[base + t] = staging[(t + 1) % 64] * tiles::row[63 - t];
}

// Reverses each block's values through dynamic shared memory and adds the
// block's sum, kept in a static __shared__ int; the header's array holds
// the block index, so every static variable must sit apart from the
// dynamic bytes that follow them.
__global__ void reverse_and_sum(const int *in, int *out)
{
	const int t = threadIdx.x, n = blockDim.x, base = blockIdx.x * n;
	if (t == 0)
		block_sum = 0;
	staging[t % 64] = blockIdx.x;
	__syncthreads();
	dynamic_ints[t] = in[base + t];
	atomicAdd(&block_sum, in[base + t]);
	__syncthreads();
	out[base + t] = dynamic_ints[n - 1 - t] + block_sum + staging[63 - t % 64];
}

int main()
{
	const int blocks = 3, threads = 64, dyn_threads = 128;
	const int n = blocks * threads, dyn_n = blocks * dyn_threads;
	unsigned reversed[64];
	int in[dyn_n], summed[dyn_n];
	float rotated[n];
	for (int i = 0; i < dyn_n; ++i)
		in[i] = (i * 7) % 31 - 9;

	unsigned *d_reversed;
	int *d_in, *d_summed;
	float *d_rotated;
	CHECK_CUDA(cudaMalloc(&d_reversed, sizeof(reversed)));
	CHECK_CUDA(cudaMalloc(&d_in, sizeof(in)));
	CHECK_CUDA(cudaMalloc(&d_summed, sizeof(summed)));
	CHECK_CUDA(cudaMalloc(&d_rotated, sizeof(rotated)));
	CHECK_CUDA(cudaMemcpy(d_in, in, sizeof(in), cudaMemcpyHostToDevice));
	reverse<<<1, 64>>>(d_reversed);
	CHECK_LAUNCH();
	rotate<<<blocks, threads>>>(d_in, d_rotated);
	CHECK_LAUNCH();
	reverse_and_sum<<<blocks, dyn_threads, dyn_threads * sizeof(int)>>>(d_in, d_summed);
	CHECK_LAUNCH();
	CHECK_CUDA(cudaMemcpy(reversed, d_reversed, sizeof(reversed), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(rotated, d_rotated, sizeof(rotated), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(summed, d_summed, sizeof(summed), cudaMemcpyDeviceToHost));

	bool ok = true;
	for (int t = 0; t < 64; ++t)
		ok &= reversed[t] == unsigned(63 - t) * 3;
	for (int b = 0; b < blocks; ++b)
		for (int t = 0; t < threads; ++t)
			ok &= rotated[b * threads + t] ==
			      in[b * threads + (t + 1) % 64] * (0.5f * (64 - t));
	for (int b = 0; b < blocks; ++b) {
		int sum = 0;
		for (int t = 0; t < dyn_threads; ++t)
			sum += in[b * dyn_threads + t];
		for (int t = 0; t < dyn_threads; ++t)
			ok &= summed[b * dyn_threads + t] ==
			      in[b * dyn_threads + dyn_threads - 1 - t] + sum + b;
	}
	return report("shared_namespace", ok);
}
