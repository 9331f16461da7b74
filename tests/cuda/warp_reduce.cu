// SPDX-License-Identifier: MIT
// __reduce_{add,min,max,and,or,xor}_sync (issue 18): every operation on
// unsigned and (add, min, max) int values with negative ones, over the full
// warp, over the odd lanes, and over lanes that reach the reduction from
// different branches (they wait for each other, *_sync rule); and the
// warp-aggregated atomic they are used for (one atomicAdd per warp).
#include "test_util.h"

constexpr int kOps = 9;

__global__ void reduce(const unsigned *in, unsigned *full, unsigned *odd, unsigned *divergent,
		       unsigned long long *total)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	int lane = threadIdx.x % 32;
	unsigned u = in[t];
	int s = (int)u;
	unsigned *f = full + kOps * t;
	f[0] = __reduce_add_sync(0xffffffffu, u);
	f[1] = (unsigned)__reduce_add_sync(0xffffffffu, s);
	f[2] = __reduce_min_sync(0xffffffffu, u);
	f[3] = (unsigned)__reduce_min_sync(0xffffffffu, s);
	f[4] = __reduce_max_sync(0xffffffffu, u);
	f[5] = (unsigned)__reduce_max_sync(0xffffffffu, s);
	f[6] = __reduce_and_sync(0xffffffffu, u);
	f[7] = __reduce_or_sync(0xffffffffu, u);
	f[8] = __reduce_xor_sync(0xffffffffu, u);

	unsigned *o = odd + 3 * t;
	o[0] = o[1] = o[2] = 0;
	if (lane & 1) {
		o[0] = (unsigned)__reduce_min_sync(0xaaaaaaaau, s);
		o[1] = __reduce_max_sync(0xaaaaaaaau, u);
		o[2] = __reduce_or_sync(0xaaaaaaaau, u);
	}

	// Divergent call sites: lanes below 10 loop first.
	unsigned r;
	if (lane < 10) {
		unsigned v = u;
		for (int i = 0; i < lane; ++i)
			v = v * 3 + 1;
		r = __reduce_add_sync(0xffffffffu, u) + (v & 0);
	} else {
		r = __reduce_add_sync(0xffffffffu, u);
	}
	divergent[t] = r;

	unsigned sum = __reduce_add_sync(0xffffffffu, u & 0xffff);
	if (lane == 0)
		atomicAdd(total, (unsigned long long)sum);
}

int main()
{
	const int blocks = 3, threads = 96, n = blocks * threads, warps = n / 32;
	static unsigned in[n];
	Rng rng(1818);
	for (int i = 0; i < n; ++i) {
		int w = i / 32;
		in[i] = w == 0 ? (unsigned)(i * 2654435761u) : w == 1 ? 0xfffffff0u + i % 7
			: (unsigned)(rng.range(-1000, 1000));
	}
	unsigned *din, *dfull, *dodd, *ddiv;
	unsigned long long *dtotal;
	CHECK_CUDA(cudaMalloc(&din, sizeof(in)));
	CHECK_CUDA(cudaMalloc(&dfull, kOps * n * sizeof(unsigned)));
	CHECK_CUDA(cudaMalloc(&dodd, 3 * n * sizeof(unsigned)));
	CHECK_CUDA(cudaMalloc(&ddiv, n * sizeof(unsigned)));
	CHECK_CUDA(cudaMalloc(&dtotal, sizeof(unsigned long long)));
	CHECK_CUDA(cudaMemcpy(din, in, sizeof(in), cudaMemcpyHostToDevice));
	CHECK_CUDA(cudaMemset(dtotal, 0, sizeof(unsigned long long)));
	reduce<<<blocks, threads>>>(din, dfull, dodd, ddiv, dtotal);
	CHECK_LAUNCH();
	static unsigned full[kOps * n], odd[3 * n], divergent[n];
	unsigned long long total = 0;
	CHECK_CUDA(cudaMemcpy(full, dfull, sizeof(full), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(odd, dodd, sizeof(odd), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(divergent, ddiv, sizeof(divergent), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(&total, dtotal, sizeof(total), cudaMemcpyDeviceToHost));

	bool ok = true;
	unsigned long long ref_total = 0;
	for (int w = 0; w < warps; ++w) {
		const unsigned *v = in + 32 * w;
		unsigned add = 0, umin = ~0u, umax = 0, band = ~0u, bor = 0, bxor = 0;
		int smin = INT32_MAX, smax = INT32_MIN;
		int odd_min = INT32_MAX;
		unsigned odd_max = 0, odd_or = 0;
		for (int l = 0; l < 32; ++l) {
			add += v[l];
			umin = v[l] < umin ? v[l] : umin;
			umax = v[l] > umax ? v[l] : umax;
			smin = (int)v[l] < smin ? (int)v[l] : smin;
			smax = (int)v[l] > smax ? (int)v[l] : smax;
			band &= v[l], bor |= v[l], bxor ^= v[l];
			if (l & 1) {
				odd_min = (int)v[l] < odd_min ? (int)v[l] : odd_min;
				odd_max = v[l] > odd_max ? v[l] : odd_max;
				odd_or |= v[l];
			}
			ref_total += v[l] & 0xffff;
		}
		const unsigned ref[kOps] = {add, add, umin, (unsigned)smin, umax, (unsigned)smax,
					    band, bor, bxor};
		for (int l = 0; l < 32; ++l) {
			int t = 32 * w + l;
			for (int k = 0; k < kOps; ++k)
				if (full[kOps * t + k] != ref[k]) {
					if (ok)
						std::printf("thread %d op %d: %08x, expected %08x\n", t, k,
							    full[kOps * t + k], ref[k]);
					ok = false;
				}
			const unsigned ref_odd[3] = {l & 1 ? (unsigned)odd_min : 0u, l & 1 ? odd_max : 0u,
						     l & 1 ? odd_or : 0u};
			for (int k = 0; k < 3; ++k)
				if (odd[3 * t + k] != ref_odd[k]) {
					if (ok)
						std::printf("thread %d odd op %d: %08x, expected %08x\n", t, k,
							    odd[3 * t + k], ref_odd[k]);
					ok = false;
				}
			if (divergent[t] != add) {
				if (ok)
					std::printf("thread %d divergent: %08x, expected %08x\n", t,
						    divergent[t], add);
				ok = false;
			}
		}
	}
	if (total != ref_total) {
		std::printf("total %llu, expected %llu\n", total, ref_total);
		ok = false;
	}
	return report("warp_reduce", ok);
}
