#include "device/device.h"

#include "simtgpu/hw.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>

namespace simtgpu::sim {
namespace {

static_assert(SIMTGPU_NUM_RINGS == 4, "Device::rings_ has SIMTGPU_NUM_RINGS entries");

constexpr uint32_t kRingMinSize = 4u << 10;
constexpr uint32_t kRingMaxSize = 16u << 20;
constexpr uint32_t kRingRegsEnd = SIMTGPU_RING_BASE(SIMTGPU_NUM_RINGS);
constexpr uint32_t kCountersEnd = SIMTGPU_REG_COUNTER(SIMTGPU_NUM_COUNTERS);
static_assert(SIMTGPU_NUM_COUNTERS <= SIMTGPU_MAX_COUNTERS,
              "the counter block of BAR0 holds SIMTGPU_MAX_COUNTERS counters");
constexpr uint32_t kIrqBits = SIMTGPU_IRQ_FENCE | SIMTGPU_IRQ_EXCEPTION | SIMTGPU_IRQ_RING_ERROR |
                             SIMTGPU_IRQ_PARKED | SIMTGPU_IRQ_FAULT;
constexpr uint32_t kSmMaskFirst = SIMTGPU_REG_SM_MASK(0, 0);
constexpr uint32_t kSmMaskEnd = SIMTGPU_REG_SM_MASK(SIMTGPU_NUM_RINGS, 0);

// A window of a ring: `size` dwords from byte offset `head`, wrapping.
class RingSource final : public DwordSource {
public:
    RingSource(const Vram &vram, uint64_t base, uint32_t ring_bytes, uint32_t head,
               uint32_t dwords)
        : vram_(vram), base_(base), mask_(ring_bytes - 1), head_(head), dwords_(dwords) {}
    uint32_t size() const override { return dwords_; }
    uint32_t at(uint32_t i) const override {
        return vram_.read32(base_ + ((head_ + 4ull * i) & mask_));
    }

private:
    const Vram &vram_;
    uint64_t base_;
    uint32_t mask_, head_, dwords_;
};

} // namespace

CounterValues DeviceStats::values() const {
    CounterValues v{};
#define SIMTGPU_X(name, unit, ncu, what) v[SIMTGPU_COUNTER_##name] = engine.name;
    SIMTGPU_ENGINE_COUNTERS(SIMTGPU_X)
#undef SIMTGPU_X
#define SIMTGPU_X(name, unit, ncu, what) v[SIMTGPU_COUNTER_##name] = device.name;
    SIMTGPU_DEVICE_COUNTERS(SIMTGPU_X)
#undef SIMTGPU_X
#define SIMTGPU_X(name, unit, ncu, what) v[SIMTGPU_COUNTER_##name] = sms.name;
    SIMTGPU_SM_COUNTERS(SIMTGPU_X)
#undef SIMTGPU_X
#define SIMTGPU_X(name, unit, ncu, what) v[SIMTGPU_COUNTER_##name] = memory.name;
    SIMTGPU_MEMORY_COUNTERS(SIMTGPU_X)
#undef SIMTGPU_X
    return v;
}

Expected<std::unique_ptr<Device>> Device::create(const DeviceConfig &config, const HostBus &bus,
                                                 void *vram_backing,
                                                 std::unique_ptr<trace::TraceWriter> trace) {
    auto vram = Vram::create(config.vram_bytes, vram_backing, bus.vram_discard_fn, bus.opaque);
    if (!vram)
        return Error{vram.error()};
    return std::unique_ptr<Device>(new Device(config, bus, std::move(*vram), std::move(trace)));
}

Device::Device(const DeviceConfig &config, const HostBus &bus, std::unique_ptr<Vram> vram,
               std::unique_ptr<trace::TraceWriter> trace)
    : config_(config), bus_(bus), vram_(std::move(vram)), trace_(std::move(trace)),
      scheduler_(config_), cp_(config_, *vram_, bus_, scheduler_, counters_) {
    scheduler_.trace_to(trace_.get());
    published_.per_sm.resize(config_.num_sms);
    published_.per_sm_memory.resize(config_.num_sms);
    published_.temperature_mc = kAmbientMc;
    engine_ = std::thread([this] { engine_main(); });
}

Device::~Device() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
        ++generation_; // cancels a launch in flight
    }
    work_cv_.notify_all();
    engine_.join();
    if (trace_) { // what was still running ends here
        scheduler_.reset();
        trace_->close();
    }
}

// ------------------------------------------------------------- engine ---

bool Device::ring_ready(const Ring &r) const {
    return (r.ctrl & SIMTGPU_RING_CTRL_ENABLE) && !r.error && !r.stalled && !r.parked &&
           r.head != r.tail;
}

