/* SPDX-License-Identifier: MIT */
/*
 * CUDA's bfloat16: __nv_bfloat16 (float's sign and 8-bit exponent, 7 stored
 * mantissa bits) and __nv_bfloat162, their conversions, operators,
 * arithmetic, comparisons and math functions, with NVIDIA's names
 * (cuda_bf16.h; the arithmetic names are __hadd, __hfma2, hexp, ... as
 * overloads of the half ones). As in cuda_fp16.h (which it includes): every
 * operation computes in double (sqrt and the math functions in float) and
 * rounds once, in simt_narrow_float.h, so +, -, *, /, sqrt and fma are
 * correctly rounded.
 * Generated once from cuda_fp16.h by renaming; keep the two in step.
 */
#ifndef SIMTGPU_CUDA_BF16_H
#define SIMTGPU_CUDA_BF16_H
/* NVIDIA's guards. */
#define __CUDA_BF16_H__
#define __CUDA_BF16_HPP__
#define __CUDA_BF16_TYPES_EXIST__

#include "cuda_fp16.h"

#ifdef __cplusplus

#define __CUDA_HOSTDEVICE_BF16_DECL__ static inline __host__ __device__
#define SIMT_BF16 __CUDA_HOSTDEVICE_BF16_DECL__

struct __nv_bfloat16_raw {
	unsigned short x;
};
struct __nv_bfloat162_raw {
	unsigned short x;
	unsigned short y;
};

SIMT_BF16 unsigned short __simt_float2bfloat16_bits(float f, simt_round_mode mode)
{
	return __simt_narrow_from_double((double)f, 8, 7, mode);
}

SIMT_BF16 float __simt_bfloat16_bits2float(unsigned short h)
{
	return __simt_narrow_to_float(h, 8, 7);
}

struct __align__(2) __nv_bfloat16 {
  protected:
	unsigned short __x;

  public:
	__nv_bfloat16() = default;
	__host__ __device__ __nv_bfloat16(const __nv_bfloat16_raw &r) : __x(r.x) {}
	__host__ __device__ __nv_bfloat16 &operator=(const __nv_bfloat16_raw &r)
	{
		__x = r.x;
		return *this;
	}
	__host__ __device__ operator __nv_bfloat16_raw() const { return __nv_bfloat16_raw{__x}; }

	/* Conversions as NVIDIA's (no __CUDA_NO_HALF_CONVERSIONS__). */
	__host__ __device__ __nv_bfloat16(float f) : __x(__simt_float2bfloat16_bits(f, SIMT_ROUND_NEAREST_EVEN)) {}
	__host__ __device__ __nv_bfloat16(double d)
		: __x(__simt_narrow_from_double(d, 8, 7, SIMT_ROUND_NEAREST_EVEN))
	{
	}
	__host__ __device__ __nv_bfloat16(int i) : __nv_bfloat16((double)i) {}
	__host__ __device__ __nv_bfloat16(unsigned int i) : __nv_bfloat16((double)i) {}
	__host__ __device__ __nv_bfloat16(short i) : __nv_bfloat16((double)i) {}
	__host__ __device__ __nv_bfloat16(unsigned short i) : __nv_bfloat16((double)i) {}
	__host__ __device__ __nv_bfloat16(long long i) : __nv_bfloat16(__simt_i64_to_double_odd(i)) {}
	__host__ __device__ __nv_bfloat16(unsigned long long i) : __nv_bfloat16(__simt_u64_to_double_odd(i)) {}
	__host__ __device__ __nv_bfloat16(long i) : __nv_bfloat16((long long)i) {}
	__host__ __device__ __nv_bfloat16(unsigned long i) : __nv_bfloat16((unsigned long long)i) {}

	__host__ __device__ operator float() const { return __simt_bfloat16_bits2float(__x); }
	__host__ __device__ explicit operator bool() const { return (__x & 0x7fff) != 0; }
	/* Integer conversions truncate toward zero, NaN gives 0, out of range
	 * saturates, as NVIDIA's __nv_bfloat162*_rz. */
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

struct __align__(4) __nv_bfloat162 {
	__nv_bfloat16 x;
	__nv_bfloat16 y;

