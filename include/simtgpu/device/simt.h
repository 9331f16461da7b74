/* SPDX-License-Identifier: MIT */
/*
 * The SIMT extension for bare-metal device programs written in C
 * (clang-16 --target=riscv64, -march=rv64gc): one static inline function per
 * SIMT CSR and per custom-0 instruction of simtgpu/hw.h, plus thread exit and
 * trap. docs/isa.md defines what each one does.
 *
 * Identity CSRs (tid, ctaid, ...) are read without `volatile` so the compiler
 * may reuse a read; clock, globaltimer and every instruction with an effect
 * on other threads are volatile and ordered against memory.
 */
#ifndef SIMTGPU_DEVICE_SIMT_H
#define SIMTGPU_DEVICE_SIMT_H

#include <stdint.h>

#include "simtgpu/hw.h"

#define SIMT_STR_(x) #x
#define SIMT_STR(x) SIMT_STR_(x)

/* ------------------------------------------------------------ CSRs --- */

#define SIMT_CSR_READ_PURE(name, csr)                                        \
	static inline uint64_t simt_##name(void)                             \
	{                                                                    \
		uint64_t v;                                                  \
		__asm__("csrr %0, " SIMT_STR(csr) : "=r"(v));                \
		return v;                                                    \
	}

SIMT_CSR_READ_PURE(tid_x, 0xcc0)
SIMT_CSR_READ_PURE(tid_y, 0xcc1)
SIMT_CSR_READ_PURE(tid_z, 0xcc2)
SIMT_CSR_READ_PURE(ntid_x, 0xcc3)
SIMT_CSR_READ_PURE(ntid_y, 0xcc4)
SIMT_CSR_READ_PURE(ntid_z, 0xcc5)
SIMT_CSR_READ_PURE(ctaid_x, 0xcc6)
SIMT_CSR_READ_PURE(ctaid_y, 0xcc7)
SIMT_CSR_READ_PURE(ctaid_z, 0xcc8)
SIMT_CSR_READ_PURE(nctaid_x, 0xcc9)
SIMT_CSR_READ_PURE(nctaid_y, 0xcca)
SIMT_CSR_READ_PURE(nctaid_z, 0xccb)
SIMT_CSR_READ_PURE(laneid, 0xccc)
SIMT_CSR_READ_PURE(warpid, 0xccd)
SIMT_CSR_READ_PURE(smid, 0xcce)
SIMT_CSR_READ_PURE(warpsize, 0xccf)
SIMT_CSR_READ_PURE(nsmid, 0xcd0)
SIMT_CSR_READ_PURE(lanemask_lt, 0xcd3)
SIMT_CSR_READ_PURE(envptr, 0xcd4)
SIMT_CSR_READ_PURE(dynshared, 0xcd5)
SIMT_CSR_READ_PURE(gridid, 0xcd6)

#undef SIMT_CSR_READ_PURE

/* The hw.h numbers must match the literals above (asm needs literals). */
#ifdef __cplusplus
static_assert(SIMTGPU_CSR_TID_X == 0xcc0 && SIMTGPU_CSR_GRIDID == 0xcd6,
	      "simt.h CSR numbers out of date with simtgpu/hw.h");
#else
_Static_assert(SIMTGPU_CSR_TID_X == 0xcc0 && SIMTGPU_CSR_GRIDID == 0xcd6,
	       "simt.h CSR numbers out of date with simtgpu/hw.h");
#endif

/* SM cycle counter at this instruction. */
static inline uint64_t simt_clock(void)
{
	uint64_t v;
	__asm__ volatile("csrr %0, 0xcd1" : "=r"(v));
	return v;
}

/* Simulated global time in nanoseconds. */
static inline uint64_t simt_globaltimer(void)
{
	uint64_t v;
	__asm__ volatile("csrr %0, 0xcd2" : "=r"(v));
	return v;
}

/* Convenience: the linear thread index within the CTA and the CTA size. */
static inline uint32_t simt_thread_linear(void)
{
	return (uint32_t)(simt_tid_x() +
			  simt_ntid_x() * (simt_tid_y() + simt_ntid_y() * simt_tid_z()));
}

static inline uint32_t simt_cta_threads(void)
{
	return (uint32_t)(simt_ntid_x() * simt_ntid_y() * simt_ntid_z());
}

/* ------------------------------------------------- CTA barriers --- */
/* bar.*: custom-0, funct3 0, funct7 = SIMTGPU_BAR_*. */

static inline void simt_bar_sync(void)
{
	__asm__ volatile(".insn r 0x0b, 0, 0, x0, x0, x0" ::: "memory");
}

/* Named barrier `id` (0..15) for `count` threads (a multiple of the warp
 * size; 0: every live thread of the CTA). bar.sync(0, 0) is simt_bar_sync(). */
