// The common FP32/FP64 arithmetic of a whole warp in host SIMD (AVX2 and
// FMA, chosen at run time: the build keeps the default x86-64 target, and
// hosts without them, or other architectures, use the per-lane loop).
//
// Each function computes, for lanes 0..n-1 (n a multiple of 8), exactly what
// the per-lane code of Sm::Impl::exec_fp computes in the current host
// rounding mode: NaN-boxed single operands (an unboxed one reads as the
// canonical NaN), IEEE operations (correctly rounded, so the same bits as
// the scalar instructions, and the same exception flags accrue in MXCSR),
// canonical NaN results, results NaN-boxed. The caller reads the flags
// after the call as it does after the lane loop.
#pragma once

#include <cstdint>

namespace simtgpu::sim::fp::lanes {

enum class Kind : uint8_t { Add, Sub, Mul, Div, Sqrt, Fma };

// Whether this host runs the functions below (AVX2 and FMA).
bool available();

// res = op(a, b[, c]); for Fma res = fma(sa * a, b, sc * c) with RISC-V's
// inf * 0 + qNaN rule (fp::fma). b and c are unused where the op has fewer
// operands.
void single(Kind kind, const uint64_t *a, const uint64_t *b, const uint64_t *c, float sa,
            float sc, uint64_t *res, uint32_t n);
void dbl(Kind kind, const uint64_t *a, const uint64_t *b, const uint64_t *c, double sa, double sc,
         uint64_t *res, uint32_t n);

} // namespace simtgpu::sim::fp::lanes
