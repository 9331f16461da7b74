// SPDX-License-Identifier: MIT
// Warp-synchronous programming with __syncwarp: the last steps of a shared
// memory reduction done by one warp, with __syncwarp between the steps (as
// required under independent thread scheduling).
#include "test_util.h"

__global__ void reduce(const int *in, int *out)
{
	__shared__ int s[64];
	unsigned t = threadIdx.x;
	s[t] = in[blockIdx.x * 64 + t] + in[blockIdx.x * 64 + t + 32];
	__syncwarp();
	for (unsigned offset = 16; offset > 0; offset >>= 1) {
		int v = t < offset ? s[t + offset] : 0;
		__syncwarp();
		if (t < offset)
			s[t] += v;
		__syncwarp();
	}
	if (t == 0)
		out[blockIdx.x] = s[0];
}

int main()
{
	const int blocks = 10, n = blocks * 64;
	int in[n], out[blocks];
	Rng rng(11);
	for (int i = 0; i < n; ++i)
		in[i] = rng.range(-1000, 1000);
	int *din, *dout;
	CHECK_CUDA(cudaMalloc(&din, sizeof(in)));
	CHECK_CUDA(cudaMalloc(&dout, sizeof(out)));
	CHECK_CUDA(cudaMemcpy(din, in, sizeof(in), cudaMemcpyHostToDevice));
	reduce<<<blocks, 32>>>(din, dout);
	CHECK_LAUNCH();
	CHECK_CUDA(cudaMemcpy(out, dout, sizeof(out), cudaMemcpyDeviceToHost));
	bool ok = true;
	for (int b = 0; b < blocks; ++b) {
		int sum = 0;
		for (int i = 0; i < 64; ++i)
			sum += in[b * 64 + i];
		ok &= out[b] == sum;
	}
	return report("syncwarp", ok);
}
