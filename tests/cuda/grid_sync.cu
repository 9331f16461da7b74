// SPDX-License-Identifier: MIT
// cooperative_groups::grid_group (issue 16): a cooperative launch of as many
// blocks as can be resident does several grid-wide phases separated by
// grid.sync() (per-block sums, a grid total by block 0, a broadcast that
// every thread reads, repeated rounds), checked against the CPU; the same
// kernel twice on one stream and once on another (the barrier word is
// reused); grid.size()/thread_rank(); and the refusal of a grid one block
// larger than can be co-resident.
#include <cooperative_groups.h>

#include <vector>

#include "test_util.h"

namespace cg = cooperative_groups;

constexpr int kThreads = 128, kRounds = 3;

// Each round: partial[b] = sum of block b's values; sync; block 0 adds the
// partials into *total; sync; every value becomes value * 3 - total % 1000
// (so each round depends on the whole grid's previous one); sync.
__global__ void rounds(int *data, int *partial, int *total, unsigned long long *ranks, int n)
{
	__shared__ int sums[kThreads];
	cg::grid_group grid = cg::this_grid();
	cg::thread_block block = cg::this_thread_block();
	const unsigned long long rank = grid.thread_rank();
	ranks[rank] = rank * 1000000ull + grid.size();
	for (int r = 0; r < kRounds; ++r) {
		int sum = 0;
		for (unsigned long long i = rank; i < (unsigned long long)n; i += grid.size())
			sum += data[i];
		sums[block.thread_rank()] = sum;
		block.sync();
		for (int s = kThreads / 2; s > 0; s /= 2) {
			if ((int)block.thread_rank() < s)
				sums[block.thread_rank()] += sums[block.thread_rank() + s];
			block.sync();
		}
		if (block.thread_rank() == 0)
			partial[blockIdx.x] = sums[0];
		grid.sync();
		if (blockIdx.x == 0 && block.thread_rank() == 0) {
			int t = 0;
			for (unsigned b = 0; b < gridDim.x; ++b)
				t += partial[b];
			total[r] = t;
		}
		grid.sync();
		const int t = total[r];
		for (unsigned long long i = rank; i < (unsigned long long)n; i += grid.size())
			data[i] = data[i] * 3 - t % 1000;
		grid.sync();
	}
}

static void reference(std::vector<int> &data, std::vector<int> &totals)
{
	for (int r = 0; r < kRounds; ++r) {
		int t = 0;
		for (int v : data)
			t += v;
		totals[r] = t;
		for (int &v : data)
			v = v * 3 - t % 1000;
	}
}

