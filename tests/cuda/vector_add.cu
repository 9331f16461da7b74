// SPDX-License-Identifier: MIT
// c = a + b over a grid larger than one block, with a tail.
#include "test_util.h"

__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		c[i] = a[i] + b[i];
}

int main(int argc, char **argv)
{
	const int n = argc > 1 ? std::atoi(argv[1]) : 5000; // bench/cuda_bench.py sizes it
	float *a = new float[n], *b = new float[n], *c = new float[n];
	Rng rng(1);
	for (int i = 0; i < n; ++i) {
		a[i] = rng.uniform(-100, 100);
		b[i] = rng.uniform(-100, 100);
	}
	float *da, *db, *dc;
	CHECK_CUDA(cudaMalloc(&da, n * sizeof(float)));
	CHECK_CUDA(cudaMalloc(&db, n * sizeof(float)));
	CHECK_CUDA(cudaMalloc(&dc, n * sizeof(float)));
	CHECK_CUDA(cudaMemcpy(da, a, n * sizeof(float), cudaMemcpyHostToDevice));
	CHECK_CUDA(cudaMemcpy(db, b, n * sizeof(float), cudaMemcpyHostToDevice));
	int threads = 256, blocks = (n + threads - 1) / threads;
	vector_add<<<blocks, threads>>>(da, db, dc, n);
	CHECK_LAUNCH();
	CHECK_CUDA(cudaMemcpy(c, dc, n * sizeof(float), cudaMemcpyDeviceToHost));
	bool ok = true;
	for (int i = 0; i < n; ++i)
		ok &= c[i] == a[i] + b[i];
	CHECK_CUDA(cudaFree(da));
	CHECK_CUDA(cudaFree(db));
	CHECK_CUDA(cudaFree(dc));
	return report("vector_add", ok);
}
