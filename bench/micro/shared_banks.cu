// SPDX-License-Identifier: MIT
// Shared-memory bank conflicts (Jia et al. 2018, section 3.5): 32 banks of
// 4 bytes, a word's bank is its index mod 32, and the lanes of a warp that
// want different words of one bank are served one after another. Every lane
// reads the word `lane * stride` (plus a multiple of 32 * stride, so each of
// the 8 loads of a round is a separate access with the same bank pattern):
//   stride 1:  32 banks, one word each              1 pass
//   stride 2:  16 banks, two words each             2 passes (2-way conflict)
//   stride 32: one bank, 32 words                   32 passes (32-way)
//   broadcast: every lane the same word             1 pass
// A block of many warps issues these loads as fast as it can, so the time
// per warp-wide access is how many passes the banks need for it.
#include "micro.h"

#include <algorithm>
#include <vector>

constexpr int kWords = 8192; // 32 KiB: 32 lanes * stride 32 * 8 loads
constexpr int kLoads = 8;    // independent loads per round
constexpr int kRounds = 16;

__device__ __host__ inline unsigned word_value(int i) { return i * 2654435761u; }
// stride 0 is the broadcast.
__device__ __host__ inline int word_index(int lane, int k, int stride)
{
	return stride ? lane * stride + k * 32 * stride : k * 32;
}

__global__ void banks(int stride, unsigned *sums, long long *start, long long *stop)
{
	__shared__ unsigned words[kWords];
	for (int i = threadIdx.x; i < kWords; i += blockDim.x)
		words[i] = word_value(i);
	__syncthreads();
	const volatile unsigned *w = words;
	int lane = threadIdx.x % 32;
	int at[kLoads];
#pragma unroll
	for (int k = 0; k < kLoads; ++k)
		at[k] = word_index(lane, k, stride);
	unsigned sum = 0;
	long long t0 = clock64();
	for (int r = 0; r < kRounds; ++r) {
		unsigned v[kLoads];
#pragma unroll
		for (int k = 0; k < kLoads; ++k)
			v[k] = w[at[k]];
#pragma unroll
		for (int k = 0; k < kLoads; ++k)
			sum += v[k];
	}
	pin(sum);
	long long t1 = clock64();
	sums[blockIdx.x * blockDim.x + threadIdx.x] = sum;
	if (lane == 0) {
		start[threadIdx.x / 32] = t0;
		stop[threadIdx.x / 32] = t1;
	}
}

// Cycles per warp-wide access at this stride, or a negative value when a
// thread's sum is wrong.
static double cycles_per_access(int stride, int threads)
{
	int warps = threads / 32;
	unsigned *dsums;
	long long *dstart, *dstop;
	MICRO_CHECK(cudaMalloc(&dsums, threads * sizeof(unsigned)));
	MICRO_CHECK(cudaMalloc(&dstart, warps * sizeof(long long)));
	MICRO_CHECK(cudaMalloc(&dstop, warps * sizeof(long long)));
	banks<<<1, threads>>>(stride, dsums, dstart, dstop);
	MICRO_LAUNCHED();
	std::vector<unsigned> sums(threads);
	std::vector<long long> start(warps), stop(warps);
	MICRO_CHECK(cudaMemcpy(sums.data(), dsums, threads * sizeof(unsigned), cudaMemcpyDeviceToHost));
	MICRO_CHECK(cudaMemcpy(start.data(), dstart, warps * sizeof(long long), cudaMemcpyDeviceToHost));
	MICRO_CHECK(cudaMemcpy(stop.data(), dstop, warps * sizeof(long long), cudaMemcpyDeviceToHost));
	MICRO_CHECK(cudaFree(dsums));
	MICRO_CHECK(cudaFree(dstart));
	MICRO_CHECK(cudaFree(dstop));
	for (int t = 0; t < threads; ++t) {
		unsigned expect = 0;
		for (int k = 0; k < kLoads; ++k)
			expect += word_value(word_index(t % 32, k, stride));
		if (sums[t] != expect * kRounds) {
			std::printf("FAIL: stride %d: thread %d summed %u, expected %u\n", stride, t,
				    sums[t], expect * kRounds);
			return -1;
		}
	}
	long long elapsed = *std::max_element(stop.begin(), stop.end()) -
			    *std::min_element(start.begin(), start.end());
	return static_cast<double>(elapsed) / (warps * kRounds * kLoads);
}

int main()
{
	cudaDeviceProp prop;
	MICRO_CHECK(cudaGetDeviceProperties(&prop, 0));
	// Enough warps that the banks, not the warps' issue, limit the rate.
	int threads = std::min(1024, prop.maxThreadsPerBlock);
	bool ok = true;
	struct {
		const char *name;
		int stride;
	} cases[] = {{"shared_stride1", 1}, {"shared_stride2", 2}, {"shared_stride32", 32},
		     {"shared_broadcast", 0}};
	for (auto c : cases) {
		double cycles = cycles_per_access(c.stride, threads);
		ok &= cycles > 0;
		if (c.stride)
			figure(c.name, cycles, "cycles/warp", "%d warps, lane i reads word %d*i",
			       threads / 32, c.stride);
		else
			figure(c.name, cycles, "cycles/warp", "%d warps, every lane one word",
			       threads / 32);
	}
	return report("shared_banks", ok);
}
