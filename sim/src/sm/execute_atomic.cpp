// Atomics: the A extension and simtgpu's custom ones, on global and shared
// memory and, by DMA, on host memory.
#include "sm/fp.h"
#include "sm/sm_memory_access.h"

namespace simtgpu::sim {

bool Sm::Impl::exec_atomic(uint32_t slot, const Insn &in, uint64_t mask)
{
    Warp &w = warps[slot];
    const uint64_t *addr = X(w, in.rs1);
    const uint64_t *src = X(w, in.rs2);
    const uint64_t *expected_in = X(w, in.rd); // amocas only
    const bool dbl = in.op == Op::LrD || in.op == Op::ScD || in.op == Op::AmoD;
    const uint32_t size = dbl ? 8 : 4;
    auto value_of = [&](uint64_t raw) { return dbl ? raw : uint64_t(int64_t(int32_t(raw))); };
    if (!atomic_pages_present(mask, addr, size))
        return false;
    // Lanes in order: the outcome under contention is deterministic.
    for (uint64_t m = mask; m; m &= m - 1) {
        const uint32_t l = uint32_t(std::countr_zero(m));
        const uint64_t va = addr[l];
        bool dma;
        uint64_t bus = 0;
        uint8_t *p = atomic_ptr(slot, l, va, size, dma, bus);
        if (!p && !dma) return false;
        auto read = [&]() -> uint64_t {
            uint64_t v = 0;
            if (dma) {
                if (!cur->memory->dma_read(bus, &v, size))
                    raise(SIMTGPU_EXC_PAGE_FAULT, slot, l, fault_pc, SIMTGPU_FAULT_DMA, va,
                          SIMTGPU_ACCESS_ATOMIC);
            } else if (dbl) {
                v = __atomic_load_n(reinterpret_cast<uint64_t *>(p), __ATOMIC_SEQ_CST);
            } else {
                v = __atomic_load_n(reinterpret_cast<uint32_t *>(p), __ATOMIC_SEQ_CST);
            }
            return v;
        };
        // Compare-and-swap; on host memory the host's own (a PCIe AtomicOp).
        auto cas = [&](uint64_t &expected, uint64_t desired) -> bool {
            if (dma) {
                uint64_t current = 0;
                if (!cur->memory->dma_cmpxchg(bus, size, expected, desired, current)) {
                    raise(SIMTGPU_EXC_PAGE_FAULT, slot, l, fault_pc, SIMTGPU_FAULT_DMA, va,
                          SIMTGPU_ACCESS_ATOMIC);
                    return false;
                }
                const bool swapped = current == expected;
                expected = current;
                return swapped;
            }
            if (dbl)
                return __atomic_compare_exchange_n(reinterpret_cast<uint64_t *>(p), &expected,
                                                   desired, false, __ATOMIC_SEQ_CST,
                                                   __ATOMIC_SEQ_CST);
            uint32_t e32 = uint32_t(expected);
            const bool ok = __atomic_compare_exchange_n(reinterpret_cast<uint32_t *>(p), &e32,
                                                        uint32_t(desired), false,
                                                        __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
            expected = e32;
            return ok;
        };
        const uint64_t bit = uint64_t(1) << l;
        if (in.op == Op::LrW || in.op == Op::LrD) {
            const uint64_t v = read();
            if (exception) return false;
            w.resv_valid |= bit;
            w.resv_addr[l] = va;
            w.resv_value[l] = v;
            res[l] = value_of(v);
            continue;
        }
        if (in.op == Op::ScW || in.op == Op::ScD) {
            bool ok = false;
            if ((w.resv_valid & bit) && w.resv_addr[l] == va) {
                uint64_t expected = w.resv_value[l];
                ok = cas(expected, src[l]);
                if (exception) return false;
            }
            w.resv_valid &= ~bit;
            res[l] = ok ? 0 : 1;
            continue;
        }
        // AMO: a CAS loop, so the same code serves 32 and 64 bits.
        uint64_t old = read();
        if (exception) return false;
        for (;;) {
            const uint64_t a = value_of(old), b = dbl ? src[l] : value_of(src[l]);
            uint64_t nv = 0;
            if (in.funct == kAmoCas && a != (dbl ? expected_in[l] : value_of(expected_in[l])))
                break; // no match: memory keeps its value, rd gets it
            switch (in.funct) {
            case kAmoCas: nv = b; break;
            case kAmoFadd: // IEEE round to nearest even, a NaN canonical, no flags (as PTX atom)
                nv = dbl ? std::bit_cast<uint64_t>(fp::canonicalize(std::bit_cast<double>(a) +
                                                                     std::bit_cast<double>(b)))
                         : std::bit_cast<uint32_t>(fp::canonicalize(
                               std::bit_cast<float>(uint32_t(a)) + std::bit_cast<float>(uint32_t(b))));
                break;
            case kAmoIncW: nv = uint32_t(a) >= uint32_t(b) ? 0 : uint32_t(a) + 1; break;
            case kAmoDecW:
                nv = uint32_t(a) == 0 || uint32_t(a) > uint32_t(b) ? uint32_t(b) : uint32_t(a) - 1;
                break;
            case kAmoSwap: nv = b; break;
            case kAmoAdd: nv = a + b; break;
            case kAmoXor: nv = a ^ b; break;
            case kAmoAnd: nv = a & b; break;
            case kAmoOr: nv = a | b; break;
            case kAmoMin: nv = int64_t(a) < int64_t(b) ? a : b; break;
            case kAmoMax: nv = int64_t(a) > int64_t(b) ? a : b; break;
            case kAmoMinu: nv = dbl ? std::min(a, b) : std::min(uint32_t(a), uint32_t(b)); break;
            case kAmoMaxu: nv = dbl ? std::max(a, b) : std::max(uint32_t(a), uint32_t(b)); break;
            }
            if (cas(old, dbl ? nv : uint32_t(nv))) break;
            if (exception) return false;
        }
        res[l] = value_of(old);
    }
    uint64_t *dst = X(w, in.rd);
    each(mask, [&](uint32_t l) { dst[l] = res[l]; });
    stats.mem_reads += uint64_t(std::popcount(mask));
    if (in.op != Op::LrW && in.op != Op::LrD) stats.mem_writes += uint64_t(std::popcount(mask));
    return true;
}

} // namespace simtgpu::sim
