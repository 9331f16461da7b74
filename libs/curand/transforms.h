// The transforms of generator.h's raw numbers into each distribution, one
// output (or one pair) at a time, compiled for the device (device_generate.cu)
// and for the host (host_generate.cpp) from this one text. `raw` and `out`
// are the same buffer: each transform reads its raw numbers before it
// writes their place (generator.h).
#pragma once

#include "generator.h"

#ifdef __CUDA__
#define SIMT_CURAND_HD __host__ __device__ inline
#else
#define SIMT_CURAND_HD inline
#endif

namespace simtgpu::curandlib {

SIMT_CURAND_HD double uniform_of(uint32_t x)
{
    return x * CURAND_2POW32_INV_DOUBLE + (CURAND_2POW32_INV_DOUBLE / 2.0);
}

SIMT_CURAND_HD uint32_t poisson_of(uint32_t x, const TransformArgs &a)
{
    const double u = uniform_of(x);
    uint32_t lo = 0, hi = a.cdf_length - 1;
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (a.cdf[mid] < u)
            lo = mid + 1;
        else
            hi = mid;
    }
    return a.cdf_shift + lo;
}

// Output i (pair i for the pseudorandom normals) of `kind`.
SIMT_CURAND_HD void transform_one(Output kind, void *buffer, size_t i, const TransformArgs &a)
{
    uint32_t *raw = static_cast<uint32_t *>(buffer);
    float *f = static_cast<float *>(buffer);
    double *d = static_cast<double *>(buffer);
    const bool log = kind == Output::log_normal || kind == Output::log_normal_double;
    switch (kind) {
    case Output::raw:
        break;
    case Output::uniform:
        f[i] = _curand_uniform(raw[i]);
        break;
    case Output::uniform_double:
        d[i] = a.quasi ? uniform_of(raw[2 * i]) : _curand_uniform_double_hq(raw[2 * i], raw[2 * i + 1]);
        break;
    case Output::normal:
    case Output::log_normal:
        if (a.quasi) {
            const float z = float(a.mean) + float(a.stddev) * normcdfinvf(_curand_uniform(raw[i]));
            f[i] = log ? expf(z) : z;
        } else {
            const float2 z = _curand_box_muller(raw[2 * i], raw[2 * i + 1]);
            const float z0 = float(a.mean) + float(a.stddev) * z.x;
            const float z1 = float(a.mean) + float(a.stddev) * z.y;
            f[2 * i] = log ? expf(z0) : z0;
            f[2 * i + 1] = log ? expf(z1) : z1;
        }
        break;
    case Output::normal_double:
    case Output::log_normal_double:
        if (a.quasi) {
            const double z = a.mean + a.stddev * normcdfinv(uniform_of(raw[2 * i]));
            d[i] = log ? exp(z) : z;
        } else {
            const double2 z =
                _curand_box_muller_double(raw[4 * i], raw[4 * i + 1], raw[4 * i + 2], raw[4 * i + 3]);
            const double z0 = a.mean + a.stddev * z.x, z1 = a.mean + a.stddev * z.y;
            d[2 * i] = log ? exp(z0) : z0;
            d[2 * i + 1] = log ? exp(z1) : z1;
        }
        break;
    case Output::poisson:
        raw[i] = poisson_of(raw[i], a);
        break;
    }
}

} // namespace simtgpu::curandlib
