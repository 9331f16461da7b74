// __fns (find n-th set bit) has no simtgpu instruction: simtcc must refuse it.
__global__ void nth(const unsigned *masks, unsigned *out)
{
	out[threadIdx.x] = __fns(masks[threadIdx.x], 0, 3);
}
