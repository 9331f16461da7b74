// The command processor: decodes and executes the packets of
// include/simtgpu/hw.h for one ring at a time, on the engine thread. It
// knows nothing of registers: the device (device.h) picks the ring, hands
// over its packets and context, and applies the result (HEAD, exception
// record, interrupts).
#pragma once

#include "config.h"
#include "core/launch.h"
#include "device/dispatcher.h"
#include "device/host_bus.h"
#include "device/vram.h"
#include "simtgpu/hw.h"

#include <cstdint>
#include <functional>
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

// What executing one ring packet did.
struct PacketResult {
    uint32_t dwords = 1;                 // consumed from the ring, header included
    std::optional<Exception> exception;  // the packet (or its IB or launch) aborted
    bool fence_irq = false;              // a FENCE with SIMTGPU_PKTF_IRQ completed
    std::optional<RingContext> context;  // SET_CONTEXT ran
};

// Counters the engine owns; the device publishes copies under its lock.
struct EngineCounters {
    uint64_t device_cycles = 0; // the global timer's time base
    uint64_t launches = 0;
    uint64_t ctas = 0;
    uint64_t dma_bytes = 0;
    uint64_t packets = 0;
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

    // progress: called after every quantum of a launch and after every
    // packet; returns false when the engine must stop (device reset).
    CommandProcessor(const DeviceConfig &config, const Vram &vram, const HostBus &bus,
                     Dispatcher &dispatcher, EngineCounters &counters,
                     std::function<bool()> progress);

    // Execute the packet at the start of `ring` (at kernel privilege).
    PacketResult execute_ring_packet(const DwordSource &ring, const RingContext &context);

    // The last launch's placement (for tests and statistics).
    const LaunchOutcome &last_launch() const { return last_launch_; }

    uint64_t timer_ns() const;

private:
    struct Step {
        uint32_t dwords = 1;
        std::optional<Exception> exception;
        bool fence_irq = false;
        std::optional<RingContext> context;
    };
    Step execute(const DwordSource &src, bool privileged, const RingContext &context);
    Step indirect(uint32_t header, const uint32_t *body, const RingContext &context);
    Step launch(const uint32_t *body, const RingContext &context);
    std::optional<Exception> refuse_launch(const simtgpu_pkt_launch &p) const;
    Step copy(const uint32_t *body, const RingContext &context);
    Step fill(uint32_t header, const uint32_t *body, const RingContext &context);
    Step write_u64(uint32_t header, uint64_t addr, uint64_t value, const RingContext &context);

    const DeviceConfig &config_;
    const Vram &vram_;
    const HostBus &bus_;
    Dispatcher &dispatcher_;
    EngineCounters &counters_;
    std::function<bool()> progress_;
    LaunchOutcome last_launch_;
};

} // namespace simtgpu::sim
