/* SPDX-License-Identifier: MIT */
/*
 * NVIDIA's driver_functions.h: the constructors of the 3-D copy structs.
 */
#ifndef SIMTGPU_CUDA_DRIVER_FUNCTIONS_H
#define SIMTGPU_CUDA_DRIVER_FUNCTIONS_H
#define __DRIVER_FUNCTIONS_H__

#include "driver_types.h"
#include "host_defines.h"

static __inline__ __host__ struct cudaPitchedPtr make_cudaPitchedPtr(void *d, size_t p, size_t xsz,
                                                                     size_t ysz)
{
    struct cudaPitchedPtr s;
    s.ptr = d;
    s.pitch = p;
    s.xsize = xsz;
    s.ysize = ysz;
    return s;
}

static __inline__ __host__ struct cudaPos make_cudaPos(size_t x, size_t y, size_t z)
{
    struct cudaPos p;
    p.x = x;
    p.y = y;
    p.z = z;
    return p;
}

static __inline__ __host__ struct cudaExtent make_cudaExtent(size_t w, size_t h, size_t d)
{
    struct cudaExtent e;
    e.width = w;
    e.height = h;
    e.depth = d;
    return e;
}

#endif /* SIMTGPU_CUDA_DRIVER_FUNCTIONS_H */
