/* SPDX-License-Identifier: MIT */
/*
 * cuRAND's device API: the XORWOW (curandState, the default), Philox4_32_10
 * and MRG32k3a generators with curand_init(seed, subsequence, offset, state)
 * as CUDA defines it, and the distributions drawn from them.
 *
 * - XORWOW: Marsaglia's xorwow (2003) with CUDA's seeding; subsequences are
 *   2^67 numbers apart. Skip-ahead multiplies the state by powers of the
 *   generator's GF(2) matrix, tabulated by libs/curand/precalc_gen.cpp.
 * - Philox4_32_10: Salmon et al. (2011), 10 rounds; the counter's high half
 *   is the subsequence, its low half the offset / 4.
 * - MRG32k3a: L'Ecuyer (1999); subsequences 2^76 apart, sequences 2^127.
 *
 * curand() and curand_uniform() give CUDA's numbers bit for bit; the
 * Box-Muller normals use this device's libm (sqrtf, logf, sincosf), so they
 * may differ from NVIDIA's by an ulp or so. docs/libraries.md has the list.
 */
#ifndef SIMTGPU_CURAND_KERNEL_H
#define SIMTGPU_CURAND_KERNEL_H
#define CURAND_KERNEL_H_

#include "curand.h"
#include "curand_philox4x32_x.h"
#include "curand_precalc.h"

#include <math.h>

#ifndef QUALIFIERS
#define QUALIFIERS static __forceinline__ __device__
#endif

#define CURAND_2POW32_INV (2.3283064e-10f)
#define CURAND_2POW32_INV_DOUBLE (2.3283064365386963e-10)
#define CURAND_2POW53_INV_DOUBLE (1.1102230246251565e-16)
#define CURAND_2POW32_INV_2PI (2.3283064e-10f * 6.2831855f)
#define CURAND_2PI (6.2831855f)
#define CURAND_SQRT2 (-1.4142135f)
#define CURAND_SQRT2_DOUBLE (-1.4142135623730951)

#define EXTRA_FLAG_NORMAL 0x00000001
#define EXTRA_FLAG_LOG_NORMAL 0x00000002

/* ------------------------------------------------------------------ states */

struct curandStateXORWOW {
    unsigned int d, v[5];
    int boxmuller_flag;
    int boxmuller_flag_double;
    float boxmuller_extra;
    double boxmuller_extra_double;
};
typedef struct curandStateXORWOW curandStateXORWOW_t;
typedef struct curandStateXORWOW curandState_t;
typedef struct curandStateXORWOW curandState;

struct curandStateMRG32k3a {
    unsigned int s1[3];
    unsigned int s2[3];
    int boxmuller_flag;
    int boxmuller_flag_double;
    float boxmuller_extra;
    double boxmuller_extra_double;
};
typedef struct curandStateMRG32k3a curandStateMRG32k3a_t;

/* --------------------------------------------------------------- XORWOW */

/* v = M^(2^k) v for each set bit k of n, M^(2^k) from `tables` (k < 32),
 * then by squaring the last one for the bits above. */
QUALIFIERS void _simt_curand_matvec(const unsigned int *matrix, unsigned int *v)
{
    unsigned int r[5] = {0, 0, 0, 0, 0};
    for (int i = 0; i < 160; ++i)
        if ((v[i >> 5] >> (i & 31)) & 1u)
            for (int w = 0; w < 5; ++w)
                r[w] ^= matrix[i * 5 + w];
    for (int w = 0; w < 5; ++w)
        v[w] = r[w];
}

QUALIFIERS void _simt_curand_xorwow_jump(unsigned long long n,
                                         const unsigned int (*tables)[800], unsigned int *v)
{
    for (int k = 0; k < SIMT_CURAND_PRECALC_TABLES && n; ++k, n >>= 1)
        if (n & 1ull)
            _simt_curand_matvec(tables[k], v);
    if (!n)
        return;
    /* Rare (n >= 2^32): square the last table for the high bits. */
    unsigned int power[800], next[800];
    for (int i = 0; i < 800; ++i)
        power[i] = tables[SIMT_CURAND_PRECALC_TABLES - 1][i];
    while (n) {
        for (int i = 0; i < 160; ++i) {
            unsigned int column[5];
            for (int w = 0; w < 5; ++w)
                column[w] = power[i * 5 + w];
            _simt_curand_matvec(power, column);
            for (int w = 0; w < 5; ++w)
                next[i * 5 + w] = column[w];
        }
        for (int i = 0; i < 800; ++i)
            power[i] = next[i];
        if (n & 1ull)
            _simt_curand_matvec(power, v);
        n >>= 1;
    }
}

