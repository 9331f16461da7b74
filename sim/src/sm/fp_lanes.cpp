// Warp-wide FP arithmetic in AVX2 + FMA (fp_lanes.h). Only these functions
// are compiled for that target (a function attribute); available() checks
// the CPU once, so the library runs on any x86-64 host.
#include "sm/fp_lanes.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace simtgpu::sim::fp::lanes {

#if defined(__x86_64__)

namespace {

#define SIMT_AVX2 __attribute__((target("avx2,fma"), always_inline)) inline

// Eight NaN-boxed singles as eight floats in the order shuffle_ps gives:
// per 128-bit half, lanes k, k+1 of the first four then of the second four.
// store_single undoes it.
SIMT_AVX2 __m256 load_single(const uint64_t *p)
{
    const __m256 x = _mm256_castsi256_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(p)));
    const __m256 y =
        _mm256_castsi256_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i *>(p + 4)));
    const __m256 low = _mm256_shuffle_ps(x, y, 0x88);  // the float bits
    const __m256 high = _mm256_shuffle_ps(x, y, 0xdd); // the boxes
    const __m256 boxed =
        _mm256_castsi256_ps(_mm256_cmpeq_epi32(_mm256_castps_si256(high), _mm256_set1_epi32(-1)));
    const __m256 nan = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fc00000));
    return _mm256_blendv_ps(nan, low, boxed);
}

SIMT_AVX2 void store_single(uint64_t *p, __m256 r)
{
    const __m256 nan = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fc00000));
    r = _mm256_blendv_ps(r, nan, _mm256_cmp_ps(r, r, _CMP_UNORD_Q));
    const __m256 box = _mm256_castsi256_ps(_mm256_set1_epi32(-1));
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(p),
                        _mm256_castps_si256(_mm256_unpacklo_ps(r, box)));
    _mm256_storeu_si256(reinterpret_cast<__m256i *>(p + 4),
                        _mm256_castps_si256(_mm256_unpackhi_ps(r, box)));
}

SIMT_AVX2 __m256d load_double(const uint64_t *p)
{
    return _mm256_loadu_pd(reinterpret_cast<const double *>(p));
}

SIMT_AVX2 void store_double(uint64_t *p, __m256d r)
{
    const __m256d nan = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7ff8000000000000ll));
    _mm256_storeu_pd(reinterpret_cast<double *>(p),
                     _mm256_blendv_pd(r, nan, _mm256_cmp_pd(r, r, _CMP_UNORD_Q)));
}

// fp::fma: where a * b is inf * 0, c becomes +0 so that the host raises NV
// even when c is a quiet NaN.
SIMT_AVX2 __m256 fma_single(__m256 a, __m256 b, __m256 c)
{
    const __m256 sign = _mm256_set1_ps(-0.0f), inf = _mm256_set1_ps(__builtin_inff());
    const __m256 zero = _mm256_setzero_ps();
    const __m256 a_inf = _mm256_cmp_ps(_mm256_andnot_ps(sign, a), inf, _CMP_EQ_OQ);
    const __m256 b_inf = _mm256_cmp_ps(_mm256_andnot_ps(sign, b), inf, _CMP_EQ_OQ);
    const __m256 a_zero = _mm256_cmp_ps(a, zero, _CMP_EQ_OQ);
    const __m256 b_zero = _mm256_cmp_ps(b, zero, _CMP_EQ_OQ);
    const __m256 inf_times_zero =
        _mm256_or_ps(_mm256_and_ps(a_inf, b_zero), _mm256_and_ps(a_zero, b_inf));
    return _mm256_fmadd_ps(a, b, _mm256_andnot_ps(inf_times_zero, c));
}

SIMT_AVX2 __m256d fma_double(__m256d a, __m256d b, __m256d c)
{
    const __m256d sign = _mm256_set1_pd(-0.0), inf = _mm256_set1_pd(__builtin_inf());
    const __m256d zero = _mm256_setzero_pd();
    const __m256d a_inf = _mm256_cmp_pd(_mm256_andnot_pd(sign, a), inf, _CMP_EQ_OQ);
    const __m256d b_inf = _mm256_cmp_pd(_mm256_andnot_pd(sign, b), inf, _CMP_EQ_OQ);
    const __m256d a_zero = _mm256_cmp_pd(a, zero, _CMP_EQ_OQ);
    const __m256d b_zero = _mm256_cmp_pd(b, zero, _CMP_EQ_OQ);
    const __m256d inf_times_zero =
        _mm256_or_pd(_mm256_and_pd(a_inf, b_zero), _mm256_and_pd(a_zero, b_inf));
    return _mm256_fmadd_pd(a, b, _mm256_andnot_pd(inf_times_zero, c));
}

