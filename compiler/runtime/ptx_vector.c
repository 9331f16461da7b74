// SPDX-License-Identifier: MIT
// 16-byte loads and stores of inline PTX (ld/st .v2.u64, .v4.u32 with a
// cache operator or .volatile; ptx_translate.cpp calls these). On NVIDIA
// GPUs each is one access, and CUB's decoupled look-back relies on it: a
// tile's status and value travel together in one 16-byte word. RV64 has no
// 16-byte access, so each is made indivisible with a lock, one of 256 hashed
// by address. One lane of a warp at a time takes it, the others waiting at
// a warp.sync: lanes of one warp that spun for a lock another lane of the
// same warp holds might run first, by the lowest-PC rule, and never let
// that lane release it.
#include <stdint.h>

#include "simtgpu/device/simt.h"

struct simt_pair {
	uint64_t lo, hi;
};

static uint32_t simt_v128_locks[256];

static uint32_t *lock_of(const volatile void *p)
{
	return &simt_v128_locks[((uintptr_t)p >> 4) & 255];
}

static void lock(uint32_t *l)
{
	while (__atomic_exchange_n(l, 1u, __ATOMIC_ACQUIRE))
		;
}

static void unlock(uint32_t *l)
{
	__atomic_store_n(l, 0u, __ATOMIC_RELEASE);
}

struct simt_pair __simt_ptx_ld128(const volatile uint64_t *p)
{
	struct simt_pair r = {0, 0};
	uint64_t lane = simt_laneid(), active = simt_activemask();
	for (uint64_t mask = active; mask; mask &= mask - 1) {
		if ((uint64_t)__builtin_ctzll(mask) == lane) {
			uint32_t *l = lock_of(p);
			lock(l);
			r.lo = p[0];
			r.hi = p[1];
			unlock(l);
		}
		simt_warp_sync(active);
	}
	return r;
}

void __simt_ptx_st128(volatile uint64_t *p, uint64_t lo, uint64_t hi)
{
	uint64_t lane = simt_laneid(), active = simt_activemask();
	for (uint64_t mask = active; mask; mask &= mask - 1) {
		if ((uint64_t)__builtin_ctzll(mask) == lane) {
			uint32_t *l = lock_of(p);
			lock(l);
			p[0] = lo;
			p[1] = hi;
			unlock(l);
		}
		simt_warp_sync(active);
	}
}
