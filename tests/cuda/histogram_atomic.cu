// SPDX-License-Identifier: MIT
// 64-bin histogram: per-block bins in shared memory with shared atomics,
// merged into global bins with global atomics.
#include "test_util.h"

constexpr int kBins = 64;

__global__ void histogram(const unsigned char *data, int n, unsigned *bins)
{
	__shared__ unsigned local[kBins];
	for (int b = threadIdx.x; b < kBins; b += blockDim.x)
		local[b] = 0;
	__syncthreads();
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
		atomicAdd(&local[data[i] % kBins], 1u);
	__syncthreads();
	for (int b = threadIdx.x; b < kBins; b += blockDim.x)
		atomicAdd(&bins[b], local[b]);
}

int main(int argc, char **argv)
{
	const int n = argc > 1 ? std::atoi(argv[1]) : 50000; // bench/cuda_bench.py sizes it
	unsigned char *data = new unsigned char[n];
	unsigned ref[kBins] = {}, bins[kBins];
	Rng rng(6);
	for (int i = 0; i < n; ++i) {
		data[i] = static_cast<unsigned char>(rng.next() & 0xff);
		ref[data[i] % kBins]++;
	}
	unsigned char *ddata;
	unsigned *dbins;
	CHECK_CUDA(cudaMalloc(&ddata, n));
	CHECK_CUDA(cudaMalloc(&dbins, sizeof(bins)));
	CHECK_CUDA(cudaMemcpy(ddata, data, n, cudaMemcpyHostToDevice));
	CHECK_CUDA(cudaMemset(dbins, 0, sizeof(bins)));
	histogram<<<8, 128>>>(ddata, n, dbins);
	CHECK_LAUNCH();
	CHECK_CUDA(cudaMemcpy(bins, dbins, sizeof(bins), cudaMemcpyDeviceToHost));
	bool ok = true;
	for (int b = 0; b < kBins; ++b)
		ok &= bins[b] == ref[b];
	return report("histogram_atomic", ok);
}
