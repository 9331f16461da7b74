// The GigaThread-style CTA dispatcher: owns the SMs, places the CTAs of a
// grid on them in linear order while the occupancy rule allows, advances
// them in lockstep quanta and collects completions, exits and exceptions.
//
// Deterministic by construction: one thread, SMs stepped in index order, a
// fixed quantum. The device clock advances per quantum by the most cycles
// any SM advanced in it.
#pragma once

#include "config.h"
#include "core/global_memory.h"
#include "core/launch.h"
#include "core/sm.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace simtgpu::sim {

// What one launch did.
struct LaunchOutcome {
    uint64_t cycles = 0; // device cycles from start to the last CTA (or abort)
    uint64_t ctas_completed = 0;
    uint64_t thread_instructions = 0;
    ExitRecord exits;
    std::optional<Exception> exception;
    bool cancelled = false; // the progress hook asked to stop (device reset)
    // Placement, for tests and statistics: CTAs each SM received, and the
    // most it held at once.
    std::vector<uint64_t> ctas_per_sm;
    std::vector<uint32_t> peak_resident_ctas;
};

class Dispatcher {
public:
    // Cycles each SM runs between two dispatch decisions.
    static constexpr uint64_t kQuantum = 256;

    explicit Dispatcher(const DeviceConfig &config);

    // Called after every quantum with the device cycles of that quantum and
    // the CTAs that completed in it; returning false cancels the launch (its
    // SMs are aborted).
    using ProgressHook = std::function<bool(uint64_t quantum_cycles, uint32_t ctas_completed)>;

    LaunchOutcome run(const LaunchDesc &launch, GlobalMemory &memory, uint64_t device_cycle,
                      const ProgressHook &progress);

    uint32_t num_sms() const { return uint32_t(sms_.size()); }
    const Sm &sm(uint32_t index) const { return *sms_[index]; }
    // Sum of every SM's statistics since the last reset().
    SmStats total_stats() const;
    // CTAs each SM completed since the last reset().
    uint64_t ctas_completed(uint32_t sm) const { return ctas_completed_[sm]; }
    void reset(); // abort every SM and clear its statistics

private:
    std::vector<std::unique_ptr<Sm>> sms_;
    uint64_t livelock_cycles_;
    std::vector<uint64_t> ctas_completed_;
};

} // namespace simtgpu::sim
