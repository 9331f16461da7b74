// SPDX-License-Identifier: MIT
// __nanosleep (sm_70) and PTX's nanosleep.u32: a sleeping thread's clock64()
// advances by at least the time asked for (at the device's clock rate), and
// a consumer block that backs off with __nanosleep while it polls a flag a
// producer block sets still sees the producer's data.
#include "test_util.h"

constexpr unsigned kSleepNs = 4000;
constexpr int kValues = 256;

__global__ void slept(long long *elapsed)
{
	long long start = clock64();
	if (threadIdx.x % 2)
		__nanosleep(kSleepNs);
	else
		asm volatile("nanosleep.u32 %0;" ::"r"(kSleepNs));
	elapsed[threadIdx.x] = clock64() - start;
}

// Block 1 waits for block 0's flag, backing off exponentially as libcu++
// does, then sums what block 0 wrote before the flag.
__global__ void handoff(volatile int *values, volatile int *flag, int *sum)
{
	if (blockIdx.x == 0) {
		for (int i = threadIdx.x; i < kValues; i += blockDim.x)
			values[i] = 3 * i + 1;
		__threadfence();
		__syncthreads();
		if (threadIdx.x == 0)
			*flag = 1;
		return;
	}
	if (threadIdx.x == 0) {
		unsigned pause = 16;
		while (*flag == 0) {
			__nanosleep(pause);
			pause = pause < 2048 ? 2 * pause : pause;
		}
		__threadfence();
		int s = 0;
		for (int i = 0; i < kValues; ++i)
			s += values[i];
		*sum = s;
	}
}

int main()
{
	const int threads = 64;
	int clock_khz = 0, dev = 0;
	CHECK_CUDA(cudaGetDevice(&dev));
	CHECK_CUDA(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev));
	long long *delapsed, elapsed[threads];
	CHECK_CUDA(cudaMalloc(&delapsed, sizeof(elapsed)));
	slept<<<1, threads>>>(delapsed);
	CHECK_LAUNCH();
	CHECK_CUDA(cudaMemcpy(elapsed, delapsed, sizeof(elapsed), cudaMemcpyDeviceToHost));
	bool ok = clock_khz > 0;
	const long long at_least = (long long)kSleepNs * clock_khz / 1000000;
	for (int t = 0; t < threads; ++t)
		ok &= elapsed[t] >= at_least && elapsed[t] < 1000 * at_least;
	std::printf("slept %lld cycles for %u ns at %d kHz (at least %lld)\n", elapsed[0], kSleepNs,
		    clock_khz, at_least);

	int *values, *flag, *sum, got = 0;
	CHECK_CUDA(cudaMalloc(&values, kValues * sizeof(int)));
	CHECK_CUDA(cudaMalloc(&flag, sizeof(int)));
	CHECK_CUDA(cudaMalloc(&sum, sizeof(int)));
	CHECK_CUDA(cudaMemset(flag, 0, sizeof(int)));
	handoff<<<2, 128>>>(values, flag, sum);
	CHECK_LAUNCH();
	CHECK_CUDA(cudaMemcpy(&got, sum, sizeof(int), cudaMemcpyDeviceToHost));
	int want = 0;
	for (int i = 0; i < kValues; ++i)
		want += 3 * i + 1;
	std::printf("handoff sum %d (want %d)\n", got, want);
	ok &= got == want;
	return report("nanosleep", ok);
}
