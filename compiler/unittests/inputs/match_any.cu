// __match32_any_sync (CUDA's __match_any_sync) has no simtgpu instruction: simtcc must refuse it.
__global__ void groups(const int *keys, unsigned *out)
{
	out[threadIdx.x] = __match32_any_sync(0xffffffffu, keys[threadIdx.x]);
}