QUALIFIERS void skipahead(unsigned long long n, curandStateXORWOW_t *state)
{
    _simt_curand_xorwow_jump(n, simt_curand_xorwow_offset, state->v);
    state->d += 362437u * (unsigned int)n;
}

QUALIFIERS void skipahead_sequence(unsigned long long n, curandStateXORWOW_t *state)
{
    _simt_curand_xorwow_jump(n, simt_curand_xorwow_sequence, state->v);
}

QUALIFIERS void curand_init(unsigned long long seed, unsigned long long subsequence,
                            unsigned long long offset, curandStateXORWOW_t *state)
{
    /* CUDA's seeding: the seed's halves salted and mixed into
     * Marsaglia's initial state. */
    unsigned int s0 = ((unsigned int)seed) ^ 0xaad26b49u;
    unsigned int s1 = (unsigned int)(seed >> 32) ^ 0xf7dcefddu;
    unsigned int t0 = 1099087573u * s0;
    unsigned int t1 = 2591861531u * s1;
    state->d = 6615241u + t1 + t0;
    state->v[0] = 123456789u + t0;
    state->v[1] = 362436069u ^ t0;
    state->v[2] = 521288629u + t1;
    state->v[3] = 88675123u ^ t1;
    state->v[4] = 5783321u + t0;
    skipahead_sequence(subsequence, state);
    skipahead(offset, state);
    state->boxmuller_flag = 0;
    state->boxmuller_flag_double = 0;
    state->boxmuller_extra = 0.f;
    state->boxmuller_extra_double = 0.;
}

QUALIFIERS unsigned int curand(curandStateXORWOW_t *state)
{
    unsigned int t = state->v[0] ^ (state->v[0] >> 2);
    state->v[0] = state->v[1];
    state->v[1] = state->v[2];
    state->v[2] = state->v[3];
    state->v[3] = state->v[4];
    state->v[4] = (state->v[4] ^ (state->v[4] << 4)) ^ (t ^ (t << 1));
    state->d += 362437u;
    return state->v[4] + state->d;
}

/* ------------------------------------------------------------- Philox */

QUALIFIERS void _simt_philox_advance(curandStatePhilox4_32_10_t *s, unsigned long long n)
{
    unsigned int nlo = (unsigned int)n, nhi = (unsigned int)(n >> 32);
    s->ctr.x += nlo;
    if (s->ctr.x < nlo)
        nhi++;
    s->ctr.y += nhi;
    if (nhi <= s->ctr.y)
        return;
    if (++s->ctr.z)
        return;
    ++s->ctr.w;
}

QUALIFIERS void _simt_philox_next(curandStatePhilox4_32_10_t *s)
{
    if (++s->ctr.x)
        return;
    if (++s->ctr.y)
        return;
    if (++s->ctr.z)
        return;
    ++s->ctr.w;
}

QUALIFIERS void skipahead(unsigned long long n, curandStatePhilox4_32_10_t *state)
{
    state->STATE += (unsigned int)(n & 3);
    n /= 4;
    if (state->STATE > 3) {
        n += 1;
        state->STATE -= 4;
    }
    _simt_philox_advance(state, n);
    state->output = curand_Philox4x32_10(state->ctr, state->key);
}

QUALIFIERS void skipahead_sequence(unsigned long long n, curandStatePhilox4_32_10_t *state)
{
    unsigned int nlo = (unsigned int)n, nhi = (unsigned int)(n >> 32);
    state->ctr.z += nlo;
    if (state->ctr.z < nlo)
        nhi++;
    state->ctr.w += nhi;
    state->output = curand_Philox4x32_10(state->ctr, state->key);
}

