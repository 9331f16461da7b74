/* SPDX-License-Identifier: MIT */
/*
 * threadIdx, blockIdx, blockDim, gridDim and warpSize. simtcc's
 * simt_device.h defines them for device code (as reads of the SIMT CSRs).
 */
#ifndef SIMTGPU_CUDA_DEVICE_LAUNCH_PARAMETERS_H
#define SIMTGPU_CUDA_DEVICE_LAUNCH_PARAMETERS_H
#include "vector_types.h"
#if defined(__CUDA__) && defined(__clang__)
#include <simt_device.h>
#endif
#endif
