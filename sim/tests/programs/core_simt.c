/* Kernels for the SIMT behaviour tests (sim/tests/core_simt_test.cpp). Each
 * kernel is an entry symbol; a0 points at struct params. */
#include "simtgpu/device/simt.h"

struct params {
	uint64_t *out;
	uint64_t *in;
	uint64_t n;
	uint64_t arg;
	uint64_t *counter;
};

#define KERNEL(name)                                                        \
	static void name##_body(const struct params *p);                     \
	__attribute__((noreturn)) void name(const struct params *p)         \
	{                                                                    \
		name##_body(p);                                              \
		simt_exit(0);                                                \
	}                                                                    \
	static void name##_body(const struct params *p)

static inline uint32_t gtid(void)
{
	return (uint32_t)(simt_ctaid_x() * simt_ntid_x() + simt_tid_x());
}

/* if/else and nested divergence; out[3t+2] is the active mask after the
 * join (full warp when reconverged). */
KERNEL(k_ifelse)
{
	uint32_t t = gtid();
	uint64_t v;
	if (t & 1) {
		v = t * 3;
		if (t & 2)
			v += 1000;
		else
			v += 2000;
	} else {
		v = t + 100;
		if ((t % 8) < 4)
			v *= 2;
	}
	p->out[3 * t] = v;
	p->out[3 * t + 1] = simt_laneid();
	p->out[3 * t + 2] = simt_activemask();
}

/* A loop with a per-lane trip count, then the active mask after it. */
KERNEL(k_loop)
{
	uint32_t t = gtid();
	uint64_t sum = 0;
	for (uint32_t i = 0; i < t % 37; ++i)
		sum += i * i + t;
	p->out[2 * t] = sum;
	p->out[2 * t + 1] = simt_activemask();
}

/* Early exit: every third thread leaves with status 0 before the store. */
KERNEL(k_early_exit)
{
	uint32_t t = gtid();
	if (t % 3 == 0)
		simt_exit(0);
	p->out[t] = t + 1;
	p->out[p->n + t] = simt_activemask();
}

/* Exit status: thread `arg` exits with 7, thread arg+1 with 9. */
KERNEL(k_exit_status)
{
	uint32_t t = gtid();
	if (t == p->arg)
		simt_exit(7);
	if (t == p->arg + 1)
		simt_exit(9);
}

/* A divergent region of arg iterations then uniform code: used to count
 * warp instructions. */
KERNEL(k_reconverge)
{
	uint32_t t = simt_tid_x();
	uint64_t v = t;
	if (t & 1) {
		for (uint64_t i = 0; i < p->arg; ++i)
			v = v * 3 + 1;
	} else {
		for (uint64_t i = 0; i < p->arg; ++i)
			v = v * 5 + 2;
	}
	/* uniform tail */
	for (int i = 0; i < 100; ++i)
		v ^= v >> 3;
	p->out[t] = v;
}

/* Shared memory reversal across warps with bar.sync. */
KERNEL(k_barrier)
{
	uint32_t t = simt_tid_x(), n = (uint32_t)simt_ntid_x();
	volatile uint64_t *s = SIMT_SHARED(volatile uint64_t);
	s[t] = t * 7 + simt_ctaid_x();
	simt_bar_sync();
	uint64_t v = s[n - 1 - t];
	simt_bar_sync();
	s[t] = v + 1;
	simt_bar_sync();
	p->out[simt_ctaid_x() * n + t] = s[(t + 1) % n];
}

/* Barrier reductions. */
KERNEL(k_bar_red)
{
	uint32_t t = simt_tid_x();
	uint64_t base = simt_ctaid_x() * simt_ntid_x() * 3;
	p->out[base + 3 * t] = simt_bar_popc(t % 3 == 0);
	p->out[base + 3 * t + 1] = simt_bar_and(t < p->arg);
	p->out[base + 3 * t + 2] = simt_bar_or(t == p->arg);
}

/* Threads that exit early do not block the barrier. */
KERNEL(k_barrier_exit)
{
	uint32_t t = simt_tid_x();
	if (t % 5 == 0)
		simt_exit(0);
	uint64_t pc = simt_bar_popc(1);
	p->out[t] = pc;
}

static inline uint32_t amoadd_w(volatile uint32_t *a, uint32_t v)
{
	uint32_t r;
	__asm__ volatile("amoadd.w %0, %2, (%1)" : "=r"(r) : "r"(a), "r"(v) : "memory");
	return r;
}

static inline uint64_t amomax_d(volatile uint64_t *a, uint64_t v)
{
	uint64_t r;
	__asm__ volatile("amomax.d %0, %2, (%1)" : "=r"(r) : "r"(a), "r"(v) : "memory");
	return r;
}

