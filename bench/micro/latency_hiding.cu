// SPDX-License-Identifier: MIT
// Latency hiding: warps of one SM each follow their own chain of pointers
// through lines no kernel has touched (so every load goes to DRAM). One
// warp waits a full DRAM latency per load; 16 warps wait side by side, the
// SM issuing another warp's load while the first is outstanding, so they
// take about the time one warp takes (the DRAM system has banks and
// channels to serve them at once), not 16 times as long. That is why GPUs
// keep many warps per SM.
#include "micro.h"

#include <algorithm>
#include <vector>

constexpr int kSteps = 256;          // loads per warp
constexpr size_t kStride = 4096 + 128; // bytes between a chain's lines

__global__ void chase_warps(void **heads, void **ends, long long *start, long long *stop)
{
	int warp = threadIdx.x / 32;
	void **p = static_cast<void **>(heads[warp]);
	consume(p);
	long long t0 = clock64();
	pin(p);
	for (int i = 0; i < kSteps; ++i)
		p = static_cast<void **>(*p);
	consume(p);
	long long t1 = clock64();
	if (threadIdx.x % 32 == 0) {
		ends[warp] = p;
		start[warp] = t0;
		stop[warp] = t1;
	}
}

// Cycles from the first warp's start to the last warp's end, or -1 when a
// chain ended on the wrong line.
static long long time_warps(int warps)
{
	// Line i of warp w at (i * warps + w) * kStride: the chains interleave.
	size_t bytes = size_t(kSteps) * warps * kStride;
	char *base;
	void **dheads, **dends;
	long long *dstart, *dstop;
	MICRO_CHECK(cudaMalloc(&base, bytes));
	MICRO_CHECK(cudaMalloc(&dheads, warps * sizeof(void *)));
	MICRO_CHECK(cudaMalloc(&dends, warps * sizeof(void *)));
	MICRO_CHECK(cudaMalloc(&dstart, warps * sizeof(long long)));
	MICRO_CHECK(cudaMalloc(&dstop, warps * sizeof(long long)));
	std::vector<char> host(bytes, 0);
	std::vector<void *> heads(warps);
	auto line = [&](int i, int w) { return (size_t(i) * warps + w) * kStride; };
	for (int w = 0; w < warps; ++w) {
		heads[w] = base + line(0, w);
		for (int i = 0; i < kSteps; ++i)
			*reinterpret_cast<void **>(&host[line(i, w)]) = base + line((i + 1) % kSteps, w);
	}
	MICRO_CHECK(cudaMemcpy(base, host.data(), bytes, cudaMemcpyHostToDevice));
	MICRO_CHECK(cudaMemcpy(dheads, heads.data(), warps * sizeof(void *), cudaMemcpyHostToDevice));
	chase_warps<<<1, warps * 32>>>(dheads, dends, dstart, dstop);
	MICRO_LAUNCHED();
	std::vector<void *> ends(warps);
	std::vector<long long> start(warps), stop(warps);
	MICRO_CHECK(cudaMemcpy(ends.data(), dends, warps * sizeof(void *), cudaMemcpyDeviceToHost));
	MICRO_CHECK(cudaMemcpy(start.data(), dstart, warps * sizeof(long long), cudaMemcpyDeviceToHost));
	MICRO_CHECK(cudaMemcpy(stop.data(), dstop, warps * sizeof(long long), cudaMemcpyDeviceToHost));
	for (void *p : {static_cast<void *>(base), static_cast<void *>(dheads),
			static_cast<void *>(dends), static_cast<void *>(dstart),
			static_cast<void *>(dstop)})
		MICRO_CHECK(cudaFree(p));
	for (int w = 0; w < warps; ++w)
		if (ends[w] != heads[w]) { // kSteps loads go once around the chain
			std::printf("FAIL: warp %d of %d ended its chain on the wrong line\n", w, warps);
			return -1;
		}
	return *std::max_element(stop.begin(), stop.end()) -
	       *std::min_element(start.begin(), start.end());
}

int main()
{
	long long one = time_warps(1);
	long long sixteen = time_warps(16);
	figure("dram_chase_1_warp", one, "cycles", "%d dependent DRAM loads", kSteps);
	figure("dram_chase_16_warps", sixteen, "cycles", "16 warps of one block, %d each",
	       kSteps);
	figure("latency_hiding_ratio", one > 0 ? double(sixteen) / one : 0, "x",
	       "16 warps' time over one warp's");
	return report("latency_hiding", one > 0 && sixteen > 0);
}
