// The host-SIMD warp arithmetic (core/fp_lanes.h) against the per-lane
// scalar code it replaces (the expressions of Sm::Impl::exec_fp): the same
// result bits in every lane and the same exception flags, in every host
// rounding mode, over operands rich in special values.
#include "sm/fp.h"
#include "sm/fp_lanes.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <type_traits>
#include <vector>

namespace simtgpu::sim {
namespace {

using fp::lanes::Kind;
constexpr uint32_t kLanes = 32;

uint64_t special_single(std::mt19937_64 &rng)
{
    static const uint32_t bits[] = {
        0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, // zeros, infinities
        0x7fc00000u, 0xffc00001u, 0x7f800001u, 0xff812345u, // quiet and signalling NaNs
        0x00000001u, 0x807fffffu, 0x00800000u, 0x7f7fffffu, // denormals, min and max normal
        0x3f800000u, 0xbf800000u, 0x3eaaaaabu, 0x4b000001u,
    };
    const uint64_t pick = rng();
    if (pick % 8 == 0)
        return uint32_t(rng()); // not NaN-boxed: reads as the canonical NaN
    const uint32_t v = pick % 3 == 0 ? bits[rng() % std::size(bits)] : uint32_t(rng());
    return fp::kBoxMask | v;
}

uint64_t special_double(std::mt19937_64 &rng)
{
    static const uint64_t bits[] = {
        0x0000000000000000ull, 0x8000000000000000ull, 0x7ff0000000000000ull,
        0xfff0000000000000ull, 0x7ff8000000000000ull, 0x7ff0000000000001ull,
        0xfff4000000000000ull, 0x0000000000000001ull, 0x0010000000000000ull,
        0x7fefffffffffffffull, 0x3ff0000000000000ull, 0xbfd5555555555555ull,
    };
    return rng() % 3 == 0 ? bits[rng() % std::size(bits)] : rng();
}

// The scalar code of exec_fp for one lane.
template <typename T> uint64_t scalar(Kind k, uint64_t a, uint64_t b, uint64_t c, T sa, T sc)
{
    auto value = [](uint64_t r) {
        if constexpr (std::is_same_v<T, float>)
            return fp::unbox(r);
        else
            return std::bit_cast<double>(r);
    };
    const T x = value(a), y = value(b), z = value(c);
    T r = 0;
    switch (k) {
    case Kind::Add: r = x + y; break;
    case Kind::Sub: r = x - y; break;
    case Kind::Mul: r = x * y; break;
    case Kind::Div: r = x / y; break;
    case Kind::Sqrt: r = std::sqrt(x); break;
    case Kind::Fma: r = fp::fma(sa * x, y, sc * z); break;
    }
    if constexpr (std::is_same_v<T, float>)
        return fp::box(fp::canonicalize(r));
    else
        return std::bit_cast<uint64_t>(fp::canonicalize(r));
}

TEST(CoreFpLanes, WarpSimdMatchesPerLaneResultsAndFlags)
{
    if (!fp::lanes::available())
        GTEST_SKIP() << "this host has no AVX2 and FMA: the per-lane code runs instead";
    std::mt19937_64 rng(17);
    const Kind kinds[] = {Kind::Add, Kind::Sub, Kind::Mul, Kind::Div, Kind::Sqrt, Kind::Fma};
    uint32_t checked = 0;
    for (int round = 0; round < 400; ++round) {
        for (const bool dbl : {false, true}) {
            std::vector<uint64_t> a(kLanes), b(kLanes), c(kLanes);
            for (uint32_t l = 0; l < kLanes; ++l) {
                a[l] = dbl ? special_double(rng) : special_single(rng);
                b[l] = dbl ? special_double(rng) : special_single(rng);
                c[l] = dbl ? special_double(rng) : special_single(rng);
            }
            // Some lanes multiply an infinity by zero (fp::fma's NV rule).
            if (round % 4 == 0) {
                a[3] = dbl ? 0x7ff0000000000000ull : fp::kBoxMask | 0x7f800000u;
                b[3] = dbl ? 0 : fp::kBoxMask;
                c[3] = dbl ? 0x7ff8000000000000ull : fp::kBoxMask | 0x7fc00000u;
            }
            for (const Kind k : kinds) {
                for (uint8_t rm = 0; rm < 4; ++rm) {
                    const double sa = (round & 1) ? -1.0 : 1.0, sc = (round & 2) ? -1.0 : 1.0;
                    uint64_t want[kLanes], got[kLanes];
                    fp::set_round(rm);
                    for (uint32_t l = 0; l < kLanes; ++l)
                        want[l] = dbl ? scalar<double>(k, a[l], b[l], c[l], sa, sc)
                                      : scalar<float>(k, a[l], b[l], c[l], float(sa), float(sc));
                    const uint8_t want_flags = fp::flags();
                    fp::set_round(rm);
                    if (dbl)
                        fp::lanes::dbl(k, a.data(), b.data(), c.data(), sa, sc, got, kLanes);
                    else
                        fp::lanes::single(k, a.data(), b.data(), c.data(), float(sa),
                                          float(sc), got, kLanes);
                    const uint8_t got_flags = fp::flags();
                    fp::set_round(fp::kRne);
                    for (uint32_t l = 0; l < kLanes; ++l)
                        ASSERT_EQ(got[l], want[l])
                            << (dbl ? "double" : "single") << " kind " << int(k) << " rm "
                            << int(rm) << " lane " << l << ": a " << std::hex << a[l] << " b "
                            << b[l] << " c " << c[l];
                    ASSERT_EQ(got_flags, want_flags)
                        << (dbl ? "double" : "single") << " kind " << int(k) << " rm " << int(rm);
                    ++checked;
                }
            }
        }
    }
    EXPECT_EQ(checked, 400u * 2 * 6 * 4);
}

// fp::rne_sum_inexact and rne_product_inexact, which attribute NX to lanes
// without the FPU's flags: where the FPU raised NX alone or nothing, they say
// so (or -1, cannot tell), and they cannot tell only for results that are not
// finite or tiny products.
template <typename T> void check_error_free_transforms(std::mt19937_64 &rng, uint32_t &told)
{
    for (int i = 0; i < 20000; ++i) {
        T a, b;
        if constexpr (std::is_same_v<T, float>) {
            a = fp::unbox(special_single(rng));
            b = fp::unbox(special_single(rng));
        } else {
            a = std::bit_cast<double>(special_double(rng));
            b = std::bit_cast<double>(special_double(rng));
        }
        for (const bool product : {false, true}) {
            fp::set_round(fp::kRne);
            volatile T r = product ? a * b : a + b;
            (void)r;
            const uint8_t flags = fp::flags();
            if (flags & ~fp::kNX)
                continue; // the helpers are not asked then
            const int nx = product ? fp::rne_product_inexact(a, b) : fp::rne_sum_inexact(a, b);
            if (nx < 0) {
                const T v = product ? a * b : a + b;
                EXPECT_TRUE(!std::isfinite(v) || (product && std::fabs(v) < T(1e-20)))
                    << "could not tell for " << a << (product ? " * " : " + ") << b;
                continue;
            }
            ASSERT_EQ(nx, (flags & fp::kNX) ? 1 : 0) << a << (product ? " * " : " + ") << b;
            ++told;
        }
    }
}

TEST(CoreFpLanes, ErrorFreeTransformsTellInexactAsTheFpuDoes)
{
    std::mt19937_64 rng(23);
    uint32_t told = 0;
    check_error_free_transforms<float>(rng, told);
    check_error_free_transforms<double>(rng, told);
    EXPECT_GT(told, 40000u); // most pairs are told, not left to the FPU
}

} // namespace
} // namespace simtgpu::sim