// What the loop below needs of a lane type: eight singles or four doubles
// per 256-bit register.
struct SingleLanes {
    using Vec = __m256;
    using Scalar = float;
    static constexpr uint32_t kWidth = 8;
    SIMT_AVX2 static Vec load(const uint64_t *p) { return load_single(p); }
    SIMT_AVX2 static void store(uint64_t *p, Vec r) { store_single(p, r); }
    SIMT_AVX2 static Vec splat(Scalar v) { return _mm256_set1_ps(v); }
    SIMT_AVX2 static Vec add(Vec a, Vec b) { return _mm256_add_ps(a, b); }
    SIMT_AVX2 static Vec sub(Vec a, Vec b) { return _mm256_sub_ps(a, b); }
    SIMT_AVX2 static Vec mul(Vec a, Vec b) { return _mm256_mul_ps(a, b); }
    SIMT_AVX2 static Vec div(Vec a, Vec b) { return _mm256_div_ps(a, b); }
    SIMT_AVX2 static Vec sqrt(Vec a) { return _mm256_sqrt_ps(a); }
    SIMT_AVX2 static Vec fma(Vec a, Vec b, Vec c) { return fma_single(a, b, c); }
};

struct DoubleLanes {
    using Vec = __m256d;
    using Scalar = double;
    static constexpr uint32_t kWidth = 4;
    SIMT_AVX2 static Vec load(const uint64_t *p) { return load_double(p); }
    SIMT_AVX2 static void store(uint64_t *p, Vec r) { store_double(p, r); }
    SIMT_AVX2 static Vec splat(Scalar v) { return _mm256_set1_pd(v); }
    SIMT_AVX2 static Vec add(Vec a, Vec b) { return _mm256_add_pd(a, b); }
    SIMT_AVX2 static Vec sub(Vec a, Vec b) { return _mm256_sub_pd(a, b); }
    SIMT_AVX2 static Vec mul(Vec a, Vec b) { return _mm256_mul_pd(a, b); }
    SIMT_AVX2 static Vec div(Vec a, Vec b) { return _mm256_div_pd(a, b); }
    SIMT_AVX2 static Vec sqrt(Vec a) { return _mm256_sqrt_pd(a); }
    SIMT_AVX2 static Vec fma(Vec a, Vec b, Vec c) { return fma_double(a, b, c); }
};

template <class L, Kind K>
__attribute__((target("avx2,fma"))) void lanes_of(const uint64_t *a, const uint64_t *b,
                                                   const uint64_t *c, typename L::Scalar sa,
                                                   typename L::Scalar sc, uint64_t *res,
                                                   uint32_t n)
{
    for (uint32_t i = 0; i < n; i += L::kWidth) {
        const typename L::Vec x = L::load(a + i);
        typename L::Vec r;
        if constexpr (K == Kind::Add) r = L::add(x, L::load(b + i));
        else if constexpr (K == Kind::Sub) r = L::sub(x, L::load(b + i));
        else if constexpr (K == Kind::Mul) r = L::mul(x, L::load(b + i));
        else if constexpr (K == Kind::Div) r = L::div(x, L::load(b + i));
        else if constexpr (K == Kind::Sqrt) r = L::sqrt(x);
        else
            r = L::fma(L::mul(L::splat(sa), x), L::load(b + i),
                       L::mul(L::splat(sc), L::load(c + i)));
        L::store(res + i, r);
    }
}

template <class L>
void lanes(Kind kind, const uint64_t *a, const uint64_t *b, const uint64_t *c,
           typename L::Scalar sa, typename L::Scalar sc, uint64_t *res, uint32_t n)
{
    switch (kind) {
    case Kind::Add: return lanes_of<L, Kind::Add>(a, b, c, sa, sc, res, n);
    case Kind::Sub: return lanes_of<L, Kind::Sub>(a, b, c, sa, sc, res, n);
    case Kind::Mul: return lanes_of<L, Kind::Mul>(a, b, c, sa, sc, res, n);
    case Kind::Div: return lanes_of<L, Kind::Div>(a, b, c, sa, sc, res, n);
    case Kind::Sqrt: return lanes_of<L, Kind::Sqrt>(a, b, c, sa, sc, res, n);
    case Kind::Fma: return lanes_of<L, Kind::Fma>(a, b, c, sa, sc, res, n);
    }
}

} // namespace

bool available()
{
    static const bool ok = [] {
        __builtin_cpu_init(); // may run before libgcc's own constructor
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    }();
    return ok;
}

void single(Kind kind, const uint64_t *a, const uint64_t *b, const uint64_t *c, float sa,
            float sc, uint64_t *res, uint32_t n)
{
    lanes<SingleLanes>(kind, a, b, c, sa, sc, res, n);
}

void dbl(Kind kind, const uint64_t *a, const uint64_t *b, const uint64_t *c, double sa, double sc,
         uint64_t *res, uint32_t n)
{
    lanes<DoubleLanes>(kind, a, b, c, sa, sc, res, n);
}

#else

bool available() { return false; }
void single(Kind, const uint64_t *, const uint64_t *, const uint64_t *, float, float, uint64_t *,
            uint32_t)
{
}
void dbl(Kind, const uint64_t *, const uint64_t *, const uint64_t *, double, double, uint64_t *,
         uint32_t)
{
}

#endif

} // namespace simtgpu::sim::fp::lanes
