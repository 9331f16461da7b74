#include "device/dispatcher.h"

#include "core/livelock.h"

#include <algorithm>

namespace simtgpu::sim {
namespace {

Dim3 cta_coordinates(const LaunchDesc &launch, uint64_t linear) {
    const uint64_t x = launch.grid[0], y = launch.grid[1];
    return {uint32_t(linear % x), uint32_t(linear / x % y), uint32_t(linear / (x * y))};
}

uint64_t linear_cta(const LaunchDesc &launch, const Dim3 &c) {
    return (uint64_t(c[2]) * launch.grid[1] + c[1]) * launch.grid[0] + c[0];
}

uint64_t linear_tid(const LaunchDesc &launch, const Dim3 &t) {
    return (uint64_t(t[2]) * launch.block[1] + t[1]) * launch.block[0] + t[0];
}

// "First" non-zero exit across SMs: the lowest CTA, then the lowest thread,
// so the answer does not depend on how CTAs were spread over SMs.
void merge_exits(const LaunchDesc &launch, ExitRecord &into, const ExitRecord &from) {
    if (from.nonzero_exits == 0)
        return;
    const bool earlier =
        into.nonzero_exits == 0 ||
        std::pair(linear_cta(launch, from.ctaid), linear_tid(launch, from.tid)) <
            std::pair(linear_cta(launch, into.ctaid), linear_tid(launch, into.tid));
    const uint32_t total = into.nonzero_exits + from.nonzero_exits;
    if (earlier)
        into = from;
    into.nonzero_exits = total;
}

void add(SmStats &into, const SmStats &s) {
    into.busy_cycles += s.busy_cycles;
    into.thread_instructions += s.thread_instructions;
    into.warp_instructions += s.warp_instructions;
    into.mem_reads += s.mem_reads;
    into.mem_writes += s.mem_writes;
    into.tlb_hits += s.tlb_hits;
    into.tlb_misses += s.tlb_misses;
    into.divergent_branches += s.divergent_branches;
    into.barrier_waits += s.barrier_waits;
    into.resident_warp_cycles += s.resident_warp_cycles;
    into.ctas += s.ctas;
}

} // namespace

Dispatcher::Dispatcher(const DeviceConfig &config)
    : livelock_cycles_(config.livelock_cycles), ctas_completed_(config.num_sms, 0) {
    for (uint32_t i = 0; i < config.num_sms; ++i)
        sms_.push_back(std::make_unique<Sm>(config, i));
}

LaunchOutcome Dispatcher::run(const LaunchDesc &launch, GlobalMemory &memory,
                              uint64_t device_cycle, const ProgressHook &progress) {
    LaunchOutcome out;
    out.ctas_per_sm.assign(sms_.size(), 0);
    out.peak_resident_ctas.assign(sms_.size(), 0);
    std::vector<uint32_t> resident(sms_.size(), 0);

    const uint64_t instructions_before = total_stats().thread_instructions;
    for (auto &sm : sms_)
        sm->begin_launch(launch, memory, device_cycle);

    const uint64_t total_ctas = launch.ctas();
    uint64_t next_cta = 0;
    LivelockWatchdog watchdog(livelock_cycles_);
    for (;;) {
        // Breadth first: one CTA per SM per pass, so a small grid spreads
        // over all SMs instead of piling onto SM 0.
        for (bool placed = true; placed && next_cta < total_ctas;) {
            placed = false;
            for (size_t i = 0; i < sms_.size() && next_cta < total_ctas; ++i) {
                if (!sms_[i]->can_accept_cta())
                    continue;
                sms_[i]->add_cta(cta_coordinates(launch, next_cta++));
                ++out.ctas_per_sm[i];
                out.peak_resident_ctas[i] = std::max(out.peak_resident_ctas[i], ++resident[i]);
                placed = true;
            }
        }
        if (next_cta == total_ctas &&
            std::all_of(sms_.begin(), sms_.end(), [](auto &sm) { return sm->idle(); }))
            break;

        uint64_t quantum_cycles = 0;
        uint32_t quantum_ctas = 0;
        for (size_t i = 0; i < sms_.size() && !out.exception; ++i) {
            Sm &sm = *sms_[i];
            if (sm.idle())
                continue;
            const uint64_t before = sm.clock();
            const SmRunResult r = sm.run(kQuantum);
            quantum_cycles = std::max(quantum_cycles, sm.clock() - before);
            resident[i] -= r.ctas_completed;
            ctas_completed_[i] += r.ctas_completed;
            quantum_ctas += r.ctas_completed;
            if (r.exception)
                out.exception = r.exception;
        }
        out.cycles += quantum_cycles;
        out.ctas_completed += quantum_ctas;
        if (!out.exception)
            out.exception = watchdog.check(out.cycles, sms_);
        const bool keep_going = progress(quantum_cycles, quantum_ctas);
        if (out.exception || !keep_going) {
            out.cancelled = !keep_going;
            for (auto &sm : sms_)
                sm->abort();
            break;
        }
    }

    for (auto &sm : sms_)
        merge_exits(launch, out.exits, sm->exit_record());
    out.thread_instructions = total_stats().thread_instructions - instructions_before;
    return out;
}

SmStats Dispatcher::total_stats() const {
    SmStats total;
    for (auto &sm : sms_)
        add(total, sm->stats());
    return total;
}

void Dispatcher::reset() {
    for (auto &sm : sms_) {
        sm->abort();
        sm->reset_stats();
    }
    std::fill(ctas_completed_.begin(), ctas_completed_.end(), 0);
}

} // namespace simtgpu::sim
