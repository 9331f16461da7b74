// MemorySystem timing: latencies of isolated accesses against the configured
// (published Volta) values, cache behaviour against a reference LRU, MSHR
// merging and throttling, write policies, L2 slicing, DRAM row buffers and
// schedulers, bandwidth and latency hiding.
#include "mem/memory_system.h"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <list>
#include <map>
#include <random>

namespace simtgpu::sim::mem {
namespace {

using nlohmann::json;

constexpr uint32_t kVoltaClockKhz = 1530000;

MemoryConfig config_from(const json &memory) {
    auto c = MemoryConfig::from_json(memory, "test");
    EXPECT_TRUE(c) << c.error();
    return c ? *c : MemoryConfig{};
}

WarpAccess strided(uint32_t sm, AccessKind kind, uint64_t base, uint64_t stride,
                   uint32_t lanes = 32, uint32_t warp = 0) {
    WarpAccess a;
    a.sm = sm;
    a.warp = warp;
    a.kind = kind;
    a.lane_bytes = 4;
    a.active_mask = (1ull << lanes) - 1;
    for (uint32_t lane = 0; lane < lanes; ++lane)
        a.address[lane] = base + lane * stride;
    return a;
}

WarpAccess one_lane(uint32_t sm, AccessKind kind, uint64_t address) {
    return strided(sm, kind, address, 0, 1);
}

// Drives a MemorySystem cycle by cycle, as the engine does.
struct Driver {
    MemorySystem mem;
    uint64_t now = 0;
    using Ticket = std::pair<uint32_t, Token>; // an access: its SM and token (tokens are per SM)
    std::map<Ticket, uint64_t> done;           // completions not yet claimed

    explicit Driver(const MemoryConfig &config = MemoryConfig{}, uint32_t sms = 80,
                    uint32_t clock_khz = kVoltaClockKhz)
        : mem(std::move(*MemorySystem::create(config, sms, clock_khz))) {}