static inline void simt_bar_sync_n(uint64_t id, uint64_t count)
{
	__asm__ volatile(".insn r 0x0b, 0, 0, x0, %0, %1" : : "r"(id), "r"(count) : "memory");
}

/* Counts this thread towards barrier `id` of `count` threads, and goes on. */
static inline void simt_bar_arrive(uint64_t id, uint64_t count)
{
	__asm__ volatile(".insn r 0x0b, 0, 4, x0, %0, %1" : : "r"(id), "r"(count) : "memory");
}

/* Barrier that also returns how many threads passed pred != 0. */
static inline uint32_t simt_bar_popc(int pred)
{
	uint64_t r;
	__asm__ volatile(".insn r 0x0b, 0, 1, %0, %1, x0"
			 : "=r"(r)
			 : "r"((uint64_t)(int64_t)pred)
			 : "memory");
	return (uint32_t)r;
}

/* Barrier; 1 when every thread passed pred != 0. */
static inline int simt_bar_and(int pred)
{
	uint64_t r;
	__asm__ volatile(".insn r 0x0b, 0, 2, %0, %1, x0"
			 : "=r"(r)
			 : "r"((uint64_t)(int64_t)pred)
			 : "memory");
	return (int)r;
}

/* Barrier; 1 when any thread passed pred != 0. */
static inline int simt_bar_or(int pred)
{
	uint64_t r;
	__asm__ volatile(".insn r 0x0b, 0, 3, %0, %1, x0"
			 : "=r"(r)
			 : "r"((uint64_t)(int64_t)pred)
			 : "memory");
	return (int)r;
}

/* ------------------------------------------------------- warp vote --- */
/* vote.*: custom-0, funct3 1, funct7 = SIMTGPU_VOTE_*, rs2 = member mask. */

#define SIMT_FULL_MASK (~(uint64_t)0)

#define SIMT_VOTE(name, funct7)                                              \
	static inline uint64_t simt_##name(uint64_t member_mask, int pred)   \
	{                                                                    \
		uint64_t r;                                                  \
		__asm__ volatile(".insn r 0x0b, 1, " SIMT_STR(funct7)        \
				 ", %0, %1, %2"                              \
				 : "=r"(r)                                   \
				 : "r"((uint64_t)(int64_t)pred),             \
				   "r"(member_mask));                        \
		return r;                                                    \
	}

SIMT_VOTE(ballot, 0) /* mask of member lanes with pred != 0 */
SIMT_VOTE(any, 1)    /* 1 when some member lane has pred != 0 */
SIMT_VOTE(all, 2)    /* 1 when every member lane has pred != 0 */
SIMT_VOTE(uni, 3)    /* 1 when all member lanes agree on pred != 0 */

#undef SIMT_VOTE

/* ---------------------------------------------------- warp shuffle --- */
/*
 * shfl.*: custom-0 R4, funct3 2, funct2 = SIMTGPU_SHFL_*; rd = rs1 of the
 * lane chosen by rs2 (lane, delta or xor mask) and rs3 = c, PTX's clamp and
 * segment operand: c[5:0] clamp, c[13:8] segment mask. The whole 64-bit
 * register moves. simt_shfl_c() builds c for a sub-warp width (a power of
 * two <= warp size) as CUDA's __shfl_*_sync(mask, v, x, width) do.
 */
#define SIMT_SHFL(name, funct2)                                              \
	static inline uint64_t simt_shfl_##name(uint64_t value, uint32_t b,  \
						 uint32_t c)                  \
	{                                                                    \
		uint64_t r;                                                  \
		__asm__ volatile(".insn r4 0x0b, 2, " SIMT_STR(funct2)       \
				 ", %0, %1, %2, %3"                          \
				 : "=r"(r)                                   \
				 : "r"(value), "r"((uint64_t)b),             \
				   "r"((uint64_t)c));                        \
		return r;                                                    \
	}

SIMT_SHFL(idx, 0)
SIMT_SHFL(up, 1)
SIMT_SHFL(down, 2)
SIMT_SHFL(bfly, 3)

#undef SIMT_SHFL

/* c for shfl.up (clamp 0) and for idx/down/bfly (clamp = width - 1). */
static inline uint32_t simt_shfl_c(uint32_t width, int is_up)
{
	uint32_t seg = ((uint32_t)simt_warpsize() - width) << 8;
	return is_up ? seg : seg | (width - 1);
}

/* Whole-warp forms, as __shfl_*_sync(mask, v, x) with the default width. */
static inline uint64_t simt_shfl_idx_warp(uint64_t v, uint32_t lane)
{
	return simt_shfl_idx(v, lane, (uint32_t)simt_warpsize() - 1);
}

static inline uint64_t simt_shfl_up_warp(uint64_t v, uint32_t delta)
{
	return simt_shfl_up(v, delta, 0);
}

