__global__ void k(unsigned *out)
{
	unsigned mask;
	asm("mov.u32 %0, %lanemask_eq;" : "=r"(mask));
	*out = mask;
}
