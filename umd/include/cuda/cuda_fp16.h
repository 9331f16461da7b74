/* SPDX-License-Identifier: MIT */
/*
 * CUDA's half precision: __half (IEEE binary16) and __half2, their
 * conversions, operators, arithmetic, comparisons and math functions, with
 * NVIDIA's names (cuda_fp16.h). simtgpu has no half unit, so every operation
 * computes in float (double for fma), which holds the exact operands, and
 * rounds the result once to half in simt_narrow_float.h: +, -, *, /, sqrt
 * and fma are correctly rounded (round to nearest even unless the name says
 * _rz/_rd/_ru), as on NVIDIA's hardware; the transcendental functions round
 * the float function's result. Everything is __host__ __device__.
 * See docs/compatibility.md.
 */
#ifndef SIMTGPU_CUDA_FP16_H
#define SIMTGPU_CUDA_FP16_H
/* NVIDIA's guards. */
#define __CUDA_FP16_H__
#define __CUDA_FP16_HPP__
#define __CUDA_FP16_TYPES_EXIST__

#include "simt_narrow_float.h"
#include "vector_types.h"

#ifdef __cplusplus
#include <cmath>

#define __CUDA_HOSTDEVICE_FP16_DECL__ static inline __host__ __device__
#define SIMT_FP16 __CUDA_HOSTDEVICE_FP16_DECL__

struct __half_raw {
	unsigned short x;
};
struct __half2_raw {
	unsigned short x;
	unsigned short y;
};

SIMT_FP16 unsigned short __simt_float2half_bits(float f, simt_round_mode mode)
{
	return __simt_narrow_from_double((double)f, 5, 10, mode);
}

SIMT_FP16 float __simt_half_bits2float(unsigned short h)
{
	return __simt_narrow_to_float(h, 5, 10);
}

struct __align__(2) __half {
  protected:
	unsigned short __x;

  public:
	__half() = default;
	__host__ __device__ __half(const __half_raw &r) : __x(r.x) {}
	__host__ __device__ __half &operator=(const __half_raw &r)
	{
		__x = r.x;
		return *this;
	}
	__host__ __device__ operator __half_raw() const { return __half_raw{__x}; }

	/* Conversions as NVIDIA's (no __CUDA_NO_HALF_CONVERSIONS__). */
	__host__ __device__ __half(float f) : __x(__simt_float2half_bits(f, SIMT_ROUND_NEAREST_EVEN)) {}
	__host__ __device__ __half(double d)
		: __x(__simt_narrow_from_double(d, 5, 10, SIMT_ROUND_NEAREST_EVEN))
	{
	}
	__host__ __device__ __half(int i) : __half((double)i) {}
	__host__ __device__ __half(unsigned int i) : __half((double)i) {}
	__host__ __device__ __half(short i) : __half((double)i) {}
	__host__ __device__ __half(unsigned short i) : __half((double)i) {}
	__host__ __device__ __half(long long i) : __half(__simt_i64_to_double_odd(i)) {}
	__host__ __device__ __half(unsigned long long i) : __half(__simt_u64_to_double_odd(i)) {}
	__host__ __device__ __half(long i) : __half((long long)i) {}
	__host__ __device__ __half(unsigned long i) : __half((unsigned long long)i) {}

	__host__ __device__ operator float() const { return __simt_half_bits2float(__x); }
	__host__ __device__ explicit operator bool() const { return (__x & 0x7fff) != 0; }
	/* Integer conversions truncate toward zero, NaN gives 0, out of range
	 * saturates, as NVIDIA's __half2*_rz. */
	__host__ __device__ explicit operator int() const;
	__host__ __device__ explicit operator unsigned int() const;
	__host__ __device__ explicit operator short() const;
	__host__ __device__ explicit operator unsigned short() const;
	__host__ __device__ explicit operator long long() const;
	__host__ __device__ explicit operator unsigned long long() const;
	__host__ __device__ explicit operator char() const { return (char)(int)*this; }
	__host__ __device__ explicit operator signed char() const { return (signed char)(int)*this; }
	__host__ __device__ explicit operator unsigned char() const
	{
		return (unsigned char)(unsigned int)*this;
	}
};