bool Device::all_idle_locked() const {
    return !engine_busy_ && !grids_busy_ && engine_generation_ == generation_ &&
           irqs_in_flight_ == 0 &&
           std::none_of(rings_.begin(), rings_.end(), [this](auto &r) { return ring_ready(r); });
}

// Whether an engine step would do anything: a ring enabled, disabled or
// preempted since the last step, a grid to settle, packets to execute, or
// a grid to run.
bool Device::engine_has_work_locked() const {
    for (uint32_t i = 0; i < SIMTGPU_NUM_RINGS; ++i) {
        const Ring &r = rings_[i];
        const RingEngine &e = ring_engines_[i];
        if (r.epoch != e.epoch)
            return true;
        if (!(r.ctrl & SIMTGPU_RING_CTRL_ENABLE) || r.error || r.stalled)
            continue;
        if (bool(r.preempt) != e.preempt_seen || r.aborts != e.aborts)
            return true;
        if (e.cursor.grid) {
            if (e.cursor.grid->state == GridState::Done)
                return true;
        } else if (!r.preempt && r.head != r.tail) {
            return true;
        }
    }
    if (!replays_.empty() || tlb_invalidations_done_ != tlb_invalidations_asked_)
        return true;
    // Held warps and nothing else to run: time stands still until the driver
    // replays (a step would only let cycles pass).
    return scheduler_.busy() && !scheduler_.waiting_for_replay();
}

// FAULT_REPLAY and TLB_INVALIDATE writes, applied between steps.
void Device::apply_replays_locked() {
    for (const ReplayRequest &r : replays_)
        scheduler_.replay(r.cancel, r.context);
    replays_.clear();
    if (tlb_invalidations_done_ != tlb_invalidations_asked_) {
        scheduler_.invalidate_tlbs();
        tlb_invalidations_done_ = tlb_invalidations_asked_;
        tlb_cv_.notify_all();
    }
}

// The faults of the warps a step held: one entry per context and page while
// queued; a full queue takes none (the warp faults again after a replay).
void Device::queue_faults_locked(Vectors &vectors) {
    bool queued = false;
    for (const GridScheduler::Fault &f : scheduler_.take_faults()) {
        const uint64_t page = f.address >> SIMTGPU_PAGE_SHIFT;
        const bool known = std::any_of(fault_queue_.begin(), fault_queue_.end(), [&](auto &q) {
            return q.context == f.context && q.address >> SIMTGPU_PAGE_SHIFT == page;
        });
        if (known || fault_queue_.size() >= SIMTGPU_FAULT_QUEUE_DEPTH)
            continue;
        fault_queue_.push_back(f);
        ++published_.device.gpu_page_faults;
        queued = true;
    }
    if (queued)
        raise_locked(SIMTGPU_IRQ_FAULT, vectors);
}

void Device::engine_main() {
    std::unique_lock lock(mutex_);
    for (;;) {
        work_cv_.wait(lock, [this] {
            return stopping_ || engine_generation_ != generation_ || engine_has_work_locked();
        });
        if (stopping_)
            return;
        if (engine_generation_ != generation_) {
            // A reset happened: drop everything the engine holds.
            engine_generation_ = generation_;
            scheduler_.reset();
            ring_engines_ = {};
            counters_ = {};
            grids_busy_ = false;
            temperature_mc_ = kAmbientMc;
            tlb_invalidations_done_ = tlb_invalidations_asked_; // no TLB left
            tlb_cv_.notify_all();
            idle_cv_.notify_all();
            continue;
        }
        apply_replays_locked();
        const std::array<Ring, SIMTGPU_NUM_RINGS> rings = rings_;
        const uint64_t preempt_timeout = preempt_timeout_;
        const uint64_t generation = generation_;
        engine_busy_ = true;
        lock.unlock();

        const auto outcomes = engine_step(rings, preempt_timeout);

        lock.lock();
        engine_busy_ = false;
        if (generation != generation_) {
            idle_cv_.notify_all();
            continue; // reset while it ran: its effects on registers are dropped
        }
        Vectors vectors;
        apply_locked(rings, outcomes, vectors);
        queue_faults_locked(vectors);
        if (all_idle_locked()) {
            if (trace_) // the trace is complete whenever the device is idle
                trace_->checkpoint();
            idle_cv_.notify_all();
        }
        raise_unlocked(lock, vectors);
    }
}

