// The simulated device as the host sees it: BAR0 registers, VRAM, rings,
// interrupts, the exception record, reset and statistics. One engine thread
// runs the command processor; MMIO calls only read and write registers and
// wake it (an MMIO handler never executes work).
//
// Locking: one mutex guards every register. The engine takes it only
// between packets and between quanta of a launch, and never holds it while
// executing or while calling the host's callbacks, so a host may call MMIO
// from inside a callback.
#pragma once

#include "command_processor/command_processor.h"
#include "config.h"
#include "device/host_bus.h"
#include "device/vram.h"
#include "dispatch/grid_scheduler.h"
#include "simtgpu/counters.h"
#include "support/expected.h"
#include "trace/trace_writer.h"

#include <array>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace simtgpu::sim {

// Counters the register interface owns (SIMTGPU_DEVICE_COUNTERS of
// include/simtgpu/counters.h).
struct DeviceCounters {
#define SIMTGPU_X(name, unit, ncu, what) uint64_t name = 0;
    SIMTGPU_DEVICE_COUNTERS(SIMTGPU_X)
#undef SIMTGPU_X
};

// Every counter of include/simtgpu/counters.h, by SIMTGPU_COUNTER_* index.
using CounterValues = std::array<uint64_t, SIMTGPU_NUM_COUNTERS>;

// Statistics since creation or the last reset: each group of the counter
// list in the struct that counts it, device-wide and per SM.
struct DeviceStats {
    EngineCounters engine;
    DeviceCounters device;
    SmStats sms;                // summed over SMs
    mem::MemoryCounters memory; // summed over SMs
    std::vector<SmStats> per_sm;
    std::vector<mem::MemoryCounters> per_sm_memory;
    uint32_t temperature_mc = 0; // millidegrees Celsius
    uint64_t l2_set_aside = 0;   // bytes of L2 set aside for persisting lines
    CounterValues values() const;
};

class Device {
public:
    // `trace`: where the device writes a trace of what it does (docs/trace.md), or nullptr.
    static Expected<std::unique_ptr<Device>>
    create(const DeviceConfig &config, const HostBus &bus, void *vram_backing,
           std::unique_ptr<trace::TraceWriter> trace = nullptr);
    ~Device();
    Device(const Device &) = delete;
    Device &operator=(const Device &) = delete;

    uint64_t mmio_read(uint64_t offset, unsigned size);
    void mmio_write(uint64_t offset, uint64_t value, unsigned size);

    const DeviceConfig &config() const { return config_; }
    Vram &vram() { return *vram_; }

    void reset(); // as SIMTGPU_REG_RESET, and waits for the engine to stop
    // True when every ring is idle, stalled or in error; false on timeout.
    bool wait_idle(uint32_t timeout_ms);
    DeviceStats stats();
    LaunchOutcome last_launch(); // placement of the most recent launch
    // The trace being written, or nullptr: hosts add their tracks to it.
    trace::TraceWriter *trace() { return trace_.get(); }

    // Ambient temperature and the rise at full utilisation (docs/hardware.md).
    static constexpr uint32_t kAmbientMc = 35'000;
    static constexpr uint32_t kFullLoadRiseMc = 50'000;
    static constexpr double kThermalTauCycles = 1e6;

private:
    struct ExceptionRecord {
        Exception exception;
        uint32_t ring = 0;
        uint32_t context = 0;
        uint32_t ring_offset = 0;
    };
    struct Ring {
        uint64_t addr = 0;
        uint32_t size = 0;
        uint32_t head = 0;
        uint32_t tail = 0;
        uint32_t ctrl = 0;
        uint32_t priority = 0;
        uint32_t preempt = 0;
        std::array<uint32_t, SIMTGPU_SM_MASK_WORDS> sm_mask;
        bool error = false;
        bool stalled = false;
        bool parked = false;  // published by the engine
        uint64_t progress = 0; // published by the engine
        uint32_t resident = 0; // published by the engine
        uint64_t epoch = 0;    // bumped when the ring is enabled or disabled
        uint64_t aborts = 0;   // CTRL.ABORT writes
        std::optional<ExceptionRecord> pending; // waits for the record to free
        Ring() { sm_mask.fill(~0u); }
    };
    // What the engine keeps of each ring between steps.
    struct RingEngine {
        RingCursor cursor;
        uint64_t epoch = 0;
        uint64_t aborts = 0;
        bool preempt_seen = false;
        uint64_t preempt_since = 0; // device cycle of the request
        bool preempt_timed_out = false;
    };
    // What one engine step did to a ring, applied under the lock.
    struct RingOutcome {
        RingStep step;
        bool parked = false;
    };
    using Vectors = std::vector<uint32_t>;

