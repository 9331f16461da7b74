// SPDX-License-Identifier: MIT
// Branch divergence and reconvergence inside one warp.
//
// Teaches: the 32 threads of a warp share one instruction stream. When they
// disagree on a branch, the warp runs each side in turn with only that
// side's threads active (__activemask() shows which), and the threads come
// back together after the branch. Divergence costs time: the sides run one
// after the other, which clock64() makes visible.
#include <cuda_runtime.h>

#include <cstdio>

#include "check.h"

constexpr int WARP = 32;
constexpr int WORK = 200; // iterations of arithmetic on each path

__device__ unsigned work(unsigned x, unsigned salt)
{
	for (int i = 0; i < WORK; ++i)
		x = x * 1664525u + salt;
	return x;
}

// One warp. Each lane takes one of four paths (lane % 4), records which
// lanes were active there, and which lanes are active after the branch.
__global__ void four_paths(unsigned *inside, unsigned *after, unsigned *result, long long *cycles)
{
	int lane = threadIdx.x;
	long long start = clock64();
	unsigned x = lane;
	switch (lane % 4) {
	case 0: inside[lane] = __activemask(); x = work(x, 1); break;
	case 1: inside[lane] = __activemask(); x = work(x, 3); break;
	case 2: inside[lane] = __activemask(); x = work(x, 5); break;
	default: inside[lane] = __activemask(); x = work(x, 7); break;
	}
	after[lane] = __activemask(); // reconverged: the whole warp again
	long long end = clock64();
	result[lane] = x;
	if (lane == 0)
		*cycles = end - start;
}

// The same work with no divergence: the whole warp takes one path.
__global__ void one_path(unsigned *result, long long *cycles)
{
	int lane = threadIdx.x;
	long long start = clock64();
	unsigned x = work(lane, 1);
	long long end = clock64();
	result[lane] = x;
	if (lane == 0)
		*cycles = end - start;
}

// Lane l runs the loop l + 1 times: at iteration i, the lanes l >= i are
// still in it. Every lane records how many lanes are active at each of its
// iterations (seen[lane][i]).
__global__ void uneven_loop(int *seen)
{
	int lane = threadIdx.x;
	for (int i = 0; i <= lane; ++i)
		seen[lane * WARP + i] = __popc(__activemask());
}

static unsigned cpu_work(unsigned x, unsigned salt)
{
	for (int i = 0; i < WORK; ++i)
		x = x * 1664525u + salt;
	return x;
}

int main()
{
	unsigned *dinside, *dafter, *dresult;
	long long *dcycles;
	int *dactive;
	CUDA_CHECK(cudaMalloc(&dinside, WARP * sizeof(unsigned)));
	CUDA_CHECK(cudaMalloc(&dafter, WARP * sizeof(unsigned)));
	CUDA_CHECK(cudaMalloc(&dresult, WARP * sizeof(unsigned)));
	CUDA_CHECK(cudaMalloc(&dcycles, 2 * sizeof(long long)));
	CUDA_CHECK(cudaMalloc(&dactive, WARP * WARP * sizeof(int)));

	four_paths<<<1, WARP>>>(dinside, dafter, dresult, dcycles);
	CUDA_CHECK(cudaGetLastError());
	unsigned inside[WARP], after[WARP], result[WARP];
	long long cycles[2];
	CUDA_CHECK(cudaMemcpy(inside, dinside, sizeof(inside), cudaMemcpyDeviceToHost));
	CUDA_CHECK(cudaMemcpy(after, dafter, sizeof(after), cudaMemcpyDeviceToHost));
	CUDA_CHECK(cudaMemcpy(result, dresult, sizeof(result), cudaMemcpyDeviceToHost));
	CUDA_CHECK(cudaMemcpy(&cycles[0], dcycles, sizeof(long long), cudaMemcpyDeviceToHost));

	int wrong = 0;
	std::printf("divergence: one warp of %d threads, a 4-way switch on lane %% 4\n", WARP);
	for (int path = 0; path < 4; ++path) {
		unsigned expected = 0;
		for (int l = path; l < WARP; l += 4)
			expected |= 1u << l;
		std::printf("  path %d ran with active mask 0x%08x (expected 0x%08x)\n", path, inside[path],
			    expected);
		for (int l = path; l < WARP; l += 4)
			wrong += inside[l] != expected;
	}
	std::printf("  after the switch:   active mask 0x%08x (expected 0xffffffff)\n", after[0]);
	for (int l = 0; l < WARP; ++l) {
		wrong += after[l] != 0xffffffffu;
		wrong += result[l] != cpu_work(l, 2 * (l % 4) + 1);
	}

	one_path<<<1, WARP>>>(dresult, dcycles + 1);
	CUDA_CHECK(cudaGetLastError());
	CUDA_CHECK(cudaMemcpy(result, dresult, sizeof(result), cudaMemcpyDeviceToHost));
	CUDA_CHECK(cudaMemcpy(&cycles[1], dcycles + 1, sizeof(long long), cudaMemcpyDeviceToHost));
	for (int l = 0; l < WARP; ++l)
		wrong += result[l] != cpu_work(l, 1);
	std::printf("  cycles: %lld with 4 divergent paths, %lld with one path (%.1fx)\n", cycles[0],
		    cycles[1], cycles[1] ? static_cast<double>(cycles[0]) / cycles[1] : 0.0);

	uneven_loop<<<1, WARP>>>(dactive);
	CUDA_CHECK(cudaGetLastError());
	int seen[WARP][WARP];
	CUDA_CHECK(cudaMemcpy(seen, dactive, sizeof(seen), cudaMemcpyDeviceToHost));
	std::printf("  a loop lane l runs l+1 times; active lanes at each iteration, seen by lane 31:");
	for (int i = 0; i < WARP; ++i)
		std::printf("%s%d", i % 16 ? " " : "\n    ", seen[WARP - 1][i]);
	for (int lane = 0; lane < WARP; ++lane)
		for (int i = 0; i <= lane; ++i)
			wrong += seen[lane][i] != WARP - i;
	std::printf("\n  %d values differ from the CPU's expectation\n", wrong);

	CUDA_CHECK(cudaFree(dinside));
	CUDA_CHECK(cudaFree(dafter));
	CUDA_CHECK(cudaFree(dresult));
	CUDA_CHECK(cudaFree(dcycles));
	CUDA_CHECK(cudaFree(dactive));
	std::printf("divergence: %s\n", wrong == 0 ? "PASS" : "FAIL");
	return wrong == 0 ? 0 : 1;
}
