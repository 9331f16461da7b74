#include "device/mmu.h"

#include "simtgpu/hw.h"

#include <algorithm>
#include <cstring>

namespace simtgpu::sim {
namespace {

constexpr uint64_t kPermissionBits = SIMTGPU_PTE_R | SIMTGPU_PTE_W | SIMTGPU_PTE_X;

PageTranslation fault(uint32_t kind) {
    PageTranslation t;
    t.fault = kind;
    return t;
}

bool permitted(const PageTranslation &t, Access access) {
    switch (access) {
    case Access::Read:
        return t.readable;
    case Access::Write:
        return t.writable;
    case Access::Exec:
        return t.executable;
    case Access::Atomic:
        return t.readable && t.writable;
    }
    return false;
}

} // namespace

PageTranslation ContextMemory::translate(uint64_t page_va) {
    if (!root_)
        return fault(SIMTGPU_FAULT_NO_CONTEXT);
    if (page_va >> SIMTGPU_VA_BITS)
        return fault(SIMTGPU_FAULT_NOT_PRESENT); // outside the 48-bit space

    uint64_t table = *root_;
    for (int level = SIMTGPU_PT_LEVELS - 1; level >= 0; --level) {
        if (!vram_.contains(table, SIMTGPU_PAGE_SIZE))
            return fault(SIMTGPU_FAULT_BAD_PTE);
        const uint64_t pte = vram_.read64(table + 8 * SIMTGPU_PT_INDEX(page_va, level));
        if (!(pte & SIMTGPU_PTE_V)) {
            PageTranslation t = fault(SIMTGPU_FAULT_NOT_PRESENT);
            t.replayable = level == 0 && (pte & SIMTGPU_PTE_REPLAY);
            return t;
        }
        if (pte & SIMTGPU_PTE_RESERVED_MASK)
            return fault(SIMTGPU_FAULT_BAD_PTE);
        const uint64_t address = SIMTGPU_PTE_ADDR(pte);
        if (level > 0) {
            // Pointer PTE: no large pages, and tables always live in VRAM.
            if (pte & (kPermissionBits | SIMTGPU_PTE_HOST))
                return fault(SIMTGPU_FAULT_BAD_PTE);
            table = address;
            continue;
        }
        if (!(pte & kPermissionBits))
            return fault(SIMTGPU_FAULT_BAD_PTE); // a leaf grants something
        PageTranslation t;
        t.readable = pte & SIMTGPU_PTE_R;
        t.writable = pte & SIMTGPU_PTE_W;
        t.executable = pte & SIMTGPU_PTE_X;
        t.replayable = pte & SIMTGPU_PTE_REPLAY;
        if (pte & SIMTGPU_PTE_HOST) {
            t.bus_address = address;
        } else {
            if (!vram_.contains(address, SIMTGPU_PAGE_SIZE))
                return fault(SIMTGPU_FAULT_BAD_PTE);
            t.host = vram_.data() + address;
        }
        return t;
    }
    return fault(SIMTGPU_FAULT_NOT_PRESENT); // unreachable: level 0 returns
}

bool ContextMemory::dma_read(uint64_t bus_address, void *dst, uint64_t bytes) {
    if (!bus_.dma_read(bus_address, dst, bytes))
        return false;
    dma_bytes_ += bytes;
    return true;
}

bool ContextMemory::dma_write(uint64_t bus_address, const void *src, uint64_t bytes) {
    if (!bus_.dma_write(bus_address, src, bytes))
        return false;
    dma_bytes_ += bytes;
    return true;
}

bool ContextMemory::dma_cmpxchg(uint64_t bus_address, uint32_t size, uint64_t expected,
                                uint64_t desired, uint64_t &old) {
    if (!bus_.dma_cmpxchg(bus_address, size, expected, desired, old))
        return false;
    dma_bytes_ += size;
    return true;
}

PageTranslation ContextMemory::checked(uint64_t page_va, Access access) {
    PageTranslation t = translate(page_va);
    if (!t.fault && !permitted(t, access))
        t.fault = SIMTGPU_FAULT_PROTECTION;
    return t;
}

std::optional<MemoryFault> ContextMemory::read(uint64_t va, void *dst, uint64_t bytes,
                                               Access access) {
    auto *out = static_cast<uint8_t *>(dst);
    while (bytes > 0) {
        const uint64_t offset = va & (SIMTGPU_PAGE_SIZE - 1);
        const uint64_t chunk = std::min<uint64_t>(bytes, SIMTGPU_PAGE_SIZE - offset);
        const PageTranslation t = checked(va - offset, access);
        if (t.fault)
            return MemoryFault{t.fault, uint32_t(access), va};
        if (t.host)
            std::memcpy(out, t.host + offset, chunk);
        else if (!dma_read(t.bus_address + offset, out, chunk))
            return MemoryFault{SIMTGPU_FAULT_DMA, uint32_t(access), va};
        va += chunk;
        out += chunk;
        bytes -= chunk;
    }
    return std::nullopt;
}

std::optional<MemoryFault> ContextMemory::write(uint64_t va, const void *src, uint64_t bytes) {
    const auto *in = static_cast<const uint8_t *>(src);
    while (bytes > 0) {
        const uint64_t offset = va & (SIMTGPU_PAGE_SIZE - 1);
        const uint64_t chunk = std::min<uint64_t>(bytes, SIMTGPU_PAGE_SIZE - offset);
        const PageTranslation t = checked(va - offset, Access::Write);
        if (t.fault)
            return MemoryFault{t.fault, SIMTGPU_ACCESS_WRITE, va};
        if (t.host)
            std::memcpy(t.host + offset, in, chunk);
        else if (!dma_write(t.bus_address + offset, in, chunk))
            return MemoryFault{SIMTGPU_FAULT_DMA, SIMTGPU_ACCESS_WRITE, va};
        va += chunk;
        in += chunk;
        bytes -= chunk;
    }
    return std::nullopt;
}

std::optional<MemoryFault> ContextMemory::zero(uint64_t va, uint64_t bytes) {
    static constexpr uint8_t kZeros[SIMTGPU_PAGE_SIZE] = {};
    // Whole pages contiguous in VRAM are cleared together, in one call.
    uint64_t run_start = 0, run_bytes = 0;
    auto flush = [&] {
        if (run_bytes)
            vram_.clear(run_start, run_bytes);
        run_bytes = 0;
    };
    while (bytes > 0) {
        const uint64_t offset = va & (SIMTGPU_PAGE_SIZE - 1);
        const uint64_t chunk = std::min<uint64_t>(bytes, SIMTGPU_PAGE_SIZE - offset);
        const PageTranslation t = checked(va - offset, Access::Write);
        if (t.fault) {
            flush();
            return MemoryFault{t.fault, SIMTGPU_ACCESS_WRITE, va};
        }
        if (t.host && chunk == SIMTGPU_PAGE_SIZE) {
            const uint64_t at = uint64_t(t.host - vram_.data());
            if (run_bytes && at != run_start + run_bytes)
                flush();
            if (!run_bytes)
                run_start = at;
            run_bytes += chunk;
        } else {
            flush();
            if (t.host)
                std::memset(t.host + offset, 0, chunk);
            else if (!dma_write(t.bus_address + offset, kZeros, chunk))
                return MemoryFault{SIMTGPU_FAULT_DMA, SIMTGPU_ACCESS_WRITE, va};
        }
        va += chunk;
        bytes -= chunk;
    }
    flush();
    return std::nullopt;
}

} // namespace simtgpu::sim
