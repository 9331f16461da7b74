// SPDX-License-Identifier: MIT
// Recursive device functions (the stack lives in local memory): naive
// Fibonacci, Ackermann for small arguments, and a recursive quicksort.
#include <algorithm>

#include "test_util.h"

__host__ __device__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

__host__ __device__ int ackermann(int m, int n)
{
	if (m == 0)
		return n + 1;
	if (n == 0)
		return ackermann(m - 1, 1);
	return ackermann(m - 1, ackermann(m, n - 1));
}

__host__ __device__ void quicksort(int *a, int lo, int hi)
{
	if (lo >= hi)
		return;
	int pivot = a[(lo + hi) / 2], i = lo, j = hi;
	while (i <= j) {
		while (a[i] < pivot)
			++i;
		while (a[j] > pivot)
			--j;
		if (i <= j) {
			int t = a[i];
			a[i] = a[j];
			a[j] = t;
			++i;
			--j;
		}
	}
	quicksort(a, lo, j);
	quicksort(a, i, hi);
}

__global__ void recurse(int *fibs, int *acks, int *arrays, int len)
{
	int t = threadIdx.x;
	fibs[t] = fib(t % 16);
	acks[t] = ackermann(t % 3, t % 4);
	quicksort(arrays + t * len, 0, len - 1);
}

int main()
{
	const int threads = 32, len = 40;
	int fibs[threads], acks[threads], *arrays = new int[threads * len], *sorted = new int[threads * len];
	Rng rng(9);
	for (int i = 0; i < threads * len; ++i)
		arrays[i] = rng.range(-1000, 1000);
	int *dfibs, *dacks, *darrays;
	CHECK_CUDA(cudaMalloc(&dfibs, sizeof(fibs)));
	CHECK_CUDA(cudaMalloc(&dacks, sizeof(acks)));
	CHECK_CUDA(cudaMalloc(&darrays, threads * len * sizeof(int)));
	CHECK_CUDA(cudaMemcpy(darrays, arrays, threads * len * sizeof(int), cudaMemcpyHostToDevice));
	recurse<<<1, threads>>>(dfibs, dacks, darrays, len);
	CHECK_LAUNCH();
	CHECK_CUDA(cudaMemcpy(fibs, dfibs, sizeof(fibs), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(acks, dacks, sizeof(acks), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(sorted, darrays, threads * len * sizeof(int), cudaMemcpyDeviceToHost));
	bool ok = true;
	for (int t = 0; t < threads; ++t) {
		ok &= fibs[t] == fib(t % 16);
		ok &= acks[t] == ackermann(t % 3, t % 4);
		std::sort(arrays + t * len, arrays + (t + 1) * len);
		ok &= std::equal(arrays + t * len, arrays + (t + 1) * len, sorted + t * len);
	}
	return report("recursion", ok);
}
