/* Device kernels of the simulator benchmark (bench/sim_bench.cpp). */
#include "simtgpu/device/simt.h"

struct vecadd_params {
	const float *a, *b;
	float *c;
	uint64_t n;
};

/* c = a + b, grid-stride loop. */
__attribute__((noreturn)) void vecadd(const struct vecadd_params *p)
{
	uint64_t stride = simt_nctaid_x() * simt_ntid_x();
	for (uint64_t i = simt_ctaid_x() * simt_ntid_x() + simt_tid_x(); i < p->n; i += stride)
		p->c[i] = p->a[i] + p->b[i];
	simt_exit(0);
}

#define TILE 16

struct matmul_params {
	const float *a, *b; /* n x n, row-major */
	float *c;
	uint64_t n; /* multiple of TILE */
};

/* c = a * b with TILE x TILE blocks staged in shared memory. */
__attribute__((noreturn)) void matmul(const struct matmul_params *p)
{
	float (*as)[TILE] = (float (*)[TILE])SIMT_SHARED(float);
	float (*bs)[TILE] = as + TILE;
	uint32_t tx = (uint32_t)simt_tid_x(), ty = (uint32_t)simt_tid_y();
	uint32_t n = (uint32_t)p->n;
	uint32_t row = (uint32_t)simt_ctaid_y() * TILE + ty;
	uint32_t col = (uint32_t)simt_ctaid_x() * TILE + tx;
	float acc = 0.0f;
	for (uint32_t k0 = 0; k0 < n; k0 += TILE) {
		as[ty][tx] = p->a[row * n + k0 + tx];
		bs[ty][tx] = p->b[(k0 + ty) * n + col];
		simt_bar_sync();
		for (uint32_t k = 0; k < TILE; ++k)
			acc += as[ty][k] * bs[k][tx];
		simt_bar_sync();
	}
	p->c[row * n + col] = acc;
	simt_exit(0);
}

struct reduce_params {
	const uint32_t *in;
	uint64_t n;
	uint64_t *sum;
};

/* Sum: grid-stride partial sums, a shared-memory tree, warp shuffles, one
 * atomic add per CTA. */
__attribute__((noreturn)) void reduce(const struct reduce_params *p)
{
	uint64_t *s = SIMT_SHARED(uint64_t);
	uint32_t t = (uint32_t)simt_tid_x(), nt = (uint32_t)simt_ntid_x();
	uint64_t stride = simt_nctaid_x() * nt, v = 0;
	for (uint64_t i = simt_ctaid_x() * nt + t; i < p->n; i += stride)
		v += p->in[i];
	s[t] = v;
	simt_bar_sync();
	for (uint32_t half = nt / 2; half >= 32; half /= 2) {
		if (t < half)
			s[t] += s[t + half];
		simt_bar_sync();
	}
	if (t < 32) {
		v = s[t];
		for (uint32_t d = 16; d > 0; d /= 2)
			v += simt_shfl_down_warp(v, d);
		if (t == 0)
			__atomic_fetch_add(p->sum, v, __ATOMIC_RELAXED);
	}
	simt_exit(0);
}

struct collatz_params {
	const uint32_t *in;
	uint32_t *steps;
	uint64_t n;
};

/* Collatz steps per element: a per-lane trip count and a data-dependent
 * branch inside the loop (a divergent kernel). */
__attribute__((noreturn)) void collatz(const struct collatz_params *p)
{
	uint64_t i = simt_ctaid_x() * simt_ntid_x() + simt_tid_x();
	if (i < p->n) {
		uint64_t x = p->in[i];
		uint32_t steps = 0;
		while (x != 1) {
			if (x & 1)
				x = 3 * x + 1;
			else
				x >>= 1;
			++steps;
		}
		p->steps[i] = steps;
	}
	simt_exit(0);
}

/* The ELF entry: the benchmark names its kernel symbol instead. */
__attribute__((noreturn)) void _start(void)
{
	simt_trap();
}
