// SPDX-License-Identifier: MIT
// Warp vote: __ballot_sync, __any_sync, __all_sync and __activemask, with
// full warps and inside a divergent branch.
#include "test_util.h"

__global__ void vote(const int *pred, unsigned *ballots, int *anys, int *alls, unsigned *active)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	int p = pred[t];
	unsigned b = __ballot_sync(0xffffffffu, p);
	int any = __any_sync(0xffffffffu, p);
	int all = __all_sync(0xffffffffu, p);
	unsigned mask = 0;
	if (threadIdx.x % 3 == 0)
		mask = __activemask(); // only the lanes that took the branch
	int warp = t / 32, lane = threadIdx.x % 32;
	if (lane == 0) {
		ballots[warp] = b;
		anys[warp] = any;
		alls[warp] = all;
	}
	if (threadIdx.x % 3 == 0 && lane == 0)
		active[warp] = mask;
}

int main()
{
	const int warps = 6, n = warps * 32;
	int pred[n];
	for (int i = 0; i < n; ++i) {
		int w = i / 32;
		pred[i] = w == 0 ? 0 : w == 1 ? 1 : w == 2 ? (i % 7 == 0) : w == 3 ? (i % 2) : w == 4 ? (i % 32 == 31) : 1;
	}
	int *dpred, *danys, *dalls;
	unsigned *dballots, *dactive;
	CHECK_CUDA(cudaMalloc(&dpred, sizeof(pred)));
	CHECK_CUDA(cudaMalloc(&dballots, warps * sizeof(unsigned)));
	CHECK_CUDA(cudaMalloc(&danys, warps * sizeof(int)));
	CHECK_CUDA(cudaMalloc(&dalls, warps * sizeof(int)));
	CHECK_CUDA(cudaMalloc(&dactive, warps * sizeof(unsigned)));
	CHECK_CUDA(cudaMemcpy(dpred, pred, sizeof(pred), cudaMemcpyHostToDevice));
	vote<<<2, 96>>>(dpred, dballots, danys, dalls, dactive);
	CHECK_LAUNCH();
	unsigned ballots[warps], active[warps];
	int anys[warps], alls[warps];
	CHECK_CUDA(cudaMemcpy(ballots, dballots, sizeof(ballots), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(anys, danys, sizeof(anys), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(alls, dalls, sizeof(alls), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(active, dactive, sizeof(active), cudaMemcpyDeviceToHost));
	bool ok = true;
	for (int w = 0; w < warps; ++w) {
		unsigned ref = 0, ref_active = 0;
		for (int l = 0; l < 32; ++l) {
			ref |= (pred[w * 32 + l] ? 1u : 0u) << l;
			int tid_in_block = (w * 32 + l) % 96;
			ref_active |= (tid_in_block % 3 == 0 ? 1u : 0u) << l;
		}
		ok &= ballots[w] == ref;
		ok &= anys[w] == (ref != 0);
		ok &= alls[w] == (ref == 0xffffffffu);
		// lane 0 of a warp took the branch when its block-relative index is a multiple of 3
		if (((w * 32) % 96) % 3 == 0)
			ok &= active[w] == ref_active;
	}
	return report("vote", ok);
}
