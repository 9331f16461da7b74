// The SM timing model against its configuration: latencies measured from
// inside a kernel, end to end (issue to dependent issue), as the GPU
// dissection microbenchmarks measure them, equal the configured figures;
// cycles and every counter are the same on every run; the warp schedulers
// change cycles, never results. Kernels are in programs/timing_sm.c.
#include "config_file.h"
#include "core_support.h"
#include "sm/warp_scheduler.h"

#include <gtest/gtest.h>

#include <bit>
#include <set>
#include <string>

namespace simtgpu::sim {
namespace {

using testing::FlatMemory;
using testing::RunOutcome;

constexpr uint64_t kBase = 0x10000, kSize = 64ull << 20;
constexpr uint64_t kParams = 0x1000000, kOut = 0x1100000, kIn = 0x1400000;
constexpr uint64_t kInEnd = kBase + kSize;

struct Params {
    uint64_t out = kOut, in = kIn, n = 0, arg = 0, counter = 0;
};

class TimingTest : public ::testing::TestWithParam<std::string> {
protected:
    void SetUp() override {
        auto elf = testing::load_elf(
            testing::device_program_path(SIMTGPU_DEVICE_PROGRAM_DIR, "timing_sm"), mem);
        ASSERT_TRUE(elf) << "timing_sm.elf missing";
        elf_ = *elf;
        auto loaded = load_device_config(GetParam());
        ASSERT_TRUE(loaded) << loaded.error();
        config = *loaded;
        ASSERT_EQ(config.model, Model::timing);
    }
    RunOutcome launch(const std::string &kernel, Dim3 grid, Dim3 block, Params p,
                      uint32_t shared = 0) {
        mem.write(kParams, p);
        LaunchDesc l;
        l.entry_pc = elf_.symbols.at(kernel);
        l.param_va = kParams;
        l.grid = grid;
        l.block = block;
        l.shared_bytes = shared;
        l.stack_bytes = 1024;
        Sm sm(config, 0);
        return testing::run_launch(sm, mem, l, 500'000'000, config.livelock_cycles);
    }
    uint64_t out(uint64_t i) { return mem.read<uint64_t>(kOut + 8 * i); }
    // A ring of `nodes` pointers `stride` bytes apart from kIn.
    void ring(uint64_t nodes, uint64_t stride) {
        ASSERT_LE(kIn + nodes * stride, kInEnd);
        for (uint64_t i = 0; i < nodes; ++i)
            mem.write<uint64_t>(kIn + i * stride, kIn + (i + 1) % nodes * stride);
    }
    // Cycles per link: (time of 2n links - time of n links) / n.
    double per_link(const std::string &kernel, uint64_t warm, uint64_t n, uint32_t shared = 0) {
        Params p;
        p.n = warm;
        p.arg = n;
        p.counter = 2 * n;
        RunOutcome r = launch(kernel, {1, 1, 1}, {1, 1, 1}, p, shared);
        EXPECT_FALSE(r.exception);
        return (double(out(1)) - double(out(0))) / double(n);
    }

