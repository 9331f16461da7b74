// SPDX-License-Identifier: MIT
// A front-end error after a single-% special register: its line is the source's.
__global__ void k(unsigned long long *out)
{
	unsigned long long t;
	asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t));
	*out = t;
	*out += undeclared_value;
}