std::array<Device::RingOutcome, SIMTGPU_NUM_RINGS>
Device::engine_step(const std::array<Ring, SIMTGPU_NUM_RINGS> &rings, uint64_t preempt_timeout) {
    // Packets a ring may execute per step, so that a long run of small
    // packets on one ring does not hold up the grids of the others.
    constexpr uint32_t kPacketsPerStep = 64;
    std::array<RingOutcome, SIMTGPU_NUM_RINGS> out{};
    std::array<uint32_t, SIMTGPU_NUM_RINGS> order;
    for (uint32_t i = 0; i < SIMTGPU_NUM_RINGS; ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t a, uint32_t b) { return rings[a].priority > rings[b].priority; });

    for (const uint32_t i : order) {
        const Ring &r = rings[i];
        RingEngine &e = ring_engines_[i];
        RingCursor &cursor = e.cursor;
        if (r.epoch != e.epoch) { // enabled or disabled: its work is dropped
            if (cursor.grid) {
                scheduler_.abort(*cursor.grid);
                scheduler_.retire(cursor.grid);
            }
            e = RingEngine{};
            e.epoch = r.epoch;
        }
        if (!(r.ctrl & SIMTGPU_RING_CTRL_ENABLE) || r.error || r.stalled)
            continue;
        uint32_t aborted_dwords = 0;
        if (r.aborts != e.aborts) { // CTRL.ABORT: drop what is at HEAD
            e.aborts = r.aborts;
            aborted_dwords = cp_.abort(cursor);
            e.preempt_seen = false;
        }

        RingSetup setup;
        setup.index = i;
        setup.priority = r.priority;
        setup.sm_allowed.resize(config_.num_sms);
        for (uint32_t sm = 0; sm < config_.num_sms; ++sm)
            setup.sm_allowed[sm] = (r.sm_mask[sm / 32] >> (sm % 32)) & 1;
        const uint32_t head = (r.head + 4 * aborted_dwords) & (r.size - 1);
        const uint32_t available = ((r.tail - head) & (r.size - 1)) / 4;
        RingSource window(*vram_, r.addr, r.size, head, available);

        if (bool(r.preempt) != e.preempt_seen) {
            e.preempt_seen = r.preempt;
            e.preempt_since = counters_.cycles;
            e.preempt_timed_out = false;
            if (cursor.grid)
                r.preempt ? scheduler_.park(*cursor.grid) : scheduler_.resume(*cursor.grid);
        }
        out[i].step = cp_.advance(setup, window, cursor, r.preempt ? 0 : kPacketsPerStep);
        // Preempted: only a grid that finished while draining was settled.
        out[i].step.ring_dwords += aborted_dwords;
        if (out[i].step.exception)
            out[i].step.exception_offset += 4 * aborted_dwords;
    }

    if (scheduler_.busy()) {
        const uint64_t busy_before = scheduler_.total_stats().sm_busy_cycles;
        const uint64_t cycles = scheduler_.step(counters_.cycles);
        counters_.cycles += cycles;
        counters_.sample_cycles += cycles;
        counters_.sample_sm_busy += scheduler_.total_stats().sm_busy_cycles - busy_before;
    }

    // Parked once its grid is (after this step), or at once with none.
    for (uint32_t i = 0; i < SIMTGPU_NUM_RINGS; ++i) {
        const Ring &r = rings[i];
        RingEngine &e = ring_engines_[i];
        if (!r.preempt || !(r.ctrl & SIMTGPU_RING_CTRL_ENABLE) || r.error || r.stalled)
            continue;
        const Grid *grid = e.cursor.grid;
        out[i].parked = !grid || grid->state == GridState::Parked;
        if (!out[i].parked && preempt_timeout && !e.preempt_timed_out &&
            counters_.cycles - e.preempt_since >= preempt_timeout) {
            e.preempt_timed_out = true;
            Exception timeout;
            timeout.kind = SIMTGPU_EXC_PREEMPT_TIMEOUT;
            timeout.detail = grid->resident_ctas;
            out[i].step.exception = timeout;
        }
    }
    return out;
}

void Device::apply_locked(const std::array<Ring, SIMTGPU_NUM_RINGS> &rings,
                          const std::array<RingOutcome, SIMTGPU_NUM_RINGS> &outcomes,
                          Vectors &vectors) {
    publish_locked();
    grids_busy_ = scheduler_.busy();
    for (uint32_t i = 0; i < SIMTGPU_NUM_RINGS; ++i) {
        Ring &r = rings_[i];
        const RingOutcome &o = outcomes[i];
        if (r.epoch != rings[i].epoch)
            continue; // enabled or disabled meanwhile: the next step drops it
        r.head = (rings[i].head + 4 * o.step.ring_dwords) & (r.size - 1);
        const RingCursor &cursor = ring_engines_[i].cursor;
        r.progress = cursor.progress();
        r.resident = cursor.grid ? cursor.grid->resident_ctas : 0;
        if (o.step.finished)
            published_launch_ = *o.step.finished;
        if (o.parked && !r.parked)
            raise_locked(SIMTGPU_IRQ_PARKED, vectors);
        r.parked = o.parked && r.preempt;
        if (o.step.fence_irq)
            raise_locked(SIMTGPU_IRQ_FENCE, vectors);
        if (o.step.exception) {
            ExceptionRecord record{*o.step.exception, i, ring_engines_[i].cursor.context.id,
                                   (rings[i].head + o.step.exception_offset) & (r.size - 1)};
            ++published_.device.exceptions;
            r.stalled = true;
            if (record_)
                r.pending = record;
            else
                publish_exception_locked(record, vectors);
        }
    }
}