QUALIFIERS void curand_init(unsigned long long seed, unsigned long long subsequence,
                            unsigned long long offset, curandStatePhilox4_32_10_t *state)
{
    state->ctr = make_uint4(0, 0, 0, 0);
    state->key.x = (unsigned int)seed;
    state->key.y = (unsigned int)(seed >> 32);
    state->STATE = 0;
    state->boxmuller_flag = 0;
    state->boxmuller_flag_double = 0;
    state->boxmuller_extra = 0.f;
    state->boxmuller_extra_double = 0.;
    skipahead_sequence(subsequence, state);
    skipahead(offset, state);
}

QUALIFIERS unsigned int curand(curandStatePhilox4_32_10_t *state)
{
    unsigned int ret;
    switch (state->STATE++) {
    default: ret = state->output.x; break;
    case 1: ret = state->output.y; break;
    case 2: ret = state->output.z; break;
    case 3: ret = state->output.w; break;
    }
    if (state->STATE == 4) {
        _simt_philox_next(state);
        state->output = curand_Philox4x32_10(state->ctr, state->key);
        state->STATE = 0;
    }
    return ret;
}

QUALIFIERS uint4 curand4(curandStatePhilox4_32_10_t *state)
{
    uint4 r;
    uint4 tmp = state->output;
    _simt_philox_next(state);
    state->output = curand_Philox4x32_10(state->ctr, state->key);
    switch (state->STATE) {
    case 0: return tmp;
    case 1: r = make_uint4(tmp.y, tmp.z, tmp.w, state->output.x); break;
    case 2: r = make_uint4(tmp.z, tmp.w, state->output.x, state->output.y); break;
    case 3: r = make_uint4(tmp.w, state->output.x, state->output.y, state->output.z); break;
    default: return tmp;
    }
    return r;
}

/* ----------------------------------------------------------- MRG32k3a */

#define MRG32K3A_MOD1 4294967087u
#define MRG32K3A_MOD2 4294944443u
#define MRG32K3A_NORM (2.3283065498378288e-10)
#define MRG32K3A_BITS_NORM 1.000000048662

QUALIFIERS unsigned int _simt_mrg_mulmod(unsigned int a, unsigned int b, unsigned int m)
{
    return (unsigned int)((unsigned long long)a * b % m);
}

/* s = A^n s (mod m) by square-and-multiply from A = `base`. */
QUALIFIERS void _simt_mrg_jump(const unsigned int (*base)[3], unsigned long long n, unsigned int m,
                               unsigned int *s)
{
    unsigned int a[3][3];
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            a[i][j] = base[i][j];
    while (n) {
        if (n & 1ull) {
            unsigned int r[3];
            for (int i = 0; i < 3; ++i) {
                unsigned long long sum = 0;
                for (int k = 0; k < 3; ++k)
                    sum += _simt_mrg_mulmod(a[i][k], s[k], m);
                r[i] = (unsigned int)(sum % m);
            }
            for (int i = 0; i < 3; ++i)
                s[i] = r[i];
        }
        n >>= 1;
        if (!n)
            break;
        unsigned int sq[3][3];
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) {
                unsigned long long sum = 0;
                for (int k = 0; k < 3; ++k)
                    sum += _simt_mrg_mulmod(a[i][k], a[k][j], m);
                sq[i][j] = (unsigned int)(sum % m);
            }
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j)
                a[i][j] = sq[i][j];
    }
}

QUALIFIERS void skipahead(unsigned long long n, curandStateMRG32k3a_t *state)
{
    const unsigned int a1[3][3] = {{0, 1, 0}, {0, 0, 1}, {MRG32K3A_MOD1 - 810728u, 1403580u, 0}};
    const unsigned int a2[3][3] = {{0, 1, 0}, {0, 0, 1}, {MRG32K3A_MOD2 - 1370589u, 0, 527612u}};
    _simt_mrg_jump(a1, n, MRG32K3A_MOD1, state->s1);
    _simt_mrg_jump(a2, n, MRG32K3A_MOD2, state->s2);
}

