// SPDX-License-Identifier: MIT
// __syncthreads_count, __syncthreads_and and __syncthreads_or over a whole
// block of several warps.
#include "test_util.h"

__global__ void vote_block(const int *pred, int *counts, int *ands, int *ors)
{
	int p = pred[blockIdx.x * blockDim.x + threadIdx.x];
	int c = __syncthreads_count(p);
	int a = __syncthreads_and(p);
	int o = __syncthreads_or(p);
	if (threadIdx.x == 5) {
		counts[blockIdx.x] = c;
		ands[blockIdx.x] = a != 0;
		ors[blockIdx.x] = o != 0;
	}
}

int main()
{
	const int blocks = 4, threads = 160, n = blocks * threads;
	int pred[n];
	for (int i = 0; i < n; ++i) {
		int b = i / threads;
		pred[i] = b == 0 ? 1 : b == 1 ? 0 : b == 2 ? (i % 3 == 0) * 5 : (i % threads == 77);
	}
	int *dpred, *dc, *da, *dor;
	CHECK_CUDA(cudaMalloc(&dpred, sizeof(pred)));
	CHECK_CUDA(cudaMalloc(&dc, blocks * sizeof(int)));
	CHECK_CUDA(cudaMalloc(&da, blocks * sizeof(int)));
	CHECK_CUDA(cudaMalloc(&dor, blocks * sizeof(int)));
	CHECK_CUDA(cudaMemcpy(dpred, pred, sizeof(pred), cudaMemcpyHostToDevice));
	vote_block<<<blocks, threads>>>(dpred, dc, da, dor);
	CHECK_LAUNCH();
	int counts[blocks], ands[blocks], ors[blocks];
	CHECK_CUDA(cudaMemcpy(counts, dc, sizeof(counts), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(ands, da, sizeof(ands), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(ors, dor, sizeof(ors), cudaMemcpyDeviceToHost));
	bool ok = true;
	for (int b = 0; b < blocks; ++b) {
		int count = 0;
		for (int t = 0; t < threads; ++t)
			count += pred[b * threads + t] != 0;
		ok &= counts[b] == count && ands[b] == (count == threads) && ors[b] == (count > 0);
	}
	return report("syncthreads_variants", ok);
}
