// Persisting L2 lines (mem/l2_access_policy.h): lines an access policy
// window marks persisting survive a sweep larger than L2, within the
// set-aside and no further; a reset makes them normal again; streaming
// lines go first; hit_ratio picks its fraction of the window; counters and
// configuration checks.
#include "mem/memory_system.h"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

namespace simtgpu::sim::mem {
namespace {

using nlohmann::json;

constexpr uint32_t kLine = 128;
constexpr uint64_t kL2Bytes = 64 << 10; // 64 sets of 8 ways, one slice
constexpr uint64_t kHot = 0x100000;     // the window's data
constexpr uint64_t kCold = 0x4000000;   // data outside it

MemoryConfig small_l2(uint64_t persisting_max = 32 << 10) {
    json memory = {{"l2",
                    {{"size_bytes", kL2Bytes},
                     {"assoc", 8},
                     {"slices", 1},
                     {"persisting_max_bytes", persisting_max},
                     {"access_window_max_bytes", persisting_max ? (1 << 20) : 0}}},
                   {"dram", {{"channels", 1}}}};
    auto c = MemoryConfig::from_json(memory, "test");
    EXPECT_TRUE(c) << c.error();
    return c ? *c : MemoryConfig{};
}

// Drives the memory system as the engine does; every load goes through L1
// once (L1 is invalidated first), so what is measured is L2.
struct Driver {
    MemorySystem mem;
    uint64_t now = 0;

    explicit Driver(const MemoryConfig &config)
        : mem(std::move(*MemorySystem::create(config, 2, 1530000))) {}

