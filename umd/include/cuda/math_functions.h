/* SPDX-License-Identifier: MIT */
/*
 * CUDA's math functions that C's libm lacks (rsqrt, rcbrt, sinpi, cospi,
 * sincospi, normcdf, normcdfinv, erfinv, erfcinv, erfcx, norm3d, norm4d,
 * rnorm3d, rnorm4d, norm, rnorm, rhypot, cyl_bessel_i0, cyl_bessel_i1, in
 * float and double), implemented once on top of libm: CUDA declares them
 * __host__ __device__, so host code calls these and the device runtime's
 * __nv_* functions (compiler/runtime/libdevice.c) call the same code, which
 * clang's CUDA headers call on the device. Float versions compute in double
 * and round once. cuda_runtime.h includes this header; NVIDIA's toolkit has
 * one of this name too.
 */
#ifndef SIMTGPU_MATH_FUNCTIONS_H
#define SIMTGPU_MATH_FUNCTIONS_H

#include <math.h>

#ifdef __CUDA__
/* In a .cu, host functions beside clang's __device__ ones of the same
 * signatures (the device pass parses them and emits nothing). */
#define SIMT_MATH_FN static inline __host__
#else
#define SIMT_MATH_FN static inline
#endif

SIMT_MATH_FN double rsqrt(double x) {
    return 1.0 / sqrt(x);
}
SIMT_MATH_FN float rsqrtf(float x) {
    return (float)(1.0 / sqrt((double)x));
}
SIMT_MATH_FN double rcbrt(double x) {
    return 1.0 / cbrt(x);
}
SIMT_MATH_FN float rcbrtf(float x) {
    return (float)(1.0 / cbrt((double)x));
}
SIMT_MATH_FN double rhypot(double x, double y) {
    return 1.0 / hypot(x, y);
}
SIMT_MATH_FN float rhypotf(float x, float y) {
    return (float)(1.0 / hypot((double)x, (double)y));
}

/* sin(pi x) and cos(pi x) with x reduced exactly (fmod by 2 and the
 * subtractions below are exact), so that large x and the zeros at integers
 * and half-integers come out right. */
SIMT_MATH_FN double sinpi(double x) {
    double r = fmod(x, 2.0); /* (-2, 2), NaN for inf and NaN */
    if (r > 1.0)
        r -= 2.0;
    else if (r < -1.0)
        r += 2.0;
    if (r > 0.5)
        r = 1.0 - r;
    else if (r < -0.5)
        r = -1.0 - r;
    if (fabs(r) <= 0.25)
        return sin(M_PI * r);
    return copysign(cos(M_PI * (0.5 - fabs(r))), r);
}
SIMT_MATH_FN double cospi(double x) {
    double r = fabs(fmod(x, 2.0)); /* [0, 2) */
    if (r > 1.0)
        r = 2.0 - r;
    if (r <= 0.25)
        return cos(M_PI * r);
    if (r < 0.75)
        return sin(M_PI * (0.5 - r));
    return -cos(M_PI * (1.0 - r));
}
SIMT_MATH_FN float sinpif(float x) {
    return (float)sinpi(x);
}
SIMT_MATH_FN float cospif(float x) {
    return (float)cospi(x);
}
SIMT_MATH_FN void sincospi(double x, double *s, double *c) {
    *s = sinpi(x);
    *c = cospi(x);
}
SIMT_MATH_FN void sincospif(float x, float *s, float *c) {
    *s = sinpif(x);
    *c = cospif(x);
}

/* Euclidean norms, scaled by a power of two (exactly) so that squares
 * neither overflow nor underflow. */
