#include "sm/reconvergence.h"

#include <algorithm>
#include <bit>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace simtgpu::sim {
namespace {

// The group with the lowest PC goes first: structured code reconverges at
// its join point, and every group keeps making progress.
#if defined(__x86_64__)
#define SIMT_AVX2 __attribute__((target("avx2"), always_inline)) inline

// The runnable lanes 4k..4k+3 as an element mask.
SIMT_AVX2 __m256i runnable_lanes(uint64_t runnable, int k) {
    const __m256i lane_bits = _mm256_set_epi64x(8, 4, 2, 1);
    const __m256i bits = _mm256_set1_epi64x(int64_t(runnable >> (4 * k) & 15));
    return _mm256_cmpeq_epi64(_mm256_and_si256(bits, lane_bits), lane_bits);
}

// PCs of lanes 4k..4k+3, biased so that signed order is unsigned order;
// lanes outside `in` are never read (the array ends at the warp's last lane).
SIMT_AVX2 __m256i biased_pcs(const uint64_t *pcs, int k, __m256i in) {
    return _mm256_xor_si256(
        _mm256_maskload_epi64(reinterpret_cast<const long long *>(pcs + 4 * k), in),
        _mm256_set1_epi64x(INT64_MIN));
}

SIMT_AVX2 __m256i min_biased(__m256i a, __m256i b) {
    return _mm256_blendv_epi8(a, b, _mm256_cmpgt_epi64(a, b));
}

SIMT_AVX2 uint64_t unbiased_min(__m256i v) {
    alignas(32) int64_t e[4];
    _mm256_store_si256(reinterpret_cast<__m256i *>(e), v);
    return uint64_t(std::min(std::min(e[0], e[1]), std::min(e[2], e[3]))) ^ uint64_t(INT64_MIN);
}

// min-PC over four lanes at a time (AVX2): asked at every burst of a
// diverged warp, the per-lane loop with its unpredictable branches was a
// quarter of the time of a divergent kernel. The same answer: the lowest PC,
// its lanes, and the lowest PC above it.
__attribute__((target("avx2"))) GroupChoice min_pc_avx2(const uint64_t *pcs, uint64_t runnable) {
    const int chunks = (64 - std::countl_zero(runnable) + 3) / 4;
    const __m256i none = _mm256_set1_epi64x(INT64_MAX); // UINT64_MAX, biased
    __m256i lowest = none;
    for (int k = 0; k < chunks; ++k) {
        const __m256i in = runnable_lanes(runnable, k);
        lowest = min_biased(lowest, _mm256_blendv_epi8(none, biased_pcs(pcs, k, in), in));
    }
    const uint64_t min_pc = unbiased_min(lowest);
    const __m256i min_pc_biased = _mm256_set1_epi64x(int64_t(min_pc ^ uint64_t(INT64_MIN)));
    __m256i above = none;
    uint64_t mask = 0;
    for (int k = 0; k < chunks; ++k) {
        const __m256i in = runnable_lanes(runnable, k);
        const __m256i pc = biased_pcs(pcs, k, in);
        const __m256i at_min = _mm256_and_si256(in, _mm256_cmpeq_epi64(pc, min_pc_biased));
        mask |= uint64_t(_mm256_movemask_pd(_mm256_castsi256_pd(at_min))) << (4 * k);
        above = min_biased(above, _mm256_blendv_epi8(none, pc, _mm256_andnot_si256(at_min, in)));
    }
    return {min_pc, mask, unbiased_min(above)};
}

bool host_has_avx2() {
    static const bool ok = [] {
        __builtin_cpu_init();
        return bool(__builtin_cpu_supports("avx2"));
    }();
    return ok;
}
#endif

class MinPcPolicy final : public ReconvergencePolicy {
public:
    GroupChoice select(const uint64_t *pcs, uint64_t runnable) const override {
#if defined(__x86_64__)
        if (avx2_)
            return min_pc_avx2(pcs, runnable);
#endif
        uint64_t min_pc = UINT64_MAX, second = UINT64_MAX, mask = 0;
        for (uint64_t m = runnable; m; m &= m - 1) {
            const int l = std::countr_zero(m);
            const uint64_t pc = pcs[l];
            if (pc < min_pc) {
                second = min_pc;
                min_pc = pc;
                mask = uint64_t(1) << l;
            } else if (pc == min_pc) {
                mask |= uint64_t(1) << l;
            } else if (pc < second) {
                second = pc;
            }
        }
        return {min_pc, mask, second};
    }

private:
#if defined(__x86_64__)
    const bool avx2_ = host_has_avx2();
#endif
};

} // namespace

bool is_reconvergence_policy(std::string_view name) {
    return std::find(kReconvergencePolicies.begin(), kReconvergencePolicies.end(), name) !=
           kReconvergencePolicies.end();
}

std::unique_ptr<ReconvergencePolicy> make_reconvergence_policy(std::string_view) {
    return std::make_unique<MinPcPolicy>();
}

} // namespace simtgpu::sim
