// SPDX-License-Identifier: MIT
// Warp-level reductions with __shfl_down_sync (sum) and __shfl_xor_sync
// (max, every lane gets the result), combined across warps in shared memory.
#include "test_util.h"

__device__ int warp_sum(int v)
{
	for (int offset = warpSize / 2; offset > 0; offset /= 2)
		v += __shfl_down_sync(0xffffffffu, v, offset);
	return v;
}

__device__ float warp_max(float v)
{
	for (int mask = warpSize / 2; mask > 0; mask /= 2)
		v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, mask));
	return v;
}

__global__ void reduce(const int *in, const float *fin, int *sum, float *max_out, int n)
{
	__shared__ int warp_sums[32];
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	int v = i < n ? in[i] : 0;
	float f = i < n ? fin[i] : -1e30f;
	v = warp_sum(v);
	f = warp_max(f);
	int lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;
	if (lane == 0)
		warp_sums[warp] = v;
	__syncthreads();
	if (warp == 0) {
		int w = lane < blockDim.x / warpSize ? warp_sums[lane] : 0;
		w = warp_sum(w);
		if (lane == 0)
			atomicAdd(sum, w);
	}
	// Every lane holds the warp maximum after the butterfly.
	if (f != __shfl_sync(0xffffffffu, f, 0))
		atomicAdd(sum, 1 << 30);
	if (lane == 0)
		max_out[blockIdx.x * (blockDim.x / warpSize) + warp] = f;
}

int main()
{
	const int n = 4000, threads = 128, blocks = (n + threads - 1) / threads;
	const int warps = blocks * threads / 32;
	int *in = new int[n];
	float *fin = new float[n], *maxes = new float[warps];
	Rng rng(4);
	long long ref = 0;
	for (int i = 0; i < n; ++i) {
		in[i] = rng.range(-500, 500);
		fin[i] = rng.uniform(-1000, 1000);
		ref += in[i];
	}
	int *din, *dsum;
	float *dfin, *dmax;
	CHECK_CUDA(cudaMalloc(&din, n * sizeof(int)));
	CHECK_CUDA(cudaMalloc(&dfin, n * sizeof(float)));
	CHECK_CUDA(cudaMalloc(&dsum, sizeof(int)));
	CHECK_CUDA(cudaMalloc(&dmax, warps * sizeof(float)));
	CHECK_CUDA(cudaMemcpy(din, in, n * sizeof(int), cudaMemcpyHostToDevice));
	CHECK_CUDA(cudaMemcpy(dfin, fin, n * sizeof(float), cudaMemcpyHostToDevice));
	CHECK_CUDA(cudaMemset(dsum, 0, sizeof(int)));
	reduce<<<blocks, threads>>>(din, dfin, dsum, dmax, n);
	CHECK_LAUNCH();
	int sum = 0;
	CHECK_CUDA(cudaMemcpy(&sum, dsum, sizeof(int), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(maxes, dmax, warps * sizeof(float), cudaMemcpyDeviceToHost));
	bool ok = sum == ref;
	for (int w = 0; w < warps; ++w) {
		float m = -1e30f;
		for (int i = w * 32; i < w * 32 + 32; ++i)
			m = std::fmax(m, i < n ? fin[i] : -1e30f);
		ok &= maxes[w] == m;
	}
	return report("reduce_shuffle", ok);
}