struct __align__(4) __half2 {
	__half x;
	__half y;

	__half2() = default;
	__host__ __device__ __half2(const __half &a, const __half &b) : x(a), y(b) {}
	__host__ __device__ __half2(const __half2_raw &r) : x(__half_raw{r.x}), y(__half_raw{r.y}) {}
	__host__ __device__ __half2 &operator=(const __half2_raw &r)
	{
		x = __half_raw{r.x};
		y = __half_raw{r.y};
		return *this;
	}
	__host__ __device__ operator __half2_raw() const
	{
		return __half2_raw{__half_raw(x).x, __half_raw(y).x};
	}
};

typedef __half half;
typedef __half2 half2;
typedef __half __nv_half;
typedef __half2 __nv_half2;
typedef __half_raw __nv_half_raw;
typedef __half2_raw __nv_half2_raw;

/* Bits and reinterpretation. */
SIMT_FP16 unsigned short __half_as_ushort(__half h) { return __half_raw(h).x; }
SIMT_FP16 short __half_as_short(__half h) { return (short)__half_raw(h).x; }
SIMT_FP16 __half __ushort_as_half(unsigned short u) { return __half_raw{u}; }
SIMT_FP16 __half __short_as_half(short s) { return __half_raw{(unsigned short)s}; }

/* Float and double. */
SIMT_FP16 float __half2float(__half h) { return __simt_half_bits2float(__half_as_ushort(h)); }
SIMT_FP16 __half __float2half(float f)
{
	return __half_raw{__simt_float2half_bits(f, SIMT_ROUND_NEAREST_EVEN)};
}
SIMT_FP16 __half __float2half_rn(float f) { return __float2half(f); }
SIMT_FP16 __half __float2half_rz(float f)
{
	return __half_raw{__simt_float2half_bits(f, SIMT_ROUND_TOWARD_ZERO)};
}
SIMT_FP16 __half __float2half_rd(float f)
{
	return __half_raw{__simt_float2half_bits(f, SIMT_ROUND_DOWN)};
}
SIMT_FP16 __half __float2half_ru(float f)
{
	return __half_raw{__simt_float2half_bits(f, SIMT_ROUND_UP)};
}
SIMT_FP16 __half __double2half(double d)
{
	return __half_raw{__simt_narrow_from_double(d, 5, 10, SIMT_ROUND_NEAREST_EVEN)};
}
SIMT_FP16 __half2 __float2half2_rn(float f)
{
	const __half h = __float2half(f);
	return __half2(h, h);
}
SIMT_FP16 __half2 __floats2half2_rn(float lo, float hi)
{
	return __half2(__float2half(lo), __float2half(hi));
}
SIMT_FP16 __half2 __float22half2_rn(float2 f) { return __floats2half2_rn(f.x, f.y); }
SIMT_FP16 float2 __half22float2(__half2 h)
{
	return make_float2(__half2float(h.x), __half2float(h.y));
}
SIMT_FP16 float __low2float(__half2 h) { return __half2float(h.x); }
SIMT_FP16 float __high2float(__half2 h) { return __half2float(h.y); }

/* Integers: to half through double (exact, or rounded to odd above 2^53), rounded in the
 * named mode; from half as float, rounded in the named mode, NaN -> 0,
 * saturated to the integer's range. */
SIMT_FP16 __half __simt_int2half(double d, simt_round_mode mode)
{
	return __half_raw{__simt_narrow_from_double(d, 5, 10, mode)};
}
#define SIMT_FP16_FROM_INT(name, type, to_double)                                                          \
	SIMT_FP16 __half name##_rn(type i) { return __simt_int2half(to_double(i), SIMT_ROUND_NEAREST_EVEN); } \
	SIMT_FP16 __half name##_rz(type i) { return __simt_int2half(to_double(i), SIMT_ROUND_TOWARD_ZERO); } \
	SIMT_FP16 __half name##_rd(type i) { return __simt_int2half(to_double(i), SIMT_ROUND_DOWN); }     \
	SIMT_FP16 __half name##_ru(type i) { return __simt_int2half(to_double(i), SIMT_ROUND_UP); }
