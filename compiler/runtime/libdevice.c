// SPDX-License-Identifier: MIT
// The __nv_* functions (NVIDIA's libdevice interface) that clang's CUDA
// headers call for the CUDA math API, implemented for the simtgpu device:
// transcendental functions from picolibc's libm, IEEE rounding-mode variants
// with the RISC-V F/D static rounding modes, integer intrinsics in C.
// Fast intrinsics (__expf, __fdividef, ...) use the accurate functions: the
// device has no special-function unit, so they are never less accurate.
// docs/simtcc.md lists the accuracy the tests check.
#include <math.h>
#include <stdint.h>

#include "math_functions.h"

#define NV(name) __nv_##name

// ---------------------------------------------- direct libm counterparts
#define F1(name) float NV(name)(float x) { return name(x); }
#define D1(name) double NV(name)(double x) { return name(x); }
#define F2(name) float NV(name)(float x, float y) { return name(x, y); }
#define D2(name) double NV(name)(double x, double y) { return name(x, y); }
#define FD1(f, d) F1(f) D1(d)
#define FD2(f, d) F2(f) D2(d)

FD1(acosf, acos) FD1(acoshf, acosh) FD1(asinf, asin) FD1(asinhf, asinh)
FD1(atanf, atan) FD1(atanhf, atanh) D1(cbrt) FD1(ceilf, ceil)
FD1(cosf, cos) FD1(coshf, cosh) FD1(erff, erf) D1(erfc)
FD1(expf, exp) FD1(exp2f, exp2) FD1(expm1f, expm1) FD1(fabsf, fabs)
FD1(floorf, floor) FD1(lgammaf, lgamma) FD1(logf, log) FD1(log10f, log10)
FD1(log1pf, log1p) FD1(log2f, log2) FD1(logbf, logb) FD1(nearbyintf, nearbyint)
FD1(rintf, rint) FD1(roundf, round) FD1(sinf, sin) FD1(sinhf, sinh)
FD1(sqrtf, sqrt) FD1(tanf, tan) FD1(tanhf, tanh) D1(tgamma)
FD1(truncf, trunc) FD1(j0f, j0) FD1(j1f, j1) FD1(y0f, y0) FD1(y1f, y1)
FD2(atan2f, atan2) FD2(copysignf, copysign) FD2(fdimf, fdim) FD2(fmaxf, fmax)
FD2(fminf, fmin) FD2(fmodf, fmod) FD2(hypotf, hypot) FD2(nextafterf, nextafter)
FD2(powf, pow) FD2(remainderf, remainder)

float NV(exp10f)(float x) { return powf(10.0f, x); }
double NV(exp10)(double x) { return pow(10.0, x); }
float NV(fmaf)(float x, float y, float z) { return fmaf(x, y, z); }
double NV(fma)(double x, double y, double z) { return fma(x, y, z); }
float NV(frexpf)(float x, int *e) { return frexpf(x, e); }
double NV(frexp)(double x, int *e) { return frexp(x, e); }
float NV(ldexpf)(float x, int e) { return ldexpf(x, e); }
double NV(ldexp)(double x, int e) { return ldexp(x, e); }
float NV(scalbnf)(float x, int e) { return scalbnf(x, e); }
double NV(scalbn)(double x, int e) { return scalbn(x, e); }
float NV(modff)(float x, float *i) { return modff(x, i); }
double NV(modf)(double x, double *i) { return modf(x, i); }
float NV(remquof)(float x, float y, int *q) { return remquof(x, y, q); }
double NV(remquo)(double x, double y, int *q) { return remquo(x, y, q); }
int NV(ilogbf)(float x) { return ilogbf(x); }
int NV(ilogb)(double x) { return ilogb(x); }
long long NV(llrintf)(float x) { return llrintf(x); }
long long NV(llrint)(double x) { return llrint(x); }
long long NV(llroundf)(float x) { return llroundf(x); }
long long NV(llround)(double x) { return llround(x); }
float NV(jnf)(int n, float x) { return jnf(n, x); }
double NV(jn)(int n, double x) { return jn(n, x); }
float NV(ynf)(int n, float x) { return ynf(n, x); }
double NV(yn)(int n, double x) { return yn(n, x); }
float NV(nanf)(const signed char *tag) { (void)tag; return __builtin_nanf(""); }
double NV(nan)(const signed char *tag) { (void)tag; return __builtin_nan(""); }
float NV(powif)(float x, int n) { return powf(x, (float)n); }
double NV(powi)(double x, int n) { return pow(x, (double)n); }

