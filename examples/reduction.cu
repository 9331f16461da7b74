// SPDX-License-Identifier: MIT
// Sum of a large array in two launches: every block reduces its part to one
// partial sum, then one block reduces the partial sums.
//
// Teaches: grid-stride loops, a tree reduction in shared memory (halving
// the active threads at each step, with a barrier between steps), and the
// last 32 values reduced inside one warp with __shfl_down_sync, which needs
// no shared memory and no barrier.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#include "check.h"

constexpr int THREADS = 256; // a power of two, for the halving steps

__device__ long long warp_sum(long long v)
{
	for (int offset = 16; offset > 0; offset /= 2)
		v += __shfl_down_sync(0xffffffffu, v, offset); // lane i adds lane i + offset
	return v;
}

__global__ void block_sum(const int *in, long long *out, int n)
{
	__shared__ long long partial[THREADS];
	long long v = 0;
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
		v += in[i];
	partial[threadIdx.x] = v;
	__syncthreads();
	// Tree: 256 -> 128 -> 64 -> 32 values in shared memory.
	for (int active = THREADS / 2; active >= 32; active /= 2) {
		if (threadIdx.x < active)
			partial[threadIdx.x] += partial[threadIdx.x + active];
		__syncthreads();
	}
	// The first warp finishes with shuffles: 32 -> 1.
	if (threadIdx.x < 32) {
		long long total = warp_sum(partial[threadIdx.x]);
		if (threadIdx.x == 0)
			out[blockIdx.x] = total;
	}
}

// The second pass reads 64-bit partial sums.
__global__ void sum_partials(const long long *in, long long *out, int n)
{
	__shared__ long long partial[THREADS];
	long long v = 0;
	for (int i = threadIdx.x; i < n; i += blockDim.x)
		v += in[i];
	partial[threadIdx.x] = v;
	__syncthreads();
	for (int active = THREADS / 2; active >= 32; active /= 2) {
		if (threadIdx.x < active)
			partial[threadIdx.x] += partial[threadIdx.x + active];
		__syncthreads();
	}
	if (threadIdx.x < 32) {
		long long total = warp_sum(partial[threadIdx.x]);
		if (threadIdx.x == 0)
			*out = total;
	}
}

int main()
{
	const int n = 100000, blocks = 24;
	std::vector<int> data(n);
	unsigned state = 12345;
	long long ref = 0;
	for (int i = 0; i < n; ++i) {
		state = state * 1103515245u + 12345u; // a simple LCG
		data[i] = static_cast<int>(state >> 8) % 20001 - 10000;
		ref += data[i];
	}

	int *din;
	long long *dpartial, *dtotal;
	CUDA_CHECK(cudaMalloc(&din, n * sizeof(int)));
	CUDA_CHECK(cudaMalloc(&dpartial, blocks * sizeof(long long)));
	CUDA_CHECK(cudaMalloc(&dtotal, sizeof(long long)));
	CUDA_CHECK(cudaMemcpy(din, data.data(), n * sizeof(int), cudaMemcpyHostToDevice));

	block_sum<<<blocks, THREADS>>>(din, dpartial, n);
	CUDA_CHECK(cudaGetLastError());
	sum_partials<<<1, THREADS>>>(dpartial, dtotal, blocks);
	CUDA_CHECK(cudaGetLastError());
	long long total = 0;
	CUDA_CHECK(cudaMemcpy(&total, dtotal, sizeof(total), cudaMemcpyDeviceToHost));

	std::printf("reduction: %d ints, %d blocks of %d threads, then 1 block\n", n, blocks, THREADS);
	std::printf("  GPU sum %lld, CPU sum %lld\n", total, ref);
	CUDA_CHECK(cudaFree(din));
	CUDA_CHECK(cudaFree(dpartial));
	CUDA_CHECK(cudaFree(dtotal));
	bool ok = total == ref;
	std::printf("reduction: %s\n", ok ? "PASS" : "FAIL");
	return ok ? 0 : 1;
}