SIMT_FP16_FROM_INT(__int2half, int, (double))
SIMT_FP16_FROM_INT(__uint2half, unsigned int, (double))
SIMT_FP16_FROM_INT(__short2half, short, (double))
SIMT_FP16_FROM_INT(__ushort2half, unsigned short, (double))
SIMT_FP16_FROM_INT(__ll2half, long long, __simt_i64_to_double_odd)
SIMT_FP16_FROM_INT(__ull2half, unsigned long long, __simt_u64_to_double_odd)
#undef SIMT_FP16_FROM_INT

SIMT_FP16 double __simt_round_integral(float f, simt_round_mode mode)
{
	switch (mode) {
	case SIMT_ROUND_NEAREST_EVEN:
		return (double)rintf(f); /* the default environment: nearest even */
	case SIMT_ROUND_TOWARD_ZERO:
		return (double)truncf(f);
	case SIMT_ROUND_DOWN:
		return (double)floorf(f);
	default:
		return (double)ceilf(f);
	}
}
#define SIMT_FP16_TO_INT(name, type, lowest, highest)                                     \
	SIMT_FP16 type __simt_##name(__half h, simt_round_mode mode)                        \
	{                                                                                   \
		const float f = __half2float(h);                                            \
		if (f != f)                                                                 \
			return 0;                                                           \
		const double r = __simt_round_integral(f, mode);                            \
		if (r <= (double)(lowest))                                                  \
			return (lowest);                                                    \
		if (r >= (double)(highest))                                                 \
			return (highest);                                                   \
		return (type)r;                                                             \
	}                                                                                   \
	SIMT_FP16 type name##_rn(__half h) { return __simt_##name(h, SIMT_ROUND_NEAREST_EVEN); } \
	SIMT_FP16 type name##_rz(__half h) { return __simt_##name(h, SIMT_ROUND_TOWARD_ZERO); } \
	SIMT_FP16 type name##_rd(__half h) { return __simt_##name(h, SIMT_ROUND_DOWN); }       \
	SIMT_FP16 type name##_ru(__half h) { return __simt_##name(h, SIMT_ROUND_UP); }
SIMT_FP16_TO_INT(__half2int, int, (-2147483647 - 1), 2147483647)
SIMT_FP16_TO_INT(__half2uint, unsigned int, 0u, 4294967295u)
SIMT_FP16_TO_INT(__half2short, short, (short)-32768, (short)32767)
SIMT_FP16_TO_INT(__half2ushort, unsigned short, (unsigned short)0, (unsigned short)65535)
SIMT_FP16_TO_INT(__half2ll, long long, (-9223372036854775807ll - 1), 9223372036854775807ll)
SIMT_FP16_TO_INT(__half2ull, unsigned long long, 0ull, 18446744073709551615ull)
#undef SIMT_FP16_TO_INT

__host__ __device__ inline __half::operator int() const { return __half2int_rz(*this); }
__host__ __device__ inline __half::operator unsigned int() const { return __half2uint_rz(*this); }
__host__ __device__ inline __half::operator short() const { return __half2short_rz(*this); }
__host__ __device__ inline __half::operator unsigned short() const
{
	return __half2ushort_rz(*this);
}
__host__ __device__ inline __half::operator long long() const { return __half2ll_rz(*this); }
__host__ __device__ inline __half::operator unsigned long long() const
{
	return __half2ull_rz(*this);
}

/* Building and taking apart __half2. */
SIMT_FP16 __half2 __halves2half2(__half lo, __half hi) { return __half2(lo, hi); }
SIMT_FP16 __half2 __half2half2(__half h) { return __half2(h, h); }
SIMT_FP16 __half __low2half(__half2 h) { return h.x; }
SIMT_FP16 __half __high2half(__half2 h) { return h.y; }
SIMT_FP16 __half2 __low2half2(__half2 h) { return __half2(h.x, h.x); }
SIMT_FP16 __half2 __high2half2(__half2 h) { return __half2(h.y, h.y); }
SIMT_FP16 __half2 __lows2half2(__half2 a, __half2 b) { return __half2(a.x, b.x); }
SIMT_FP16 __half2 __highs2half2(__half2 a, __half2 b) { return __half2(a.y, b.y); }
SIMT_FP16 __half2 __lowhigh2highlow(__half2 h) { return __half2(h.y, h.x); }

