// SPDX-License-Identifier: MIT
// Streams of different priorities and concurrent kernels (docs/hardware.md,
// "Grids"). A long kernel of many waves on the lowest-priority stream holds
// every SM; a short kernel on the highest-priority stream, launched after
// it, takes SMs as the long kernel's blocks finish and completes in a small
// fraction of the long kernel's time. Two kernels that each fill half the
// SMs, on two streams, overlap: together they take less than the sum of
// their times alone. Times are device time (events); results are checked
// against the CPU.
//
// --role long / --role short run one kernel each, for the same case across
// two processes on one device (the guest suite 40-cuda.sh): the long one
// prints "launched" once it runs, each prints its device time. --role half
// runs one kernel on half the SMs and prints the device timer (ns) at its
// first block's start and its last block's end, so that two processes can
// show their kernels overlapped. With --when FILE a role sets up, prints
// "ready" and launches only once FILE exists: the second process of a pair is
// started before the first, so that a guest's slow process start-up is not
// part of the race with the first kernel.
#include "test_util.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

__global__ void spin(unsigned *out, int iterations)
{
	unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
	for (int i = 0; i < iterations; ++i)
		v = v * 1664525u + 1013904223u;
	out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

static bool matches(const unsigned *device_out, int n, int iterations)
{
	std::vector<unsigned> got(n);
	CHECK_CUDA(cudaMemcpy(got.data(), device_out, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
	for (int t = 0; t < n; ++t) {
		unsigned v = t;
		for (int i = 0; i < iterations; ++i)
			v = v * 1664525u + 1013904223u;
		if (got[t] != v) {
			std::printf("thread %d: %u, expected %u\n", t, got[t], v);
			return false;
		}
	}
	return true;
}

static float elapsed_ms(cudaEvent_t from, cudaEvent_t to)
{
	float ms = 0;
	CHECK_CUDA(cudaEventElapsedTime(&ms, from, to));
	return ms;
}

// The device's global timer (ns), as PTX's %globaltimer.
extern "C" __device__ unsigned long long globaltimer_ns() __asm("llvm.nvvm.read.ptx.sreg.globaltimer");

__global__ void timed_spin(unsigned *out, int iterations, unsigned long long *times)
{
	if (threadIdx.x == 0)
		times[2 * blockIdx.x] = globaltimer_ns();
	unsigned v = blockIdx.x * blockDim.x + threadIdx.x;
	for (int i = 0; i < iterations; ++i)
		v = v * 1664525u + 1013904223u;
	out[blockIdx.x * blockDim.x + threadIdx.x] = v;
	__syncthreads();
	if (threadIdx.x == 0)
		times[2 * blockIdx.x + 1] = globaltimer_ns();
}

// With --when FILE: "ready", then nothing until FILE exists (at most 10 min).
static bool wait_for_go(const char *go_file)
{
	if (!go_file)
		return true;
	std::printf("ready\n");
	std::fflush(stdout);
	const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(10);
	while (access(go_file, F_OK) != 0) {
		if (std::chrono::steady_clock::now() > give_up) {
			std::printf("stream_priority: %s did not appear within 10 minutes\n", go_file);
			return false;
		}
		std::this_thread::sleep_for(std::chrono::milliseconds(1));
	}
	return true;
}

// Half the SMs for a long time; prints when it ran, in device time.
static int run_half(int sms, const char *go_file)
{
	const int blocks = sms / 2 > 0 ? sms / 2 : 1, threads = 128, iterations = 3000000;
	unsigned *out;
	unsigned long long *times;
	CHECK_CUDA(cudaMalloc(&out, blocks * threads * sizeof(unsigned)));
	CHECK_CUDA(cudaMalloc(&times, 2 * blocks * sizeof(unsigned long long)));
	if (!wait_for_go(go_file))
		return 2;
	timed_spin<<<blocks, threads>>>(out, iterations, times);
	CHECK_CUDA(cudaGetLastError());
	std::this_thread::sleep_for(std::chrono::milliseconds(20));
	std::printf("launched\n");
	std::fflush(stdout);
	CHECK_CUDA(cudaDeviceSynchronize());
	std::vector<unsigned long long> t(2 * blocks);
	CHECK_CUDA(cudaMemcpy(t.data(), times, t.size() * sizeof(t[0]), cudaMemcpyDeviceToHost));
	unsigned long long start = ~0ull, end = 0;
	for (int b = 0; b < blocks; ++b) {
		start = std::min(start, t[2 * b]);
		end = std::max(end, t[2 * b + 1]);
	}
	std::printf("half: %llu %llu\n", start, end);
	return report("stream_priority", matches(out, blocks * threads, iterations));
}

// One kernel of the priority case, on its own, for a test across processes.
static int run_role(const char *role, int sms, const char *go_file)
{
	const bool is_long = std::strcmp(role, "long") == 0;
	if (!is_long && std::strcmp(role, "short") != 0) {
		std::printf("stream_priority: --role is 'long', 'short' or 'half', not '%s'\n", role);
		return 2;
	}
	int least = 0, greatest = 0;
	CHECK_CUDA(cudaDeviceGetStreamPriorityRange(&least, &greatest));
	cudaStream_t s;
	CHECK_CUDA(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, is_long ? least : greatest));
	cudaEvent_t start, end;
	CHECK_CUDA(cudaEventCreate(&start));
	CHECK_CUDA(cudaEventCreate(&end));
	const int threads = 128, blocks = is_long ? 64 * sms : 4, iterations = is_long ? 15000 : 150;
	unsigned *out;
	CHECK_CUDA(cudaMalloc(&out, blocks * threads * sizeof(unsigned)));
	if (!wait_for_go(go_file))
		return 2;
	CHECK_CUDA(cudaEventRecord(start, s));
	spin<<<blocks, threads, 0, s>>>(out, iterations);
	CHECK_CUDA(cudaEventRecord(end, s));
	CHECK_CUDA(cudaGetLastError());
	if (is_long) {
		std::this_thread::sleep_for(std::chrono::milliseconds(20));
		std::printf("launched\n");
		std::fflush(stdout);
	}
	CHECK_CUDA(cudaStreamSynchronize(s));
	std::printf("%s: %.3f ms\n", role, elapsed_ms(start, end));
	return report("stream_priority", matches(out, blocks * threads, iterations));
}

int main(int argc, char **argv)
{
	cudaDeviceProp prop;
	CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
	const int sms = prop.multiProcessorCount, threads = 128;
	if ((argc == 3 || (argc == 5 && std::strcmp(argv[3], "--when") == 0)) &&
	    std::strcmp(argv[1], "--role") == 0) {
		const char *go_file = argc == 5 ? argv[4] : nullptr;
		return std::strcmp(argv[2], "half") == 0 ? run_half(sms, go_file)
							 : run_role(argv[2], sms, go_file);
	}
	if (argc != 1) {
		std::printf("usage: stream_priority [--role long|short|half [--when FILE]]\n");
		return 2;
	}
	int least = 0, greatest = 0;
	CHECK_CUDA(cudaDeviceGetStreamPriorityRange(&least, &greatest));
	cudaStream_t low, high, a, b;
	CHECK_CUDA(cudaStreamCreateWithPriority(&low, cudaStreamNonBlocking, least));
	CHECK_CUDA(cudaStreamCreateWithPriority(&high, cudaStreamNonBlocking, greatest));
	CHECK_CUDA(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
	CHECK_CUDA(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
	cudaEvent_t ev[8];
	for (cudaEvent_t &e : ev)
		CHECK_CUDA(cudaEventCreate(&e));

	// Priority: 8 waves of the long kernel (as many blocks as the SMs hold
	// at once, 8 times), 4 blocks of the short one.
	int per_sm = 0;
	CHECK_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, spin, threads, 0));
	const int long_blocks = 8 * per_sm * sms, long_iterations = 1500;
	const int short_blocks = 4, short_iterations = 150;
	unsigned *long_out, *short_out;
	CHECK_CUDA(cudaMalloc(&long_out, long_blocks * threads * sizeof(unsigned)));
	CHECK_CUDA(cudaMalloc(&short_out, short_blocks * threads * sizeof(unsigned)));
	CHECK_CUDA(cudaEventRecord(ev[0], low));
	spin<<<long_blocks, threads, 0, low>>>(long_out, long_iterations);
	CHECK_CUDA(cudaEventRecord(ev[1], low));
	// Let the long kernel take every SM before the short one arrives.
	std::this_thread::sleep_for(std::chrono::milliseconds(20));
	if (cudaStreamQuery(low) != cudaErrorNotReady) {
		std::printf("the long kernel ended before the short one was launched\n");
		return report("stream_priority", false);
	}
	CHECK_CUDA(cudaEventRecord(ev[2], high));
	spin<<<short_blocks, threads, 0, high>>>(short_out, short_iterations);
	CHECK_CUDA(cudaEventRecord(ev[3], high));
	CHECK_CUDA(cudaGetLastError());
	CHECK_CUDA(cudaDeviceSynchronize());
	const float long_ms = elapsed_ms(ev[0], ev[1]), short_ms = elapsed_ms(ev[2], ev[3]);
	const float short_done_ms = elapsed_ms(ev[0], ev[3]);
	std::printf("long kernel, low priority: %.3f ms; short kernel, high priority: %.3f ms, "
		    "done %.3f ms after the long one started\n",
		    long_ms, short_ms, short_done_ms);
	bool ok = matches(long_out, long_blocks * threads, long_iterations) &&
		  matches(short_out, short_blocks * threads, short_iterations);
	if (!(short_ms < long_ms / 5 && short_done_ms < long_ms)) {
		std::printf("the high-priority kernel waited for the low-priority one\n");
		ok = false;
	}

	// Concurrency: each kernel one block per SM on half the SMs.
	if (sms >= 2) {
		const int half = sms / 2;
		int iterations = 20000;
		unsigned *out_a, *out_b;
		CHECK_CUDA(cudaMalloc(&out_a, half * threads * sizeof(unsigned)));
		CHECK_CUDA(cudaMalloc(&out_b, half * threads * sizeof(unsigned)));
		auto alone = [&](cudaStream_t s, unsigned *out) {
			CHECK_CUDA(cudaEventRecord(ev[4], s));
			spin<<<half, threads, 0, s>>>(out, iterations);
			CHECK_CUDA(cudaEventRecord(ev[5], s));
			CHECK_CUDA(cudaStreamSynchronize(s));
			return elapsed_ms(ev[4], ev[5]);
		};
		// Each kernel must run long enough in host time for the second launch to
		// reach the device while the first runs: a guest under TCG takes
		// milliseconds to submit one, the fast functional model less to run it.
		float a_ms = 0;
		for (;;) {
			const auto start = std::chrono::steady_clock::now();
			a_ms = alone(a, out_a);
			const std::chrono::duration<double> wall =
				std::chrono::steady_clock::now() - start;
			if (wall.count() >= 0.25 || iterations >= 64 * 20000)
				break;
			iterations *= 2;
		}
		const float b_ms = alone(b, out_b);
		CHECK_CUDA(cudaEventRecord(ev[4], a));
		CHECK_CUDA(cudaEventRecord(ev[6], b));
		spin<<<half, threads, 0, a>>>(out_a, iterations);
		spin<<<half, threads, 0, b>>>(out_b, iterations);
		CHECK_CUDA(cudaEventRecord(ev[5], a));
		CHECK_CUDA(cudaEventRecord(ev[7], b));
		CHECK_CUDA(cudaDeviceSynchronize());
		// From the first start to the last end, relative to a's start.
		const float together_ms =
			std::max(elapsed_ms(ev[4], ev[5]), elapsed_ms(ev[4], ev[7])) -
			std::min(0.0f, elapsed_ms(ev[4], ev[6]));
		std::printf("two kernels on half the SMs each: %.3f ms and %.3f ms alone, %.3f ms "
			    "together\n",
			    a_ms, b_ms, together_ms);
		ok = ok && matches(out_a, half * threads, iterations) &&
		     matches(out_b, half * threads, iterations);
		if (!(together_ms < 0.75f * (a_ms + b_ms))) {
			std::printf("the kernels on two streams did not overlap\n");
			ok = false;
		}
	}
	return report("stream_priority", ok);
}