    void step() {
        for (const Completion &c : mem.tick(now))
            done[{c.sm, c.token}] = c.cycle;
        ++now;
    }
    Ticket issue(const WarpAccess &a) {
        IssueResult r = mem.issue(a, now);
        EXPECT_TRUE(r.accepted);
        return {a.sm, r.token};
    }
    // Runs until `token` completes; its completion cycle.
    uint64_t wait(Ticket token) {
        while (!done.count(token)) {
            step();
            if (now > 10'000'000) {
                ADD_FAILURE() << "token " << token.second << " of SM " << token.first
                              << " never completed";
                return 0;
            }
        }
        uint64_t cycle = done[token];
        done.erase(token);
        return cycle;
    }
    // Issues at the current cycle and returns the access's latency.
    uint64_t latency(const WarpAccess &a) {
        uint64_t start = now;
        return wait(issue(a)) - start;
    }
    void drain() {
        while (!mem.idle())
            step();
        done.clear();
    }
};

// DRAM timings of the defaults in SM cycles (877 MHz DRAM, 1530 MHz SM).
uint64_t sm_cycles(double dram_cycles) {
    return uint64_t(std::ceil(dram_cycles * 1530000.0 / 877000.0));
}

TEST(MemSystem, IsolatedLatenciesAreTheConfiguredOnes) {
    Driver d;
    d.now = 1000;
    const uint64_t a = 0x100000;
    EXPECT_EQ(d.latency(one_lane(0, AccessKind::load, a)), 460u); // DRAM, closed row
    EXPECT_EQ(d.latency(one_lane(0, AccessKind::load, a)), 28u);  // L1 hit
    EXPECT_EQ(d.latency(one_lane(1, AccessKind::load, a)), 212u); // another SM: L2 hit
    MemoryCounters c = d.mem.totals();
    EXPECT_EQ(c.l1_sector_hits, 1u);
    EXPECT_EQ(c.l1_sector_misses, 2u);
    EXPECT_EQ(c.l2_sector_hits, 1u);
    EXPECT_EQ(c.l2_sector_misses, 1u);
    EXPECT_EQ(c.dram_read_bytes, 32u);
    EXPECT_EQ(d.mem.counters(1).l1_sector_misses, 1u);
}

TEST(MemSystem, SharedMemoryLatencyGrowsWithBankConflicts) {
    Driver d;
    EXPECT_EQ(d.latency(strided(0, AccessKind::shared_load, 0, 4)), 20u);
    EXPECT_EQ(d.latency(strided(0, AccessKind::shared_load, 0, 0)), 20u);    // broadcast
    EXPECT_EQ(d.latency(strided(0, AccessKind::shared_load, 0, 8)), 21u);    // 2 passes
    EXPECT_EQ(d.latency(strided(0, AccessKind::shared_store, 0, 128)), 51u); // 32 passes
    EXPECT_EQ(d.mem.counters(0).shared_bank_conflicts, 1u + 31u);
    EXPECT_EQ(d.mem.counters(0).shared_passes, 1u + 1u + 2u + 32u);
    // Two conflicted accesses back to back share the SM's pipeline.
    uint64_t start = d.now;
    Driver::Ticket first = d.issue(strided(0, AccessKind::shared_load, 0, 128));
    Driver::Ticket second = d.issue(strided(0, AccessKind::shared_load, 0, 128));
    EXPECT_EQ(d.wait(first) - start, 51u);
    EXPECT_EQ(d.wait(second) - start, 51u + 32u);
}

TEST(MemSystem, CoalescingDecidesSectorsAndTime) {
    Driver d;
    d.latency(strided(0, AccessKind::load, 0x200000, 4));
    EXPECT_EQ(d.mem.counters(0).l1_sector_misses, 4u);
    d.latency(strided(1, AccessKind::load, 0x300000, 8));
    EXPECT_EQ(d.mem.counters(1).l1_sector_misses, 8u);
    // Scattered: 32 lines, one per L1 cycle, so even all-hits take 31 more.
    uint64_t scattered = d.latency(strided(2, AccessKind::load, 0x400000, 4096));
    EXPECT_EQ(d.mem.counters(2).l1_sector_misses, 32u);
    EXPECT_GE(scattered, 460u + 31u);
    EXPECT_EQ(d.latency(strided(2, AccessKind::load, 0x400000, 4096)), 28u + 31u);
    EXPECT_EQ(d.latency(strided(0, AccessKind::load, 0x200000, 4)), 28u);
}

// The reference: a set of `ways` lines in LRU order.
struct ReferenceLru {
    size_t ways;
    std::list<uint64_t> lines; // most recent first
    bool access(uint64_t line) {
        auto it = std::find(lines.begin(), lines.end(), line);
        bool hit = it != lines.end();
        if (hit)
            lines.erase(it);
        else if (lines.size() == ways)
            lines.pop_back();
        lines.push_front(line);
        return hit;
    }
};

TEST(MemSystem, L1ReplacesTheLeastRecentlyUsedLine) {
    // 4 KiB, 4 ways: 8 sets; lines 8 apart share set 0.
    MemoryConfig config = config_from({{"l1", {{"size_bytes", 4096}, {"assoc", 4}}}});
    Driver d(config, 1);
    ReferenceLru reference{4, {}};
    // A known sequence first: A B C D A E evicts B (A was used again).
    std::vector<uint64_t> sequence = {0, 1, 2, 3, 0, 4, 1, 2};
    std::mt19937 random(14);
    for (int i = 0; i < 300; ++i)
        sequence.push_back(random() % 7);
    for (size_t i = 0; i < sequence.size(); ++i) {
        uint64_t line = sequence[i] * 8;
        uint64_t hits = d.mem.counters(0).l1_sector_hits;
        d.latency(one_lane(0, AccessKind::load, line * 128));
        bool hit = d.mem.counters(0).l1_sector_hits > hits;
        ASSERT_EQ(hit, reference.access(line)) << "access " << i << " to line " << line;
    }
}

TEST(MemSystem, MshrsMergeRequestsForASectorInFlight) {
    Driver d;
    const uint64_t start = d.now;
    Driver::Ticket first = d.issue(strided(0, AccessKind::load, 0x500000, 4, 32, 0));
    d.step();
    Driver::Ticket second = d.issue(strided(0, AccessKind::load, 0x500000, 4, 32, 1));
    uint64_t first_done = d.wait(first), second_done = d.wait(second);
    const MemoryCounters &c = d.mem.counters(0);
    EXPECT_EQ(c.l1_sector_misses, 4u);
    EXPECT_EQ(c.l1_sector_merges, 4u);
    EXPECT_EQ(c.l2_sector_misses, 4u); // L2 saw the line once
    EXPECT_EQ(c.dram_read_bytes, 128u);
    // The second rides on the first's fills instead of paying its own trip.
    EXPECT_EQ(second_done, first_done);
    EXPECT_GE(first_done - start, 460u);
}

TEST(MemSystem, FullMshrsThrottleNewMisses) {
    MemoryConfig config = config_from({{"l1", {{"mshrs", 2}, {"mshr_merge", 2}}}});
    Driver d(config, 1);
    Driver::Ticket a = d.issue(strided(0, AccessKind::load, 0x600000, 4));
    d.issue(strided(0, AccessKind::load, 0x700000, 4));
    EXPECT_FALSE(d.mem.issue(strided(0, AccessKind::load, 0x800000, 4), d.now).accepted);
    EXPECT_EQ(d.mem.counters(0).mshr_throttles, 1u);
    // Hits and merges need no new MSHR; a third merge into a line does.
    EXPECT_TRUE(d.mem.issue(strided(0, AccessKind::load, 0x600000, 4), d.now).accepted);
    EXPECT_FALSE(d.mem.issue(strided(0, AccessKind::load, 0x600000, 4), d.now).accepted);
    EXPECT_EQ(d.mem.counters(0).mshr_throttles, 2u);
    d.wait(a);
    EXPECT_TRUE(d.mem.issue(strided(0, AccessKind::load, 0x800000, 4), d.now).accepted);
}

TEST(MemSystem, WriteThroughStoresUpdateL1AndNeverAllocate) {
    Driver d;
    // A store to a line L1 does not hold: L1 stays without it, L2 takes it.
    d.latency(strided(0, AccessKind::store, 0x900000, 4));
    const MemoryCounters &c = d.mem.counters(0);
    EXPECT_EQ(c.l2_sector_misses, 4u);
    EXPECT_EQ(c.dram_read_bytes, 0u); // whole sectors written: nothing fetched
    EXPECT_EQ(d.latency(strided(0, AccessKind::load, 0x900000, 4)), 212u + 3u);
    EXPECT_EQ(c.l1_sector_misses, 4u);
    EXPECT_EQ(c.l2_sector_hits, 4u);
    // A store to a line L1 holds goes through to L2 and leaves L1 valid.
    uint64_t l2_before = c.l2_sector_hits;
    EXPECT_EQ(d.latency(strided(0, AccessKind::store, 0x900000, 4)), 212u + 3u);
    EXPECT_EQ(c.l2_sector_hits, l2_before + 4);
    EXPECT_EQ(d.latency(strided(0, AccessKind::load, 0x900000, 4)), 28u);
    EXPECT_EQ(c.l1_sector_hits, 4u);
}

TEST(MemSystem, WriteEvictStoresInvalidateL1) {
    Driver d(config_from({{"l1", {{"write_policy", "write-evict"}}}}));
    d.latency(strided(0, AccessKind::load, 0x900000, 4));
    d.latency(strided(0, AccessKind::store, 0x900000, 4));
    EXPECT_EQ(d.latency(strided(0, AccessKind::load, 0x900000, 4)), 212u + 3u);
    EXPECT_EQ(d.mem.counters(0).l1_sector_hits, 0u);
}

TEST(MemSystem, L2WritesDirtySectorsBackWhenEvicted) {
    // One slice, direct mapped, 32 sets: lines 32 apart collide.
    MemoryConfig config = config_from(
        {{"l2", {{"size_bytes", 4096}, {"assoc", 1}, {"slices", 1}}}, {"dram", {{"channels", 1}}}});
    Driver d(config, 2);
    d.latency(strided(0, AccessKind::store, 0, 4, 16)); // two dirty sectors
    EXPECT_EQ(d.mem.totals().dram_write_bytes, 0u);
    d.latency(one_lane(1, AccessKind::load, 32 * 128)); // same set: evicts
    d.drain();
    EXPECT_EQ(d.mem.totals().dram_write_bytes, 64u);
    EXPECT_EQ(d.mem.totals().dram_read_bytes, 32u);
}

TEST(MemSystem, L2SliceHashSpreadsLines) {
    Driver d;
    std::vector<bool> consecutive(32), strided_by_slices(32), page_strided(32);
    for (uint64_t i = 0; i < 32; ++i) {
        consecutive[d.mem.l2_slice(0x1000000 + i * 128)] = true;
        // Lines 32 apart would all share one slice under "line mod slices".
        strided_by_slices[d.mem.l2_slice(0x1000000 + i * 32 * 128)] = true;
        page_strided[d.mem.l2_slice(0x1000000 + i * 4096 * 32)] = true;
    }
    auto all = [](const std::vector<bool> &v) { return std::count(v.begin(), v.end(), true); };
    EXPECT_EQ(all(consecutive), 32);
    EXPECT_EQ(all(strided_by_slices), 32);
    EXPECT_EQ(all(page_strided), 32);
}

TEST(MemSystem, L2SlicesContendAcrossSms) {
    Driver d;
    // Warm two sectors of one line (so one slice) into L2.
    d.latency(strided(0, AccessKind::load, 0xa00000, 4, 16));
    uint64_t start = d.now;
    Driver::Ticket a = d.issue(one_lane(1, AccessKind::load, 0xa00000));
    Driver::Ticket b = d.issue(one_lane(2, AccessKind::load, 0xa00020));
    EXPECT_EQ(d.wait(a) - start, 212u);
    EXPECT_EQ(d.wait(b) - start, 213u); // second in line at the slice port
}

// Addresses near `base` in the same channel and bank as `base`, in the
// same row (same_row) or another one.
uint64_t neighbour(const MemorySystem &mem, uint64_t base, bool same_row) {
    DramLocation b = mem.dram_location(base);
    for (uint64_t a = base + 128;; a += 128) {
        DramLocation l = mem.dram_location(a);
        if (l.channel == b.channel && l.bank == b.bank && (l.row == b.row) == same_row)
            return a;
    }
}

TEST(MemSystem, OpenRowsAreFasterThanClosedOrConflictingOnes) {
    Driver d;
    const uint64_t a = 0x2000000;
    uint64_t hit_address = neighbour(d.mem, a, true);
    uint64_t conflict_address = neighbour(d.mem, a, false);
    EXPECT_EQ(d.latency(one_lane(0, AccessKind::load, a)), 460u);
    uint64_t row_hit = d.latency(one_lane(1, AccessKind::load, hit_address));
    uint64_t row_conflict = d.latency(one_lane(2, AccessKind::load, conflict_address));
    EXPECT_EQ(row_hit, 460u - sm_cycles(12));
    EXPECT_EQ(row_conflict, 460u + sm_cycles(12 + 12) - sm_cycles(12));
    EXPECT_EQ(d.mem.totals().dram_row_hits, 1u);
    EXPECT_EQ(d.mem.totals().dram_row_misses, 2u);
}

// A opens a row; B (another row of the bank) then C (A's row) arrive while
// it opens. Returns the completion cycles of B and C.
std::pair<uint64_t, uint64_t> row_race(const char *scheduler) {
    Driver d(config_from({{"dram", {{"scheduler", scheduler}}}}));
    const uint64_t a = 0x4000000;
    uint64_t b = neighbour(d.mem, a, false), c = neighbour(d.mem, a, true);
    d.issue(one_lane(0, AccessKind::load, a));
    d.step();
    Driver::Ticket tb = d.issue(one_lane(1, AccessKind::load, b));
    d.step();
    Driver::Ticket tc = d.issue(one_lane(2, AccessKind::load, c));
    return {d.wait(tb), d.wait(tc)};
}

TEST(MemSystem, FrFcfsServesRowHitsBeforeAnOlderMiss) {
    auto [b, c] = row_race("fr-fcfs");
    EXPECT_LT(c, b);
    // C follows A's burst; B waits for a precharge and an activation.
    EXPECT_GE(b - c, sm_cycles(12));
}

TEST(MemSystem, FcfsServesInArrivalOrder) {
    auto [b, c] = row_race("fcfs");
    EXPECT_LT(b, c);
    // C's row is closed again by B: it pays a second conflict.
    EXPECT_GE(c - b, sm_cycles(12));
}

TEST(MemSystem, ASequentialStreamReachesTheConfiguredBandwidth) {
    Driver d;
    const uint32_t sms = d.mem.num_sms();
    const uint64_t lines_per_sm = 256, base = 0x10000000;
    std::vector<uint64_t> next(sms, 0);
    uint64_t start = d.now, last = 0, outstanding = 0;
    // Grid-stride, as a STREAM kernel: SM s reads lines s, s + sms, ...
    while (true) {
        bool more = false;
        for (uint32_t sm = 0; sm < sms; ++sm) {
            if (next[sm] == lines_per_sm)
                continue;
            more = true;
            uint64_t line = next[sm] * sms + sm;
            if (d.mem.issue(strided(sm, AccessKind::load, base + line * 128, 4), d.now).accepted) {
                ++next[sm];
                ++outstanding;
            }
        }
        for (const Completion &c : d.mem.tick(d.now)) {
            last = std::max(last, c.cycle);
            --outstanding;
        }
        ++d.now;
        if (!more && outstanding == 0)
            break;
    }
    double bytes = double(sms) * lines_per_sm * 128;
    EXPECT_EQ(d.mem.totals().dram_read_bytes, uint64_t(bytes));
    double configured = 900e9 / 1530e6; // bytes per SM cycle
    double achieved = bytes / double(last - start);
    EXPECT_GE(achieved, 0.6 * configured) << achieved << " of " << configured << " B/cycle";
    EXPECT_LE(achieved, configured) << achieved << " of " << configured << " B/cycle";
}

TEST(MemSystem, IndependentMissesOverlap) {
    Driver d;
    uint64_t one = d.latency(strided(0, AccessKind::load, 0x8000000, 4));
    std::vector<Driver::Ticket> tokens;
    uint64_t start = d.now;
    for (uint32_t warp = 0; warp < 16; ++warp)
        tokens.push_back(
            d.issue(strided(0, AccessKind::load, 0x9000000 + warp * 0x10080, 4, 32, warp)));
    uint64_t last = 0;
    for (Driver::Ticket t : tokens)
        last = std::max(last, d.wait(t));
    EXPECT_LT(last - start, 2 * one) << "16 misses took " << last - start << ", one " << one;
}

TEST(MemSystem, AtomicsSerialisePerAddressAtL2) {
    Driver d;
    const uint64_t counter = 0xb000000;
    d.latency(strided(0, AccessKind::load, counter, 4)); // the line into L2
    // 32 lanes on one address: 32 operations one after another.
    EXPECT_EQ(d.latency(strided(1, AccessKind::atomic, counter, 0)), 212u + 32u);
    // 32 addresses in 4 sectors: one operation per sector, one sector per cycle.
    EXPECT_EQ(d.latency(strided(1, AccessKind::atomic, counter, 4)), 212u + 4u);
    EXPECT_EQ(d.mem.totals().atomic_ops, 32u + 4u);
    // Two warps on one address: the second waits for the first's 32.
    uint64_t start = d.now;
    Driver::Ticket a = d.issue(strided(1, AccessKind::atomic, counter, 0));
    Driver::Ticket b = d.issue(strided(2, AccessKind::atomic, counter, 0));
    EXPECT_EQ(d.wait(a) - start, 212u + 32u);
    EXPECT_EQ(d.wait(b) - start, 212u + 64u);
    // The L1 copy is stale after an atomic.
    EXPECT_EQ(d.latency(strided(1, AccessKind::load, counter, 4)), 212u + 3u);
}

TEST(MemSystem, InvalidatingL1KeepsL2) {
    Driver d;
    d.latency(one_lane(0, AccessKind::load, 0xc000000));
    EXPECT_EQ(d.latency(one_lane(0, AccessKind::load, 0xc000000)), 28u);
    d.mem.invalidate_l1();
    EXPECT_EQ(d.latency(one_lane(0, AccessKind::load, 0xc000000)), 212u);
}

TEST(MemSystem, ASmallGpuWorksAsWell) {
    // A teaching-sized part: 4 SMs, 16 KiB L1, 256 KiB L2 in 4 slices, 2 channels.
    MemoryConfig config = config_from(json::parse(R"({
        "l1": {"size_bytes": 16384, "assoc": 4, "mshrs": 8, "hit_latency": 20},
        "shared": {"latency": 10},
        "l2": {"size_bytes": 262144, "assoc": 8, "slices": 4, "hit_latency": 100},
        "dram": {"channels": 2, "bandwidth_gbps": 64, "clock_khz": 1000000, "latency": 200,
                 "banks_per_channel": 4}
    })"));
    auto system = MemorySystem::create(config, 4, 1000000);
    ASSERT_TRUE(system) << system.error();
    Driver d(config, 4, 1000000);
    EXPECT_EQ(d.latency(one_lane(0, AccessKind::load, 0x1000)), 200u);
    EXPECT_EQ(d.latency(one_lane(0, AccessKind::load, 0x1000)), 20u);
    EXPECT_EQ(d.latency(one_lane(3, AccessKind::load, 0x1000)), 100u);
    EXPECT_EQ(d.latency(strided(1, AccessKind::shared_load, 0, 8)), 11u);
}

TEST(MemSystem, CyclesAndCountersAreDeterministic) {
    auto run = [] {
        Driver d(MemoryConfig{}, 8);
        std::mt19937 random(7);
        std::vector<uint64_t> cycles;
        for (int i = 0; i < 2000; ++i) {
            uint32_t sm = random() % 8;
            uint64_t base = (random() % 4096) * 64;
            AccessKind kind = random() % 4 == 0 ? AccessKind::store : AccessKind::load;
            d.mem.issue(strided(sm, kind, base, 4 << (random() % 3)), d.now);
            for (const Completion &c : d.mem.tick(d.now))
                cycles.push_back(c.cycle * 1000 + c.token);
            ++d.now;
        }
        d.drain();
        MemoryCounters t = d.mem.totals();
        for (const auto &field : kMemoryCounterFields)
            cycles.push_back(t.*field.member);
        return cycles;
    };
    EXPECT_EQ(run(), run());
}

// The engine's steps (dispatch/grid_scheduler.cpp), as plan_step() plans
// them: every SM side runs lookahead() / 2 cycles on its own while the
// shared side runs the step before (or a whole lookahead while the shared
// side has nothing to do, the shared side catching up first in the step
// after), then exchange() passes their messages. That is only sound if no
// answer the shared side sends is due before the SMs' step after the
// exchange; one that were would reach its SM late.
struct QuantumDriver {
    MemorySystem mem;
    uint64_t now = 0, last_cycles = 0;
    std::map<std::pair<uint32_t, Token>, uint64_t> done; // (sm, token) -> its last cycle
    uint64_t completions = 0;

