/* SPDX-License-Identifier: MIT */
/*
 * The rounding shared by cuda_fp16.h and cuda_bf16.h: a double rounded to a
 * narrow binary format (1 sign bit, EXP_BITS exponent bits, MANT_BITS stored
 * mantissa bits, IEEE 754 layout) in one of CUDA's four rounding modes.
 *
 * simtgpu has no half-precision unit (RV64GC: F and D only), so the 16-bit
 * types compute in float or double and round here, in integer code that is
 * the same on the host and the device. Rounding once from the exact value (or
 * from a double/float result wide enough that the second rounding cannot
 * differ, p >= 2q + 2) gives the correctly rounded result CUDA's hardware
 * gives. A NaN becomes the canonical NaN 0x7fff, as NVIDIA's conversions do.
 * Internal to simtgpu's headers: programs use the types' functions.
 */
#ifndef SIMTGPU_NARROW_FLOAT_H
#define SIMTGPU_NARROW_FLOAT_H

#include "host_defines.h"

#ifdef __cplusplus
#include <cstdint>
#include <cstring>
#else
#include <stdint.h>
#include <string.h>
#endif

#define SIMT_NARROW_QUALIFIER static inline __host__ __device__

enum simt_round_mode {
	SIMT_ROUND_NEAREST_EVEN,
	SIMT_ROUND_TOWARD_ZERO,
	SIMT_ROUND_DOWN, /* toward -inf */
	SIMT_ROUND_UP,	 /* toward +inf */
};

#define SIMT_NARROW_CANONICAL_NAN 0x7fffu

SIMT_NARROW_QUALIFIER uint64_t __simt_double_bits(double d)
{
	uint64_t u;
	memcpy(&u, &d, sizeof u);
	return u;
}

SIMT_NARROW_QUALIFIER double __simt_bits_double(uint64_t u)
{
	double d;
	memcpy(&d, &u, sizeof d);
	return d;
}

SIMT_NARROW_QUALIFIER uint32_t __simt_float_bits(float f)
{
	uint32_t u;
	memcpy(&u, &f, sizeof u);
	return u;
}

SIMT_NARROW_QUALIFIER float __simt_bits_float(uint32_t u)
{
	float f;
	memcpy(&f, &u, sizeof f);
	return f;
}

/* d rounded to the narrow format, as its 16 bits. */
SIMT_NARROW_QUALIFIER uint16_t __simt_narrow_from_double(double d, int exp_bits, int mant_bits,
							 enum simt_round_mode mode)
{
	const uint64_t bits = __simt_double_bits(d);
	const uint16_t sign = (uint16_t)((bits >> 63) << (exp_bits + mant_bits));
	const int biased = (int)((bits >> 52) & 0x7ff);
	const uint64_t fraction = bits & ((1ull << 52) - 1);
	const uint16_t inf = (uint16_t)(((1u << exp_bits) - 1) << mant_bits);
	if (biased == 0x7ff)
		return fraction ? (uint16_t)SIMT_NARROW_CANONICAL_NAN : (uint16_t)(sign | inf);
	const int bias = (1 << (exp_bits - 1)) - 1;
	/* The value is significand * 2^(exponent - 52), significand < 2^53. */
	const uint64_t significand = biased ? fraction | (1ull << 52) : fraction;
	const int exponent = (biased ? biased : 1) - 1023;
	const int min_normal_exponent = 1 - bias;
	/* Bits of the significand that fall below the narrow format's last place. */
	int shift = 52 - mant_bits;
	int narrow_exponent = exponent;
	if (exponent < min_normal_exponent) {
		shift += min_normal_exponent - exponent;
		narrow_exponent = min_normal_exponent - 1; /* subnormal: field 0 */
	}
	uint64_t kept, rest, halfway;
	if (shift >= 64) {
		kept = 0;
		rest = significand ? 1 : 0; /* nonzero, far below halfway */
		halfway = 1ull << 62;
	} else {
		kept = significand >> shift;
		rest = significand & ((1ull << shift) - 1);
		halfway = 1ull << (shift - 1);
	}
	if (narrow_exponent > bias) { /* beyond the largest finite value */
		const uint16_t max_finite = (uint16_t)(inf - 1);
		const int negative = sign != 0;
		switch (mode) {
		case SIMT_ROUND_TOWARD_ZERO:
			return (uint16_t)(sign | max_finite);
		case SIMT_ROUND_DOWN:
			return (uint16_t)(sign | (negative ? inf : max_finite));
		case SIMT_ROUND_UP:
			return (uint16_t)(sign | (negative ? max_finite : inf));
		default:
			return (uint16_t)(sign | inf);
		}
	}
	/* The implicit bit of kept (normals) carries the exponent field up by
	 * one, so the field is narrow_exponent + bias - 1 plus that bit. */
	uint32_t magnitude = (uint32_t)kept;
	if (narrow_exponent >= min_normal_exponent)
		magnitude += (uint32_t)(narrow_exponent + bias - 1) << mant_bits;
	int round_up = 0;
	switch (mode) {
	case SIMT_ROUND_NEAREST_EVEN:
		round_up = rest > halfway || (rest == halfway && (magnitude & 1));
		break;
	case SIMT_ROUND_TOWARD_ZERO:
		break;
	case SIMT_ROUND_DOWN:
		round_up = rest != 0 && sign;
		break;
	case SIMT_ROUND_UP:
		round_up = rest != 0 && !sign;
		break;
	}
	/* A carry out of the mantissa moves into the exponent: to the next
	 * binade, or from the largest finite value to infinity, as IEEE wants. */
	magnitude += (uint32_t)round_up;
	return (uint16_t)(sign | magnitude);
}

