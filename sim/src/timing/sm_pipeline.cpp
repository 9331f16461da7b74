// The timing pipeline (DeviceConfig::model == timing, docs/timing.md): each
// cycle each sub-core's warp scheduler picks a warp whose next instruction's
// registers are not pending on the scoreboard and whose functional unit is
// free; that instruction executes at issue (so results never depend on
// timing), its destination is pending for the class latency, and memory
// instructions go to the memory system (sim/src/mem), their loads pending
// until it answers.
#include "simtgpu/occupancy.h"
#include "sm/group_choice.h"
#include "sm/sm_state.h"

namespace simtgpu::sim {

SmRunResult Sm::Impl::run_timing(uint64_t cycles) {
    ctas_completed = 0;
    stopped = false;
    const uint64_t end = now + cycles;
    if (resume_cycle && now < end && !exception) {
        // The cycle an isolated run stopped in, from the sub-core it stopped at.
        const CycleState c = *resume_cycle;
        resume_cycle.reset();
        issue_cycle(c);
    }
    while (now < end && resident_ctas && !exception && !stopped) {
        // This SM's side of the memory system; a lone SM ticks the whole of its own.
        for (const mem::Completion &c :
             own_memory ? own_memory->tick(now) : memory->tick_sm(memory_sm, now))
            memory_done(c);
        if (sleep_until > now) { // nothing can issue: skip to the next event
            const uint64_t event = own_memory ? own_memory->next_event_cycle()
                                              : memory->next_sm_event_cycle(memory_sm);
            sleep(std::min({sleep_until, end, std::max(now + 1, event)}) - now);
            continue;
        }
        timing_cycle();
    }
    SmRunResult r;
    r.ctas_completed = ctas_completed;
    r.exception = exception;
    r.exception_launch = exception_launch;
    return r;
}

void Sm::Impl::memory_done(const mem::Completion &c) {
    sleep_until = 0;
    ++memory_epoch;
    if (c.kind == mem::AccessKind::load)
        --loads_in_flight;
    if (c.token >= pending.size() || !pending[c.token].valid)
        return;
    PendingLoad &p = pending[c.token];
    p.valid = false;
    WarpTiming &t = timing_warps[p.slot];
    if (t.generation != p.generation)
        return; // the warp has exited
    t.reg_arrival[p.reg] = std::max(t.reg_arrival[p.reg], c.cycle);
    if (--t.reg_parts[p.reg] == 0)
        t.reg_ready[p.reg] = t.reg_arrival[p.reg];
}

// The warp's next instruction record, made again once its runnable lanes change.
bool Sm::Impl::peek(uint32_t slot) {
    WarpTiming &t = timing_warps[slot];
    const uint64_t runnable = warps[slot].runnable();
    if (t.peeked && t.peek_runnable == runnable)
        return true;
    if (!next_record(slot, t.next))
        return false;
    t.peeked = true;
    t.peek_runnable = runnable;
    t.mem_left = 0;
    return true;
}

// A warp placed in the slot: nothing pending, nothing peeked.
void Sm::Impl::timing_warp_placed(uint32_t slot) {
    sleep_until = 0;
    WarpTiming &t = timing_warps[slot];
    t.peeked = false;
    t.not_before = now;
    ++t.generation;
    t.mem_left = 0;
    t.mem_refused = false;
    t.reg_ready.fill(0);
    t.reg_parts.fill(0);
    t.reg_arrival.fill(0);
    subcores[slot % subcores.size()].age[slot / subcores.size()] = age[slot];
}

// Whether the warp can issue this cycle; if not, why, and the cycle at which
// that reason ends (UINT64_MAX: when another warp or the memory system acts).
// Inlined into timing_cycle, its one caller, as when the SM was one file.
[[gnu::always_inline]] inline bool Sm::Impl::warp_ready(uint32_t slot, const SubCore &sc, Stall &why,
                                                         uint64_t &until) {
    const WarpTiming &t = timing_warps[slot];
    until = UINT64_MAX;
    if (held[slot]) {
        why = Stall::stall_long_scoreboard; // its access waits for the driver
        return false;
    }
    if (!warps[slot].runnable()) {
        why = Stall::stall_barrier;
        return false;
    }
    if (t.not_before > now) {
        why = t.not_before_reason;
        until = t.not_before;
        return false;
    }
    if (!peek(slot)) {
        why = Stall::stall_no_instruction;
        return false;
    }
    if (t.mem_refused && t.refused_epoch == memory_epoch) {
        why = Stall::stall_memory_throttle;
        return false;
    }
    for (uint8_t r : t.next.info.src) {
        if (r != timing::kNoReg && t.reg_ready[r] > now) {
            why = t.reg_reason[r];
            until = t.reg_ready[r];
            return false;
        }
    }
    if (t.next.info.dst != timing::kNoReg && t.reg_ready[t.next.info.dst] > now) {
        why = t.reg_reason[t.next.info.dst];
        until = t.reg_ready[t.next.info.dst];
        return false;
    }
    if (sc.unit_free[size_t(t.next.info.cls)] > now) {
        why = timing::is_memory(t.next.info.cls) ? Stall::stall_memory_throttle
                                                 : Stall::stall_math_pipe_throttle;
        until = sc.unit_free[size_t(t.next.info.cls)];
        return false;
    }
    return true;
}

namespace {
// The lowest half of a lane mask's lanes (at least one).
uint64_t lower_half(uint64_t mask) {
    uint64_t half = 0;
    for (int k = std::max(1, std::popcount(mask) / 2); k > 0; --k) {
        half |= mask & -mask;
        mask &= mask - 1;
    }
    return half;
}
} // namespace

// Hands the peeked memory instruction's lanes not taken yet to the memory
// system; true when it has taken all of them. A load refused while none of
// this SM's loads is in flight can never be taken whole (more lines than
// MSHRs or L1 ways): it goes in halves, the rest on later cycles.
bool Sm::Impl::issue_memory(uint32_t slot) {
    WarpTiming &t = timing_warps[slot];
    const timing::InsnInfo &info = t.next.info;
    const bool first_part = t.mem_left == 0;
    if (first_part)
        t.mem_left = t.next.group.mask;
    bool shared = false;
    access.sm = memory_sm;
    access.warp = slot;
    access.lane_bytes = info.lane_bytes;
    const uint64_t warp_local =
        (uint64_t(sm_id) * config.warps_per_sm + slot) * cur->desc.stack_bytes * W;
    each(t.mem_left, [&](uint32_t l) {
        uint64_t va = t.next.address[l];
        if ((va >> 32) == (SIMTGPU_SHARED_BASE >> 32)) {
            shared = true;
        } else if ((va >> 32) == (SIMTGPU_LOCAL_BASE >> 32)) {
            const uint64_t off = va - SIMTGPU_LOCAL_BASE;
            va = kLocalTimingBase + warp_local + (off & ~uint64_t(3)) * W + l * 4 + (off & 3);
        }
        access.address[l] = va;
    });
    switch (info.mem) {
    case timing::MemOp::load:
        access.kind = shared ? mem::AccessKind::shared_load : mem::AccessKind::load;
        break;
    case timing::MemOp::store:
        access.kind = shared ? mem::AccessKind::shared_store : mem::AccessKind::store;
        break;
    default:
        access.kind = shared ? mem::AccessKind::shared_load : mem::AccessKind::atomic;
        break;
    }
    const bool waits = info.mem != timing::MemOp::store && info.dst != timing::kNoReg;
    if (first_part && waits) {
        t.reg_parts[info.dst] = 0;
        t.reg_arrival[info.dst] = 0;
    }
    uint64_t part = t.mem_left;
    for (;;) {
        access.active_mask = part;
        const mem::IssueResult r = memory->issue(access, now);
        if (r.accepted) {
            if (r.token >= pending.size())
                pending.resize(size_t(r.token) + 1);
            // valid: an answer the scoreboard waits for (a store's is not).
            pending[r.token] = PendingLoad{slot, t.generation, info.dst, waits};
            if (waits)
                ++t.reg_parts[info.dst];
            loads_in_flight += access.kind == mem::AccessKind::load;
            t.mem_left &= ~part;
            break;
        }
        if (loads_in_flight || std::popcount(part) == 1)
            break; // wait for an MSHR
        part = lower_half(part);
    }
    if (shared)
        t.next.info.cls = timing::InsnClass::shared;
    return t.mem_left == 0;
}

// Issues the warp's peeked instruction: a memory one first to the memory
// system (refused: it retries next cycle, false), then it executes.
// Inlined into issue_cycle, its one caller, as when the SM was one file.
[[gnu::always_inline]] inline bool Sm::Impl::timing_issue(uint32_t slot, SubCore &sc) {
    WarpTiming &t = timing_warps[slot];
    cur = &launches[ctas[warps[slot].cta].launch];
    if (t.next.info.mem != timing::MemOp::none && !issue_memory(slot))
        return false;
    const timing::InsnInfo info = t.next.info;
    const timing::InsnClass cls = info.cls;
    const timing::Unit &unit = config.timing.unit(cls);
    sc.unit_free[size_t(cls)] = now + unit.ii;
    issued_at[slot] = now;
    t.peeked = false;
    t.mem_left = 0;
    const uint64_t nanosleep_cycles = execute_record(slot, t.next);
    // Memory destinations wait for memory_done(); the others for the unit.
    if (info.dst != timing::kNoReg) {
        if (info.mem != timing::MemOp::none) {
            if (t.reg_parts[info.dst])
                t.reg_ready[info.dst] = UINT64_MAX;
            t.reg_reason[info.dst] =
                cls == timing::InsnClass::global || cls == timing::InsnClass::atomic
                    ? Stall::stall_long_scoreboard
                    : Stall::stall_short_scoreboard;
        } else {
            t.reg_ready[info.dst] = now + unit.latency;
            t.reg_reason[info.dst] =
                cls == timing::InsnClass::sfu ? Stall::stall_short_scoreboard : Stall::stall_wait;
        }
    }
    if (cls == timing::InsnClass::branch || cls == timing::InsnClass::barrier) {
        // A sleeping warp counts as waiting at a barrier: it sleeps to wait for others.
        t.not_before = now + std::max<uint64_t>(unit.latency, nanosleep_cycles);
        t.not_before_reason =
            cls == timing::InsnClass::branch ? Stall::stall_no_instruction : Stall::stall_barrier;
    }
    return true;
}

// The one place where a resident warp's cycle is accounted: it issued, or it
// did not, for `why`. A per-cycle trace of issues and stalls hooks in here.
SIMT_INLINE void Sm::Impl::account_warp_cycle(uint32_t slot, bool issued, Stall why,
                                              uint64_t cycles) {
    if (!issued)
        stats.*kStallCounters[size_t(why)] += cycles;
    if (trace) // from now on; docs/trace.md
        trace->warp(slot,
                    issued               ? trace::WarpState::issue
                    : warps[slot].live() ? trace::stall_state(why)
                                         : trace::WarpState::done,
                    now);
}

// `cycles` in which no warp can issue (timing_cycle found none ready and
// nothing changes before sleep_until): each live warp keeps its reason.
void Sm::Impl::sleep(uint64_t cycles) {
    for (SubCore &sc : subcores)
        for (size_t i = 0; i < sc.slots.size(); ++i)
            if (sc.live[i])
                account_warp_cycle(sc.slots[i], false, sc.why[i], cycles);
    advance(cycles, resident_warps);
}

// One cycle: each sub-core's scheduler picks among its ready warps and
// issues at most one instruction.
void Sm::Impl::timing_cycle() {
    CycleState c;
    c.warps_resident = resident_warps;
    // Every scheduler sees its warps as they are at the start of the cycle.
    for (SubCore &sc : subcores) {
        sc.any_ready = false;
        for (size_t i = 0; i < sc.slots.size(); ++i) {
            const uint32_t slot = sc.slots[i];
            sc.live[i] = warps[slot].active;
            sc.ready[i] = 0;
            // An empty slot waits for ever: a two-level scheduler must not
            // keep it in its active set while live warps starve outside.
            sc.long_wait[i] = !sc.live[i];
            if (!sc.live[i])
                continue;
            ++c.active;
            Stall why = Stall::stall_not_selected;
            uint64_t until = 0;
            const bool ready_now = warp_ready(slot, sc, why, until);
            if (exception)
                return;
            if (stop_before) { // its code is in host memory: the cycle runs serially
                stop_before = false;
                stopped = true;
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
                c.blocked += warps[slot].runnable() == 0;
            }
        }
    }
    issue_cycle(c);
}

// Whether the warp's peeked instruction would change what other SMs see at
// once (a global atomic, an access to host memory, a store to decoded
// code): an isolated run stops before it (Sm::run_isolated).
bool Sm::Impl::must_run_serially(uint32_t slot) {
    const WarpTiming &t = timing_warps[slot];
    if (!isolated || t.next.info.mem == timing::MemOp::none || t.mem_left != 0)
        return false;
    cur = &launches[ctas[warps[slot].cta].launch];
    const Access access = t.next.info.mem == timing::MemOp::load    ? Access::Read
                          : t.next.info.mem == timing::MemOp::store ? Access::Write
                                                                    : Access::Atomic;
    return needs_serial(t.next.group.mask, t.next.address.data(), 0, t.next.info.lane_bytes,
                        access);
}

// The issue half of a cycle, from sub-core c.subcore on: each scheduler
// picks among its ready warps and issues at most one instruction. An
// isolated run that meets an instruction that must run serially keeps the
// cycle in resume_cycle, and run() finishes it from there.
void Sm::Impl::issue_cycle(CycleState c) {
    for (; c.subcore < subcores.size(); ++c.subcore, c.pick = -1) {
        SubCore &sc = subcores[c.subcore];
        int issued = -1;
        if (sc.any_ready) {
            const int pick = c.pick >= 0 ? c.pick
                                         : sc.scheduler->pick(sc.ready, sc.age, sc.last, sc.long_wait);
            if (pick >= 0 && warps[sc.slots[size_t(pick)]].active) {
                sc.last = pick;
                if (must_run_serially(sc.slots[size_t(pick)])) {
                    c.pick = pick;
                    resume_cycle = c;
                    stopped = true;
                    return;
                }
                WarpTiming &picked = timing_warps[sc.slots[size_t(pick)]];
                picked.mem_refused = !timing_issue(sc.slots[size_t(pick)], sc);
                picked.refused_epoch = memory_epoch;
                if (picked.mem_refused)
                    sc.why[size_t(pick)] = Stall::stall_memory_throttle;
                else
                    issued = pick;
                if (exception)
                    return;
            }
        }
        for (size_t i = 0; i < sc.slots.size(); ++i)
            if (sc.live[i])
                account_warp_cycle(sc.slots[i], int(i) == issued, sc.why[i], 1);
    }
    if (c.active && c.blocked == c.active) // every live thread waits: a deadlock?
        for (uint32_t cta = 0; cta < ctas.size() && !exception; ++cta)
            if (ctas[cta].active)
                check_deadlock(cta);
    advance(1, c.warps_resident);
    if (!c.any_ready && resident_warps == c.warps_resident)
        sleep_until = c.wake; // memory_done() wakes it earlier
}

} // namespace simtgpu::sim
