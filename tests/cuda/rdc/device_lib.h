// SPDX-License-Identifier: MIT
// What the two translation units of the rdc test share.
#ifndef SIMTGPU_TESTS_CUDA_RDC_DEVICE_LIB_H
#define SIMTGPU_TESTS_CUDA_RDC_DEVICE_LIB_H

constexpr int kPolyTerms = 4;

extern __device__ int poly_offset;
extern __constant__ int poly_coefficients[kPolyTerms];
__device__ int poly(int x);
__device__ int collatz_steps(long long n, int depth);
__device__ int clamp_depth(long long n, int depth);
__device__ int lib_calls();

#endif