void Device::publish_locked() {
    // Temperature: first-order approach to ambient + rise * utilisation of
    // the work since the last sample, with time constant kThermalTauCycles.
    if (counters_.sample_cycles) {
        const double utilisation = double(counters_.sample_sm_busy) /
                                   (double(counters_.sample_cycles) * config_.num_sms);
        const double target = kAmbientMc + kFullLoadRiseMc * std::min(utilisation, 1.0);
        const double alpha = 1.0 - std::exp(-double(counters_.sample_cycles) / kThermalTauCycles);
        temperature_mc_ += (target - temperature_mc_) * alpha;
        counters_.sample_cycles = 0;
        counters_.sample_sm_busy = 0;
    }
    published_.engine = counters_;
    published_.sms = scheduler_.total_stats();
    published_.sms.ctas = 0;
    published_.memory = {};
    for (uint32_t i = 0; i < scheduler_.num_sms(); ++i) {
        published_.per_sm[i] = scheduler_.sm(i).stats();
        published_.per_sm[i].ctas = scheduler_.ctas_completed(i);
        published_.sms.ctas += published_.per_sm[i].ctas;
        published_.per_sm_memory[i] = scheduler_.memory_counters(i);
        published_.memory += published_.per_sm_memory[i];
    }
    published_.temperature_mc = uint32_t(std::lround(temperature_mc_));
    published_.l2_set_aside = scheduler_.l2_set_aside();
}

// ------------------------------------------------ interrupts, exceptions ---

void Device::raise_locked(uint32_t bits, Vectors &vectors) {
    const uint32_t fresh = bits & ~irq_status_;
    irq_status_ |= bits;
    const uint32_t signalled = fresh & irq_mask_;
    if (signalled & (SIMTGPU_IRQ_FENCE | SIMTGPU_IRQ_PARKED))
        vectors.push_back(SIMTGPU_MSIX_VEC_FENCE);
    if (signalled & (SIMTGPU_IRQ_EXCEPTION | SIMTGPU_IRQ_RING_ERROR | SIMTGPU_IRQ_FAULT))
        vectors.push_back(SIMTGPU_MSIX_VEC_ERROR);
}

void Device::raise_unlocked(std::unique_lock<std::mutex> &lock, const Vectors &vectors) {
    if (vectors.empty())
        return;
    ++irqs_in_flight_;
    lock.unlock();
    for (uint32_t v : vectors)
        bus_.raise_irq(v);
    lock.lock();
    if (--irqs_in_flight_ == 0 && all_idle_locked())
        idle_cv_.notify_all();
}

void Device::publish_exception_locked(const ExceptionRecord &record, Vectors &vectors) {
    record_ = record;
    raise_locked(SIMTGPU_IRQ_EXCEPTION, vectors);
}

void Device::acknowledge_locked(uint32_t bits, Vectors &vectors) {
    irq_status_ &= ~bits;
    if (!(bits & SIMTGPU_IRQ_EXCEPTION) || !record_)
        return;
    rings_[record_->ring].stalled = false;
    record_.reset();
    // The next ring waiting to report (lowest index first) takes the record.
    for (Ring &r : rings_) {
        if (r.pending) {
            publish_exception_locked(*r.pending, vectors);
            r.pending.reset();
            break;
        }
    }
    work_cv_.notify_all();
}

// -------------------------------------------------------------- rings ---

bool Device::ring_setup_valid(const Ring &r) const {
    return r.addr % SIMTGPU_PAGE_SIZE == 0 && std::has_single_bit(r.size) &&
           r.size >= kRingMinSize && r.size <= kRingMaxSize && vram_->contains(r.addr, r.size) &&
           r.tail % 4 == 0 && r.tail < r.size;
}

void Device::ring_error_locked(Ring &r, Vectors &vectors) {
    r.error = true;
    raise_locked(SIMTGPU_IRQ_RING_ERROR, vectors);
}

