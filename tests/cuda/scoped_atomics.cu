// SPDX-License-Identifier: MIT
// The scoped atomics (issue 16): every atomic*_system and atomic*_block form
// systemWideAtomics uses, from 64 blocks of 256 threads on device memory and
// _block forms on shared memory, checked against the same operations done
// sequentially on the CPU (order-independent results only).
#include "test_util.h"

constexpr int kBlocks = 64, kThreads = 256, kN = kBlocks * kThreads;

__global__ void system_atomics(int *a, unsigned *u)
{
	int tid = blockIdx.x * blockDim.x + threadIdx.x;
	atomicAdd_system(&a[0], 10);
	atomicMax_system(&a[1], tid);
	atomicMin_system(&a[2], tid);
	atomicInc_system(&u[0], 17u);
	atomicDec_system(&u[1], 137u);
	atomicAnd_system(&a[3], 2 * tid + 7);
	atomicOr_system(&a[4], 1 << (tid % 31));
	atomicXor_system(&a[5], tid);
	atomicSub_system(&a[6], 3);
	atomicExch_system(&a[7], 42);
	atomicCAS_system(&a[8], 0, 1 + tid % 2); // the first to come wins
	atomicAdd_system((unsigned long long *)&u[2], 1ull << 33);
	atomicAdd_system((float *)&a[9], 0.5f);
}

// Per block, on shared memory: the sum and maximum of its thread indices.
__global__ void block_atomics(int *sums, int *maxima)
{
	__shared__ int sum, max;
	if (threadIdx.x == 0)
		sum = max = 0;
	__syncthreads();
	atomicAdd_block(&sum, int(threadIdx.x) + int(blockIdx.x));
	atomicMax_block(&max, int(threadIdx.x) * int(blockIdx.x + 1));
	__syncthreads();
	if (threadIdx.x == 0) {
		sums[blockIdx.x] = sum;
		maxima[blockIdx.x] = max;
	}
}

int main()
{
	int *a, *sums, *maxima;
	unsigned *u;
	CHECK_CUDA(cudaMalloc(&a, 10 * sizeof(int)));
	CHECK_CUDA(cudaMalloc(&u, 4 * sizeof(unsigned)));
	CHECK_CUDA(cudaMalloc(&sums, kBlocks * sizeof(int)));
	CHECK_CUDA(cudaMalloc(&maxima, kBlocks * sizeof(int)));
	float zero = 0.f;
	int init[10] = {0, -1, 1 << 30, 0xff, 0, 0xff, 0, 0, 0, 0};
	std::memcpy(&init[9], &zero, 4);
	unsigned uinit[4] = {0, 0, 0, 0};
	CHECK_CUDA(cudaMemcpy(a, init, sizeof(init), cudaMemcpyHostToDevice));
	CHECK_CUDA(cudaMemcpy(u, uinit, sizeof(uinit), cudaMemcpyHostToDevice));
	system_atomics<<<kBlocks, kThreads>>>(a, u);
	block_atomics<<<kBlocks, kThreads>>>(sums, maxima);
	CHECK_LAUNCH();
	int got[10];
	unsigned ugot[4];
	int gsums[kBlocks], gmax[kBlocks];
	CHECK_CUDA(cudaMemcpy(got, a, sizeof(got), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(ugot, u, sizeof(ugot), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(gsums, sums, sizeof(gsums), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(gmax, maxima, sizeof(gmax), cudaMemcpyDeviceToHost));

	// The CPU, one thread after another.
	int want[10];
	std::memcpy(want, init, sizeof(want));
	unsigned inc = 0, dec = 0;
	unsigned long long wide = 0;
	float half_sum = 0.f;
	for (int tid = 0; tid < kN; ++tid) {
		want[0] += 10;
		want[1] = tid > want[1] ? tid : want[1];
		want[2] = tid < want[2] ? tid : want[2];
		inc = inc >= 17u ? 0 : inc + 1;
		dec = (dec == 0 || dec > 137u) ? 137u : dec - 1;
		want[3] &= 2 * tid + 7;
		want[4] |= 1 << (tid % 31);
		want[5] ^= tid;
		want[6] -= 3;
		half_sum += 0.5f;
		wide += 1ull << 33;
	}
	bool ok = true;
	for (int i = 0; i < 7; ++i)
		if (got[i] != want[i]) {
			std::printf("word %d: %d, want %d\n", i, got[i], want[i]);
			ok = false;
		}
	ok = ok && got[7] == 42 && (got[8] == 1 || got[8] == 2);
	ok = ok && ugot[0] == inc && ugot[1] == dec;
	unsigned long long gwide;
	std::memcpy(&gwide, &ugot[2], 8);
	float gfloat;
	std::memcpy(&gfloat, &got[9], 4);
	ok = ok && gwide == wide && gfloat == half_sum;
	for (int b = 0; b < kBlocks; ++b) {
		int s = 0;
		for (int t = 0; t < kThreads; ++t)
			s += t + b;
		ok = ok && gsums[b] == s && gmax[b] == (kThreads - 1) * (b + 1);
	}
	return report("scoped_atomics", ok);
}
