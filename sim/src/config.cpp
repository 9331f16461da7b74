// DeviceConfig::from: the one place a simtgpu_sim_config is checked. Every
// rejection names the field, the value and the allowed range, because the
// message reaches a person (QEMU's command line, a test, simt-run).
#include "config.h"

#include "config_file.h"
#include "dispatch/placement.h"
#include "mem/memory_system.h"
#include "simtgpu/hw.h"
#include "sm/reconvergence.h"
#include "sm/warp_scheduler.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <string_view>

namespace simtgpu::sim {
namespace {

constexpr uint32_t kMaxSms = 1024;
constexpr uint32_t kMaxWarpsPerSm = 256;
constexpr uint32_t kMaxWarpSize = 64; // ballots and masks are 64-bit
constexpr uint32_t kMaxCtasPerSm = 256;
constexpr uint32_t kMaxSharedPerSm = 16u << 20;
constexpr uint32_t kMaxClockKhz = 10'000'000; // 10 GHz
constexpr uint32_t kMaxMemLatency = 100'000;
constexpr uint32_t kMaxHostThreads = 256;

constexpr NumericField kNumericFields[] = {
    {"arch", &DeviceConfig::arch, &simtgpu_sim_config::arch, SIMTGPU_ARCH_SIMT1,
     SIMTGPU_ARCH_NEWEST},
    {"num_sms", &DeviceConfig::num_sms, &simtgpu_sim_config::num_sms, 1, kMaxSms},
    {"warps_per_sm", &DeviceConfig::warps_per_sm, &simtgpu_sim_config::warps_per_sm, 1,
     kMaxWarpsPerSm},
    {"warp_size", &DeviceConfig::warp_size, &simtgpu_sim_config::warp_size, 1, kMaxWarpSize},
    {"ctas_per_sm", &DeviceConfig::ctas_per_sm, &simtgpu_sim_config::ctas_per_sm, 1, kMaxCtasPerSm},
    {"shared_bytes_per_sm", &DeviceConfig::shared_bytes_per_sm,
     &simtgpu_sim_config::shared_bytes_per_sm, 1, kMaxSharedPerSm},
    {"clock_khz", &DeviceConfig::clock_khz, &simtgpu_sim_config::clock_khz, 1, kMaxClockKhz},
    {"mem_latency", &DeviceConfig::mem_latency, &simtgpu_sim_config::mem_latency, 1,
     kMaxMemLatency},
    {"host_threads", &DeviceConfig::host_threads, &simtgpu_sim_config::host_threads, 1,
     kMaxHostThreads},
};

const NameField kNameFields[] = {
    {"warp_scheduler", &DeviceConfig::warp_scheduler, &simtgpu_sim_config::warp_scheduler,
     kWarpSchedulers},
    {"reconvergence", &DeviceConfig::reconvergence, &simtgpu_sim_config::reconvergence,
     kReconvergencePolicies},
    {"placement", &DeviceConfig::placement, &simtgpu_sim_config::placement, kPlacementPolicies},
    {"sm_sharing", &DeviceConfig::sm_sharing, &simtgpu_sim_config::sm_sharing, kSmSharingModes},
};

std::string range_error(const char *field, uint64_t value, uint64_t lo, uint64_t hi,
                        const char *extra = "") {
    return std::string("simtgpu_sim_config.") + field + " = " + std::to_string(value) +
           " is out of range: allowed " + std::to_string(lo) + ".." + std::to_string(hi) + extra +
           " (0 selects the default)";
}

std::string policy_list(std::span<const std::string_view> names) {
    std::string out;
    for (auto name : names) {
        if (!out.empty())
            out += ", ";
        out += '"' + std::string(name) + '"';
    }
    return out;
}

} // namespace

std::span<const NumericField> numeric_fields() {
    return kNumericFields;
}
std::span<const NameField> name_fields() {
    return kNameFields;
}

std::string settle_max_threads_per_cta(DeviceConfig &c, uint32_t given) {
    const uint32_t sm_threads = c.warps_per_sm * c.warp_size;
    if (given > sm_threads)
        return std::to_string(given) + " is out of range: allowed 1.." +
               std::to_string(sm_threads) + " (warps_per_sm * warp_size: a CTA must fit on one SM)";
    c.max_threads_per_cta = given ? given : std::min<uint32_t>(1024, sm_threads);
    return {};
}

Expected<DeviceConfig> DeviceConfig::from(const simtgpu_sim_config &in) {
    if (in.struct_size < kSimConfigAbi3Size)
        return Error{"simtgpu_sim_config.struct_size = " + std::to_string(in.struct_size) +
                     " is smaller than the " + std::to_string(kSimConfigAbi3Size) +
                     " bytes of ABI 3's struct: set it to sizeof(simtgpu_sim_config)"};
    const char *file =
        in.struct_size >= kSimConfigAbi3Size + sizeof in.config ? in.config : nullptr;

    DeviceConfig c;
    uint32_t max_threads = 0; // 0: follows the SM's size
    if (file) {
        auto loaded = read_config_file(file);
        if (!loaded)
            return Error{loaded.error()};
        c = loaded->config;
        max_threads = loaded->max_threads_per_cta;
    }

    if (in.vram_bytes != 0) {
        if (in.vram_bytes % kVramGranule != 0 || in.vram_bytes > kVramMax)
            return Error{range_error("vram_bytes", in.vram_bytes, kVramGranule, kVramMax,
                                     ", a multiple of 2 MiB")};
        c.vram_bytes = in.vram_bytes;
    }
    for (const NumericField &f : kNumericFields) {
        const uint32_t given = in.*f.given;
        if (given == 0)
            continue;
        if (given < f.lo || given > f.hi)
            return Error{range_error(f.name, given, f.lo, f.hi)};
        c.*f.member = given;
    }
    if (in.max_threads_per_cta)
        max_threads = in.max_threads_per_cta;
    if (std::string problem = settle_max_threads_per_cta(c, max_threads); !problem.empty())
        return Error{"simtgpu_sim_config.max_threads_per_cta = " + problem};

    for (const NameField &f : kNameFields) {
        const char *given = in.*f.given;
        if (!given)
            continue;
        if (std::find(f.allowed.begin(), f.allowed.end(), given) == f.allowed.end())
            return Error{std::string("simtgpu_sim_config.") + f.name + " = \"" + given +
                         "\" is unknown: allowed " + policy_list(f.allowed) +
                         " (NULL selects the default)"};
        c.*f.member = given;
    }

    if (in.livelock_cycles != 0) {
        if (in.livelock_cycles < kMinLivelockCycles || in.livelock_cycles > kMaxLivelockCycles)
            return Error{range_error("livelock_cycles", in.livelock_cycles, kMinLivelockCycles,
                                     kMaxLivelockCycles)};
        c.livelock_cycles = in.livelock_cycles;
    }

    if ((in.dma_read == nullptr) != (in.dma_write == nullptr))
        return Error{"simtgpu_sim_config.dma_read and dma_write must be both set or both NULL"};
    if (in.dma_cmpxchg && !in.dma_read)
        return Error{"simtgpu_sim_config.dma_cmpxchg needs dma_read and dma_write: set them too, "
                     "or leave dma_cmpxchg NULL"};
    // The memory system checks what depends on the SM clock too (a DRAM
    // latency that covers a row activation and a burst).
    if (c.model == Model::timing) {
        if (auto memory = mem::MemorySystem::create(c.memory, 1, c.clock_khz); !memory)
            return Error{(file ? std::string(file) + ": " : std::string()) + memory.error()};
    }
    return c;
}

} // namespace simtgpu::sim