void Device::ring_write_locked(uint32_t index, uint32_t reg, uint32_t value, Vectors &vectors) {
    Ring &r = rings_[index];
    const bool enabled = r.ctrl & SIMTGPU_RING_CTRL_ENABLE;
    switch (reg) {
    case SIMTGPU_RING_ADDR_LO:
    case SIMTGPU_RING_ADDR_HI:
    case SIMTGPU_RING_SIZE:
        if (enabled) {
            ++published_.device.bad_mmio_accesses; // setup is frozen while enabled
            return;
        }
        if (reg == SIMTGPU_RING_ADDR_LO)
            r.addr = (r.addr & ~0xffffffffull) | value;
        else if (reg == SIMTGPU_RING_ADDR_HI)
            r.addr = (r.addr & 0xffffffffull) | (uint64_t(value) << 32);
        else
            r.size = value;
        return;
    case SIMTGPU_RING_TAIL:
        r.tail = value;
        if (enabled && !r.error && !ring_setup_valid(r))
            ring_error_locked(r, vectors);
        work_cv_.notify_all();
        return;
    case SIMTGPU_RING_CTRL:
        if ((value & ~(SIMTGPU_RING_CTRL_ENABLE | SIMTGPU_RING_CTRL_ABORT)) ||
            ((value & SIMTGPU_RING_CTRL_ABORT) && !(enabled && (value & SIMTGPU_RING_CTRL_ENABLE)))) {
            ++published_.device.bad_mmio_accesses;
            return;
        }
        if (value & SIMTGPU_RING_CTRL_ABORT) {
            ++r.aborts;
            r.preempt = 0;
            r.parked = false;
            work_cv_.notify_all();
            return;
        }
        if (!enabled && (value & SIMTGPU_RING_CTRL_ENABLE)) {
            r.head = 0;
            r.preempt = 0;
            r.parked = false;
            r.progress = 0;
            r.resident = 0;
            if (!ring_setup_valid(r))
                ring_error_locked(r, vectors);
        }
        if (enabled != bool(value & SIMTGPU_RING_CTRL_ENABLE)) {
            ++r.epoch; // the engine drops the ring's work: a per-ring reset
            r.preempt = 0;
            r.parked = false;
        }
        r.ctrl = value;
        work_cv_.notify_all();
        return;
    case SIMTGPU_RING_PRIORITY:
        if (value > 3) {
            ++published_.device.bad_mmio_accesses;
            return;
        }
        r.priority = value;
        return;
    case SIMTGPU_RING_PREEMPT:
        if (value > 1) {
            ++published_.device.bad_mmio_accesses;
            return;
        }
        r.preempt = value;
        if (!value)
            r.parked = false;
        work_cv_.notify_all();
        return;
    default: // HEAD, STATUS and PROGRESS are read-only
        ++published_.device.bad_mmio_accesses;
    }
}

uint32_t Device::ring_read_locked(uint32_t index, uint32_t reg) const {
    const Ring &r = rings_[index];
    switch (reg) {
    case SIMTGPU_RING_ADDR_LO:
        return uint32_t(r.addr);
    case SIMTGPU_RING_ADDR_HI:
        return uint32_t(r.addr >> 32);
    case SIMTGPU_RING_SIZE:
        return r.size;
    case SIMTGPU_RING_HEAD:
        return r.head;
    case SIMTGPU_RING_TAIL:
        return r.tail;
    case SIMTGPU_RING_CTRL:
        return r.ctrl;
    case SIMTGPU_RING_STATUS:
        if (r.error)
            return SIMTGPU_RING_STATUS_ERROR;
        if (r.stalled)
            return SIMTGPU_RING_STATUS_STALLED;
        if (r.parked)
            return SIMTGPU_RING_STATUS_PARKED;
        if (!(r.ctrl & SIMTGPU_RING_CTRL_ENABLE) || r.head == r.tail)
            return SIMTGPU_RING_STATUS_IDLE;
        return SIMTGPU_RING_STATUS_BUSY;
    case SIMTGPU_RING_PRIORITY:
        return r.priority;
    case SIMTGPU_RING_PREEMPT:
        return r.preempt;
    case SIMTGPU_RING_RESIDENT:
        return r.resident;
    }
    return 0;
}

// --------------------------------------------------------------- MMIO ---

uint64_t Device::timer_ns_locked() const {
    return uint64_t((unsigned __int128)published_.engine.cycles * 1'000'000 / config_.clock_khz);
}

