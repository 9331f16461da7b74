// SPDX-License-Identifier: MIT
// FFMA latency and throughput (Jia et al. 2018, section 4.2): one warp runs
// a chain of fused multiply-adds, each using the previous one's result, so
// each waits for the last: cycles per FFMA is the latency. With 8 chains
// side by side the warp always has an independent FFMA to issue, and the
// FP32 unit's rate shows instead: a V100 SM has 64 FP32 lanes in 4
// processing blocks (NVIDIA's Volta whitepaper), 16 per warp scheduler, so a
// 32-lane warp instruction takes the unit 2 cycles.
#include "micro.h"

#include <cmath>

constexpr int kChains = 8;
constexpr int kSteps = 512; // FFMAs per chain

__global__ void dependent(float x, float b, float c, float *out, long long *cycles)
{
	long long t0 = clock64();
	pin(x);
#pragma unroll 64
	for (int i = 0; i < kSteps; ++i)
		x = fmaf(x, b, c);
	pin(x);
	long long t1 = clock64();
	out[threadIdx.x] = x;
	if (threadIdx.x == 0)
		*cycles = t1 - t0;
}

__global__ void independent(float x, float b, float c, float *out, long long *cycles)
{
	float v[kChains];
#pragma unroll
	for (int k = 0; k < kChains; ++k)
		v[k] = x + k;
#pragma unroll
	for (int k = 0; k < kChains; ++k)
		pin(v[k]);
	long long t0 = clock64();
#pragma unroll
	for (int k = 0; k < kChains; ++k)
		pin(v[k]);
#pragma unroll 8
	for (int i = 0; i < kSteps; ++i)
#pragma unroll
		for (int k = 0; k < kChains; ++k)
			v[k] = fmaf(v[k], b, c);
#pragma unroll
	for (int k = 0; k < kChains; ++k)
		pin(v[k]);
	long long t1 = clock64();
	for (int k = 0; k < kChains; ++k)
		out[threadIdx.x * kChains + k] = v[k];
	if (threadIdx.x == 0)
		*cycles = t1 - t0;
}

static float chain(float x, float b, float c)
{
	for (int i = 0; i < kSteps; ++i)
		x = std::fma(x, b, c);
	return x;
}

int main()
{
	const float x = 1.5f, b = 0.999f, c = 0.25f;
	float *dout;
	long long *dcycles;
	MICRO_CHECK(cudaMalloc(&dout, 32 * kChains * sizeof(float)));
	MICRO_CHECK(cudaMalloc(&dcycles, sizeof(long long)));
	float out[32 * kChains];
	long long cycles;
	bool ok = true;

	dependent<<<1, 32>>>(x, b, c, dout, dcycles);
	MICRO_LAUNCHED();
	MICRO_CHECK(cudaMemcpy(out, dout, 32 * sizeof(float), cudaMemcpyDeviceToHost));
	MICRO_CHECK(cudaMemcpy(&cycles, dcycles, sizeof cycles, cudaMemcpyDeviceToHost));
	for (int t = 0; t < 32; ++t)
		ok &= out[t] == chain(x, b, c);
	figure("ffma_dependent", static_cast<double>(cycles) / kSteps, "cycles",
	       "one warp, a chain of %d dependent FFMAs", kSteps);

	independent<<<1, 32>>>(x, b, c, dout, dcycles);
	MICRO_LAUNCHED();
	MICRO_CHECK(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost));
	MICRO_CHECK(cudaMemcpy(&cycles, dcycles, sizeof cycles, cudaMemcpyDeviceToHost));
	for (int t = 0; t < 32; ++t)
		for (int k = 0; k < kChains; ++k)
			ok &= out[t * kChains + k] == chain(x + k, b, c);
	figure("ffma_independent", static_cast<double>(cycles) / (kSteps * kChains),
	       "cycles/insn", "one warp, %d independent chains of %d FFMAs", kChains, kSteps);
	return report("ffma", ok);
}
