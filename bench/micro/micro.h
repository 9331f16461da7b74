// SPDX-License-Identifier: MIT
// Shared helpers of the microbenchmarks (docs/timing.md, "Validation"): checked CUDA
// calls, the line format of a figure, and an optimisation barrier.
//
// Every figure is printed as
//   micro: NAME VALUE UNIT  (what was measured)
// so a reader sees what it means and the tests (micro_test.cpp) find it by
// NAME. A benchmark also checks that its kernel did the work it was timed
// for (against the CPU) and ends with "<program>: PASS" or "<program>: FAIL".
#ifndef SIMTGPU_BENCH_MICRO_H
#define SIMTGPU_BENCH_MICRO_H

#include <cuda_runtime.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>

#define MICRO_CHECK(call)                                                            \
	do {                                                                         \
		cudaError_t micro_error_ = (call);                                   \
		if (micro_error_ != cudaSuccess) {                                   \
			std::printf("FAIL: %s:%d: %s: %s\n", __FILE__, __LINE__, #call, \
				    cudaGetErrorString(micro_error_));               \
			std::exit(1);                                                \
		}                                                                    \
	} while (0)

#define MICRO_LAUNCHED()                                                             \
	do {                                                                         \
		MICRO_CHECK(cudaGetLastError());                                     \
		MICRO_CHECK(cudaDeviceSynchronize());                                \
	} while (0)

static inline void figure(const char *name, double value, const char *unit, const char *what, ...)
{
	std::printf("micro: %-28s %10.2f %-12s (", name, value, unit);
	va_list args;
	va_start(args, what);
	std::vprintf(what, args);
	va_end(args);
	std::printf(")\n");
}

static inline int report(const char *name, bool ok)
{
	std::printf("%s: %s\n", name, ok ? "PASS" : "FAIL");
	return ok ? 0 : 1;
}

// Keeps the compiler from moving work across a clock64() reading: the value
// is "changed" by an empty instruction sequence ordered with the reading
// (both are volatile), so what computes it stays before and what uses it
// stays after. Device inline assembly is RISC-V (docs/simtcc.md).
__device__ __forceinline__ void pin(float &v) { asm volatile("" : "+f"(v)); }
__device__ __forceinline__ void pin(unsigned &v) { asm volatile("" : "+r"(v)); }
template <typename T> __device__ __forceinline__ void pin(T *&p) { asm volatile("" : "+r"(p)); }

// Waits until v is available (an instruction reads it: the scoreboard holds
// it until the load that writes v completes), so a following clock64()
// reading includes that load's latency. An empty asm would not: it emits no
// instruction.
template <typename T> __device__ __forceinline__ void consume(T *p)
{
	void *unused;
	asm volatile("mv %0, %1" : "=r"(unused) : "r"(p));
}

#endif
