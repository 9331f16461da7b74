// SPDX-License-Identifier: MIT
// Device-side assert: a kernel whose asserts hold runs normally; one where
// a thread's assert fails ends with cudaErrorAssert, as in CUDA.
#include <cassert>

#include "test_util.h"

__global__ void check_positive(const int *values, int *out)
{
	int v = values[threadIdx.x];
	assert(v > 0);
	out[threadIdx.x] = v * 2;
}

int main()
{
	int good[32], bad[32], out[32];
	for (int i = 0; i < 32; ++i) {
		good[i] = i + 1;
		bad[i] = i == 17 ? -5 : i + 1;
	}
	int *dvalues, *dout;
	CHECK_CUDA(cudaMalloc(&dvalues, sizeof(good)));
	CHECK_CUDA(cudaMalloc(&dout, sizeof(out)));
	CHECK_CUDA(cudaMemcpy(dvalues, good, sizeof(good), cudaMemcpyHostToDevice));
	check_positive<<<1, 32>>>(dvalues, dout);
	CHECK_LAUNCH();
	CHECK_CUDA(cudaMemcpy(out, dout, sizeof(out), cudaMemcpyDeviceToHost));
	bool ok = true;
	for (int i = 0; i < 32; ++i)
		ok &= out[i] == 2 * good[i];

	CHECK_CUDA(cudaMemcpy(dvalues, bad, sizeof(bad), cudaMemcpyHostToDevice));
	check_positive<<<1, 32>>>(dvalues, dout);
	cudaError_t result = cudaDeviceSynchronize();
	std::printf("failing assert gave: %s\n", cudaGetErrorString(result));
	ok &= result == cudaErrorAssert;
	return report("assert", ok);
}
