// SPDX-License-Identifier: MIT
// A program whose check fails and which returns 1 from main at once, leaving
// streams, an event and memory alive, a kernel that prints still queued and
// an illegal address still pending: the runtime's exit-time shutdown meets a
// sticky fault after a failed call. The exit status must stay the program's
// own 1, and the queued kernel's printf must still appear, after the host's
// line (exit_live_work.cu: status 0).
// expect-exit-status: 1
// expect-output: ^exit_failed_check: check failed: cudaErrorInvalidValue$
// expect-output: ^exit_failed_check: kernel finished$
#include "test_util.h"

constexpr int kThreads = 64;

__global__ void spin_and_print(int *data, int rounds)
{
	int value = threadIdx.x;
	for (int i = 0; i < rounds; ++i)
		value = value * 5 + i;
	data[threadIdx.x] = value;
	__syncthreads();
	if (threadIdx.x == 0)
		printf("exit_failed_check: kernel finished\n");
}

__global__ void store_to(int *address) { *address = 1; }

int main()
{
	const size_t bytes = kThreads * sizeof(int);
	cudaStream_t work, faulting;
	CHECK_CUDA(cudaStreamCreate(&work));
	CHECK_CUDA(cudaStreamCreateWithFlags(&faulting, cudaStreamNonBlocking));
	cudaEvent_t event;
	CHECK_CUDA(cudaEventCreate(&event));
	int *device, *pinned;
	CHECK_CUDA(cudaMalloc(&device, bytes));
	CHECK_CUDA(cudaMallocHost(&pinned, bytes));

	// The copy first: on the render node a copy into (staged) pinned memory
	// waits for its stream, and the kernel is to be still queued at exit.
	CHECK_CUDA(cudaMemcpyAsync(pinned, device, bytes, cudaMemcpyDeviceToHost, work));
	spin_and_print<<<1, kThreads, 0, work>>>(device, 2000);
	CHECK_CUDA(cudaEventRecord(event, work));
	store_to<<<1, 1, 0, faulting>>>(reinterpret_cast<int *>(0x1000)); // never mapped

	// The failed check: the copy overruns the allocation.
	cudaError_t overrun = cudaMemcpy(device + 1, pinned, bytes, cudaMemcpyHostToDevice);
	if (overrun != cudaSuccess) {
		std::printf("exit_failed_check: check failed: %s\n", cudaGetErrorName(overrun));
		return 1;
	}
	std::printf("exit_failed_check: FAIL: an overrunning copy succeeded\n");
	return 2;
}