// ------------------------------------- CUDA's functions beyond C's libm
// One implementation with the host's (umd/include/cuda/math_functions.h).
float NV(rsqrtf)(float x) { return rsqrtf(x); }
double NV(rsqrt)(double x) { return rsqrt(x); }
float NV(frsqrt_rn)(float x) { return 1.0f / sqrtf(x); }
float NV(rcbrtf)(float x) { return rcbrtf(x); }
double NV(rcbrt)(double x) { return rcbrt(x); }
float NV(sinpif)(float x) { return sinpif(x); }
double NV(sinpi)(double x) { return sinpi(x); }
float NV(cospif)(float x) { return cospif(x); }
double NV(cospi)(double x) { return cospi(x); }
void NV(sincosf)(float x, float *s, float *c) { *s = sinf(x); *c = cosf(x); }
void NV(sincos)(double x, double *s, double *c) { *s = sin(x); *c = cos(x); }
void NV(sincospif)(float x, float *s, float *c) { sincospif(x, s, c); }
void NV(sincospi)(double x, double *s, double *c) { sincospi(x, s, c); }
float NV(rhypotf)(float x, float y) { return rhypotf(x, y); }
double NV(rhypot)(double x, double y) { return rhypot(x, y); }
float NV(norm3df)(float a, float b, float c) { return norm3df(a, b, c); }
double NV(norm3d)(double a, double b, double c) { return norm3d(a, b, c); }
float NV(norm4df)(float a, float b, float c, float d) { return norm4df(a, b, c, d); }
double NV(norm4d)(double a, double b, double c, double d) { return norm4d(a, b, c, d); }
float NV(rnorm3df)(float a, float b, float c) { return rnorm3df(a, b, c); }
double NV(rnorm3d)(double a, double b, double c) { return rnorm3d(a, b, c); }
float NV(rnorm4df)(float a, float b, float c, float d) { return rnorm4df(a, b, c, d); }
double NV(rnorm4d)(double a, double b, double c, double d) { return rnorm4d(a, b, c, d); }
float NV(normf)(int n, const float *a) { return normf(n, a); }
double NV(norm)(int n, const double *a) { return norm(n, a); }
float NV(rnormf)(int n, const float *a) { return rnormf(n, a); }
double NV(rnorm)(int n, const double *a) { return rnorm(n, a); }
// picolibc's erfcf loses accuracy in the tail (35 ulp near x = 8), its
// cbrtf 2 ulp and its tgammaf 64 ulp near 30 (CUDA's bounds are 4, 1 and 5):
// the double functions rounded to float stay within an ulp.
float NV(erfcf)(float x) { return (float)erfc(x); }
float NV(cbrtf)(float x) { return (float)cbrt(x); }
float NV(tgammaf)(float x) { return (float)tgamma(x); }
float NV(normcdff)(float x) { return normcdff(x); }
double NV(normcdf)(double x) { return normcdf(x); }
float NV(erfcxf)(float x) { return erfcxf(x); }
double NV(erfcx)(double x) { return erfcx(x); }
double NV(erfinv)(double y) { return erfinv(y); }
float NV(erfinvf)(float y) { return erfinvf(y); }
double NV(erfcinv)(double y) { return erfcinv(y); }
float NV(erfcinvf)(float y) { return erfcinvf(y); }
double NV(normcdfinv)(double p) { return normcdfinv(p); }
float NV(normcdfinvf)(float p) { return normcdfinvf(p); }
double NV(cyl_bessel_i0)(double x) { return cyl_bessel_i0(x); }
float NV(cyl_bessel_i0f)(float x) { return cyl_bessel_i0f(x); }
double NV(cyl_bessel_i1)(double x) { return cyl_bessel_i1(x); }
float NV(cyl_bessel_i1f)(float x) { return cyl_bessel_i1f(x); }

