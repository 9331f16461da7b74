// What one warp memory instruction asks of the memory system: the coalescer
// turns a global access into sector requests grouped by cache line, and a
// shared-memory access into bank passes.
#pragma once

#include <array>
#include <cstdint>

namespace simtgpu::sim::mem {

constexpr uint32_t kMaxLanes = 64;  // warps of up to 64 lanes (masks are 64-bit)
constexpr uint32_t kMaxSectors = 8; // sectors per line (MemoryConfig allows 1..8)

enum class AccessKind : uint8_t { load, store, atomic, shared_load, shared_store };

// One warp memory instruction, as the functional core records it. Every
// active lane accesses `lane_bytes` bytes at address[lane] (one instruction
// has one access size).
struct WarpAccess {
    uint32_t sm = 0;
    uint32_t warp = 0;
    AccessKind kind = AccessKind::load;
    uint32_t lane_bytes = 4; // 1..16
    uint64_t active_mask = 0;
    std::array<uint64_t, kMaxLanes> address{};
};

// The sectors one access needs from one line, in the order lanes first touch
// lines (Volta's L1 handles one line per cycle).
struct LineRequest {
    uint64_t line = 0;       // address / line_bytes
    uint8_t sector_mask = 0; // bit s = sector s of the line
    // Atomics: the most lanes updating one address inside each sector; they
    // serialise at L2, other lanes of the sector proceed in parallel.
    std::array<uint8_t, kMaxSectors> atomic_ops{};
};

struct CoalescedAccess {
    uint32_t count = 0;
    // A lane may straddle two lines, so up to two lines per lane.
    std::array<LineRequest, 2 * kMaxLanes> lines;

    uint32_t sectors() const;
};

// Groups the active lanes' bytes into 32-byte (sector_bytes) sectors of
// 128-byte (line_bytes) lines. Both sizes are powers of two.
void coalesce(const WarpAccess &access, uint32_t line_bytes, uint32_t sector_bytes,
              CoalescedAccess &out);

struct SharedPasses {
    uint32_t passes = 0;    // bank cycles the access takes
    uint32_t conflicts = 0; // passes beyond the fewest its bytes could take
};

// Shared memory: `banks` banks of `bank_bytes`; lanes reading the same word
// share it (broadcast), different words in one bank take one pass each.
SharedPasses shared_passes(const WarpAccess &access, uint32_t banks, uint32_t bank_bytes);

} // namespace simtgpu::sim::mem