QUALIFIERS void skipahead_subsequence(unsigned long long n, curandStateMRG32k3a_t *state)
{
    _simt_mrg_jump(simt_curand_mrg_a1_subsequence, n, MRG32K3A_MOD1, state->s1);
    _simt_mrg_jump(simt_curand_mrg_a2_subsequence, n, MRG32K3A_MOD2, state->s2);
}

QUALIFIERS void skipahead_sequence(unsigned long long n, curandStateMRG32k3a_t *state)
{
    _simt_mrg_jump(simt_curand_mrg_a1_sequence, n, MRG32K3A_MOD1, state->s1);
    _simt_mrg_jump(simt_curand_mrg_a2_sequence, n, MRG32K3A_MOD2, state->s2);
}

QUALIFIERS void curand_init(unsigned long long seed, unsigned long long subsequence,
                            unsigned long long offset, curandStateMRG32k3a_t *state)
{
    for (int i = 0; i < 3; ++i) {
        state->s1[i] = 12345u;
        state->s2[i] = 12345u;
    }
    if (seed != 0ull) {
        unsigned int x1 = ((unsigned int)seed) ^ 0x55555555u;
        unsigned int x2 = (unsigned int)((seed >> 32) ^ 0xAAAAAAAAu);
        state->s1[0] = _simt_mrg_mulmod(x1, state->s1[0], MRG32K3A_MOD1);
        state->s1[1] = _simt_mrg_mulmod(x2, state->s1[1], MRG32K3A_MOD1);
        state->s1[2] = _simt_mrg_mulmod(x1, state->s1[2], MRG32K3A_MOD1);
        state->s2[0] = _simt_mrg_mulmod(x2, state->s2[0], MRG32K3A_MOD2);
        state->s2[1] = _simt_mrg_mulmod(x1, state->s2[1], MRG32K3A_MOD2);
        state->s2[2] = _simt_mrg_mulmod(x2, state->s2[2], MRG32K3A_MOD2);
    }
    skipahead_subsequence(subsequence, state);
    skipahead(offset, state);
    state->boxmuller_flag = 0;
    state->boxmuller_flag_double = 0;
    state->boxmuller_extra = 0.f;
    state->boxmuller_extra_double = 0.;
}

/* One step of both components; L'Ecuyer's z in 1..m1 (as a double). */
QUALIFIERS double curand_MRG32k3a(curandStateMRG32k3a_t *state)
{
    const unsigned long long m1 = MRG32K3A_MOD1, m2 = MRG32K3A_MOD2;
    unsigned long long p1 =
        (1403580ull * state->s1[1] + 810728ull * (m1 - state->s1[0])) % m1;
    state->s1[0] = state->s1[1];
    state->s1[1] = state->s1[2];
    state->s1[2] = (unsigned int)p1;
    unsigned long long p2 =
        (527612ull * state->s2[2] + 1370589ull * (m2 - state->s2[0])) % m2;
    state->s2[0] = state->s2[1];
    state->s2[1] = state->s2[2];
    state->s2[2] = (unsigned int)p2;
    if (p1 <= p2)
        return (double)(p1 + m1 - p2);
    return (double)(p1 - p2);
}

QUALIFIERS unsigned int curand(curandStateMRG32k3a_t *state)
{
    return (unsigned int)(curand_MRG32k3a(state) * MRG32K3A_BITS_NORM);
}

/* --------------------------------------------------------------- Sobol32 */

/* A Sobol sequence in Gray-code order (Antonov and Saleev): point i is the
 * XOR of the direction vectors of the bits set in i ^ (i >> 1), and each
 * draw flips one vector, that of the lowest zero bit of i. The direction
 * vectors of a dimension come from curandGetDirectionVectors32. */
struct curandStateSobol32 {
    unsigned int i, x, c;
    unsigned int direction_vectors[32];
};
typedef struct curandStateSobol32 curandStateSobol32_t;

