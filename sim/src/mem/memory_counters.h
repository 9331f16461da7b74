// The memory system's event counters, kept per SM (global = their sum). The
// list is defined once, in kMemoryCounterFields, for every layer to iterate.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace simtgpu::sim::mem {

struct MemoryCounters {
    uint64_t l1_sector_hits = 0;   // load sectors found valid in L1
    uint64_t l1_sector_misses = 0; // load sectors L1 requested from L2
    uint64_t l1_sector_merges = 0; // load sectors that joined a fill in flight (MSHR merge)
    uint64_t l2_sector_hits = 0;   // sectors (load, store, atomic) found in L2
    uint64_t l2_sector_misses = 0; // sectors L2 had to fetch from DRAM or allocate
    uint64_t dram_read_bytes = 0;
    uint64_t dram_write_bytes = 0;      // dirty sectors written back by L2
    uint64_t dram_row_hits = 0;         // DRAM accesses that found their row open
    uint64_t dram_row_misses = 0;       // those that opened it (after closing another, or not)
    uint64_t shared_passes = 0;         // bank cycles of shared-memory accesses
    uint64_t shared_bank_conflicts = 0; // passes beyond the fewest possible
    uint64_t mshr_throttles = 0;        // issue() refusals: no MSHR or no line to allocate
    uint64_t atomic_ops = 0;            // serialised atomic operations performed at L2

    MemoryCounters &operator+=(const MemoryCounters &other);
};

struct MemoryCounterField {
    std::string_view name;
    uint64_t MemoryCounters::*member;
};

inline constexpr std::array kMemoryCounterFields{
    MemoryCounterField{"l1_sector_hits", &MemoryCounters::l1_sector_hits},
    MemoryCounterField{"l1_sector_misses", &MemoryCounters::l1_sector_misses},
    MemoryCounterField{"l1_sector_merges", &MemoryCounters::l1_sector_merges},
    MemoryCounterField{"l2_sector_hits", &MemoryCounters::l2_sector_hits},
    MemoryCounterField{"l2_sector_misses", &MemoryCounters::l2_sector_misses},
    MemoryCounterField{"dram_read_bytes", &MemoryCounters::dram_read_bytes},
    MemoryCounterField{"dram_write_bytes", &MemoryCounters::dram_write_bytes},
    MemoryCounterField{"dram_row_hits", &MemoryCounters::dram_row_hits},
    MemoryCounterField{"dram_row_misses", &MemoryCounters::dram_row_misses},
    MemoryCounterField{"shared_passes", &MemoryCounters::shared_passes},
    MemoryCounterField{"shared_bank_conflicts", &MemoryCounters::shared_bank_conflicts},
    MemoryCounterField{"mshr_throttles", &MemoryCounters::mshr_throttles},
    MemoryCounterField{"atomic_ops", &MemoryCounters::atomic_ops},
};

inline MemoryCounters &MemoryCounters::operator+=(const MemoryCounters &other) {
    for (const auto &field : kMemoryCounterFields)
        this->*field.member += other.*field.member;
    return *this;
}

} // namespace simtgpu::sim::mem
