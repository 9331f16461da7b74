// SPDX-License-Identifier: MIT
// atomicAdd on float and double (global and shared) and atomicExch on
// float. Values are small multiples of powers of two, so every order of
// additions gives the same exact sum.
#include "test_util.h"

__global__ void add(float *fsum, double *dsum, float *shared_out, float *exch)
{
	__shared__ float block_sum;
	if (threadIdx.x == 0)
		block_sum = 0.0f;
	__syncthreads();
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	atomicAdd(fsum, 0.25f * (t % 8));
	atomicAdd(dsum, 0.125 * t);
	atomicAdd(&block_sum, 1.5f);
	__syncthreads();
	if (threadIdx.x == 0)
		shared_out[blockIdx.x] = block_sum;
	atomicExch(exch, 2.0f);
}

int main()
{
	const int blocks = 4, threads = 128, n = blocks * threads;
	float *dfsum, *dshared, *dexch;
	double *ddsum;
	CHECK_CUDA(cudaMalloc(&dfsum, sizeof(float)));
	CHECK_CUDA(cudaMalloc(&ddsum, sizeof(double)));
	CHECK_CUDA(cudaMalloc(&dshared, blocks * sizeof(float)));
	CHECK_CUDA(cudaMalloc(&dexch, sizeof(float)));
	CHECK_CUDA(cudaMemset(dfsum, 0, sizeof(float)));
	CHECK_CUDA(cudaMemset(ddsum, 0, sizeof(double)));
	CHECK_CUDA(cudaMemset(dexch, 0, sizeof(float)));
	add<<<blocks, threads>>>(dfsum, ddsum, dshared, dexch);
	CHECK_LAUNCH();
	float fsum, shared_sums[blocks], exch;
	double dsum;
	CHECK_CUDA(cudaMemcpy(&fsum, dfsum, sizeof(float), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(&dsum, ddsum, sizeof(double), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(shared_sums, dshared, sizeof(shared_sums), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(&exch, dexch, sizeof(float), cudaMemcpyDeviceToHost));
	float fref = 0;
	double dref = 0;
	for (int t = 0; t < n; ++t) {
		fref += 0.25f * (t % 8);
		dref += 0.125 * t;
	}
	bool ok = fsum == fref && dsum == dref && exch == 2.0f;
	for (int b = 0; b < blocks; ++b)
		ok &= shared_sums[b] == 1.5f * threads;
	std::printf("float %g (want %g), double %g (want %g)\n", fsum, fref, dsum, dref);
	return report("atomics_float", ok);
}
