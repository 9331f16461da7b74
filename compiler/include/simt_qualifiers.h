/* SPDX-License-Identifier: MIT */
/*
 * CUDA's function and variable qualifiers as clang's CUDA attributes, plus
 * the helper qualifiers CUDA code uses. The one definition for simt_device.h,
 * simt_vector_types.h and the runtime's host_defines.h (which defines them
 * empty instead when host code is compiled without clang's CUDA mode).
 */
#ifndef SIMT_QUALIFIERS_H
#define SIMT_QUALIFIERS_H

#ifndef __host__
#define __host__ __attribute__((host))
#endif
#ifndef __device__
#define __device__ __attribute__((device))
#endif
#ifndef __global__
#define __global__ __attribute__((global))
#endif
#ifndef __shared__
#define __shared__ __attribute__((shared))
#endif
#ifndef __constant__
#define __constant__ __attribute__((constant))
#endif
#ifndef __managed__
/* clang's CUDA mode ignores the managed attribute (only HIP implements it).
 * A __managed__ variable is a __device__ variable (as in CUDA) that simtcc
 * finds by this annotation and places in managed memory, reached through a
 * pointer from the host and from kernels (docs/simtcc.md, "__managed__
 * variables"). */
#define __managed__ __attribute__((device)) __attribute__((annotate("simtgpu.managed")))
#endif
#ifndef __launch_bounds__
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#endif
#ifndef __forceinline__
#define __forceinline__ __inline__ __attribute__((always_inline))
#endif
/* clang 15 and later read __noinline__ as a CUDA keyword, in __noinline__ f()
 * and in libstdc++'s __attribute__((__noinline__)) alike; a macro would break
 * the latter (<memory>, <functional>). A plain host compile (gcc, through
 * vector_types.h) has no device code for it to qualify. */
#if !defined(__noinline__) && defined(__clang__) && __clang_major__ < 15
#define __noinline__ __attribute__((noinline))
#endif
/* A kernel parameter read in place from the parameter buffer, never copied:
 * what simtgpu does with every parameter, so the qualifier has nothing to add. */
#ifndef __grid_constant__
#define __grid_constant__
#endif
#ifndef __align__
#define __align__(n) __attribute__((aligned(n)))
#endif

#endif /* SIMT_QUALIFIERS_H */
