// SPDX-License-Identifier: MIT
// The device library of the rdc test: __device__ functions and variables
// that kernels.cu uses through extern declarations, resolved by the device
// link (simtcc -dc, then a link; or -rdc=true). A static __device__
// variable of the same name as kernels.cu's stays this unit's own.
#include "device_lib.h"

__device__ int poly_offset = 0;
__constant__ int poly_coefficients[kPolyTerms];
static __device__ int calls_here = 0;

__device__ int poly(int x)
{
	atomicAdd(&calls_here, 1);
	int value = 0;
	for (int i = kPolyTerms - 1; i >= 0; --i)
		value = value * x + poly_coefficients[i];
	return value + poly_offset;
}

// Recursive across units: kernels.cu's clamp_depth calls back into here.
__device__ int collatz_steps(long long n, int depth)
{
	if (n == 1)
		return 0;
	return 1 + clamp_depth(n % 2 ? 3 * n + 1 : n / 2, depth + 1);
}

__device__ int lib_calls() { return calls_here; }
