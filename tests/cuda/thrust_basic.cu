// SPDX-License-Identifier: MIT
// Thrust (Debian's libthrust-dev 1.17.2, unmodified) on the CUDA system:
// sort, sort_by_key, reduce, transform, inclusive/exclusive scan, each
// against the same algorithm run by the C++ standard library.
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/sort.h>
#include <thrust/reduce.h>
#include <thrust/transform.h>
#include <thrust/scan.h>
#include <thrust/functional.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "test_util.h"

struct saxpy {
	float a;
	__host__ __device__ float operator()(float x, float y) const { return a * x + y; }
};

int main()
{
	const int n = 10000;
	std::vector<int> keys(n);
	unsigned s = 12345;
	for (int &k : keys) {
		s = s * 1103515245u + 12345u;
		k = int(s >> 8) - (1 << 22);
	}
	bool ok = true;

	thrust::device_vector<int> d(keys.begin(), keys.end());
	thrust::sort(d.begin(), d.end());
	std::vector<int> sorted = keys;
	std::sort(sorted.begin(), sorted.end());
	thrust::host_vector<int> h = d;
	ok &= expect(std::equal(sorted.begin(), sorted.end(), h.begin()), "thrust::sort");

	thrust::device_vector<int> d2(keys.begin(), keys.end());
	long long sum = thrust::reduce(d2.begin(), d2.end(), 0LL, thrust::plus<long long>());
	ok &= expect(sum == std::accumulate(keys.begin(), keys.end(), 0LL), "thrust::reduce");

	std::vector<float> x(n), y(n), z(n);
	for (int i = 0; i < n; ++i) {
		x[i] = float(i % 97);
		y[i] = float(i % 13);
		z[i] = 2.5f * x[i] + y[i];
	}
	thrust::device_vector<float> dx(x.begin(), x.end()), dy(y.begin(), y.end()), dz(n);
	thrust::transform(dx.begin(), dx.end(), dy.begin(), dz.begin(), saxpy{2.5f});
	thrust::host_vector<float> hz = dz;
	ok &= expect(std::equal(z.begin(), z.end(), hz.begin()), "thrust::transform");

	std::vector<int> small(n), inc(n), exc(n);
	for (int i = 0; i < n; ++i)
		small[i] = keys[i] & 0xff;
	std::partial_sum(small.begin(), small.end(), inc.begin());
	exc[0] = 7;
	for (int i = 1; i < n; ++i)
		exc[i] = exc[i - 1] + small[i - 1];
	thrust::device_vector<int> ds(small.begin(), small.end()), dout(n);
	thrust::inclusive_scan(ds.begin(), ds.end(), dout.begin());
	thrust::host_vector<int> hinc = dout;
	ok &= expect(std::equal(inc.begin(), inc.end(), hinc.begin()), "thrust::inclusive_scan");
	thrust::exclusive_scan(ds.begin(), ds.end(), dout.begin(), 7);
	thrust::host_vector<int> hexc = dout;
	ok &= expect(std::equal(exc.begin(), exc.end(), hexc.begin()), "thrust::exclusive_scan");
	return report("thrust_basic", ok);
}