uint32_t Device::exception_read_locked(uint32_t offset) const {
    if (!record_)
        return 0;
    const Exception &e = record_->exception;
    switch (offset) {
    case SIMTGPU_REG_EXC_KIND:
        return e.kind;
    case SIMTGPU_REG_EXC_RING:
        return record_->ring;
    case SIMTGPU_REG_EXC_CONTEXT:
        return record_->context;
    case SIMTGPU_REG_EXC_ACCESS:
        return e.access;
    case SIMTGPU_REG_EXC_ADDR_LO:
        return uint32_t(e.address);
    case SIMTGPU_REG_EXC_ADDR_HI:
        return uint32_t(e.address >> 32);
    case SIMTGPU_REG_EXC_PC_LO:
        return uint32_t(e.pc);
    case SIMTGPU_REG_EXC_PC_HI:
        return uint32_t(e.pc >> 32);
    case SIMTGPU_REG_EXC_SM:
        return e.sm;
    case SIMTGPU_REG_EXC_WARP:
        return e.warp;
    case SIMTGPU_REG_EXC_LANE:
        return e.lane;
    case SIMTGPU_REG_EXC_CTAID_X:
    case SIMTGPU_REG_EXC_CTAID_Y:
    case SIMTGPU_REG_EXC_CTAID_Z:
        return e.ctaid[(offset - SIMTGPU_REG_EXC_CTAID_X) / 4];
    case SIMTGPU_REG_EXC_TID_X:
    case SIMTGPU_REG_EXC_TID_Y:
    case SIMTGPU_REG_EXC_TID_Z:
        return e.tid[(offset - SIMTGPU_REG_EXC_TID_X) / 4];
    case SIMTGPU_REG_EXC_RING_OFFSET:
        return record_->ring_offset;
    case SIMTGPU_REG_EXC_DETAIL:
        return e.detail;
    }
    return 0;
}

