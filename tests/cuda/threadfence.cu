// SPDX-License-Identifier: MIT
// The "last block" pattern of NVIDIA's threadFenceReduction sample: each
// block writes its partial sum, __threadfence() makes it visible, and the
// block that takes the last ticket (atomicInc) sums the partials. Also
// __threadfence_block between shared-memory phases.
#include "test_util.h"

__device__ unsigned int tickets;

__global__ void sum_all(const int *in, volatile int *partials, int *total, int n)
{
	__shared__ int block_sum;
	__shared__ bool last;
	if (threadIdx.x == 0)
		block_sum = 0;
	__syncthreads();
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	atomicAdd(&block_sum, i < n ? in[i] : 0);
	__threadfence_block();
	__syncthreads();
	if (threadIdx.x == 0) {
		partials[blockIdx.x] = block_sum;
		__threadfence();
		unsigned ticket = atomicInc(&tickets, gridDim.x);
		last = ticket == gridDim.x - 1;
	}
	__syncthreads();
	if (last && threadIdx.x == 0) {
		int sum = 0;
		for (unsigned b = 0; b < gridDim.x; ++b)
			sum += partials[b];
		*total = sum;
		tickets = 0;
	}
}

int main()
{
	const int n = 10000, threads = 256, blocks = (n + threads - 1) / threads;
	int *in = new int[n];
	long long ref = 0;
	Rng rng(10);
	for (int i = 0; i < n; ++i) {
		in[i] = rng.range(-300, 300);
		ref += in[i];
	}
	int *din, *dpartials, *dtotal;
	CHECK_CUDA(cudaMalloc(&din, n * sizeof(int)));
	CHECK_CUDA(cudaMalloc(&dpartials, blocks * sizeof(int)));
	CHECK_CUDA(cudaMalloc(&dtotal, sizeof(int)));
	CHECK_CUDA(cudaMemcpy(din, in, n * sizeof(int), cudaMemcpyHostToDevice));
	bool ok = true;
	for (int round = 0; round < 2; ++round) { // the ticket counter resets itself
		CHECK_CUDA(cudaMemset(dtotal, 0, sizeof(int)));
		sum_all<<<blocks, threads>>>(din, dpartials, dtotal, n);
		CHECK_LAUNCH();
		int total = 0;
		CHECK_CUDA(cudaMemcpy(&total, dtotal, sizeof(int), cudaMemcpyDeviceToHost));
		ok &= total == ref;
	}
	return report("threadfence", ok);
}
