// SPDX-License-Identifier: MIT
// Vector addition, the "hello world" of CUDA: one thread per element.
//
// Teaches: __global__ kernels, the grid/block/thread index arithmetic,
// cudaMalloc/cudaMemcpy, a launch with <<<blocks, threads>>>, and the guard
// for the last, partly filled block.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#include "check.h"

__global__ void vector_add(const float *a, const float *b, float *c, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x; // this thread's element
	if (i < n) // the last block has threads past the end
		c[i] = a[i] + b[i];
}

int main()
{
	const int n = 10000; // not a multiple of the block size, on purpose
	std::vector<float> a(n), b(n), c(n);
	for (int i = 0; i < n; ++i) {
		a[i] = 0.5f * i;
		b[i] = 1000.0f - i;
	}

	float *da, *db, *dc;
	size_t bytes = n * sizeof(float);
	CUDA_CHECK(cudaMalloc(&da, bytes));
	CUDA_CHECK(cudaMalloc(&db, bytes));
	CUDA_CHECK(cudaMalloc(&dc, bytes));
	CUDA_CHECK(cudaMemcpy(da, a.data(), bytes, cudaMemcpyHostToDevice));
	CUDA_CHECK(cudaMemcpy(db, b.data(), bytes, cudaMemcpyHostToDevice));

	int threads = 256;
	int blocks = (n + threads - 1) / threads;
	vector_add<<<blocks, threads>>>(da, db, dc, n);
	CUDA_CHECK(cudaGetLastError());
	CUDA_CHECK(cudaDeviceSynchronize());
	CUDA_CHECK(cudaMemcpy(c.data(), dc, bytes, cudaMemcpyDeviceToHost));

	// The CPU computes the same sums; float addition of the same two
	// operands gives the same bits on both sides.
	int wrong = 0;
	for (int i = 0; i < n; ++i)
		wrong += c[i] != a[i] + b[i];
	std::printf("vector_add: %d elements in %d blocks of %d threads\n", n, blocks, threads);
	std::printf("  c[0] = %g, c[%d] = %g, c[%d] = %g\n", c[0], n / 2, c[n / 2], n - 1, c[n - 1]);
	std::printf("  %d of %d elements differ from the CPU\n", wrong, n);

	CUDA_CHECK(cudaFree(da));
	CUDA_CHECK(cudaFree(db));
	CUDA_CHECK(cudaFree(dc));
	std::printf("vector_add: %s\n", wrong == 0 ? "PASS" : "FAIL");
	return wrong == 0 ? 0 : 1;
}
