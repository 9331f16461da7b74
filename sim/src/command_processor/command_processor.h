// The command processor: decodes and executes the packets of
// include/simtgpu/hw.h, one state machine per ring (RingCursor), on the
// engine thread. A LAUNCH hands a grid to the grid scheduler and the ring
// waits for it while the other rings go on; an indirect buffer is a cursor
// the ring comes back to. It knows nothing of registers: the device
// (device.h) hands over each ring's packets and applies the result (HEAD,
// PROGRESS, exception record, interrupts).
#pragma once

#include "config.h"
#include "device/host_bus.h"
#include "device/vram.h"
#include "dispatch/grid_scheduler.h"
#include "simtgpu/counters.h"
#include "simtgpu/hw.h"
#include "sm/launch.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace simtgpu::sim {

// The address space a ring's packets run in (set by SET_CONTEXT).
struct RingContext {
    bool valid = false;
    uint32_t id = 0;
    uint64_t page_table = 0;
};

// Dwords of packets: a window of a ring, or a whole indirect buffer.
class DwordSource {
public:
    virtual ~DwordSource() = default;
    virtual uint32_t size() const = 0; // dwords available
    virtual uint32_t at(uint32_t index) const = 0;
};

// Where a ring is: its context, the indirect buffer it is in, the grid it
// waits for. Engine state, reset when the ring is enabled or disabled.
struct RingCursor {
    RingContext context;
    std::vector<uint32_t> ib; // the indirect buffer being executed
    uint32_t ib_at = 0;
    bool in_ib = false;
    uint32_t ring_packet_dwords = 0; // the INDIRECT or LAUNCH at HEAD
    Grid *grid = nullptr;
    uint64_t packets_completed = 0;
    uint64_t grids_progress = 0; // of grids already finished
    // L2_POLICY's window for the launches that follow; none at the start
    // and the end of every indirect buffer.
    mem::L2AccessWindow l2_window;
    // PROGRESS: packets, and what Grid::progress() counts.
    uint64_t progress() const {
        return packets_completed + grids_progress + (grid ? grid->progress() : 0);
    }
};

// What a ring's registers say this step.
struct RingSetup {
    uint32_t index = 0;
    uint32_t priority = 0;
    std::vector<bool> sm_allowed;
};

// What advancing one ring did.
struct RingStep {
    uint32_t ring_dwords = 0; // how far HEAD moves
    std::optional<Exception> exception; // the ring stalls
    uint32_t exception_offset = 0;      // bytes from HEAD to the aborted packet
    bool fence_irq = false;             // a FENCE with SIMTGPU_PKTF_IRQ completed
    std::optional<LaunchOutcome> finished; // a grid of this ring finished
};

// Counters the engine owns (SIMTGPU_ENGINE_COUNTERS of
// include/simtgpu/counters.h); the device publishes copies under its lock.
struct EngineCounters {
#define SIMTGPU_X(name, unit, ncu, what) uint64_t name = 0;
    SIMTGPU_ENGINE_COUNTERS(SIMTGPU_X)
#undef SIMTGPU_X
    // Utilisation of the last stretch of work, for the temperature model:
    // sum over SMs of busy cycles, and device cycles, since the last sample.
    uint64_t sample_sm_busy = 0;
    uint64_t sample_cycles = 0;
};

class CommandProcessor {
public:
    // Fixed costs, in device cycles, of the work that is not a launch.
    static constexpr uint64_t kPacketCycles = 4;
    static constexpr uint64_t kCopyBytesPerCycle = 64;
    // Largest indirect buffer (dwords) the device fetches.
    static constexpr uint32_t kMaxIndirectDwords = 1u << 24;
    // Largest grid, as CUDA's: x up to 2^31 - 1, y and z up to 65535.
    static constexpr uint32_t kMaxGridX = 0x7fffffff;
    static constexpr uint32_t kMaxGridYZ = 65535;

    CommandProcessor(const DeviceConfig &config, const Vram &vram, const HostBus &bus,
                     GridScheduler &scheduler, EngineCounters &counters);

    // Runs a ring as far as it goes without waiting: settles the grid it
    // waits for if that one is done, then executes packets from HEAD (the
    // window `ring`) until one launches a grid, the window is used up, a
    // packet fails, or `budget` packets ran.
    RingStep advance(const RingSetup &setup, const DwordSource &ring, RingCursor &cursor,
                     uint32_t budget);

    // CTRL.ABORT: drops the ring's grid and indirect buffer; returns the
    // ring dwords HEAD moves past (the packet at HEAD, if one was running).
    uint32_t abort(RingCursor &cursor);

    uint64_t timer_ns() const;

private:
    struct Step {
        uint32_t dwords = 1;
        std::optional<Exception> exception;
        bool fence_irq = false;
        std::optional<RingContext> context;
        bool indirect = false; // the cursor now holds an indirect buffer
        Grid *grid = nullptr;  // a LAUNCH started this grid
    };
    Step execute(const DwordSource &src, bool privileged, const RingSetup &setup,
                 RingCursor &cursor);
    Step indirect(uint32_t header, const uint32_t *body, RingCursor &cursor);
    Step launch(const uint32_t *body, const RingSetup &setup, const RingContext &context,
                const mem::L2AccessWindow &l2_window);
    std::optional<Exception> refuse_launch(const simtgpu_pkt_launch &p,
                                           const RingSetup &setup) const;
    std::optional<Exception> write_report(const LaunchOutcome &outcome, uint64_t report_va,
                                          ContextMemory &memory);
    Step copy(const uint32_t *body, const RingContext &context);
    Step l2_policy(uint32_t header, const uint32_t *body, RingCursor &cursor);
    Step fill(uint32_t header, const uint32_t *body, const RingContext &context);
    Step write_u64(uint32_t header, uint64_t addr, uint64_t value, const RingContext &context);

    const DeviceConfig &config_;
    const Vram &vram_;
    const HostBus &bus_;
    GridScheduler &scheduler_;
    EngineCounters &counters_;
};

} // namespace simtgpu::sim