int main()
{
	bool ok = true;
	int dev = 0, coop = 0, sms = 0, per_sm = 0;
	CHECK_CUDA(cudaGetDevice(&dev));
	CHECK_CUDA(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
	CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
	CHECK_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, rounds, kThreads, 0));
	if (coop != 1) {
		std::printf("cudaDevAttrCooperativeLaunch = %d, expected 1\n", coop);
		ok = false;
	}
	const int blocks = per_sm * sms, n = blocks * kThreads * 2 + 77;
	const unsigned long long threads = (unsigned long long)blocks * kThreads;
	std::printf("grid of %d blocks (%d per SM x %d SMs), %d values\n", blocks, per_sm, sms, n);

	Rng rng(16);
	std::vector<int> host(n), want(n), totals(kRounds), got_totals(kRounds);
	for (int &v : host)
		v = rng.range(-50, 50);

	int *data, *partial, *total;
	unsigned long long *ranks;
	CHECK_CUDA(cudaMalloc(&data, n * sizeof(int)));
	CHECK_CUDA(cudaMalloc(&partial, blocks * sizeof(int)));
	CHECK_CUDA(cudaMalloc(&total, kRounds * sizeof(int)));
	CHECK_CUDA(cudaMalloc(&ranks, threads * sizeof(unsigned long long)));
	CHECK_CUDA(cudaMemcpy(data, host.data(), n * sizeof(int), cudaMemcpyHostToDevice));
	cudaStream_t other;
	CHECK_CUDA(cudaStreamCreate(&other));

	want = host;
	int nn = n;
	void *args[] = {&data, &partial, &total, &ranks, &nn};
	// Twice on the default stream, once on another: the same data goes
	// through 3 x kRounds rounds, each checked below.
	for (int launch = 0; launch < 3; ++launch) {
		CHECK_CUDA(cudaLaunchCooperativeKernel((void *)rounds, dim3(blocks), dim3(kThreads), args,
						       0, launch == 2 ? other : 0));
		CHECK_LAUNCH();
		reference(want, totals);
		CHECK_CUDA(cudaMemcpy(got_totals.data(), total, kRounds * sizeof(int),
				      cudaMemcpyDeviceToHost));
		for (int r = 0; r < kRounds; ++r)
			if (got_totals[r] != totals[r]) {
				std::printf("launch %d round %d: total %d, expected %d\n", launch, r,
					    got_totals[r], totals[r]);
				ok = false;
			}
	}
	std::vector<int> got(n);
	CHECK_CUDA(cudaMemcpy(got.data(), data, n * sizeof(int), cudaMemcpyDeviceToHost));
	for (int i = 0; i < n && ok; ++i)
		if (got[i] != want[i]) {
			std::printf("data[%d] = %d, expected %d\n", i, got[i], want[i]);
			ok = false;
		}
	std::vector<unsigned long long> got_ranks(threads);
	CHECK_CUDA(cudaMemcpy(got_ranks.data(), ranks, threads * sizeof(unsigned long long),
			      cudaMemcpyDeviceToHost));
	for (unsigned long long i = 0; i < threads && ok; ++i)
		if (got_ranks[i] != i * 1000000ull + threads) {
			std::printf("ranks[%llu] = %llu\n", i, got_ranks[i]);
			ok = false;
		}

	// One block more than can be resident: refused, nothing runs.
	cudaError_t err = cudaLaunchCooperativeKernel((void *)rounds, dim3(blocks + 1),
						      dim3(kThreads), args, 0, 0);
	if (err != cudaErrorCooperativeLaunchTooLarge ||
	    cudaGetLastError() != cudaErrorCooperativeLaunchTooLarge ||
	    cudaGetLastError() != cudaSuccess ||
	    std::strcmp(cudaGetErrorString(err), "too many blocks in cooperative launch") != 0) {
		std::printf("oversize launch: %s (%s)\n", cudaGetErrorName(err), cudaGetErrorString(err));
		ok = false;
	}
	// A 2-D grid is counted by all its blocks.
	err = cudaLaunchCooperativeKernel((void *)rounds, dim3(blocks, 2), dim3(kThreads), args, 0, 0);
	if (err != cudaErrorCooperativeLaunchTooLarge) {
		std::printf("2-D oversize launch: %s\n", cudaGetErrorName(err));
		ok = false;
	}
	// Not a kernel.
	err = cudaLaunchCooperativeKernel((void *)&reference, dim3(1), dim3(kThreads), args, 0, 0);
	if (err != cudaErrorInvalidDeviceFunction) {
		std::printf("launch of a host function: %s\n", cudaGetErrorName(err));
		ok = false;
	}
	cudaGetLastError();
	CHECK_CUDA(cudaMemcpy(got.data(), data, n * sizeof(int), cudaMemcpyDeviceToHost));
	if (got != want) {
		std::printf("a refused launch changed the data\n");
		ok = false;
	}
	CHECK_CUDA(cudaStreamDestroy(other));
	CHECK_CUDA(cudaFree(data));
	CHECK_CUDA(cudaFree(partial));
	CHECK_CUDA(cudaFree(total));
	CHECK_CUDA(cudaFree(ranks));
	return report("grid_sync", ok);
}