uint64_t Device::mmio_read(uint64_t offset, unsigned size) {
    std::lock_guard lock(mutex_);
    if (size != 4 || offset % 4 || offset >= SIMTGPU_REGS_SIZE) {
        ++published_.device.bad_mmio_accesses;
        return 0;
    }
    const uint32_t off = uint32_t(offset);
    const uint32_t caps = SIMTGPU_CAP_FP64 | SIMTGPU_CAP_ATOMICS | SIMTGPU_CAP_TIMESTAMP |
                          SIMTGPU_CAP_VRAM_CLEAR | SIMTGPU_CAP_REPLAYABLE_FAULTS |
                          (bus_.dma_read_fn ? SIMTGPU_CAP_HOST_PTE : 0);
    switch (off) {
    case SIMTGPU_REG_ID:
        return SIMTGPU_ID_MAGIC;
    case SIMTGPU_REG_HW_VERSION:
        return SIMTGPU_HW_VERSION;
    case SIMTGPU_REG_ARCH:
        return config_.arch;
    case SIMTGPU_REG_CAPS:
        return caps;
    case SIMTGPU_REG_NUM_SMS:
        return config_.num_sms;
    case SIMTGPU_REG_WARPS_PER_SM:
        return config_.warps_per_sm;
    case SIMTGPU_REG_WARP_SIZE:
        return config_.warp_size;
    case SIMTGPU_REG_CTAS_PER_SM:
        return config_.ctas_per_sm;
    case SIMTGPU_REG_SHARED_PER_SM:
        return config_.shared_bytes_per_sm;
    case SIMTGPU_REG_MAX_THREADS_PER_CTA:
        return config_.max_threads_per_cta;
    case SIMTGPU_REG_VRAM_SIZE_LO:
        return uint32_t(config_.vram_bytes);
    case SIMTGPU_REG_VRAM_SIZE_HI:
        return uint32_t(config_.vram_bytes >> 32);
    case SIMTGPU_REG_CLOCK_KHZ:
        return config_.clock_khz;
    case SIMTGPU_REG_NUM_RINGS:
        return SIMTGPU_NUM_RINGS;
    case SIMTGPU_REG_MAX_STACK_PER_THREAD:
        return config_.max_stack_per_thread;
    case SIMTGPU_REG_TIMER_LO: {
        const uint64_t t = timer_ns_locked();
        timer_high_ = uint32_t(t >> 32);
        return uint32_t(t);
    }
    case SIMTGPU_REG_TIMER_HI:
        return timer_high_;
    case SIMTGPU_REG_TEMPERATURE:
        return published_.temperature_mc;
    case SIMTGPU_REG_STATUS:
        return (all_idle_locked() ? 0 : SIMTGPU_STATUS_BUSY) |
               (record_ ? SIMTGPU_STATUS_EXCEPTION : 0);
    case SIMTGPU_REG_SCRATCH:
        return scratch_;
    case SIMTGPU_REG_FAULT_COUNT:
        return uint32_t(fault_queue_.size());
    case SIMTGPU_REG_FAULT_ADDR_LO:
        return fault_queue_.empty() ? 0 : uint32_t(fault_queue_.front().address);
    case SIMTGPU_REG_FAULT_ADDR_HI:
        return fault_queue_.empty() ? 0 : uint32_t(fault_queue_.front().address >> 32);
    case SIMTGPU_REG_FAULT_ACCESS:
        return fault_queue_.empty() ? 0 : fault_queue_.front().access;
    case SIMTGPU_REG_FAULT_CONTEXT:
        return fault_queue_.empty() ? 0 : fault_queue_.front().context;
    case SIMTGPU_REG_FAULT_RING:
        return fault_queue_.empty() ? 0 : fault_queue_.front().ring;
    case SIMTGPU_REG_FAULT_CANCEL_CONTEXT:
        return fault_cancel_context_;
    case SIMTGPU_REG_PREEMPT_TIMEOUT:
        return preempt_timeout_;
    case SIMTGPU_REG_VRAM_CLEAR_ADDR_LO:
        return uint32_t(vram_clear_.addr);
    case SIMTGPU_REG_VRAM_CLEAR_ADDR_HI:
        return uint32_t(vram_clear_.addr >> 32);
    case SIMTGPU_REG_VRAM_CLEAR_BYTES_LO:
        return uint32_t(vram_clear_.bytes);
    case SIMTGPU_REG_VRAM_CLEAR_BYTES_HI:
        return uint32_t(vram_clear_.bytes >> 32);
    case SIMTGPU_REG_VRAM_CLEAR:
        return vram_clear_.result;
    case SIMTGPU_REG_NUM_COUNTERS:
        return SIMTGPU_NUM_COUNTERS;
    // The functional model has no caches or DRAM: it reports none.
    case SIMTGPU_REG_L2_SIZE:
        return config_.model == Model::timing
                   ? uint32_t(std::min<uint64_t>(config_.memory.l2.size_bytes, UINT32_MAX))
                   : 0;
    case SIMTGPU_REG_MEM_BUS_WIDTH:
        return config_.model == Model::timing ? config_.memory.dram.bus_width_bits : 0;
    case SIMTGPU_REG_MEM_CLOCK_KHZ:
        return config_.model == Model::timing ? config_.memory.dram.clock_khz : 0;
    case SIMTGPU_REG_L2_PERSISTING_MAX:
        return config_.model == Model::timing ? uint32_t(config_.memory.l2.persisting_max_bytes)
                                              : 0;
    case SIMTGPU_REG_L2_WINDOW_MAX:
        return config_.model == Model::timing
                   ? uint32_t(config_.memory.l2.access_window_max_bytes)
                   : 0;
    case SIMTGPU_REG_L2_SET_ASIDE:
        return uint32_t(published_.l2_set_aside);
    case SIMTGPU_REG_IRQ_STATUS:
        return irq_status_;
    case SIMTGPU_REG_IRQ_MASK:
        return irq_mask_;
    }
    if (off >= SIMTGPU_RING_BASE(0) && off < kRingRegsEnd) {
        const uint32_t ring = (off - SIMTGPU_RING_BASE(0)) / 0x40, reg = off & 0x3f;
        if (reg == SIMTGPU_RING_PROGRESS_LO) {
            progress_high_[ring] = uint32_t(rings_[ring].progress >> 32);
            return uint32_t(rings_[ring].progress);
        }
        if (reg == SIMTGPU_RING_PROGRESS_HI)
            return progress_high_[ring];
        if (reg <= SIMTGPU_RING_RESIDENT)
            return ring_read_locked(ring, reg);
    }
    if (off >= kSmMaskFirst && off < kSmMaskEnd)
        return rings_[(off - kSmMaskFirst) / 0x80].sm_mask[(off % 0x80) / 4];
    if (off >= SIMTGPU_REG_EXC_KIND && off <= SIMTGPU_REG_EXC_DETAIL)
        return exception_read_locked(off);
    if (off >= SIMTGPU_REG_COUNTER_BASE && off < kCountersEnd) {
        const uint32_t index = (off - SIMTGPU_REG_COUNTER_BASE) / 8;
        if (off % 8 == 0) {
            const uint64_t v = published_.values()[index];
            counter_high_[index] = uint32_t(v >> 32);
            return uint32_t(v);
        }
        return counter_high_[index];
    }
    ++published_.device.bad_mmio_accesses; // write-only or unassigned
    return 0;
}