SIMT_MATH_FN double __simt_scaled_norm(int n, const double *a) {
    double biggest = 0.0;
    for (int i = 0; i < n; ++i) {
        if (isinf(a[i]))
            return INFINITY;
        if (fabs(a[i]) > biggest || a[i] != a[i])
            biggest = fabs(a[i]);
    }
    if (biggest == 0.0 || biggest != biggest)
        return biggest;
    int e;
    frexp(biggest, &e);
    double sum = 0.0;
    for (int i = 0; i < n; ++i) {
        const double scaled = ldexp(a[i], -e);
        sum += scaled * scaled;
    }
    return ldexp(sqrt(sum), e);
}
SIMT_MATH_FN double norm(int n, const double *a) {
    return __simt_scaled_norm(n, a);
}
SIMT_MATH_FN double rnorm(int n, const double *a) {
    return 1.0 / norm(n, a);
}
SIMT_MATH_FN double norm3d(double a, double b, double c) {
    const double v[3] = {a, b, c};
    return __simt_scaled_norm(3, v);
}
SIMT_MATH_FN double norm4d(double a, double b, double c, double d) {
    const double v[4] = {a, b, c, d};
    return __simt_scaled_norm(4, v);
}
SIMT_MATH_FN double rnorm3d(double a, double b, double c) {
    return 1.0 / norm3d(a, b, c);
}
SIMT_MATH_FN double rnorm4d(double a, double b, double c, double d) {
    return 1.0 / norm4d(a, b, c, d);
}
SIMT_MATH_FN float normf(int n, const float *a) {
    double sum = 0.0; /* no float squares overflow a double */
    for (int i = 0; i < n; ++i)
        sum += (double)a[i] * a[i];
    return (float)sqrt(sum);
}
SIMT_MATH_FN float rnormf(int n, const float *a) {
    return (float)(1.0 / normf(n, a));
}
SIMT_MATH_FN float norm3df(float a, float b, float c) {
    return (float)norm3d(a, b, c);
}
SIMT_MATH_FN float norm4df(float a, float b, float c, float d) {
    return (float)norm4d(a, b, c, d);
}
SIMT_MATH_FN float rnorm3df(float a, float b, float c) {
    return (float)(1.0 / norm3d(a, b, c));
}
SIMT_MATH_FN float rnorm4df(float a, float b, float c, float d) {
    return (float)(1.0 / norm4d(a, b, c, d));
}

/* Scaled complementary error function exp(x^2) erfc(x): exp(x^2) from x^2
 * split exactly into hi + lo (fma), so no error of the square is
 * amplified; far out (where erfc underflows) its asymptotic series. */
SIMT_MATH_FN double erfcx(double x) {
    if (x < 26.0) {
        const double hi = x * x, lo = fma(x, x, -hi);
        return exp(hi) * (1.0 + lo) * erfc(x);
    }
    const double y = 1.0 / (2.0 * x * x);
    double term = 1.0, sum = 1.0;
    for (int k = 1; k < 12; ++k) {
        term *= -(2.0 * k - 1.0) * y;
        sum += term;
    }
    return sum / (x * 1.7724538509055160273); /* sqrt(pi) */
}
SIMT_MATH_FN float erfcxf(float x) {
    return (float)erfcx(x);
}

/* Standard normal CDF 0.5 erfc(-x / sqrt(2)), with the rounding error of
 * -x / sqrt(2) taken back through erfc's derivative (far in the tail, erfc
 * magnifies an argument's relative error by 2 z^2). */
SIMT_MATH_FN double normcdf(double x) {
    const double sqrt1_2_hi = 0.7071067811865476, sqrt1_2_lo = -4.833646656726457e-17;
    const double z = -x * sqrt1_2_hi;
    const double dz = fma(-x, sqrt1_2_hi, -z) - x * sqrt1_2_lo;
    return 0.5 * (erfc(z) - 1.1283791670955126 * exp(-z * z) * dz); /* 2/sqrt(pi) */
}
SIMT_MATH_FN float normcdff(float x) {
    return (float)normcdf(x);
}

/* Giles' single-precision inverse error function ("Approximating the erfinv
 * function", GPU Computing Gems, 2011) at w = -log((1 - x)(1 + x)), the
 * first guess of the Newton steps below. */
SIMT_MATH_FN double __simt_erfinv_guess(double w) {
    double p;
    if (w < 5.0) {
        w -= 2.5;
        p = 2.81022636e-08;
        p = 3.43273939e-07 + p * w;
        p = -3.5233877e-06 + p * w;
        p = -4.39150654e-06 + p * w;
        p = 0.00021858087 + p * w;
        p = -0.00125372503 + p * w;
        p = -0.00417768164 + p * w;
        p = 0.246640727 + p * w;
        p = 1.50140941 + p * w;
    } else {
        w = sqrt(w) - 3.0;
        p = -0.000200214257;
        p = 0.000100950558 + p * w;
        p = 0.00134934322 + p * w;
        p = -0.00367342844 + p * w;
        p = 0.00573950773 + p * w;
        p = -0.0076224613 + p * w;
        p = 0.00943887047 + p * w;
        p = 1.00167406 + p * w;
        p = 2.83297682 + p * w;
    }
    return p;
}

