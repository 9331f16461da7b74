// The warp scheduler (docs/simulator.md, "The SIMT core"): which ready warp
// issues next, in the functional model once per burst, in the timing model
// once per cycle and sub-core. Round-robin, greedy-then-oldest,
// oldest-first and two-level; researchers add theirs here.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

namespace simtgpu::sim {

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
// "gto" is greedy-then-oldest's usual name (GPGPU-Sim's); "greedy" stays.
inline constexpr std::array<std::string_view, 5> kWarpSchedulers{"round-robin", "greedy", "gto",
                                                                 "oldest-first", "two-level"};
bool is_warp_scheduler(std::string_view name);
// An unknown name (the configuration validates them) gives the default.
std::unique_ptr<WarpScheduler> make_warp_scheduler(std::string_view name);

} // namespace simtgpu::sim
