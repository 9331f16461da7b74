// SPDX-License-Identifier: MIT
// Cooperative groups within a block (issue 18): the block's sync, static
// tiles of 32, 16 and 4 threads (ranks, meta-group ranks, shfl_down/xor
// reductions, ballot and match_any in tile ranks), a runtime-sized tile of
// 8, a tile's sync() ordering shared memory between its threads while the
// rest of the block is elsewhere, coalesced_threads() inside a branch, and
// cg::reduce (redux for integers, a shuffle tree for floats).
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include <algorithm>

#include "test_util.h"

namespace cg = cooperative_groups;

constexpr int kThreads = 128, kFields = 12;

__global__ void groups(const int *in, int *out, float *fout)
{
	__shared__ int scratch[kThreads];
	cg::thread_block block = cg::this_thread_block();
	int t = block.thread_rank();
	int v = in[blockIdx.x * kThreads + t];
	int *o = out + (blockIdx.x * kThreads + t) * kFields;

	cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
	cg::thread_block_tile<16> half = cg::tiled_partition<16>(block);
	cg::thread_block_tile<4> quad = cg::tiled_partition<4>(warp);

	int sum16 = v;
	for (int offset = half.size() / 2; offset > 0; offset /= 2)
		sum16 += half.shfl_down(sum16, offset);
	o[0] = half.shfl(sum16, 0); // the tile's sum, from rank 0
	int max4 = v;
	for (int mask = 1; mask < 4; mask *= 2)
		max4 = max(max4, quad.shfl_xor(max4, mask));
	o[1] = max4;
	o[2] = quad.thread_rank() | quad.meta_group_rank() << 8 | half.meta_group_size() << 16;
	o[3] = (int)quad.ballot(v & 1);
	o[4] = (int)half.match_any(v % 3);
	o[5] = cg::reduce(warp, v, cg::plus<int>());
	o[6] = cg::reduce(half, v, cg::greater<int>());
	fout[blockIdx.x * kThreads + t] = cg::reduce(quad, (float)v * 0.5f, cg::plus<float>());

	// A runtime tile of 8: its threads hand values around through shared
	// memory, ordered by the tile's own sync, while odd tiles loop first.
	cg::thread_group eight = cg::tiled_partition(block, 8);
	if ((t / 8) % 2) {
		for (int i = 0; i < t % 5; ++i)
			v += 0;
	}
	scratch[t] = v * 2;
	eight.sync();
	o[7] = scratch[(t & ~7) | ((eight.thread_rank() + 1) % 8)];
	o[8] = (int)eight.size();

	// Coalesced threads: the lanes whose value is odd.
	o[9] = o[10] = o[11] = -1;
	if (v & 1) {
		cg::coalesced_group odd = cg::coalesced_threads();
		o[9] = (int)odd.thread_rank() | (int)odd.size() << 8;
		o[10] = odd.shfl(v, odd.size() - 1); // the last odd lane's value
		o[11] = cg::reduce(odd, v, cg::plus<int>());
		odd.sync();
	}
	block.sync();
}

int main()
{
	const int blocks = 2, n = blocks * kThreads;
	static int in[n], out[n * kFields];
	static float fout[n];
	Rng rng(7);
	for (int i = 0; i < n; ++i)
		in[i] = rng.range(-100, 100);
	int *din, *dout;
	float *dfout;
	CHECK_CUDA(cudaMalloc(&din, sizeof(in)));
	CHECK_CUDA(cudaMalloc(&dout, sizeof(out)));
	CHECK_CUDA(cudaMalloc(&dfout, sizeof(fout)));
	CHECK_CUDA(cudaMemcpy(din, in, sizeof(in), cudaMemcpyHostToDevice));
	groups<<<blocks, kThreads>>>(din, dout, dfout);
	CHECK_LAUNCH();
	CHECK_CUDA(cudaMemcpy(out, dout, sizeof(out), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(fout, dfout, sizeof(fout), cudaMemcpyDeviceToHost));
	bool ok = true;
	for (int i = 0; i < n; ++i) {
		int t = i % kThreads, b16 = i & ~15, b4 = i & ~3, b32 = i & ~31, b8 = i & ~7;
		int ref[kFields];
		int sum16 = 0, max16 = INT32_MIN, max4 = INT32_MIN, sum32 = 0;
		unsigned ballot4 = 0, match16 = 0;
		float fsum4 = 0;
		for (int j = 0; j < 16; ++j) {
			sum16 += in[b16 + j];
			max16 = std::max(max16, in[b16 + j]);
			match16 |= (in[b16 + j] % 3 == in[i] % 3 ? 1u : 0u) << j;
		}
		for (int j = 0; j < 4; ++j) {
			max4 = std::max(max4, in[b4 + j]);
			ballot4 |= (in[b4 + j] & 1 ? 1u : 0u) << j;
			fsum4 += (float)in[b4 + j] * 0.5f;
		}
		for (int j = 0; j < 32; ++j)
			sum32 += in[b32 + j];
		ref[0] = sum16;
		ref[1] = max4;
		ref[2] = t % 4 | (t / 4) << 8 | (kThreads / 16) << 16;
		ref[3] = (int)ballot4;
		ref[4] = (int)match16;
		ref[5] = sum32;
		ref[6] = max16;
		ref[7] = in[b8 + (i % 8 + 1) % 8] * 2;
		ref[8] = 8;
		ref[9] = ref[10] = ref[11] = -1;
		if (in[i] & 1) {
			int rank = 0, size = 0, last = 0, sum = 0;
			for (int j = 0; j < 32; ++j)
				if (in[b32 + j] & 1) {
					rank += b32 + j < i;
					++size;
					last = in[b32 + j];
					sum += in[b32 + j];
				}
			ref[9] = rank | size << 8;
			ref[10] = last;
			ref[11] = sum;
		}
		for (int k = 0; k < kFields; ++k)
			if (out[i * kFields + k] != ref[k]) {
				if (ok)
					std::printf("thread %d field %d: %d, expected %d\n", i, k,
						    out[i * kFields + k], ref[k]);
				ok = false;
			}
		if (fout[i] != fsum4) {
			if (ok)
				std::printf("thread %d: float sum %g, expected %g\n", i, fout[i], fsum4);
			ok = false;
		}
	}
	return report("cooperative_groups", ok);
}
