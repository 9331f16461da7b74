// SPDX-License-Identifier: MIT
// A thousand launches queued on one stream before a synchronise: the
// driver's ring wraps five times (84-byte jobs in 16 KiB), each time with a
// one-dword pad at its end, which once let a job run off the end of the
// in-process driver's ring (a bad SET_CONTEXT packet after 195 launches).
// Every launch must run, in order.
#include "test_util.h"

__global__ void add_one(float *x)
{
	x[threadIdx.x] += 1.0f;
}

int main()
{
	const int launches = 1000, threads = 32;
	float *d, h[threads];
	cudaStream_t s;
	CHECK_CUDA(cudaMalloc(&d, sizeof h));
	CHECK_CUDA(cudaMemset(d, 0, sizeof h));
	CHECK_CUDA(cudaStreamCreate(&s));
	for (int i = 0; i < launches; ++i)
		add_one<<<1, threads, 0, s>>>(d);
	CHECK_CUDA(cudaGetLastError());
	CHECK_CUDA(cudaStreamSynchronize(s));
	CHECK_CUDA(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
	bool ok = true;
	for (int t = 0; t < threads; ++t)
		ok &= h[t] == float(launches);
	if (!ok)
		std::printf("x[0] = %f after %d launches\n", h[0], launches);
	return report("many_launches", ok);
}
