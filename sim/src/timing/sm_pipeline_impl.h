// The timing pipeline's definitions (timing/sm_pipeline.h), included by the
// one file that instantiates it for the functional SM (sm/timing_port.cpp),
// so that the hot path inlines across the seam.
#pragma once

#include "simtgpu/hw.h"
#include "timing/sm_pipeline.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstdlib>

namespace simtgpu::sim::timing {

template <class F>
SmPipeline<F>::SmPipeline(F functional, const DeviceConfig &config, uint32_t sm_id)
    : sm_(functional), config_(config), sm_id_(sm_id), warps_(config.warps_per_sm) {
    const uint32_t n = std::max<uint32_t>(1, config.timing.schedulers_per_sm);
    subcores_.resize(n);
    for (uint32_t k = 0; k < n; ++k) {
        SubCore &sc = subcores_[k];
        sc.scheduler = make_warp_scheduler(config.warp_scheduler);
        for (uint32_t slot = k; slot < config.warps_per_sm; slot += n)
            sc.slots.push_back(slot);
        sc.ready.resize(sc.slots.size());
        sc.live.resize(sc.slots.size());
        sc.long_wait.resize(sc.slots.size());
        sc.why.resize(sc.slots.size());
        sc.age.resize(sc.slots.size());
    }
}

// A lone SM's memory system, made when a launch is attached unless
// use_memory_system() shared another first (a device's SMs share one:
// making 80 that nobody uses cost most of a short volta run).
template <class F> void SmPipeline<F>::make_own_memory() {
    auto created = mem::MemorySystem::create(config_.memory, 1, config_.clock_khz);
    if (!created) {
        // DeviceConfig's builders validate the memory configuration with
        // MemorySystem::create; reaching here is a caller's bug.
        std::fprintf(stderr, "simtgpu: DeviceConfig.memory is invalid: %s\n",
                     created.error().c_str());
        std::abort();
    }
    own_memory_ = std::make_unique<mem::MemorySystem>(std::move(*created));
    memory_ = own_memory_.get();
    memory_sm_ = 0;
}

template <class F> void SmPipeline<F>::start_own_memory_if_alone() {
    if (own_memory_ || !memory_)
        make_own_memory(); // its clock starts again
}

template <class F>
void SmPipeline<F>::use_memory_system(mem::MemorySystem &memory, uint32_t memory_sm) {
    own_memory_.reset();
    memory_ = &memory;
    memory_sm_ = memory_sm;
}

template <class F> void SmPipeline<F>::reset() {
    resume_cycle_.reset();
    sleep_until_ = 0;
    loads_in_flight_ = 0;
    pending_.clear();
    for (SubCore &sc : subcores_) {
        sc.unit_free = {};
        sc.last = -1;
    }
}

template <class F> void SmPipeline<F>::run(uint64_t end) {
    if (resume_cycle_ && sm_.clock() < end && !sm_.exception_raised()) {
        // The cycle an isolated run stopped in, from the sub-core it stopped at.
        const CycleState c = *resume_cycle_;
        resume_cycle_.reset();
        issue_cycle(c);
    }
    while (sm_.clock() < end && sm_.resident_ctas() && !sm_.exception_raised() && !sm_.stopped()) {
        const uint64_t now = sm_.clock();
        // This SM's side of the memory system; a lone SM ticks the whole of its own.
        for (const mem::Completion &c :
             own_memory_ ? own_memory_->tick(now) : memory_->tick_sm(memory_sm_, now))
            memory_done(c);
        if (sleep_until_ > now) { // nothing can issue: skip to the next event
            const uint64_t event = own_memory_ ? own_memory_->next_event_cycle()
                                               : memory_->next_sm_event_cycle(memory_sm_);
            sleep(std::min({sleep_until_, end, std::max(now + 1, event)}) - now);
            continue;
        }
        cycle();
    }
}

template <class F> void SmPipeline<F>::memory_done(const mem::Completion &c) {
    sleep_until_ = 0;
    ++memory_epoch_;
    if (c.kind == mem::AccessKind::load)
        --loads_in_flight_;
    if (c.token >= pending_.size() || !pending_[c.token].valid)
        return;
    PendingLoad &p = pending_[c.token];
    p.valid = false;
    WarpTiming &t = warps_[p.slot];
    if (t.generation != p.generation)
        return; // the warp has exited
    t.reg_arrival[p.reg] = std::max(t.reg_arrival[p.reg], c.cycle);
    if (--t.reg_parts[p.reg] == 0)
        t.reg_ready[p.reg] = t.reg_arrival[p.reg];
}

// The warp's next instruction record, made again once its runnable lanes change.
template <class F> bool SmPipeline<F>::peek(uint32_t slot, const SlotState &state) {
    WarpTiming &t = warps_[slot];
    if (t.peeked && t.peek_runnable == state.runnable)
        return true;
    if (!sm_.next_record(slot, t.next))
        return false;
    t.peeked = true;
    t.peek_runnable = state.runnable;
    t.mem_left = 0;
    return true;
}

template <class F> void SmPipeline<F>::warp_placed(uint32_t slot, uint64_t age) {
    sleep_until_ = 0;
    WarpTiming &t = warps_[slot];
    t.peeked = false;
    t.not_before = sm_.clock();
    ++t.generation;
    t.mem_left = 0;
    t.mem_refused = false;
    t.reg_ready.fill(0);
    t.reg_parts.fill(0);
    t.reg_arrival.fill(0);
    subcores_[slot % subcores_.size()].age[slot / subcores_.size()] = age;
}

template <class F> void SmPipeline<F>::warp_resumed(uint32_t slot, uint64_t resume) {
    WarpTiming &t = warps_[slot];
    t.not_before = resume; // its access waited for the driver
    t.not_before_reason = Stall::stall_long_scoreboard;
    t.peeked = false;
}

template <class F> void SmPipeline<F>::look_again() {
    sleep_until_ = 0;
}

// Whether the warp can issue this cycle; if not, why, and the cycle at which
// that reason ends (UINT64_MAX: when another warp or the memory system acts).
// Inlined into cycle(), its one caller.
template <class F>
[[gnu::always_inline]] inline bool SmPipeline<F>::warp_ready(uint32_t slot, const SlotState &state,
                                                             const SubCore &sc, Stall &why,
                                                             uint64_t &until) {
    const WarpTiming &t = warps_[slot];
    const uint64_t now = sm_.clock();
    until = UINT64_MAX;
    if (state.held) {
        why = Stall::stall_long_scoreboard; // its access waits for the driver
        return false;
    }
    if (!state.runnable) {
        why = Stall::stall_barrier;
        return false;
    }
    if (t.not_before > now) {
        why = t.not_before_reason;
        until = t.not_before;
        return false;
    }
    if (!peek(slot, state)) {
        why = Stall::stall_no_instruction;
        return false;
    }
    if (t.mem_refused && t.refused_epoch == memory_epoch_) {
        why = Stall::stall_memory_throttle;
        return false;
    }
    for (uint8_t r : t.next.info.src) {
        if (r != kNoReg && t.reg_ready[r] > now) {
            why = t.reg_reason[r];
            until = t.reg_ready[r];
            return false;
        }
    }
    if (t.next.info.dst != kNoReg && t.reg_ready[t.next.info.dst] > now) {
        why = t.reg_reason[t.next.info.dst];
        until = t.reg_ready[t.next.info.dst];
        return false;
    }
    if (sc.unit_free[size_t(t.next.info.cls)] > now) {
        why = is_memory(t.next.info.cls) ? Stall::stall_memory_throttle
                                         : Stall::stall_math_pipe_throttle;
        until = sc.unit_free[size_t(t.next.info.cls)];
        return false;
    }
    return true;
}

// The lowest half of a lane mask's lanes (at least one).
inline uint64_t lower_half(uint64_t mask) {
    uint64_t half = 0;
    for (int k = std::max(1, std::popcount(mask) / 2); k > 0; --k) {
        half |= mask & -mask;
        mask &= mask - 1;
    }
    return half;
}

// Hands the peeked memory instruction's lanes not taken yet to the memory
// system; true when it has taken all of them. A load refused while none of
// this SM's loads is in flight can never be taken whole (more lines than
// MSHRs or L1 ways): it goes in halves, the rest on later cycles.
template <class F> bool SmPipeline<F>::issue_memory(uint32_t slot) {
    WarpTiming &t = warps_[slot];
    const InsnInfo &info = t.next.info;
    const bool first_part = t.mem_left == 0;
    if (first_part)
        t.mem_left = t.next.group.mask;
    bool shared = false;
    access_.sm = memory_sm_;
    access_.warp = slot;
    access_.lane_bytes = info.lane_bytes;
    const uint64_t W = config_.warp_size;
    const uint64_t warp_local =
        (uint64_t(sm_id_) * config_.warps_per_sm + slot) * sm_.stack_bytes(slot) * W;
    auto lane_address = [&](uint32_t l) {
        uint64_t va = t.next.address[l];
        if ((va >> 32) == (SIMTGPU_SHARED_BASE >> 32)) {
            shared = true;
        } else if ((va >> 32) == (SIMTGPU_LOCAL_BASE >> 32)) {
            const uint64_t off = va - SIMTGPU_LOCAL_BASE;
            va = kLocalTimingBase + warp_local + (off & ~uint64_t(3)) * W + l * 4 + (off & 3);
        }
        access_.address[l] = va;
    };
    if (t.mem_left == (W == 64 ? ~uint64_t(0) : (uint64_t(1) << W) - 1)) {
        for (uint32_t l = 0; l < W; ++l) // a whole warp: no bit scan
            lane_address(l);
    } else {
        for (uint64_t m = t.mem_left; m; m &= m - 1)
            lane_address(uint32_t(std::countr_zero(m)));
    }
    switch (info.mem) {
    case MemOp::load:
        access_.kind = shared ? mem::AccessKind::shared_load : mem::AccessKind::load;
        break;
    case MemOp::store:
        access_.kind = shared ? mem::AccessKind::shared_store : mem::AccessKind::store;
        break;
    default:
        access_.kind = shared ? mem::AccessKind::shared_load : mem::AccessKind::atomic;
        break;
    }
    const bool waits = info.mem != MemOp::store && info.dst != kNoReg;
    if (first_part && waits) {
        t.reg_parts[info.dst] = 0;
        t.reg_arrival[info.dst] = 0;
    }
    uint64_t part = t.mem_left;
    for (;;) {
        access_.active_mask = part;
        const mem::IssueResult r = memory_->issue(access_, sm_.clock());
        if (r.accepted) {
            if (r.token >= pending_.size())
                pending_.resize(size_t(r.token) + 1);
            // valid: an answer the scoreboard waits for (a store's is not).
            pending_[r.token] = PendingLoad{slot, t.generation, info.dst, waits};
            if (waits)
                ++t.reg_parts[info.dst];
            loads_in_flight_ += access_.kind == mem::AccessKind::load;
            t.mem_left &= ~part;
            break;
        }
        if (loads_in_flight_ || std::popcount(part) == 1)
            break; // wait for an MSHR
        part = lower_half(part);
    }
    if (shared)
        t.next.info.cls = InsnClass::shared;
    return t.mem_left == 0;
}

// Issues the warp's peeked instruction: a memory one first to the memory
// system (refused: it retries next cycle, false), then it executes.
// Inlined into issue_cycle, its one caller.
template <class F>
[[gnu::always_inline]] inline bool SmPipeline<F>::issue(uint32_t slot, SubCore &sc) {
    WarpTiming &t = warps_[slot];
    if (t.next.info.mem != MemOp::none && !issue_memory(slot))
        return false;
    const uint64_t now = sm_.clock();
    const InsnInfo info = t.next.info;
    const InsnClass cls = info.cls;
    const Unit &unit = config_.timing.unit(cls);
    sc.unit_free[size_t(cls)] = now + unit.ii;
    t.peeked = false;
    t.mem_left = 0;
    const uint64_t nanosleep_cycles = sm_.execute_record(slot, t.next);
    // Memory destinations wait for memory_done(); the others for the unit.
    if (info.dst != kNoReg) {
        if (info.mem != MemOp::none) {
            if (t.reg_parts[info.dst])
                t.reg_ready[info.dst] = UINT64_MAX;
            t.reg_reason[info.dst] = cls == InsnClass::global || cls == InsnClass::atomic
                                         ? Stall::stall_long_scoreboard
                                         : Stall::stall_short_scoreboard;
        } else {
            t.reg_ready[info.dst] = now + unit.latency;
            t.reg_reason[info.dst] =
                cls == InsnClass::sfu ? Stall::stall_short_scoreboard : Stall::stall_wait;
        }
    }
    if (cls == InsnClass::branch || cls == InsnClass::barrier) {
        // A sleeping warp counts as waiting at a barrier: it sleeps to wait for others.
        t.not_before = now + std::max<uint64_t>(unit.latency, nanosleep_cycles);
        t.not_before_reason =
            cls == InsnClass::branch ? Stall::stall_no_instruction : Stall::stall_barrier;
    }
    return true;
}

// `cycles` in which no warp can issue (cycle() found none ready and nothing
// changes before sleep_until_): each live warp keeps its reason.
template <class F> void SmPipeline<F>::sleep(uint64_t cycles) {
    for (SubCore &sc : subcores_)
        for (size_t i = 0; i < sc.slots.size(); ++i)
            if (sc.live[i])
                sm_.account_warp_cycle(sc.slots[i], false, sc.why[i], cycles);
    sm_.advance(cycles, sm_.resident_warps());
}

// One cycle: each sub-core's scheduler picks among its ready warps and
// issues at most one instruction.
template <class F> void SmPipeline<F>::cycle() {
    CycleState c;
    c.warps_resident = sm_.resident_warps();
    // Every scheduler sees its warps as they are at the start of the cycle.
    for (SubCore &sc : subcores_) {
        sc.any_ready = false;
        for (size_t i = 0; i < sc.slots.size(); ++i) {
            const uint32_t slot = sc.slots[i];
            const SlotState state = sm_.slot_state(slot);
            sc.live[i] = state.resident;
            sc.ready[i] = 0;
            // An empty slot waits for ever: a two-level scheduler must not
            // keep it in its active set while live warps starve outside.
            sc.long_wait[i] = !sc.live[i];
            if (!sc.live[i])
                continue;
            ++c.active;
            Stall why = Stall::stall_not_selected;
            uint64_t until = 0;
            const bool ready_now = warp_ready(slot, state, sc, why, until);
            if (sm_.exception_raised())
                return;
            if (sm_.take_stop_request()) { // its code is in host memory: the cycle runs serially
                sm_.stop();
                return;
            }
            sc.ready[i] = ready_now;
            sc.why[i] = why;
            sc.any_ready |= ready_now;
            c.any_ready |= ready_now;
            c.wake = std::min(c.wake, until);
            if (!ready_now) {
                sc.long_wait[i] =
                    why == Stall::stall_long_scoreboard || why == Stall::stall_barrier;
                c.blocked += state.runnable == 0;
            }
        }
    }
    issue_cycle(c);
}

// Whether the warp's peeked instruction would change what other SMs see at
// once: an isolated run stops before it (Sm::run_isolated).
template <class F> bool SmPipeline<F>::must_run_serially(uint32_t slot) {
    const WarpTiming &t = warps_[slot];
    if (t.next.info.mem == MemOp::none || t.mem_left != 0)
        return false;
    return sm_.must_run_serially(slot, t.next);
}

// The issue half of a cycle, from sub-core c.subcore on: each scheduler
// picks among its ready warps and issues at most one instruction. An
// isolated run that meets an instruction that must run serially keeps the
// cycle in resume_cycle_, and run() finishes it from there.
template <class F> void SmPipeline<F>::issue_cycle(CycleState c) {
    for (; c.subcore < subcores_.size(); ++c.subcore, c.pick = -1) {
        SubCore &sc = subcores_[c.subcore];
        int issued = -1;
        if (sc.any_ready) {
            const int pick =
                c.pick >= 0 ? c.pick : sc.scheduler->pick(sc.ready, sc.age, sc.last, sc.long_wait);
            if (pick >= 0 && sm_.slot_state(sc.slots[size_t(pick)]).resident) {
                sc.last = pick;
                if (must_run_serially(sc.slots[size_t(pick)])) {
                    c.pick = pick;
                    resume_cycle_ = c;
                    sm_.stop();
                    return;
                }
                WarpTiming &picked = warps_[sc.slots[size_t(pick)]];
                picked.mem_refused = !issue(sc.slots[size_t(pick)], sc);
                picked.refused_epoch = memory_epoch_;
                if (picked.mem_refused)
                    sc.why[size_t(pick)] = Stall::stall_memory_throttle;
                else
                    issued = pick;
                if (sm_.exception_raised())
                    return;
            }
        }
        for (size_t i = 0; i < sc.slots.size(); ++i)
            if (sc.live[i])
                sm_.account_warp_cycle(sc.slots[i], int(i) == issued, sc.why[i], 1);
    }
    if (c.active && c.blocked == c.active) // every live thread waits: a deadlock?
        sm_.check_deadlocks();
    sm_.advance(1, c.warps_resident);
    if (!c.any_ready && sm_.resident_warps() == c.warps_resident)
        sleep_until_ = c.wake; // memory_done() wakes it earlier
}

} // namespace simtgpu::sim::timing
