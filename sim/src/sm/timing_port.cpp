// The functional side of the seam with the timing model (timing/sm_pipeline.h):
// the SM as the pipeline sees it (TimingPort), the records of the
// instructions it issues, and the pipeline instantiated for this SM. One
// file, so that the pipeline's hot path inlines the port's one-line views.
#include "sm/group_choice.h"
#include "sm/sm_state.h"
#include "timing/sm_pipeline_impl.h"

namespace simtgpu::sim {

SIMT_INLINE bool Sm::Impl::next_record(uint32_t slot, timing::InsnRecord &record) {
    static_assert(timing::FunctionalSm<TimingPort>, "the port is what the pipeline sees");
    Warp &w = warps[slot];
    cur = &launches[ctas[w.cta].launch];
    record.group = choose_group(w);
    fault_slot = slot;
    fault_pc = record.group.pc;
    CodePage *page = nullptr;
    uint64_t page_vpn = UINT64_MAX;
    const Insn *in =
        fetch(slot, uint32_t(std::countr_zero(record.group.mask)), record.group.pc, page, page_vpn);
    if (!in)
        return false;
    record.insn = *in;
    record.info = timing::describe(*in);
    if (record.info.mem != MemOp::none) {
        const uint64_t *base = X(w, in->rs1);
        const int64_t imm = record.info.mem == MemOp::atomic ? 0 : in->imm; // AMOs: (rs1)
        each(record.group.mask, [&](uint32_t l) { record.address[l] = base[l] + uint64_t(imm); });
    }
    return true;
}

SIMT_INLINE uint64_t Sm::Impl::execute_record(uint32_t slot, const timing::InsnRecord &record) {
    const timing::InsnClass cls = record.info.cls;
    cur = &launches[ctas[warps[slot].cta].launch];
    issued_at[slot] = now;
    warps[slot].burst_global = cls == timing::InsnClass::global || cls == timing::InsnClass::atomic;
    burst_group(slot, record.group, 1);
    return sleep_cycles;
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

SIMT_INLINE uint64_t Sm::Impl::TimingPort::clock() const {
    return sm->now;
}
SIMT_INLINE void Sm::Impl::TimingPort::advance(uint64_t cycles, uint32_t warps_resident) {
    sm->advance(cycles, warps_resident);
}
SIMT_INLINE uint32_t Sm::Impl::TimingPort::resident_warps() const {
    return sm->resident_warps;
}
SIMT_INLINE uint32_t Sm::Impl::TimingPort::resident_ctas() const {
    return sm->resident_ctas;
}

SIMT_INLINE timing::SlotState Sm::Impl::TimingPort::slot_state(uint32_t slot) const {
    const Warp &w = sm->warps[slot];
    return timing::SlotState{w.active, sm->held[slot] != 0, w.runnable(), w.live()};
}

SIMT_INLINE bool Sm::Impl::TimingPort::next_record(uint32_t slot, timing::InsnRecord &record) {
    return sm->next_record(slot, record);
}
SIMT_INLINE uint64_t Sm::Impl::TimingPort::execute_record(uint32_t slot,
                                                          const timing::InsnRecord &record) {
    return sm->execute_record(slot, record);
}

SIMT_INLINE bool Sm::Impl::TimingPort::must_run_serially(uint32_t slot,
                                                         const timing::InsnRecord &record) {
    if (!sm->isolated)
        return false;
    sm->cur = &sm->launches[sm->ctas[sm->warps[slot].cta].launch];
    const Access access = record.info.mem == MemOp::load    ? Access::Read
                          : record.info.mem == MemOp::store ? Access::Write
                                                            : Access::Atomic;
    return sm->needs_serial(record.group.mask, record.address.data(), 0, record.info.lane_bytes,
                            access);
}

SIMT_INLINE uint64_t Sm::Impl::TimingPort::stack_bytes(uint32_t slot) const {
    return sm->launches[sm->ctas[sm->warps[slot].cta].launch].desc.stack_bytes;
}

SIMT_INLINE bool Sm::Impl::TimingPort::exception_raised() const {
    return sm->exception.has_value();
}
SIMT_INLINE bool Sm::Impl::TimingPort::stopped() const {
    return sm->stopped;
}
SIMT_INLINE void Sm::Impl::TimingPort::stop() {
    sm->stopped = true;
}
SIMT_INLINE bool Sm::Impl::TimingPort::take_stop_request() {
    return std::exchange(sm->stop_before, false);
}

SIMT_INLINE void Sm::Impl::TimingPort::account_warp_cycle(uint32_t slot, bool issued, Stall why,
                                                          uint64_t cycles) {
    sm->account_warp_cycle(slot, issued, why, cycles);
}

SIMT_INLINE void Sm::Impl::TimingPort::check_deadlocks() {
    for (uint32_t cta = 0; cta < sm->ctas.size() && !sm->exception; ++cta)
        if (sm->ctas[cta].active)
            sm->check_deadlock(cta);
}

} // namespace simtgpu::sim

template class simtgpu::sim::timing::SmPipeline<simtgpu::sim::Sm::Impl::TimingPort>;