void Device::mmio_write(uint64_t offset, uint64_t value, unsigned size) {
    std::unique_lock lock(mutex_);
    if (size != 4 || offset % 4 || offset >= SIMTGPU_REGS_SIZE) {
        ++published_.device.bad_mmio_accesses;
        return;
    }
    const uint32_t off = uint32_t(offset);
    const uint32_t v = uint32_t(value);
    Vectors vectors;
    if (off == SIMTGPU_REG_RESET) {
        if (v == SIMTGPU_RESET_MAGIC)
            reset_locked();
        else
            ++published_.device.bad_mmio_accesses;
    } else if (off == SIMTGPU_REG_SCRATCH) {
        scratch_ = v;
    } else if (off == SIMTGPU_REG_PREEMPT_TIMEOUT) {
        preempt_timeout_ = v;
    } else if (off == SIMTGPU_REG_FAULT_POP) {
        if (!fault_queue_.empty())
            fault_queue_.pop_front();
    } else if (off == SIMTGPU_REG_FAULT_CANCEL_CONTEXT) {
        fault_cancel_context_ = v;
    } else if (off == SIMTGPU_REG_FAULT_REPLAY &&
               (v == SIMTGPU_REPLAY_RETRY || v == SIMTGPU_REPLAY_CANCEL)) {
        replays_.push_back({v == SIMTGPU_REPLAY_CANCEL, fault_cancel_context_});
        ++published_.device.fault_replays;
        work_cv_.notify_all();
    } else if (off == SIMTGPU_REG_TLB_INVALIDATE) {
        // Returns once the engine, between two steps, has emptied every TLB.
        const uint64_t ticket = ++tlb_invalidations_asked_;
        work_cv_.notify_all();
        tlb_cv_.wait(lock, [&] { return tlb_invalidations_done_ >= ticket || stopping_; });
    } else if (off >= SIMTGPU_REG_VRAM_CLEAR_ADDR_LO && off <= SIMTGPU_REG_VRAM_CLEAR_BYTES_HI) {
        uint64_t &field =
            off < SIMTGPU_REG_VRAM_CLEAR_BYTES_LO ? vram_clear_.addr : vram_clear_.bytes;
        const unsigned shift = off % 8 ? 32 : 0;
        field = (field & ~(0xffffffffull << shift)) | (uint64_t(v) << shift);
    } else if (off == SIMTGPU_REG_VRAM_CLEAR && v == SIMTGPU_VRAM_CLEAR_GO) {
        const uint64_t addr = vram_clear_.addr, bytes = vram_clear_.bytes;
        const bool ok = addr % SIMTGPU_PAGE_SIZE == 0 && bytes % SIMTGPU_PAGE_SIZE == 0 &&
                        vram_->contains(addr, bytes);
        vram_clear_.result = ok ? SIMTGPU_VRAM_CLEAR_DONE : SIMTGPU_VRAM_CLEAR_BAD_RANGE;
        // Unlocked: the engine and other registers need not wait for the
        // memory. The driver owns the range, so nothing else touches it.
        lock.unlock();
        if (ok)
            vram_->clear(addr, bytes);
        return;
    } else if (off >= kSmMaskFirst && off < kSmMaskEnd) {
        rings_[(off - kSmMaskFirst) / 0x80].sm_mask[(off % 0x80) / 4] = v;
        work_cv_.notify_all();
    } else if (off == SIMTGPU_REG_IRQ_MASK) {
        const uint32_t unmasked = v & ~irq_mask_;
        irq_mask_ = v & kIrqBits;
        // Causes already pending signal as soon as they are unmasked.
        const uint32_t pending = irq_status_ & unmasked;
        irq_status_ &= ~pending;
        raise_locked(pending, vectors);
    } else if (off == SIMTGPU_REG_IRQ_ACK) {
        acknowledge_locked(v & kIrqBits, vectors);
    } else if (off >= SIMTGPU_RING_BASE(0) && off < kRingRegsEnd &&
               (off & 0x3f) <= SIMTGPU_RING_PREEMPT) {
        ring_write_locked((off - SIMTGPU_RING_BASE(0)) / 0x40, off & 0x3f, v, vectors);
    } else {
        ++published_.device.bad_mmio_accesses; // read-only or unassigned
    }
    raise_unlocked(lock, vectors);
}

// -------------------------------------------------------------- reset ---

void Device::reset_locked() {
    ++generation_;
    rings_ = {};
    preempt_timeout_ = 0;
    vram_clear_ = {};
    progress_high_ = {};
    irq_status_ = 0;
    irq_mask_ = 0;
    scratch_ = 0;
    record_.reset();
    fault_queue_.clear();
    replays_.clear();
    fault_cancel_context_ = 0;
    timer_high_ = 0;
    counter_high_ = {};
    published_ = DeviceStats{};
    published_.per_sm.resize(config_.num_sms);
    published_.per_sm_memory.resize(config_.num_sms);
    published_.temperature_mc = kAmbientMc;
    published_launch_ = {};
    work_cv_.notify_all();
}

void Device::reset() {
    std::unique_lock lock(mutex_);
    reset_locked();
    idle_cv_.wait(lock, [this] { return engine_generation_ == generation_ && !engine_busy_; });
}

bool Device::wait_idle(uint32_t timeout_ms) {
    std::unique_lock lock(mutex_);
    return idle_cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms),
                             [this] { return all_idle_locked(); });
}

DeviceStats Device::stats() {
    std::lock_guard lock(mutex_);
    return published_;
}

LaunchOutcome Device::last_launch() {
    std::lock_guard lock(mutex_);
    return published_launch_;
}

} // namespace simtgpu::sim
