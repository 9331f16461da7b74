/* SPDX-License-Identifier: MIT */
/*
 * The float overloads of CUDA's device math API that clang's
 * __clang_cuda_math_forward_declares.h promises and leaves to the CUDA SDK's
 * crt/math_functions.hpp (as this header's name says): fmax(float, float),
 * hypot(float, float), round(float), ... each the "f" function of the C API,
 * so that <cmath>-style calls on floats stay in single precision as with
 * nvcc (the integer min and max overloads are in cuda_runtime.h). simt_device.h
 * includes it after clang's own cmath pieces; see docs/simtcc.md.
 */
#ifndef SIMT_CRT_MATH_FUNCTIONS_HPP
#define SIMT_CRT_MATH_FUNCTIONS_HPP

#ifdef __cplusplus

#define SIMT_MATH_DEVICE static __device__ __inline__ __attribute__((always_inline))

#define SIMT_FLOAT_OVERLOAD_1(ret, name) \
	SIMT_MATH_DEVICE ret name(float __x) { return ::name##f(__x); }
#define SIMT_FLOAT_OVERLOAD_2(name) \
	SIMT_MATH_DEVICE float name(float __x, float __y) { return ::name##f(__x, __y); }

SIMT_FLOAT_OVERLOAD_1(float, acosh)
SIMT_FLOAT_OVERLOAD_1(float, asinh)
SIMT_FLOAT_OVERLOAD_1(float, atanh)
SIMT_FLOAT_OVERLOAD_1(float, cbrt)
SIMT_FLOAT_OVERLOAD_1(float, erf)
SIMT_FLOAT_OVERLOAD_1(float, erfc)
SIMT_FLOAT_OVERLOAD_1(float, exp2)
SIMT_FLOAT_OVERLOAD_1(float, expm1)
SIMT_FLOAT_OVERLOAD_1(int, ilogb)
SIMT_FLOAT_OVERLOAD_1(float, lgamma)
SIMT_FLOAT_OVERLOAD_1(long long, llrint)
SIMT_FLOAT_OVERLOAD_1(long long, llround)
SIMT_FLOAT_OVERLOAD_1(float, log1p)
SIMT_FLOAT_OVERLOAD_1(float, log2)
SIMT_FLOAT_OVERLOAD_1(float, logb)
SIMT_FLOAT_OVERLOAD_1(long, lrint)
SIMT_FLOAT_OVERLOAD_1(long, lround)
SIMT_FLOAT_OVERLOAD_1(float, nearbyint)
SIMT_FLOAT_OVERLOAD_1(float, rint)
SIMT_FLOAT_OVERLOAD_1(float, round)
SIMT_FLOAT_OVERLOAD_1(float, tgamma)
SIMT_FLOAT_OVERLOAD_1(float, trunc)
SIMT_FLOAT_OVERLOAD_2(copysign)
SIMT_FLOAT_OVERLOAD_2(fdim)
SIMT_FLOAT_OVERLOAD_2(fmax)
SIMT_FLOAT_OVERLOAD_2(fmin)
SIMT_FLOAT_OVERLOAD_2(hypot)
SIMT_FLOAT_OVERLOAD_2(nextafter)
SIMT_FLOAT_OVERLOAD_2(remainder)
SIMT_MATH_DEVICE float fma(float __x, float __y, float __z) { return ::fmaf(__x, __y, __z); }
SIMT_MATH_DEVICE float remquo(float __x, float __y, int *__quo) { return ::remquof(__x, __y, __quo); }
SIMT_MATH_DEVICE float scalbn(float __x, int __n) { return ::scalbnf(__x, __n); }
SIMT_MATH_DEVICE float scalbln(float __x, long __n) { return ::scalblnf(__x, __n); }

#undef SIMT_FLOAT_OVERLOAD_1
#undef SIMT_FLOAT_OVERLOAD_2

#undef SIMT_MATH_DEVICE

#endif /* __cplusplus */
#endif /* SIMT_CRT_MATH_FUNCTIONS_HPP */
