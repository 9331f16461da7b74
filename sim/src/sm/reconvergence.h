// The reconvergence policy of the SIMT core (docs/simulator.md, "The SIMT
// core"): which convergent group of a diverged warp runs next. Asked once
// per burst of instructions (the functional model) or per instruction
// issued (the timing model), never per lane.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
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
    // pcs: one per lane; runnable: lanes that may run (non-zero). When all
    // of them share one PC the choice must be {pc, runnable, UINT64_MAX}: the
    // SM takes that answer without asking when it knows the PCs agree.
    virtual GroupChoice select(const uint64_t *pcs, uint64_t runnable) const = 0;
};

// The names DeviceConfig accepts, the default first; tests run under each.
inline constexpr std::array<std::string_view, 1> kReconvergencePolicies{"min-pc"};
bool is_reconvergence_policy(std::string_view name);
// An unknown name (the configuration validates them) gives the default.
std::unique_ptr<ReconvergencePolicy> make_reconvergence_policy(std::string_view name);

} // namespace simtgpu::sim
