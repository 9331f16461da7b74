// The MMU of one context: walks the four-level page tables of
// include/simtgpu/hw.h in VRAM. It is the GlobalMemory the SMs of a launch
// use (they keep their own TLB of translate()'s answers), and it gives the
// command processor whole-range reads and writes with permission checks for
// COPY, FILL, FENCE, TIMESTAMP, indirect-buffer fetch and launch reports.
#pragma once

#include "device/host_bus.h"
#include "device/vram.h"
#include "sm/global_memory.h"

#include <cstdint>
#include <optional>

namespace simtgpu::sim {

// A failed access: the fields of a SIMTGPU_EXC_PAGE_FAULT record.
struct MemoryFault {
    uint32_t fault = 0;  // SIMTGPU_FAULT_*
    uint32_t access = 0; // SIMTGPU_ACCESS_*
    uint64_t address = 0;
};

class ContextMemory final : public GlobalMemory {
public:
    // root_table: VRAM offset of the level-3 table, or nullopt when no
    // SET_CONTEXT ran (every access then faults with NO_CONTEXT).
    ContextMemory(const Vram &vram, const HostBus &bus, std::optional<uint64_t> root_table)
        : vram_(vram), bus_(bus), root_(root_table) {}

    PageTranslation translate(uint64_t page_va) override;
    bool dma_read(uint64_t bus_address, void *dst, uint64_t bytes) override;
    bool dma_write(uint64_t bus_address, const void *src, uint64_t bytes) override;
    bool dma_cmpxchg(uint64_t bus_address, uint32_t size, uint64_t expected, uint64_t desired,
                     uint64_t &old) override;

    // Whole-range accesses, page by page; on a fault nothing more is
    // transferred (earlier pages may have been written).
    std::optional<MemoryFault> read(uint64_t va, void *dst, uint64_t bytes,
                                    Access access = Access::Read);
    std::optional<MemoryFault> write(uint64_t va, const void *src, uint64_t bytes);
    // write() of `bytes` zeros, except that whole pages in VRAM are cleared
    // with Vram::clear, which gives them back to the host: a cudaMemset(0) of
    // a large buffer costs the host nothing until the buffer is written.
    std::optional<MemoryFault> zero(uint64_t va, uint64_t bytes);

    uint64_t dma_bytes() const { return dma_bytes_; }

private:
    // Translate and check the permission `access` needs.
    PageTranslation checked(uint64_t page_va, Access access);

    const Vram &vram_;
    const HostBus &bus_;
    std::optional<uint64_t> root_;
    uint64_t dma_bytes_ = 0;
};

} // namespace simtgpu::sim
