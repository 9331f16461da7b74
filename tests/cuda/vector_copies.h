// SPDX-License-Identifier: MIT
// Copies between a std::vector and device memory, for the test programs that
// keep their data in vectors (the Thrust, CUB and cuRAND tests).
#ifndef SIMTGPU_TESTS_CUDA_VECTOR_COPIES_H
#define SIMTGPU_TESTS_CUDA_VECTOR_COPIES_H

#include <vector>

#include "test_util.h"

template <typename T>
static T *to_device(const std::vector<T> &v)
{
	T *d = nullptr;
	CHECK_CUDA(cudaMalloc(&d, v.size() * sizeof(T)));
	CHECK_CUDA(cudaMemcpy(d, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
	return d;
}

template <typename T>
static std::vector<T> to_host(const T *d, size_t n)
{
	std::vector<T> v(n);
	CHECK_CUDA(cudaMemcpy(v.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
	return v;
}

#endif
