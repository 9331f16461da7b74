// SPDX-License-Identifier: MIT
// __noinline__ and __forceinline__ next to libstdc++: <memory> and
// <functional> spell their attributes __attribute__((__noinline__)), which a
// __noinline__ macro would break (as it broke cuda-samples' deviceQuery).
#include <functional>
#include <memory>
#include <vector>

#include "test_util.h"

__device__ __noinline__ int scale(int x, int k)
{
	return x * k + 1;
}

__device__ __forceinline__ int twice(int x)
{
	return 2 * x;
}

__global__ void apply(int *v, int k)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	v[i] = twice(scale(v[i], k));
}

int main()
{
	const int n = 256, k = 7;
	auto host = std::make_shared<std::vector<int>>(n);
	Rng rng(5);
	for (int &x : *host)
		x = rng.range(-1000, 1000);
	std::function<int(int)> reference = [](int x) { return 2 * (x * k + 1); };
	int *d;
	CHECK_CUDA(cudaMalloc(&d, n * sizeof(int)));
	CHECK_CUDA(cudaMemcpy(d, host->data(), n * sizeof(int), cudaMemcpyHostToDevice));
	apply<<<n / 64, 64>>>(d, k);
	CHECK_LAUNCH();
	std::vector<int> out(n);
	CHECK_CUDA(cudaMemcpy(out.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost));
	bool ok = true;
	for (int i = 0; i < n; ++i)
		ok &= out[i] == reference((*host)[i]);
	return report("noinline_libstdcxx", ok);
}
