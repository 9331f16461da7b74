// The two policies of the SIMT core that researchers compare (ARCHITECTURE
// D2): which convergent group of a warp runs next (reconvergence), and which
// warp issues next (warp scheduling). Both are asked once per burst of
// instructions, never per instruction or per lane.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

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
    // pcs: one per lane; runnable: lanes that may run (non-zero).
    virtual GroupChoice select(const uint64_t *pcs, uint64_t runnable) const = 0;
};

// One entry per warp slot of the SM in each span: whether the warp can issue
// now, and its age (the order in which warps were launched onto the SM:
// smaller is older). A scheduler may keep state between picks (two-level's
// active set), so each SM owns its own instance.
class WarpScheduler {
public:
    virtual ~WarpScheduler() = default;
    // Returns the slot to issue from, or -1 when no slot is ready.
    virtual int pick(std::span<const uint8_t> ready, std::span<const uint64_t> age,
                     int last_issued) = 0;
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
