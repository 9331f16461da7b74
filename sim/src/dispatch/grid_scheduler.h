// The grid scheduler (the GigaThread engine's part in a real GPU): holds
// every grid in flight on the device, from any ring and context, places
// their CTAs on SMs through a placement policy (dispatch/placement.h), runs
// the SMs in lockstep quanta and collects completions, exits and exceptions.
//
// Rules, in the order step() applies them:
// - Grids are offered in priority order: higher ring PRIORITY first, launch
//   order among equals. An SM holds CTAs of several grids at once where the
//   sm_sharing mode allows (dispatch/placement.h: by default grids of one
//   address space) and their CTAs fit beside each other; otherwise it goes
//   to another grid only when it is idle.
// - A grid with CTAs left that could not place them all reserves SMs that
//   grids behind it hold: those SMs take no more CTAs from their grid, drain,
//   and are its on a later step. That is block-level priority: a
//   high-priority grid waits for CTAs to finish, never for a whole grid.
// - A grid asked to park (PREEMPT) places nothing more; once its last CTA has
//   finished it is parked with its next CTA saved, and resumes from there.
//
// Deterministic by construction: grids and SMs in a fixed order, a fixed
// quantum; the SMs of a quantum may run on several host threads
// (DeviceConfig::host_threads), isolated from each other until their stores
// are committed in SM order (run_quantum). The device clock advances per
// step by the most cycles any SM advanced in it. Under the timing model the
// quantum is at most half the memory system's lookahead: each SM runs it
// beside its own L1 while the shared L2 and DRAM run the quantum before
// (docs/simulator.md).
#pragma once

#include "config.h"
#include "dispatch/grid.h"
#include "dispatch/placement.h"
#include "dispatch/sm_workers.h"
#include "mem/memory_system.h"
#include "sm/sm.h"
#include "trace/trace_writer.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace simtgpu::sim {

class GridScheduler {
public:
    // Cycles each SM runs between two placement decisions: the timing
    // model's (or half the memory system's lookahead, if less: step_timing), and
    // the functional model's, longer because each of its quanta costs a
    // fixed amount of host time (two synchronisations of the host threads,
    // the SMs' TLB entries redirected and restored, a copy and a diff of
    // every page stored to: docs/simulator-performance.md).
    static constexpr uint64_t kQuantum = 256;
    static constexpr uint64_t kFunctionalQuantum = 2048;

    explicit GridScheduler(const DeviceConfig &config);

    // Takes a grid that refuse_launch() accepted; it starts at device cycle
    // `now`. The pointer stays valid until retire().
    Grid *add(std::unique_ptr<Grid> grid, uint64_t now);
    // Places CTAs, runs every SM that holds some for one quantum, and
    // settles grids that finished, parked or failed. Returns the device
    // cycles it advanced (0 when no SM had work).
    uint64_t step(uint64_t now);
    // Whether step() has anything to do: a grid running or draining.
    bool busy() const;

    // Replayable faults (docs/hardware.md). A fault of a held warp, as the
    // fault queue reports it.
    struct Fault {
        uint32_t context = 0, ring = 0, access = 0;
        uint64_t address = 0;
    };
    // The faults of warps held since the last call, in SM order.
    std::vector<Fault> take_faults();
    // True when SMs hold warps and none can go on before a replay: a step
    // would only let time pass.
    bool waiting_for_replay() const;
    // FAULT_REPLAY: every held warp retries, those of context
    // `cancel_context` fail with their page fault when `cancel` is set.
    void replay(bool cancel, uint32_t cancel_context);
    void invalidate_tlbs(); // TLB_INVALIDATE

    // L2 access management (hw.h SIMTGPU_PKT_L2_POLICY), timing model only:
    // the set-aside for persisting lines (back to 0 at reset()), and every
    // persisting line back to normal. Grids carry their window (Grid::l2_window).
    void set_l2_set_aside(uint64_t bytes);
    uint64_t l2_set_aside() const { return memory_ ? memory_->l2_set_aside() : 0; }
    void reset_persisting_l2();
    // The memory system (timing model; null in the functional one), for tests.
    const mem::MemorySystem *memory_system() const { return memory_.get(); }