    // One lane per line: a warp loads 32 consecutive lines from `base`.
    void load_lines(uint64_t base, uint64_t bytes) {
        mem.invalidate_l1();
        for (uint64_t at = base; at < base + bytes; at += 32 * kLine) {
            WarpAccess a;
            a.kind = AccessKind::load;
            a.lane_bytes = 4;
            const uint64_t lines = std::min<uint64_t>(32, (base + bytes - at) / kLine);
            a.active_mask = lines == 64 ? ~0ull : (1ull << lines) - 1;
            for (uint32_t l = 0; l < lines; ++l)
                a.address[l] = at + l * kLine;
            while (!mem.issue(a, now).accepted)
                step();
            step();
        }
        while (!mem.idle())
            step();
    }
    void step() {
        mem.tick(now);
        ++now;
    }
    // L2 sector misses of a load of [base, base + bytes).
    uint64_t misses(uint64_t base, uint64_t bytes) {
        const uint64_t before = mem.totals().l2_sector_misses;
        load_lines(base, bytes);
        return mem.totals().l2_sector_misses - before;
    }
    uint64_t persisting_lines(uint64_t base, uint64_t bytes) const {
        uint64_t n = 0;
        for (uint64_t at = base; at < base + bytes; at += kLine)
            n += mem.l2_line_property(at) == L2Property::persisting;
        return n;
    }
};

L2AccessWindow window(uint64_t base, uint64_t bytes, double ratio, L2Property hit,
                      L2Property miss = L2Property::streaming) {
    return L2AccessWindow{base, bytes, uint32_t(ratio * kL2HitRatioOne), hit, miss};
}

TEST(MemL2Persisting, PersistingLinesSurviveASweepLargerThanL2) {
    const uint64_t hot = 16 << 10; // 128 lines: 2 of every set
    Driver with(small_l2()), without(small_l2());
    for (Driver *d : {&with, &without}) {
        d->mem.set_l2_set_aside(32 << 10);
        if (d == &with)
            d->mem.set_l2_windows({window(kHot, hot, 1.0, L2Property::persisting)});
        EXPECT_EQ(d->misses(kHot, hot), hot / kLine); // cold
        d->misses(kCold, 4 * kL2Bytes);              // a sweep of 4 x L2
    }
    EXPECT_EQ(with.persisting_lines(kHot, hot), hot / kLine);
    EXPECT_EQ(with.misses(kHot, hot), 0u);
    EXPECT_EQ(without.persisting_lines(kHot, hot), 0u);
    EXPECT_EQ(without.misses(kHot, hot), hot / kLine);
    // Counters: the first pass missed, the last one hit.
    const MemoryCounters c = with.mem.totals();
    EXPECT_EQ(c.l2_persisting_sector_misses, hot / kLine);
    EXPECT_EQ(c.l2_persisting_sector_hits, hot / kLine);
    EXPECT_EQ(without.mem.totals().l2_persisting_sector_hits, 0u);
    EXPECT_EQ(without.mem.totals().l2_persisting_sector_misses, 0u);
}

TEST(MemL2Persisting, TheSetAsideBoundsThePersistingLines) {
    // A window as large as L2, a set-aside of a quarter: 128 lines, two per
    // set; the other lines of the window thrash among themselves.
    Driver d(small_l2());
    d.mem.set_l2_set_aside(16 << 10);
    d.mem.set_l2_windows({window(kHot, kL2Bytes, 1.0, L2Property::persisting)});
    d.load_lines(kHot, kL2Bytes);
    d.load_lines(kHot, kL2Bytes);
    EXPECT_EQ(d.persisting_lines(kHot, kL2Bytes), (16u << 10) / kLine);
    // Normal data does not take their place: a sweep leaves them.
    d.mem.set_l2_windows({});
    d.misses(kCold, 4 * kL2Bytes);
    EXPECT_EQ(d.persisting_lines(kHot, kL2Bytes), (16u << 10) / kLine);
    EXPECT_EQ(d.misses(kHot, kL2Bytes), kL2Bytes / kLine - (16u << 10) / kLine);
}

TEST(MemL2Persisting, NoSetAsideMeansNormalLines) {
    Driver d(small_l2());
    d.mem.set_l2_windows({window(kHot, 16 << 10, 1.0, L2Property::persisting)});
    d.load_lines(kHot, 16 << 10);
    EXPECT_EQ(d.persisting_lines(kHot, 16 << 10), 0u);
    EXPECT_EQ(d.mem.totals().l2_persisting_sector_misses, 0u);
    d.misses(kCold, 4 * kL2Bytes);
    EXPECT_EQ(d.misses(kHot, 16 << 10), (16u << 10) / kLine);
}

TEST(MemL2Persisting, ResetReturnsLinesToNormal) {
    Driver d(small_l2());
    d.mem.set_l2_set_aside(32 << 10);
    d.mem.set_l2_windows({window(kHot, 16 << 10, 1.0, L2Property::persisting)});
    d.load_lines(kHot, 16 << 10);
    EXPECT_EQ(d.persisting_lines(kHot, 16 << 10), 128u);
    d.mem.reset_persisting_l2();
    EXPECT_EQ(d.persisting_lines(kHot, 16 << 10), 0u);
    d.mem.set_l2_windows({});
    d.misses(kCold, 4 * kL2Bytes);
    EXPECT_EQ(d.misses(kHot, 16 << 10), 128u);
}

TEST(MemL2Persisting, ASmallerSetAsideFreesTheSurplus) {
    Driver d(small_l2());
    d.mem.set_l2_set_aside(32 << 10);
    d.mem.set_l2_windows({window(kHot, 32 << 10, 1.0, L2Property::persisting)});
    d.load_lines(kHot, 32 << 10);
    EXPECT_EQ(d.persisting_lines(kHot, 32 << 10), 256u);
    d.mem.set_l2_set_aside(0);
    d.mem.set_l2_windows({});
    d.misses(kCold, 4 * kL2Bytes);
    EXPECT_EQ(d.misses(kHot, 32 << 10), 256u);
}

TEST(MemL2Persisting, HitRatioPicksItsFractionOfTheWindow) {
    // 256 lines, a quarter persisting (the hash's choice: 64 expected, a
    // binomial spread of 7), the rest streaming.
    Driver d(small_l2());
    d.mem.set_l2_set_aside(32 << 10);
    d.mem.set_l2_windows({window(kHot, 32 << 10, 0.25, L2Property::persisting)});
    d.load_lines(kHot, 32 << 10);
    const uint64_t persisting = d.persisting_lines(kHot, 32 << 10);
    EXPECT_GE(persisting, 40u);
    EXPECT_LE(persisting, 88u);
    uint64_t chosen = 0;
    for (uint64_t at = kHot; at < kHot + (32 << 10); at += kLine)
        chosen += L2AccessPolicy::fraction(at / kLine) < kL2HitRatioOne / 4;
    EXPECT_EQ(persisting, chosen);
    // Ratio 0 and 1 are none and all.
    Driver none(small_l2());
    none.mem.set_l2_set_aside(32 << 10);
    none.mem.set_l2_windows({window(kHot, 32 << 10, 0.0, L2Property::persisting)});
    none.load_lines(kHot, 32 << 10);
    EXPECT_EQ(none.persisting_lines(kHot, 32 << 10), 0u);
}

TEST(MemL2Persisting, StreamingLinesAreReplacedFirst) {
    // Half of L2 normal, then half streaming (a window, ratio 0), then a
    // third half: it replaces the streaming lines, not the older normal ones.
    const uint64_t half = kL2Bytes / 2, normal = 0x800000, other = 0xc00000;
    Driver with(small_l2()), without(small_l2());
    for (Driver *d : {&with, &without}) {
        d->mem.set_l2_set_aside(32 << 10);
        d->mem.set_l2_windows(
            {window(kHot, d == &with ? half : 0, 0.0, L2Property::persisting)});
        d->load_lines(normal, half);
        d->load_lines(kHot, half);
        d->load_lines(other, half);
    }
    EXPECT_EQ(with.misses(normal, half), 0u);
    EXPECT_EQ(without.misses(normal, half), half / kLine);
}

TEST(MemL2Persisting, ConfigurationIsChecked) {
    auto bad = [](json l2) {
        auto c = MemoryConfig::from_json({{"l2", l2}}, "f.json");
        return c ? std::string() : c.error();
    };
    EXPECT_EQ(bad({{"persisting_max_bytes", 1 << 20}, {"access_window_max_bytes", 1 << 20}}), "");
    EXPECT_NE(bad({{"persisting_max_bytes", 7 << 20}, {"access_window_max_bytes", 1 << 20}})
                  .find("exceeds memory.l2.size_bytes"),
              std::string::npos);
    EXPECT_NE(bad({{"persisting_max_bytes", 1 << 20}}).find("must both be 0"), std::string::npos);
    EXPECT_NE(bad({{"access_window_max_bytes", 1 << 20}}).find("must both be 0"),
              std::string::npos);
    EXPECT_NE(bad({{"persisting_max_bytes", -1}}).find("memory.l2.persisting_max_bytes"),
              std::string::npos);
    EXPECT_NE(bad({{"access_window_max_bytes", 1ull << 33}, {"persisting_max_bytes", 1}})
                  .find("out of range"),
              std::string::npos);
    // The defaults (a V100) have none.
    EXPECT_EQ(MemoryConfig{}.l2.persisting_max_bytes, 0u);
    EXPECT_EQ(MemoryConfig{}.l2.access_window_max_bytes, 0u);
}

} // namespace
} // namespace simtgpu::sim::mem