static inline uint64_t simt_shfl_down_warp(uint64_t v, uint32_t delta)
{
	return simt_shfl_down(v, delta, (uint32_t)simt_warpsize() - 1);
}

static inline uint64_t simt_shfl_bfly_warp(uint64_t v, uint32_t lane_mask)
{
	return simt_shfl_bfly(v, lane_mask, (uint32_t)simt_warpsize() - 1);
}

/* ------------------------------------------------- match and redux --- */
/*
 * match.*: custom-0, funct3 4, funct7 = SIMTGPU_MATCH_*; redux.*: funct3 5,
 * funct7 = SIMTGPU_REDUX_*. rs1 = the value (all 64 bits), rs2 = member mask;
 * they wait for the member lanes as votes do.
 */

/* Member lanes whose value equals this lane's. */
static inline uint64_t simt_match_any(uint64_t member_mask, uint64_t value)
{
	uint64_t r;
	__asm__ volatile(".insn r 0x0b, 4, 0, %0, %1, %2"
			 : "=r"(r)
			 : "r"(value), "r"(member_mask)
			 : "memory");
	return r;
}

/* The member lanes when they all hold the same value, else 0. */
static inline uint64_t simt_match_all(uint64_t member_mask, uint64_t value)
{
	uint64_t r;
	__asm__ volatile(".insn r 0x0b, 4, 1, %0, %1, %2"
			 : "=r"(r)
			 : "r"(value), "r"(member_mask)
			 : "memory");
	return r;
}

#define SIMT_REDUX(name, funct7)                                               \
	static inline uint64_t simt_redux_##name(uint64_t member_mask,         \
						 uint64_t value)               \
	{                                                                      \
		uint64_t r;                                                    \
		__asm__ volatile(".insn r 0x0b, 5, " SIMT_STR(funct7)          \
				 ", %0, %1, %2"                                \
				 : "=r"(r)                                     \
				 : "r"(value), "r"(member_mask)                \
				 : "memory");                                  \
		return r;                                                      \
	}

SIMT_REDUX(add, 0)
SIMT_REDUX(and, 1)
SIMT_REDUX(or, 2)
SIMT_REDUX(xor, 3)
SIMT_REDUX(min, 4)  /* signed */
SIMT_REDUX(max, 5)
SIMT_REDUX(minu, 6) /* unsigned */
SIMT_REDUX(maxu, 7)

#undef SIMT_REDUX

/* -------------------------------------------------- warp control --- */
/* warp.*: custom-0, funct3 3, funct7 = SIMTGPU_WARP_*. */

/* Mask of the lanes executing this instruction together. */
static inline uint64_t simt_activemask(void)
{
	uint64_t r;
	__asm__ volatile(".insn r 0x0b, 3, 0, %0, x0, x0" : "=r"(r));
	return r;
}

/* Wait until every live lane of member_mask has reached a warp.sync. */
static inline void simt_warp_sync(uint64_t member_mask)
{
	__asm__ volatile(".insn r 0x0b, 3, 1, x0, %0, x0"
			 :
			 : "r"(member_mask)
			 : "memory");
}

/* Let the warp issue nothing for about `ns` nanoseconds (at most 1 ms):
 * CUDA's __nanosleep, for the back-off of a spin loop (simt_2). */
static inline void simt_nanosleep(uint32_t ns)
{
	__asm__ volatile(".insn r 0x0b, 3, 2, x0, %0, x0" : : "r"((uint64_t)ns) : "memory");
}

/* ------------------------------------------------ exit and trap --- */

/* End this thread with `status` (ecall, a7 = SIMTGPU_ECALL_EXIT). */
static inline __attribute__((noreturn)) void simt_exit(int status)
{
	register uint64_t a0 __asm__("a0") = (uint64_t)(int64_t)status;
	register uint64_t a7 __asm__("a7") = SIMTGPU_ECALL_EXIT;
	__asm__ volatile("ecall" : : "r"(a0), "r"(a7) : "memory");
	__builtin_unreachable();
}

/* Fail the launch with SIMTGPU_EXC_TRAP (ebreak): a device-side assert. */
static inline __attribute__((noreturn)) void simt_trap(void)
{
	__asm__ volatile("ebreak" ::: "memory");
	__builtin_unreachable();
}

/* The shared window of this CTA, as a pointer (see docs/isa.md). */
#define SIMT_SHARED(type) ((type *)(uintptr_t)SIMTGPU_SHARED_BASE)

/*
 * SIMT_ENTRY(fn, type): defines _start, the entry every thread starts at
 * with a0 = the parameter buffer, as a call of `void fn(const type *)`
 * followed by an exit with status 0.
 */
#define SIMT_ENTRY(fn, type)                                                 \
	__attribute__((noreturn)) void _start(const type *params)            \
	{                                                                    \
		fn(params);                                                  \
		simt_exit(0);                                                \
	}

#endif /* SIMTGPU_DEVICE_SIMT_H */
