// SPDX-License-Identifier: MIT
// Load latencies by pointer chasing (Jia et al. 2018, "Dissecting the NVIDIA
// Volta GPU Architecture via Microbenchmarking", section 3): one thread
// follows a chain of pointers, each load's address being the value the
// previous load returned, so no two loads overlap and clock64() around the
// chain divided by its length is the latency of one load. Where the chain's
// lines live decides what is measured:
//   L1 hit:  32 lines (4 KiB), walked once to fill L1, then timed over 4096
//            loads, so that a fixed cost of the timed region (about 400
//            cycles on `volta`: 28.81 per load over 512 loads, 28.10 over
//            4096) weighs little;
//   L2 hit:  2048 lines (256 KiB, twice Volta's 128 KiB L1), walked once,
//            then timed: L1 keeps the most recent lines, and the walk needs
//            the oldest (LRU), so every load misses L1 and hits L2;
//   DRAM:    2048 lines 4 KiB + 128 B apart (8.3 MiB) that no kernel has
//            touched: each load misses L1 and L2;
//   shared:  a chain of 256 pointers in shared memory.
#include "micro.h"

#include <vector>

__global__ void chase(void **head, int warm, int steps, long long *cycles, void **end)
{
	void **p = head;
	for (int i = 0; i < warm; ++i)
		p = static_cast<void **>(*p);
	consume(p);
	long long t0 = clock64();
	pin(p);
#pragma unroll 8
	for (int i = 0; i < steps; ++i)
		p = static_cast<void **>(*p);
	consume(p);
	long long t1 = clock64();
	*cycles = t1 - t0;
	*end = p;
}

constexpr int kSharedSlots = 256;

// The same in shared memory; the thread links the chain itself (slot i
// points to slot i + 33, a stride that visits every slot).
__global__ void chase_shared(int steps, long long *cycles, int *end_slot)
{
	__shared__ void *slots[kSharedSlots];
	for (int i = 0; i < kSharedSlots; ++i)
		slots[i] = &slots[(i + 33) % kSharedSlots];
	void **p = &slots[0];
	for (int i = 0; i < kSharedSlots; ++i) // once untimed, so the stores are done
		p = static_cast<void **>(*p);
	consume(p);
	long long t0 = clock64();
	pin(p);
#pragma unroll 8
	for (int i = 0; i < steps; ++i)
		p = static_cast<void **>(*p);
	consume(p);
	long long t1 = clock64();
	*cycles = t1 - t0;
	*end_slot = static_cast<int>(p - slots);
}

struct Chain {
	size_t lines, stride; // bytes between consecutive links
};

// Links `lines` slots `stride` bytes apart in a fresh allocation, slot i to
// slot i + 1 and the last back to the first; runs the chase and returns
// cycles per load, or a negative value when the chain ends on the wrong slot.
static double time_chain(Chain c, int warm, int steps)
{
	size_t bytes = c.lines * c.stride;
	char *base;
	MICRO_CHECK(cudaMalloc(&base, bytes));
	std::vector<char> host(bytes, 0);
	for (size_t i = 0; i < c.lines; ++i) {
		void *next = base + (i + 1) % c.lines * c.stride;
		*reinterpret_cast<void **>(&host[i * c.stride]) = next;
	}
	MICRO_CHECK(cudaMemcpy(base, host.data(), bytes, cudaMemcpyHostToDevice));
	long long *cycles;
	void **end;
	MICRO_CHECK(cudaMalloc(&cycles, sizeof(long long)));
	MICRO_CHECK(cudaMalloc(&end, sizeof(void *)));
	chase<<<1, 1>>>(reinterpret_cast<void **>(base), warm, steps, cycles, end);
	MICRO_LAUNCHED();
	long long elapsed;
	void *last;
	MICRO_CHECK(cudaMemcpy(&elapsed, cycles, sizeof elapsed, cudaMemcpyDeviceToHost));
	MICRO_CHECK(cudaMemcpy(&last, end, sizeof last, cudaMemcpyDeviceToHost));
	MICRO_CHECK(cudaFree(base));
	MICRO_CHECK(cudaFree(cycles));
	MICRO_CHECK(cudaFree(end));
	if (last != base + (warm + steps) % c.lines * c.stride) {
		std::printf("FAIL: the chain of %zu lines ended on the wrong slot\n", c.lines);
		return -1;
	}
	return static_cast<double>(elapsed) / steps;
}

int main()
{
	bool ok = true;
	double l1 = time_chain({32, 128}, 32, 4096);
	figure("l1_hit_latency", l1, "cycles", "pointer chase, 4 KiB of 128 B lines, after one walk");
	double l2 = time_chain({2048, 128}, 2048, 2048);
	figure("l2_hit_latency", l2, "cycles", "pointer chase, 256 KiB of 128 B lines, after one walk");
	double dram = time_chain({2048, 4096 + 128}, 0, 2048);
	figure("dram_latency", dram, "cycles", "pointer chase, 2048 untouched lines 4224 B apart");
	ok &= l1 > 0 && l2 > 0 && dram > 0;

	const int steps = 512;
	long long *cycles;
	int *end_slot;
	MICRO_CHECK(cudaMalloc(&cycles, sizeof(long long)));
	MICRO_CHECK(cudaMalloc(&end_slot, sizeof(int)));
	chase_shared<<<1, 1>>>(steps, cycles, end_slot);
	MICRO_LAUNCHED();
	long long elapsed;
	int slot;
	MICRO_CHECK(cudaMemcpy(&elapsed, cycles, sizeof elapsed, cudaMemcpyDeviceToHost));
	MICRO_CHECK(cudaMemcpy(&slot, end_slot, sizeof slot, cudaMemcpyDeviceToHost));
	figure("shared_latency", static_cast<double>(elapsed) / steps, "cycles",
	       "pointer chase, 256 pointers in shared memory");
	ok &= slot == (kSharedSlots + steps) * 33 % kSharedSlots;
	return report("latency", ok);
}
