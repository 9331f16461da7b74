// SIMT control: exits, CTA barriers, warp-level collectives (vote, match,
// redux, shuffle, warp.sync) and the deadlock check.
#include "sm/sm_state.h"

namespace simtgpu::sim {

void Sm::Impl::exit_lanes(uint32_t slot, uint64_t mask)
{
    Warp &w = warps[slot];
    Cta &cta = ctas[w.cta];
    for (uint64_t m = mask; m; m &= m - 1) {
        const uint32_t l = uint32_t(std::countr_zero(m));
        const uint32_t status = uint32_t(X(w, 10)[l]);
        if (status == 0) continue;
        ExitRecord &exits = cur->exits;
        if (exits.nonzero_exits++ == 0) {
            exits.status = status;
            exits.ctaid = cta.ctaid;
            exits.tid = {w.tid[3 * l], w.tid[3 * l + 1], w.tid[3 * l + 2]};
        }
    }
    w.exited |= mask;
    cta.live -= uint32_t(std::popcount(mask));
    if (cta.live == 0) {
        finish_cta(w.cta);
        return;
    }
    for (uint32_t id = 0; id < SIMTGPU_BARRIERS; ++id)
        if (barrier_complete(cta, id)) release_barrier(cta, id);
    try_release_warp_sync(w);
    check_deadlock(w.cta);
}

// bar.sync, bar.popc/and/or and bar.arrive: each lane counts towards the
// barrier its rs1 names (bar.red and simt_1: barrier 0, all threads); every
// instruction but bar.arrive then blocks the lane until that barrier
// completes. Bad operands are SIMTGPU_EXC_BAD_BARRIER.
void Sm::Impl::arrive_barrier(uint32_t slot, const Insn &in, uint64_t mask)
{
    Warp &w = warps[slot];
    Cta &cta = ctas[w.cta];
    const uint64_t *src = X(w, in.rs1), *counts = X(w, in.rs2);
    const bool named = (in.funct == SIMTGPU_BAR_SYNC || in.funct == SIMTGPU_BAR_ARRIVE) &&
                       config.arch >= SIMTGPU_ARCH_SIMT2;
    const bool waits = in.funct != SIMTGPU_BAR_ARRIVE;
    const bool partial_warp = cta.missing && w.warp_in_cta + 1 == cta.warps.size();
    uint32_t touched = 0; // barriers that got arrivals
    // __syncthreads (barrier 0, every thread, operands x0): the whole warp at once.
    if (in.funct == SIMTGPU_BAR_SYNC && (!named || (in.rs1 == 0 && in.rs2 == 0)) &&
        !(cta.bars[0].arrived && cta.bars[0].count != 0)) {
        Barrier &bar = cta.bars[0];
        const uint32_t lanes = uint32_t(std::popcount(mask));
        bar.count = 0;
        bar.arrived += lanes;
        bar.waiting += lanes;
        bar.partial |= partial_warp;
        w.blocked_bar |= mask;
        w.bar_lanes[0] |= mask;
        touched = 1;
    }
    for (uint64_t m = touched ? 0 : mask; m; m &= m - 1) {
        const uint32_t l = uint32_t(std::countr_zero(m));
        const uint64_t id = named ? src[l] : 0, count = named ? counts[l] : 0;
        uint32_t error = 0;
        uint64_t value = 0;
        if (id >= SIMTGPU_BARRIERS) {
            error = SIMTGPU_BARRIER_ERR_ID, value = id;
        } else if (count % W) {
            error = SIMTGPU_BARRIER_ERR_COUNT_ALIGN, value = count;
        } else if (count > cta.slots) {
            error = SIMTGPU_BARRIER_ERR_COUNT_RANGE, value = count;
        } else if (!waits && count == 0) {
            error = SIMTGPU_BARRIER_ERR_ARRIVE_ALL;
        } else if (cta.bars[id].arrived && cta.bars[id].count != count) {
            error = SIMTGPU_BARRIER_ERR_COUNT_MISMATCH, value = count;
        }
        if (error) {
            raise(SIMTGPU_EXC_BAD_BARRIER, slot, l, fault_pc, SIMTGPU_BARRIER_DETAIL(error, value));
            return;
        }
        Barrier &bar = cta.bars[id];
        bar.count = uint32_t(count);
        ++bar.arrived;
        bar.partial |= partial_warp;
        touched |= 1u << id;
        if (!waits) continue;
        ++bar.waiting;
        w.blocked_bar |= uint64_t(1) << l;
        w.bar_lanes[id] |= uint64_t(1) << l;
        if (in.funct != SIMTGPU_BAR_SYNC) {
            w.bar_red_lanes |= uint64_t(1) << l;
            w.bar_kind[l] = in.funct;
            w.bar_rd[l] = in.rd;
            ++cta.red_arrivals;
            cta.red_true += src[l] != 0;
        }
    }
    ++stats.barrier_waits;
    try_release_warp_sync(w);
    for (uint32_t m = touched; m; m &= m - 1) {
        const uint32_t id = uint32_t(std::countr_zero(m));
        if (barrier_complete(cta, id)) release_barrier(cta, id);
    }
    check_deadlock(w.cta);
}

// A barrier without a count completes when every live thread of the CTA has
// arrived; one with a count when that many have (a partial last warp that
// took part counting its missing lanes, as warps arrive whole in hardware),
// or when every live thread waits at it, since no other can arrive.
bool Sm::Impl::barrier_complete(const Cta &cta, uint32_t id) const
{
    const Barrier &bar = cta.bars[id];
    if (!bar.arrived) return false;
    if (bar.count == 0) return bar.arrived >= cta.live;
    const uint32_t missing = bar.partial ? cta.missing : 0;
    return bar.arrived + missing >= bar.count || bar.waiting == cta.live;
}

void Sm::Impl::release_barrier(Cta &cta, uint32_t id)
{
    for (uint32_t slot : cta.warps) {
        Warp &w = warps[slot];
        const uint64_t released = w.bar_lanes[id];
        for (uint64_t m = released & w.bar_red_lanes; m; m &= m - 1) {
            const uint32_t l = uint32_t(std::countr_zero(m));
            uint64_t value = 0;
            switch (w.bar_kind[l]) {
            case SIMTGPU_BAR_POPC: value = cta.red_true; break;
            case SIMTGPU_BAR_AND: value = cta.red_true == cta.red_arrivals; break;
            case SIMTGPU_BAR_OR: value = cta.red_true != 0; break;
            }
            X(w, w.bar_rd[l])[l] = value;
        }
        w.bar_lanes[id] = 0;
        w.bar_red_lanes &= ~released;
        w.blocked_bar &= ~released;
        recheck_slot(slot);
    }
    cta.bars[id] = Barrier{};
    if (id == 0) cta.red_true = cta.red_arrivals = 0;
}

// Lanes in a warp-level sync instruction wait for the lanes it needs
// (CUDA's rule for every *_sync intrinsic): the group's lanes record their
// operands, move past the instruction and block; whoever completes the set
// releases it, and the release computes the results.
void Sm::Impl::wait_in_warp_sync(uint32_t slot, uint64_t mask, uint64_t &waiting,
                                 uint64_t next_pc) {
    Warp &w = warps[slot];
    w.set_pcs(mask, next_pc);
    waiting |= mask;
    w.blocked_sync |= mask;
    try_release_warp_sync(w);
    check_deadlock(w.cta);
}

// Releases what can be released: warp.sync lanes whose live members are all
// in a warp.sync, votes whose live members all wait in a vote of the same
// kind and mask, shuffles whose source lanes have arrived.
void Sm::Impl::try_release_warp_sync(Warp &w)
{
    if (!w.blocked_sync)
        return;
    uint64_t release = 0;
    for (uint64_t m = w.waiting_warp_sync; m; m &= m - 1) {
        const uint32_t l = uint32_t(std::countr_zero(m));
        if ((w.sync_mask[l] & w.live() & ~w.waiting_warp_sync) == 0)
            release |= uint64_t(1) << l;
    }
    w.waiting_warp_sync &= ~release;
    release |= release_votes(w) | release_shuffles(w);
    w.blocked_sync &= ~release;
}

uint64_t Sm::Impl::release_votes(Warp &w) {
    uint64_t release = 0;
    for (uint64_t m = w.waiting_vote; m; m &= m - 1) {
        const uint32_t l = uint32_t(std::countr_zero(m));
        const uint64_t members = w.sync_mask[l] & w.live();
        uint64_t same = 0;
        for (uint64_t n = w.waiting_vote; n; n &= n - 1) {
            const uint32_t k = uint32_t(std::countr_zero(n));
            if (w.sync_funct[k] == w.sync_funct[l] && w.sync_mask[k] == w.sync_mask[l])
                same |= uint64_t(1) << k;
        }
        if (members & ~same)
            continue; // a member has not arrived (or waits elsewhere)
        release |= uint64_t(1) << l;
        res[l] = collective(w.sync_funct[l], l, members, w.sync_value.data());
    }
    for (uint64_t m = release; m; m &= m - 1) {
        const uint32_t l = uint32_t(std::countr_zero(m));
        if (w.sync_rd[l])
            X(w, w.sync_rd[l])[l] = res[l];
    }
    w.waiting_vote &= ~release;
    return release;
}

// The result lane `lane` of a vote, match or redux gets over the lanes
// `members`, whose operands are value[k] (a vote's: rs1 != 0).
uint64_t Sm::Impl::collective(uint8_t kind, uint32_t lane, uint64_t members,
                              const uint64_t *value) const
{
    auto fold = [&](uint64_t init, auto op) {
        uint64_t r = init;
        for (uint64_t m = members; m; m &= m - 1) r = op(r, value[std::countr_zero(m)]);
        return r;
    };
    uint64_t yes = 0;
    switch (kind & 0xf0) {
    case kCollectiveVote:
        for (uint64_t m = members; m; m &= m - 1)
            yes |= (value[std::countr_zero(m)] & 1) << std::countr_zero(m);
        switch (kind & 0x0f) {
        case SIMTGPU_VOTE_BALLOT: return yes;
        case SIMTGPU_VOTE_ANY: return yes != 0;
        case SIMTGPU_VOTE_ALL: return yes == members;
        default: return yes == 0 || yes == members;
        }
    case kCollectiveMatch: {
        const uint64_t mine = value[lane];
        for (uint64_t m = members; m; m &= m - 1)
            yes |= uint64_t(value[std::countr_zero(m)] == mine) << std::countr_zero(m);
        if ((kind & 0x0f) == SIMTGPU_MATCH_ANY) return yes;
        // match.all compares with the first member (this lane may not be one).
        const uint64_t first = members ? value[std::countr_zero(members)] : 0;
        return fold(1, [&](uint64_t r, uint64_t v) { return r & uint64_t(v == first); }) ? members
                                                                                        : 0;
    }
    default:
        switch (kind & 0x0f) {
        case SIMTGPU_REDUX_ADD: return fold(0, [](uint64_t r, uint64_t v) { return r + v; });
        case SIMTGPU_REDUX_AND:
            return fold(~uint64_t(0), [](uint64_t r, uint64_t v) { return r & v; });
        case SIMTGPU_REDUX_OR: return fold(0, [](uint64_t r, uint64_t v) { return r | v; });
        case SIMTGPU_REDUX_XOR: return fold(0, [](uint64_t r, uint64_t v) { return r ^ v; });
        case SIMTGPU_REDUX_MIN:
            return fold(uint64_t(INT64_MAX), [](uint64_t r, uint64_t v) {
                return int64_t(v) < int64_t(r) ? v : r;
            });
        case SIMTGPU_REDUX_MAX:
            return fold(uint64_t(INT64_MIN), [](uint64_t r, uint64_t v) {
                return int64_t(v) > int64_t(r) ? v : r;
            });
        case SIMTGPU_REDUX_MINU:
            return fold(~uint64_t(0), [](uint64_t r, uint64_t v) { return std::min(r, v); });
        default: return fold(0, [](uint64_t r, uint64_t v) { return std::max(r, v); });
        }
    }
}

// A shuffle lane needs its source lane, unless that lane has exited or waits
// at a CTA barrier (it cannot arrive first; PTX leaves reading it undefined).
// Lanes whose sources have arrived are released together, so every value is
// the one its lane brought to the shuffle.
uint64_t Sm::Impl::release_shuffles(Warp &w) {
    const uint64_t may_arrive = w.live() & ~w.blocked_bar;
    uint64_t release = w.waiting_shfl;
    for (bool changed = true; changed;) {
        changed = false;
        for (uint64_t m = release; m; m &= m - 1) {
            const uint32_t l = uint32_t(std::countr_zero(m));
            const uint64_t src = uint64_t(1) << w.sync_src[l];
            if ((src & may_arrive) && !(src & release)) {
                release &= ~(uint64_t(1) << l);
                changed = true;
            }
        }
    }
    for (uint64_t m = release; m; m &= m - 1) {
        const uint32_t l = uint32_t(std::countr_zero(m)), j = w.sync_src[l];
        res[l] = (release >> j & 1) ? w.sync_value[j] : X(w, w.sync_rs1[l])[j];
    }
    for (uint64_t m = release; m; m &= m - 1) {
        const uint32_t l = uint32_t(std::countr_zero(m));
        if (w.sync_rd[l])
            X(w, w.sync_rd[l])[l] = res[l];
    }
    w.waiting_shfl &= ~release;
    return release;
}

void Sm::Impl::check_deadlock(uint32_t cslot)
{
    const Cta &cta = ctas[cslot];
    if (!cta.active || exception) return;
    for (uint32_t slot : cta.warps)
        if (warps[slot].runnable()) return;
    // Report the first blocked thread.
    for (uint32_t slot : cta.warps) {
        const Warp &w = warps[slot];
        if (const uint64_t live = w.live()) {
            const uint32_t l = uint32_t(std::countr_zero(live));
            raise(SIMTGPU_EXC_DEADLOCK, slot, l, w.pc_of(l));
            return;
        }
    }
}

} // namespace simtgpu::sim
