// SPDX-License-Identifier: MIT
// __match_any_sync and __match_all_sync (issue 18): the warp-aggregated
// histogram they are used for (one atomicAdd per group of equal keys), every
// overload's type (int, unsigned, long long with keys that differ only in
// the upper half, float, double), partial masks, match_all's pred, and calls
// from divergent branches, which must wait for each other (*_sync rule).
#include "test_util.h"

constexpr int kBins = 16;

__global__ void aggregate(const int *keys, int *hist, unsigned *any, unsigned *all, int *pred,
			  unsigned *wide, unsigned *half, unsigned *floats, unsigned *divergent)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	int lane = threadIdx.x % 32;
	int key = keys[t];

	unsigned peers = __match_any_sync(0xffffffffu, key);
	if (lane == __ffs(peers) - 1)
		atomicAdd(&hist[key], __popc(peers));
	any[t] = peers;

	int p = -1;
	all[t] = __match_all_sync(0xffffffffu, (unsigned)key, &p);
	pred[t] = p;

	// 64-bit values equal in their low halves: only the upper half differs.
	long long k64 = (long long)(lane % 3) << 32 | 7;
	wide[2 * t] = __match_any_sync(0xffffffffu, k64);
	int p64 = -1;
	wide[2 * t + 1] = __match_all_sync(0xffffffffu, (unsigned long long)k64, &p64) | (p64 << 0);

	// The lower half-warp only; the others do not take part.
	half[t] = 0;
	if (lane < 16)
		half[t] = __match_any_sync(0x0000ffffu, key % 3);

	floats[2 * t] = __match_any_sync(0xffffffffu, (float)(key % 4) * 0.5f);
	floats[2 * t + 1] = __match_any_sync(0xffffffffu, (double)(lane / 8) - 0.25);

	// Both sides of a branch reach a match: they still meet.
	unsigned m;
	if (key & 1) {
		for (int i = 0; i < lane % 5; ++i)
			key += 2 * 16; // keeps key % 32 and its parity
		m = __match_any_sync(0xffffffffu, key % 16);
	} else {
		m = __match_any_sync(0xffffffffu, key % 16);
	}
	divergent[t] = m;
}

int main()
{
	const int blocks = 2, threads = 128, n = blocks * threads, warps = n / 32;
	static int keys[n];
	Rng rng(18);
	for (int i = 0; i < n; ++i) {
		int w = i / 32;
		keys[i] = w == 1 ? 5 : w == 4 ? i % 2 : rng.range(0, kBins);
	}
	int *dkeys, *dhist, *dpred;
	unsigned *dany, *dall, *dwide, *dhalf, *dfloats, *ddiv;
	CHECK_CUDA(cudaMalloc(&dkeys, sizeof(keys)));
	CHECK_CUDA(cudaMalloc(&dhist, kBins * sizeof(int)));
	CHECK_CUDA(cudaMalloc(&dpred, n * sizeof(int)));
	CHECK_CUDA(cudaMalloc(&dany, n * sizeof(unsigned)));
	CHECK_CUDA(cudaMalloc(&dall, n * sizeof(unsigned)));
	CHECK_CUDA(cudaMalloc(&dwide, 2 * n * sizeof(unsigned)));
	CHECK_CUDA(cudaMalloc(&dhalf, n * sizeof(unsigned)));
	CHECK_CUDA(cudaMalloc(&dfloats, 2 * n * sizeof(unsigned)));
	CHECK_CUDA(cudaMalloc(&ddiv, n * sizeof(unsigned)));
	CHECK_CUDA(cudaMemcpy(dkeys, keys, sizeof(keys), cudaMemcpyHostToDevice));
	CHECK_CUDA(cudaMemset(dhist, 0, kBins * sizeof(int)));
	aggregate<<<blocks, threads>>>(dkeys, dhist, dany, dall, dpred, dwide, dhalf, dfloats, ddiv);
	CHECK_LAUNCH();
	static int hist[kBins], pred[n];
	static unsigned any[n], all[n], wide[2 * n], half[n], floats[2 * n], divergent[n];
	CHECK_CUDA(cudaMemcpy(hist, dhist, sizeof(hist), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(pred, dpred, sizeof(pred), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(any, dany, sizeof(any), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(all, dall, sizeof(all), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(wide, dwide, sizeof(wide), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(half, dhalf, sizeof(half), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(floats, dfloats, sizeof(floats), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(divergent, ddiv, sizeof(divergent), cudaMemcpyDeviceToHost));

	bool ok = true;
	int ref_hist[kBins] = {};
	for (int i = 0; i < n; ++i)
		++ref_hist[keys[i]];
	for (int b = 0; b < kBins; ++b)
		if (hist[b] != ref_hist[b]) {
			std::printf("hist[%d] = %d, expected %d\n", b, hist[b], ref_hist[b]);
			ok = false;
		}
	for (int w = 0; w < warps; ++w) {
		const int *k = keys + 32 * w;
		bool same = true;
		for (int l = 0; l < 32; ++l)
			same &= k[l] == k[0];
		for (int l = 0; l < 32; ++l) {
			int t = 32 * w + l;
			unsigned ref_any = 0, ref_wide = 0, ref_half = 0, ref_f = 0, ref_d = 0, ref_div = 0;
			for (int j = 0; j < 32; ++j) {
				ref_any |= (k[j] == k[l] ? 1u : 0u) << j;
				ref_wide |= (j % 3 == l % 3 ? 1u : 0u) << j;
				if (j < 16)
					ref_half |= (k[j] % 3 == k[l] % 3 ? 1u : 0u) << j;
				ref_f |= (k[j] % 4 == k[l] % 4 ? 1u : 0u) << j;
				ref_d |= (j / 8 == l / 8 ? 1u : 0u) << j;
				ref_div |= (k[j] % 16 == k[l] % 16 ? 1u : 0u) << j;
			}
			bool good = any[t] == ref_any && all[t] == (same ? 0xffffffffu : 0u) &&
				    pred[t] == (same ? 1 : 0) && wide[2 * t] == ref_wide &&
				    wide[2 * t + 1] == 0 && half[t] == (l < 16 ? ref_half : 0u) &&
				    floats[2 * t] == ref_f && floats[2 * t + 1] == ref_d &&
				    divergent[t] == ref_div;
			if (!good && ok)
				std::printf("thread %d: any %08x/%08x all %08x pred %d wide %08x/%08x %08x "
					    "half %08x/%08x floats %08x/%08x %08x/%08x divergent %08x/%08x\n",
					    t, any[t], ref_any, all[t], pred[t], wide[2 * t], ref_wide,
					    wide[2 * t + 1], half[t], ref_half, floats[2 * t], ref_f,
					    floats[2 * t + 1], ref_d, divergent[t], ref_div);
			ok &= good;
		}
	}
	return report("warp_match", ok);
}
