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
    int pick(std::span<const uint8_t> ready, int last_issued) const override
    {
        const int n = int(ready.size());
        for (int i = 1; i <= n; ++i) {
            const int slot = (last_issued + i) % n;
            if (ready[slot]) return slot;
        }
        return -1;
    }
};

// Greedy-then-oldest: the warp issued last while it is ready, else the
// lowest ready slot.
class GreedyScheduler final : public WarpScheduler {
public:
    int pick(std::span<const uint8_t> ready, int last_issued) const override
    {
        if (last_issued >= 0 && last_issued < int(ready.size()) && ready[last_issued])
            return last_issued;
        for (int slot = 0; slot < int(ready.size()); ++slot)
            if (ready[slot]) return slot;
        return -1;
    }
};

} // namespace

bool is_reconvergence_policy(std::string_view name)
{
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
    if (name == "greedy") return std::make_unique<GreedyScheduler>();
    return std::make_unique<RoundRobinScheduler>();
}

} // namespace simtgpu::sim