/* A 64-bit integer as a double rounded to odd (a sticky last bit for the
 * bits beyond 53), so that rounding it on to a narrow format rounds once. */
SIMT_NARROW_QUALIFIER double __simt_u64_to_double_odd(uint64_t u)
{
	if ((u >> 53) == 0)
		return (double)u;
	const int shift = 64 - __builtin_clzll(u) - 53;
	const uint64_t kept = (u >> shift) | ((u & ((1ull << shift) - 1)) != 0);
	return (double)kept * (double)(1ull << shift); /* both exact */
}

SIMT_NARROW_QUALIFIER double __simt_i64_to_double_odd(int64_t i)
{
	return i < 0 ? -__simt_u64_to_double_odd(0 - (uint64_t)i) : __simt_u64_to_double_odd((uint64_t)i);
}

/* The narrow value's bits as a float (exact: both formats fit in float). */
SIMT_NARROW_QUALIFIER float __simt_narrow_to_float(uint16_t bits, int exp_bits, int mant_bits)
{
	const uint32_t sign = (uint32_t)(bits >> (exp_bits + mant_bits)) << 31;
	const int field = (bits >> mant_bits) & ((1 << exp_bits) - 1);
	const uint32_t mantissa = bits & ((1u << mant_bits) - 1);
	const int bias = (1 << (exp_bits - 1)) - 1;
	if (field == (1 << exp_bits) - 1) /* inf or NaN; the payload is kept */
		return __simt_bits_float(sign | 0x7f800000u | (mantissa << (23 - mant_bits)));
	if (field == 0) {
		/* Subnormal: mantissa * 2^(1 - bias) * 2^-mant_bits, both factors
		 * normal floats and the product exact (bfloat16's subnormals are
		 * float's). */
		const float magnitude = (float)mantissa *
					__simt_bits_float((uint32_t)(127 + 1 - bias) << 23) *
					__simt_bits_float((uint32_t)(127 - mant_bits) << 23);
		return sign ? -magnitude : magnitude;
	}
	return __simt_bits_float(sign | ((uint32_t)(field - bias + 127) << 23) |
				 (mantissa << (23 - mant_bits)));
}

/* a * b + c rounded once: the product of two narrow values is exact in
 * double; the sum is rounded to odd (the TwoSum error decides the last bit),
 * which the final rounding to a narrower format cannot get wrong. */
SIMT_NARROW_QUALIFIER double __simt_fma_round_to_odd(double a, double b, double c)
{
	const double product = a * b;
	const double sum = product + c;
	const double product_part = sum - c;
	const double error = (product - product_part) + (c - (sum - product_part));
	if (error == 0 || sum != sum || sum - sum != 0) /* exact, NaN or inf */
		return sum;
	uint64_t bits = __simt_double_bits(sum);
	if (bits & 1)
		return sum;
	/* Step one ulp toward the exact value. */
	bits += ((error > 0) == (sum > 0)) ? 1 : (uint64_t)-1;
	return __simt_bits_double(bits);
}

#endif /* SIMTGPU_NARROW_FLOAT_H */