/* Atomics under contention, on global and on shared memory; an LR/SC
 * spin lock guarding a plain read-modify-write. out[t] = value amoadd saw. */
KERNEL(k_atomics)
{
	uint32_t t = simt_tid_x(), n = (uint32_t)simt_ntid_x();
	volatile uint32_t *gcount = (volatile uint32_t *)p->counter;
	volatile uint64_t *gmax = p->counter + 1;
	volatile uint64_t *lock = p->counter + 2;
	volatile uint64_t *plain = p->counter + 3;
	volatile uint32_t *scount = SIMT_SHARED(volatile uint32_t);
	if (t == 0)
		*scount = 0;
	simt_bar_sync();
	p->out[simt_ctaid_x() * n + t] = amoadd_w(gcount, 1);
	amoadd_w(scount, t);
	amomax_d(gmax, (uint64_t)(int64_t)((t * 7919) % 1000) - 500);
	/* spin lock with lr/sc, acquired one lane at a time */
	for (;;) {
		uint64_t old, fail;
		__asm__ volatile("lr.d.aq %0, (%2)\n\t"
				 "bnez %0, 1f\n\t"
				 "li %1, 1\n\t"
				 "sc.d.rl %1, %1, (%2)\n\t"
				 "j 2f\n"
				 "1: li %1, 1\n"
				 "2:"
				 : "=&r"(old), "=&r"(fail)
				 : "r"(lock)
				 : "memory");
		if (!fail)
			break;
	}
	*plain = *plain + 1;
	__asm__ volatile("amoswap.d.rl x0, x0, (%0)" ::"r"(lock) : "memory");
	simt_bar_sync();
	if (t == 0)
		p->out[p->n + simt_ctaid_x()] = *scount;
}

/* Shuffles: 5 values per thread. */
KERNEL(k_shfl)
{
	uint32_t t = simt_tid_x();
	uint32_t lane = (uint32_t)simt_laneid();
	uint64_t v = t * 10 + 1;
	uint64_t *o = p->out + 6 * t;
	o[0] = simt_shfl_idx_warp(v, (lane + 5) % 32);
	o[1] = simt_shfl_up_warp(v, 3);
	o[2] = simt_shfl_down_warp(v, 4);
	o[3] = simt_shfl_bfly_warp(v, 6);
	o[4] = simt_shfl_down(v, 2, simt_shfl_c(8, 0));
	o[5] = simt_shfl_up(v, 1, simt_shfl_c(8, 1));
}

/* Votes, over the whole warp and over a divergent half. */
KERNEL(k_vote)
{
	uint32_t t = simt_tid_x();
	uint64_t *o = p->out + 6 * t;
	o[0] = simt_ballot(SIMT_FULL_MASK, t % 3 == 0);
	o[1] = simt_any(SIMT_FULL_MASK, t == p->arg);
	o[2] = simt_all(SIMT_FULL_MASK, t < p->arg);
	o[3] = simt_uni(SIMT_FULL_MASK, t < p->arg);
	/* different sequences on each side, so clang cannot hoist them */
	if (t & 1) {
		o[5] = simt_ballot(SIMT_FULL_MASK, 1);
		o[4] = simt_activemask();
	} else {
		o[4] = simt_activemask();
		o[5] = simt_ballot(0x5555555555555555ull, 1);
	}
}

/* warp.sync with divergent halves: both sides meet at the warp.sync. */
KERNEL(k_warp_sync)
{
	uint32_t t = simt_tid_x();
	uint64_t v;
	if (t < 16) {
		v = t * 2;
		simt_warp_sync(SIMT_FULL_MASK);
		v += simt_activemask() == 0xffffffffu;
	} else {
		v = t * 3;
		simt_warp_sync(SIMT_FULL_MASK);
		v += 100;
	}
	p->out[t] = v;
}

/* Deadlock: lanes 0..15 wait in warp.sync for lanes that wait at the CTA
 * barrier, which waits for lanes 0..15. */
KERNEL(k_deadlock)
{
	uint32_t t = simt_tid_x();
	if (t < 16)
		simt_warp_sync(SIMT_FULL_MASK);
	else
		simt_bar_sync();
	p->out[t] = 1;
}

/* A barrier inside a branch that half the CTA never reaches, while the other
 * half waits at a second barrier: with threads counted, that passes. */
KERNEL(k_divergent_barrier)
{
	uint32_t t = simt_tid_x();
	if (t < p->arg)
		simt_bar_sync();
	else
		simt_bar_sync();
	p->out[t] = t;
}

/* Thread arg traps (device-side assert). */
KERNEL(k_trap)
{
	if (gtid() == p->arg)
		simt_trap();
	p->out[gtid()] = 1;
}