/* Arithmetic: exact operands in float, one rounding to half (float's 24
 * bits >= 2 * 11 + 2, so +, -, *, / and sqrt are correctly rounded). */
SIMT_FP16 __half __hadd(__half a, __half b) { return __float2half(__half2float(a) + __half2float(b)); }
SIMT_FP16 __half __hsub(__half a, __half b) { return __float2half(__half2float(a) - __half2float(b)); }
SIMT_FP16 __half __hmul(__half a, __half b) { return __float2half(__half2float(a) * __half2float(b)); }
SIMT_FP16 __half __hdiv(__half a, __half b) { return __float2half(__half2float(a) / __half2float(b)); }
SIMT_FP16 __half __hadd_rn(__half a, __half b) { return __hadd(a, b); }
SIMT_FP16 __half __hsub_rn(__half a, __half b) { return __hsub(a, b); }
SIMT_FP16 __half __hmul_rn(__half a, __half b) { return __hmul(a, b); }
SIMT_FP16 __half __hfma(__half a, __half b, __half c)
{
	return __double2half(__simt_fma_round_to_odd(__half2float(a), __half2float(b), __half2float(c)));
}
SIMT_FP16 __half __hneg(__half a) { return __ushort_as_half(__half_as_ushort(a) ^ 0x8000); }
SIMT_FP16 __half __habs(__half a) { return __ushort_as_half(__half_as_ushort(a) & 0x7fff); }
SIMT_FP16 bool __hisnan(__half a) { return (__half_as_ushort(a) & 0x7fff) > 0x7c00; }
SIMT_FP16 int __hisinf(__half a)
{
	const unsigned short u = __half_as_ushort(a);
	return u == 0x7c00 ? 1 : u == 0xfc00 ? -1 : 0;
}
/* _sat: clamped to [0, 1], NaN -> +0, as NVIDIA's. */
SIMT_FP16 __half __simt_hsat(__half a)
{
	const float f = __half2float(a);
	if (!(f > 0))
		return __ushort_as_half(0);
	return f > 1 ? __ushort_as_half(0x3c00) : a;
}
SIMT_FP16 __half __hadd_sat(__half a, __half b) { return __simt_hsat(__hadd(a, b)); }
SIMT_FP16 __half __hsub_sat(__half a, __half b) { return __simt_hsat(__hsub(a, b)); }
SIMT_FP16 __half __hmul_sat(__half a, __half b) { return __simt_hsat(__hmul(a, b)); }
SIMT_FP16 __half __hfma_sat(__half a, __half b, __half c) { return __simt_hsat(__hfma(a, b, c)); }
SIMT_FP16 __half __hfma_relu(__half a, __half b, __half c)
{
	const __half r = __hfma(a, b, c);
	return __hisnan(r) ? r : __half2float(r) < 0 ? __ushort_as_half(0) : r;
}

/* Comparisons: ordered ones are false on NaN, the u forms true. */
SIMT_FP16 bool __heq(__half a, __half b) { return __half2float(a) == __half2float(b); }
SIMT_FP16 bool __hne(__half a, __half b)
{
	return !__hisnan(a) && !__hisnan(b) && __half2float(a) != __half2float(b);
}
SIMT_FP16 bool __hlt(__half a, __half b) { return __half2float(a) < __half2float(b); }
SIMT_FP16 bool __hle(__half a, __half b) { return __half2float(a) <= __half2float(b); }
SIMT_FP16 bool __hgt(__half a, __half b) { return __half2float(a) > __half2float(b); }
SIMT_FP16 bool __hge(__half a, __half b) { return __half2float(a) >= __half2float(b); }
SIMT_FP16 bool __hequ(__half a, __half b) { return !__hne(a, b); }
SIMT_FP16 bool __hneu(__half a, __half b) { return !__heq(a, b); }
SIMT_FP16 bool __hltu(__half a, __half b) { return !__hge(a, b); }
SIMT_FP16 bool __hleu(__half a, __half b) { return !__hgt(a, b); }
SIMT_FP16 bool __hgtu(__half a, __half b) { return !__hle(a, b); }
SIMT_FP16 bool __hgeu(__half a, __half b) { return !__hlt(a, b); }
/* max/min: a NaN operand loses (the other is returned); both NaN -> NaN.
 * The _nan forms return the canonical NaN when either is NaN. */
