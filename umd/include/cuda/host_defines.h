/* SPDX-License-Identifier: MIT */
/*
 * CUDA's function and variable qualifiers. Under clang's CUDA mode (simtcc)
 * they are clang's CUDA attributes; in a plain C or C++ compile of host code
 * that includes the runtime API (gcc, clang without -x cuda) they vanish.
 */
#ifndef SIMTGPU_CUDA_HOST_DEFINES_H
#define SIMTGPU_CUDA_HOST_DEFINES_H
/* NVIDIA's guard: Thrust's guarded_cuda_runtime_api.h undefines __host__
 * and __device__ unless it is set. */
#define __HOST_DEFINES_H__

#if defined(__CUDA__) && defined(__clang__)
#include <simt_qualifiers.h> /* simtcc's include directory */
#else
#ifndef __host__
#define __host__
#endif
#ifndef __device__
#define __device__
#endif
#ifndef __global__
#define __global__
#endif
#ifndef __shared__
#define __shared__
#endif
#ifndef __constant__
#define __constant__
#endif
#ifndef __managed__
#define __managed__
#endif
#ifndef __launch_bounds__
#define __launch_bounds__(...)
#endif
#ifndef __forceinline__
#define __forceinline__ __inline__ __attribute__((always_inline))
#endif
/* Not defined for a plain C++ compile: libstdc++ spells its attribute
 * __attribute__((__noinline__)), which the macro would break (deviceQuery.cpp
 * includes <memory>); __noinline__ only qualifies device code, which a plain
 * compile never builds. */
#ifndef __align__
#define __align__(n) __attribute__((aligned(n)))
#endif
#ifndef __grid_constant__
#define __grid_constant__
#endif
#endif
#ifndef __cudart_builtin__
#define __cudart_builtin__
#endif
#ifndef CUDART_CB
#define CUDART_CB /* the calling convention of host callbacks: the default one */
#endif
#ifndef CUDARTAPI
#define CUDARTAPI
#endif

#endif /* SIMTGPU_CUDA_HOST_DEFINES_H */
