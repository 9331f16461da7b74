// The tag array of a sectored, set-associative, LRU cache: each line has a
// tag and, per sector, valid / pending (a fill in flight) / dirty bits. A line
// with pending sectors is an MSHR: it keeps the list of requests waiting for
// its fills and cannot be evicted until they arrive.
#pragma once

#include <cstdint>
#include <vector>

namespace simtgpu::sim::mem {

constexpr uint32_t kNone = UINT32_MAX;

struct CacheLine {
    static constexpr uint64_t kNoTag = UINT64_MAX;
    uint64_t tag = kNoTag;    // the line address
    uint64_t last_use = 0;    // LRU stamp
    uint32_t waiters = kNone; // first request waiting on a pending sector
    uint8_t valid = 0;
    uint8_t pending = 0;
    uint8_t dirty = 0;
    uint8_t merged = 0; // L1: warp accesses waiting on this line
    uint8_t property = 0; // L2: its mem::L2Property (l2_access_policy.h)
};

class SectoredCache {
public:
    SectoredCache(uint32_t sets, uint32_t ways) : ways_(ways), lines_(size_t(sets) * ways) {}

    uint32_t ways() const { return ways_; }
    CacheLine &line(uint32_t index) { return lines_[index]; }
    const CacheLine &line(uint32_t index) const { return lines_[index]; }

    // The index of the line holding `tag` in `set`, or kNone.
    uint32_t find(uint32_t set, uint64_t tag) const {
        uint32_t base = set * ways_;
        for (uint32_t way = 0; way < ways_; ++way)
            if (lines_[base + way].tag == tag)
                return base + way;
        return kNone;
    }

    // The line to replace in `set`: an empty one, else the least recently
    // used one without fills in flight; kNone when every line waits on one.
    uint32_t victim(uint32_t set) const {
        uint32_t base = set * ways_, best = kNone;
        for (uint32_t way = 0; way < ways_; ++way) {
            const CacheLine &l = lines_[base + way];
            if (l.tag == CacheLine::kNoTag)
                return base + way;
            if (l.pending == 0 && (best == kNone || l.last_use < lines_[best].last_use))
                best = base + way;
        }
        return best;
    }

    void touch(uint32_t index) { lines_[index].last_use = ++clock_; }

    // Clears every valid sector; lines waiting on fills stay allocated.
    void invalidate() {
        for (CacheLine &l : lines_)
            l.valid = 0;
    }

private:
    uint32_t ways_;
    uint64_t clock_ = 0;
    std::vector<CacheLine> lines_;
};

} // namespace simtgpu::sim::mem
