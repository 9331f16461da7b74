// SPDX-License-Identifier: MIT
// Warp votes and shuffles right after divergence: each thread loops for the
// Collatz step count of its index, then the warp votes on (steps odd) and
// shuffles steps with the neighbouring lane. CUDA's *_sync rule: the
// intrinsic waits until every non-exited lane of the mask has reached it,
// whatever order the lanes leave the loop in (issue 11: the ballot of
// threads 32..63 lacked the lanes with the longest loops).
#include "test_util.h"

__device__ unsigned collatz_steps(unsigned n)
{
	unsigned steps = 0;
	while (n > 1) {
		n = (n & 1) ? 3 * n + 1 : n / 2;
		++steps;
	}
	return steps;
}

__global__ void vote_after_loop(unsigned *ballots, int *anys, int *alls, unsigned *neighbours)
{
	unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
	unsigned steps = collatz_steps(t);
	bool odd = steps % 2 == 1;
	ballots[t] = __ballot_sync(0xffffffffu, odd);
	anys[t] = __any_sync(0xffffffffu, steps > 100);
	alls[t] = __all_sync(0xffffffffu, steps > 2);
	neighbours[t] = __shfl_xor_sync(0xffffffffu, steps, 1);
}

// The same after a loop that leaves early by a break, which compilers lay
// out with the exit block elsewhere than the loop's own test.
__global__ void shuffle_after_break(const unsigned *limits, unsigned *sums, unsigned *reversed)
{
	unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
	unsigned n = t + 1, sum = 0;
	for (unsigned i = 0;; ++i) {
		if (n == 1 || i == limits[t])
			break;
		n = (n & 1) ? 3 * n + 1 : n / 2;
		sum += n;
	}
	sums[t] = sum;
	reversed[t] = __shfl_sync(0xffffffffu, sum, 31 - threadIdx.x % 32);
}

// Row sums by a shuffle reduction in a loop, lane 0 storing each row's sum
// while the other lanes go round to the next row (jacobiCudaGraphs' shape;
// clang lays the store out after the loop's back edge, so min-PC runs the
// other lanes first). A 64-bit shuffle is two of its halves; the next row's
// shuffles must wait for lane 0, which still has to read this row's.
__global__ void row_sums(const double *values, int rows, double *sums, long long *wide_sums)
{
	const unsigned lane = threadIdx.x % 32, warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
	for (int r = 0; r < rows; ++r) {
		double s = values[(warp * rows + r) * 32 + lane];
		long long w = (long long)s << 32 | lane;
		for (int offset = 16; offset > 0; offset /= 2) {
			s += __shfl_down_sync(0xffffffffu, s, offset);
			w += __shfl_down_sync(0xffffffffu, w, offset);
		}
		if (lane == 0) {
			sums[warp * rows + r] = s;
			wide_sums[warp * rows + r] = w;
		}
	}
}

static unsigned host_steps(unsigned n)
{
	unsigned steps = 0;
	for (; n > 1; ++steps)
		n = (n & 1) ? 3 * n + 1 : n / 2;
	return steps;
}