// ------------------------------------------------------ fast intrinsics
float NV(fast_expf)(float x) { return expf(x); }
float NV(fast_exp10f)(float x) { return powf(10.0f, x); }
float NV(fast_logf)(float x) { return logf(x); }
float NV(fast_log2f)(float x) { return log2f(x); }
float NV(fast_log10f)(float x) { return log10f(x); }
float NV(fast_sinf)(float x) { return sinf(x); }
float NV(fast_cosf)(float x) { return cosf(x); }
float NV(fast_tanf)(float x) { return tanf(x); }
float NV(fast_powf)(float x, float y) { return powf(x, y); }
void NV(fast_sincosf)(float x, float *s, float *c) { *s = sinf(x); *c = cosf(x); }
float NV(fast_fdividef)(float x, float y) { return x / y; }
float NV(saturatef)(float x) { return x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x != x ? 0.0f : x; }

// ---------------------------------------- IEEE ops with rounding modes
// RISC-V F and D take a static rounding mode per instruction: rne, rtz,
// rdn, rup match CUDA's _rn, _rz, _rd, _ru.
#define ROUNDED_OP(cuda, insn, type, mode, rm)                                  \
	type NV(cuda##_##mode)(type a, type b)                                  \
	{                                                                        \
		type r;                                                          \
		__asm__(insn " %0, %1, %2, " rm : "=f"(r) : "f"(a), "f"(b));     \
		return r;                                                        \
	}
#define ROUNDED_MODES(cuda, insn, type)                                         \
	ROUNDED_OP(cuda, insn, type, rn, "rne")                                 \
	ROUNDED_OP(cuda, insn, type, rz, "rtz")                                 \
	ROUNDED_OP(cuda, insn, type, rd, "rdn")                                 \
	ROUNDED_OP(cuda, insn, type, ru, "rup")
ROUNDED_MODES(fadd, "fadd.s", float)
ROUNDED_MODES(fsub, "fsub.s", float)
ROUNDED_MODES(fmul, "fmul.s", float)
ROUNDED_MODES(fdiv, "fdiv.s", float)
ROUNDED_MODES(dadd, "fadd.d", double)
ROUNDED_MODES(dsub, "fsub.d", double)
ROUNDED_MODES(dmul, "fmul.d", double)
ROUNDED_MODES(ddiv, "fdiv.d", double)

#define ROUNDED_UNARY(cuda, insn, type, mode, rm)                               \
	type NV(cuda##_##mode)(type a)                                          \
	{                                                                        \
		type r;                                                          \
		__asm__(insn " %0, %1, " rm : "=f"(r) : "f"(a));                 \
		return r;                                                        \
	}
#define ROUNDED_UNARY_MODES(cuda, insn, type)                                   \
	ROUNDED_UNARY(cuda, insn, type, rn, "rne")                              \
	ROUNDED_UNARY(cuda, insn, type, rz, "rtz")                              \
	ROUNDED_UNARY(cuda, insn, type, rd, "rdn")                              \
	ROUNDED_UNARY(cuda, insn, type, ru, "rup")
ROUNDED_UNARY_MODES(fsqrt, "fsqrt.s", float)
ROUNDED_UNARY_MODES(dsqrt, "fsqrt.d", double)

#define ROUNDED_FMA(cuda, insn, type, mode, rm)                                 \
	type NV(cuda##_##mode)(type a, type b, type c)                          \
	{                                                                        \
		type r;                                                          \
		__asm__(insn " %0, %1, %2, %3, " rm                              \
			: "=f"(r)                                                \
			: "f"(a), "f"(b), "f"(c));                               \
		return r;                                                        \
	}
#define ROUNDED_FMA_MODES(cuda, insn, type)                                     \
	ROUNDED_FMA(cuda, insn, type, rn, "rne")                                \
	ROUNDED_FMA(cuda, insn, type, rz, "rtz")                                \
	ROUNDED_FMA(cuda, insn, type, rd, "rdn")                                \
	ROUNDED_FMA(cuda, insn, type, ru, "rup")
ROUNDED_FMA_MODES(fmaf, "fmadd.s", float)
ROUNDED_FMA_MODES(fmaf_ieee, "fmadd.s", float)
ROUNDED_FMA_MODES(fma, "fmadd.d", double)

// Reciprocals: 1 / x with the rounding mode.
float NV(frcp_rn)(float x) { return NV(fdiv_rn)(1.0f, x); }
float NV(frcp_rz)(float x) { return NV(fdiv_rz)(1.0f, x); }
float NV(frcp_rd)(float x) { return NV(fdiv_rd)(1.0f, x); }
float NV(frcp_ru)(float x) { return NV(fdiv_ru)(1.0f, x); }
double NV(drcp_rn)(double x) { return NV(ddiv_rn)(1.0, x); }
double NV(drcp_rz)(double x) { return NV(ddiv_rz)(1.0, x); }
double NV(drcp_rd)(double x) { return NV(ddiv_rd)(1.0, x); }
double NV(drcp_ru)(double x) { return NV(ddiv_ru)(1.0, x); }

// --------------------------------------------------------- conversions
#define CONVERT(cuda, from, to, insn, freg, treg, mode, rm)                     \
	to NV(cuda##_##mode)(from a)                                            \
	{                                                                        \
		to r;                                                            \
		__asm__(insn " %0, %1, " rm : "=" treg(r) : freg(a));            \
		return r;                                                        \
	}
#define CONVERT_MODES(cuda, from, to, insn, freg, treg)                         \
	CONVERT(cuda, from, to, insn, freg, treg, rn, "rne")                    \
	CONVERT(cuda, from, to, insn, freg, treg, rz, "rtz")                    \
	CONVERT(cuda, from, to, insn, freg, treg, rd, "rdn")                    \
	CONVERT(cuda, from, to, insn, freg, treg, ru, "rup")
CONVERT_MODES(float2int, float, int, "fcvt.w.s", "f", "r")
CONVERT_MODES(float2uint, float, unsigned, "fcvt.wu.s", "f", "r")
CONVERT_MODES(float2ll, float, long long, "fcvt.l.s", "f", "r")
CONVERT_MODES(float2ull, float, unsigned long long, "fcvt.lu.s", "f", "r")
CONVERT_MODES(double2int, double, int, "fcvt.w.d", "f", "r")
CONVERT_MODES(double2uint, double, unsigned, "fcvt.wu.d", "f", "r")
CONVERT_MODES(double2ll, double, long long, "fcvt.l.d", "f", "r")
CONVERT_MODES(double2ull, double, unsigned long long, "fcvt.lu.d", "f", "r")
CONVERT_MODES(double2float, double, float, "fcvt.s.d", "f", "f")
CONVERT_MODES(int2float, int, float, "fcvt.s.w", "r", "f")
CONVERT_MODES(uint2float, unsigned, float, "fcvt.s.wu", "r", "f")
CONVERT_MODES(ll2float, long long, float, "fcvt.s.l", "r", "f")
CONVERT_MODES(ull2float, unsigned long long, float, "fcvt.s.lu", "r", "f")
CONVERT_MODES(ll2double, long long, double, "fcvt.d.l", "r", "f")
CONVERT_MODES(ull2double, unsigned long long, double, "fcvt.d.lu", "r", "f")
double NV(int2double_rn)(int a) { return (double)a; }
double NV(uint2double_rn)(unsigned a) { return (double)a; }

int NV(float_as_int)(float x) { union { float f; int i; } u = {x}; return u.i; }
unsigned NV(float_as_uint)(float x) { union { float f; unsigned i; } u = {x}; return u.i; }
float NV(int_as_float)(int x) { union { int i; float f; } u = {x}; return u.f; }
float NV(uint_as_float)(unsigned x) { union { unsigned i; float f; } u = {x}; return u.f; }
long long NV(double_as_longlong)(double x) { union { double d; long long l; } u = {x}; return u.l; }
double NV(longlong_as_double)(long long x) { union { long long l; double d; } u = {x}; return u.d; }
int NV(double2hiint)(double x) { return (int)(NV(double_as_longlong)(x) >> 32); }
int NV(double2loint)(double x) { return (int)NV(double_as_longlong)(x); }
double NV(hiloint2double)(int hi, int lo)
{
	return NV(longlong_as_double)((long long)(((uint64_t)(uint32_t)hi << 32) | (uint32_t)lo));
}

// --------------------------------------------------------- classification
int NV(isinff)(float x) { return isinf(x); }
int NV(isinfd)(double x) { return isinf(x); }
int NV(isnanf)(float x) { return isnan(x); }
int NV(isnand)(double x) { return isnan(x); }
int NV(finitef)(float x) { return isfinite(x); }
int NV(isfinited)(double x) { return isfinite(x); }
int NV(signbitf)(float x) { return signbit(x); }
int NV(signbitd)(double x) { return signbit(x); }

// ------------------------------------------------------------- integers
int NV(abs)(int x) { return x < 0 ? -x : x; }
long long NV(llabs)(long long x) { return x < 0 ? -x : x; }
int NV(min)(int a, int b) { return a < b ? a : b; }
int NV(max)(int a, int b) { return a > b ? a : b; }
unsigned NV(umin)(unsigned a, unsigned b) { return a < b ? a : b; }
unsigned NV(umax)(unsigned a, unsigned b) { return a > b ? a : b; }
long long NV(llmin)(long long a, long long b) { return a < b ? a : b; }
long long NV(llmax)(long long a, long long b) { return a > b ? a : b; }
unsigned long long NV(ullmin)(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
unsigned long long NV(ullmax)(unsigned long long a, unsigned long long b) { return a > b ? a : b; }
int NV(popc)(unsigned x) { return __builtin_popcount(x); }
int NV(popcll)(unsigned long long x) { return __builtin_popcountll(x); }
int NV(clz)(int x) { return x ? __builtin_clz((unsigned)x) : 32; }
int NV(clzll)(long long x) { return x ? __builtin_clzll((unsigned long long)x) : 64; }
int NV(ffs)(int x) { return __builtin_ffs(x); }
int NV(ffsll)(long long x) { return __builtin_ffsll(x); }
unsigned NV(brev)(unsigned x)
{
	unsigned r = 0;
	for (int i = 0; i < 32; ++i)
		r |= ((x >> i) & 1u) << (31 - i);
	return r;
}
unsigned long long NV(brevll)(unsigned long long x)
{
	return ((unsigned long long)NV(brev)((unsigned)x) << 32) | NV(brev)((unsigned)(x >> 32));
}
unsigned NV(byte_perm)(unsigned x, unsigned y, unsigned s)
{
	uint64_t bytes = ((uint64_t)y << 32) | x;
	unsigned r = 0;
	for (int i = 0; i < 4; ++i)
		r |= (unsigned)((bytes >> (((s >> (4 * i)) & 7) * 8)) & 0xff) << (8 * i);
	return r;
}
int NV(mulhi)(int a, int b) { return (int)(((long long)a * b) >> 32); }
unsigned NV(umulhi)(unsigned a, unsigned b) { return (unsigned)(((uint64_t)a * b) >> 32); }
long long NV(mul64hi)(long long a, long long b) { return (long long)(((__int128)a * b) >> 64); }
unsigned long long NV(umul64hi)(unsigned long long a, unsigned long long b)
{
	return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
int NV(mul24)(int a, int b) { return ((a << 8) >> 8) * ((b << 8) >> 8); }
unsigned NV(umul24)(unsigned a, unsigned b) { return (a & 0xffffff) * (b & 0xffffff); }
int NV(hadd)(int a, int b) { return (int)(((long long)a + b) >> 1); }
int NV(rhadd)(int a, int b) { return (int)(((long long)a + b + 1) >> 1); }
unsigned NV(uhadd)(unsigned a, unsigned b) { return (unsigned)(((uint64_t)a + b) >> 1); }
unsigned NV(urhadd)(unsigned a, unsigned b) { return (unsigned)(((uint64_t)a + b + 1) >> 1); }
unsigned NV(sad)(int a, int b, unsigned c) { return c + (unsigned)(a > b ? a - b : b - a); }
unsigned NV(usad)(unsigned a, unsigned b, unsigned c) { return c + (a > b ? a - b : b - a); }