    explicit QuantumDriver(uint32_t sms)
        : mem(std::move(*MemorySystem::create(MemoryConfig{}, sms, kVoltaClockKhz))) {}

    // One quantum; `issue(sm, cycle)` may issue accesses of that SM.
    template <typename Issue> void quantum(Issue &&issue) {
        const MemorySystem::StepPlan plan = mem.plan_step(now, last_cycles, 256);
        if (plan.catch_up_first) {
            mem.advance_shared(now - 1);
            mem.exchange();
        }
        if (plan.shared_beside)
            mem.advance_shared(now - 1);
        const uint64_t end = now + plan.cycles;
        for (uint32_t sm = 0; sm < mem.num_sms(); ++sm)
            for (uint64_t cycle = now; cycle < end; ++cycle) {
                for (const Completion &c : mem.tick_sm(sm, cycle)) {
                    EXPECT_EQ(c.cycle, cycle);
                    done[{sm, c.token}] = c.cycle;
                    ++completions;
                }
                issue(sm, cycle);
            }
        mem.exchange();
        last_cycles = plan.cycles;
        now = end;
    }
    // The latency of one lane's load of `address` by `sm`, issued at the
    // first cycle of a quantum.
    uint64_t latency(uint32_t sm, uint64_t address) {
        const uint64_t start = now;
        Token token = 0;
        quantum([&](uint32_t s, uint64_t cycle) {
            if (s == sm && cycle == start)
                token = mem.issue(one_lane(sm, AccessKind::load, address), cycle).token;
        });
        while (!done.count({sm, token}) && now < start + 10'000)
            quantum([](uint32_t, uint64_t) {});
        return done.count({sm, token}) ? done[{sm, token}] - start : 0;
    }
};

TEST(MemSystem, PipelinedQuantaKeepTheConfiguredLatencies) {
    QuantumDriver d(2);
    const MemoryConfig c;
    EXPECT_EQ(d.mem.lookahead(), c.l2.hit_latency - c.l1.hit_latency);
    EXPECT_EQ(d.latency(0, 0x100000), c.dram.latency); // closed row
    EXPECT_EQ(d.latency(0, 0x100000), c.l1.hit_latency);
    EXPECT_EQ(d.latency(1, 0x100000), c.l2.hit_latency); // the other SM's line, at L2
}

// A step of a whole lookahead, taken while the shared side is idle, and
// the step after it, which lets the shared side catch up first: an L2 hit
// issued at its first cycle is answered in time.
TEST(MemSystem, AWholeLookaheadWhileL2IsIdleKeepsTheL2Latency) {
    QuantumDriver d(2);
    const MemoryConfig c;
    EXPECT_EQ(d.latency(0, 0x100000), c.dram.latency);
    while (!d.mem.idle())
        d.quantum([](uint32_t, uint64_t) {});
    EXPECT_EQ(d.mem.plan_step(d.now, d.last_cycles, 256).cycles, d.mem.lookahead());
    EXPECT_EQ(d.latency(1, 0x100000), c.l2.hit_latency);
}

// Loads, stores and atomics from 8 SMs to lines they share, L2 hits and
// misses alike: each completes at the cycle it is due, none is lost, and
// after each quantum no SM has an event due inside it.
TEST(MemSystem, PipelinedQuantaCompleteEveryAccess) {
    QuantumDriver d(8);
    std::mt19937 rng(7);
    uint64_t issued = 0;
    for (uint32_t q = 0; q < 40; ++q) {
        d.quantum([&](uint32_t sm, uint64_t cycle) {
            if (q >= 30 || rng() % 4 != 0)
                return;
            const AccessKind kind = std::array{AccessKind::load, AccessKind::load,
                                               AccessKind::store, AccessKind::atomic}[rng() % 4];
            const uint64_t base = 0x100000 + (rng() % 64) * 128;
            issued += d.mem.issue(strided(sm, kind, base, 4, 32, 0), cycle).accepted;
        });
        for (uint32_t sm = 0; sm < 8; ++sm)
            EXPECT_GT(d.mem.next_sm_event_cycle(sm), d.now - 1);
    }
    EXPECT_TRUE(d.mem.idle());
    EXPECT_EQ(d.completions, issued) << "accesses never completed";
    EXPECT_GT(issued, 100u);
    EXPECT_GT(d.mem.totals().l2_sector_hits, 0u);
    EXPECT_GT(d.mem.totals().dram_read_bytes, 0u);
}

} // namespace
} // namespace simtgpu::sim::mem