/* Load from p->arg (expected to fault). */
KERNEL(k_load_arg)
{
	if (gtid() == 3)
		p->out[0] = *(volatile uint64_t *)p->arg;
}

/* Store to p->arg (expected to fault). */
KERNEL(k_store_arg)
{
	if (gtid() == 2)
		*(volatile uint64_t *)p->arg = 5;
}

/* Jump to p->arg (expected to fault on fetch). */
KERNEL(k_jump_arg)
{
	((void (*)(void))p->arg)();
}

/* Shared access at byte offset arg. */
KERNEL(k_shared_at)
{
	volatile uint8_t *s = SIMT_SHARED(volatile uint8_t);
	if (simt_tid_x() == 1)
		s[p->arg] = 1;
}

/* simt_2's single-instruction atomics (docs/isa.md): Zacas amocas and the
 * custom float add and wrapping inc/dec. */
static inline uint32_t amocas_w(volatile uint32_t *a, uint32_t expected, uint32_t v)
{
	__asm__ volatile(".insn r 0x2f, 2, 0x17, %0, %1, %2" : "+r"(expected) : "r"(a), "r"(v) : "memory");
	return expected;
}

static inline uint64_t amocas_d(volatile uint64_t *a, uint64_t expected, uint64_t v)
{
	__asm__ volatile(".insn r 0x2f, 3, 0x17, %0, %1, %2" : "+r"(expected) : "r"(a), "r"(v) : "memory");
	return expected;
}

#define SIMT_ATOMIC(funct7, a, v)                                                        \
	({                                                                               \
		uint64_t r_;                                                             \
		__asm__ volatile(".insn r 0x0b, 6, " #funct7 ", %0, %1, %2"              \
				 : "=r"(r_)                                              \
				 : "r"(a), "r"(v)                                        \
				 : "memory");                                            \
		r_;                                                                      \
	})

/* counter[0] (u32): incremented by a CAS loop, out[t] = the value thread t
 * moved from; counter[1] (u64): the first CAS from 0 wins, out[n + t] = 1
 * for the winner; counter[2] (f32 bits): += 0.5f, out[2n + t] = old bits;
 * counter[3] (f64 bits): += 0.25; counter[4] (u32): inc wrapping at 16;
 * counter[5] (u32): dec wrapping at 16. */
KERNEL(k_native_atomics)
{
	uint32_t t = simt_tid_x() + simt_ctaid_x() * (uint32_t)simt_ntid_x(), n = (uint32_t)p->n;
	volatile uint32_t *count = (volatile uint32_t *)p->counter;
	uint32_t seen = *count, old;
	while ((old = amocas_w(count, seen, seen + 1)) != seen)
		seen = old;
	p->out[t] = seen;
	p->out[n + t] = amocas_d(p->counter + 1, 0, t + 1) == 0;
	p->out[2 * n + t] = (uint32_t)SIMT_ATOMIC(0, p->counter + 2, 0x3f000000u); /* 0.5f */
	SIMT_ATOMIC(1, p->counter + 3, 0x3fd0000000000000ull); /* 0.25 */
	SIMT_ATOMIC(2, p->counter + 4, 16u);
	SIMT_ATOMIC(3, p->counter + 5, 16u);
}

/* out[t] = SM cycles around a warp.nanosleep of p->arg ns, by odd warps only. */
KERNEL(k_nanosleep)
{
	uint32_t t = simt_tid_x();
	uint64_t before = simt_clock();
	if (simt_warpid() & 1)
		simt_nanosleep((uint32_t)p->arg);
	p->out[t] = simt_clock() - before;
}

/* Misaligned atomic at p->arg. */
KERNEL(k_amo_arg)
{
	if (simt_tid_x() == 0)
		amoadd_w((volatile uint32_t *)p->arg, 1);
}

/* ecall with a7 = 64. */
KERNEL(k_bad_ecall)
{
	register uint64_t a7 __asm__("a7") = 64;
	__asm__ volatile("ecall" ::"r"(a7) : "memory");
	p->out[0] = 1;
}

/* An illegal instruction (all ones). */
KERNEL(k_illegal)
{
	if (simt_tid_x() == 4)
		__asm__ volatile(".word 0xffffffff");
	p->out[0] = 1;
}

/* Per-thread local memory: a stack array indexed by a runtime value. */
static uint64_t __attribute__((noinline)) local_work(uint32_t t, uint32_t n)
{
	volatile uint64_t buf[64];
	for (uint32_t i = 0; i < 64; ++i)
		buf[i] = t * 1000 + i;
	uint64_t s = 0;
	for (uint32_t i = 0; i < n; ++i)
		s += buf[(i * 7 + t) % 64];
	return s;
}

