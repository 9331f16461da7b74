// How an SM reaches memory outside its shared and local windows: through the
// MMU of the launch's context (implemented in sim/src/device/mmu.*).
#pragma once

#include <cstdint>

namespace simtgpu::sim {

enum class Access : uint8_t { Read = 0, Write = 1, Exec = 2, Atomic = 3 }; // = SIMTGPU_ACCESS_*

// Result of translating one virtual page.
struct PageTranslation {
    uint32_t fault = 0;       // 0, or SIMTGPU_FAULT_*
    uint8_t *host = nullptr;  // host pointer of the page start when it is in VRAM
    uint64_t bus_address = 0; // page bus address when it is host memory (host == nullptr)
    bool readable = false, writable = false, executable = false;
    // The leaf PTE has SIMTGPU_PTE_REPLAY. With fault NOT_PRESENT: the access
    // may wait for the driver to map the page (a replayable fault); on a valid
    // page: so may a write or atomic it does not permit (hw 1.6).
    bool replayable = false;
};

// One context's view of memory. translate() is the TLB-miss path; the SM
// keeps its own per-launch TLB of the results, valid until the driver
// invalidates it (SIMTGPU_REG_TLB_INVALIDATE) after changing a valid PTE. Pages in host memory have no
// host pointer and go through dma_read/dma_write.
class GlobalMemory {
public:
    virtual ~GlobalMemory() = default;
    virtual PageTranslation translate(uint64_t page_va) = 0;
    // Host-memory pages: returns false when the host refused the access.
    virtual bool dma_read(uint64_t bus_address, void *dst, uint64_t bytes) = 0;
    virtual bool dma_write(uint64_t bus_address, const void *src, uint64_t bytes) = 0;
    // An atomic compare-and-exchange of 4 or 8 bytes: `old` receives the
    // value before; the store happened iff it equals `expected`.
    virtual bool dma_cmpxchg(uint64_t bus_address, uint32_t size, uint64_t expected,
                             uint64_t desired, uint64_t &old) = 0;
};

} // namespace simtgpu::sim
