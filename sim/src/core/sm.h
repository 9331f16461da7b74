// One streaming multiprocessor: resident CTAs, their warps, a warp scheduler
// and the SIMT execution of RV64GC + the SIMT extension. The device model
// (sim/src/device) owns the SMs, hands them CTAs through the occupancy rule
// (include/simtgpu/occupancy.h) and advances them in time.
#pragma once

#include "config.h"
#include "core/global_memory.h"
#include "core/launch.h"

#include <cstdint>
#include <memory>
#include <optional>

namespace simtgpu::sim {

struct SmStats {
    uint64_t busy_cycles = 0; // cycles with at least one resident warp
    uint64_t thread_instructions = 0;
    uint64_t warp_instructions = 0; // issues of one convergent group
    uint64_t mem_reads = 0;         // thread loads (global, shared, local)
    uint64_t mem_writes = 0;
    uint64_t tlb_hits = 0;
    uint64_t tlb_misses = 0;
    uint64_t divergent_branches = 0;
    uint64_t barrier_waits = 0;
    uint64_t resident_warp_cycles = 0; // sum over busy cycles of resident warps
    uint64_t ctas = 0;
};

struct SmRunResult {
    uint32_t ctas_completed = 0;
    std::optional<Exception> exception; // the SM stopped: abort() before reuse
};

class Sm {
public:
    Sm(const DeviceConfig &config, uint32_t sm_id);
    ~Sm();
    Sm(const Sm &) = delete;
    Sm &operator=(const Sm &) = delete;

    // Start a grid: the memory view of its context and its descriptor. The
    // SM must be idle. Clears the per-launch TLB and decoded-code cache and
    // sets this SM's clock to the device's cycle count `device_cycle` (the
    // clock CSR; globaltimer is derived from it and the configured clock).
    void begin_launch(const LaunchDesc &launch, GlobalMemory &memory, uint64_t device_cycle);
    // Whether one more CTA of the current launch fits (occupancy rule).
    bool can_accept_cta() const;
    void add_cta(const Dim3 &ctaid);
    // Advance this SM's clock by up to `cycles`; returns early on an
    // exception. Exits of threads are folded into exit_record().
    SmRunResult run(uint64_t cycles);
    bool idle() const;     // no resident CTA
    void abort();          // drop every resident CTA
    uint64_t clock() const; // this SM's cycle counter
    const ExitRecord &exit_record() const;
    // A hash of the architectural state that a thread making progress
    // changes (core/livelock.h says what is in it), and the livelock
    // exception naming a warp that could issue but has not for
    // `starved_cycles`, if there is one.
    uint64_t state_fingerprint() const;
    std::optional<Exception> starved_warp(uint64_t starved_cycles) const;
    const SmStats &stats() const;
    void reset_stats();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace simtgpu::sim
