// The SIMT core: resident CTAs and warps of one SM, their execution of
// pre-decoded RV64GC + SIMT instructions, and the SM's cycle accounting.
//
// Execution is per convergent group: the reconvergence policy picks the
// lanes of a warp that share a PC, and that group runs on (a "burst") until a
// branch splits it, its PC reaches another group's, it blocks (barrier,
// warp.sync), it exits, it touches global memory (the warp then waits
// mem_latency cycles) or its time slice ends. Inside a burst the group has
// one PC; per-lane PCs are written back when the burst ends (a converged
// warp keeps its one PC: Warp::stale_pc_lanes). Registers are
// structure-of-arrays (register r of every lane side by side), so each
// instruction is a short loop over lanes.
//
// This file: the Sm facade, the SM's construction and the functional
// model's scheduling loop; sm_state.h lists the other parts.
#include "simtgpu/occupancy.h"
#include "sm/sm_state.h"

namespace simtgpu::sim {

Sm::Impl::Impl(const DeviceConfig &cfg, uint32_t id)
    : config(cfg), sm_id(id), W(cfg.warp_size),
      full_mask(cfg.warp_size >= 64 ? ~uint64_t(0) : (uint64_t(1) << cfg.warp_size) - 1),
      reconvergence(make_reconvergence_policy(cfg.reconvergence)),
      scheduler(make_warp_scheduler(cfg.warp_scheduler))
{
    simd_fp = W % 8 == 0 && fp::lanes::available();
    warps.resize(cfg.warps_per_sm);
    for (Warp &w : warps) {
        w.pc.resize(W);
        w.x.resize(size_t(kIntRegs) * W);
        w.f.resize(size_t(32) * W);
        w.fflags.resize(W);
        w.frm.resize(W);
        w.tid.resize(size_t(3) * W);
        w.sync_mask.resize(W);
        w.sync_value.resize(W);
        w.sync_funct.resize(W);
        w.sync_src.resize(W);
        w.sync_rs1.resize(W);
        w.sync_rd.resize(W);
        w.bar_kind.resize(W);
        w.bar_rd.resize(W);
        w.resv_addr.resize(W);
        w.resv_value.resize(W);
        w.local_zeroed.resize(W);
    }
    ctas.resize(cfg.ctas_per_sm);
    launches.resize(cfg.ctas_per_sm);
    ready_at.resize(cfg.warps_per_sm);
    held.resize(cfg.warps_per_sm);
    held_fault.resize(cfg.warps_per_sm);
    can_issue.resize((cfg.warps_per_sm + 63) / 64);
    recheck.resize(can_issue.size());
    ready.resize(can_issue.size());
    waiting.resize(can_issue.size());
    age.resize(cfg.warps_per_sm);
    issued_at.resize(cfg.warps_per_sm);
    if (cfg.model == Model::timing)
        pipeline = std::make_unique<timing::SmPipeline<TimingPort>>(TimingPort{this}, config, sm_id);
}

void Sm::Impl::advance(uint64_t cycles, uint32_t warps_resident)
{
    now += cycles;
    if (warps_resident) {
        stats.sm_busy_cycles += cycles;
        stats.resident_warp_cycles += cycles * warps_resident;
    }
    if (trace)
        trace->flush(now);
}

// Functional mode: what each warp does from now until the next pick, at
// the granularity of bursts (docs/trace.md).
void Sm::Impl::trace_pick(int picked) {
    for (uint32_t s = 0; s < warps.size(); ++s) {
        const Warp &w = warps[s];
        if (!w.active)
            continue;
        trace::WarpState state = trace::stall_state(Stall::stall_not_selected);
        if (int(s) == picked)
            state = trace::WarpState::issue;
        else if (!w.live())
            state = trace::WarpState::done;
        else if (!w.runnable())
            state = trace::stall_state(Stall::stall_barrier);
        else if (ready_at[s] > now)
            state = trace::WarpState::wait_mem_latency;
        trace->warp(s, state, now);
    }
}

SmRunResult Sm::Impl::run(uint64_t cycles)
{
    initialise_placed_warps();
    if (pipeline) {
        ctas_completed = 0;
        stopped = false;
        pipeline->run(now + cycles);
        return SmRunResult{ctas_completed, exception, exception_launch};
    }
    ctas_completed = 0;
    stopped = false;
    const uint64_t end = now + cycles;
    if (resume_slot >= 0 && resident_ctas && !exception && now < end) {
        // The burst an isolated run stopped, from the instruction it stopped
        // before: the same warp, group and budget, as if it had not stopped.
        const uint32_t slot = uint32_t(resume_slot);
        resume_slot = -1;
        const uint32_t warps_resident = resident_warps;
        const uint32_t issued = burst_group(
            slot, resume_group, uint32_t(std::min<uint64_t>(resume_budget, end - now)));
        recheck_slot(slot);
        advance(issued, warps_resident);
    }
    while (now < end && resident_ctas && !exception && !stopped) {
        for (size_t k = 0; k < can_issue.size(); ++k) {
            for (uint64_t m = recheck[k]; m; m &= m - 1) {
                const uint32_t s = uint32_t(k * 64) + uint32_t(std::countr_zero(m));
                const Warp &w = warps[s];
                if (w.active && w.runnable()) {
                    can_issue[k] |= m & -m;
                    if (ready_at[s] > now) {
                        waiting[k] |= m & -m;
                        if (ready_at[s] != UINT64_MAX) wake_at(ready_at[s], s);
                    } else {
                        waiting[k] &= ~(m & -m);
                    }
                } else {
                    can_issue[k] &= ~(m & -m);
                    waiting[k] &= ~(m & -m);
                }
            }
            recheck[k] = 0;
        }
        const uint64_t next_ready = wake_due();
        for (size_t k = 0; k < can_issue.size(); ++k)
            ready[k] = can_issue[k] & ~waiting[k];
        const int slot = scheduler->pick_bits(ready, uint32_t(warps.size()), age, last_issued);
        if (trace)
            trace_pick(slot);
        if (slot < 0) {
            if (next_ready == UINT64_MAX) { // every live thread blocked
                // ... unless some wait for a replay: the driver's turn then
                for (uint32_t c = 0; c < ctas.size() && !exception && !held_warps; ++c)
                    if (ctas[c].active) check_deadlock(c);
                break;
            }
            advance(std::min(next_ready, end) - now, resident_warps);
            continue;
        }
        last_issued = slot;
        issued_at[size_t(slot)] = now;
        // The cycles of a burst in which the last CTA exits are still busy ones.
        const uint32_t warps_resident = resident_warps;
        const uint32_t issued =
            burst(uint32_t(slot), uint32_t(std::min<uint64_t>(kSliceInstructions, end - now)));
        recheck_slot(uint32_t(slot));
        advance(issued, warps_resident);
    }
    SmRunResult r;
    r.ctas_completed = ctas_completed;
    r.exception = exception;
    r.exception_launch = exception_launch;
    return r;
}

// ------------------------------------------------------------ Sm

Sm::Sm(const DeviceConfig &config, uint32_t sm_id) : impl_(std::make_unique<Impl>(config, sm_id)) {}
Sm::~Sm() = default;

std::optional<uint32_t> Sm::attach(const LaunchDesc &launch, GlobalMemory &memory,
                                   uint64_t device_cycle)
{
    Impl &s = *impl_;
    auto free = std::find_if(s.launches.begin(), s.launches.end(),
                             [](const LaunchContext &lc) { return !lc.attached; });
    if (free == s.launches.end()) return std::nullopt;
    if (s.resident_ctas == 0) {
        s.now = device_cycle;
        s.last_issued = -1;
        if (s.pipeline)
            s.pipeline->start_own_memory_if_alone(); // its clock starts again
    }
    const simtgpu_sm_resources r{s.config.warps_per_sm, s.config.warp_size, s.config.ctas_per_sm,
                                 s.config.shared_bytes_per_sm};
    LaunchContext &lc = *free;
    lc.attached = true;
    lc.desc = launch;
    lc.memory = &memory;
    lc.warps_per_cta = simtgpu_warps_per_cta(&r, launch.threads_per_cta());
    lc.shared_alloc = simtgpu_shared_alloc_bytes(launch.shared_bytes);
    lc.resident_ctas = lc.ctas_completed = 0;
    lc.ctas_finished = lc.thread_instructions = 0;
    lc.exits = ExitRecord{};
    // Chunks of at least 64 bytes, at most 64 of them per window.
    lc.local_chunk_shift = 6;
    while ((uint64_t(launch.stack_bytes) >> lc.local_chunk_shift) >= 64)
        ++lc.local_chunk_shift;
    for (TlbEntry &e : lc.tlb) e = TlbEntry{};
    lc.clear_code();
    return uint32_t(free - s.launches.begin());
}

void Sm::detach(uint32_t launch)
{
    LaunchContext &lc = impl_->launches[launch];
    lc.attached = false;
    lc.clear_code();
}

bool Sm::can_accept_cta(const LaunchDesc &launch) const
{
    const Impl &s = *impl_;
    const simtgpu_sm_resources r{s.config.warps_per_sm, s.config.warp_size, s.config.ctas_per_sm,
                                 s.config.shared_bytes_per_sm};
    return s.fits(simtgpu_warps_per_cta(&r, launch.threads_per_cta()),
                  simtgpu_shared_alloc_bytes(launch.shared_bytes));
}

bool Sm::can_accept_cta(uint32_t launch) const
{
    const LaunchContext &lc = impl_->launches[launch];
    return impl_->fits(lc.warps_per_cta, lc.shared_alloc);
}

void Sm::add_cta(uint32_t launch, const Dim3 &ctaid)
{
    const uint32_t cta = impl_->add_cta(launch, ctaid);
    if (impl_->pipeline)
        for (uint32_t slot : impl_->ctas[cta].warps)
            impl_->pipeline->warp_placed(slot, impl_->age[slot]);
}
SmRunResult Sm::run(uint64_t cycles) { return impl_->run(cycles); }
SmRunResult Sm::run_isolated(uint64_t cycles) { return impl_->run_isolated(cycles); }
bool Sm::stopped() const { return impl_->stopped; }
void Sm::commit() { impl_->commit(); }

void Sm::use_memory_system(mem::MemorySystem &memory)
{
    if (impl_->pipeline)
        impl_->pipeline->use_memory_system(memory, impl_->sm_id);
}

void Sm::catch_up(uint64_t cycle) {
    impl_->now = std::max(impl_->now, cycle);
}

std::vector<HeldFault> Sm::take_faults() { return std::exchange(impl_->new_faults, {}); }

uint32_t Sm::held_warps(uint32_t launch) const
{
    const Impl &s = *impl_;
    uint32_t n = 0;
    for (uint32_t slot = 0; slot < s.warps.size(); ++slot)
        n += s.held[slot] && s.warps[slot].active && s.ctas[s.warps[slot].cta].launch == launch;
    return n;
}

bool Sm::waits_for_replay() const
{
    const Impl &s = *impl_;
    if (!s.held_warps || s.exception)
        return false;
    for (uint32_t slot = 0; slot < s.warps.size(); ++slot)
        if (s.warps[slot].active && !s.held[slot] && s.warps[slot].runnable())
            return false;
    return true;
}

void Sm::replay(uint64_t service_cycles, const std::function<bool(uint32_t launch)> &cancel)
{
    Impl &s = *impl_;
    for (uint32_t slot = 0; slot < s.warps.size() && s.held_warps; ++slot) {
        if (!s.held[slot])
            continue;
        s.release_hold(slot);
        const Warp &w = s.warps[slot];
        const Impl::Held &h = s.held_fault[slot];
        if (cancel(s.ctas[w.cta].launch)) {
            s.raise(SIMTGPU_EXC_PAGE_FAULT, slot, h.lane, h.pc, SIMTGPU_FAULT_NOT_PRESENT,
                    h.address, h.access);
            continue;
        }
        const uint64_t resume = std::max(s.now, h.cycle + service_cycles);
        s.ready_at[slot] = resume;
        s.recheck_slot(slot);
        if (s.pipeline)
            s.pipeline->warp_resumed(slot, resume);
    }
    if (s.pipeline)
        s.pipeline->look_again();
}

void Sm::invalidate_tlb()
{
    for (LaunchContext &lc : impl_->launches)
        for (TlbEntry &e : lc.tlb)
            e = TlbEntry{};
}

void Sm::memory_done(const mem::Completion &completion)
{
    if (impl_->pipeline)
        impl_->pipeline->memory_done(completion);
}

uint32_t Sm::take_ctas_completed(uint32_t launch)
{
    return std::exchange(impl_->launches[launch].ctas_completed, 0);
}

bool Sm::idle() const { return impl_->resident_ctas == 0; }
uint32_t Sm::resident_warps() const { return impl_->resident_warps; }
uint32_t Sm::resident_ctas(uint32_t launch) const { return impl_->launches[launch].resident_ctas; }

void Sm::abort(uint32_t launch)
{
    Impl &s = *impl_;
    for (uint32_t c = 0; c < s.ctas.size(); ++c)
        if (s.ctas[c].active && s.ctas[c].launch == launch) s.drop_cta(c);
    if (s.trace)
        s.trace->flush(s.now);
    if (s.exception && s.exception_launch == launch) s.exception.reset();
}

void Sm::abort()
{
    Impl &s = *impl_;
    for (uint32_t c = 0; c < s.ctas.size(); ++c)
        if (s.ctas[c].active && s.trace)
            s.trace->cta_left(c, s.ctas[c].warps, false);
    if (s.trace)
        s.trace->flush(s.now);
    for (Cta &c : s.ctas) c.active = false;
    for (Warp &w : s.warps) w.active = false;
    std::fill(s.held.begin(), s.held.end(), 0);
    s.held_warps = 0;
    s.new_faults.clear();
    s.resume_slot = -1;
    std::fill(s.can_issue.begin(), s.can_issue.end(), 0);
    std::fill(s.waiting.begin(), s.waiting.end(), 0);
    s.wakes.clear();
    for (LaunchContext &lc : s.launches) {
        lc.attached = false;
        lc.resident_ctas = 0;
        lc.clear_code();
    }
    s.resident_ctas = s.resident_warps = s.shared_used = 0;
    s.exception.reset();
    // The device clock and memory system start again (GridScheduler::reset):
    // the SM's clock, its sub-cores' units and the loads it waited for go
    // with them, or its warps would wait for cycles and answers of before.
    s.now = 0;
    std::fill(s.issued_at.begin(), s.issued_at.end(), 0);
    if (s.pipeline)
        s.pipeline->reset();
}

uint64_t Sm::clock() const { return impl_->now; }

uint64_t Sm::state_fingerprint(uint32_t launch) const {
    const Impl &s = *impl_;
    uint64_t h = 1469598103934665603ull;
    auto mix = [&h](uint64_t v) { h = (h ^ v) * 1099511628211ull; };
    mix(s.launches[launch].ctas_finished);
    for (const Cta &cta : s.ctas) {
        if (!cta.active || cta.launch != launch)
            continue;
        mix(uint64_t(cta.ctaid[0]) | uint64_t(cta.ctaid[1]) << 21 | uint64_t(cta.ctaid[2]) << 42);
        for (const Barrier &bar : cta.bars)
            mix(bar.arrived);
        // Eight bytes at a time: byte by byte was a percent of short kernels.
        const size_t words = cta.shared.size() / 8;
        for (size_t k = 0; k < words; ++k) {
            uint64_t word;
            std::memcpy(&word, cta.shared.data() + 8 * k, 8);
            mix(word);
        }
        for (size_t k = 8 * words; k < cta.shared.size(); ++k)
            mix(cta.shared[k]);
    }
    for (const Warp &w : s.warps) {
        if (!w.active || s.ctas[w.cta].launch != launch)
            continue;
        mix(w.exited);
        mix(w.blocked_bar);
        mix(w.blocked_sync);
        for (uint64_t m = w.live(); m; m &= m - 1) {
            const uint32_t l = uint32_t(std::countr_zero(m));
            for (uint32_t r = 1; r < kRegSink; ++r)
                mix(w.x[size_t(r) * s.W + l]);
            for (uint32_t r = 0; r < 32; ++r)
                mix(w.f[size_t(r) * s.W + l]);
        }
    }
    return h;
}

// Names the first lane of the warp that could issue but has not for
// `starved_cycles`: the one the scheduler keeps from running.
std::optional<Exception> Sm::starved_warp(uint32_t launch, uint64_t starved_cycles) const {
    const Impl &s = *impl_;
    for (uint32_t slot = 0; slot < s.warps.size(); ++slot) {
        const Warp &w = s.warps[slot];
        const uint64_t lanes = w.active && s.ctas[w.cta].launch == launch ? w.runnable() : 0;
        if (!lanes || s.ready_at[slot] > s.now || s.now - s.issued_at[slot] < starved_cycles)
            continue;
        const uint32_t l = uint32_t(std::countr_zero(lanes));
        Exception e;
        e.kind = SIMTGPU_EXC_DEADLOCK;
        e.detail = SIMTGPU_DEADLOCK_NO_PROGRESS;
        e.sm = s.sm_id;
        e.pc = w.pc_of(l);
        e.warp = slot;
        e.lane = l;
        e.ctaid = s.ctas[w.cta].ctaid;
        e.tid = {w.tid[3 * l], w.tid[3 * l + 1], w.tid[3 * l + 2]};
        return e;
    }
    return std::nullopt;
}

const ExitRecord &Sm::exit_record(uint32_t launch) const { return impl_->launches[launch].exits; }
uint64_t Sm::thread_instructions(uint32_t launch) const
{
    return impl_->launches[launch].thread_instructions;
}
const SmStats &Sm::stats() const { return impl_->stats; }
void Sm::reset_stats() { impl_->stats = SmStats{}; }

void Sm::trace_to(trace::TraceWriter *writer) {
    Impl &s = *impl_;
    s.trace = writer ? std::make_unique<trace::SmTrace>(*writer, s.sm_id, s.config.warps_per_sm,
                                                        s.config.ctas_per_sm)
                     : nullptr;
}

} // namespace simtgpu::sim
