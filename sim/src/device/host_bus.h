// The host side of the device: DMA to host bus addresses, MSI-X and giving
// host-provided VRAM back, through the callbacks of simtgpu_sim_config. Any
// of them may be absent.
#pragma once

#include "simtgpu/sim.h"

#include <cstdint>
#include <mutex>

namespace simtgpu::sim {

struct HostBus {
    simtgpu_dma_fn dma_read_fn = nullptr;
    simtgpu_dma_write_fn dma_write_fn = nullptr;
    simtgpu_irq_fn raise_irq_fn = nullptr;
    void *opaque = nullptr;
    simtgpu_vram_discard_fn vram_discard_fn = nullptr; // for host-provided VRAM
    simtgpu_dma_cmpxchg_fn dma_cmpxchg_fn = nullptr;

    bool dma_read(uint64_t bus_address, void *dst, uint64_t bytes) const {
        return dma_read_fn && dma_read_fn(opaque, bus_address, dst, bytes) == 0;
    }
    bool dma_write(uint64_t bus_address, const void *src, uint64_t bytes) const {
        return dma_write_fn && dma_write_fn(opaque, bus_address, src, bytes) == 0;
    }
    // `old` receives the `size` bytes before; the store happened iff they
    // equal `expected`'s low `size` bytes.
    bool dma_cmpxchg(uint64_t bus_address, uint32_t size, uint64_t expected, uint64_t desired,
                     uint64_t &old) const {
        if (dma_cmpxchg_fn)
            return dma_cmpxchg_fn(opaque, bus_address, size, expected, desired, &old) == 0;
        // No host atomic: one lock keeps the device's own atomics whole.
        static std::mutex without_host_atomics;
        const std::lock_guard lock(without_host_atomics);
        const uint64_t width_mask = size == 8 ? ~uint64_t(0) : 0xffff'ffffull;
        old = 0;
        if (!dma_read(bus_address, &old, size))
            return false;
        return (old & width_mask) != (expected & width_mask) ||
               dma_write(bus_address, &desired, size);
    }
    void raise_irq(uint32_t vector) const {
        if (raise_irq_fn)
            raise_irq_fn(opaque, vector);
    }
};

} // namespace simtgpu::sim
