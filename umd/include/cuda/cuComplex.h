/* SPDX-License-Identifier: MIT */
/*
 * CUDA's complex numbers (cuComplex.h): cuFloatComplex and cuDoubleComplex
 * are float2 and double2 (real part in x, imaginary in y), with the same
 * functions as NVIDIA's header, callable from host and device code.
 * Division and the absolute value scale their operands first, as NVIDIA's
 * do, so that intermediate squares neither overflow nor underflow.
 */
#ifndef SIMTGPU_CU_COMPLEX_H
#define SIMTGPU_CU_COMPLEX_H

#include <math.h>

#include "host_defines.h"
#include "vector_types.h"

#define SIMT_COMPLEX static __inline__ __host__ __device__

#ifdef __cplusplus
extern "C" {
#endif

typedef float2 cuFloatComplex;
typedef double2 cuDoubleComplex;
typedef cuFloatComplex cuComplex;

/* Single precision. */
SIMT_COMPLEX float cuCrealf(cuFloatComplex x) {
    return x.x;
}
SIMT_COMPLEX float cuCimagf(cuFloatComplex x) {
    return x.y;
}
SIMT_COMPLEX cuFloatComplex make_cuFloatComplex(float r, float i) {
    cuFloatComplex z;
    z.x = r;
    z.y = i;
    return z;
}
SIMT_COMPLEX cuFloatComplex cuConjf(cuFloatComplex x) {
    return make_cuFloatComplex(x.x, -x.y);
}
SIMT_COMPLEX cuFloatComplex cuCaddf(cuFloatComplex x, cuFloatComplex y) {
    return make_cuFloatComplex(x.x + y.x, x.y + y.y);
}
SIMT_COMPLEX cuFloatComplex cuCsubf(cuFloatComplex x, cuFloatComplex y) {
    return make_cuFloatComplex(x.x - y.x, x.y - y.y);
}
SIMT_COMPLEX cuFloatComplex cuCmulf(cuFloatComplex x, cuFloatComplex y) {
    return make_cuFloatComplex(x.x * y.x - x.y * y.y, x.x * y.y + x.y * y.x);
}
/* x / y with y scaled by 1 / (|Re y| + |Im y|) first. */
SIMT_COMPLEX cuFloatComplex cuCdivf(cuFloatComplex x, cuFloatComplex y) {
    const float scale = 1.0f / (fabsf(y.x) + fabsf(y.y));
    const float xr = x.x * scale, xi = x.y * scale;
    const float yr = y.x * scale, yi = y.y * scale;
    const float inverse = 1.0f / (yr * yr + yi * yi);
    return make_cuFloatComplex((xr * yr + xi * yi) * inverse, (xi * yr - xr * yi) * inverse);
}
/* |x| as big * sqrt(1 + (small / big)^2). */
SIMT_COMPLEX float cuCabsf(cuFloatComplex x) {
    const float a = fabsf(x.x), b = fabsf(x.y);
    const float big = a > b ? a : b, small = a > b ? b : a;
    if (big == 0.0f || big > 3.402823466e38f || small > 3.402823466e38f)
        return big + small; /* zero, infinity or NaN */
    const float ratio = small / big;
    return big * sqrtf(1.0f + ratio * ratio);
}
/* x * y + d. */
SIMT_COMPLEX cuFloatComplex cuCfmaf(cuFloatComplex x, cuFloatComplex y, cuFloatComplex d) {
    float real = x.x * y.x + d.x;
    float imag = x.x * y.y + d.y;
    real = -(x.y * y.y) + real;
    imag = x.y * y.x + imag;
    return make_cuFloatComplex(real, imag);
}

/* Double precision. */
SIMT_COMPLEX double cuCreal(cuDoubleComplex x) {
    return x.x;
}
SIMT_COMPLEX double cuCimag(cuDoubleComplex x) {
    return x.y;
}
SIMT_COMPLEX cuDoubleComplex make_cuDoubleComplex(double r, double i) {
    cuDoubleComplex z;
    z.x = r;
    z.y = i;
    return z;
}
SIMT_COMPLEX cuDoubleComplex cuConj(cuDoubleComplex x) {
    return make_cuDoubleComplex(x.x, -x.y);
}
SIMT_COMPLEX cuDoubleComplex cuCadd(cuDoubleComplex x, cuDoubleComplex y) {
    return make_cuDoubleComplex(x.x + y.x, x.y + y.y);
}
SIMT_COMPLEX cuDoubleComplex cuCsub(cuDoubleComplex x, cuDoubleComplex y) {
    return make_cuDoubleComplex(x.x - y.x, x.y - y.y);
}
SIMT_COMPLEX cuDoubleComplex cuCmul(cuDoubleComplex x, cuDoubleComplex y) {
    return make_cuDoubleComplex(x.x * y.x - x.y * y.y, x.x * y.y + x.y * y.x);
}
SIMT_COMPLEX cuDoubleComplex cuCdiv(cuDoubleComplex x, cuDoubleComplex y) {
    const double scale = 1.0 / (fabs(y.x) + fabs(y.y));
    const double xr = x.x * scale, xi = x.y * scale;
    const double yr = y.x * scale, yi = y.y * scale;
    const double inverse = 1.0 / (yr * yr + yi * yi);
    return make_cuDoubleComplex((xr * yr + xi * yi) * inverse, (xi * yr - xr * yi) * inverse);
}
SIMT_COMPLEX double cuCabs(cuDoubleComplex x) {
    const double a = fabs(x.x), b = fabs(x.y);
    const double big = a > b ? a : b, small = a > b ? b : a;
    if (big == 0.0 || big > 1.79769313486231570e308 || small > 1.79769313486231570e308)
        return big + small;
    const double ratio = small / big;
    return big * sqrt(1.0 + ratio * ratio);
}
SIMT_COMPLEX cuDoubleComplex cuCfma(cuDoubleComplex x, cuDoubleComplex y, cuDoubleComplex d) {
    double real = x.x * y.x + d.x;
    double imag = x.x * y.y + d.y;
    real = -(x.y * y.y) + real;
    imag = x.y * y.x + imag;
    return make_cuDoubleComplex(real, imag);
}

/* The generic names are the single-precision ones, and conversions. */
SIMT_COMPLEX cuComplex make_cuComplex(float x, float y) {
    return make_cuFloatComplex(x, y);
}
SIMT_COMPLEX cuDoubleComplex cuComplexFloatToDouble(cuFloatComplex c) {
    return make_cuDoubleComplex((double)c.x, (double)c.y);
}
SIMT_COMPLEX cuFloatComplex cuComplexDoubleToFloat(cuDoubleComplex c) {
    return make_cuFloatComplex((float)c.x, (float)c.y);
}

#ifdef __cplusplus
}
#endif

#undef SIMT_COMPLEX

#endif /* SIMTGPU_CU_COMPLEX_H */