QUALIFIERS unsigned int _simt_sobol32_point(const unsigned int *direction_vectors,
                                            unsigned int i)
{
    unsigned int gray = i ^ (i >> 1), x = 0;
    for (int k = 0; gray; ++k, gray >>= 1)
        if (gray & 1)
            x ^= direction_vectors[k];
    return x;
}

QUALIFIERS void curand_init(curandDirectionVectors32_t direction_vectors, unsigned int offset,
                            curandStateSobol32_t *state)
{
    for (int k = 0; k < 32; ++k)
        state->direction_vectors[k] = direction_vectors[k];
    state->i = offset;
    state->c = 0;
    state->x = _simt_sobol32_point(state->direction_vectors, offset);
}

QUALIFIERS void skipahead(unsigned int n, curandStateSobol32_t *state)
{
    state->i += n;
    state->x = _simt_sobol32_point(state->direction_vectors, state->i);
}

QUALIFIERS unsigned int curand(curandStateSobol32_t *state)
{
    unsigned int res = state->x;
    state->x ^= state->direction_vectors[__builtin_ctz(~state->i)];
    state->i++;
    return res;
}

/* Sobol64: the same in 64 bits (curandGetDirectionVectors64). */
struct curandStateSobol64 {
    unsigned long long i, x, c;
    unsigned long long direction_vectors[64];
};
typedef struct curandStateSobol64 curandStateSobol64_t;

QUALIFIERS unsigned long long _simt_sobol64_point(const unsigned long long *direction_vectors,
                                                  unsigned long long i)
{
    unsigned long long gray = i ^ (i >> 1), x = 0;
    for (int k = 0; gray; ++k, gray >>= 1)
        if (gray & 1)
            x ^= direction_vectors[k];
    return x;
}

QUALIFIERS void curand_init(curandDirectionVectors64_t direction_vectors,
                            unsigned long long offset, curandStateSobol64_t *state)
{
    for (int k = 0; k < 64; ++k)
        state->direction_vectors[k] = direction_vectors[k];
    state->i = offset;
    state->c = 0;
    state->x = _simt_sobol64_point(state->direction_vectors, offset);
}

QUALIFIERS void skipahead(unsigned long long n, curandStateSobol64_t *state)
{
    state->i += n;
    state->x = _simt_sobol64_point(state->direction_vectors, state->i);
}

QUALIFIERS unsigned long long curand(curandStateSobol64_t *state)
{
    unsigned long long res = state->x;
    state->x ^= state->direction_vectors[__builtin_ctzll(~state->i)];
    state->i++;
    return res;
}

/* ------------------------------------------------------ distributions */

QUALIFIERS float _curand_uniform(unsigned int x)
{
    return x * CURAND_2POW32_INV + (CURAND_2POW32_INV / 2.0f);
}

QUALIFIERS float4 _curand_uniform4(uint4 x)
{
    return make_float4(_curand_uniform(x.x), _curand_uniform(x.y), _curand_uniform(x.z),
                       _curand_uniform(x.w));
}

QUALIFIERS double _curand_uniform_double_hq(unsigned int x, unsigned int y)
{
    unsigned long long z = (unsigned long long)x ^ ((unsigned long long)y << (53 - 32));
    return z * CURAND_2POW53_INV_DOUBLE + (CURAND_2POW53_INV_DOUBLE / 2.0);
}

QUALIFIERS float2 _curand_box_muller(unsigned int x, unsigned int y)
{
    float u = x * CURAND_2POW32_INV + (CURAND_2POW32_INV / 2);
    float v = y * CURAND_2POW32_INV_2PI + (CURAND_2POW32_INV_2PI / 2);
    float s = sqrtf(-2.0f * logf(u));
    float2 result;
    result.x = sinf(v) * s;
    result.y = cosf(v) * s;
    return result;
}

QUALIFIERS double2 _curand_box_muller_double(unsigned int x0, unsigned int x1, unsigned int y0,
                                             unsigned int y1)
{
    unsigned long long zx = (unsigned long long)x0 ^ ((unsigned long long)x1 << (53 - 32));
    double u = zx * CURAND_2POW53_INV_DOUBLE + (CURAND_2POW53_INV_DOUBLE / 2.0);
    unsigned long long zy = (unsigned long long)y0 ^ ((unsigned long long)y1 << (53 - 32));
    double v = zy * (CURAND_2POW53_INV_DOUBLE * 2.0) + CURAND_2POW53_INV_DOUBLE;
    double s = sqrt(-2.0 * log(u));
    double2 result;
    result.x = sin(v * 3.141592653589793) * s; /* sinpi(v) */
    result.y = cos(v * 3.141592653589793) * s;
    return result;
}

