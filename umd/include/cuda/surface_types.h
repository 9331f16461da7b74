/* SPDX-License-Identifier: MIT */
/* CUDA's surface object types. docs/cuda-runtime.md, "Textures and surfaces". */
#ifndef SIMTGPU_CUDA_SURFACE_TYPES_H
#define SIMTGPU_CUDA_SURFACE_TYPES_H
#define __SURFACE_TYPES_H__

#include "driver_types.h"

typedef unsigned long long cudaSurfaceObject_t;

/* What a surface access outside the array does. */
enum cudaSurfaceBoundaryMode {
	cudaBoundaryModeZero = 0,  /* reads give 0, writes are dropped */
	cudaBoundaryModeClamp = 1, /* to the nearest element */
	cudaBoundaryModeTrap = 2   /* the kernel traps (cudaErrorLaunchFailure) */
};

enum cudaSurfaceFormatMode { cudaFormatModeForced = 0, cudaFormatModeAuto = 1 };

#endif /* SIMTGPU_CUDA_SURFACE_TYPES_H */
