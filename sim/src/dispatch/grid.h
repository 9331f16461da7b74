// A grid in flight: what the grid scheduler needs to place its CTAs, stop
// placing them, park it with its next CTA saved and resume it later, and
// what it did (the outcome the command processor reports when it is done).
#pragma once

#include "device/mmu.h"
#include "dispatch/livelock.h"
#include "mem/l2_access_policy.h"
#include "sm/launch.h"

#include <cstdint>
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
    // Placement, for tests and statistics: CTAs each SM received, and the
    // most it held at once.
    std::vector<uint64_t> ctas_per_sm;
    std::vector<uint32_t> peak_resident_ctas;
};

// running: placing CTAs; draining: asked to park, resident CTAs finishing;
// parked: no CTA resident, next_cta saved; done: finished or aborted.
enum class GridState { Running, Draining, Parked, Done };

struct Grid {
    uint32_t ring = 0;
    uint32_t priority = 0; // the ring's PRIORITY when it was launched
    uint64_t arrival = 0;  // launch order on the device: FIFO among equals
    LaunchDesc desc;
    uint64_t report_va = 0;
    uint64_t address_space = 0;            // its context's root page table
    uint32_t context_id = 0;               // SET_CONTEXT's, for fault reports
    std::unique_ptr<ContextMemory> memory; // the grid's address space
    uint64_t dma_counted = 0;              // of memory->dma_bytes()
    std::vector<bool> sm_allowed;         // the ring's SM mask at launch
    uint32_t ctas_per_sm = 0;             // the occupancy rule's answer
    mem::L2AccessWindow l2_window;        // L2_POLICY's window at launch (bytes 0: none)
    uint64_t next_cta = 0, total_ctas = 0;
    uint32_t resident_ctas = 0;
    GridState state = GridState::Running;
    uint64_t start_cycle = 0;
    LivelockWatchdog watchdog{1};
    LaunchOutcome outcome;

    bool unplaced() const { return next_cta < total_ctas; }
    // What PROGRESS counts of it: CTAs completed, and the samples at which
    // the state of its CTAs had changed (a long CTA computing moves it).
    uint64_t progress() const { return outcome.ctas_completed + watchdog.changes(); }
};

} // namespace simtgpu::sim
