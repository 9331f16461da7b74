// The memory system's event counters, kept per SM (global = their sum):
// the fields of SIMTGPU_MEMORY_COUNTERS in include/simtgpu/counters.h, the
// one list of the device's counters.
#pragma once

#include "simtgpu/counters.h"

#include <array>
#include <cstdint>
#include <string_view>

namespace simtgpu::sim::mem {

struct MemoryCounters {
#define SIMTGPU_X(name, unit, ncu, what) uint64_t name = 0;
    SIMTGPU_MEMORY_COUNTERS(SIMTGPU_X)
#undef SIMTGPU_X

    MemoryCounters &operator+=(const MemoryCounters &other);
};

struct MemoryCounterField {
    std::string_view name;
    uint64_t MemoryCounters::*member;
};

inline constexpr std::array kMemoryCounterFields{
#define SIMTGPU_X(name, unit, ncu, what) MemoryCounterField{#name, &MemoryCounters::name},
    SIMTGPU_MEMORY_COUNTERS(SIMTGPU_X)
#undef SIMTGPU_X
};

inline MemoryCounters &MemoryCounters::operator+=(const MemoryCounters &other) {
    for (const auto &field : kMemoryCounterFields)
        this->*field.member += other.*field.member;
    return *this;
}

} // namespace simtgpu::sim::mem