KERNEL(k_local)
{
	uint32_t t = gtid();
	uint64_t sp;
	__asm__ volatile("mv %0, sp" : "=r"(sp));
	p->out[2 * t] = local_work(t, 50);
	p->out[2 * t + 1] = sp;
}

/* Local memory at thread start: at each byte offset p->in[i] (i < p->n) of
 * its local window a thread loads a doubleword (what it finds there), stores
 * its own value and loads it back. Offsets need not be aligned. */
KERNEL(k_local_fresh)
{
	uint32_t t = gtid();
	for (uint64_t i = 0; i < p->n; ++i) {
		uint64_t a = SIMTGPU_LOCAL_BASE + p->in[i], before, after;
		uint64_t v = (uint64_t)t << 32 | i;
		__asm__ volatile("ld %0, 0(%1)" : "=r"(before) : "r"(a) : "memory");
		__asm__ volatile("sd %0, 0(%1)" : : "r"(v), "r"(a) : "memory");
		__asm__ volatile("ld %0, 0(%1)" : "=r"(after) : "r"(a) : "memory");
		p->out[2 * (t * p->n + i)] = before;
		p->out[2 * (t * p->n + i) + 1] = after;
	}
}

/* A doubleword that every lane stores at the same offset p->in[0] of its
 * window (a register spill), then the doubleword after it: loaded (what it
 * finds) and stored; then, lane by lane, a doubleword 16 or 24 bytes on
 * (by t's parity), in the same 64 bytes: loaded and stored; then the first
 * two loaded back. */
KERNEL(k_local_spill)
{
	uint32_t t = gtid();
	uint64_t a = SIMTGPU_LOCAL_BASE + p->in[0], next, own, mine, mine_next;
	uint64_t b = a + 16 + 8 * (t & 1);
	uint64_t v = (uint64_t)t << 32 | 1;
	__asm__ volatile("sd %0, 0(%1)" : : "r"(v), "r"(a) : "memory");
	__asm__ volatile("ld %0, 8(%1)" : "=r"(next) : "r"(a) : "memory");
	__asm__ volatile("sd %0, 8(%1)" : : "r"(v + 1), "r"(a) : "memory");
	__asm__ volatile("ld %0, 0(%1)" : "=r"(own) : "r"(b) : "memory");
	__asm__ volatile("sd %0, 0(%1)" : : "r"(v + 2), "r"(b) : "memory");
	__asm__ volatile("ld %0, 0(%1)" : "=r"(mine) : "r"(a) : "memory");
	__asm__ volatile("ld %0, 8(%1)" : "=r"(mine_next) : "r"(a) : "memory");
	p->out[4 * t] = next;
	p->out[4 * t + 1] = own;
	p->out[4 * t + 2] = mine;
	p->out[4 * t + 3] = mine_next;
}

/* Lanes' local memory stays apart (it is interleaved by word on the host):
 * each thread stores bytes 0..23 at a per-thread shift s = t % 7 of its
 * window, then a misaligned halfword at s + 3 and word at s + 9, and loads
 * doublewords at s, s + 8 and s + 16 (misaligned unless s is 0). */
KERNEL(k_local_lanes)
{
	uint32_t t = gtid();
	uint64_t a = SIMTGPU_LOCAL_BASE + t % 7, v;
	for (uint64_t i = 0; i < 24; ++i) {
		v = (t * 31 + i) & 0xff;
		__asm__ volatile("sb %0, 0(%1)" : : "r"(v), "r"(a + i) : "memory");
	}
	v = t ^ 0xbeef;
	__asm__ volatile("sh %0, 3(%1)" : : "r"(v), "r"(a) : "memory");
	v = t * 0x01010101u;
	__asm__ volatile("sw %0, 9(%1)" : : "r"(v), "r"(a) : "memory");
	for (uint64_t k = 0; k < 3; ++k) {
		__asm__ volatile("ld %0, 0(%1)" : "=r"(v) : "r"(a + 8 * k) : "memory");
		p->out[3 * t + k] = v;
	}
}

/* Warp loads and stores of every kind at base + offset + lane * stride, the
 * base in global memory (p->in for loads, p->counter for stores) or in
 * shared memory (staged from and copied back to those): contiguous,
 * strided, misaligned, across a page, for part of a warp. p->arg: stride
 * (bits 0-7), offset (8-19), bit 20: only threads with t % 3 != 0 take part,
 * bit 21: shared memory. out[16t + k]: what load k read (lb, lbu, lh, lhu,
 * lw, lwu, ld, flw, fld); store k (sb, sh, sw, sd, fsw, fsd) writes
 * 0x0123456789abcdef * (t + 1 + k) to area k (ACCESS_AREA bytes each). */
