/* SPDX-License-Identifier: MIT */
#ifndef SIMTGPU_CUDA_PROFILER_API_H
#define SIMTGPU_CUDA_PROFILER_API_H
#include "cuda_runtime_api.h"
#endif
