/* Shared by the differential programs (device_diff_*.c): each runs one
 * thread, folds every result into an FNV-1a hash and exits with 7 bits of
 * it, so qemu-riscv64 and simt-run can be compared by exit status alone.
 * Only RV64GC and ecall 93 are used: no SIMT CSRs, which qemu lacks. */
#ifndef DEVICE_DIFF_H
#define DEVICE_DIFF_H

#include <stdint.h>

static uint64_t diff_hash = 1469598103934665603ull;

static inline void mix(uint64_t v)
{
	for (int i = 0; i < 8; ++i) {
		diff_hash ^= (v >> (8 * i)) & 0xff;
		diff_hash *= 1099511628211ull;
	}
}

static inline __attribute__((noreturn)) void diff_exit(void)
{
	uint64_t h = diff_hash;
	h ^= h >> 32;
	h ^= h >> 16;
	h ^= h >> 8;
	register uint64_t a0 __asm__("a0") = (h ^ (h >> 7)) & 0x7f;
	register uint64_t a7 __asm__("a7") = 93;
	__asm__ volatile("ecall" : : "r"(a0), "r"(a7) : "memory");
	__builtin_unreachable();
}

#define OP2(insn, a, b)                                                      \
	({                                                                   \
		uint64_t r_;                                                 \
		__asm__ volatile(insn " %0, %1, %2" : "=r"(r_) : "r"(a), "r"(b)); \
		r_;                                                          \
	})

#endif