#define ACCESS_AREA 0x1400
#define ACCESS_LOAD(insn, a)                                                          \
	({                                                                             \
		uint64_t v_;                                                           \
		__asm__ volatile(insn " %0, 0(%1)" : "=r"(v_) : "r"(a) : "memory");   \
		v_;                                                                    \
	})
#define ACCESS_STORE(insn, v, a) __asm__ volatile(insn " %0, 0(%1)" : : "r"(v), "r"(a) : "memory")

static inline uint64_t access_flw(const uint8_t *a)
{
	float f;
	uint32_t bits;
	__asm__ volatile("flw %0, 0(%1)" : "=f"(f) : "r"(a) : "memory");
	__asm__ volatile("fmv.x.w %0, %1" : "=r"(bits) : "f"(f));
	return bits;
}

static inline uint64_t access_fld(const uint8_t *a)
{
	double d;
	uint64_t bits;
	__asm__ volatile("fld %0, 0(%1)" : "=f"(d) : "r"(a) : "memory");
	__asm__ volatile("fmv.x.d %0, %1" : "=r"(bits) : "f"(d));
	return bits;
}

static inline void access_fsw(uint64_t v, uint8_t *a)
{
	float f;
	__asm__ volatile("fmv.w.x %0, %1" : "=f"(f) : "r"(v));
	__asm__ volatile("fsw %0, 0(%1)" : : "f"(f), "r"(a) : "memory");
}

static inline void access_fsd(uint64_t v, uint8_t *a)
{
	double d;
	__asm__ volatile("fmv.d.x %0, %1" : "=f"(d) : "r"(v));
	__asm__ volatile("fsd %0, 0(%1)" : : "f"(d), "r"(a) : "memory");
}

KERNEL(k_warp_accesses)
{
	uint32_t t = simt_tid_x(), n = (uint32_t)simt_ntid_x();
	uint64_t stride = p->arg & 0xff, offset = p->arg >> 8 & 0xfff;
	int takes_part = !(p->arg >> 20 & 1) || t % 3 != 0;
	int in_shared = p->arg >> 21 & 1;
	uint8_t *in = (uint8_t *)p->in, *stores = (uint8_t *)p->counter;
	if (in_shared) {
		volatile uint8_t *s = SIMT_SHARED(volatile uint8_t);
		for (uint32_t i = t; i < 7 * ACCESS_AREA; i += n)
			s[i] = i < ACCESS_AREA ? in[i] : 0;
		in = (uint8_t *)s;
		stores = (uint8_t *)s + ACCESS_AREA;
		simt_bar_sync();
	}
	if (takes_part) {
		const uint8_t *a = in + offset + t * stride;
		uint8_t *d = stores + offset + t * stride;
		uint64_t *o = p->out + 16 * t;
		o[0] = ACCESS_LOAD("lb", a);
		o[1] = ACCESS_LOAD("lbu", a);
		o[2] = ACCESS_LOAD("lh", a);
		o[3] = ACCESS_LOAD("lhu", a);
		o[4] = ACCESS_LOAD("lw", a);
		o[5] = ACCESS_LOAD("lwu", a);
		o[6] = ACCESS_LOAD("ld", a);
		o[7] = access_flw(a);
		o[8] = access_fld(a);
		const uint64_t v = 0x0123456789abcdefull;
		ACCESS_STORE("sb", v * (t + 1), d);
		ACCESS_STORE("sh", v * (t + 2), d + ACCESS_AREA);
		ACCESS_STORE("sw", v * (t + 3), d + 2 * ACCESS_AREA);
		ACCESS_STORE("sd", v * (t + 4), d + 3 * ACCESS_AREA);
		access_fsw(v * (t + 5), d + 4 * ACCESS_AREA);
		access_fsd(v * (t + 6), d + 5 * ACCESS_AREA);
	}
	if (in_shared) {
		simt_bar_sync();
		volatile uint8_t *s = (volatile uint8_t *)stores;
		for (uint32_t i = t; i < 6 * ACCESS_AREA; i += n)
			((uint8_t *)p->counter)[i] = s[i];
	}
}

