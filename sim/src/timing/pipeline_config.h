// The SM pipeline's parameters: the "timing" object of a simulator
// configuration file (docs/timing.md, "The SM pipeline", lists every field).
// A runtime object, validated when it is built.
#pragma once

#include "support/expected.h"

#include <nlohmann/json_fwd.hpp>

#include <array>
#include <cstdint>
#include <string>

namespace simtgpu::sim::timing {

// Instruction classes, each with its own functional unit per sub-core.
// X(name, latency, ii): the V100 defaults in cycles. latency is issue to
// result for a dependent instruction; ii (initiation interval) is how many
// cycles the unit takes one warp instruction for (32 lanes on 16 FP32 or
// INT32 lanes: 2). Jia et al. 2018 ("Dissecting the NVIDIA Volta GPU
// Architecture via Microbenchmarking") measure FFMA/IADD 4 and DFMA 8; the
// rest follow Accel-Sim's QV100 configuration (docs/timing.md).
// Memory classes (global, shared, atomic) have no latency here: it comes from
// the memory system (memory.l1, .shared, .l2, .dram); ii is the LSU's.
#define SIMTGPU_INSN_CLASSES(X)                                                                    \
    X(integer, 4, 2)                                                                               \
    X(fp32, 4, 2)                                                                                  \
    X(fp64, 8, 4)                                                                                  \
    X(multiply, 5, 2)                                                                              \
    X(sfu, 21, 8) /* divide, square root, transcendental */                                        \
    X(branch, 4, 1)                                                                                \
    X(barrier, 20, 1)                                                                              \
    X(global, 0, 1)                                                                                \
    X(shared, 0, 1)                                                                                \
    X(atomic, 0, 1)

enum class InsnClass : uint8_t {
#define SIMTGPU_X(name, latency, ii) name,
    SIMTGPU_INSN_CLASSES(SIMTGPU_X)
#undef SIMTGPU_X
};
inline constexpr uint32_t kInsnClasses = 0
#define SIMTGPU_X(name, latency, ii) +1
    SIMTGPU_INSN_CLASSES(SIMTGPU_X)
#undef SIMTGPU_X
    ;
const char *to_string(InsnClass c);
inline constexpr bool is_memory(InsnClass c) {
    return c == InsnClass::global || c == InsnClass::shared || c == InsnClass::atomic;
}

struct Unit {
    uint32_t latency = 0;
    uint32_t ii = 1;
};

struct PipelineConfig {
    // Warp schedulers (sub-cores) per SM, each issuing up to one warp
    // instruction per cycle; warp slot s belongs to sub-core s % this.
    uint32_t schedulers_per_sm = 4;
    std::array<Unit, kInsnClasses> units{{
#define SIMTGPU_X(name, latency, ii) {latency, ii},
        SIMTGPU_INSN_CLASSES(SIMTGPU_X)
#undef SIMTGPU_X
    }};

    const Unit &unit(InsnClass c) const {
        return units[size_t(c)];
    }
    Unit &unit(InsnClass c) {
        return units[size_t(c)];
    }

    // Builds the configuration from a "timing" object, e.g.
    // {"schedulers_per_sm": 4, "fp32": {"latency": 4, "ii": 2}}: absent
    // fields keep their defaults; an unknown field, a wrong type or a value
    // out of range is an error that starts with `where` and names the field.
    static Expected<PipelineConfig> from_json(const nlohmann::json &timing,
                                              const std::string &where);
};

} // namespace simtgpu::sim::timing
