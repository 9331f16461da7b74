// SPDX-License-Identifier: MIT
// Thrust's algorithms on the CUDA system beyond the basics (Debian's
// libthrust-dev 1.17.2, unmodified), each against the C++ standard library:
// sort_by_key (radix path) and sort with a comparator (merge path),
// reduce_by_key, inclusive_scan_by_key, copy_if, remove_if, unique,
// gather, scatter, set_intersection, lower_bound, counting/transform/zip
// iterators, thrust::cuda::par.on(stream), a custom allocator, and a
// device_vector of a user struct.
#include <thrust/binary_search.h>
#include <thrust/copy.h>
#include <thrust/device_malloc_allocator.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/gather.h>
#include <thrust/host_vector.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/reduce.h>
#include <thrust/remove.h>
#include <thrust/scan.h>
#include <thrust/scatter.h>
#include <thrust/set_operations.h>
#include <thrust/sort.h>
#include <thrust/transform_reduce.h>
#include <thrust/unique.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <vector>

#include "test_util.h"

struct is_odd {
	__host__ __device__ bool operator()(int x) const { return x & 1; }
};

struct square {
	__host__ __device__ long long operator()(int x) const { return (long long)x * x; }
};

struct particle {
	float x, y;
	int id;
};

struct by_x {
	__host__ __device__ bool operator()(const particle &a, const particle &b) const
	{
		return a.x < b.x;
	}
};

// A user allocator: counts what it hands out, allocates with cudaMalloc.
static size_t allocated_bytes = 0;
struct counting_allocator : thrust::device_malloc_allocator<int> {
	using super = thrust::device_malloc_allocator<int>;
	pointer allocate(size_type n)
	{
		allocated_bytes += n * sizeof(int);
		return super::allocate(n);
	}
};

template <typename T>
static std::vector<T> host(const thrust::device_vector<T> &d)
{
	thrust::host_vector<T> h = d;
	return std::vector<T>(h.begin(), h.end());
}