SIMT_FP16 __half __hmax(__half a, __half b)
{
	if (__hisnan(a))
		return __hisnan(b) ? __ushort_as_half(SIMT_NARROW_CANONICAL_NAN) : b;
	if (__hisnan(b))
		return a;
	return __hgt(a, b) || (__heq(a, b) && !(__half_as_ushort(a) & 0x8000)) ? a : b;
}
SIMT_FP16 __half __hmin(__half a, __half b)
{
	if (__hisnan(a))
		return __hisnan(b) ? __ushort_as_half(SIMT_NARROW_CANONICAL_NAN) : b;
	if (__hisnan(b))
		return a;
	return __hlt(a, b) || (__heq(a, b) && (__half_as_ushort(a) & 0x8000)) ? a : b;
}
SIMT_FP16 __half __hmax_nan(__half a, __half b)
{
	return __hisnan(a) || __hisnan(b) ? __ushort_as_half(SIMT_NARROW_CANONICAL_NAN) : __hmax(a, b);
}
SIMT_FP16 __half __hmin_nan(__half a, __half b)
{
	return __hisnan(a) || __hisnan(b) ? __ushort_as_half(SIMT_NARROW_CANONICAL_NAN) : __hmin(a, b);
}

/* Math: the float function, rounded to half. sqrt is correctly rounded. */
#define SIMT_FP16_MATH(name, expr)                                                   \
	SIMT_FP16 __half h##name(__half a)                                             \
	{                                                                              \
		const float x = __half2float(a);                                       \
		return __float2half(expr);                                             \
	}                                                                              \
	SIMT_FP16 __half2 h2##name(__half2 a) { return __half2(h##name(a.x), h##name(a.y)); }
SIMT_FP16_MATH(sqrt, sqrtf(x))
SIMT_FP16_MATH(rsqrt, 1.0f / sqrtf(x))
SIMT_FP16_MATH(rcp, 1.0f / x)
SIMT_FP16_MATH(exp, expf(x))
SIMT_FP16_MATH(exp2, exp2f(x))
SIMT_FP16_MATH(exp10, powf(10.0f, x))
SIMT_FP16_MATH(log, logf(x))
SIMT_FP16_MATH(log2, log2f(x))
SIMT_FP16_MATH(log10, log10f(x))
SIMT_FP16_MATH(sin, sinf(x))
SIMT_FP16_MATH(cos, cosf(x))
SIMT_FP16_MATH(ceil, ceilf(x))
SIMT_FP16_MATH(floor, floorf(x))
SIMT_FP16_MATH(trunc, truncf(x))
SIMT_FP16_MATH(rint, rintf(x))
#undef SIMT_FP16_MATH

/* __half2: each half on its own. */
#define SIMT_FP16_PAIR2(name, scalar)                                                \
	SIMT_FP16 __half2 name(__half2 a, __half2 b)                                   \
	{                                                                              \
		return __half2(scalar(a.x, b.x), scalar(a.y, b.y));                    \
	}
