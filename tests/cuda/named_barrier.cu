// SPDX-License-Identifier: MIT
// Named barriers (issue 18): __barrier_sync(id) for the whole block,
// __barrier_sync_count(id, n) and the inline PTX real code uses
// ("bar.sync %0, %1;", "bar.arrive %0, %1;", "bar.sync 2, 64;") for a
// producer/consumer hand-off between warps, and two halves of the block
// reducing in shared memory at barriers of their own while the other half
// does something else.
#include "test_util.h"

constexpr int kThreads = 256, kHalf = kThreads / 2;

__device__ __forceinline__ void bar_sync(unsigned id, unsigned count)
{
	asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(count) : "memory");
}

__device__ __forceinline__ void bar_arrive(unsigned id, unsigned count)
{
	asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(count) : "memory");
}

__global__ void pipeline(const int *in, int *out, int *sums, int rounds)
{
	__shared__ int stage[kHalf];
	__shared__ int partial[kThreads];
	int t = threadIdx.x;
	int base = blockIdx.x * rounds * kHalf;
	// Producers (warps 0..3) fill the stage; consumers (warps 4..7) use it.
	// Barrier 1: stage full (producers arrive, consumers wait); barrier 2:
	// stage free again (consumers arrive, producers wait).
	for (int r = 0; r < rounds; ++r) {
		if (t < kHalf) {
			if (r > 0)
				bar_sync(2, kThreads);
			stage[t] = in[base + r * kHalf + t] * 3;
			bar_arrive(1, kThreads);
		} else {
			bar_sync(1, kThreads);
			out[base + r * kHalf + (t - kHalf)] = stage[kHalf - 1 - (t - kHalf)] + r;
			if (r + 1 < rounds)
				bar_arrive(2, kThreads);
		}
	}
	__barrier_sync(3); // every thread of the block, at barrier 3

	// Each half reduces its own values at its own barrier (4: the lower
	// half, by __barrier_sync_count; 5: the upper one, by literal PTX).
	partial[t] = in[base + t % kHalf] + t;
	int half = t / kHalf, i = t % kHalf;
	for (int stride = kHalf / 2; stride > 0; stride /= 2) {
		if (half == 0)
			__barrier_sync_count(4, kHalf);
		else
			asm volatile("bar.sync 5, 128;" ::: "memory");
		if (i < stride)
			partial[t] += partial[t + stride];
	}
	__syncthreads();
	if (t == 0) {
		sums[2 * blockIdx.x] = partial[0];
		sums[2 * blockIdx.x + 1] = partial[kHalf];
	}
	// A warp-sized named barrier of one warp: barrier 2, 32 threads.
	if (t >= 32 && t < 64)
		asm volatile("bar.sync 2, 32;" ::: "memory");
}

int main()
{
	const int blocks = 3, rounds = 5, n = blocks * rounds * kHalf;
	static int in[n], out[n];
	Rng rng(42);
	for (int i = 0; i < n; ++i)
		in[i] = rng.range(-500, 500);
	int *din, *dout, *dsums;
	CHECK_CUDA(cudaMalloc(&din, sizeof(in)));
	CHECK_CUDA(cudaMalloc(&dout, sizeof(out)));
	CHECK_CUDA(cudaMalloc(&dsums, 2 * blocks * sizeof(int)));
	CHECK_CUDA(cudaMemcpy(din, in, sizeof(in), cudaMemcpyHostToDevice));
	pipeline<<<blocks, kThreads>>>(din, dout, dsums, rounds);
	CHECK_LAUNCH();
	int sums[2 * blocks];
	CHECK_CUDA(cudaMemcpy(out, dout, sizeof(out), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(sums, dsums, sizeof(sums), cudaMemcpyDeviceToHost));
	bool ok = true;
	for (int b = 0; b < blocks; ++b) {
		int base = b * rounds * kHalf;
		for (int r = 0; r < rounds; ++r)
			for (int c = 0; c < kHalf; ++c) {
				int want = in[base + r * kHalf + kHalf - 1 - c] * 3 + r;
				if (out[base + r * kHalf + c] != want) {
					if (ok)
						std::printf("block %d round %d consumer %d: %d, expected %d\n",
							    b, r, c, out[base + r * kHalf + c], want);
					ok = false;
				}
			}
		for (int h = 0; h < 2; ++h) {
			int want = 0;
			for (int i = 0; i < kHalf; ++i)
				want += in[base + i] + h * kHalf + i;
			if (sums[2 * b + h] != want) {
				std::printf("block %d half %d: sum %d, expected %d\n", b, h, sums[2 * b + h],
					    want);
				ok = false;
			}
		}
	}
	return report("named_barrier", ok);
}