/* Identity CSRs for a 3-D grid and block. */
KERNEL(k_csrs)
{
	uint32_t lin = (uint32_t)(simt_thread_linear() +
				  simt_cta_threads() *
					  (simt_ctaid_x() +
					   simt_nctaid_x() * (simt_ctaid_y() + simt_nctaid_y() * simt_ctaid_z())));
	uint64_t *o = p->out + 16 * lin;
	o[0] = simt_tid_x();
	o[1] = simt_tid_y();
	o[2] = simt_tid_z();
	o[3] = simt_ntid_x() | simt_ntid_y() << 16 | simt_ntid_z() << 32;
	o[4] = simt_ctaid_x();
	o[5] = simt_ctaid_y();
	o[6] = simt_ctaid_z();
	o[7] = simt_nctaid_x() | simt_nctaid_y() << 16 | simt_nctaid_z() << 32;
	o[8] = simt_laneid();
	o[9] = simt_warpid();
	o[10] = simt_warpsize();
	o[11] = simt_lanemask_lt();
	o[12] = simt_envptr();
	o[13] = simt_dynshared();
	o[14] = simt_gridid();
	o[15] = simt_smid() | simt_nsmid() << 16;
}

/* Clock: two reads around a dependent chain of global loads. */
KERNEL(k_clock)
{
	uint64_t c0 = simt_clock();
	volatile uint64_t *q = p->in;
	uint64_t s = 0;
	for (int i = 0; i < 10; ++i)
		s += q[i];
	uint64_t c1 = simt_clock();
	if (simt_tid_x() == 0) {
		p->out[0] = c1 - c0;
		p->out[1] = s;
		p->out[2] = simt_globaltimer();
	}
}

/* The ELF entry: tests name their kernel symbol instead. */
__attribute__((noreturn)) void _start(void)
{
	simt_trap();
}

/* A function the kernel below rewrites: returns 1, then 2. */
__asm__(".text\n"
	".globl patchme\n"
	".option push\n"
	".option norvc\n"
	"patchme:\n"
	"	addi a0, zero, 1\n"
	"	ret\n"
	".option pop\n");
uint64_t patchme(void);

/* Self-modifying code: a store to decoded code, with or without fence.i. */
KERNEL(k_selfmod)
{
	uint64_t before = patchme();
	*(volatile uint32_t *)(uintptr_t)patchme = 0x00200513u; /* addi a0, zero, 2 */
	if (p->arg)
		__asm__ volatile("fence.i" ::: "memory");
	p->out[0] = before;
	p->out[1] = patchme();
}

/* The same function, its 4-byte instruction straddling two pages. */
__asm__(".pushsection .text.straddle, \"ax\", @progbits\n"
	".balign 4096\n"
	".skip 4094\n"
	".globl straddle_patchme\n"
	".option push\n"
	".option norvc\n"
	"straddle_patchme:\n"
	"	addi a0, zero, 1\n"
	"	ret\n"
	".option pop\n"
	".popsection\n");
uint64_t straddle_patchme(void);

/* A store into the second page only: the upper half of addi a0, zero, 2. */
KERNEL(k_selfmod_straddle)
{
	uint64_t before = straddle_patchme();
	*(volatile uint16_t *)((uintptr_t)straddle_patchme + 2) = 0x0020;
	if (p->arg)
		__asm__ volatile("fence.i" ::: "memory");
	p->out[0] = before;
	p->out[1] = straddle_patchme();
}

/* Half the warp loops far longer than the other half (long enough for the
 * starvation guard to let the short half run ahead); warp.sync then brings
 * the warp together for a full-warp shuffle, as CUDA's __shfl_sync needs. */
KERNEL(k_long_divergence)
{
	uint32_t t = simt_tid_x();
	volatile uint64_t *q = p->in;
	uint64_t v = t;
	uint32_t trips = t < 16 ? 300 : 3;
	for (uint32_t i = 0; i < trips; ++i)
		v = v * 3 + q[i % 8];
	simt_warp_sync(SIMT_FULL_MASK);
	uint64_t other = simt_shfl_idx_warp(v, 31 - (uint32_t)simt_laneid());
	uint64_t mask = simt_activemask();
	p->out[t] = other;
	p->out[32 + t] = mask;
}

/* Each lane loops for the Collatz step count of its thread index, then the
 * warp votes on (steps odd) and shuffles steps with lane ^ 1. The loop is in
 * assembly so that its layout is fixed: COLLATZ_EXIT_ABOVE puts the votes
 * at a lower PC than the loop body (lanes leaving the loop early reach them
 * first under min-PC), COLLATZ_EXIT_BELOW after it. out[5t..5t+4]: steps,
 * ballot, any, all, shuffled steps. */
#define COLLATZ_STEP(exit_label)                                             \
	"	li t1, 1\n"                                                  \
	"	bleu %[n], t1, " exit_label "\n"                              \
	"	andi t1, %[n], 1\n"                                          \
	"	beqz t1, 4f\n"                                               \
	"	slli t1, %[n], 1\n"                                          \
	"	add %[n], %[n], t1\n"                                        \
	"	addi %[n], %[n], 1\n"                                        \
	"	j 5f\n"                                                      \
	"4:	srli %[n], %[n], 1\n"                                        \
	"5:	addi %[steps], %[steps], 1\n"                                \
	"	j 1b\n"
