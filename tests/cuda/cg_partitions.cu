// SPDX-License-Identifier: MIT
// Cooperative groups beyond the basics (issue 16): labeled_partition and
// binary_partition of coalesced groups and tiles, with cg::reduce over the
// parts; tile shuffles of vector types and structs; tiles of 64, 128 and 256
// threads from this_thread_block(block_tile_memory), their sync() and
// cg::reduce. Each checked against the same computation on the CPU.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <vector>

#include "test_util.h"

namespace cg = cooperative_groups;

constexpr int kBlock = 256, kBlocks = 8, kN = kBlock * kBlocks;

// Per thread: the maximum of the values of the threads of its warp with the
// same label, and the size of that set; and the sum within its parity set.
__global__ void partitions(const int *values, const int *labels, int *max_out, int *size_out,
			   int *parity_sum)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	cg::coalesced_group active = cg::coalesced_threads();
	cg::coalesced_group same = cg::labeled_partition(active, labels[t]);
	max_out[t] = cg::reduce(same, values[t], cg::greater<int>());
	size_out[t] = same.size();
	auto tile = cg::tiled_partition<32>(cg::this_thread_block());
	cg::coalesced_group parity = cg::binary_partition(tile, values[t] & 1);
	parity_sum[t] = cg::reduce(parity, values[t], cg::plus<int>());
}

struct Triple {
	int a;
	float b;
	short c;
};

// Each thread takes the uint4 and the struct of the lane `xor 5` and of the
// lane 3 below it.
__global__ void shuffles(uint4 *vec_out, Triple *tri_out)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	auto tile = cg::tiled_partition<32>(cg::this_thread_block());
	uint4 v = make_uint4(t, t * 2, t * 3, t * 4);
	vec_out[t] = tile.shfl_xor(v, 5);
	Triple tr{t, t * 0.5f, short(t % 100)};
	tri_out[t] = tile.shfl_up(tr, 3);
}

template <unsigned N> __global__ void big_tiles(const int *values, int *sums, int *after_sync)
{
	__shared__ cg::block_tile_memory<kBlock> scratch;
	__shared__ int stage[kBlock];
	cg::thread_block block = cg::this_thread_block(scratch);
	auto tile = cg::tiled_partition<N>(block);
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	sums[t] = cg::reduce(tile, values[t], cg::plus<int>());
	// sync(): every write of the tile is visible after it.
	stage[threadIdx.x] = values[t];
	tile.sync();
	const unsigned first = tile.meta_group_rank() * N;
	after_sync[t] = stage[first + (tile.thread_rank() + 1) % N] * int(tile.meta_group_size());
}

template <unsigned N> static bool check_big(const std::vector<int> &values)
{
	int *dv, *ds, *da;
	CHECK_CUDA(cudaMalloc(&dv, kN * sizeof(int)));
	CHECK_CUDA(cudaMalloc(&ds, kN * sizeof(int)));
	CHECK_CUDA(cudaMalloc(&da, kN * sizeof(int)));
	CHECK_CUDA(cudaMemcpy(dv, values.data(), kN * sizeof(int), cudaMemcpyHostToDevice));
	big_tiles<N><<<kBlocks, kBlock>>>(dv, ds, da);
	CHECK_LAUNCH();
	std::vector<int> sums(kN), after(kN);
	CHECK_CUDA(cudaMemcpy(sums.data(), ds, kN * sizeof(int), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(after.data(), da, kN * sizeof(int), cudaMemcpyDeviceToHost));
	bool ok = true;
	for (int t = 0; t < kN && ok; ++t) {
		const int first = t / N * N;
		int s = 0;
		for (int i = 0; i < int(N); ++i)
			s += values[first + i];
		const int next = values[first + (t - first + 1) % N] * (kBlock / N);
		if (sums[t] != s || after[t] != next) {
			std::printf("tile %u, thread %d: sum %d (want %d), after sync %d (want %d)\n", N, t,
				    sums[t], s, after[t], next);
			ok = false;
		}
	}
	cudaFree(dv);
	cudaFree(ds);
	cudaFree(da);
	return ok;
}

int main()
{
	Rng rng(16);
	std::vector<int> values(kN), labels(kN);
	for (int i = 0; i < kN; ++i) {
		values[i] = rng.range(-1000, 1000);
		labels[i] = rng.range(0, 5);
	}
	int *dv, *dl, *dmax, *dsize, *dpar;
	CHECK_CUDA(cudaMalloc(&dv, kN * sizeof(int)));
	CHECK_CUDA(cudaMalloc(&dl, kN * sizeof(int)));
	CHECK_CUDA(cudaMalloc(&dmax, kN * sizeof(int)));
	CHECK_CUDA(cudaMalloc(&dsize, kN * sizeof(int)));
	CHECK_CUDA(cudaMalloc(&dpar, kN * sizeof(int)));
	CHECK_CUDA(cudaMemcpy(dv, values.data(), kN * sizeof(int), cudaMemcpyHostToDevice));
	CHECK_CUDA(cudaMemcpy(dl, labels.data(), kN * sizeof(int), cudaMemcpyHostToDevice));
	partitions<<<kBlocks, kBlock>>>(dv, dl, dmax, dsize, dpar);
	uint4 *dvec;
	Triple *dtri;
	CHECK_CUDA(cudaMalloc(&dvec, kN * sizeof(uint4)));
	CHECK_CUDA(cudaMalloc(&dtri, kN * sizeof(Triple)));
	shuffles<<<kBlocks, kBlock>>>(dvec, dtri);
	CHECK_LAUNCH();
	std::vector<int> gmax(kN), gsize(kN), gpar(kN);
	std::vector<uint4> gvec(kN);
	std::vector<Triple> gtri(kN);
	CHECK_CUDA(cudaMemcpy(gmax.data(), dmax, kN * sizeof(int), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(gsize.data(), dsize, kN * sizeof(int), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(gpar.data(), dpar, kN * sizeof(int), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(gvec.data(), dvec, kN * sizeof(uint4), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(gtri.data(), dtri, kN * sizeof(Triple), cudaMemcpyDeviceToHost));
	bool ok = true;
	for (int t = 0; t < kN && ok; ++t) {
		const int warp = t / 32 * 32;
		int m = INT32_MIN, n = 0, par = 0;
		for (int i = warp; i < warp + 32; ++i) {
			if (labels[i] == labels[t]) {
				m = values[i] > m ? values[i] : m;
				++n;
			}
			if ((values[i] & 1) == (values[t] & 1))
				par += values[i];
		}
		if (gmax[t] != m || gsize[t] != n || gpar[t] != par) {
			std::printf("thread %d: max %d size %d parity sum %d, want %d %d %d\n", t, gmax[t],
				    gsize[t], gpar[t], m, n, par);
			ok = false;
		}
		const unsigned x = unsigned(warp + ((t - warp) ^ 5));
		const uint4 &v = gvec[t];
		if (v.x != x || v.y != x * 2 || v.z != x * 3 || v.w != x * 4) {
			std::printf("thread %d: uint4 shfl_xor got %u, want %u\n", t, v.x, x);
			ok = false;
		}
		const int src = t - warp >= 3 ? t - 3 : t; // shfl_up keeps its own below delta
		const Triple &tr = gtri[t];
		if (tr.a != src || tr.b != src * 0.5f || tr.c != src % 100) {
			std::printf("thread %d: struct shfl_up got %d, want %d\n", t, tr.a, src);
			ok = false;
		}
	}
	ok = ok && check_big<64>(values) && check_big<128>(values) && check_big<256>(values);
	return report("cg_partitions", ok);
}
