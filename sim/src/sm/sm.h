// One streaming multiprocessor: resident CTAs, their warps, a warp scheduler
// and the SIMT execution of RV64GC + the SIMT extension. The device model
// (sim/src/dispatch) owns the SMs, hands them CTAs through the occupancy rule
// (include/simtgpu/occupancy.h) and advances them in time.
#pragma once

#include "config.h"
#include "simtgpu/counters.h"
#include "sm/global_memory.h"
#include "sm/launch.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <vector>

namespace simtgpu::sim::trace {
class TraceWriter;
} // namespace simtgpu::sim::trace

namespace simtgpu::sim::mem {
class MemorySystem;
struct Completion;
} // namespace simtgpu::sim::mem

namespace simtgpu::sim {

// SmStats holds the counters of SIMTGPU_SM_COUNTERS (include/simtgpu/
// counters.h, the one list of the device's counters); the stall reasons are
// SIMTGPU_SM_STALLS there: each cycle, every resident warp that does not
// issue counts one.
struct SmStats {
#define SIMTGPU_X(name, unit, ncu, what) uint64_t name = 0;
    SIMTGPU_SM_COUNTERS(SIMTGPU_X)
#undef SIMTGPU_X
    void add(const SmStats &other) {
#define SIMTGPU_X(name, unit, ncu, what) name += other.name;
        SIMTGPU_SM_COUNTERS(SIMTGPU_X)
#undef SIMTGPU_X
    }
};

enum class Stall : uint8_t {
#define SIMTGPU_X(name, unit, ncu, what) name,
    SIMTGPU_SM_STALLS(SIMTGPU_X)
#undef SIMTGPU_X
};
inline constexpr uint64_t SmStats::*kStallCounters[] = {
#define SIMTGPU_X(name, unit, ncu, what) &SmStats::name,
    SIMTGPU_SM_STALLS(SIMTGPU_X)
#undef SIMTGPU_X
};

// A warp's access that met a page the driver has yet to make present
// (SIMTGPU_PTE_REPLAY): the warp is held before the instruction.
struct HeldFault {
    uint32_t launch = 0;  // launch slot of the warp
    uint64_t address = 0; // the faulting virtual address
    uint32_t access = 0;  // SIMTGPU_ACCESS_*
    uint64_t cycle = 0;   // the SM's clock when it faulted
};
struct SmRunResult {
    uint32_t ctas_completed = 0;        // of every launch (per launch: take_ctas_completed)
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
    // Timing model: run(cycles) issues cycle by cycle. A lone SM (tests,
    // benchmarks) owns a memory system and ticks the whole of it; the grid
    // scheduler instead shares one among its SMs (use_memory_system): each
    // SM ticks its own side of it (L1, shared memory) as it runs, and the
    // scheduler runs the shared side (L2, DRAM) after every quantum
    // (docs/simulator.md).
    SmRunResult run(uint64_t cycles);
    // SMs on several host threads (either model): run() that changes
    // nothing another SM can see, so that SMs may run it at once. Stores to
    // VRAM stay in the SM (its own loads see them) until commit(), which the
    // caller makes in SM order; it stops (stopped()) before an instruction
    // whose effect another SM would see at once: a global atomic, an access
    // to host memory, a store to decoded code. After commit(), run() for
    // the rest of the quantum goes on from there. The same calls with one
    // thread give the same results: docs/simulator.md.
    SmRunResult run_isolated(uint64_t cycles);
    bool stopped() const;
    void commit();
    void use_memory_system(mem::MemorySystem &memory);
    // Moves this SM's clock forward to `cycle` if it is behind (timing model:
    // the SMs sharing a memory system run on the device's cycle).
    void catch_up(uint64_t cycle);
    // Timing model: an access of this SM completed (the grid scheduler hands
    // an idle SM the answers to its exited warps' accesses).
    void memory_done(const mem::Completion &completion);
    // CTAs of `launch` completed since the last call.
    uint32_t take_ctas_completed(uint32_t launch);
    bool idle() const;               // no resident CTA
    uint32_t resident_warps() const; // of every launch
    uint32_t resident_ctas(uint32_t launch) const;
    void abort(uint32_t launch); // drop the launch's resident CTAs
    void abort();                // drop every CTA, detach every launch
    uint64_t clock() const;      // this SM's cycle counter
    const ExitRecord &exit_record(uint32_t launch) const;
    uint64_t thread_instructions(uint32_t launch) const; // since attach
    // A hash of the architectural state of one launch's CTAs that a thread
    // making progress changes (dispatch/livelock.h says what is in it), and the
    // livelock exception naming a warp of the launch that could issue but
    // has not for `starved_cycles`, if there is one.
    uint64_t state_fingerprint(uint32_t launch) const;
    std::optional<Exception> starved_warp(uint32_t launch, uint64_t starved_cycles) const;
    const SmStats &stats() const;
    void reset_stats();
    // Replayable faults (docs/hardware.md): the faults of held warps since
    // the last call; the warps held of one launch; whether no warp can
    // issue before a replay (some held, every other one blocked).
    std::vector<HeldFault> take_faults();
    uint32_t held_warps(uint32_t launch) const;
    bool waits_for_replay() const;
    // Every held warp executes its instruction again, no earlier than its
    // fault's cycle + `service_cycles`; those of launches `cancel` names
    // raise the page fault instead (the next run() returns it).
    void replay(uint64_t service_cycles, const std::function<bool(uint32_t launch)> &cancel);
    // Forgets every translation of every launch (SIMTGPU_REG_TLB_INVALIDATE).
    void invalidate_tlb();
    // Writes this SM's tracks (docs/trace.md) to `writer` from now on;
    // nullptr stops. The writer outlives the SM's use of it.
    void trace_to(trace::TraceWriter *writer);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// One launch's share of an SM: what the livelock watchdog samples.
struct SmLaunch {
    const Sm *sm = nullptr;
    uint32_t launch = 0;
    uint64_t state_fingerprint() const { return sm->state_fingerprint(launch); }
    std::optional<Exception> starved_warp(uint64_t cycles) const {
        return sm->starved_warp(launch, cycles);
    }
};

} // namespace simtgpu::sim