/* The distributions of the two 32-bit generators (XORWOW, Philox) are the
 * same code over curand(state): one template each, instantiated below. */
template <typename State>
QUALIFIERS float _simt_curand_uniform(State *state)
{
    return _curand_uniform(curand(state));
}

template <typename State>
QUALIFIERS double _simt_curand_uniform_double(State *state)
{
    unsigned int x = curand(state);
    unsigned int y = curand(state);
    return _curand_uniform_double_hq(x, y);
}

template <typename State>
QUALIFIERS float2 _simt_curand_normal2(State *state)
{
    unsigned int x = curand(state);
    unsigned int y = curand(state);
    return _curand_box_muller(x, y);
}

template <typename State>
QUALIFIERS double2 _simt_curand_normal2_double(State *state)
{
    unsigned int x0 = curand(state), x1 = curand(state);
    unsigned int y0 = curand(state), y1 = curand(state);
    return _curand_box_muller_double(x0, x1, y0, y1);
}

/* Box-Muller makes two numbers; the second is kept for the next call,
 * flagged by which distribution made it. */
template <typename State>
QUALIFIERS float _simt_curand_normal(State *state, int flag, float mean, float stddev)
{
    if (state->boxmuller_flag != flag) {
        float2 v = _simt_curand_normal2(state);
        float a = mean + stddev * v.x, b = mean + stddev * v.y;
        if (flag == EXTRA_FLAG_LOG_NORMAL) {
            a = expf(a);
            b = expf(b);
        }
        state->boxmuller_extra = b;
        state->boxmuller_flag = flag;
        return a;
    }
    state->boxmuller_flag = 0;
    return state->boxmuller_extra;
}

template <typename State>
QUALIFIERS double _simt_curand_normal_double(State *state, int flag, double mean, double stddev)
{
    if (state->boxmuller_flag_double != flag) {
        double2 v = _simt_curand_normal2_double(state);
        double a = mean + stddev * v.x, b = mean + stddev * v.y;
        if (flag == EXTRA_FLAG_LOG_NORMAL) {
            a = exp(a);
            b = exp(b);
        }
        state->boxmuller_extra_double = b;
        state->boxmuller_flag_double = flag;
        return a;
    }
    state->boxmuller_flag_double = 0;
    return state->boxmuller_extra_double;
}

#define SIMT_CURAND_DISTRIBUTIONS(State)                                                       \
    QUALIFIERS float curand_uniform(State *state) { return _simt_curand_uniform(state); }      \
    QUALIFIERS double curand_uniform_double(State *state)                                      \
    {                                                                                          \
        return _simt_curand_uniform_double(state);                                             \
    }                                                                                          \
    QUALIFIERS float curand_normal(State *state)                                               \
    {                                                                                          \
        return _simt_curand_normal(state, EXTRA_FLAG_NORMAL, 0.0f, 1.0f);                      \
    }                                                                                          \
    QUALIFIERS double curand_normal_double(State *state)                                       \
    {                                                                                          \
        return _simt_curand_normal_double(state, EXTRA_FLAG_NORMAL, 0.0, 1.0);                 \
    }                                                                                          \
    QUALIFIERS float2 curand_normal2(State *state) { return _simt_curand_normal2(state); }     \
    QUALIFIERS double2 curand_normal2_double(State *state)                                     \
    {                                                                                          \
        return _simt_curand_normal2_double(state);                                             \
    }                                                                                          \
    QUALIFIERS float curand_log_normal(State *state, float mean, float stddev)                 \
    {                                                                                          \
        return _simt_curand_normal(state, EXTRA_FLAG_LOG_NORMAL, mean, stddev);                \
    }                                                                                          \
    QUALIFIERS double curand_log_normal_double(State *state, double mean, double stddev)       \
    {                                                                                          \
        return _simt_curand_normal_double(state, EXTRA_FLAG_LOG_NORMAL, mean, stddev);         \
    }                                                                                          \
    QUALIFIERS float2 curand_log_normal2(State *state, float mean, float stddev)               \
    {                                                                                          \
        float2 v = _simt_curand_normal2(state);                                                \
        return make_float2(expf(mean + stddev * v.x), expf(mean + stddev * v.y));              \
    }

