// The simulated device's configuration: a runtime object, validated when it
// is built, shared by every part of the simulator.
#pragma once

#include "mem/memory_config.h"
#include "simtgpu/sim.h"
#include "support/expected.h"
#include "timing/pipeline_config.h"

#include <cstdint>
#include <string>

namespace simtgpu::sim {

// functional: each warp runs bursts of instructions, a global access adds
// mem_latency (fast; IPC <= 1). timing: the SM pipeline of sim/src/timing
// (sub-cores, scoreboard, functional units) over the memory system of
// sim/src/mem; docs/timing.md.
enum class Model : uint8_t { functional, timing };

struct DeviceConfig {
    uint32_t arch = 2;                  // SIMTGPU_ARCH_*
    uint64_t vram_bytes = 16ull << 30; // multiple of 2 MiB
    uint32_t num_sms = 4;
    // A Volta-class SM (V100): 64 warp slots (2048 threads, two 1024-thread
    // blocks), 32 CTA slots, 96 KiB of shared memory.
    uint32_t warps_per_sm = 64;
    uint32_t warp_size = 32; // 1..64
    uint32_t ctas_per_sm = 32;
    uint32_t shared_bytes_per_sm = 96 << 10;
    uint32_t max_threads_per_cta = 1024;
    uint32_t max_stack_per_thread = 1 << 20;
    uint32_t clock_khz = 1000000;
    uint32_t mem_latency = 20; // cycles a global access adds to its warp
    std::string warp_scheduler = "round-robin";
    std::string reconvergence = "min-pc";
    std::string placement = "breadth-first"; // device/placement.h
    std::string sm_sharing = "same-context"; // device/placement.h
    // Cycles without forward progress, while a warp that could issue is
    // starved, after which a launch fails as a livelock (core/livelock.h).
    uint64_t livelock_cycles = 1ull << 26;
    Model model = Model::functional;
    timing::PipelineConfig timing; // model timing only
    mem::MemoryConfig memory;      // model timing only

    // Validates every field (ranges, names of policies) and fills defaults
    // for zeros, as documented in simtgpu/sim.h.
    static Expected<DeviceConfig> from(const simtgpu_sim_config &config);
    // The defaults, validated.
    static DeviceConfig defaults() { return DeviceConfig{}; }
};

} // namespace simtgpu::sim
