// SPDX-License-Identifier: MIT
// A __shared__ array defined in a header, as libraries do: each kernel of a
// translation unit that includes it sees one copy per block
// (tests/cuda/shared_namespace.cu, issue 18.1).
#ifndef SIMTGPU_TESTS_CUDA_SHARED_NAMESPACE_H
#define SIMTGPU_TESTS_CUDA_SHARED_NAMESPACE_H

__device__ __shared__ int staging[64];

#endif