int main()
{
	const int blocks = 2, threads = 96, n = blocks * threads;
	unsigned *dballots, *dneighbours, *dlimits, *dsums, *dreversed;
	int *danys, *dalls;
	CHECK_CUDA(cudaMalloc(&dballots, n * sizeof(unsigned)));
	CHECK_CUDA(cudaMalloc(&dneighbours, n * sizeof(unsigned)));
	CHECK_CUDA(cudaMalloc(&danys, n * sizeof(int)));
	CHECK_CUDA(cudaMalloc(&dalls, n * sizeof(int)));
	CHECK_CUDA(cudaMalloc(&dlimits, n * sizeof(unsigned)));
	CHECK_CUDA(cudaMalloc(&dsums, n * sizeof(unsigned)));
	CHECK_CUDA(cudaMalloc(&dreversed, n * sizeof(unsigned)));
	unsigned limits[n];
	Rng rng(5);
	for (int i = 0; i < n; ++i)
		limits[i] = rng.range(0, 200);
	CHECK_CUDA(cudaMemcpy(dlimits, limits, sizeof(limits), cudaMemcpyHostToDevice));

	const int rows = 8, row_warps = n / 32, cells = row_warps * rows * 32;
	double *dvalues, *drow_sums;
	long long *dwide_sums;
	CHECK_CUDA(cudaMalloc(&dvalues, cells * sizeof(double)));
	CHECK_CUDA(cudaMalloc(&drow_sums, row_warps * rows * sizeof(double)));
	CHECK_CUDA(cudaMalloc(&dwide_sums, row_warps * rows * sizeof(long long)));
	static double values[cells];
	for (int i = 0; i < cells; ++i)
		values[i] = rng.range(1, 1000);
	CHECK_CUDA(cudaMemcpy(dvalues, values, sizeof(values), cudaMemcpyHostToDevice));

	vote_after_loop<<<blocks, threads>>>(dballots, danys, dalls, dneighbours);
	CHECK_LAUNCH();
	shuffle_after_break<<<blocks, threads>>>(dlimits, dsums, dreversed);
	CHECK_LAUNCH();
	row_sums<<<blocks, threads>>>(dvalues, rows, drow_sums, dwide_sums);
	CHECK_LAUNCH();

	unsigned ballots[n], neighbours[n], sums[n], reversed[n];
	int anys[n], alls[n];
	CHECK_CUDA(cudaMemcpy(ballots, dballots, sizeof(ballots), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(neighbours, dneighbours, sizeof(neighbours), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(anys, danys, sizeof(anys), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(alls, dalls, sizeof(alls), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(sums, dsums, sizeof(sums), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(reversed, dreversed, sizeof(reversed), cudaMemcpyDeviceToHost));

	double device_row_sums[row_warps * rows];
	long long wide_sums[row_warps * rows];
	CHECK_CUDA(cudaMemcpy(device_row_sums, drow_sums, sizeof(device_row_sums), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(wide_sums, dwide_sums, sizeof(wide_sums), cudaMemcpyDeviceToHost));

	bool ok = true;
	for (int row = 0; row < row_warps * rows; ++row) {
		double sum = 0; // whole numbers: exact in any order
		for (int l = 0; l < 32; ++l)
			sum += values[row * 32 + l];
		const long long wide = (long long)sum << 32 | (31 * 32 / 2);
		if (device_row_sums[row] != sum || wide_sums[row] != wide) {
			std::printf("row %d: sum %g (expected %g), 64-bit sum 0x%llx (0x%llx)\n", row,
				    device_row_sums[row], sum, (unsigned long long)wide_sums[row],
				    (unsigned long long)wide);
			ok = false;
		}
	}
	unsigned host_sums[n];
	for (int t = 0; t < n; ++t) {
		unsigned m = t + 1, sum = 0;
		for (unsigned i = 0; m != 1 && i != limits[t]; ++i) {
			m = (m & 1) ? 3 * m + 1 : m / 2;
			sum += m;
		}
		host_sums[t] = sum;
	}
	for (int warp = 0; warp < n / 32; ++warp) {
		unsigned ballot = 0;
		bool any = false, all = true;
		for (int l = 0; l < 32; ++l) {
			unsigned steps = host_steps(warp * 32 + l);
			ballot |= (steps % 2 == 1 ? 1u : 0u) << l;
			any |= steps > 100;
			all &= steps > 2;
		}
		for (int l = 0; l < 32; ++l) {
			int t = warp * 32 + l;
			bool good = ballots[t] == ballot && anys[t] == any && alls[t] == all &&
				    neighbours[t] == host_steps(t ^ 1) && sums[t] == host_sums[t] &&
				    reversed[t] == host_sums[warp * 32 + 31 - l];
			if (!good && ok)
				std::printf("thread %d: ballot 0x%08x (expected 0x%08x), any %d (%d), "
					    "all %d (%d), neighbour %u (%u), reversed %u (%u)\n",
					    t, ballots[t], ballot, anys[t], any, alls[t], all, neighbours[t],
					    host_steps(t ^ 1), reversed[t], host_sums[warp * 32 + 31 - l]);
			ok &= good;
		}
	}
	return report("vote_after_divergence", ok);
}
