// SPDX-License-Identifier: MIT
// A program that returns 0 from main without cleaning up: streams
// (blocking, non-blocking, prioritised), events, device and pinned memory all
// still alive, and work still queued (kernels that print, async copies, a
// memset, a cross-stream event wait). The runtime's exit-time shutdown must
// finish that work, print its device printf after the host's line, free
// everything, and leave the exit status 0 (exit_failed_check.cu: status 1).
// expect-output: ^exit_live_work: PASS$
// expect-output: ^exit_live_work: kernel on stream 0 finished$
// expect-output: ^exit_live_work: kernel on stream 1 finished$
// expect-output: ^exit_live_work: kernel on stream 2 finished$
// expect-output: ^exit_live_work: kernel on stream 3 finished$
#include "test_util.h"

constexpr int kThreads = 256;

// Long enough to still be running when main returns.
__global__ void spin_and_add(int *data, int stream_index, int rounds)
{
	int value = data[threadIdx.x];
	for (int i = 0; i < rounds; ++i)
		value = value * 3 + i;
	data[threadIdx.x] = value;
	__syncthreads();
	if (threadIdx.x == 0)
		printf("exit_live_work: kernel on stream %d finished\n", stream_index);
}

int main()
{
	const size_t bytes = kThreads * sizeof(int);

	cudaStream_t blocking, non_blocking, urgent;
	CHECK_CUDA(cudaStreamCreate(&blocking));
	CHECK_CUDA(cudaStreamCreateWithFlags(&non_blocking, cudaStreamNonBlocking));
	int least, greatest;
	CHECK_CUDA(cudaDeviceGetStreamPriorityRange(&least, &greatest));
	CHECK_CUDA(cudaStreamCreateWithPriority(&urgent, cudaStreamDefault, greatest));
	cudaEvent_t copied, done, never_recorded;
	CHECK_CUDA(cudaEventCreate(&copied));
	CHECK_CUDA(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
	CHECK_CUDA(cudaEventCreate(&never_recorded));

	int *pinned_in, *pinned_out, *device_a, *device_b;
	CHECK_CUDA(cudaMallocHost(&pinned_in, bytes));
	CHECK_CUDA(cudaHostAlloc(&pinned_out, bytes, cudaHostAllocDefault));
	CHECK_CUDA(cudaMalloc(&device_a, bytes));
	CHECK_CUDA(cudaMalloc(&device_b, bytes));
	for (int i = 0; i < kThreads; ++i)
		pinned_in[i] = i;

	// Queued, never waited for.
	CHECK_CUDA(cudaMemcpyAsync(device_a, pinned_in, bytes, cudaMemcpyHostToDevice, blocking));
	CHECK_CUDA(cudaEventRecord(copied, blocking));
	spin_and_add<<<1, kThreads, 0, blocking>>>(device_a, 1, 2000);
	CHECK_CUDA(cudaMemsetAsync(device_b, 0, bytes, non_blocking));
	CHECK_CUDA(cudaStreamWaitEvent(non_blocking, copied, 0));
	// Before the kernel: on the render node pinned memory is staged, and a copy
	// into it waits for its stream (which would print the kernel's line early).
	CHECK_CUDA(cudaMemcpyAsync(pinned_out, device_b, bytes, cudaMemcpyDeviceToHost, non_blocking));
	spin_and_add<<<1, kThreads, 0, non_blocking>>>(device_b, 2, 2000);
	CHECK_CUDA(cudaEventRecord(done, non_blocking));
	spin_and_add<<<1, kThreads, 0, urgent>>>(device_a, 3, 10);
	spin_and_add<<<1, kThreads>>>(device_b, 0, 10); // the legacy default stream
	CHECK_CUDA(cudaGetLastError());

	return report("exit_live_work", true);
}
