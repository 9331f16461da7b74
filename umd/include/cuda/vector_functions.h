/* SPDX-License-Identifier: MIT */
/* make_int2, make_float4, ...: defined with the vector types. */
#ifndef SIMTGPU_CUDA_VECTOR_FUNCTIONS_H
#define SIMTGPU_CUDA_VECTOR_FUNCTIONS_H
#include "vector_types.h"
#endif