SIMT_FP16_PAIR2(__hadd2, __hadd)
SIMT_FP16_PAIR2(__hsub2, __hsub)
SIMT_FP16_PAIR2(__hmul2, __hmul)
SIMT_FP16_PAIR2(__h2div, __hdiv)
SIMT_FP16_PAIR2(__hadd2_rn, __hadd)
SIMT_FP16_PAIR2(__hsub2_rn, __hsub)
SIMT_FP16_PAIR2(__hmul2_rn, __hmul)
SIMT_FP16_PAIR2(__hadd2_sat, __hadd_sat)
SIMT_FP16_PAIR2(__hsub2_sat, __hsub_sat)
SIMT_FP16_PAIR2(__hmul2_sat, __hmul_sat)
SIMT_FP16_PAIR2(__hmax2, __hmax)
SIMT_FP16_PAIR2(__hmin2, __hmin)
SIMT_FP16_PAIR2(__hmax2_nan, __hmax_nan)
SIMT_FP16_PAIR2(__hmin2_nan, __hmin_nan)
#undef SIMT_FP16_PAIR2
SIMT_FP16 __half2 __hfma2(__half2 a, __half2 b, __half2 c)
{
	return __half2(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y));
}
SIMT_FP16 __half2 __hfma2_sat(__half2 a, __half2 b, __half2 c)
{
	return __half2(__hfma_sat(a.x, b.x, c.x), __hfma_sat(a.y, b.y, c.y));
}
SIMT_FP16 __half2 __hfma2_relu(__half2 a, __half2 b, __half2 c)
{
	return __half2(__hfma_relu(a.x, b.x, c.x), __hfma_relu(a.y, b.y, c.y));
}
SIMT_FP16 __half2 __hneg2(__half2 a) { return __half2(__hneg(a.x), __hneg(a.y)); }
SIMT_FP16 __half2 __habs2(__half2 a) { return __half2(__habs(a.x), __habs(a.y)); }
SIMT_FP16 __half2 __hisnan2(__half2 a)
{
	return __half2(__float2half(__hisnan(a.x) ? 1.0f : 0.0f), __float2half(__hisnan(a.y) ? 1.0f : 0.0f));
}
/* Comparisons of __half2: __heq2 and friends give 1.0/0.0 per half, __hbeq2
 * and friends whether both halves compare true. */
