// L2 access management: CUDA's persisting L2 lines (the "set-aside") and
// access policy windows, as the timing model's L2 applies them
// (docs/timing.md, "Persisting L2 lines"; hw.h, SIMTGPU_PKT_L2_POLICY).
//
// - The set-aside is a number of L2 lines, spread evenly over the sets: set s
//   may hold limit(s) persisting lines (0..assoc), the limits summing to
//   set_aside_bytes / line_bytes.
// - An access inside an access policy window gets a property: of the
//   window's lines, a hit_ratio fraction chosen by a hash of the line address
//   gets hit_prop, the others miss_prop (as CUDA: "hit" names the fraction,
//   not a cache hit). Outside every window an access is normal.
// - A missing line is inserted with its access's property (persisting only
//   where the set's limit is above 0: without a set-aside a persisting
//   access is a normal one); a hit gives the line its access's property (a
//   window access only: a normal access leaves a line as it is), a line
//   that was not persisting becoming so only while its set holds fewer
//   persisting lines than its limit.
// - Replacement (victim()): an empty line first. A persisting line coming in
//   to a set at its limit replaces the least recently used persisting line
//   (so a window larger than the set-aside thrashes within it, as CUDA
//   warns); put in an empty line there, it is normal.
//   Otherwise persisting lines are not candidates while the set holds no
//   more than its limit (a set-aside made smaller frees the surplus);
//   streaming lines go before normal ones, least recently used first.
// - reset_lines() makes every persisting line normal.
#pragma once

#include "mem/sectored_cache.h"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace simtgpu::sim::mem {

// The property of an access or of a line (the values of hw.h's
// SIMTGPU_L2_PROP_*).
enum class L2Property : uint8_t { normal = 0, streaming = 1, persisting = 2 };

constexpr uint32_t kL2HitRatioOne = 0x10000; // SIMTGPU_L2_HIT_RATIO_ONE

// CUDA's cudaAccessPolicyWindow, with the ratio in 1/65536ths.
struct L2AccessWindow {
    uint64_t base = 0;
    uint64_t bytes = 0; // 0: no window
    uint32_t hit_ratio = 0; // 0..kL2HitRatioOne
    L2Property hit_prop = L2Property::normal;
    L2Property miss_prop = L2Property::normal;

    bool operator==(const L2AccessWindow &) const = default;
};

class L2AccessPolicy {
public:
    L2AccessPolicy(uint32_t sets, uint32_t ways, uint32_t line_bytes)
        : sets_(sets), ways_(ways), line_bytes_(line_bytes) {}

    // The set-aside, in bytes (the caller checked it against its maximum).
    void set_aside(uint64_t bytes) {
        set_aside_bytes_ = bytes;
        set_aside_lines_ = std::min<uint64_t>(bytes / line_bytes_, uint64_t(sets_) * ways_);
    }
    uint64_t set_aside_bytes() const { return set_aside_bytes_; }

    // The persisting lines set `set` may hold.
    uint32_t limit(uint32_t set) const {
        return uint32_t((uint64_t(set) + 1) * set_aside_lines_ / sets_ -
                        uint64_t(set) * set_aside_lines_ / sets_);
    }

    // The windows in force (of every grid in flight).
    void set_windows(std::vector<L2AccessWindow> windows) { windows_ = std::move(windows); }
    const std::vector<L2AccessWindow> &windows() const { return windows_; }

    // Whether `line` (an address / line_bytes) lies in a window; if so,
    // `property` is what that window gives it. The first window that holds
    // it decides.
    bool classify(uint64_t line, L2Property &property) const {
        if (windows_.empty())
            return false;
        const uint64_t address = line * line_bytes_;
        for (const L2AccessWindow &w : windows_) {
            // A line overlapping the window belongs to it.
            if (w.bytes == 0 || address >= w.base + w.bytes || address + line_bytes_ <= w.base)
                continue;
            property = fraction(line) < w.hit_ratio ? w.hit_prop : w.miss_prop;
            return true;
        }
        return false;
    }

    // A hash of the line address, uniform in 0..kL2HitRatioOne - 1 (the
    // splitmix64 finaliser): which lines form the hit_ratio fraction.
    static uint32_t fraction(uint64_t line) {
        uint64_t z = line + 0x9e3779b97f4a7c15ull;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return uint32_t((z ^ (z >> 31)) & (kL2HitRatioOne - 1));
    }

    // The persisting lines of `set`.
    uint32_t persisting_in(const SectoredCache &cache, uint32_t set) const {
        uint32_t n = 0;
        for (uint32_t way = 0; way < ways_; ++way) {
            const CacheLine &l = cache.line(set * ways_ + way);
            n += l.tag != CacheLine::kNoTag && l.property == uint8_t(L2Property::persisting);
        }
        return n;
    }

    // What a line of `set` becomes when an access with `property` hits it
    // or fills it (already_persisting false, the line emptied first):
    // persisting only if it was, or within the limit.
    L2Property admit(const SectoredCache &cache, uint32_t set, L2Property property,
                     bool already_persisting) const {
        if (property != L2Property::persisting || already_persisting)
            return property;
        return persisting_in(cache, set) < limit(set) ? property : L2Property::normal;
    }

    // The line to replace in `set` for a line coming in with `incoming`
    // (persisting only where limit(set) > 0); kNone when every candidate
    // waits on a fill.
    uint32_t victim(const SectoredCache &cache, uint32_t set, L2Property incoming) const {
        const uint32_t base = set * ways_;
        const uint32_t persisting = persisting_in(cache, set), lim = limit(set);
        // Persisting coming in at the limit: only a persisting line may go.
        const bool among_persisting = incoming == L2Property::persisting && persisting >= lim;
        const bool protect = persisting <= lim;
        uint32_t best = kNone;
        auto rank = [](const CacheLine &l) {
            return l.property == uint8_t(L2Property::streaming) ? 0 : 1;
        };
        for (uint32_t way = 0; way < ways_; ++way) {
            const CacheLine &l = cache.line(base + way);
            if (l.tag == CacheLine::kNoTag)
                return base + way;
            if (l.pending != 0)
                continue;
            const bool p = l.property == uint8_t(L2Property::persisting);
            if (among_persisting ? !p : (p && protect))
                continue;
            if (best == kNone)
                best = base + way;
            else {
                const CacheLine &b = cache.line(best);
                if (rank(l) < rank(b) || (rank(l) == rank(b) && l.last_use < b.last_use))
                    best = base + way;
            }
        }
        return best;
    }

    // Every persisting line becomes normal.
    void reset_lines(SectoredCache &cache) const {
        for (uint64_t i = 0; i < uint64_t(sets_) * ways_; ++i) {
            CacheLine &l = cache.line(uint32_t(i));
            if (l.property == uint8_t(L2Property::persisting))
                l.property = uint8_t(L2Property::normal);
        }
    }

private:
    uint32_t sets_, ways_, line_bytes_;
    uint64_t set_aside_bytes_ = 0;
    uint64_t set_aside_lines_ = 0;
    std::vector<L2AccessWindow> windows_;
};

} // namespace simtgpu::sim::mem
