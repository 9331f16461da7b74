// The SM's memory beyond the hot path (sm_memory_access.h): local memory's
// lazy zeroing, accesses that cross a page or reach host memory, atomics'
// pages and pointers, and the decoded-code cache.
#include "sm/sm_memory_access.h"

#include <cstring>

namespace simtgpu::sim {

bool Sm::Impl::atomic_pages_present(uint64_t mask, const uint64_t *addr, uint32_t size)
{
    for (uint64_t m = mask; m; m &= m - 1) {
        const uint32_t l = uint32_t(std::countr_zero(m));
        const uint64_t va = addr[l];
        if ((va >> 32) == (SIMTGPU_SHARED_BASE >> 32) || (va >> 32) == (SIMTGPU_LOCAL_BASE >> 32) ||
            (va & (size - 1)))
            continue; // not through the MMU, or misaligned: the lane loop says so
        const uint64_t vpn = va >> SIMTGPU_PAGE_SHIFT;
        const TlbEntry &e = cur->tlb[vpn % kTlbEntries];
        bool waits;
        if (e.page == vpn) {
            waits = !e.writable && e.readable && e.replay_on_write;
        } else {
            const PageTranslation t = cur->memory->translate(vpn << SIMTGPU_PAGE_SHIFT);
            waits = t.replayable && (t.fault || (!t.writable && t.readable));
        }
        if (waits) { // other faults: raised by the lane loop, in lane order
            replay_hold = Held{va, fault_pc, 0, SIMTGPU_ACCESS_ATOMIC, l};
            return false;
        }
    }
    return true;
}

// Zeroes the chunks of a lane's local memory that its thread touches for
// the first time.
size_t Sm::Impl::local_words(Warp &w) const {
    const size_t words = (size_t(cur->desc.stack_bytes) + 7) / 8;
    if (w.local.size() < words * W)
        w.local.resize(words * W); // word k of lane l stays at k * W + l
    return words;
}

// Zeroes lane's words of `chunks` that it has not zeroed, but for the rows
// already zeroed or written in every lane.
void Sm::Impl::zero_local(Warp &w, uint32_t lane, uint64_t chunks) {
    const size_t words = local_words(w);
    const uint32_t shift = cur->local_chunk_shift; // >= 3: chunks are whole words
    for (uint64_t m = chunks & ~w.local_zeroed[lane]; m; m &= m - 1) {
        const size_t begin = size_t(std::countr_zero(m)) << (shift - 3);
        const size_t end = std::min(begin + (size_t(1) << (shift - 3)), words);
        for (size_t k = begin; k < end; ++k)
            if (!w.local_row_ready(k)) w.local[k * W + lane] = 0;
    }
    w.local_zeroed[lane] |= chunks;
    w.local_zeroed_any |= chunks;
}

// Word `word` of every lane (a row) made ready for an access of them all:
// zeroed, but in lanes that zeroed its chunk themselves, or left as it is
// when the access writes all of it.
void Sm::Impl::start_local_row(Warp &w, uint64_t word, bool written_whole) {
    local_words(w);
    uint64_t *row = w.local.data() + word * W;
    const uint64_t chunk = uint64_t(1) << (word >> (cur->local_chunk_shift - 3));
    if (written_whole) {
    } else if (!(w.local_zeroed_any & chunk)) {
        std::memset(row, 0, W * sizeof(uint64_t));
    } else {
        for (uint32_t l = 0; l < W; ++l)
            if (!(w.local_zeroed[l] & chunk)) row[l] = 0;
    }
    w.local_rows[word >> 6] |= uint64_t(1) << (word & 63);
}

void Sm::Impl::local_split(Warp &w, uint32_t lane, uint64_t off, void *data, uint32_t size,
                           bool write) {
    uint8_t *bytes = static_cast<uint8_t *>(data);
    for (uint32_t i = 0; i < size; ++i) {
        uint8_t *p = local_byte(w, lane, off + i);
        if (write) *p = bytes[i];
        else bytes[i] = *p;
    }
}

// Global accesses that cross a page or reach host memory: byte by byte.
bool Sm::Impl::access_slow(uint32_t, uint32_t lane, uint64_t va, void *data, uint32_t size,
                           Access access)
{
    uint8_t *bytes = static_cast<uint8_t *>(data);
    for (uint32_t i = 0; i < size; ++i) {
        const uint64_t a = va + i;
        TlbEntry *e = tlb_lookup(a, lane, access);
        if (!e) return false;
        const uint64_t off = a & kPageMask;
        if (access == Access::Write && e->code) invalidate_code_page(e->page);
        if (access == Access::Write && isolated && e->host && !e->vram) shadow(*e);
        if (e->host) {
            if (access == Access::Write) e->host[off] = bytes[i];
            else bytes[i] = e->host[off];
            continue;
        }
        const bool ok = access == Access::Write ? cur->memory->dma_write(e->bus + off, bytes + i, 1)
                                                : cur->memory->dma_read(e->bus + off, bytes + i, 1);
        if (!ok) {
            raise(SIMTGPU_EXC_PAGE_FAULT, fault_slot, lane, fault_pc, SIMTGPU_FAULT_DMA, a,
                  uint32_t(access));
            return false;
        }
    }
    return true;
}

// The host pointer of an aligned atomic, or (dma = true) its bus address.
uint8_t *Sm::Impl::atomic_ptr(uint32_t slot, uint32_t lane, uint64_t va, uint32_t size,
                              bool &dma, uint64_t &bus)
{
    dma = false;
    if (va & (size - 1)) {
        raise(SIMTGPU_EXC_MISALIGNED, slot, lane, fault_pc, 0, va, SIMTGPU_ACCESS_ATOMIC);
        return nullptr;
    }
    bool in_window, split; // aligned: never split
    if (uint8_t *p = window(slot, lane, va, size, Access::Atomic, in_window, split)) return p;
    if (in_window) return nullptr;
    touched_global = true;
    TlbEntry *e = tlb_lookup(va, lane, Access::Atomic);
    if (!e) return nullptr;
    if (e->code) invalidate_code_page(e->page);
    if (e->host) return e->host + (va & kPageMask);
    dma = true;
    bus = e->bus + (va & kPageMask);
    return nullptr;
}

// A store into page vpn: its decoded instructions go, and so does the last
// slot of the page before, whose instruction may straddle into this one.
void Sm::Impl::invalidate_code_page(uint64_t vpn)
{
    auto &code = cur->code;
    auto it = code.find(vpn);
    if (it != code.end()) it->second->invalidate();
    auto before = code.find(vpn - 1);
    if (before != code.end())
        before->second->slots[kSlotsPerPage - 1].op = Op::Undecoded;
}

// The decoded instruction at pc (decoding it on first use), or nullptr with
// an exception. page/page_vpn cache the current code page.
const Insn *Sm::Impl::fetch(uint32_t slot, uint32_t lane, uint64_t pc, CodePage *&page,
                            uint64_t &page_vpn)
{
    const uint64_t vpn = pc >> SIMTGPU_PAGE_SHIFT;
    if (vpn != page_vpn) [[unlikely]] {
        if (vpn != cur->last_code_vpn) {
            auto &p = cur->code[vpn];
            if (!p) {
                p = std::make_unique<CodePage>();
                p->invalidate();
                if (TlbEntry &e = cur->tlb[vpn % kTlbEntries]; e.page == vpn) {
                    e.code = true;
                    e.direct_store = false;
                }
            }
            cur->last_code_vpn = vpn;
            cur->last_code_page = p.get();
        }
        page = cur->last_code_page;
        page_vpn = vpn;
        warps[slot].dirty_x |= page->writes_x; // what it may run here
        warps[slot].dirty_f |= page->writes_f;
    }
    Insn &in = page->slots[(pc & kPageMask) >> 1];
    if (in.op != Op::Undecoded) return &in;
    // First execution at this address: read and decode it.
    uint8_t bytes[4] = {0, 0, 0, 0};
    auto read_half = [&](uint64_t va, uint8_t *dst) {
        TlbEntry *e = tlb_lookup(va, lane, Access::Exec);
        if (!e) return false;
        e->code = true;
        e->direct_store = false;
        if (e->host) {
            std::memcpy(dst, e->host + (va & kPageMask), 2);
            return true;
        }
        if (isolated) { // DMA only in serial runs: stop before the instruction
            stop_before = true;
            return false;
        }
        if (cur->memory->dma_read(e->bus + (va & kPageMask), dst, 2)) return true;
        raise(SIMTGPU_EXC_PAGE_FAULT, slot, lane, pc, SIMTGPU_FAULT_DMA, va, SIMTGPU_ACCESS_EXEC);
        return false;
    };
    if (pc & 1) {
        raise(SIMTGPU_EXC_PAGE_FAULT, slot, lane, pc, SIMTGPU_FAULT_PROTECTION, pc,
              SIMTGPU_ACCESS_EXEC);
        return nullptr;
    }
    if (!read_half(pc, bytes)) return nullptr;
    if ((bytes[0] & 3) == 3) {
        // The second half may lie on the next page: stores there must see
        // it as code too (invalidate_code_page).
        if (((pc + 2) >> SIMTGPU_PAGE_SHIFT) != vpn) {
            auto &next_page = cur->code[vpn + 1];
            if (!next_page) {
                next_page = std::make_unique<CodePage>();
                next_page->invalidate();
            }
        }
        if (!read_half(pc + 2, bytes + 2))
            return nullptr;
    }
    uint32_t bits;
    std::memcpy(&bits, bytes, 4);
    in = decode(bits);
    const uint64_t rd = uint64_t(1) << in.rd;
    page->writes_x |= rd;
    warps[slot].dirty_x |= rd;
    if (in.op >= Op::Flw && in.op <= Op::FcvtDS) {
        page->writes_f |= rd;
        warps[slot].dirty_f |= rd;
    }
    return &in;
}

} // namespace simtgpu::sim
