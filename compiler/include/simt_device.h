/* SPDX-License-Identifier: MIT */
/*
 * The device-side half of simtgpu's CUDA headers: built-in variables
 * (threadIdx, blockIdx, blockDim, gridDim, warpSize), atomics, barriers,
 * fences, warp vote and shuffle, clock, __ldg, the CUDA math library, and
 * device printf/assert. cuda_runtime.h (umd/include/cuda) includes it; simtcc
 * also force-includes it, as nvcc does with cuda_runtime.h.
 *
 * Clang's own CUDA support headers supply most of the API, written in terms
 * of NVVM builtins (__nvvm_*) and libdevice functions (__nv_*). simtcc's
 * passes turn the NVVM intrinsics into SIMT CSR reads and custom-0
 * instructions, and simtcc's device runtime implements the __nv_* functions
 * on top of picolibc's libm. See docs/simtcc.md.
 *
 * The file is parsed by both passes of a CUDA compile: in the host pass the
 * __device__ bodies are only checked, never emitted.
 */
#ifndef SIMT_DEVICE_H
#define SIMT_DEVICE_H

#if !defined(__CUDA__) || !defined(__clang__)
#error "simt_device.h needs clang's CUDA mode (compile with simtcc)"
#endif

#ifndef CUDA_VERSION
#define CUDA_VERSION 11080 /* the API level simtcc implements */
#endif

#include "simt_qualifiers.h"
#ifndef __restrict__
#define __restrict__ __restrict
#endif

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "simt_vector_types.h"

typedef uint32_t cuuint32_t; /* as in cuda.h; used by clang's intrinsics */
typedef uint64_t cuuint64_t;

#ifdef __cplusplus
/* Must precede <cmath>: declares the device overloads of the math API. */
#include <__clang_cuda_math_forward_declares.h>
#include <cmath>
#include <cstdlib>
#include <cstring>
#else
#include <math.h>
#include <stdlib.h>
#include <string.h>
#endif

#include <__clang_cuda_builtin_vars.h>
#include <__clang_cuda_libdevice_declares.h>
#include <__clang_cuda_device_functions.h>
#include <__clang_cuda_math.h>

#ifdef __cplusplus
/* __clang_cuda_math_forward_declares.h declares nan and nanf for device
 * code (static, as all its functions) and __clang_cuda_math.h does not
 * define them: without these, device code calling nan("") or std::nan
 * fails to link (cuda-samples' interval). */
static __device__ __inline__ double nan(const char *__tag)
{
	return __nv_nan((const signed char *)__tag);
}
static __device__ __inline__ float nanf(const char *__tag)
{
	return __nv_nanf((const signed char *)__tag);
}
#endif

extern "C" {
/* Device printf: clang lowers printf(fmt, ...) to vprintf(fmt, packed
 * args); the device runtime writes a simtgpu_printf_record. */
__device__ int vprintf(const char *, const char *);
__device__ int printf(const char *, ...);

/* Device-side malloc and free (compiler/runtime/malloc.c), and so clang's
 * device operator new and delete (cuda_wrappers/new): a heap of
 * cudaLimitMallocHeapSize bytes per context. */
__device__ void free(void *) __attribute((nothrow));
__device__ void *malloc(size_t) __attribute((nothrow)) __attribute__((malloc));

/* Device assert: records the failure in the launch environment, then
 * ebreak (SIMTGPU_EXC_TRAP). */
__device__ void __assertfail(const char *__message, const char *__file,
			     unsigned __line, const char *__function,
			     size_t __charSize);
__device__ static inline void __assert_fail(const char *__message,
					    const char *__file, unsigned __line,
					    const char *__function)
{
	__assertfail(__message, __file, __line, __function, sizeof(char));
}
} /* extern "C" */

__device__ inline __cuda_builtin_threadIdx_t::operator dim3() const { return dim3(x, y, z); }
__device__ inline __cuda_builtin_threadIdx_t::operator uint3() const { return {x, y, z}; }
__device__ inline __cuda_builtin_blockIdx_t::operator dim3() const { return dim3(x, y, z); }
__device__ inline __cuda_builtin_blockIdx_t::operator uint3() const { return {x, y, z}; }
__device__ inline __cuda_builtin_blockDim_t::operator dim3() const { return dim3(x, y, z); }
__device__ inline __cuda_builtin_blockDim_t::operator uint3() const { return {x, y, z}; }
__device__ inline __cuda_builtin_gridDim_t::operator dim3() const { return dim3(x, y, z); }
__device__ inline __cuda_builtin_gridDim_t::operator uint3() const { return {x, y, z}; }

