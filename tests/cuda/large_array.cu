// SPDX-License-Identifier: MIT
// An array of 2^27 floats (512 MiB), the size public benchmarks use, on a
// device with a real GPU's VRAM: a scale and offset over all of it with a
// grid-stride loop, checked element by element on the host.
#include "test_util.h"

#include <cstddef>

__global__ void scale_offset(float *a, size_t n, float scale, float offset)
{
	for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
	     i += size_t(gridDim.x) * blockDim.x)
		a[i] = a[i] * scale + offset;
}

int main()
{
	const size_t n = size_t(1) << 27;
	float *a = new float[n];
	for (size_t i = 0; i < n; ++i)
		a[i] = float(i & 0xffff);
	float *da;
	CHECK_CUDA(cudaMalloc(&da, n * sizeof(float)));
	CHECK_CUDA(cudaMemcpy(da, a, n * sizeof(float), cudaMemcpyHostToDevice));
	scale_offset<<<1024, 256>>>(da, n, 2.0f, 1.0f);
	CHECK_LAUNCH();
	CHECK_CUDA(cudaMemcpy(a, da, n * sizeof(float), cudaMemcpyDeviceToHost));
	bool ok = true;
	for (size_t i = 0; i < n; ++i)
		ok &= a[i] == float(i & 0xffff) * 2.0f + 1.0f;
	CHECK_CUDA(cudaFree(da));
	delete[] a;
	return report("large_array", ok);
}