#define SIMT_FP16_COMPARE2(suffix)                                                     \
	SIMT_FP16 __half2 __h##suffix##2(__half2 a, __half2 b)                           \
	{                                                                                \
		return __half2(__float2half(__h##suffix(a.x, b.x) ? 1.0f : 0.0f),        \
			       __float2half(__h##suffix(a.y, b.y) ? 1.0f : 0.0f));       \
	}                                                                                \
	SIMT_FP16 bool __hb##suffix##2(__half2 a, __half2 b)                             \
	{                                                                                \
		return __h##suffix(a.x, b.x) && __h##suffix(a.y, b.y);                   \
	}
SIMT_FP16_COMPARE2(eq)
SIMT_FP16_COMPARE2(ne)
SIMT_FP16_COMPARE2(lt)
SIMT_FP16_COMPARE2(le)
SIMT_FP16_COMPARE2(gt)
SIMT_FP16_COMPARE2(ge)
SIMT_FP16_COMPARE2(equ)
SIMT_FP16_COMPARE2(neu)
SIMT_FP16_COMPARE2(ltu)
SIMT_FP16_COMPARE2(leu)
SIMT_FP16_COMPARE2(gtu)
SIMT_FP16_COMPARE2(geu)
#undef SIMT_FP16_COMPARE2

/* Operators, as NVIDIA's cuda_fp16.hpp defines them. */
SIMT_FP16 __half operator+(const __half &a, const __half &b) { return __hadd(a, b); }
SIMT_FP16 __half operator-(const __half &a, const __half &b) { return __hsub(a, b); }
SIMT_FP16 __half operator*(const __half &a, const __half &b) { return __hmul(a, b); }
SIMT_FP16 __half operator/(const __half &a, const __half &b) { return __hdiv(a, b); }
SIMT_FP16 __half &operator+=(__half &a, const __half &b) { return a = __hadd(a, b); }
SIMT_FP16 __half &operator-=(__half &a, const __half &b) { return a = __hsub(a, b); }
SIMT_FP16 __half &operator*=(__half &a, const __half &b) { return a = __hmul(a, b); }
SIMT_FP16 __half &operator/=(__half &a, const __half &b) { return a = __hdiv(a, b); }
SIMT_FP16 __half operator+(const __half &a) { return a; }
SIMT_FP16 __half operator-(const __half &a) { return __hneg(a); }
SIMT_FP16 __half &operator++(__half &a) { return a = __hadd(a, __ushort_as_half(0x3c00)); }
SIMT_FP16 __half &operator--(__half &a) { return a = __hsub(a, __ushort_as_half(0x3c00)); }
SIMT_FP16 __half operator++(__half &a, int)
{
	const __half old = a;
	++a;
	return old;
}
SIMT_FP16 __half operator--(__half &a, int)
{
	const __half old = a;
	--a;
	return old;
}
SIMT_FP16 bool operator==(const __half &a, const __half &b) { return __heq(a, b); }
SIMT_FP16 bool operator!=(const __half &a, const __half &b) { return __hneu(a, b); }
SIMT_FP16 bool operator<(const __half &a, const __half &b) { return __hlt(a, b); }
SIMT_FP16 bool operator<=(const __half &a, const __half &b) { return __hle(a, b); }
SIMT_FP16 bool operator>(const __half &a, const __half &b) { return __hgt(a, b); }
SIMT_FP16 bool operator>=(const __half &a, const __half &b) { return __hge(a, b); }

SIMT_FP16 __half2 operator+(const __half2 &a, const __half2 &b) { return __hadd2(a, b); }
SIMT_FP16 __half2 operator-(const __half2 &a, const __half2 &b) { return __hsub2(a, b); }
SIMT_FP16 __half2 operator*(const __half2 &a, const __half2 &b) { return __hmul2(a, b); }
SIMT_FP16 __half2 operator/(const __half2 &a, const __half2 &b) { return __h2div(a, b); }
SIMT_FP16 __half2 &operator+=(__half2 &a, const __half2 &b) { return a = __hadd2(a, b); }
SIMT_FP16 __half2 &operator-=(__half2 &a, const __half2 &b) { return a = __hsub2(a, b); }
SIMT_FP16 __half2 &operator*=(__half2 &a, const __half2 &b) { return a = __hmul2(a, b); }
SIMT_FP16 __half2 &operator/=(__half2 &a, const __half2 &b) { return a = __h2div(a, b); }
SIMT_FP16 __half2 operator+(const __half2 &a) { return a; }
SIMT_FP16 __half2 operator-(const __half2 &a) { return __hneg2(a); }
SIMT_FP16 bool operator==(const __half2 &a, const __half2 &b) { return __hbeq2(a, b); }
SIMT_FP16 bool operator!=(const __half2 &a, const __half2 &b) { return __hbneu2(a, b); }
SIMT_FP16 bool operator<(const __half2 &a, const __half2 &b) { return __hblt2(a, b); }
SIMT_FP16 bool operator<=(const __half2 &a, const __half2 &b) { return __hble2(a, b); }
SIMT_FP16 bool operator>(const __half2 &a, const __half2 &b) { return __hbgt2(a, b); }
SIMT_FP16 bool operator>=(const __half2 &a, const __half2 &b) { return __hbge2(a, b); }

#if defined(__CUDA__) && defined(__clang__)
/* Warp shuffles and __ldg of the 16-bit types, through their bits. */
#define SIMT_FP16_SHUFFLE(name, lane_type)                                                    \
	__device__ inline __half name(unsigned mask, __half var, lane_type lane, int width = 32) \
	{                                                                                      \
		return __ushort_as_half(                                                       \
			(unsigned short)name(mask, (int)__half_as_ushort(var), lane, width));  \
	}                                                                                      \
	__device__ inline __half2 name(unsigned mask, __half2 var, lane_type lane, int width = 32) \
	{                                                                                      \
		return __half2(name(mask, var.x, lane, width), name(mask, var.y, lane, width)); \
	}
SIMT_FP16_SHUFFLE(__shfl_sync, int)
SIMT_FP16_SHUFFLE(__shfl_up_sync, unsigned int)
SIMT_FP16_SHUFFLE(__shfl_down_sync, unsigned int)
SIMT_FP16_SHUFFLE(__shfl_xor_sync, int)
#undef SIMT_FP16_SHUFFLE
__device__ inline __half __ldg(const __half *p) { return __ushort_as_half(__ldg((const unsigned short *)p)); }
__device__ inline __half2 __ldg(const __half2 *p) { return __half2(__ldg(&p->x), __ldg(&p->y)); }
#endif

#undef SIMT_FP16
#else /* C: the storage types alone, as NVIDIA's header gives C (cublas_api.h's Hgemm takes them) */
typedef struct __half_raw {
	unsigned short x;
} __half_raw;
typedef __half_raw __half;
typedef struct __half2_raw {
	unsigned short x, y;
} __half2_raw;
typedef __half2_raw __half2;
#endif /* __cplusplus */
#endif /* SIMTGPU_CUDA_FP16_H */
