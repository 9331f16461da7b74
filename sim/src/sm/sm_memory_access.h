// The SM's memory accesses on the interpreter's hot path, inline so that a
// warp load or store in the burst loop is a TLB compare and a host access
// (docs/simulator-performance.md): the TLB, the shared and local windows and
// the whole-warp fast paths.
#pragma once

#include "sm/sm_state.h"

namespace simtgpu::sim {

inline TlbEntry *Sm::Impl::tlb_lookup(uint64_t va, uint32_t lane, Access access)
{
    const uint64_t vpn = va >> SIMTGPU_PAGE_SHIFT;
    TlbEntry &e = cur->tlb[vpn % kTlbEntries];
    if (e.page == vpn) {
        ++stats.tlb_hits;
    } else {
        ++stats.tlb_misses;
        const PageTranslation t = cur->memory->translate(vpn << SIMTGPU_PAGE_SHIFT);
        if (t.fault) {
            if (t.replayable && access != Access::Exec)
                replay_hold = Held{va, fault_pc, 0, uint32_t(access), lane};
            else
                raise(SIMTGPU_EXC_PAGE_FAULT, fault_slot, lane, fault_pc, t.fault, va,
                      uint32_t(access));
            return nullptr;
        }
        e.page = vpn;
        e.host = t.host;
        e.bus = t.bus_address;
        e.readable = t.readable;
        e.writable = t.writable;
        e.executable = t.executable;
        e.replay_on_write = t.replayable;
        e.code = cur->code.count(vpn) != 0;
        e.vram = nullptr;
        if (isolated && e.host)
            if (auto copy = shadow_of.find(e.host); copy != shadow_of.end()) {
                e.vram = e.host;
                e.host = copy->second;
            }
        refresh_direct_store(e);
    }
    bool ok = true;
    switch (access) {
    case Access::Read: ok = e.readable; break;
    case Access::Write: ok = e.writable; break;
    case Access::Exec: ok = e.executable; break;
    case Access::Atomic: ok = e.readable && e.writable; break;
    }
    if (!ok) {
        if (e.replay_on_write && e.readable && (access == Access::Write || access == Access::Atomic))
            replay_hold = Held{va, fault_pc, 0, uint32_t(access), lane};
        else
            raise(SIMTGPU_EXC_PAGE_FAULT, fault_slot, lane, fault_pc, SIMTGPU_FAULT_PROTECTION, va,
                  uint32_t(access));
        return nullptr;
    }
    return &e;
}

// Shared or local window access: the host pointer, or nullptr with an
// exception when out of the window. in_window says whether va is in one.
SIMT_INLINE uint8_t *Sm::Impl::window(uint32_t slot, uint32_t lane, uint64_t va, uint32_t size,
                                      Access access, bool &in_window, bool &split)
{
    in_window = true;
    split = false;
    if ((va >> 32) == (SIMTGPU_SHARED_BASE >> 32)) {
        std::vector<uint8_t> &shared = ctas[warps[slot].cta].shared;
        const uint64_t off = va - SIMTGPU_SHARED_BASE;
        if (off + size <= shared.size()) return shared.data() + off;
    } else if ((va >> 32) == (SIMTGPU_LOCAL_BASE >> 32)) {
        const uint64_t off = va - SIMTGPU_LOCAL_BASE;
        if (off + size <= cur->desc.stack_bytes) {
            Warp &w = warps[slot];
            const uint64_t need = local_chunks(off, size);
            if (need & ~w.local_zeroed[lane])
                zero_local(w, lane, need);
            if ((off & 7) + size > 8) { // two words, not adjacent: the caller goes byte by byte
                split = true;
                return nullptr;
            }
            return local_byte(w, lane, off);
        }
    } else {
        in_window = false;
        return nullptr;
    }
    raise(SIMTGPU_EXC_PAGE_FAULT, slot, lane, fault_pc, SIMTGPU_FAULT_OUT_OF_WINDOW, va,
          uint32_t(access));
    return nullptr;
}

// Four lanes' 64-bit registers as one host vector (GCC's vector extensions:
// one AVX2 operation in the burst loop's AVX2 clone, two SSE2 ones otherwise).
typedef uint64_t LaneQuad __attribute__((vector_size(32), aligned(8), may_alias));
// (By reference: a vector by value would change the ABI between the clones.)
SIMT_INLINE const LaneQuad &quad(const uint64_t *lanes)
{
    return *reinterpret_cast<const LaneQuad *>(lanes);
}
SIMT_INLINE uint64_t or_quad(const LaneQuad &q) { return q[0] | q[1] | q[2] | q[3]; }

// A warp access whose lanes all fall in one global page that the TLB maps to
// host memory, or all in the CTA's shared memory: the host pointer `base`
// such that a lane's bytes are at base + (its address & offset_mask), or
// nullptr for the per-lane path. one_address: every lane's address is the
// same. Counts what the per-lane path would (a TLB hit per lane), so
// statistics are the same either way. The lanes' addresses are compared with
// the first lane's by XOR and their offsets bounded by OR, not by a min/max
// (a chain of compare-and-moves was half the time of a shared-memory load).
SIMT_INLINE uint8_t *Sm::Impl::coalesced(uint32_t slot, uint64_t mask, const uint64_t *addr,
                                         int64_t imm, uint32_t size, Access access,
                                         uint64_t &offset_mask, bool &one_address) {
    const uint64_t ref = addr[std::countr_zero(mask)] + imm;
    uint64_t differ = 0, offsets = 0; // bits where some lane differs from ref; of any lane
    if (mask == full_mask && W % 4 == 0) {
        LaneQuad differ4 = {0, 0, 0, 0}, offsets4 = {0, 0, 0, 0};
        for (uint32_t l = 0; l < W; l += 4) {
            const LaneQuad lanes = quad(addr + l) + uint64_t(imm);
            differ4 |= lanes ^ ref;
            offsets4 |= lanes;
        }
        differ = or_quad(differ4);
        offsets = or_quad(offsets4);
    } else {
        each(mask, [&](uint32_t l) {
            differ |= (addr[l] + imm) ^ ref;
            offsets |= addr[l] + imm;
        });
    }
    one_address = differ == 0;
    // OR of the offsets bounds the highest one: fits within it, fits for all.
    if ((ref >> 32) == (SIMTGPU_SHARED_BASE >> 32) && (differ >> 32) == 0) {
        std::vector<uint8_t> &shared = ctas[warps[slot].cta].shared;
        if ((offsets & 0xffffffff) + size > shared.size())
            return nullptr;
        offset_mask = 0xffffffff;
        return shared.data();
    }
    if ((differ & ~kPageMask) || (offsets & kPageMask) + size > SIMTGPU_PAGE_SIZE)
        return nullptr;
    offset_mask = kPageMask;
    return global_page(ref, uint32_t(std::popcount(mask)), access);
}

// A full warp whose lane l accesses addr[0] + imm + l * size, in one page
// that the TLB maps to host memory or in the CTA's shared memory: the host
// pointer of lane 0's bytes (lane l's follow at l * size), or nullptr. The
// common case of a warp access, checked with less work than coalesced.
SIMT_INLINE uint8_t *Sm::Impl::contiguous(uint32_t slot, const uint64_t *addr, int64_t imm,
                                          uint32_t size, Access access) {
    const uint64_t first = addr[0];
    // The last lane first: most accesses off the row fail here at once.
    if (W % 4 != 0 || addr[W - 1] - first != uint64_t(W - 1) * size)
        return nullptr;
    LaneQuad off4 = {0, 0, 0, 0}; // any bit set: a lane off the row
    LaneQuad row = LaneQuad{0, 1, 2, 3} * uint64_t(size) + first;
    for (uint32_t l = 0; l < W; l += 4) {
        off4 |= quad(addr + l) ^ row;
        row += 4 * uint64_t(size);
    }
    if (or_quad(off4))
        return nullptr;
    const uint64_t lo = first + imm, last = lo + uint64_t(W) * size - 1;
    if ((lo >> 32) == (SIMTGPU_SHARED_BASE >> 32) && ((lo ^ last) >> 32) == 0) {
        std::vector<uint8_t> &shared = ctas[warps[slot].cta].shared;
        if (last - SIMTGPU_SHARED_BASE >= shared.size())
            return nullptr;
        return shared.data() + (lo - SIMTGPU_SHARED_BASE);
    }
    if ((lo ^ last) & ~kPageMask)
        return nullptr;
    uint8_t *page = global_page(lo, W, access);
    return page ? page + (lo & kPageMask) : nullptr;
}

// The host memory of the global page of va when the TLB maps it to host
// memory for this access, counting a TLB hit for each of `lanes`; nullptr
// otherwise (also for the shared and local windows).
SIMT_INLINE uint8_t *Sm::Impl::global_page(uint64_t va, uint32_t lanes, Access access) {
    if ((va >> 32) == (SIMTGPU_SHARED_BASE >> 32) || (va >> 32) == (SIMTGPU_LOCAL_BASE >> 32))
        return nullptr;
    const uint64_t vpn = va >> SIMTGPU_PAGE_SHIFT;
    const TlbEntry &e = cur->tlb[vpn % kTlbEntries];
    if (e.page != vpn || !e.host)
        return nullptr;
    if (access == Access::Read ? !e.readable : !e.direct_store)
        return nullptr;
    touched_global = true;
    stats.tlb_hits += lanes;
    return e.host;
}

template <typename T> SIMT_INLINE bool Sm::Impl::load(uint32_t slot, uint32_t lane, uint64_t va, T &out)
{
    bool in_window, split;
    if (uint8_t *p = window(slot, lane, va, sizeof(T), Access::Read, in_window, split)) {
        std::memcpy(&out, p, sizeof(T));
        return true;
    }
    if (split) {
        local_split(warps[slot], lane, va - SIMTGPU_LOCAL_BASE, &out, sizeof(T), false);
        return true;
    }
    if (in_window) return false;
    touched_global = true;
    const uint64_t vpn = va >> SIMTGPU_PAGE_SHIFT;
    const TlbEntry &e = cur->tlb[vpn % kTlbEntries];
    if (e.page == vpn && e.host && e.readable && (va & kPageMask) + sizeof(T) <= SIMTGPU_PAGE_SIZE) {
        ++stats.tlb_hits;
        std::memcpy(&out, e.host + (va & kPageMask), sizeof(T));
        return true;
    }
    return access_slow(slot, lane, va, &out, sizeof(T), Access::Read);
}

template <typename T> SIMT_INLINE bool Sm::Impl::store(uint32_t slot, uint32_t lane, uint64_t va, T value)
{
    bool in_window, split;
    if (uint8_t *p = window(slot, lane, va, sizeof(T), Access::Write, in_window, split)) {
        std::memcpy(p, &value, sizeof(T));
        return true;
    }
    if (split) {
        local_split(warps[slot], lane, va - SIMTGPU_LOCAL_BASE, &value, sizeof(T), true);
        return true;
    }
    if (in_window) return false;
    touched_global = true;
    const uint64_t vpn = va >> SIMTGPU_PAGE_SHIFT;
    const TlbEntry &e = cur->tlb[vpn % kTlbEntries];
    if (e.page == vpn && e.direct_store && (va & kPageMask) + sizeof(T) <= SIMTGPU_PAGE_SIZE) {
        ++stats.tlb_hits;
        std::memcpy(e.host + (va & kPageMask), &value, sizeof(T));
        return true;
    }
    return access_slow(slot, lane, va, &value, sizeof(T), Access::Write);
}

} // namespace simtgpu::sim
