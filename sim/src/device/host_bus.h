// The host side of the device: DMA to host bus addresses, MSI-X and giving
// host-provided VRAM back, through the callbacks of simtgpu_sim_config. Any
// of them may be absent.
#pragma once

#include "simtgpu/sim.h"

#include <cstdint>

namespace simtgpu::sim {

struct HostBus {
    simtgpu_dma_fn dma_read_fn = nullptr;
    simtgpu_dma_write_fn dma_write_fn = nullptr;
    simtgpu_irq_fn raise_irq_fn = nullptr;
    void *opaque = nullptr;
    simtgpu_vram_discard_fn vram_discard_fn = nullptr; // for host-provided VRAM

    bool dma_read(uint64_t bus_address, void *dst, uint64_t bytes) const {
        return dma_read_fn && dma_read_fn(opaque, bus_address, dst, bytes) == 0;
    }
    bool dma_write(uint64_t bus_address, const void *src, uint64_t bytes) const {
        return dma_write_fn && dma_write_fn(opaque, bus_address, src, bytes) == 0;
    }
    void raise_irq(uint32_t vector) const {
        if (raise_irq_fn)
            raise_irq_fn(opaque, vector);
    }
};

} // namespace simtgpu::sim