SIMT_CURAND_DISTRIBUTIONS(curandStateXORWOW_t)
SIMT_CURAND_DISTRIBUTIONS(curandStatePhilox4_32_10_t)
#undef SIMT_CURAND_DISTRIBUTIONS

/* Philox makes four numbers at a time. */
QUALIFIERS float4 curand_uniform4(curandStatePhilox4_32_10_t *state)
{
    return _curand_uniform4(curand4(state));
}

QUALIFIERS float4 curand_normal4(curandStatePhilox4_32_10_t *state)
{
    uint4 x = curand4(state);
    float2 a = _curand_box_muller(x.x, x.y), b = _curand_box_muller(x.z, x.w);
    return make_float4(a.x, a.y, b.x, b.y);
}

QUALIFIERS double2 curand_uniform2_double(curandStatePhilox4_32_10_t *state)
{
    uint4 x = curand4(state);
    return make_double2(_curand_uniform_double_hq(x.x, x.y), _curand_uniform_double_hq(x.z, x.w));
}

QUALIFIERS float4 curand_log_normal4(curandStatePhilox4_32_10_t *state, float mean, float stddev)
{
    float4 v = curand_normal4(state);
    return make_float4(expf(mean + stddev * v.x), expf(mean + stddev * v.y),
                       expf(mean + stddev * v.z), expf(mean + stddev * v.w));
}

/* MRG32k3a: uniform from its own 1..m1 output, normals from those. */
QUALIFIERS float curand_uniform(curandStateMRG32k3a_t *state)
{
    return (float)(curand_MRG32k3a(state) * MRG32K3A_NORM);
}

QUALIFIERS double curand_uniform_double(curandStateMRG32k3a_t *state)
{
    return curand_MRG32k3a(state) * MRG32K3A_NORM;
}

QUALIFIERS float2 curand_normal2(curandStateMRG32k3a_t *state)
{
    float x = curand_uniform(state);
    float y = curand_uniform(state) * CURAND_2PI;
    float s = sqrtf(-2.0f * logf(x));
    return make_float2(sinf(y) * s, cosf(y) * s);
}

QUALIFIERS double2 curand_normal2_double(curandStateMRG32k3a_t *state)
{
    double x = curand_uniform_double(state);
    double y = curand_uniform_double(state) * 6.283185307179586;
    double s = sqrt(-2.0 * log(x));
    return make_double2(sin(y) * s, cos(y) * s);
}

QUALIFIERS float curand_normal(curandStateMRG32k3a_t *state)
{
    if (state->boxmuller_flag != EXTRA_FLAG_NORMAL) {
        float2 v = curand_normal2(state);
        state->boxmuller_extra = v.y;
        state->boxmuller_flag = EXTRA_FLAG_NORMAL;
        return v.x;
    }
    state->boxmuller_flag = 0;
    return state->boxmuller_extra;
}

QUALIFIERS double curand_normal_double(curandStateMRG32k3a_t *state)
{
    if (state->boxmuller_flag_double != EXTRA_FLAG_NORMAL) {
        double2 v = curand_normal2_double(state);
        state->boxmuller_extra_double = v.y;
        state->boxmuller_flag_double = EXTRA_FLAG_NORMAL;
        return v.x;
    }
    state->boxmuller_flag_double = 0;
    return state->boxmuller_extra_double;
}

QUALIFIERS float curand_log_normal(curandStateMRG32k3a_t *state, float mean, float stddev)
{
    return expf(mean + stddev * curand_normal(state));
}

