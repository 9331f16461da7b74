// The simulated device's configuration: a runtime object, validated when it
// is built, shared by every part of the simulator.
#pragma once

#include "mem/memory_config.h"
#include "simtgpu/sim.h"
#include "support/expected.h"
#include "timing/pipeline_config.h"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace simtgpu::sim {

// functional: each warp runs bursts of instructions, a global access adds
// mem_latency (fast; IPC <= 1). timing: the SM pipeline of sim/src/timing
// (sub-cores, scoreboard, functional units) over the memory system of
// sim/src/mem; docs/timing.md.
enum class Model : uint8_t { functional, timing };

struct DeviceConfig {
    uint32_t arch = 2;                 // SIMTGPU_ARCH_*
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
    // Host threads that run the functional model's SMs (dispatch/sm_workers.h);
    // the same results for every count, by design.
    uint32_t host_threads = 1;
    std::string warp_scheduler = "round-robin";
    std::string reconvergence = "min-pc";
    std::string placement = "breadth-first"; // dispatch/placement.h
    std::string sm_sharing = "same-context"; // dispatch/placement.h
    // Cycles without forward progress, while a warp that could issue is
    // starved, after which a launch fails as a livelock (dispatch/livelock.h).
    uint64_t livelock_cycles = 1ull << 26;
    // How long the driver takes to service a replayable page fault: a
    // replayed warp resumes no earlier than its fault's cycle plus this
    // (docs/hardware.md; about 20 us on Pascal..Volta UVM, as measured by
    // Allen and Ge, "Demystifying GPU UVM Cost", IPDPS 2021).
    uint32_t fault_service_ns = 20'000;
    Model model = Model::functional;
    timing::PipelineConfig timing; // model timing only: the file's "timing" section
    // The configuration file's "name" (empty: no file), reported by the device.
    std::string name;
    // The memory hierarchy's parameters (the file's "memory" section).
    mem::MemoryConfig memory;

    // Validates every field (ranges, names of policies) and fills defaults
    // for zeros, as documented in simtgpu/sim.h. A configuration file named
    // by config.config comes first; the non-zero fields then override it.
    static Expected<DeviceConfig> from(const simtgpu_sim_config &config);
    // The defaults, validated.
    static DeviceConfig defaults() { return DeviceConfig{}; }
};

// The fields that both simtgpu_sim_config and a configuration file set, with
// their limits: one table, so the two ways in cannot disagree.
struct NumericField {
    const char *name;
    uint32_t DeviceConfig::*member;
    uint32_t simtgpu_sim_config::*given; // 0 = not given
    uint32_t lo, hi;
};
struct NameField {
    const char *name;
    std::string DeviceConfig::*member;
    const char *simtgpu_sim_config::*given; // NULL = not given
    std::span<const std::string_view> allowed;
};
std::span<const NumericField> numeric_fields();
std::span<const NameField> name_fields();

// The size of ABI 3's simtgpu_sim_config (without `config`), still accepted.
inline constexpr size_t kSimConfigAbi3Size = offsetof(simtgpu_sim_config, config);

// Limits of the fields with rules of their own.
inline constexpr uint64_t kVramGranule = 2ull << 20;
inline constexpr uint64_t kVramMax = 1ull << 40;     // 1 TiB: more than any host here has
inline constexpr uint64_t kMinLivelockCycles = 1024; // sampled every window / 8 cycles
inline constexpr uint64_t kMaxLivelockCycles = 1ull << 48;
inline constexpr uint32_t kMaxFaultServiceNs = 1'000'000'000; // a second

// A CTA must fit on one SM: max_threads_per_cta, when not given (0), is
// min(1024, warps_per_sm * warp_size); when given it may not exceed that
// product. Returns the problem with the value ("2048 is out of range: ..."),
// or an empty string.
std::string settle_max_threads_per_cta(DeviceConfig &config, uint32_t given);

} // namespace simtgpu::sim
