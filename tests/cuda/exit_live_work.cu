// SPDX-License-Identifier: MIT
// A program that ends without cleaning up: streams (blocking, non-blocking,
// prioritised), events, device and pinned memory all still alive, and work
// still queued (kernels that print, async copies, memsets, a cross-stream
// event wait). The runtime's exit-time shutdown must finish that work, print
// its device printf, free everything, and leave the exit status the
// program's own. How it ends is the argument:
//   (none)  returns 0 from main            -> "exit_live_work: PASS", status 0
//   fail    returns 1 from main            -> status 1
//   exit    std::exit(1) from a helper, as CHECK_CUDA does -> status 1
//   fault   also queues an illegal address, returns 1 -> status 1
// The status-1 cases first make a call fail, as the check that failed did.
// In every case each kernel's printf line appears after the host's line.
#include <cstring>

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

__global__ void store_to(int *address) { *address = 1; }

static void exit_like_a_failed_check()
{
	std::printf("exit_live_work: exiting with status 1 from std::exit\n");
	std::exit(1);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
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
	spin_and_add<<<1, kThreads, 0, non_blocking>>>(device_b, 2, 2000);
	CHECK_CUDA(cudaMemcpyAsync(pinned_out, device_b, bytes, cudaMemcpyDeviceToHost, non_blocking));
	CHECK_CUDA(cudaEventRecord(done, non_blocking));
	spin_and_add<<<1, kThreads, 0, urgent>>>(device_a, 3, 10);
	spin_and_add<<<1, kThreads>>>(device_b, 0, 10); // the legacy default stream
	CHECK_CUDA(cudaGetLastError());

	if (*mode) {
		// What a failed check saw: a call that failed (the copy overruns
		// device_a), leaving libsimtgpu's per-thread error detail set.
		cudaError_t overrun = cudaMemcpy(device_a + 1, pinned_in, bytes, cudaMemcpyHostToDevice);
		std::printf("exit_live_work: a check failed: %s\n", cudaGetErrorName(overrun));
	}
	if (std::strcmp(mode, "fault") == 0) {
		// An illegal address still pending at exit: shutdown meets a sticky error.
		store_to<<<1, 1, 0, non_blocking>>>(reinterpret_cast<int *>(0x1000));
		std::printf("exit_live_work: exiting with status 1 and a fault pending\n");
		return 1;
	}
	if (std::strcmp(mode, "exit") == 0)
		exit_like_a_failed_check();
	if (std::strcmp(mode, "fail") == 0) {
		std::printf("exit_live_work: exiting with status 1 from main\n");
		return 1;
	}
	return report("exit_live_work", true);
}
