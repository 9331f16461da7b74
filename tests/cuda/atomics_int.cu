// SPDX-License-Identifier: MIT
// Every integer atomic of CUDA (Add, Sub, Exch, Min, Max, Inc, Dec, CAS,
// And, Or, Xor) on int, unsigned int and unsigned long long, each hammered
// by 512 threads; results checked against a sequential model.
#include <algorithm>

#include "test_util.h"

constexpr int kThreads = 512;

struct Results {
	int add, sub, min, max, and_, or_, xor_, cas_count;
	unsigned uadd, usub, umin, umax, inc, dec, uand, uor, uxor;
	unsigned long long ladd, lmin, lmax, land, lor, lxor, lcas;
	long long llmin, llmax;
};

__global__ void hammer(Results *r, int *exch_slot, int *exch_olds)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	atomicAdd(&r->add, t);
	atomicSub(&r->sub, t);
	atomicMin(&r->min, 1000 - t);
	atomicMax(&r->max, t * 3 - 700);
	atomicAnd(&r->and_, ~(1 << (t % 31)));
	atomicOr(&r->or_, 1 << (t % 29));
	atomicXor(&r->xor_, t);
	atomicAdd(&r->uadd, 3u);
	atomicSub(&r->usub, 2u);
	atomicMin(&r->umin, 5000u + t);
	atomicMax(&r->umax, static_cast<unsigned>(t) * 7u);
	atomicInc(&r->inc, 99u);  // wraps to 0 after 99
	atomicDec(&r->dec, 50u);  // wraps to 50 below 0
	atomicAnd(&r->uand, ~(1u << (t % 32)));
	atomicOr(&r->uor, 1u << (t % 32));
	atomicXor(&r->uxor, static_cast<unsigned>(t) * 2654435761u);
	atomicAdd(&r->ladd, 1ull << 33);
	atomicMin(&r->lmin, (1ull << 40) + t);
	atomicMax(&r->lmax, (1ull << 40) + t);
	atomicAnd(&r->land, ~(1ull << (t % 64)));
	atomicOr(&r->lor, 1ull << (t % 64));
	atomicXor(&r->lxor, static_cast<unsigned long long>(t) << 20);
	atomicMin(&r->llmin, -(1ll << 35) - t);
	atomicMax(&r->llmax, (1ll << 35) + t);
	// CAS loop implementing a 64-bit multiply-add, and a CAS "first wins".
	unsigned long long old = r->lcas, assumed;
	do {
		assumed = old;
		old = atomicCAS(&r->lcas, assumed, assumed * 3ull + 1ull);
	} while (old != assumed);
	if (atomicCAS(&r->cas_count, 0, t + 1) == 0)
		atomicAdd(&r->cas_count, 1 << 20);
	exch_olds[t] = atomicExch(exch_slot, t);
}

int main()
{
	Results init{};
	init.min = 1 << 30;
	init.max = -(1 << 30);
	init.and_ = -1;
	init.usub = 1u << 20;
	init.umin = ~0u;
	init.uand = ~0u;
	init.dec = 10;
	init.lmin = ~0ull;
	init.land = ~0ull;
	init.llmin = 0;
	init.llmax = 0;
	init.lcas = 1;
	Results *dr;
	int *dslot, *dolds;
	int minus_one = -1;
	CHECK_CUDA(cudaMalloc(&dr, sizeof(Results)));
	CHECK_CUDA(cudaMalloc(&dslot, sizeof(int)));
	CHECK_CUDA(cudaMalloc(&dolds, kThreads * sizeof(int)));
	CHECK_CUDA(cudaMemcpy(dr, &init, sizeof(init), cudaMemcpyHostToDevice));
	CHECK_CUDA(cudaMemcpy(dslot, &minus_one, sizeof(int), cudaMemcpyHostToDevice));
	hammer<<<4, kThreads / 4>>>(dr, dslot, dolds);
	CHECK_LAUNCH();
	Results r;
	int olds[kThreads], last;
	CHECK_CUDA(cudaMemcpy(&r, dr, sizeof(r), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(olds, dolds, sizeof(olds), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(&last, dslot, sizeof(int), cudaMemcpyDeviceToHost));

	Results e = init; // the sequential model
	for (int t = 0; t < kThreads; ++t) {
		e.add += t;
		e.sub -= t;
		e.min = std::min(e.min, 1000 - t);
		e.max = std::max(e.max, t * 3 - 700);
		e.and_ &= ~(1 << (t % 31));
		e.or_ |= 1 << (t % 29);
		e.xor_ ^= t;
		e.uadd += 3u;
		e.usub -= 2u;
		e.umin = std::min(e.umin, 5000u + t);
		e.umax = std::max(e.umax, static_cast<unsigned>(t) * 7u);
		e.inc = e.inc >= 99u ? 0u : e.inc + 1u;
		e.dec = (e.dec == 0u || e.dec > 50u) ? 50u : e.dec - 1u;
		e.uand &= ~(1u << (t % 32));
		e.uor |= 1u << (t % 32);
		e.uxor ^= static_cast<unsigned>(t) * 2654435761u;
		e.ladd += 1ull << 33;
		e.lmin = std::min(e.lmin, (1ull << 40) + t);
		e.lmax = std::max(e.lmax, (1ull << 40) + t);
		e.land &= ~(1ull << (t % 64));
		e.lor |= 1ull << (t % 64);
		e.lxor ^= static_cast<unsigned long long>(t) << 20;
		e.llmin = std::min(e.llmin, -(1ll << 35) - t);
		e.llmax = std::max(e.llmax, (1ll << 35) + t);
		e.lcas = e.lcas * 3ull + 1ull; // order-independent count of applications
	}
	bool ok = r.add == e.add && r.sub == e.sub && r.min == e.min && r.max == e.max &&
		  r.and_ == e.and_ && r.or_ == e.or_ && r.xor_ == e.xor_ && r.uadd == e.uadd &&
		  r.usub == e.usub && r.umin == e.umin && r.umax == e.umax && r.inc == e.inc &&
		  r.dec == e.dec && r.uand == e.uand && r.uor == e.uor && r.uxor == e.uxor &&
		  r.ladd == e.ladd && r.lmin == e.lmin && r.lmax == e.lmax && r.land == e.land &&
		  r.lor == e.lor && r.lxor == e.lxor && r.llmin == e.llmin && r.llmax == e.llmax &&
		  r.lcas == e.lcas;
	// Exactly one CAS won: cas_count = winner + 1 + 2^20.
	ok &= (r.cas_count >> 20) == 1 && (r.cas_count & 0xfffff) >= 1 && (r.cas_count & 0xfffff) <= kThreads;
	// atomicExch: the olds plus the final value are -1 and 0..511, each once.
	int seen[kThreads + 1] = {};
	for (int t = 0; t < kThreads; ++t)
		if (olds[t] >= -1 && olds[t] < kThreads)
			seen[olds[t] + 1]++;
	if (last >= 0 && last < kThreads)
		seen[last + 1]++;
	for (int v = 0; v <= kThreads; ++v)
		ok &= seen[v] == 1;
	std::printf("inc %u (want %u) dec %u (want %u) lcas %llu (want %llu)\n", r.inc, e.inc, r.dec, e.dec,
		    r.lcas, e.lcas);
	return report("atomics_int", ok);
}
