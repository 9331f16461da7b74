// SPDX-License-Identifier: MIT
// CUB's block primitives (Debian's libcub-dev 1.17.2, unmodified):
// BlockReduce, BlockScan (inclusive and exclusive), BlockRadixSort, each
// against a CPU reference.
#include <cub/cub.cuh>

#include <algorithm>
#include <numeric>
#include <vector>

#include "test_util.h"
#include "vector_copies.h"

constexpr int kThreads = 128;
constexpr int kItems = 4;
constexpr int kTile = kThreads * kItems;

__global__ void block_reduce(const int *in, int *out)
{
	using Reduce = cub::BlockReduce<int, kThreads>;
	__shared__ typename Reduce::TempStorage temp;
	int v = in[blockIdx.x * kThreads + threadIdx.x];
	int sum = Reduce(temp).Sum(v);
	if (threadIdx.x == 0)
		out[blockIdx.x] = sum;
}

__global__ void block_max(const int *in, int *out)
{
	using Reduce = cub::BlockReduce<int, kThreads, cub::BLOCK_REDUCE_RAKING>;
	__shared__ typename Reduce::TempStorage temp;
	int v = in[blockIdx.x * kThreads + threadIdx.x];
	int m = Reduce(temp).Reduce(v, cub::Max());
	if (threadIdx.x == 0)
		out[blockIdx.x] = m;
}

__global__ void block_scan(const int *in, int *inclusive, int *exclusive)
{
	using Scan = cub::BlockScan<int, kThreads>;
	__shared__ typename Scan::TempStorage temp;
	int items[kItems];
	int base = blockIdx.x * kTile + threadIdx.x * kItems;
	for (int i = 0; i < kItems; ++i)
		items[i] = in[base + i];
	int out[kItems];
	Scan(temp).InclusiveSum(items, out);
	for (int i = 0; i < kItems; ++i)
		inclusive[base + i] = out[i];
	__syncthreads();
	Scan(temp).ExclusiveSum(items, out);
	for (int i = 0; i < kItems; ++i)
		exclusive[base + i] = out[i];
}

template <typename Key>
__global__ void block_sort(Key *keys)
{
	using Sort = cub::BlockRadixSort<Key, kThreads, kItems>;
	using Load = cub::BlockLoad<Key, kThreads, kItems, cub::BLOCK_LOAD_TRANSPOSE>;
	using Store = cub::BlockStore<Key, kThreads, kItems, cub::BLOCK_STORE_TRANSPOSE>;
	__shared__ union {
		typename Sort::TempStorage sort;
		typename Load::TempStorage load;
		typename Store::TempStorage store;
	} temp;
	Key items[kItems];
	Key *tile = keys + blockIdx.x * kTile;
	Load(temp.load).Load(tile, items);
	__syncthreads();
	Sort(temp.sort).Sort(items);
	__syncthreads();
	Store(temp.store).Store(tile, items);
}

__global__ void warp_reduce_scan(const int *in, int *sums, int *scans)
{
	using WarpReduce = cub::WarpReduce<int>;
	using WarpScan = cub::WarpScan<int>;
	__shared__ typename WarpReduce::TempStorage reduce[kThreads / 32];
	__shared__ typename WarpScan::TempStorage scan[kThreads / 32];
	int warp = threadIdx.x / 32;
	int v = in[blockIdx.x * kThreads + threadIdx.x];
	int sum = WarpReduce(reduce[warp]).Sum(v);
	if (threadIdx.x % 32 == 0)
		sums[blockIdx.x * (kThreads / 32) + warp] = sum;
	int prefix;
	WarpScan(scan[warp]).InclusiveSum(v, prefix);
	scans[blockIdx.x * kThreads + threadIdx.x] = prefix;
}