#define COLLATZ_VOTES                                                        \
	"2:	andi t0, %[steps], 1\n"                                      \
	"	.insn r 0x0b, 1, 0, %[ballot], t0, %[mask]\n"                \
	"	.insn r 0x0b, 1, 1, %[any], t0, %[mask]\n"                   \
	"	.insn r 0x0b, 1, 2, %[all], t0, %[mask]\n"                   \
	"	.insn r4 0x0b, 2, 3, %[shfl], %[steps], %[one], %[c]\n"
#define COLLATZ_OPERANDS                                                     \
	: [n] "+r"(n), [steps] "=&r"(steps), [ballot] "=&r"(ballot),         \
	  [any] "=&r"(any), [all] "=&r"(all), [shfl] "=&r"(shfl)             \
	: [mask] "r"(SIMT_FULL_MASK), [one] "r"(1ul),                        \
	  [c] "r"((uint64_t)simt_warpsize() - 1)                             \
	: "t0", "t1", "memory"

static void collatz_out(const struct params *p, uint64_t steps, uint64_t ballot,
			uint64_t any, uint64_t all, uint64_t shfl)
{
	uint32_t t = gtid();
	p->out[5 * t] = steps;
	p->out[5 * t + 1] = ballot;
	p->out[5 * t + 2] = any;
	p->out[5 * t + 3] = all;
	p->out[5 * t + 4] = shfl;
}

KERNEL(k_collatz_exit_above)
{
	uint64_t n = gtid() + p->arg, steps, ballot, any, all, shfl;
	__asm__ volatile("	li %[steps], 0\n"
			 "	j 1f\n"
			 COLLATZ_VOTES
			 "	j 3f\n"
			 "1:\n"
			 COLLATZ_STEP("2b")
			 "3:\n"
			 COLLATZ_OPERANDS);
	collatz_out(p, steps, ballot, any, all, shfl);
}

KERNEL(k_collatz_exit_below)
{
	uint64_t n = gtid() + p->arg, steps, ballot, any, all, shfl;
	__asm__ volatile("	li %[steps], 0\n"
			 "1:\n"
			 COLLATZ_STEP("2f")
			 COLLATZ_VOTES
			 COLLATZ_OPERANDS);
	collatz_out(p, steps, ballot, any, all, shfl);
}

/* Lanes 0..15 vote while lanes 16..31 wait at the CTA barrier: the vote
 * needs lanes that wait elsewhere, which is a deadlock, not a hang. */
KERNEL(k_vote_deadlock)
{
	uint32_t t = simt_tid_x();
	if (t < 16)
		p->out[t] = simt_ballot(SIMT_FULL_MASK, 1);
	else
		simt_bar_sync();
}

/* p->arg acquisitions per thread of a global spin lock taken with amoswap;
 * counter[1] counts them (a plain read-modify-write under the lock). A
 * scheduler that never gives the holder's warp an issue slot livelocks. */
KERNEL(k_spin_lock)
{
	volatile uint32_t *lock = (volatile uint32_t *)p->counter;
	volatile uint64_t *acquired = p->counter + 1;
	for (uint64_t i = 0; i < p->arg; ++i) {
		uint32_t held;
		do
			__asm__ volatile("amoswap.w.aq %0, %1, (%2)"
					 : "=r"(held)
					 : "r"(1), "r"(lock)
					 : "memory");
		while (held);
		*acquired = *acquired + 1;
		__asm__ volatile("amoswap.w.rl x0, x0, (%0)" ::"r"(lock) : "memory");
	}
}

/* p->arg iterations of register-only work, then the SM clock: when each
 * warp finished shows the order in which the scheduler issued the warps. */
KERNEL(k_issue_order)
{
	uint64_t v = simt_tid_x();
	for (uint64_t i = 0; i < p->arg; ++i)
		v = v * 6364136223846793005ull + 1442695040888963407ull;
	uint64_t done = simt_clock();
	p->out[2 * simt_tid_x()] = done;
	p->out[2 * simt_tid_x() + 1] = v;
}

/* match.any/match.all over the full warp and over the even lanes, on keys
 * that differ only in their upper 32 bits for some lanes: out[4t..4t+3]. */
KERNEL(k_match)
{
	uint32_t t = simt_tid_x();
	uint64_t key = p->in[t];
	uint64_t *o = p->out + 4 * t;
	o[0] = simt_match_any(SIMT_FULL_MASK, key);
	o[1] = simt_match_all(SIMT_FULL_MASK, key);
	if (t % 2 == 0) {
		o[2] = simt_match_any(0x5555555555555555ull, key);
		o[3] = simt_match_all(0x5555555555555555ull, key >> 40);
	}
}

