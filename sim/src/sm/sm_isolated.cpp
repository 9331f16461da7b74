// An isolated run (Sm::run_isolated) changes nothing outside the SM, so the
// SMs of a quantum can run on several host threads in any order: its stores
// to VRAM go to shadow copies of their pages, which its own loads read, and
// it stops before an instruction whose effect other SMs would see at once
// (a global atomic, DMA to host memory, a store to decoded code). commit()
// then applies the stores in SM order and run() goes on serially.
#include "sm/sm_memory_access.h"

#include <cstring>

namespace simtgpu::sim {

bool Sm::Impl::needs_serial(uint64_t mask, const uint64_t *addr, int64_t imm, uint32_t size,
                            Access access)
{
    uint64_t checked = UINT64_MAX;
    for (uint64_t m = mask; m; m &= m - 1) {
        const uint64_t va = addr[std::countr_zero(m)] + imm;
        if ((va >> 32) == (SIMTGPU_SHARED_BASE >> 32) || (va >> 32) == (SIMTGPU_LOCAL_BASE >> 32))
            continue; // the windows are the CTA's and the thread's own
        if (access == Access::Atomic)
            return true;
        for (uint64_t vpn = va >> SIMTGPU_PAGE_SHIFT; vpn <= (va + size - 1) >> SIMTGPU_PAGE_SHIFT;
             ++vpn) {
            if (vpn == checked)
                continue;
            checked = vpn;
            const TlbEntry &e = cur->tlb[vpn % kTlbEntries];
            bool in_vram, code;
            if (e.page == vpn) {
                in_vram = e.host;
                code = e.code;
            } else { // translate() only reads the page tables; a fault is raised as usual
                const PageTranslation t = cur->memory->translate(vpn << SIMTGPU_PAGE_SHIFT);
                if (t.fault)
                    continue;
                in_vram = t.host;
                code = cur->code.count(vpn) != 0;
            }
            if (!in_vram || (access == Access::Write && code))
                return true;
        }
    }
    return false;
}

// The first store of an isolated run to a VRAM page: a copy of the page
// takes it, and every TLB entry of the SM that maps the page points there.
void Sm::Impl::shadow(TlbEntry &e)
{
    uint8_t *const page = e.host;
    uint8_t *&copy = shadow_of[page];
    if (!copy) {
        if (shadows_used == shadows.size()) shadows.push_back(std::make_unique<ShadowPage>());
        ShadowPage &sp = *shadows[shadows_used++];
        sp.vram = page;
        // A write that changes nothing, so that a never-touched page is
        // mapped writable now, not to the zero page that commit() would then
        // replace with a TLB shootdown of every thread. Atomic: other SMs
        // may read the page meanwhile; nobody writes VRAM in this phase.
        __atomic_fetch_or(page, uint8_t(0), __ATOMIC_RELAXED);
        std::memcpy(sp.copy, page, SIMTGPU_PAGE_SIZE);
        copy = sp.copy;
    }
    for (LaunchContext &l : launches) {
        if (!l.attached) continue;
        for (TlbEntry &t : l.tlb) {
            if (t.host != page || t.vram) continue;
            t.vram = page;
            t.host = copy;
            refresh_direct_store(t);
        }
    }
}

// 0xff in each byte where x (the XOR of two words) is non-zero.
static inline uint64_t changed_bytes_mask(uint64_t x)
{
    x |= x >> 4;
    x |= x >> 2;
    x |= x >> 1;
    return (x & 0x0101010101010101ull) * 0xff;
}

SmRunResult Sm::Impl::run_isolated(uint64_t cycles)
{
    isolated = true;
    // Only attached launches have TLB entries (attach() clears a slot's):
    // the other slots of `launches` are skipped here and in commit(), which
    // run every quantum.
    for (LaunchContext &l : launches)
        if (l.attached)
            for (TlbEntry &t : l.tlb) refresh_direct_store(t); // no shadows yet
    SmRunResult r = run(cycles);
    // The words that changed, found here, on this SM's thread: commit()
    // then only writes them. Unchanged 64-byte lines are skipped whole, and
    // a changed word's byte mask is computed without a branch per byte.
    constexpr uint32_t kLine = 64;
    for (size_t k = 0; k < shadows_used; ++k) {
        ShadowPage &sp = *shadows[k];
        sp.diff.clear();
        for (uint32_t line = 0; line < SIMTGPU_PAGE_SIZE; line += kLine) {
            if (std::memcmp(sp.copy + line, sp.vram + line, kLine) == 0) continue;
            for (uint32_t off = line; off < line + kLine; off += 8) {
                uint64_t now_word, old_word;
                std::memcpy(&now_word, sp.copy + off, 8);
                std::memcpy(&old_word, sp.vram + off, 8);
                if (now_word == old_word) continue;
                sp.diff.push_back({off, changed_bytes_mask(now_word ^ old_word), now_word});
            }
        }
    }
    return r;
}

void Sm::Impl::commit()
{
    for (size_t k = 0; k < shadows_used; ++k) {
        ShadowPage &sp = *shadows[k];
        for (const ShadowPage::Word &w : sp.diff) {
            uint64_t word;
            std::memcpy(&word, sp.vram + w.offset, 8);
            word = (word & ~w.mask) | (w.value & w.mask);
            std::memcpy(sp.vram + w.offset, &word, 8);
        }
    }
    shadows_used = 0;
    shadow_of.clear();
    isolated = false;
    for (LaunchContext &l : launches) {
        if (!l.attached) continue; // shadow() maps attached launches' entries only
        for (TlbEntry &t : l.tlb) {
            if (t.vram) {
                t.host = t.vram;
                t.vram = nullptr;
            }
            refresh_direct_store(t);
        }
    }
}

} // namespace simtgpu::sim