    FlatMemory mem{kBase, kSize};
    DeviceConfig config;
    testing::LoadedElf elf_;
};

INSTANTIATE_TEST_SUITE_P(Presets, TimingTest, ::testing::Values("teaching", "volta"));

TEST_P(TimingTest, L1HitLatencyIsTheConfiguredOne) {
    ring(8, config.memory.l1.line_bytes); // 8 lines: they stay in L1
    EXPECT_EQ(per_link("k_chase", 8, 64), double(config.memory.l1.hit_latency));
}

TEST_P(TimingTest, L2HitLatencyIsTheConfiguredOne) {
    // assoc + 1 lines of one L1 set: LRU evicts each before its next use,
    // and L2 holds them all.
    const mem::MemoryConfig &m = config.memory;
    ring(m.l1.assoc + 1, m.l1.size_bytes / m.l1.assoc);
    EXPECT_EQ(per_link("k_chase", m.l1.assoc + 1, 4 * (m.l1.assoc + 1)), double(m.l2.hit_latency));
}

TEST_P(TimingTest, DramLatencyIsTheConfiguredOne) {
    // Every link a line never used before: each misses L2. Row hits save
    // t_rcd, conflicts add t_rp (DRAM cycles, converted to SM cycles).
    const mem::MemoryConfig &m = config.memory;
    const uint64_t n = 24, stride = 64 * 1024 + m.l1.line_bytes;
    ring(3 * n + 1, stride);
    Params p;
    p.arg = n;
    p.counter = 2 * n;
    ASSERT_FALSE(launch("k_chase", {1, 1, 1}, {1, 1, 1}, p).exception);
    const double per =
        double(out(0) + out(1)) / double(3 * n); // the few cycles of clock reads: < 1 per link
    const double to_sm = double(config.clock_khz) / double(m.dram.clock_khz);
    EXPECT_GE(per, double(m.dram.latency) - m.dram.t_rcd * to_sm - 1);
    EXPECT_LE(per, double(m.dram.latency) + m.dram.t_rp * to_sm + 1);
}

TEST_P(TimingTest, SharedMemoryLatencyIsTheConfiguredOne) {
    EXPECT_EQ(per_link("k_chase_shared", 16, 64, 16 * 8), double(config.memory.shared.latency));
}

TEST_P(TimingTest, DependentArithmeticLatencyIsTheConfiguredOne) {
    Params p;
    p.arg = 3;
    p.n = 5;
    RunOutcome r = launch("k_dependent", {1, 1, 1}, {1, 1, 1}, p);
    ASSERT_FALSE(r.exception);
    // 32 links minus 16 links: 16 of pure latency.
    EXPECT_EQ(out(1) - out(0), 16 * config.timing.unit(timing::InsnClass::fp32).latency);
    EXPECT_EQ(out(3) - out(2), 16 * config.timing.unit(timing::InsnClass::integer).latency);
    // The results are the host's: x = x / 2 + 1, and adds of 5.
    float x = 3.0f;
    for (int i = 1; i <= 32; ++i) {
        x = x * 0.5f + 1.0f;
        if (i == 16) {
            EXPECT_EQ(out(4), std::bit_cast<uint32_t>(x));
        }
    }
    EXPECT_EQ(out(5), std::bit_cast<uint32_t>(x));
    EXPECT_EQ(out(6), 3u + 16 * 5);
    EXPECT_EQ(out(7), 3u + 32 * 5);
}

// Sums of a strided gather with work in between, as the host computes them.
std::vector<uint64_t> gather_sums(const FlatMemory &mem, uint32_t threads, uint64_t n,
                                  uint64_t iterations) {
    std::vector<uint64_t> sums(threads);
    for (uint32_t t = 0; t < threads; ++t)
        for (uint64_t i = 0; i < iterations; ++i) {
            uint64_t v = mem.read<uint64_t>(kIn + 8 * ((t + i * threads) % n));
            for (uint64_t k = 0; k < 8; ++k)
                v = v * 3 + k;
            sums[t] += v;
        }
    return sums;
}

TEST_P(TimingTest, CyclesAndEveryCounterAreTheSameOnEveryRun) {
    const uint64_t n = 1 << 16;
    for (uint64_t i = 0; i < n; ++i)
        mem.write<uint64_t>(kIn + 8 * i, i * 2654435761u);
    Params p;
    p.n = n;
    p.arg = 8;
    const RunOutcome a = launch("k_gather_work", {8, 1, 1}, {128, 1, 1}, p);
    const RunOutcome b = launch("k_gather_work", {8, 1, 1}, {128, 1, 1}, p);
    ASSERT_FALSE(a.exception || b.exception);
    EXPECT_EQ(a.cycles, b.cycles);
#define SIMTGPU_X(name, unit, ncu, what) EXPECT_EQ(a.stats.name, b.stats.name) << #name;
    SIMTGPU_SM_COUNTERS(SIMTGPU_X)
#undef SIMTGPU_X
    // Something waited on memory, and the counters add up: each resident
    // warp's cycle is an issue or a stall of one reason.
    EXPECT_GT(a.stats.stall_long_scoreboard, 0u);
    uint64_t stalls = 0;
    for (auto counter : kStallCounters)
        stalls += a.stats.*counter;
    EXPECT_EQ(stalls + a.stats.warp_instructions, a.stats.resident_warp_cycles);
}

TEST_P(TimingTest, SchedulersChangeCyclesNotResults) {
    const uint64_t n = 1 << 16;
    for (uint64_t i = 0; i < n; ++i)
        mem.write<uint64_t>(kIn + 8 * i, i * 40503u + 7);
    Params p;
    p.n = n;
    p.arg = 6;
    const uint32_t threads = 8 * 128;
    const std::vector<uint64_t> expected = gather_sums(mem, threads, n, p.arg);
    std::set<uint64_t> cycles;
    for (std::string_view scheduler : kWarpSchedulers) {
        config.warp_scheduler = std::string(scheduler);
        for (uint32_t t = 0; t < threads; ++t)
            mem.write<uint64_t>(kOut + 8 * t, 0);
        const RunOutcome r = launch("k_gather_work", {8, 1, 1}, {128, 1, 1}, p);
        ASSERT_FALSE(r.exception) << scheduler;
        for (uint32_t t = 0; t < threads; ++t)
            ASSERT_EQ(out(t), expected[t]) << scheduler << " thread " << t;
        cycles.insert(r.cycles);
    }
    // greedy and gto are one policy under two names.
    EXPECT_GE(cycles.size(), 3u);
}

} // namespace
} // namespace simtgpu::sim