	__nv_bfloat162() = default;
	__host__ __device__ __nv_bfloat162(const __nv_bfloat16 &a, const __nv_bfloat16 &b) : x(a), y(b) {}
	__host__ __device__ __nv_bfloat162(const __nv_bfloat162_raw &r) : x(__nv_bfloat16_raw{r.x}), y(__nv_bfloat16_raw{r.y}) {}
	__host__ __device__ __nv_bfloat162 &operator=(const __nv_bfloat162_raw &r)
	{
		x = __nv_bfloat16_raw{r.x};
		y = __nv_bfloat16_raw{r.y};
		return *this;
	}
	__host__ __device__ operator __nv_bfloat162_raw() const
	{
		return __nv_bfloat162_raw{__nv_bfloat16_raw(x).x, __nv_bfloat16_raw(y).x};
	}
};

typedef __nv_bfloat16 nv_bfloat16;
typedef __nv_bfloat162 nv_bfloat162;

/* Bits and reinterpretation. */
SIMT_BF16 unsigned short __bfloat16_as_ushort(__nv_bfloat16 h) { return __nv_bfloat16_raw(h).x; }
SIMT_BF16 short __bfloat16_as_short(__nv_bfloat16 h) { return (short)__nv_bfloat16_raw(h).x; }
SIMT_BF16 __nv_bfloat16 __ushort_as_bfloat16(unsigned short u) { return __nv_bfloat16_raw{u}; }
SIMT_BF16 __nv_bfloat16 __short_as_bfloat16(short s) { return __nv_bfloat16_raw{(unsigned short)s}; }

/* Float and double. */
SIMT_BF16 float __bfloat162float(__nv_bfloat16 h) { return __simt_bfloat16_bits2float(__bfloat16_as_ushort(h)); }
SIMT_BF16 __nv_bfloat16 __float2bfloat16(float f)
{
	return __nv_bfloat16_raw{__simt_float2bfloat16_bits(f, SIMT_ROUND_NEAREST_EVEN)};
}
SIMT_BF16 __nv_bfloat16 __float2bfloat16_rn(float f) { return __float2bfloat16(f); }
SIMT_BF16 __nv_bfloat16 __float2bfloat16_rz(float f)
{
	return __nv_bfloat16_raw{__simt_float2bfloat16_bits(f, SIMT_ROUND_TOWARD_ZERO)};
}
SIMT_BF16 __nv_bfloat16 __float2bfloat16_rd(float f)
{
	return __nv_bfloat16_raw{__simt_float2bfloat16_bits(f, SIMT_ROUND_DOWN)};
}
SIMT_BF16 __nv_bfloat16 __float2bfloat16_ru(float f)
{
	return __nv_bfloat16_raw{__simt_float2bfloat16_bits(f, SIMT_ROUND_UP)};
}
SIMT_BF16 __nv_bfloat16 __double2bfloat16(double d)
{
	return __nv_bfloat16_raw{__simt_narrow_from_double(d, 8, 7, SIMT_ROUND_NEAREST_EVEN)};
}
SIMT_BF16 __nv_bfloat162 __float2bfloat162_rn(float f)
{
	const __nv_bfloat16 h = __float2bfloat16(f);
	return __nv_bfloat162(h, h);
}
SIMT_BF16 __nv_bfloat162 __floats2bfloat162_rn(float lo, float hi)
{
	return __nv_bfloat162(__float2bfloat16(lo), __float2bfloat16(hi));
}
SIMT_BF16 __nv_bfloat162 __float22bfloat162_rn(float2 f) { return __floats2bfloat162_rn(f.x, f.y); }
SIMT_BF16 float2 __bfloat1622float2(__nv_bfloat162 h)
{
	return make_float2(__bfloat162float(h.x), __bfloat162float(h.y));
}
SIMT_BF16 float __low2float(__nv_bfloat162 h) { return __bfloat162float(h.x); }
SIMT_BF16 float __high2float(__nv_bfloat162 h) { return __bfloat162float(h.y); }

/* Integers: to bfloat16 through double (exact, or rounded to odd above 2^53), rounded in the
 * named mode; from bfloat16 as float, rounded in the named mode, NaN -> 0,
 * saturated to the integer's range. */
SIMT_BF16 __nv_bfloat16 __simt_int2bfloat16(double d, simt_round_mode mode)
{
	return __nv_bfloat16_raw{__simt_narrow_from_double(d, 8, 7, mode)};
}
#define SIMT_BF16_FROM_INT(name, type, to_double)                                                          \
	SIMT_BF16 __nv_bfloat16 name##_rn(type i) { return __simt_int2bfloat16(to_double(i), SIMT_ROUND_NEAREST_EVEN); } \
	SIMT_BF16 __nv_bfloat16 name##_rz(type i) { return __simt_int2bfloat16(to_double(i), SIMT_ROUND_TOWARD_ZERO); } \
	SIMT_BF16 __nv_bfloat16 name##_rd(type i) { return __simt_int2bfloat16(to_double(i), SIMT_ROUND_DOWN); }     \
	SIMT_BF16 __nv_bfloat16 name##_ru(type i) { return __simt_int2bfloat16(to_double(i), SIMT_ROUND_UP); }
SIMT_BF16_FROM_INT(__int2bfloat16, int, (double))
SIMT_BF16_FROM_INT(__uint2bfloat16, unsigned int, (double))
SIMT_BF16_FROM_INT(__short2bfloat16, short, (double))
SIMT_BF16_FROM_INT(__ushort2bfloat16, unsigned short, (double))
SIMT_BF16_FROM_INT(__ll2bfloat16, long long, __simt_i64_to_double_odd)
SIMT_BF16_FROM_INT(__ull2bfloat16, unsigned long long, __simt_u64_to_double_odd)
#undef SIMT_BF16_FROM_INT

#define SIMT_BF16_TO_INT(name, type, lowest, highest)                                     \
	SIMT_BF16 type __simt_##name(__nv_bfloat16 h, simt_round_mode mode)                        \
	{                                                                                   \
		const float f = __bfloat162float(h);                                            \
		if (f != f)                                                                 \
			return 0;                                                           \
		const double r = __simt_round_integral(f, mode);                            \
		if (r <= (double)(lowest))                                                  \
			return (lowest);                                                    \
		if (r >= (double)(highest))                                                 \
			return (highest);                                                   \
		return (type)r;                                                             \
	}                                                                                   \
	SIMT_BF16 type name##_rn(__nv_bfloat16 h) { return __simt_##name(h, SIMT_ROUND_NEAREST_EVEN); } \
	SIMT_BF16 type name##_rz(__nv_bfloat16 h) { return __simt_##name(h, SIMT_ROUND_TOWARD_ZERO); } \
	SIMT_BF16 type name##_rd(__nv_bfloat16 h) { return __simt_##name(h, SIMT_ROUND_DOWN); }       \
	SIMT_BF16 type name##_ru(__nv_bfloat16 h) { return __simt_##name(h, SIMT_ROUND_UP); }
SIMT_BF16_TO_INT(__bfloat162int, int, (-2147483647 - 1), 2147483647)
SIMT_BF16_TO_INT(__bfloat162uint, unsigned int, 0u, 4294967295u)
SIMT_BF16_TO_INT(__bfloat162short, short, (short)-32768, (short)32767)
SIMT_BF16_TO_INT(__bfloat162ushort, unsigned short, (unsigned short)0, (unsigned short)65535)
SIMT_BF16_TO_INT(__bfloat162ll, long long, (-9223372036854775807ll - 1), 9223372036854775807ll)
SIMT_BF16_TO_INT(__bfloat162ull, unsigned long long, 0ull, 18446744073709551615ull)
#undef SIMT_BF16_TO_INT

__host__ __device__ inline __nv_bfloat16::operator int() const { return __bfloat162int_rz(*this); }
__host__ __device__ inline __nv_bfloat16::operator unsigned int() const { return __bfloat162uint_rz(*this); }
__host__ __device__ inline __nv_bfloat16::operator short() const { return __bfloat162short_rz(*this); }
__host__ __device__ inline __nv_bfloat16::operator unsigned short() const
{
	return __bfloat162ushort_rz(*this);
}
__host__ __device__ inline __nv_bfloat16::operator long long() const { return __bfloat162ll_rz(*this); }
__host__ __device__ inline __nv_bfloat16::operator unsigned long long() const
{
	return __bfloat162ull_rz(*this);
}

/* Building and taking apart __nv_bfloat162. */
SIMT_BF16 __nv_bfloat162 __halves2bfloat162(__nv_bfloat16 lo, __nv_bfloat16 hi) { return __nv_bfloat162(lo, hi); }
SIMT_BF16 __nv_bfloat162 __bfloat162bfloat162(__nv_bfloat16 h) { return __nv_bfloat162(h, h); }
SIMT_BF16 __nv_bfloat16 __low2bfloat16(__nv_bfloat162 h) { return h.x; }
SIMT_BF16 __nv_bfloat16 __high2bfloat16(__nv_bfloat162 h) { return h.y; }
SIMT_BF16 __nv_bfloat162 __low2bfloat162(__nv_bfloat162 h) { return __nv_bfloat162(h.x, h.x); }
SIMT_BF16 __nv_bfloat162 __high2bfloat162(__nv_bfloat162 h) { return __nv_bfloat162(h.y, h.y); }
SIMT_BF16 __nv_bfloat162 __lows2bfloat162(__nv_bfloat162 a, __nv_bfloat162 b) { return __nv_bfloat162(a.x, b.x); }
SIMT_BF16 __nv_bfloat162 __highs2bfloat162(__nv_bfloat162 a, __nv_bfloat162 b) { return __nv_bfloat162(a.y, b.y); }
SIMT_BF16 __nv_bfloat162 __lowhigh2highlow(__nv_bfloat162 h) { return __nv_bfloat162(h.y, h.x); }

/* Arithmetic: exact operands in double (not float: a float result in
 * float's subnormal range, which bfloat16 shares, has too few bits to round
 * again), one rounding to bfloat16, correctly rounded (53 >= 2 * 8 + 2). */
SIMT_BF16 __nv_bfloat16 __hadd(__nv_bfloat16 a, __nv_bfloat16 b)
{
	return __double2bfloat16((double)__bfloat162float(a) + (double)__bfloat162float(b));
}
SIMT_BF16 __nv_bfloat16 __hsub(__nv_bfloat16 a, __nv_bfloat16 b)
{
	return __double2bfloat16((double)__bfloat162float(a) - (double)__bfloat162float(b));
}
SIMT_BF16 __nv_bfloat16 __hmul(__nv_bfloat16 a, __nv_bfloat16 b)
{
	return __double2bfloat16((double)__bfloat162float(a) * (double)__bfloat162float(b));
}
SIMT_BF16 __nv_bfloat16 __hdiv(__nv_bfloat16 a, __nv_bfloat16 b)
{
	return __double2bfloat16((double)__bfloat162float(a) / (double)__bfloat162float(b));
}
SIMT_BF16 __nv_bfloat16 __hadd_rn(__nv_bfloat16 a, __nv_bfloat16 b) { return __hadd(a, b); }
SIMT_BF16 __nv_bfloat16 __hsub_rn(__nv_bfloat16 a, __nv_bfloat16 b) { return __hsub(a, b); }
SIMT_BF16 __nv_bfloat16 __hmul_rn(__nv_bfloat16 a, __nv_bfloat16 b) { return __hmul(a, b); }
SIMT_BF16 __nv_bfloat16 __hfma(__nv_bfloat16 a, __nv_bfloat16 b, __nv_bfloat16 c)
{
	return __double2bfloat16(__simt_fma_round_to_odd(__bfloat162float(a), __bfloat162float(b), __bfloat162float(c)));
}
SIMT_BF16 __nv_bfloat16 __hneg(__nv_bfloat16 a) { return __ushort_as_bfloat16(__bfloat16_as_ushort(a) ^ 0x8000); }
SIMT_BF16 __nv_bfloat16 __habs(__nv_bfloat16 a) { return __ushort_as_bfloat16(__bfloat16_as_ushort(a) & 0x7fff); }
SIMT_BF16 bool __hisnan(__nv_bfloat16 a) { return (__bfloat16_as_ushort(a) & 0x7fff) > 0x7f80; }
SIMT_BF16 int __hisinf(__nv_bfloat16 a)
{
	const unsigned short u = __bfloat16_as_ushort(a);
	return u == 0x7f80 ? 1 : u == 0xff80 ? -1 : 0;
}
/* _sat: clamped to [0, 1], NaN -> +0, as NVIDIA's. */
SIMT_BF16 __nv_bfloat16 __simt_bf16_sat(__nv_bfloat16 a)
{
	const float f = __bfloat162float(a);
	if (!(f > 0))
		return __ushort_as_bfloat16(0);
	return f > 1 ? __ushort_as_bfloat16(0x3f80) : a;
}
SIMT_BF16 __nv_bfloat16 __hadd_sat(__nv_bfloat16 a, __nv_bfloat16 b) { return __simt_bf16_sat(__hadd(a, b)); }
SIMT_BF16 __nv_bfloat16 __hsub_sat(__nv_bfloat16 a, __nv_bfloat16 b) { return __simt_bf16_sat(__hsub(a, b)); }
SIMT_BF16 __nv_bfloat16 __hmul_sat(__nv_bfloat16 a, __nv_bfloat16 b) { return __simt_bf16_sat(__hmul(a, b)); }
SIMT_BF16 __nv_bfloat16 __hfma_sat(__nv_bfloat16 a, __nv_bfloat16 b, __nv_bfloat16 c) { return __simt_bf16_sat(__hfma(a, b, c)); }
SIMT_BF16 __nv_bfloat16 __hfma_relu(__nv_bfloat16 a, __nv_bfloat16 b, __nv_bfloat16 c)
{
	const __nv_bfloat16 r = __hfma(a, b, c);
	return __hisnan(r) ? r : __bfloat162float(r) < 0 ? __ushort_as_bfloat16(0) : r;
}

/* Comparisons: ordered ones are false on NaN, the u forms true. */
SIMT_BF16 bool __heq(__nv_bfloat16 a, __nv_bfloat16 b) { return __bfloat162float(a) == __bfloat162float(b); }
SIMT_BF16 bool __hne(__nv_bfloat16 a, __nv_bfloat16 b)
{
	return !__hisnan(a) && !__hisnan(b) && __bfloat162float(a) != __bfloat162float(b);
}
SIMT_BF16 bool __hlt(__nv_bfloat16 a, __nv_bfloat16 b) { return __bfloat162float(a) < __bfloat162float(b); }
SIMT_BF16 bool __hle(__nv_bfloat16 a, __nv_bfloat16 b) { return __bfloat162float(a) <= __bfloat162float(b); }
SIMT_BF16 bool __hgt(__nv_bfloat16 a, __nv_bfloat16 b) { return __bfloat162float(a) > __bfloat162float(b); }
SIMT_BF16 bool __hge(__nv_bfloat16 a, __nv_bfloat16 b) { return __bfloat162float(a) >= __bfloat162float(b); }
SIMT_BF16 bool __hequ(__nv_bfloat16 a, __nv_bfloat16 b) { return !__hne(a, b); }
SIMT_BF16 bool __hneu(__nv_bfloat16 a, __nv_bfloat16 b) { return !__heq(a, b); }
SIMT_BF16 bool __hltu(__nv_bfloat16 a, __nv_bfloat16 b) { return !__hge(a, b); }
SIMT_BF16 bool __hleu(__nv_bfloat16 a, __nv_bfloat16 b) { return !__hgt(a, b); }
SIMT_BF16 bool __hgtu(__nv_bfloat16 a, __nv_bfloat16 b) { return !__hle(a, b); }
SIMT_BF16 bool __hgeu(__nv_bfloat16 a, __nv_bfloat16 b) { return !__hlt(a, b); }
/* max/min: a NaN operand loses (the other is returned); both NaN -> NaN.
 * The _nan forms return the canonical NaN when either is NaN. */
SIMT_BF16 __nv_bfloat16 __hmax(__nv_bfloat16 a, __nv_bfloat16 b)
{
	if (__hisnan(a))
		return __hisnan(b) ? __ushort_as_bfloat16(SIMT_NARROW_CANONICAL_NAN) : b;
	if (__hisnan(b))
		return a;
	return __hgt(a, b) || (__heq(a, b) && !(__bfloat16_as_ushort(a) & 0x8000)) ? a : b;
}
SIMT_BF16 __nv_bfloat16 __hmin(__nv_bfloat16 a, __nv_bfloat16 b)
{
	if (__hisnan(a))
		return __hisnan(b) ? __ushort_as_bfloat16(SIMT_NARROW_CANONICAL_NAN) : b;
	if (__hisnan(b))
		return a;
	return __hlt(a, b) || (__heq(a, b) && (__bfloat16_as_ushort(a) & 0x8000)) ? a : b;
}
SIMT_BF16 __nv_bfloat16 __hmax_nan(__nv_bfloat16 a, __nv_bfloat16 b)
{
	return __hisnan(a) || __hisnan(b) ? __ushort_as_bfloat16(SIMT_NARROW_CANONICAL_NAN) : __hmax(a, b);
}
SIMT_BF16 __nv_bfloat16 __hmin_nan(__nv_bfloat16 a, __nv_bfloat16 b)
{
	return __hisnan(a) || __hisnan(b) ? __ushort_as_bfloat16(SIMT_NARROW_CANONICAL_NAN) : __hmin(a, b);
}

/* Math: the float function, rounded to bfloat16. sqrt is correctly rounded. */
#define SIMT_BF16_MATH(name, expr)                                                   \
	SIMT_BF16 __nv_bfloat16 h##name(__nv_bfloat16 a)                                             \
	{                                                                              \
		const float x = __bfloat162float(a);                                       \
		return __float2bfloat16(expr);                                             \
	}                                                                              \
	SIMT_BF16 __nv_bfloat162 h2##name(__nv_bfloat162 a) { return __nv_bfloat162(h##name(a.x), h##name(a.y)); }
SIMT_BF16_MATH(sqrt, sqrtf(x))
SIMT_BF16_MATH(rsqrt, 1.0f / sqrtf(x))
SIMT_BF16_MATH(rcp, 1.0f / x)
SIMT_BF16_MATH(exp, expf(x))
SIMT_BF16_MATH(exp2, exp2f(x))
SIMT_BF16_MATH(exp10, powf(10.0f, x))
SIMT_BF16_MATH(log, logf(x))
SIMT_BF16_MATH(log2, log2f(x))
SIMT_BF16_MATH(log10, log10f(x))
SIMT_BF16_MATH(sin, sinf(x))
SIMT_BF16_MATH(cos, cosf(x))
SIMT_BF16_MATH(ceil, ceilf(x))
SIMT_BF16_MATH(floor, floorf(x))
SIMT_BF16_MATH(trunc, truncf(x))
SIMT_BF16_MATH(rint, rintf(x))
#undef SIMT_BF16_MATH

/* __nv_bfloat162: each bfloat16 on its own. */
#define SIMT_BF16_PAIR2(name, scalar)                                                \
	SIMT_BF16 __nv_bfloat162 name(__nv_bfloat162 a, __nv_bfloat162 b)                                   \
	{                                                                              \
		return __nv_bfloat162(scalar(a.x, b.x), scalar(a.y, b.y));                    \
	}
SIMT_BF16_PAIR2(__hadd2, __hadd)
SIMT_BF16_PAIR2(__hsub2, __hsub)
SIMT_BF16_PAIR2(__hmul2, __hmul)
SIMT_BF16_PAIR2(__h2div, __hdiv)
SIMT_BF16_PAIR2(__hadd2_rn, __hadd)
SIMT_BF16_PAIR2(__hsub2_rn, __hsub)
SIMT_BF16_PAIR2(__hmul2_rn, __hmul)
SIMT_BF16_PAIR2(__hadd2_sat, __hadd_sat)
SIMT_BF16_PAIR2(__hsub2_sat, __hsub_sat)
SIMT_BF16_PAIR2(__hmul2_sat, __hmul_sat)
SIMT_BF16_PAIR2(__hmax2, __hmax)
SIMT_BF16_PAIR2(__hmin2, __hmin)
SIMT_BF16_PAIR2(__hmax2_nan, __hmax_nan)
SIMT_BF16_PAIR2(__hmin2_nan, __hmin_nan)
#undef SIMT_BF16_PAIR2
SIMT_BF16 __nv_bfloat162 __hfma2(__nv_bfloat162 a, __nv_bfloat162 b, __nv_bfloat162 c)
{
	return __nv_bfloat162(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y));
}
SIMT_BF16 __nv_bfloat162 __hfma2_sat(__nv_bfloat162 a, __nv_bfloat162 b, __nv_bfloat162 c)
{
	return __nv_bfloat162(__hfma_sat(a.x, b.x, c.x), __hfma_sat(a.y, b.y, c.y));
}
SIMT_BF16 __nv_bfloat162 __hfma2_relu(__nv_bfloat162 a, __nv_bfloat162 b, __nv_bfloat162 c)
{
	return __nv_bfloat162(__hfma_relu(a.x, b.x, c.x), __hfma_relu(a.y, b.y, c.y));
}
SIMT_BF16 __nv_bfloat162 __hneg2(__nv_bfloat162 a) { return __nv_bfloat162(__hneg(a.x), __hneg(a.y)); }
SIMT_BF16 __nv_bfloat162 __habs2(__nv_bfloat162 a) { return __nv_bfloat162(__habs(a.x), __habs(a.y)); }
SIMT_BF16 __nv_bfloat162 __hisnan2(__nv_bfloat162 a)
{
	return __nv_bfloat162(__float2bfloat16(__hisnan(a.x) ? 1.0f : 0.0f), __float2bfloat16(__hisnan(a.y) ? 1.0f : 0.0f));
}
/* Comparisons of __nv_bfloat162: __heq2 and friends give 1.0/0.0 per element, __hbeq2
 * and friends whether both elements compare true. */