#include <__clang_cuda_cmath.h>
#include "crt/math_functions.hpp" /* the float overloads clang leaves to the SDK */
#include <__clang_cuda_intrinsics.h>

/*
 * Warp reductions, CUDA's __reduce_*_sync (sm_80): the NVVM redux.sync
 * intrinsics, which simtcc maps to the redux instruction. Clang offers their
 * builtins only when compiling for sm_80, so they are declared here by their
 * intrinsic names; simtgpu has them on simt_2 (docs/simtcc.md).
 */
#define SIMT_REDUX_DECLARE(op) \
	__device__ unsigned int __simt_redux_sync_##op(unsigned int, unsigned int) \
		__asm__("llvm.nvvm.redux.sync." #op);
SIMT_REDUX_DECLARE(add)
SIMT_REDUX_DECLARE(min)
SIMT_REDUX_DECLARE(max)
SIMT_REDUX_DECLARE(umin)
SIMT_REDUX_DECLARE(umax)
SIMT_REDUX_DECLARE(and)
SIMT_REDUX_DECLARE(or)
SIMT_REDUX_DECLARE(xor)
#undef SIMT_REDUX_DECLARE

#define SIMT_REDUX_DEVICE static __device__ __forceinline__
SIMT_REDUX_DEVICE unsigned int __reduce_add_sync(unsigned int __mask, unsigned int __value)
{
	return __simt_redux_sync_add(__value, __mask);
}
SIMT_REDUX_DEVICE int __reduce_add_sync(unsigned int __mask, int __value)
{
	return (int)__simt_redux_sync_add((unsigned int)__value, __mask);
}
SIMT_REDUX_DEVICE unsigned int __reduce_min_sync(unsigned int __mask, unsigned int __value)
{
	return __simt_redux_sync_umin(__value, __mask);
}
SIMT_REDUX_DEVICE int __reduce_min_sync(unsigned int __mask, int __value)
{
	return (int)__simt_redux_sync_min((unsigned int)__value, __mask);
}
SIMT_REDUX_DEVICE unsigned int __reduce_max_sync(unsigned int __mask, unsigned int __value)
{
	return __simt_redux_sync_umax(__value, __mask);
}
SIMT_REDUX_DEVICE int __reduce_max_sync(unsigned int __mask, int __value)
{
	return (int)__simt_redux_sync_max((unsigned int)__value, __mask);
}
SIMT_REDUX_DEVICE unsigned int __reduce_and_sync(unsigned int __mask, unsigned int __value)
{
	return __simt_redux_sync_and(__value, __mask);
}
SIMT_REDUX_DEVICE unsigned int __reduce_or_sync(unsigned int __mask, unsigned int __value)
{
	return __simt_redux_sync_or(__value, __mask);
}
SIMT_REDUX_DEVICE unsigned int __reduce_xor_sync(unsigned int __mask, unsigned int __value)
{
	return __simt_redux_sync_xor(__value, __mask);
}
#undef SIMT_REDUX_DEVICE

/*
 * Atomics. CUDA's atomics are relaxed read-modify-writes returning the old
 * value; they become RISC-V A-extension AMOs (or LR/SC loops for CAS and
 * floating point) on global or shared memory.
 */
#define SIMT_ATOMIC_DEVICE static __device__ __forceinline__

#define SIMT_ATOMIC_RMW(Name, Builtin, T) \
	SIMT_ATOMIC_DEVICE T Name(T *__p, T __v) \
	{ \
		return Builtin(__p, __v, __ATOMIC_RELAXED); \
	}
#define SIMT_ATOMIC_INTEGERS(Name, Builtin) \
	SIMT_ATOMIC_RMW(Name, Builtin, int) \
	SIMT_ATOMIC_RMW(Name, Builtin, unsigned int) \
	SIMT_ATOMIC_RMW(Name, Builtin, unsigned long long)

SIMT_ATOMIC_INTEGERS(atomicAdd, __atomic_fetch_add)
SIMT_ATOMIC_RMW(atomicAdd, __atomic_fetch_add, float)
SIMT_ATOMIC_RMW(atomicAdd, __atomic_fetch_add, double)
SIMT_ATOMIC_RMW(atomicSub, __atomic_fetch_sub, int)
SIMT_ATOMIC_RMW(atomicSub, __atomic_fetch_sub, unsigned int)
SIMT_ATOMIC_RMW(atomicSub, __atomic_fetch_sub, unsigned long long)
SIMT_ATOMIC_INTEGERS(atomicExch, __atomic_exchange_n)
SIMT_ATOMIC_INTEGERS(atomicMin, __atomic_fetch_min)
SIMT_ATOMIC_RMW(atomicMin, __atomic_fetch_min, long long)
SIMT_ATOMIC_INTEGERS(atomicMax, __atomic_fetch_max)
SIMT_ATOMIC_RMW(atomicMax, __atomic_fetch_max, long long)
SIMT_ATOMIC_INTEGERS(atomicAnd, __atomic_fetch_and)
SIMT_ATOMIC_INTEGERS(atomicOr, __atomic_fetch_or)
SIMT_ATOMIC_INTEGERS(atomicXor, __atomic_fetch_xor)

SIMT_ATOMIC_DEVICE float atomicExch(float *__p, float __v)
{
	return __uint_as_float(atomicExch((unsigned int *)__p, __float_as_uint(__v)));
}

/* ((old >= v) ? 0 : old + 1) and (((old == 0) || (old > v)) ? v : old - 1). */
SIMT_ATOMIC_DEVICE unsigned int atomicInc(unsigned int *__p, unsigned int __v)
{
	return __nvvm_atom_inc_gen_ui(__p, __v);
}
SIMT_ATOMIC_DEVICE unsigned int atomicDec(unsigned int *__p, unsigned int __v)
{
	return __nvvm_atom_dec_gen_ui(__p, __v);
}

#define SIMT_ATOMIC_CAS(T) \
	SIMT_ATOMIC_DEVICE T atomicCAS(T *__p, T __compare, T __v) \
	{ \
		__atomic_compare_exchange_n(__p, &__compare, __v, false, \
					    __ATOMIC_RELAXED, __ATOMIC_RELAXED); \
		return __compare; \
	}
SIMT_ATOMIC_CAS(int)
SIMT_ATOMIC_CAS(unsigned int)
SIMT_ATOMIC_CAS(unsigned long long)
SIMT_ATOMIC_CAS(unsigned short)

/*
 * The scoped forms (sm_60): _block (the CTA) and _system (the device and the
 * host, through mapped or managed memory). simtgpu's device has one memory
 * system for every scope, so each is the device-wide atomic.
 */
#define SIMT_ATOMIC_SCOPED(Name) \
	template <class... __A> \
	SIMT_ATOMIC_DEVICE auto Name##_block(__A... __a) -> decltype(Name(__a...)) \
	{ \
		return Name(__a...); \
	} \
	template <class... __A> \
	SIMT_ATOMIC_DEVICE auto Name##_system(__A... __a) -> decltype(Name(__a...)) \
	{ \
		return Name(__a...); \
	}
SIMT_ATOMIC_SCOPED(atomicAdd)
SIMT_ATOMIC_SCOPED(atomicSub)
SIMT_ATOMIC_SCOPED(atomicExch)
SIMT_ATOMIC_SCOPED(atomicMin)
SIMT_ATOMIC_SCOPED(atomicMax)
SIMT_ATOMIC_SCOPED(atomicInc)
SIMT_ATOMIC_SCOPED(atomicDec)
SIMT_ATOMIC_SCOPED(atomicCAS)
SIMT_ATOMIC_SCOPED(atomicAnd)
SIMT_ATOMIC_SCOPED(atomicOr)
SIMT_ATOMIC_SCOPED(atomicXor)
#undef SIMT_ATOMIC_SCOPED

#undef SIMT_ATOMIC_CAS
#undef SIMT_ATOMIC_INTEGERS
#undef SIMT_ATOMIC_RMW
#undef SIMT_ATOMIC_DEVICE

#endif /* SIMT_DEVICE_H */
