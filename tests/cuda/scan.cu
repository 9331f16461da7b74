// SPDX-License-Identifier: MIT
// Inclusive prefix sum: Hillis-Steele scan per block in shared memory
// (double-buffered), a scan of the block totals, then a uniform add.
#include "test_util.h"

constexpr int kThreads = 256;

__global__ void scan_blocks(const int *in, int *out, int *totals, int n)
{
	__shared__ int buffer[2][kThreads];
	int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
	int current = 0;
	buffer[current][t] = i < n ? in[i] : 0;
	__syncthreads();
	for (int offset = 1; offset < blockDim.x; offset *= 2) {
		int next = 1 - current;
		int v = buffer[current][t];
		if (t >= offset)
			v += buffer[current][t - offset];
		buffer[next][t] = v;
		current = next;
		__syncthreads();
	}
	if (i < n)
		out[i] = buffer[current][t];
	if (totals && t == blockDim.x - 1)
		totals[blockIdx.x] = buffer[current][t];
}

__global__ void add_offsets(int *data, const int *scanned_totals, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (blockIdx.x > 0 && i < n)
		data[i] += scanned_totals[blockIdx.x - 1];
}

int main()
{
	const int n = 30000, blocks = (n + kThreads - 1) / kThreads;
	int *in = new int[n], *out = new int[n];
	Rng rng(5);
	for (int i = 0; i < n; ++i)
		in[i] = rng.range(-20, 50);
	int *din, *dout, *dtotals, *dscanned;
	CHECK_CUDA(cudaMalloc(&din, n * sizeof(int)));
	CHECK_CUDA(cudaMalloc(&dout, n * sizeof(int)));
	CHECK_CUDA(cudaMalloc(&dtotals, blocks * sizeof(int)));
	CHECK_CUDA(cudaMalloc(&dscanned, blocks * sizeof(int)));
	CHECK_CUDA(cudaMemcpy(din, in, n * sizeof(int), cudaMemcpyHostToDevice));
	scan_blocks<<<blocks, kThreads>>>(din, dout, dtotals, n);
	CHECK_LAUNCH();
	scan_blocks<<<1, kThreads>>>(dtotals, dscanned, nullptr, blocks); // blocks <= kThreads
	CHECK_LAUNCH();
	add_offsets<<<blocks, kThreads>>>(dout, dscanned, n);
	CHECK_LAUNCH();
	CHECK_CUDA(cudaMemcpy(out, dout, n * sizeof(int), cudaMemcpyDeviceToHost));
	bool ok = true;
	int running = 0;
	for (int i = 0; i < n; ++i) {
		running += in[i];
		ok &= out[i] == running;
	}
	return report("scan", ok);
}
