// SPDX-License-Identifier: MIT
// SIMD video statements simtcc does not map (-DFORM=1, 2, 3): a lane
// selector, a secondary operation other than .add, a vset without its
// comparison.
__global__ void k(unsigned *out, unsigned a, unsigned b)
{
	unsigned r;
#if FORM == 1
	asm("vadd2.u32.u32.u32 %0, %1.h1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(0u));
#elif FORM == 2
	asm("vmax4.u32.u32.u32.min %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(0u));
#else
	asm("vset2.u32.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(0u));
#endif
	*out = r;
}
