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
    uint32_t ctas_completed = 0;          // of every launch (per launch: take_ctas_completed)
    std::optional<Exception> exception; // the SM stopped: abort that launch before going on
    uint32_t exception_launch = 0;      // the launch slot whose thread raised it
};

class Sm {
public:
    Sm(const DeviceConfig &config, uint32_t sm_id);
    ~Sm();
    Sm(const Sm &) = delete;
    Sm &operator=(const Sm &) = delete;

    // Grids attached to this SM at once ("launch slots", one per CTA slot:
    // each resident CTA names its launch). A launch has its own descriptor,
    // memory view, TLB, decoded-code cache, exit record and instruction
    // count, so CTAs of several grids can share the SM (the device's
    // sm_sharing mode says which may). Attaching to an idle SM sets its clock
    // to the device's cycle count `device_cycle` (the clock CSR; globaltimer
    // is derived from it and the configured clock). Returns the launch slot,
    // or nullopt when every slot has a launch attached.
    std::optional<uint32_t> attach(const LaunchDesc &launch, GlobalMemory &memory,
                                   uint64_t device_cycle);
    // Forgets a launch none of whose CTAs is resident.
    void detach(uint32_t launch);
    // Whether one more CTA of this shape fits beside the resident ones: free
    // CTA slots, warp slots and shared memory (for one launch alone this is
    // the occupancy rule of include/simtgpu/occupancy.h).
    bool can_accept_cta(const LaunchDesc &launch) const;
    bool can_accept_cta(uint32_t launch) const;
    void add_cta(uint32_t launch, const Dim3 &ctaid);
    // Advance this SM's clock by up to `cycles`; returns early on an
    // exception. Exits of threads are folded into exit_record(launch).
    SmRunResult run(uint64_t cycles);
    // CTAs of `launch` completed since the last call.
    uint32_t take_ctas_completed(uint32_t launch);
    bool idle() const;                 // no resident CTA
    uint32_t resident_warps() const;   // of every launch
    uint32_t resident_ctas(uint32_t launch) const;
    void abort(uint32_t launch);       // drop the launch's resident CTAs
    void abort();                      // drop every CTA, detach every launch
    uint64_t clock() const;            // this SM's cycle counter
    const ExitRecord &exit_record(uint32_t launch) const;
    uint64_t thread_instructions(uint32_t launch) const; // since attach
    // A hash of the architectural state of one launch's CTAs that a thread
    // making progress changes (core/livelock.h says what is in it), and the
    // livelock exception naming a warp of the launch that could issue but
    // has not for `starved_cycles`, if there is one.
    uint64_t state_fingerprint(uint32_t launch) const;
    std::optional<Exception> starved_warp(uint32_t launch, uint64_t starved_cycles) const;
    const SmStats &stats() const;
    void reset_stats();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// One launch's share of an SM: what the livelock watchdog samples.
struct SmLaunch {
    const Sm *sm = nullptr;
    uint32_t launch = 0;
    uint64_t state_fingerprint() const { return sm->state_fingerprint(launch); }
    std::optional<Exception> starved_warp(uint64_t cycles) const
    {
        return sm->starved_warp(launch, cycles);
    }
};

} // namespace simtgpu::sim
