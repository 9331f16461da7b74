// Warps and CTAs on the SM: placing a CTA, its warps' first registers,
// finishing and dropping it; exceptions and warps held for a replayable fault.
#include "sm/sm_state.h"

namespace simtgpu::sim {

bool Sm::Impl::fits(uint32_t warps_per_cta, uint32_t shared_alloc) const
{
    return resident_ctas < config.ctas_per_sm &&
           resident_warps + warps_per_cta <= config.warps_per_sm &&
           shared_used + shared_alloc <= config.shared_bytes_per_sm;
}

uint32_t Sm::Impl::add_cta(uint32_t launch_slot, const Dim3 &ctaid)
{
    uint32_t cslot = 0;
    while (ctas[cslot].active) ++cslot;
    Cta &cta = ctas[cslot];
    LaunchContext &lc = launches[launch_slot];
    const LaunchDesc &launch = lc.desc;
    const uint32_t threads = launch.threads_per_cta();
    const uint32_t nwarps = lc.warps_per_cta;
    cta.active = true;
    cta.launch = launch_slot;
    cta.ctaid = ctaid;
    cta.live = threads;
    cta.slots = nwarps * W;
    cta.missing = cta.slots - threads;
    cta.bars.fill(Barrier{});
    cta.red_true = cta.red_arrivals = 0;
    cta.warps.clear();
    cta.shared.assign(launch.shared_bytes, 0);
    for (uint32_t k = 0, slot = 0; k < nwarps; ++k, ++slot) {
        while (warps[slot].active) ++slot;
        Warp &w = warps[slot];
        const uint32_t lanes = std::min(W, threads - k * W);
        w.active = true;
        w.cta = cslot;
        w.warp_in_cta = k;
        w.valid = lanes >= 64 ? ~uint64_t(0) : (uint64_t(1) << lanes) - 1;
        w.exited = w.blocked_bar = w.blocked_sync = w.resv_valid = 0;
        w.bar_lanes.fill(0);
        w.bar_red_lanes = 0;
        w.waiting_warp_sync = w.waiting_vote = w.waiting_shfl = 0;
        ready_at[slot] = now;
        recheck_slot(slot);
        w.partial_bursts = w.burst_instructions = 0;
        w.burst_global = false;
        w.yielded_to = 0;
        age[slot] = warps_launched++;
        issued_at[slot] = now;
        w.same_pc_lanes = w.stale_pc_lanes = full_mask;
        w.same_pc = launch.entry_pc;
        uninitialised.push_back(slot);
        cta.warps.push_back(slot);
        ++resident_warps;
    }
    ++resident_ctas;
    ++lc.resident_ctas;
    shared_used += lc.shared_alloc;
    if (trace)
        trace->cta_placed(cslot, ctaid, launch.entry_pc, now);
    return cslot;
}

// A placed warp's registers, zeroed and given its thread ids, parameters
// and stack pointer when the SM next runs rather than in add_cta: CTAs are
// placed between quanta on one thread, and the SMs run them on several.
void Sm::Impl::initialise_placed_warps()
{
    for (uint32_t slot : uninitialised) {
        Warp &w = warps[slot];
        if (!w.active)
            continue; // dropped before it ran
        const LaunchDesc &launch = launches[ctas[w.cta].launch].desc;
        // Runs of adjacent rows at once (a memset per row was most of it).
        auto zero_rows = [&](uint64_t rows, uint64_t *first_row) {
            while (rows) {
                const uint32_t r = uint32_t(std::countr_zero(rows));
                const uint32_t n = uint32_t(std::countr_one(rows >> r));
                std::fill_n(first_row + size_t(r) * W, size_t(n) * W, 0);
                rows &= n + r >= 64 ? 0 : ~uint64_t(0) << (n + r);
            }
        };
        zero_rows(w.dirty_x, X(w, 0));
        zero_rows(w.dirty_f, F(w, 0));
        w.dirty_x = uint64_t(1) << 2 | uint64_t(1) << 10; // sp and a0, below
        w.dirty_f = 0;
        std::fill(w.fflags.begin(), w.fflags.end(), 0);
        std::fill(w.frm.begin(), w.frm.end(), 0);
        const uint64_t sp = SIMTGPU_LOCAL_BASE + launch.stack_bytes;
        // The first lane's thread index by division, the others by counting
        // on from it (three divisions per lane were a tenth of a small
        // kernel's time).
        const uint32_t first = w.warp_in_cta * W;
        uint32_t tx = first % launch.block[0];
        uint32_t ty = first / launch.block[0] % launch.block[1];
        uint32_t tz = first / (launch.block[0] * launch.block[1]);
        for (uint32_t l = 0; l < W; ++l) {
            w.tid[3 * l] = tx;
            w.tid[3 * l + 1] = ty;
            w.tid[3 * l + 2] = tz;
            if (++tx == launch.block[0]) {
                tx = 0;
                if (++ty == launch.block[1]) {
                    ty = 0;
                    ++tz;
                }
            }
            X(w, 10)[l] = launch.param_va;
            X(w, 2)[l] = sp;
            w.local_zeroed[l] = 0;
        }
        w.local_zeroed_any = 0;
        w.local_rows.assign((size_t(launch.stack_bytes) + 8 * 64 - 1) / (8 * 64), 0);
    }
    uninitialised.clear();
}

void Sm::Impl::drop_cta(uint32_t cslot)
{
    Cta &cta = ctas[cslot];
    LaunchContext &lc = launches[cta.launch];
    if (trace)
        trace->cta_left(cslot, cta.warps, cta.live == 0);
    for (uint32_t slot : cta.warps) {
        warps[slot].active = false;
        release_hold(slot);
        recheck_slot(slot);
        if (int(slot) == resume_slot) resume_slot = -1;
    }
    resident_warps -= uint32_t(cta.warps.size());
    cta.active = false;
    --resident_ctas;
    --lc.resident_ctas;
    shared_used -= lc.shared_alloc;
}

void Sm::Impl::finish_cta(uint32_t cslot)
{
    LaunchContext &lc = launches[ctas[cslot].launch];
    ++lc.ctas_completed;
    ++lc.ctas_finished;
    drop_cta(cslot);
    ++ctas_completed;
    ++stats.ctas;
}

// ------------------------------------------------------------- exceptions

void Sm::Impl::raise(uint32_t kind, uint32_t slot, uint32_t lane, uint64_t pc, uint32_t detail,
                     uint64_t address, uint32_t access)
{
    if (exception) return;
    const Warp &w = warps[slot];
    Exception e;
    e.kind = kind;
    e.access = access;
    e.detail = detail;
    e.address = address;
    e.pc = pc;
    e.sm = sm_id;
    e.warp = slot;
    e.lane = lane;
    e.ctaid = ctas[w.cta].ctaid;
    e.tid = {w.tid[3 * lane], w.tid[3 * lane + 1], w.tid[3 * lane + 2]};
    exception = e;
    exception_launch = ctas[w.cta].launch;
}


// ---------------------------------------------------- replayable faults

void Sm::Impl::hold(uint32_t slot)
{
    Held h = *replay_hold;
    replay_hold.reset();
    h.cycle = now;
    const uint32_t launch = ctas[warps[slot].cta].launch;
    if (!held[slot]) {
        held[slot] = 1;
        ++held_warps;
    }
    held_fault[slot] = h;
    new_faults.push_back(HeldFault{launch, h.address, h.access, h.cycle});
    ready_at[slot] = UINT64_MAX; // the functional model: never, until replay()
    recheck_slot(slot);
}

void Sm::Impl::release_hold(uint32_t slot)
{
    if (!held[slot])
        return;
    held[slot] = 0;
    --held_warps;
}

} // namespace simtgpu::sim