/* match.any after divergence: the two halves of the warp reach the match
 * from different branches and must still wait for each other. */
KERNEL(k_match_divergent)
{
	uint32_t t = simt_tid_x();
	uint64_t key = p->in[t], v = 0;
	if (t % 32 < 13) {
		for (uint32_t i = 0; i < t % 7; ++i)
			v += i;
		p->out[2 * t] = simt_match_any(SIMT_FULL_MASK, key);
	} else {
		v = t;
		p->out[2 * t] = simt_match_any(SIMT_FULL_MASK, key);
	}
	p->out[2 * t + 1] = v;
}

/* redux.* over the full warp (out[10t..10t+7]) and add/minu over the lanes
 * below arg, waiting for them from a divergent branch (out[10t+8..9]). */
KERNEL(k_redux)
{
	uint32_t t = simt_tid_x();
	uint64_t v = p->in[t];
	uint64_t *o = p->out + 10 * t;
	o[0] = simt_redux_add(SIMT_FULL_MASK, v);
	o[1] = simt_redux_and(SIMT_FULL_MASK, v);
	o[2] = simt_redux_or(SIMT_FULL_MASK, v);
	o[3] = simt_redux_xor(SIMT_FULL_MASK, v);
	o[4] = simt_redux_min(SIMT_FULL_MASK, v);
	o[5] = simt_redux_max(SIMT_FULL_MASK, v);
	o[6] = simt_redux_minu(SIMT_FULL_MASK, v);
	o[7] = simt_redux_maxu(SIMT_FULL_MASK, v);
	uint32_t lane = simt_laneid();
	if (lane < p->arg) {
		uint64_t below = lane >= 64 ? SIMT_FULL_MASK : (1ull << p->arg) - 1;
		if (lane & 1) {
			o[8] = simt_redux_add(below, v);
			o[9] = simt_redux_minu(below, v);
		} else {
			uint64_t sum = simt_redux_add(below, v);
			o[9] = simt_redux_minu(below, v + sum - sum);
			o[8] = sum;
		}
	}
}

/* Named barriers, producer and consumer: warps 0 and 1 fill shared memory,
 * bar.arrive(1, 128) and go on (meeting at barrier 2 among themselves);
 * warps 2 and 3 bar.sync(1, 128) and then read what the producers wrote. The
 * block ends with bar.sync 0 for everyone. */
KERNEL(k_named_barrier)
{
	uint32_t t = simt_tid_x();
	volatile uint64_t *shared = (volatile uint64_t *)SIMTGPU_SHARED_BASE;
	if (t < 64) {
		shared[t] = t * 5 + 1;
		simt_bar_arrive(1, 128);
		shared[64 + t] = t + 7;
		simt_bar_sync_n(2, 64);
		p->out[t] = shared[64 + (t ^ 1)];
	} else {
		simt_bar_sync_n(1, 128);
		p->out[t] = shared[t - 64];
	}
	simt_bar_sync();
	p->out[128 + t] = shared[64 + (t % 64)];
}

/* bar.sync with the id and count of the params (arg: id, n: count). */
KERNEL(k_bar_sync_n)
{
	simt_bar_sync_n(p->arg, p->n);
	p->out[simt_tid_x()] = 1;
}

/* bar.arrive without a count. */
KERNEL(k_bar_arrive_all)
{
	simt_bar_arrive(3, 0);
	p->out[simt_tid_x()] = 1;
}

/* A named barrier of 32 threads taken by the 16-thread last warp of a block
 * of 48 (its missing lanes count), while warp 0 waits at barrier 1 with a
 * count of 32; then every thread at barrier 0. */
KERNEL(k_bar_partial_warp)
{
	uint32_t t = simt_tid_x();
	if (t >= 32)
		simt_bar_sync_n(3, 32);
	else
		simt_bar_sync_n(1, 32);
	simt_bar_sync();
	p->out[t] = t + 1;
}

/* Named barrier 5 for 64 threads, some of which exit first: once every
 * live thread waits there it completes. */
KERNEL(k_bar_named_exit)
{
	uint32_t t = simt_tid_x();
	if (t % 4 == 3)
		simt_exit(0);
	simt_bar_sync_n(5, 64);
	p->out[t] = t;
}

/* Barrier 4 with a count of 64 from warp 0 and of 96 from warp 1. */
KERNEL(k_bar_count_mismatch)
{
	uint32_t t = simt_tid_x();
	simt_bar_sync_n(4, t < 32 ? 64 : 96);
	p->out[t] = 1;
}
