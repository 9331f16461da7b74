/* Kernels for the timing model's tests (sim/tests/timing_sm_test.cpp), in
 * the style of the GPU-dissection microbenchmarks: a dependent chain timed
 * with the clock CSR at two lengths, so that the difference is n links of
 * pure latency and what the measurement itself costs cancels. a0 points at
 * struct params. */
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

static inline uint64_t *chase(uint64_t *q, uint64_t hops)
{
	for (uint64_t i = 0; i < hops; ++i)
		q = (uint64_t *)*(volatile uint64_t *)q;
	return q;
}

/* The clock CSR is read when the instruction before it issues, not when the
 * values in flight arrive: a branch on the chain's last value first waits for
 * it (never taken). */
#define SYNC(cond)                                                           \
	do {                                                                 \
		if (cond)                                                    \
			out[15] = 1;                                         \
	} while (0)

/* Pointer chasing from p->in (global memory): p->n links to warm the caches,
 * then p->arg and (uint64_t)p->counter links timed, each segment after the
 * one before has arrived: out[0], out[1] their cycles, out[2] where the
 * chase ended. One thread. */
KERNEL(k_chase)
{
	/* Parameters first: a store of SYNC could alias them, so read later
	 * they would be loaded again, inside the timed segments. */
	uint64_t *out = p->out, n1 = p->arg, n2 = (uint64_t)p->counter;
	uint64_t *q = chase(p->in, p->n);
	SYNC(q == 0);
	uint64_t c0 = simt_clock();
	q = chase(q, n1);
	SYNC(q == 0);
	uint64_t c1 = simt_clock();
	q = chase(q, n2);
	SYNC(q == 0);
	uint64_t c2 = simt_clock();
	out[0] = c1 - c0;
	out[1] = c2 - c1;
	out[2] = (uint64_t)q;
}

/* The same through shared memory: a ring of p->n nodes, 8 bytes apart. */
KERNEL(k_chase_shared)
{
	uint64_t *out = p->out, n = p->n, n1 = p->arg, n2 = (uint64_t)p->counter;
	uint64_t *s = SIMT_SHARED(uint64_t);
	for (uint64_t i = 0; i < n; ++i)
		s[i] = (uint64_t)&s[(i + 1) % n];
	uint64_t *q = chase(s, n);
	SYNC(q == 0);
	uint64_t c0 = simt_clock();
	q = chase(q, n1);
	SYNC(q == 0);
	uint64_t c1 = simt_clock();
	q = chase(q, n2);
	SYNC(q == 0);
	uint64_t c2 = simt_clock();
	out[0] = c1 - c0;
	out[1] = c2 - c1;
	out[2] = (uint64_t)q;
}

#define X4(s) s s s s
#define X16(s) X4(X4(s))

static inline uint64_t bits(float f)
{
	union {
		float f;
		uint32_t u;
	} b = {f};
	return b.u;
}

/* One timed segment, all in assembly so that the compiler schedules nothing
 * into it: a branch on the chain's start (ready), clock, the chain, a branch
 * on its result, clock. */
#define FMA_SEGMENT(chain, x, cycles)                                        \
	do {                                                                 \
		uint64_t c0, c1;                                             \
		__asm__ volatile("fmv.x.w %1, %2\n"                          \
				 "beqz %1, 0f\n"                             \
				 "0: csrr %0, 3281\n" chain                  \
				 "fmv.x.w %1, %2\n"                          \
				 "beqz %1, 1f\n"                             \
				 "1: csrr %1, 3281\n"                        \
				 : "=&r"(c0), "=&r"(c1), "+f"(x)             \
				 : "f"(y), "f"(z));                          \
		cycles = c1 - c0;                                            \
	} while (0)
#define ADD_SEGMENT(chain, v, cycles)                                        \
	do {                                                                 \
		uint64_t c0, c1;                                             \
		__asm__ volatile("beqz %2, 0f\n"                             \
				 "0: csrr %0, 3281\n" chain                  \
				 "beqz %2, 1f\n"                             \
				 "1: csrr %1, 3281\n"                        \
				 : "=&r"(c0), "=&r"(c1), "+r"(v)             \
				 : "r"(w));                                  \
		cycles = c1 - c0;                                            \
	} while (0)
#define FMA16(x) X16("fmadd.s %2, %2, %3, %4\n")
#define ADD16(v) X16("add %2, %2, %3\n")

/* Dependent chains of 16 and 32 FMAs, then of 16 and 32 integer adds, each
 * on a register of its own whose inputs are ready before it starts:
 * out[0..3] their cycles, out[4..7] their results. */
KERNEL(k_dependent)
{
	uint64_t *out = p->out;
	float x1 = (float)p->arg, x2 = x1, y = 0.5f, z = 1.0f;
	uint64_t v1 = p->arg, v2 = v1, w = p->n, tmp;
	__asm__ volatile("fmv.x.w %0, %1\n beqz %0, 1f\n1: fmv.x.w %0, %2\n beqz %0, 2f\n"
			 "2: fmv.x.w %0, %3\n beqz %0, 3f\n3: beqz %4, 4f\n4: beqz %5, 5f\n5:"
			 : "=&r"(tmp)
			 : "f"(x1), "f"(y), "f"(z), "r"(v1), "r"(w));
	uint64_t s0, s1, s2, s3;
	FMA_SEGMENT(FMA16(x1), x1, s0);
	FMA_SEGMENT(FMA16(x2) FMA16(x2), x2, s1);
	ADD_SEGMENT(ADD16(v1), v1, s2);
	ADD_SEGMENT(ADD16(v2) ADD16(v2), v2, s3);
	out[0] = s0;
	out[1] = s1;
	out[2] = s2;
	out[3] = s3;
	out[4] = bits(x1);
	out[5] = bits(x2);
	out[6] = v1;
	out[7] = v2;
}

/* A memory-bound kernel with work between loads, for the schedulers: each
 * thread sums p->arg strided elements of p->in (n of them), each times a
 * short dependent computation; out[gtid] the sum. */
KERNEL(k_gather_work)
{
	uint32_t t = (uint32_t)(simt_ctaid_x() * simt_ntid_x() + simt_tid_x());
	uint32_t threads = (uint32_t)(simt_nctaid_x() * simt_ntid_x());
	uint64_t s = 0;
	for (uint64_t i = 0; i < p->arg; ++i) {
		uint64_t v = p->in[(t + i * threads) % p->n];
		for (int k = 0; k < 8; ++k)
			v = v * 3 + (uint64_t)k;
		s += v;
	}
	p->out[t] = s;
}

/* The ELF entry: tests name their kernel symbol instead. */
__attribute__((noreturn)) void _start(void)
{
	simt_trap();
}
