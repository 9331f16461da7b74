// IEEE-754 helpers for the F and D extensions: the host FPU's rounding mode
// and exception flags, NaN boxing, canonical NaNs, and what the host does
// not do the RISC-V way (RMM rounding, saturating conversions, fmin/fmax of
// spec 2.2, fclass, signalling comparisons).
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#if defined(__x86_64__)
#include <xmmintrin.h>
#else
#include <cfenv>
#endif

namespace simtgpu::sim::fp {

// RISC-V fflags bits and rounding modes.
inline constexpr uint8_t kNX = 1, kUF = 2, kOF = 4, kDZ = 8, kNV = 16;
enum Rm : uint8_t { kRne = 0, kRtz = 1, kRdn = 2, kRup = 3, kRmm = 4, kDyn = 7 };

inline constexpr uint32_t kCanonicalNanS = 0x7fc00000u;
inline constexpr uint64_t kCanonicalNanD = 0x7ff8000000000000ull;
inline constexpr uint64_t kBoxMask = 0xffffffff00000000ull;

inline uint64_t box(float f) { return kBoxMask | std::bit_cast<uint32_t>(f); }
inline float unbox(uint64_t r)
{
    return (r & kBoxMask) == kBoxMask ? std::bit_cast<float>(uint32_t(r))
                                      : std::bit_cast<float>(kCanonicalNanS);
}

struct HostFpState {
    uint8_t flags; // RISC-V fflags bits
    bool nearest_even;
};

// The host FPU. Operations between clear() and flags() run in `set_round`'s
// mode; the asm statements (with memory clobbers) keep the compiler from
// moving the per-lane loops, which read and write memory, across them.
#if defined(__x86_64__)
inline uint32_t host_csr()
{
    uint32_t v;
    asm volatile("stmxcsr %0" : "=m"(v)::"memory");
    return v;
}
inline void set_host_csr(uint32_t v) { asm volatile("ldmxcsr %0" ::"m"(v) : "memory"); }
// Sets the rounding mode, RISC-V rm (0..3) -> MXCSR RC field (bits 14:13),
// and clears the exception flags.
inline void set_round(uint8_t rm)
{
    static constexpr uint32_t rc[4] = {0u << 13, 3u << 13, 1u << 13, 2u << 13};
    set_host_csr((host_csr() & ~(3u << 13) & ~0x3fu) | rc[rm & 3]);
}
inline void clear_flags() { set_host_csr(host_csr() & ~0x3fu); }
inline uint8_t flags_of_csr(uint32_t x)
{
    return uint8_t(((x & 1) ? kNV : 0) | ((x & 4) ? kDZ : 0) | ((x & 8) ? kOF : 0) |
                   ((x & 16) ? kUF : 0) | ((x & 32) ? kNX : 0));
}
inline uint8_t flags() { return flags_of_csr(host_csr()); }
// The flags raised since they were last cleared, and whether the host rounds
// to nearest even, in one read (an MXCSR write costs far more than a read).
inline HostFpState host_state()
{
    const uint32_t x = host_csr();
    return HostFpState{flags_of_csr(x), (x & (3u << 13)) == 0};
}
#else
inline void set_round(uint8_t rm)
{
    static constexpr int modes[4] = {FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD};
    std::fesetround(modes[rm & 3]);
    std::feclearexcept(FE_ALL_EXCEPT);
}
inline void clear_flags() { std::feclearexcept(FE_ALL_EXCEPT); }
inline uint8_t flags()
{
    const int x = std::fetestexcept(FE_ALL_EXCEPT);
    return uint8_t(((x & FE_INVALID) ? kNV : 0) | ((x & FE_DIVBYZERO) ? kDZ : 0) |
                   ((x & FE_OVERFLOW) ? kOF : 0) | ((x & FE_UNDERFLOW) ? kUF : 0) |
                   ((x & FE_INEXACT) ? kNX : 0));
}
inline HostFpState host_state() { return HostFpState{flags(), std::fegetround() == FE_TONEAREST}; }
#endif

// Whether a + b (a sum) or a * b (a product), rounded to nearest even, is
// inexact, told without the FPU's flags by the error-free transforms: the
// error of a sum by TwoSum, of a product by an FMA. 1 or 0, or -1 where they
// cannot tell: a result that is not finite, or a product so small that its
// error may lie below the subnormals. Exact only where the operation raised
// no other flag (no overflow, underflow or invalid operation).
template <class T> int rne_sum_inexact(T a, T b)
{
    const T s = a + b;
    if (!std::isfinite(s))
        return -1;
    const T bb = s - a;
    return ((a - (s - bb)) + (b - bb)) != 0;
}
template <class T> int rne_product_inexact(T a, T b)
{
    // Below 2^(emin + digits) the error can underflow.
    static const T smallest = std::ldexp(std::numeric_limits<T>::min(),
                                         std::numeric_limits<T>::digits);
    const T p = a * b;
    if (!std::isfinite(p) || (p != 0 && std::fabs(p) < smallest))
        return -1;
    return std::fma(a, b, -p) != 0;
}

template <typename T> using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;

template <typename T> inline T canonical_nan()
{
    if constexpr (sizeof(T) == 4) return std::bit_cast<float>(kCanonicalNanS);
    else return std::bit_cast<double>(kCanonicalNanD);
}
template <typename T> inline T canonicalize(T v) { return v != v ? canonical_nan<T>() : v; }

template <typename T> inline bool is_snan(T v)
{
    constexpr Bits<T> quiet = Bits<T>(1) << (std::numeric_limits<T>::digits - 2);
    return v != v && !(std::bit_cast<Bits<T>>(v) & quiet);
}

template <typename T> inline uint64_t fclass(T v)
{
    const bool neg = std::signbit(v);
    switch (std::fpclassify(v)) {
    case FP_INFINITE: return neg ? 1u << 0 : 1u << 7;
    case FP_NORMAL: return neg ? 1u << 1 : 1u << 6;
    case FP_SUBNORMAL: return neg ? 1u << 2 : 1u << 5;
    case FP_ZERO: return neg ? 1u << 3 : 1u << 4;
    default: return is_snan(v) ? 1u << 8 : 1u << 9;
    }
}

// RISC-V fma: inf * 0 + c raises NV even when c is a quiet NaN (x86 and
// IEEE leave that open); replacing c by 0 there makes the host raise it.
template <typename T> inline T fma(T a, T b, T c)
{
    const bool inf_times_zero = (std::isinf(a) && b == 0) || (a == 0 && std::isinf(b));
    return std::fma(a, b, inf_times_zero ? T(0) : c);
}

// fmin/fmax of spec 2.2: a NaN operand loses, both NaN give the canonical
// NaN, -0 < +0, a signalling NaN raises NV.
template <typename T> inline T fminmax(T a, T b, bool is_max, uint8_t &fl)
{
    if (is_snan(a) || is_snan(b)) fl |= kNV;
    const bool na = a != a, nb = b != b;
    if (na && nb) return canonical_nan<T>();
    if (na) return b;
    if (nb) return a;
    if (a == b) { // equal, or +0 and -0
        const bool sa = std::signbit(a);
        return (sa != is_max) ? a : b;
    }
    return (a < b) != is_max ? a : b;
}

// feq raises NV for signalling NaNs only; flt and fle for any NaN.
template <typename T> inline uint64_t feq(T a, T b, uint8_t &fl)
{
    if (is_snan(a) || is_snan(b)) fl |= kNV;
    return !(a != a) && !(b != b) && a == b;
}
template <typename T> inline uint64_t flt(T a, T b, bool or_equal, uint8_t &fl)
{
    if (a != a || b != b) {
        fl |= kNV;
        return 0;
    }
    return or_equal ? a <= b : a < b;
}

// x rounded to an integral value in mode rm (0..4), in software.
template <typename T> inline T round_integral(T x, uint8_t rm)
{
    switch (rm) {
    case kRtz: return std::trunc(x);
    case kRdn: return std::floor(x);
    case kRup: return std::ceil(x);
    case kRmm: return std::round(x);
    default: { // ties to even
        const T t = std::trunc(x);
        const T diff = std::fabs(x - t); // exact
        if (diff < T(0.5)) return t;
        const T away = t + std::copysign(T(1), x);
        if (diff > T(0.5)) return away;
        return std::fmod(t, T(2)) == 0 ? t : away;
    }
    }
}

// Saturating conversion to an integer type I (int32_t, uint32_t, int64_t,
// uint64_t); NaN converts to the largest value. Raises NV or NX.
template <typename I, typename T> inline I to_int(T x, uint8_t rm, uint8_t &fl)
{
    constexpr I lo = std::numeric_limits<I>::min(), hi = std::numeric_limits<I>::max();
    if (x != x) {
        fl |= kNV;
        return hi;
    }
    const T r = round_integral(x, rm);
    // Bounds as T: [-2^(n-1), 2^(n-1)) or [0, 2^n).
    const T hi_excl = std::ldexp(T(1), std::numeric_limits<I>::digits);
    const T lo_t = std::is_signed_v<I> ? -hi_excl : T(0);
    if (r < lo_t) {
        fl |= kNV;
        return lo;
    }
    if (r >= hi_excl) {
        fl |= kNV;
        return hi;
    }
    if (r != x) fl |= kNX;
    return I(r);
}

// Round-to-nearest, ties away from zero (RMM), which x86 lacks: the exact
// result is s + residual (residual much smaller than s, or 0; only its sign
// matters), given in binary128, rounded to T. Call with the host in RNE.
template <typename T> inline T round_rmm(__float128 s, int residual_sign)
{
    T d = T(s); // round to nearest even: one of the two neighbours
    if (__float128(d) == s && residual_sign == 0) return d;
    if (std::isinf(d)) return d; // beyond the last finite value: RMM overflows too
    T lo, hi;
    if (__float128(d) > s || (__float128(d) == s && residual_sign < 0)) {
        hi = d;
        lo = std::nextafter(d, -std::numeric_limits<T>::infinity());
    } else {
        lo = d;
        hi = std::nextafter(d, std::numeric_limits<T>::infinity());
    }
    const __float128 mid = (__float128(lo) + __float128(hi)) / 2;
    int cmp = s > mid ? 1 : s < mid ? -1 : residual_sign;
    if (cmp > 0) return hi;
    if (cmp < 0) return lo;
    return std::fabs(hi) > std::fabs(lo) ? hi : lo; // a tie: away from zero
}

// Exact a + b as binary128 sum and residual sign (TwoSum in binary128).
inline int two_sum(__float128 a, __float128 b, __float128 &s)
{
    s = a + b;
    const __float128 bb = s - a;
    const __float128 err = (a - (s - bb)) + (b - bb);
    return err > 0 ? 1 : err < 0 ? -1 : 0;
}

template <typename T> inline T rmm_add(T a, T b)
{
    __float128 s;
    const int r = two_sum(a, b, s);
    return round_rmm<T>(s, r);
}
template <typename T> inline T rmm_mul(T a, T b)
{
    return round_rmm<T>(__float128(a) * __float128(b), 0); // exact for 53-bit operands
}
template <typename T> inline T rmm_fma(T a, T b, T c)
{
    __float128 s;
    const int r = two_sum(__float128(a) * __float128(b), c, s);
    return round_rmm<T>(s, r);
}

} // namespace simtgpu::sim::fp
