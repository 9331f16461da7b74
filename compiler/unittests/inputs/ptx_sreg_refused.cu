__global__ void k(unsigned *out)
{
	unsigned mask;
	asm("mov.u32 %0, %total_smem_size;" : "=r"(mask));
	*out = mask;
}