int main()
{
	const int blocks = 8;
	Rng rng(2024);
	bool ok = true;

	std::vector<int> in(blocks * kTile);
	for (int &v : in)
		v = rng.range(-1000, 1000);
	int *d_in = to_device(in);
	int *d_out = nullptr, *d_inc = nullptr, *d_exc = nullptr;
	CHECK_CUDA(cudaMalloc(&d_out, blocks * sizeof(int)));
	CHECK_CUDA(cudaMalloc(&d_inc, in.size() * sizeof(int)));
	CHECK_CUDA(cudaMalloc(&d_exc, in.size() * sizeof(int)));

	block_reduce<<<blocks, kThreads>>>(d_in, d_out);
	CHECK_LAUNCH();
	std::vector<int> sums = to_host(d_out, blocks);
	for (int b = 0; b < blocks; ++b)
		ok &= expect(sums[b] == std::accumulate(in.begin() + b * kThreads,
							in.begin() + (b + 1) * kThreads, 0),
			     "BlockReduce::Sum");

	block_max<<<blocks, kThreads>>>(d_in, d_out);
	CHECK_LAUNCH();
	std::vector<int> maxima = to_host(d_out, blocks);
	for (int b = 0; b < blocks; ++b)
		ok &= expect(maxima[b] == *std::max_element(in.begin() + b * kThreads,
							    in.begin() + (b + 1) * kThreads),
			     "BlockReduce::Reduce(Max) raking");

	block_scan<<<blocks, kThreads>>>(d_in, d_inc, d_exc);
	CHECK_LAUNCH();
	std::vector<int> inc = to_host(d_inc, in.size()), exc = to_host(d_exc, in.size());
	bool scan_ok = true;
	for (int b = 0; b < blocks; ++b) {
		int running = 0;
		for (int i = b * kTile; i < (b + 1) * kTile; ++i) {
			scan_ok &= exc[i] == running;
			running += in[i];
			scan_ok &= inc[i] == running;
		}
	}
	ok &= expect(scan_ok, "BlockScan::InclusiveSum/ExclusiveSum");

	std::vector<unsigned> ukeys(blocks * kTile);
	for (unsigned &k : ukeys)
		k = rng.next();
	unsigned *d_ukeys = to_device(ukeys);
	block_sort<<<blocks, kThreads>>>(d_ukeys);
	CHECK_LAUNCH();
	std::vector<unsigned> usorted = to_host(d_ukeys, ukeys.size());
	for (int b = 0; b < blocks; ++b)
		std::sort(ukeys.begin() + b * kTile, ukeys.begin() + (b + 1) * kTile);
	ok &= expect(usorted == ukeys, "BlockRadixSort<unsigned>");

	std::vector<float> fkeys(blocks * kTile);
	for (float &k : fkeys)
		k = rng.uniform(-100.0f, 100.0f);
	float *d_fkeys = to_device(fkeys);
	block_sort<<<blocks, kThreads>>>(d_fkeys);
	CHECK_LAUNCH();
	std::vector<float> fsorted = to_host(d_fkeys, fkeys.size());
	for (int b = 0; b < blocks; ++b)
		std::sort(fkeys.begin() + b * kTile, fkeys.begin() + (b + 1) * kTile);
	ok &= expect(fsorted == fkeys, "BlockRadixSort<float>");

	int *d_wsums = nullptr, *d_wscans = nullptr;
	CHECK_CUDA(cudaMalloc(&d_wsums, blocks * (kThreads / 32) * sizeof(int)));
	CHECK_CUDA(cudaMalloc(&d_wscans, blocks * kThreads * sizeof(int)));
	warp_reduce_scan<<<blocks, kThreads>>>(d_in, d_wsums, d_wscans);
	CHECK_LAUNCH();
	std::vector<int> wsums = to_host(d_wsums, blocks * (kThreads / 32));
	std::vector<int> wscans = to_host(d_wscans, blocks * kThreads);
	bool warp_ok = true;
	for (int w = 0; w < blocks * (kThreads / 32); ++w) {
		int running = 0;
		for (int i = w * 32; i < (w + 1) * 32; ++i) {
			running += in[i];
			warp_ok &= wscans[i] == running;
		}
		warp_ok &= wsums[w] == running;
	}
	ok &= expect(warp_ok, "WarpReduce::Sum/WarpScan::InclusiveSum");
	return report("cub_block", ok);
}
