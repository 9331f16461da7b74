// DeviceConfig::from: the one place a simtgpu_sim_config is checked. Every
// rejection names the field, the value and the allowed range, because the
// message reaches a person (QEMU's command line, a test, simt-run).
#include "config.h"

#include "core/policy.h"
#include "device/placement.h"
#include "simtgpu/hw.h"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <string_view>

namespace simtgpu::sim {
namespace {

constexpr uint64_t kVramGranule = 2ull << 20;
constexpr uint64_t kVramMax = 1ull << 40; // 1 TiB: more than any host here has
constexpr uint32_t kMaxSms = 1024;
constexpr uint32_t kMaxWarpsPerSm = 256;
constexpr uint32_t kMaxWarpSize = 64; // ballots and masks are 64-bit
constexpr uint32_t kMaxCtasPerSm = 256;
constexpr uint32_t kMaxSharedPerSm = 16u << 20;
constexpr uint32_t kMaxClockKhz = 10'000'000; // 10 GHz
constexpr uint32_t kMaxMemLatency = 100'000;
constexpr uint64_t kMinLivelockCycles = 1024; // sampled every window / 8 cycles
constexpr uint64_t kMaxLivelockCycles = 1ull << 48;

std::string range_error(const char *field, uint64_t value, uint64_t lo, uint64_t hi,
                        const char *extra = "") {
    return std::string("simtgpu_sim_config.") + field + " = " + std::to_string(value) +
           " is out of range: allowed " + std::to_string(lo) + ".." + std::to_string(hi) +
           extra + " (0 selects the default)";
}

template <size_t N>
std::string policy_list(const std::array<std::string_view, N> &names) {
    std::string out;
    for (auto name : names) {
        if (!out.empty())
            out += ", ";
        out += '"' + std::string(name) + '"';
    }
    return out;
}

template <size_t N>
bool known(const std::array<std::string_view, N> &names, std::string_view name) {
    for (auto known_name : names)
        if (known_name == name)
            return true;
    return false;
}

// Zero means "default"; anything else must lie in [lo, hi].
bool pick(uint64_t given, uint64_t lo, uint64_t hi, uint64_t &field) {
    if (given == 0)
        return true;
    if (given < lo || given > hi)
        return false;
    field = given;
    return true;
}

} // namespace

Expected<DeviceConfig> DeviceConfig::from(const simtgpu_sim_config &in) {
    if (in.struct_size < sizeof(simtgpu_sim_config))
        return Error{"simtgpu_sim_config.struct_size = " + std::to_string(in.struct_size) +
                     " is smaller than this library's " +
                     std::to_string(sizeof(simtgpu_sim_config)) +
                     " bytes: set it to sizeof(simtgpu_sim_config)"};

    DeviceConfig c;
    uint64_t v = 0;

    v = c.arch;
    if (!pick(in.arch, SIMTGPU_ARCH_SIMT1, SIMTGPU_ARCH_NEWEST, v))
        return Error{range_error("arch", in.arch, SIMTGPU_ARCH_SIMT1, SIMTGPU_ARCH_NEWEST)};
    c.arch = uint32_t(v);

    if (in.vram_bytes != 0) {
        if (in.vram_bytes % kVramGranule != 0 || in.vram_bytes > kVramMax)
            return Error{range_error("vram_bytes", in.vram_bytes, kVramGranule, kVramMax,
                                     ", a multiple of 2 MiB")};
        c.vram_bytes = in.vram_bytes;
    }

    struct U32Field {
        const char *name;
        uint32_t given, lo, hi;
        uint32_t &field;
    };
    const U32Field fields[] = {
        {"num_sms", in.num_sms, 1, kMaxSms, c.num_sms},
        {"warps_per_sm", in.warps_per_sm, 1, kMaxWarpsPerSm, c.warps_per_sm},
        {"warp_size", in.warp_size, 1, kMaxWarpSize, c.warp_size},
        {"ctas_per_sm", in.ctas_per_sm, 1, kMaxCtasPerSm, c.ctas_per_sm},
        {"shared_bytes_per_sm", in.shared_bytes_per_sm, 1, kMaxSharedPerSm,
         c.shared_bytes_per_sm},
        {"clock_khz", in.clock_khz, 1, kMaxClockKhz, c.clock_khz},
        {"mem_latency", in.mem_latency, 1, kMaxMemLatency, c.mem_latency},
    };
    for (const U32Field &f : fields) {
        v = f.field;
        if (!pick(f.given, f.lo, f.hi, v))
            return Error{range_error(f.name, f.given, f.lo, f.hi)};
        f.field = uint32_t(v);
    }

    // A CTA must fit on one SM: the largest block is all warp slots full.
    const uint32_t sm_threads = c.warps_per_sm * c.warp_size;
    if (in.max_threads_per_cta == 0) {
        c.max_threads_per_cta = std::min<uint32_t>(1024, sm_threads);
    } else if (in.max_threads_per_cta > sm_threads) {
        return Error{range_error("max_threads_per_cta", in.max_threads_per_cta, 1, sm_threads,
                                 " (warps_per_sm * warp_size: a CTA must fit on one SM)")};
    } else {
        c.max_threads_per_cta = in.max_threads_per_cta;
    }

    if (in.warp_scheduler) {
        if (!known(kWarpSchedulers, in.warp_scheduler))
            return Error{std::string("simtgpu_sim_config.warp_scheduler = \"") +
                         in.warp_scheduler + "\" is unknown: allowed " +
                         policy_list(kWarpSchedulers) + " (NULL selects the default)"};
        c.warp_scheduler = in.warp_scheduler;
    }
    if (in.reconvergence) {
        if (!known(kReconvergencePolicies, in.reconvergence))
            return Error{std::string("simtgpu_sim_config.reconvergence = \"") +
                         in.reconvergence + "\" is unknown: allowed " +
                         policy_list(kReconvergencePolicies) + " (NULL selects the default)"};
        c.reconvergence = in.reconvergence;
    }
    if (in.placement) {
        if (!known(kPlacementPolicies, in.placement))
            return Error{std::string("simtgpu_sim_config.placement = \"") + in.placement +
                         "\" is unknown: allowed " + policy_list(kPlacementPolicies) +
                         " (NULL selects the default)"};
        c.placement = in.placement;
    }
    if (in.sm_sharing) {
        if (!known(kSmSharingModes, in.sm_sharing))
            return Error{std::string("simtgpu_sim_config.sm_sharing = \"") + in.sm_sharing +
                         "\" is unknown: allowed " + policy_list(kSmSharingModes) +
                         " (NULL selects the default)"};
        c.sm_sharing = in.sm_sharing;
    }

    if (!pick(in.livelock_cycles, kMinLivelockCycles, kMaxLivelockCycles, c.livelock_cycles))
        return Error{range_error("livelock_cycles", in.livelock_cycles, kMinLivelockCycles,
                                 kMaxLivelockCycles)};

    if ((in.dma_read == nullptr) != (in.dma_write == nullptr))
        return Error{"simtgpu_sim_config.dma_read and dma_write must be both set or both NULL"};
    return c;
}

} // namespace simtgpu::sim