QUALIFIERS double curand_log_normal_double(curandStateMRG32k3a_t *state, double mean,
                                           double stddev)
{
    return exp(mean + stddev * curand_normal_double(state));
}

/* Quasirandom points keep their low discrepancy only if each draw maps to
 * one number: normals by the inverse of the normal CDF, not Box-Muller
 * (SIMT_CURAND_QUASI_DISTRIBUTIONS below, for Sobol32 and Sobol64). */
QUALIFIERS float curand_uniform(curandStateSobol32_t *state)
{
    return _curand_uniform(curand(state));
}
QUALIFIERS double curand_uniform_double(curandStateSobol32_t *state)
{
    return curand(state) * CURAND_2POW32_INV_DOUBLE + (CURAND_2POW32_INV_DOUBLE / 2.0);
}

/* ---------------------------------------------------- Poisson, discrete */

/* Poisson(lambda) by inversion of one uniform: the CDF summed from 0 until
 * it passes the draw. exp(-lambda) stays a normal double up to 700; a larger
 * lambda is a sum of Poisson draws of at most 500 each, as Poisson variables
 * add. Any generator above. */
template <typename State>
QUALIFIERS unsigned int _simt_curand_poisson_small(State *state, double lambda)
{
    double u = curand_uniform_double(state);
    double p = exp(-lambda), cdf = p;
    unsigned int k = 0;
    while (u > cdf && p > 0.0) {
        ++k;
        p *= lambda / k;
        cdf += p;
    }
    return k;
}

template <typename State>
QUALIFIERS unsigned int curand_poisson(State *state, double lambda)
{
    unsigned int k = 0;
    for (; lambda > 500.0; lambda -= 500.0)
        k += _simt_curand_poisson_small(state, 500.0);
    return k + _simt_curand_poisson_small(state, lambda);
}

/* A draw from a distribution of curandCreatePoissonDistribution: the first
 * entry of its CDF table at or above a uniform. */
template <typename State>
QUALIFIERS unsigned int curand_discrete(State *state,
                                        curandDiscreteDistribution_t discrete_distribution)
{
    double u = curand_uniform_double(state);
    const double *cdf = discrete_distribution->cdf;
    unsigned int lo = 0, hi = discrete_distribution->length - 1;
    while (lo < hi) {
        unsigned int mid = lo + (hi - lo) / 2;
        if (cdf[mid] < u)
            lo = mid + 1;
        else
            hi = mid;
    }
    return discrete_distribution->shift + lo;
}

#define CURAND_2POW64_INV_DOUBLE (5.4210108624275222e-20)
QUALIFIERS float curand_uniform(curandStateSobol64_t *state)
{
    return (float)(curand(state) * CURAND_2POW64_INV_DOUBLE + (CURAND_2POW64_INV_DOUBLE / 2.0));
}
QUALIFIERS double curand_uniform_double(curandStateSobol64_t *state)
{
    return curand(state) * CURAND_2POW64_INV_DOUBLE + (CURAND_2POW64_INV_DOUBLE / 2.0);
}
#define SIMT_CURAND_QUASI_DISTRIBUTIONS(State)                                                 \
    QUALIFIERS float curand_normal(State *state) { return normcdfinvf(curand_uniform(state)); } \
    QUALIFIERS double curand_normal_double(State *state)                                       \
    {                                                                                          \
        return normcdfinv(curand_uniform_double(state));                                       \
    }                                                                                          \
    QUALIFIERS float curand_log_normal(State *state, float mean, float stddev)                 \
    {                                                                                          \
        return expf(mean + stddev * curand_normal(state));                                     \
    }                                                                                          \
    QUALIFIERS double curand_log_normal_double(State *state, double mean, double stddev)       \
    {                                                                                          \
        return exp(mean + stddev * curand_normal_double(state));                               \
    }

SIMT_CURAND_QUASI_DISTRIBUTIONS(curandStateSobol32_t)
SIMT_CURAND_QUASI_DISTRIBUTIONS(curandStateSobol64_t)
#undef SIMT_CURAND_QUASI_DISTRIBUTIONS

#endif /* SIMTGPU_CURAND_KERNEL_H */
