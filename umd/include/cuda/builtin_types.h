/* SPDX-License-Identifier: MIT */
#ifndef SIMTGPU_CUDA_BUILTIN_TYPES_H
#define SIMTGPU_CUDA_BUILTIN_TYPES_H
#include "driver_types.h"
#include "vector_types.h"
#endif
