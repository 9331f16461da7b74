#include "trace/sm_trace.h"

#include <cstdio>
#include <iterator>
#include <string>

namespace simtgpu::sim::trace {

const char *warp_state_name(WarpState state) {
    static constexpr const char *kStalls[] = {
#define SIMTGPU_X(name, unit, nsight, what) #name,
        SIMTGPU_SM_STALLS(SIMTGPU_X)
#undef SIMTGPU_X
    };
    switch (state) {
    case WarpState::none:
        return "none";
    case WarpState::issue:
        return "issue";
    case WarpState::done:
        return "done";
    case WarpState::wait_mem_latency:
        return "wait_mem_latency";
    default:
        break;
    }
    const size_t stall = size_t(state) - size_t(WarpState::stall_first);
    return stall < std::size(kStalls) ? kStalls[stall] : "unknown";
}

SmTrace::SmTrace(TraceWriter &writer, uint32_t sm, uint32_t warp_slots, uint32_t cta_slots)
    : writer_(writer), pid_(kSmPid + sm), warps_(warp_slots), ctas_(cta_slots) {
    writer_.name_process(pid_, "SM " + std::to_string(sm), int(pid_));
}

void SmTrace::change(uint32_t slot, WarpState state, uint64_t now) {
    Open &o = warps_[slot];
    if (!o.named && state != WarpState::none) {
        o.named = true;
        writer_.name_thread(pid_, slot, "warp " + std::to_string(slot), int(kCtaTid + slot));
    }
    if (o.state != WarpState::none && now > o.since)
        writer_.slice(pid_, slot, warp_state_name(o.state), o.since, now);
    o.state = state;
    o.since = now;
}

void SmTrace::cta_placed(uint32_t cta_slot, const Dim3 &ctaid, uint64_t entry_pc, uint64_t now) {
    flush(now); // a slot freed in the cycles just accounted is written first
    CtaOpen &c = ctas_[cta_slot];
    if (!c.named) {
        c.named = true;
        writer_.name_thread(pid_, kCtaTid + cta_slot, "CTA slot " + std::to_string(cta_slot),
                            int(cta_slot));
    }
    c.open = true;
    c.leaving = c.completed = false;
    c.since = now;
    c.name = "CTA (" + std::to_string(ctaid[0]) + "," + std::to_string(ctaid[1]) + "," +
             std::to_string(ctaid[2]) + ")";
    char pc[32];
    std::snprintf(pc, sizeof pc, "\"0x%llx\"", static_cast<unsigned long long>(entry_pc));
    c.args = std::string("{\"entry_pc\":") + pc + ",\"ctaid\":[" + std::to_string(ctaid[0]) + "," +
             std::to_string(ctaid[1]) + "," + std::to_string(ctaid[2]) + "]";
}

void SmTrace::cta_left(uint32_t cta_slot, std::span<const uint32_t> warp_slots, bool completed) {
    CtaOpen &c = ctas_[cta_slot];
    c.leaving = true;
    c.completed = completed;
    pending_ = true;
    leaving_warps_.insert(leaving_warps_.end(), warp_slots.begin(), warp_slots.end());
}

void SmTrace::flush(uint64_t now) {
    if (!pending_)
        return;
    pending_ = false;
    for (const uint32_t slot : leaving_warps_)
        change(slot, WarpState::none, now);
    leaving_warps_.clear();
    for (uint32_t k = 0; k < ctas_.size(); ++k) {
        CtaOpen &c = ctas_[k];
        if (!c.open || !c.leaving)
            continue;
        c.open = false;
        writer_.slice(pid_, kCtaTid + k, c.name, c.since, now,
                      c.args + ",\"completed\":" + (c.completed ? "true" : "false") + "}");
    }
}

} // namespace simtgpu::sim::trace
