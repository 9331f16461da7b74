// The memory hierarchy's parameters: the "memory" object of a simulator
// configuration file (docs/timing-memory.md lists every field, its unit, its
// range and its default). A runtime object, validated when it is built.
#pragma once

#include "support/expected.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <string>

namespace simtgpu::sim::mem {

enum class L1WritePolicy : uint8_t {
    // Volta: a store updates a line it hits, never allocates one, and always
    // goes on to L2.
    write_through_no_allocate,
    // Fermi/Kepler global stores: a store invalidates the sectors it hits.
    write_evict,
};

enum class DramScheduler : uint8_t {
    fcfs,    // each bank serves its requests in arrival order
    fr_fcfs, // row hits first, then the oldest (Rixner et al., ISCA 2000)
};

// The defaults are a V100 (Accel-Sim's tuned QV100 configuration and the
// Volta microbenchmark study of Jia et al., 2018).
struct MemoryConfig {
    struct L1 {
        // The geometry of both caches and of the coalescer's requests.
        uint32_t line_bytes = 128;
        uint32_t sector_bytes = 32;
        uint64_t size_bytes = 128 << 10;
        uint32_t assoc = 4;
        uint32_t mshrs = 32;       // lines with sectors in flight, per SM
        uint32_t mshr_merge = 8;   // warp accesses one such line may hold
        uint32_t hit_latency = 28; // cycles, issue to data, of an L1 hit
        L1WritePolicy write_policy = L1WritePolicy::write_through_no_allocate;
    } l1;

    struct Shared {
        uint32_t banks = 32;
        uint32_t bank_bytes = 4;
        uint32_t latency = 20; // cycles of a conflict-free access
    } shared;

    struct L2 {
        uint64_t size_bytes = 6 << 20;
        uint32_t assoc = 16;
        uint32_t slices = 32;
        uint32_t hit_latency = 212; // cycles, issue to data, of an L2 hit
        // L2 access management (CUDA's persisting lines, l2_access_policy.h):
        // the most bytes of L2 a driver may set aside for persisting lines,
        // and the largest access policy window. 0 and 0: none (a V100).
        uint64_t persisting_max_bytes = 0;
        uint64_t access_window_max_bytes = 0;
    } l2;

    struct Dram {
        uint32_t channels = 8;
        uint32_t bus_width_bits = 4096; // reported to software; timing uses bandwidth_gbps
        uint32_t clock_khz = 877000;    // the unit of t_rcd and t_rp
        double bandwidth_gbps = 900;    // 10^9 bytes per second, all channels together
        uint32_t latency = 460; // cycles, issue to data, of a load missing L2 into a closed row
        uint32_t row_bytes = 2048;
        uint32_t banks_per_channel = 16;
        uint32_t t_rcd = 12; // DRAM cycles to open a row (activate)
        uint32_t t_rp = 12;  // DRAM cycles to close one (precharge)
        DramScheduler scheduler = DramScheduler::fr_fcfs;
    } dram;

    uint32_t sectors_per_line() const { return l1.line_bytes / l1.sector_bytes; }

    // Builds the configuration from a "memory" object: absent fields keep
    // their defaults; an unknown field, a wrong type or a value out of range
    // is an error that starts with `where` (the file) and names the field.
    static Expected<MemoryConfig> from_json(const nlohmann::json &memory, const std::string &where);
};

const char *to_string(L1WritePolicy policy);
const char *to_string(DramScheduler scheduler);

} // namespace simtgpu::sim::mem
