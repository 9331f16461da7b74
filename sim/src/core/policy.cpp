#include "core/policy.h"

#include <algorithm>
#include <bit>

namespace simtgpu::sim {
namespace {

// The group with the lowest PC goes first: structured code reconverges at
// its join point, and every group keeps making progress.
class MinPcPolicy final : public ReconvergencePolicy {
public:
    GroupChoice select(const uint64_t *pcs, uint64_t runnable) const override
    {
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
};

// The next ready warp after the one issued last.
class RoundRobinScheduler final : public WarpScheduler {
public:
    int pick(std::span<const uint8_t> ready, std::span<const uint64_t>,
             int last_issued) const override {
        const int n = int(ready.size());
        for (int i = 1; i <= n; ++i) {
            const int slot = (last_issued + i) % n;
            if (ready[slot]) return slot;
        }
        return -1;
    }
};

// Greedy-then-oldest (GTO, Rogers et al., MICRO 2012): the warp issued last
// while it can issue, else the oldest ready warp, by the time it was launched
// onto the SM (not by slot: a young CTA may reuse the low slots of an old one).
class GreedyThenOldestScheduler final : public WarpScheduler {
public:
    int pick(std::span<const uint8_t> ready, std::span<const uint64_t> age,
             int last_issued) const override {
        if (last_issued >= 0 && last_issued < int(ready.size()) && ready[last_issued])
            return last_issued;
        int oldest = -1;
        for (int slot = 0; slot < int(ready.size()); ++slot)
            if (ready[slot] && (oldest < 0 || age[slot] < age[oldest]))
                oldest = slot;
        return oldest;
    }
};

} // namespace

bool is_reconvergence_policy(std::string_view name) {
    return std::find(kReconvergencePolicies.begin(), kReconvergencePolicies.end(), name) !=
           kReconvergencePolicies.end();
}

bool is_warp_scheduler(std::string_view name)
{
    return std::find(kWarpSchedulers.begin(), kWarpSchedulers.end(), name) != kWarpSchedulers.end();
}

std::unique_ptr<ReconvergencePolicy> make_reconvergence_policy(std::string_view)
{
    return std::make_unique<MinPcPolicy>();
}

std::unique_ptr<WarpScheduler> make_warp_scheduler(std::string_view name)
{
    if (name == "greedy")
        return std::make_unique<GreedyThenOldestScheduler>();
    return std::make_unique<RoundRobinScheduler>();
}

} // namespace simtgpu::sim