    void park(Grid &grid);   // Running -> Draining -> Parked
    void resume(Grid &grid); // Draining or Parked -> Running
    void abort(Grid &grid);  // drop its CTAs; Done
    void retire(Grid *grid); // forget a Done grid

    uint32_t num_sms() const { return uint32_t(sms_.size()); }
    const Sm &sm(uint32_t index) const { return *sms_[index]; }
    // Sum of every SM's statistics since the last reset().
    SmStats total_stats() const;
    // The memory system's counters of the accesses of one SM since the last
    // reset() (zero in the functional mode, which has no memory system).
    mem::MemoryCounters memory_counters(uint32_t sm) const {
        return memory_ ? memory_->counters(sm) : mem::MemoryCounters{};
    }
    // CTAs each SM completed since the last reset().
    uint64_t ctas_completed(uint32_t sm) const { return ctas_completed_[sm]; }
    void reset(); // drop every grid, abort every SM, clear statistics
    // Writes the rings' grids and every SM's tracks to `writer` (docs/trace.md).
    void trace_to(trace::TraceWriter *writer);

private:
    class GridPlacement;
    // A grid attached to an SM (Sm::attach) and its CTAs resident there.
    struct Attachment {
        Grid *grid = nullptr;
        uint32_t launch = 0;   // the SM's launch slot
        uint32_t resident = 0; // CTAs of the grid on this SM
    };

    const Attachment *attachment(uint32_t sm, const Grid &grid) const;
    Attachment *attachment(uint32_t sm, const Grid &grid);
    // Whether `grid` may start placing on `sm` beside the grids resident there.
    bool may_join(uint32_t sm, const Grid &grid) const;
    // Attaches `grid`, first releasing grids with no CTA left on the SM.
    Attachment &attach(uint32_t sm, Grid &grid, uint64_t now);
    // Folds the SM's exits and instructions of the grid into its outcome.
    void release(uint32_t sm, const Grid &grid);
    void release_all(Grid &grid);
    void reserve(const Grid &grid, const std::vector<const Grid *> &order,
                 std::vector<const Grid *> &reserved) const;
    void fail(Grid &grid, const Exception &e);
    void collect(uint32_t sm, const SmRunResult &r);
    // `beside`, if any, runs on a host thread beside the SMs' isolated runs.
    uint64_t run_quantum(uint64_t quantum, const std::function<void()> &beside = {});
    uint64_t step_functional();
    uint64_t step_timing(uint64_t now);
    void make_memory_system();
    void update_l2_windows(); // the memory system's windows: those of grids_
    void settle(Grid &grid, uint64_t now);
    void trace_grid(const Grid &grid, uint64_t now, const char *how);

    const DeviceConfig config_;
    std::unique_ptr<PlacementPolicy> policy_;
    const SmSharing sharing_;
    std::vector<std::unique_ptr<Sm>> sms_;
    std::vector<std::vector<Attachment>> attached_; // per SM
    std::vector<std::unique_ptr<Grid>> grids_;
    uint64_t arrivals_ = 0;
    std::vector<uint64_t> ctas_completed_;
    std::unique_ptr<mem::MemorySystem> memory_; // timing model only
    // step()'s SMs with CTAs, and each one's isolated run.
    std::vector<uint32_t> busy_list_;
    std::vector<SmRunResult> isolated_;
    std::vector<uint64_t> starts_;
    std::unique_ptr<SmWorkers> workers_; // host_threads > 1
    trace::TraceWriter *trace_ = nullptr;
    uint64_t now_ = 0; // the device cycle the last step ended at
    uint64_t last_advance_ = 0; // the cycles the last step ran (step_timing)
};

} // namespace simtgpu::sim
