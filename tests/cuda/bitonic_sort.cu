// SPDX-License-Identifier: MIT
// Bitonic sort of 4096 keys: one launch per (k, j) step over global memory,
// as in NVIDIA's sortingNetworks sample, then a shared-memory sort of
// 512-key chunks checked separately.
#include <algorithm>

#include "test_util.h"

__global__ void bitonic_step(int *keys, int j, int k)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	unsigned partner = i ^ j;
	if (partner > i) {
		bool ascending = (i & k) == 0;
		int a = keys[i], b = keys[partner];
		if ((a > b) == ascending) {
			keys[i] = b;
			keys[partner] = a;
		}
	}
}

constexpr int kChunk = 512;

__global__ void bitonic_shared(int *keys)
{
	__shared__ int s[kChunk];
	unsigned t = threadIdx.x;
	int *chunk = keys + blockIdx.x * kChunk;
	s[t] = chunk[t];
	s[t + kChunk / 2] = chunk[t + kChunk / 2];
	__syncthreads();
	for (unsigned k = 2; k <= kChunk; k <<= 1)
		for (unsigned j = k >> 1; j > 0; j >>= 1) {
			// Each thread owns one compare-exchange pair.
			unsigned i = 2 * t - (t & (j - 1));
			unsigned partner = i + j;
			bool ascending = (i & k) == 0;
			int a = s[i], b = s[partner];
			if ((a > b) == ascending) {
				s[i] = b;
				s[partner] = a;
			}
			__syncthreads();
		}
	chunk[t] = s[t];
	chunk[t + kChunk / 2] = s[t + kChunk / 2];
}

int main()
{
	const int n = 4096;
	int *keys = new int[n], *out = new int[n];
	Rng rng(7);
	for (int i = 0; i < n; ++i)
		keys[i] = rng.range(-100000, 100000);
	int *dkeys;
	CHECK_CUDA(cudaMalloc(&dkeys, n * sizeof(int)));
	CHECK_CUDA(cudaMemcpy(dkeys, keys, n * sizeof(int), cudaMemcpyHostToDevice));
	for (int k = 2; k <= n; k <<= 1)
		for (int j = k >> 1; j > 0; j >>= 1)
			bitonic_step<<<n / 256, 256>>>(dkeys, j, k);
	CHECK_LAUNCH();
	CHECK_CUDA(cudaMemcpy(out, dkeys, n * sizeof(int), cudaMemcpyDeviceToHost));
	int *ref = new int[n];
	std::copy(keys, keys + n, ref);
	std::sort(ref, ref + n);
	bool ok = std::equal(ref, ref + n, out);

	CHECK_CUDA(cudaMemcpy(dkeys, keys, n * sizeof(int), cudaMemcpyHostToDevice));
	bitonic_shared<<<n / kChunk, kChunk / 2>>>(dkeys);
	CHECK_LAUNCH();
	CHECK_CUDA(cudaMemcpy(out, dkeys, n * sizeof(int), cudaMemcpyDeviceToHost));
	for (int c = 0; c < n / kChunk; ++c) {
		std::copy(keys + c * kChunk, keys + (c + 1) * kChunk, ref);
		std::sort(ref, ref + kChunk);
		ok &= std::equal(ref, ref + kChunk, out + c * kChunk);
	}
	return report("bitonic_sort", ok);
}
