// SPDX-License-Identifier: MIT
// Shared helpers of the CUDA test programs: every program computes its
// answer on the CPU as well, compares, and prints "<name>: PASS" or
// "<name>: FAIL" (exit status 0 or 1).
#ifndef SIMTGPU_TESTS_CUDA_TEST_UTIL_H
#define SIMTGPU_TESTS_CUDA_TEST_UTIL_H

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CHECK_CUDA(call)                                                             \
	do {                                                                         \
		cudaError_t check_error_ = (call);                                   \
		if (check_error_ != cudaSuccess) {                                   \
			std::printf("FAIL: %s:%d: %s: %s\n", __FILE__, __LINE__, #call, \
				    cudaGetErrorString(check_error_));               \
			std::exit(1);                                                \
		}                                                                    \
	} while (0)

// Launch, then surface both launch-time and execution errors.
#define CHECK_LAUNCH()                                                               \
	do {                                                                         \
		CHECK_CUDA(cudaGetLastError());                                      \
		CHECK_CUDA(cudaDeviceSynchronize());                                 \
	} while (0)

// A check of a program that goes on after a failure: says what failed.
static inline bool expect(bool cond, const char *what)
{
	if (!cond)
		std::printf("failed: %s\n", what);
	return cond;
}

static inline int report(const char *name, bool ok)
{
	std::printf("%s: %s\n", name, ok ? "PASS" : "FAIL");
	return ok ? 0 : 1;
}

// Deterministic pseudo-random inputs (xorshift32).
struct Rng {
	uint32_t state;
	explicit Rng(uint32_t seed) : state(seed ? seed : 1) {}
	uint32_t next()
	{
		state ^= state << 13;
		state ^= state >> 17;
		state ^= state << 5;
		return state;
	}
	float uniform(float lo, float hi) { return lo + (hi - lo) * (next() >> 8) * (1.0f / 16777216.0f); }
	int range(int lo, int hi) { return lo + static_cast<int>(next() % static_cast<uint32_t>(hi - lo)); }
	// A math function's argument: log-uniform over a wide positive range
	// (every decade as likely), uniform otherwise.
	float spread(float lo, float hi)
	{
		return lo > 0 && hi / lo > 1e3f ? std::exp(uniform(std::log(lo), std::log(hi)))
						: uniform(lo, hi);
	}
};

// Distance in units in the last place between two floats of one sign
// (0 for equal values, large for different signs or NaN mismatches).
static inline int64_t ulp_distance(float a, float b)
{
	if (std::isnan(a) || std::isnan(b))
		return std::isnan(a) && std::isnan(b) ? 0 : INT64_MAX;
	int32_t ia, ib;
	std::memcpy(&ia, &a, 4);
	std::memcpy(&ib, &b, 4);
	if (ia < 0)
		ia = INT32_MIN - ia;
	if (ib < 0)
		ib = INT32_MIN - ib;
	return std::llabs(static_cast<long long>(ia) - ib);
}

static inline int64_t ulp_distance(double a, double b)
{
	if (std::isnan(a) || std::isnan(b))
		return std::isnan(a) && std::isnan(b) ? 0 : INT64_MAX;
	int64_t ia, ib;
	std::memcpy(&ia, &a, 8);
	std::memcpy(&ib, &b, 8);
	if (ia < 0)
		ia = INT64_MIN - ia;
	if (ib < 0)
		ib = INT64_MIN - ib;
	__int128 d = static_cast<__int128>(ia) - ib;
	if (d < 0)
		d = -d;
	return d > INT64_MAX ? INT64_MAX : static_cast<int64_t>(d);
}

#endif