/* erfinv(y): Giles' guess and two Newton steps on erf
 * (erf'(x) = 2/sqrt(pi) exp(-x^2)). */
SIMT_MATH_FN double erfinv(double y) {
    if (y <= -1.0)
        return y == -1.0 ? -INFINITY : NAN;
    if (y >= 1.0)
        return y == 1.0 ? INFINITY : NAN;
    double x = y * __simt_erfinv_guess(-log((1.0 - y) * (1.0 + y)));
    for (int i = 0; i < 2; ++i)
        x -= (erf(x) - y) / (1.1283791670955126 * exp(-x * x));
    return x;
}

/* erfcinv(y) = erfinv(1 - y), but for small y Newton steps on erfc itself,
 * so that y near 0 (where 1 - y rounds to 1) keeps its precision. They start
 * from Giles' guess at w = -log(y (2 - y)), or below 1e-6, beyond the range
 * Giles fitted, from the asymptotic erfc(x) ~ exp(-x^2) / (x sqrt(pi))
 * (1 - 1 / (2 x^2)) solved for x by fixed-point steps. */
SIMT_MATH_FN double erfcinv(double y) {
    if (y >= 0.5 || y != y)
        return erfinv(1.0 - y); /* exact for y in [0.5, 2] */
    if (y <= 0.0)
        return y == 0.0 ? INFINITY : NAN;
    double x;
    if (y < 1e-6) {
        const double minus_log_y = -log(y);
        x = sqrt(minus_log_y);
        for (int i = 0; i < 4; ++i)
            x = sqrt(minus_log_y - log(x * 1.7724538509055160273) + log1p(-0.5 / (x * x)));
    } else {
        x = (1.0 - y) * __simt_erfinv_guess(-log(y * (2.0 - y)));
    }
    for (int i = 0; i < 3; ++i) {
        const double slope = 1.1283791670955126 * exp(-x * x);
        if (slope == 0.0)
            break;
        x += (erfc(x) - y) / slope;
    }
    return x;
}
SIMT_MATH_FN float erfinvf(float y) {
    return (float)erfinv(y);
}
SIMT_MATH_FN float erfcinvf(float y) {
    return (float)erfcinv(y);
}

/* Inverse normal CDF: -sqrt(2) erfcinv(2p). */
SIMT_MATH_FN double normcdfinv(double p) {
    return -1.4142135623730951 * erfcinv(2.0 * p);
}
SIMT_MATH_FN float normcdfinvf(float p) {
    return (float)normcdfinv(p);
}

/* Modified Bessel functions of the first kind, orders 0 and 1: the power
 * series (all terms positive, so no cancellation) up to x = 30, then the
 * asymptotic expansion e^x / sqrt(2 pi x) sum_k a_k(nu) / x^k, whose
 * terms are below double precision there after a few. e^x is taken in two
 * halves so that results near the top of the range do not overflow early. */
SIMT_MATH_FN double __simt_bessel_i(int order, double x) {
    const double ax = fabs(x);
    double value;
    if (ax <= 30.0) {
        const double q = 0.25 * ax * ax;
        double term = order == 0 ? 1.0 : 0.5 * ax, sum = term;
        for (int k = 1; k < 200 && term > sum * 1e-17; ++k) {
            term *= q / ((double)k * (double)(k + order));
            sum += term;
        }
        value = sum;
    } else {
        const double mu = 4.0 * order * order;
        double term = 1.0, sum = 1.0;
        for (int k = 1; k < 30; ++k) {
            const double odd = 2.0 * k - 1.0;
            term *= -(mu - odd * odd) / (k * 8.0 * ax);
            sum += term;
        }
        const double half = exp(0.5 * ax);
        value = half * (half / sqrt(2.0 * M_PI * ax) * sum);
    }
    return order == 1 && x < 0 ? -value : value;
}
SIMT_MATH_FN double cyl_bessel_i0(double x) {
    return __simt_bessel_i(0, x);
}
SIMT_MATH_FN double cyl_bessel_i1(double x) {
    return __simt_bessel_i(1, x);
}
SIMT_MATH_FN float cyl_bessel_i0f(float x) {
    return (float)cyl_bessel_i0(x);
}
SIMT_MATH_FN float cyl_bessel_i1f(float x) {
    return (float)cyl_bessel_i1(x);
}

#undef SIMT_MATH_FN

#endif /* SIMTGPU_MATH_FUNCTIONS_H */