#define SIMT_BF16_COMPARE2(suffix)                                                     \
	SIMT_BF16 __nv_bfloat162 __h##suffix##2(__nv_bfloat162 a, __nv_bfloat162 b)                           \
	{                                                                                \
		return __nv_bfloat162(__float2bfloat16(__h##suffix(a.x, b.x) ? 1.0f : 0.0f),        \
			       __float2bfloat16(__h##suffix(a.y, b.y) ? 1.0f : 0.0f));       \
	}                                                                                \
	SIMT_BF16 bool __hb##suffix##2(__nv_bfloat162 a, __nv_bfloat162 b)                             \
	{                                                                                \
		return __h##suffix(a.x, b.x) && __h##suffix(a.y, b.y);                   \
	}
SIMT_BF16_COMPARE2(eq)
SIMT_BF16_COMPARE2(ne)
SIMT_BF16_COMPARE2(lt)
SIMT_BF16_COMPARE2(le)
SIMT_BF16_COMPARE2(gt)
SIMT_BF16_COMPARE2(ge)
SIMT_BF16_COMPARE2(equ)
SIMT_BF16_COMPARE2(neu)
SIMT_BF16_COMPARE2(ltu)
SIMT_BF16_COMPARE2(leu)
SIMT_BF16_COMPARE2(gtu)
SIMT_BF16_COMPARE2(geu)
#undef SIMT_BF16_COMPARE2

/* Operators, as NVIDIA's cuda_fp16.hpp defines them. */
SIMT_BF16 __nv_bfloat16 operator+(const __nv_bfloat16 &a, const __nv_bfloat16 &b) { return __hadd(a, b); }
SIMT_BF16 __nv_bfloat16 operator-(const __nv_bfloat16 &a, const __nv_bfloat16 &b) { return __hsub(a, b); }
SIMT_BF16 __nv_bfloat16 operator*(const __nv_bfloat16 &a, const __nv_bfloat16 &b) { return __hmul(a, b); }
SIMT_BF16 __nv_bfloat16 operator/(const __nv_bfloat16 &a, const __nv_bfloat16 &b) { return __hdiv(a, b); }
SIMT_BF16 __nv_bfloat16 &operator+=(__nv_bfloat16 &a, const __nv_bfloat16 &b) { return a = __hadd(a, b); }
SIMT_BF16 __nv_bfloat16 &operator-=(__nv_bfloat16 &a, const __nv_bfloat16 &b) { return a = __hsub(a, b); }
SIMT_BF16 __nv_bfloat16 &operator*=(__nv_bfloat16 &a, const __nv_bfloat16 &b) { return a = __hmul(a, b); }
SIMT_BF16 __nv_bfloat16 &operator/=(__nv_bfloat16 &a, const __nv_bfloat16 &b) { return a = __hdiv(a, b); }
SIMT_BF16 __nv_bfloat16 operator+(const __nv_bfloat16 &a) { return a; }
SIMT_BF16 __nv_bfloat16 operator-(const __nv_bfloat16 &a) { return __hneg(a); }
SIMT_BF16 __nv_bfloat16 &operator++(__nv_bfloat16 &a) { return a = __hadd(a, __ushort_as_bfloat16(0x3f80)); }
SIMT_BF16 __nv_bfloat16 &operator--(__nv_bfloat16 &a) { return a = __hsub(a, __ushort_as_bfloat16(0x3f80)); }
SIMT_BF16 __nv_bfloat16 operator++(__nv_bfloat16 &a, int)
{
	const __nv_bfloat16 old = a;
	++a;
	return old;
}
SIMT_BF16 __nv_bfloat16 operator--(__nv_bfloat16 &a, int)
{
	const __nv_bfloat16 old = a;
	--a;
	return old;
}
SIMT_BF16 bool operator==(const __nv_bfloat16 &a, const __nv_bfloat16 &b) { return __heq(a, b); }
SIMT_BF16 bool operator!=(const __nv_bfloat16 &a, const __nv_bfloat16 &b) { return __hneu(a, b); }
SIMT_BF16 bool operator<(const __nv_bfloat16 &a, const __nv_bfloat16 &b) { return __hlt(a, b); }
SIMT_BF16 bool operator<=(const __nv_bfloat16 &a, const __nv_bfloat16 &b) { return __hle(a, b); }
SIMT_BF16 bool operator>(const __nv_bfloat16 &a, const __nv_bfloat16 &b) { return __hgt(a, b); }
SIMT_BF16 bool operator>=(const __nv_bfloat16 &a, const __nv_bfloat16 &b) { return __hge(a, b); }

SIMT_BF16 __nv_bfloat162 operator+(const __nv_bfloat162 &a, const __nv_bfloat162 &b) { return __hadd2(a, b); }
SIMT_BF16 __nv_bfloat162 operator-(const __nv_bfloat162 &a, const __nv_bfloat162 &b) { return __hsub2(a, b); }
SIMT_BF16 __nv_bfloat162 operator*(const __nv_bfloat162 &a, const __nv_bfloat162 &b) { return __hmul2(a, b); }
SIMT_BF16 __nv_bfloat162 operator/(const __nv_bfloat162 &a, const __nv_bfloat162 &b) { return __h2div(a, b); }
SIMT_BF16 __nv_bfloat162 &operator+=(__nv_bfloat162 &a, const __nv_bfloat162 &b) { return a = __hadd2(a, b); }
SIMT_BF16 __nv_bfloat162 &operator-=(__nv_bfloat162 &a, const __nv_bfloat162 &b) { return a = __hsub2(a, b); }
SIMT_BF16 __nv_bfloat162 &operator*=(__nv_bfloat162 &a, const __nv_bfloat162 &b) { return a = __hmul2(a, b); }
SIMT_BF16 __nv_bfloat162 &operator/=(__nv_bfloat162 &a, const __nv_bfloat162 &b) { return a = __h2div(a, b); }
SIMT_BF16 __nv_bfloat162 operator+(const __nv_bfloat162 &a) { return a; }
SIMT_BF16 __nv_bfloat162 operator-(const __nv_bfloat162 &a) { return __hneg2(a); }
SIMT_BF16 bool operator==(const __nv_bfloat162 &a, const __nv_bfloat162 &b) { return __hbeq2(a, b); }
SIMT_BF16 bool operator!=(const __nv_bfloat162 &a, const __nv_bfloat162 &b) { return __hbneu2(a, b); }
SIMT_BF16 bool operator<(const __nv_bfloat162 &a, const __nv_bfloat162 &b) { return __hblt2(a, b); }
SIMT_BF16 bool operator<=(const __nv_bfloat162 &a, const __nv_bfloat162 &b) { return __hble2(a, b); }
SIMT_BF16 bool operator>(const __nv_bfloat162 &a, const __nv_bfloat162 &b) { return __hbgt2(a, b); }
SIMT_BF16 bool operator>=(const __nv_bfloat162 &a, const __nv_bfloat162 &b) { return __hbge2(a, b); }

#if defined(__CUDA__) && defined(__clang__)
/* Warp shuffles and __ldg of the 16-bit types, through their bits. */
#define SIMT_BF16_SHUFFLE(name, lane_type)                                                    \
	__device__ inline __nv_bfloat16 name(unsigned mask, __nv_bfloat16 var, lane_type lane, int width = 32) \
	{                                                                                      \
		return __ushort_as_bfloat16(                                                       \
			(unsigned short)name(mask, (int)__bfloat16_as_ushort(var), lane, width));  \
	}                                                                                      \
	__device__ inline __nv_bfloat162 name(unsigned mask, __nv_bfloat162 var, lane_type lane, int width = 32) \
	{                                                                                      \
		return __nv_bfloat162(name(mask, var.x, lane, width), name(mask, var.y, lane, width)); \
	}
SIMT_BF16_SHUFFLE(__shfl_sync, int)
SIMT_BF16_SHUFFLE(__shfl_up_sync, unsigned int)
SIMT_BF16_SHUFFLE(__shfl_down_sync, unsigned int)
SIMT_BF16_SHUFFLE(__shfl_xor_sync, int)
#undef SIMT_BF16_SHUFFLE
__device__ inline __nv_bfloat16 __ldg(const __nv_bfloat16 *p) { return __ushort_as_bfloat16(__ldg((const unsigned short *)p)); }
__device__ inline __nv_bfloat162 __ldg(const __nv_bfloat162 *p) { return __nv_bfloat162(__ldg(&p->x), __ldg(&p->y)); }
#endif

/* Between the two 16-bit types: through float, which holds both exactly. */
SIMT_BF16 __nv_bfloat16 __half2bfloat16(__half h) { return __float2bfloat16(__half2float(h)); }
SIMT_BF16 __half __bfloat162half(__nv_bfloat16 b) { return __float2half(__bfloat162float(b)); }

#undef SIMT_BF16
#endif /* __cplusplus */
#endif /* SIMTGPU_CUDA_BF16_H */