int main()
{
	const int n = 20000;
	Rng rng(99);
	bool ok = true;
	std::vector<int> keys(n), values(n);
	for (int i = 0; i < n; ++i) {
		keys[i] = rng.range(0, 1000);
		values[i] = i;
	}

	// sort_by_key: stable, like std::stable_sort of pairs by key.
	{
		thrust::device_vector<int> k(keys.begin(), keys.end()), v(values.begin(), values.end());
		thrust::sort_by_key(k.begin(), k.end(), v.begin());
		std::vector<int> order(n);
		std::iota(order.begin(), order.end(), 0);
		std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return keys[a] < keys[b]; });
		std::vector<int> rk(n);
		for (int i = 0; i < n; ++i)
			rk[i] = keys[order[i]];
		ok &= expect(host(k) == rk && host(v) == order, "sort_by_key");
	}
	// A comparator: the merge sort path, on a user struct.
	{
		std::vector<particle> ps(n);
		for (int i = 0; i < n; ++i)
			ps[i] = {rng.uniform(-1, 1), rng.uniform(-1, 1), i};
		thrust::device_vector<particle> d(ps.begin(), ps.end());
		thrust::stable_sort(d.begin(), d.end(), by_x());
		std::stable_sort(ps.begin(), ps.end(), [](const particle &a, const particle &b) { return a.x < b.x; });
		std::vector<particle> got = host(d);
		bool same = true;
		for (int i = 0; i < n; ++i)
			same &= got[i].id == ps[i].id;
		ok &= expect(same, "stable_sort(struct, comparator)");
	}
	// reduce_by_key over runs of equal keys.
	{
		std::vector<int> sk = keys;
		std::sort(sk.begin(), sk.end());
		thrust::device_vector<int> k(sk.begin(), sk.end()), v(n, 1), ok_keys(n), counts(n);
		auto end = thrust::reduce_by_key(k.begin(), k.end(), v.begin(), ok_keys.begin(), counts.begin());
		int runs = int(end.first - ok_keys.begin());
		std::map<int, int> ref;
		for (int key : keys)
			++ref[key];
		bool same = runs == int(ref.size());
		std::vector<int> hk = host(ok_keys), hc = host(counts);
		int i = 0;
		for (const auto &run : ref) {
			if (i >= runs)
				break;
			same &= hk[i] == run.first && hc[i] == run.second;
			++i;
		}
		ok &= expect(same, "reduce_by_key");
		// inclusive_scan_by_key: running count within each run.
		thrust::device_vector<int> scanned(n);
		thrust::inclusive_scan_by_key(k.begin(), k.end(), v.begin(), scanned.begin());
		std::vector<int> hs = host(scanned);
		bool scan_ok = true;
		for (int j = 0, run = 0; j < n; ++j) {
			run = (j > 0 && sk[j] == sk[j - 1]) ? run + 1 : 1;
			scan_ok &= hs[j] == run;
		}
		ok &= expect(scan_ok, "inclusive_scan_by_key");
	}
	// copy_if, remove_if, unique.
	{
		thrust::device_vector<int> d(keys.begin(), keys.end()), out(n);
		auto end = thrust::copy_if(d.begin(), d.end(), out.begin(), is_odd());
		std::vector<int> ref;
		std::copy_if(keys.begin(), keys.end(), std::back_inserter(ref), is_odd());
		std::vector<int> got = host(out);
		got.resize(end - out.begin());
		ok &= expect(got == ref, "copy_if");

		auto rend = thrust::remove_if(d.begin(), d.end(), is_odd());
		std::vector<int> rref = keys;
		rref.erase(std::remove_if(rref.begin(), rref.end(), is_odd()), rref.end());
		got = host(d);
		got.resize(rend - d.begin());
		ok &= expect(got == rref, "remove_if");

		std::vector<int> sk = keys;
		std::sort(sk.begin(), sk.end());
		thrust::device_vector<int> s(sk.begin(), sk.end());
		auto uend = thrust::unique(s.begin(), s.end());
		sk.erase(std::unique(sk.begin(), sk.end()), sk.end());
		got = host(s);
		got.resize(uend - s.begin());
		ok &= expect(got == sk, "unique");
	}
	// gather and scatter through a permutation.
	{
		std::vector<int> perm(n);
		std::iota(perm.begin(), perm.end(), 0);
		for (int i = n - 1; i > 0; --i)
			std::swap(perm[i], perm[rng.range(0, i + 1)]);
		thrust::device_vector<int> map(perm.begin(), perm.end()), src(keys.begin(), keys.end()), dst(n);
		thrust::gather(map.begin(), map.end(), src.begin(), dst.begin());
		std::vector<int> ref(n);
		for (int i = 0; i < n; ++i)
			ref[i] = keys[perm[i]];
		ok &= expect(host(dst) == ref, "gather");
		thrust::scatter(src.begin(), src.end(), map.begin(), dst.begin());
		for (int i = 0; i < n; ++i)
			ref[perm[i]] = keys[i];
		ok &= expect(host(dst) == ref, "scatter");
	}
	// set_intersection and lower_bound on sorted data.
	{
		std::vector<int> a(5000), b(5000);
		for (int &x : a)
			x = rng.range(0, 4000);
		for (int &x : b)
			x = rng.range(0, 4000);
		std::sort(a.begin(), a.end());
		std::sort(b.begin(), b.end());
		thrust::device_vector<int> da(a.begin(), a.end()), db(b.begin(), b.end()), out(5000);
		auto end = thrust::set_intersection(da.begin(), da.end(), db.begin(), db.end(), out.begin());
		std::vector<int> ref;
		std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(ref));
		std::vector<int> got = host(out);
		got.resize(end - out.begin());
		ok &= expect(got == ref, "set_intersection");

		thrust::device_vector<int> where(b.size());
		thrust::lower_bound(da.begin(), da.end(), db.begin(), db.end(), where.begin());
		std::vector<int> wref(b.size());
		for (size_t i = 0; i < b.size(); ++i)
			wref[i] = int(std::lower_bound(a.begin(), a.end(), b[i]) - a.begin());
		ok &= expect(host(where) == wref, "lower_bound");
	}
	// Fancy iterators: sum of squares of 0..n-1 from a counting and a
	// transform iterator; a zip iterator's pairs.
	{
		auto first = thrust::make_transform_iterator(thrust::counting_iterator<int>(0), square());
		long long sum = thrust::reduce(first, first + n, 0LL);
		long long ref = 0;
		for (int i = 0; i < n; ++i)
			ref += (long long)i * i;
		ok &= expect(sum == ref, "transform_iterator(counting_iterator)");
		long long tsum = thrust::transform_reduce(thrust::counting_iterator<int>(0),
							  thrust::counting_iterator<int>(n), square(), 0LL,
							  thrust::plus<long long>());
		ok &= expect(tsum == ref, "transform_reduce");
		thrust::device_vector<int> a(keys.begin(), keys.end()), b(values.begin(), values.end());
		auto zip = thrust::make_zip_iterator(thrust::make_tuple(a.begin(), b.begin()));
		thrust::device_vector<int> firsts(n);
		thrust::transform(zip, zip + n, firsts.begin(),
				  [] __device__(thrust::tuple<int, int> t) { return thrust::get<0>(t) - thrust::get<1>(t); });
		std::vector<int> zref(n);
		for (int i = 0; i < n; ++i)
			zref[i] = keys[i] - values[i];
		ok &= expect(host(firsts) == zref, "zip_iterator with a device lambda");
	}
	// A stream: thrust::cuda::par.on(stream).
	{
		cudaStream_t stream;
		CHECK_CUDA(cudaStreamCreate(&stream));
		thrust::device_vector<int> d(keys.begin(), keys.end());
		thrust::sort(thrust::cuda::par.on(stream), d.begin(), d.end());
		int total = thrust::reduce(thrust::cuda::par.on(stream), d.begin(), d.end());
		CHECK_CUDA(cudaStreamSynchronize(stream));
		std::vector<int> ref = keys;
		std::sort(ref.begin(), ref.end());
		ok &= expect(host(d) == ref && total == std::accumulate(keys.begin(), keys.end(), 0),
			     "sort/reduce on par.on(stream)");
		CHECK_CUDA(cudaStreamDestroy(stream));
	}
	// A custom allocator.
	{
		thrust::device_vector<int, counting_allocator> d(keys.begin(), keys.end());
		thrust::sort(d.begin(), d.end());
		thrust::host_vector<int> h = d;
		std::vector<int> ref = keys;
		std::sort(ref.begin(), ref.end());
		ok &= expect(std::equal(ref.begin(), ref.end(), h.begin()) && allocated_bytes >= n * sizeof(int),
			     "device_vector with a custom allocator");
	}
	// 2^20 keys: thrust::sort, then check the order and the multiset.
	{
		const int big = 1 << 20;
		std::vector<unsigned> k(big);
		for (unsigned &x : k)
			x = rng.next();
		thrust::device_vector<unsigned> d(k.begin(), k.end());
		thrust::sort(d.begin(), d.end());
		std::sort(k.begin(), k.end());
		thrust::host_vector<unsigned> h = d;
		ok &= expect(std::equal(k.begin(), k.end(), h.begin()), "thrust::sort of 2^20 keys");
	}
	return report("thrust_algorithms", ok);
}