    Device(const DeviceConfig &config, const HostBus &bus, std::unique_ptr<Vram> vram,
           std::unique_ptr<trace::TraceWriter> trace);

    void engine_main();
    // Engine thread: advances every ring, then the grid scheduler by one
    // step, on a snapshot of the registers; the lock is not held.
    std::array<RingOutcome, SIMTGPU_NUM_RINGS>
    engine_step(const std::array<Ring, SIMTGPU_NUM_RINGS> &rings, uint64_t preempt_timeout);
    void apply_locked(const std::array<Ring, SIMTGPU_NUM_RINGS> &rings,
                      const std::array<RingOutcome, SIMTGPU_NUM_RINGS> &outcomes,
                      Vectors &vectors); // engine thread
    bool engine_has_work_locked() const; // engine thread
    void publish_locked();               // engine thread, lock held
    bool ring_ready(const Ring &ring) const;
    bool all_idle_locked() const;
    void reset_locked();
    void raise_locked(uint32_t bits, Vectors &vectors);
    void publish_exception_locked(const ExceptionRecord &record, Vectors &vectors);
    void ring_error_locked(Ring &ring, Vectors &vectors);
    bool ring_setup_valid(const Ring &ring) const;
    void ring_write_locked(uint32_t index, uint32_t reg, uint32_t value, Vectors &vectors);
    uint32_t ring_read_locked(uint32_t index, uint32_t reg) const;
    uint32_t exception_read_locked(uint32_t offset) const;
    void acknowledge_locked(uint32_t bits, Vectors &vectors);
    void raise_unlocked(std::unique_lock<std::mutex> &lock, const Vectors &vectors);
    uint64_t timer_ns_locked() const;

    const DeviceConfig config_;
    const HostBus bus_;
    std::unique_ptr<Vram> vram_;
    std::unique_ptr<trace::TraceWriter> trace_;

    // Engine-owned state: touched only by the engine thread.
    GridScheduler scheduler_;
    std::array<RingEngine, SIMTGPU_NUM_RINGS> ring_engines_{};
    EngineCounters counters_;
    CommandProcessor cp_;
    uint64_t engine_generation_ = 0;
    double temperature_mc_ = kAmbientMc;

    // Registers and published state, guarded by mutex_.
    std::mutex mutex_;
    std::condition_variable work_cv_; // the engine waits for work
    std::condition_variable idle_cv_; // wait_idle() and reset() wait for the engine
    uint64_t generation_ = 0;         // bumped by reset: the engine drops what it ran
    bool stopping_ = false;
    bool engine_busy_ = false;
    bool grids_busy_ = false; // the scheduler had work at the last step
    // Interrupts being delivered outside the lock: the device is not idle
    // until the host has seen them.
    uint32_t irqs_in_flight_ = 0;
    std::array<Ring, SIMTGPU_NUM_RINGS> rings_{};
    uint32_t preempt_timeout_ = 0;
    uint32_t irq_status_ = 0;
    uint32_t irq_mask_ = 0;
    uint32_t scratch_ = 0;
    struct {
        uint64_t addr = 0, bytes = 0;
        uint32_t result = SIMTGPU_VRAM_CLEAR_DONE;
    } vram_clear_; // SIMTGPU_REG_VRAM_CLEAR*
    std::optional<ExceptionRecord> record_;
    // Replayable faults: the queue the driver reads (head first), its
    // FAULT_REPLAY writes that the engine has yet to apply, and
    // TLB_INVALIDATE writes asked for and carried out.
    std::deque<GridScheduler::Fault> fault_queue_;
    struct ReplayRequest {
        bool cancel = false;
        uint32_t context = 0;
    };
    std::vector<ReplayRequest> replays_;
    uint32_t fault_cancel_context_ = 0;
    uint64_t tlb_invalidations_asked_ = 0, tlb_invalidations_done_ = 0;
    std::condition_variable tlb_cv_; // TLB_INVALIDATE waits for the engine
    void queue_faults_locked(Vectors &vectors); // engine thread
    void apply_replays_locked();                // engine thread
    // _HI halves latched by the last read of their _LO: the timer's and each
    // counter's.
    uint32_t timer_high_ = 0;
    std::array<uint32_t, SIMTGPU_NUM_COUNTERS> counter_high_{};
    std::array<uint32_t, SIMTGPU_NUM_RINGS> progress_high_{};
    DeviceStats published_;
    LaunchOutcome published_launch_;

    std::thread engine_;
};

} // namespace simtgpu::sim
