// The two policies of the SIMT core that researchers compare
// (docs/simulator.md, "The SIMT core"): which convergent group of a warp runs
// next (reconvergence), and which warp issues next (warp scheduling). Both are
// asked once per burst of instructions, never per instruction or per lane.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

namespace simtgpu::sim {

// One convergent group: lanes with the same PC. The group runs on while its
// PC stays below yield_pc (for min-PC: the lowest PC of the other runnable
// lanes, so the groups merge when the running one reaches it).
struct GroupChoice {
    uint64_t pc = 0;
    uint64_t mask = 0;
    uint64_t yield_pc = UINT64_MAX;
};

class ReconvergencePolicy {
public:
    virtual ~ReconvergencePolicy() = default;
    // pcs: one per lane; runnable: lanes that may run (non-zero). When all
    // of them share one PC the choice must be {pc, runnable, UINT64_MAX}: the
    // SM takes that answer without asking when it knows the PCs agree.
    virtual GroupChoice select(const uint64_t *pcs, uint64_t runnable) const = 0;
};

// One entry per warp slot (of the SM, or of a sub-core in the timing model)
// in each span: whether the warp can issue now, its age (the order in which
// warps were launched onto the SM: smaller is older), and whether it waits on
// a long-latency event (a global load, a barrier; a slot that holds no warp
// waits for ever, so it counts as waiting long). What a hardware scheduler
// sees. The functional model passes no long_wait: there every warp that
// cannot issue waits on a global access or a barrier. A scheduler may keep
// state between picks (two-level's active set), so each owns its instance.
class WarpScheduler {
public:
    virtual ~WarpScheduler() = default;
    // Returns a ready slot to issue from, or -1 (none ready, or none the
    // policy will issue from this cycle).
    virtual int pick(std::span<const uint8_t> ready, std::span<const uint64_t> age, int last_issued,
                     std::span<const uint8_t> long_wait = {}) = 0;
    // The same choice from a bitset of the ready slots (bit s % 64 of word
    // s / 64), without long_wait: what the functional model keeps, so that a
    // pick costs a few word operations rather than a scan of every slot. By
    // default it spells the bitset out and asks pick().
    virtual int pick_bits(std::span<const uint64_t> ready, uint32_t slots,
                          std::span<const uint64_t> age, int last_issued);

private:
    std::vector<uint8_t> spelled_; // pick_bits' ready bytes, by default
};

// Two-level scheduling's active set (Gebhart et al., ISCA 2011: 8 warps).
inline constexpr uint32_t kTwoLevelActiveWarps = 8;

// The names DeviceConfig accepts, the default first; tests run under each.
inline constexpr std::array<std::string_view, 1> kReconvergencePolicies{"min-pc"};
// "gto" is greedy-then-oldest's usual name (GPGPU-Sim's); "greedy" stays.
inline constexpr std::array<std::string_view, 5> kWarpSchedulers{"round-robin", "greedy", "gto",
                                                                 "oldest-first", "two-level"};
bool is_reconvergence_policy(std::string_view name);
bool is_warp_scheduler(std::string_view name);
// Unknown names (the configuration validates them) give the defaults.
std::unique_ptr<ReconvergencePolicy> make_reconvergence_policy(std::string_view name);
std::unique_ptr<WarpScheduler> make_warp_scheduler(std::string_view name);

} // namespace simtgpu::sim
