/* SPDX-License-Identifier: MIT */
/*
 * CUDA's vector types (char1..double4, uint3, dim3) and their make_
 * functions. One definition serves host and device code: simtcc's
 * simt_vector_types.h (compiler/include), laid out and aligned as NVIDIA's.
 */
#ifndef SIMTGPU_CUDA_VECTOR_TYPES_H
#define SIMTGPU_CUDA_VECTOR_TYPES_H

#include "host_defines.h"
#include <simt_vector_types.h>

#endif /* SIMTGPU_CUDA_VECTOR_TYPES_H */
