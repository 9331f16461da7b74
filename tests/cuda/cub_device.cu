// SPDX-License-Identifier: MIT
// CUB's device-wide primitives (Debian's libcub-dev 1.17.2, unmodified):
// DeviceReduce::Sum/Max, DeviceScan::InclusiveSum/ExclusiveSum,
// DeviceRadixSort::SortKeys/SortPairs, each with CUB's two-call temporary
// storage protocol, against a CPU reference.
#include <cub/cub.cuh>

#include <algorithm>
#include <numeric>
#include <vector>

#include "test_util.h"
#include "vector_copies.h"


// CUB's protocol: a first call sizes the temporary storage, a second runs.
template <typename Call>
static void run_cub(Call call)
{
	size_t bytes = 0;
	CHECK_CUDA(call(nullptr, bytes));
	void *temp = nullptr;
	CHECK_CUDA(cudaMalloc(&temp, bytes ? bytes : 1));
	CHECK_CUDA(call(temp, bytes));
	CHECK_CUDA(cudaDeviceSynchronize());
	CHECK_CUDA(cudaFree(temp));
}

int main()
{
	const int n = 100000;
	Rng rng(7);
	bool ok = true;
	std::vector<int> in(n);
	for (int &v : in)
		v = rng.range(-500, 500);
	int *d_in = to_device(in);
	int *d_out = nullptr;
	CHECK_CUDA(cudaMalloc(&d_out, n * sizeof(int)));

	run_cub([&](void *t, size_t &b) { return cub::DeviceReduce::Sum(t, b, d_in, d_out, n); });
	ok &= expect(to_host(d_out, 1)[0] == std::accumulate(in.begin(), in.end(), 0),
		     "DeviceReduce::Sum");
	run_cub([&](void *t, size_t &b) { return cub::DeviceReduce::Max(t, b, d_in, d_out, n); });
	ok &= expect(to_host(d_out, 1)[0] == *std::max_element(in.begin(), in.end()),
		     "DeviceReduce::Max");

	std::vector<int> ref(n);
	std::partial_sum(in.begin(), in.end(), ref.begin());
	run_cub([&](void *t, size_t &b) { return cub::DeviceScan::InclusiveSum(t, b, d_in, d_out, n); });
	ok &= expect(to_host(d_out, n) == ref, "DeviceScan::InclusiveSum");
	for (int i = 0, running = 0; i < n; running += in[i], ++i)
		ref[i] = running;
	run_cub([&](void *t, size_t &b) { return cub::DeviceScan::ExclusiveSum(t, b, d_in, d_out, n); });
	ok &= expect(to_host(d_out, n) == ref, "DeviceScan::ExclusiveSum");

	std::vector<unsigned> keys(n);
	std::vector<int> values(n);
	for (int i = 0; i < n; ++i) {
		keys[i] = rng.next();
		values[i] = i;
	}
	unsigned *d_keys = to_device(keys), *d_keys_out = nullptr;
	int *d_values = to_device(values), *d_values_out = nullptr;
	CHECK_CUDA(cudaMalloc(&d_keys_out, n * sizeof(unsigned)));
	CHECK_CUDA(cudaMalloc(&d_values_out, n * sizeof(int)));
	run_cub([&](void *t, size_t &b) {
		return cub::DeviceRadixSort::SortKeys(t, b, d_keys, d_keys_out, n);
	});
	std::vector<unsigned> sorted = keys;
	std::sort(sorted.begin(), sorted.end());
	ok &= expect(to_host(d_keys_out, n) == sorted, "DeviceRadixSort::SortKeys");

	run_cub([&](void *t, size_t &b) {
		return cub::DeviceRadixSort::SortPairs(t, b, d_keys, d_keys_out, d_values, d_values_out, n);
	});
	std::vector<int> order(n);
	std::iota(order.begin(), order.end(), 0);
	std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return keys[a] < keys[b]; });
	ok &= expect(to_host(d_keys_out, n) == sorted && to_host(d_values_out, n) == order,
		     "DeviceRadixSort::SortPairs");
	return report("cub_device", ok);
}
