// SIMT behaviour of the core: divergence and reconvergence, loops, early
// exit, barriers, atomics under contention, shuffle and vote, warp.sync,
// deadlock detection, traps, faults and windows. Kernels are in
// programs/core_simt.c; expected values are computed here on the host.
#include "core_support.h"
#include "sm/reconvergence.h"
#include "sm/warp_scheduler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <tuple>

namespace simtgpu::sim {
namespace {

using testing::FlatMemory;
using testing::RunOutcome;

constexpr uint64_t kBase = 0x10000, kSize = 32ull << 20;
constexpr uint64_t kParams = 0x1000000, kOut = 0x1100000, kIn = 0x1400000, kCounter = 0x1600000;

struct Params {
    uint64_t out = kOut, in = kIn, n = 0, arg = 0, counter = kCounter;
};

// One SM, the kernels of core_simt.elf and a flat memory.
class SimtFixture : public ::testing::Test {
protected:
    void SetUp() override
    {
        auto elf = testing::load_elf(testing::device_program_path(SIMTGPU_DEVICE_PROGRAM_DIR, "core_simt"), mem);
        ASSERT_TRUE(elf) << "core_simt.elf missing";
        elf_ = *elf;
    }
    uint64_t sym(const std::string &name) { return elf_.symbols.at(name); }

    RunOutcome launch(const std::string &kernel, Dim3 grid, Dim3 block, Params p = {},
                      uint32_t shared = 0, uint32_t stack = 4096)
    {
        mem.write(kParams, p);
        LaunchDesc l;
        l.entry_pc = sym(kernel);
        l.param_va = kParams;
        l.grid = grid;
        l.block = block;
        l.shared_bytes = shared;
        l.stack_bytes = stack;
        l.env_va = 0xe000;
        l.grid_id = 42;
        sm = std::make_unique<Sm>(config, 3);
        return testing::run_launch(*sm, mem, l, 500'000'000, config.livelock_cycles);
    }
    uint64_t out(uint64_t i) { return mem.read<uint64_t>(kOut + 8 * i); }

    FlatMemory mem{kBase, kSize};
    DeviceConfig config = DeviceConfig::defaults();
    std::unique_ptr<Sm> sm;
    testing::LoadedElf elf_;
};

// scheduler, reconvergence, model
using Policies = std::tuple<std::string_view, std::string_view, Model>;

void use_policies(DeviceConfig &config, const Policies &policies) {
    config.warp_scheduler = std::string(std::get<0>(policies));
    config.reconvergence = std::string(std::get<1>(policies));
    config.model = std::get<2>(policies);
}

std::string policies_name(const Policies &policies) {
    std::string name =
        std::string(std::get<0>(policies)) + "_" + std::string(std::get<1>(policies));
    if (std::get<2>(policies) == Model::timing)
        name += "_timing";
    std::replace(name.begin(), name.end(), '-', '_');
    return name;
}

constexpr std::array kModels{Model::functional, Model::timing};

// Every SIMT test runs under every warp scheduler and reconvergence policy,
// in the functional and the timing model: results must not depend on timing.
class SimtTest : public SimtFixture, public ::testing::WithParamInterface<Policies> {
protected:
    void SetUp() override {
        SimtFixture::SetUp();
        use_policies(config, GetParam());
    }
};

INSTANTIATE_TEST_SUITE_P(Policies, SimtTest,
                         ::testing::Combine(::testing::ValuesIn(kWarpSchedulers),
                                            ::testing::ValuesIn(kReconvergencePolicies),
                                            ::testing::ValuesIn(kModels)),
                         [](const auto &info) { return policies_name(info.param); });

// What an unexpected exception was, for failure messages.
std::string why(const RunOutcome &r) {
    if (!r.exception) return "no exception";
    char text[96];
    std::snprintf(text, sizeof text, "exception %u, detail 0x%x, pc 0x%llx", r.exception->kind,
                  r.exception->detail, (unsigned long long)r.exception->pc);
    return text;
}

uint64_t lanes_mask(uint32_t n) { return n >= 64 ? ~uint64_t(0) : (uint64_t(1) << n) - 1; }

class SimtWarpSizeTest : public SimtFixture,
                         public ::testing::WithParamInterface<std::tuple<uint32_t, Policies>> {
protected:
    void SetUp() override {
        SimtFixture::SetUp();
        use_policies(config, std::get<1>(GetParam()));
    }
};

TEST_P(SimtWarpSizeTest, IfElseNestedDivergenceReconverges)
{
    config.warp_size = std::get<0>(GetParam());
    const uint32_t threads = 128;
    config.warps_per_sm = std::max(16u, threads / config.warp_size);
    RunOutcome r = launch("k_ifelse", {2, 1, 1}, {threads, 1, 1});
    ASSERT_FALSE(r.exception);
    for (uint32_t t = 0; t < 2 * threads; ++t) {
        uint64_t v;
        if (t & 1) v = t * 3 + ((t & 2) ? 1000 : 2000);
        else v = (t + 100) * (((t % 8) < 4) ? 2 : 1);
        ASSERT_EQ(out(3 * t), v) << t;
        ASSERT_EQ(out(3 * t + 1), (t % threads) % config.warp_size);
        ASSERT_EQ(out(3 * t + 2), lanes_mask(config.warp_size)) << "not reconverged at " << t;
    }
    if (config.warp_size > 1) {
        EXPECT_GT(r.stats.divergent_branches, 0u);
    }
}

INSTANTIATE_TEST_SUITE_P(
    WarpSizes, SimtWarpSizeTest,
    ::testing::Combine(::testing::Values(32u, 8u, 64u, 1u),
                       ::testing::Combine(::testing::ValuesIn(kWarpSchedulers),
                                          ::testing::ValuesIn(kReconvergencePolicies),
                                          ::testing::ValuesIn(kModels))),
    [](const auto &info) {
        return std::to_string(std::get<0>(info.param)) + "_" +
               policies_name(std::get<1>(info.param));
    });

TEST_P(SimtTest, LoopWithPerLaneTripCounts) {
    RunOutcome r = launch("k_loop", {1, 1, 1}, {96, 1, 1});
    ASSERT_FALSE(r.exception);
    for (uint32_t t = 0; t < 96; ++t) {
        uint64_t sum = 0;
        for (uint32_t i = 0; i < t % 37; ++i) sum += i * i + t;
        ASSERT_EQ(out(2 * t), sum) << t;
        ASSERT_EQ(out(2 * t + 1), 0xffffffffu) << t;
    }
}

TEST_P(SimtTest, EarlyExit) {
    Params p;
    p.n = 64;
    RunOutcome r = launch("k_early_exit", {1, 1, 1}, {64, 1, 1}, p);
    ASSERT_FALSE(r.exception);
    EXPECT_EQ(r.exits.status, 0u);
    for (uint32_t t = 0; t < 64; ++t) {
        if (t % 3 == 0) continue;
        ASSERT_EQ(out(t), t + 1);
        uint64_t expected = 0;
        for (uint32_t l = 0; l < 32; ++l)
            if ((t / 32 * 32 + l) % 3 != 0) expected |= uint64_t(1) << l;
        ASSERT_EQ(out(64 + t), expected) << t;
    }
}

TEST_P(SimtTest, ExitStatusIsFirstNonZero) {
    Params p;
    p.arg = 37;
    RunOutcome r = launch("k_exit_status", {2, 1, 1}, {32, 1, 1}, p);
    ASSERT_FALSE(r.exception);
    EXPECT_EQ(r.exits.status, 7u);
    EXPECT_EQ(r.exits.nonzero_exits, 2u);
    EXPECT_EQ(r.exits.ctaid, (Dim3{1, 0, 0}));
    EXPECT_EQ(r.exits.tid, (Dim3{5, 0, 0}));
}

// Code after a divergent branch runs once per warp: the 32-thread warp
// issues about as many warp instructions as one thread alone plus the
// other side of the branch, not two copies of the long uniform tail.
TEST_P(SimtTest, ReconvergenceMeasuredInWarpInstructions) {
    Params p;
    p.arg = 2;
    RunOutcome one = launch("k_reconverge", {1, 1, 1}, {1, 1, 1}, p);
    ASSERT_FALSE(one.exception);
    RunOutcome warp = launch("k_reconverge", {1, 1, 1}, {32, 1, 1}, p);
    ASSERT_FALSE(warp.exception);
    for (uint32_t t = 0; t < 32; ++t) {
        uint64_t v = t;
        for (int i = 0; i < 2; ++i) v = (t & 1) ? v * 3 + 1 : v * 5 + 2;
        for (int i = 0; i < 100; ++i) v ^= v >> 3;
        ASSERT_EQ(out(t), v);
    }
    EXPECT_GT(one.stats.warp_instructions, 300u); // the tail dominates
    EXPECT_GE(warp.stats.warp_instructions, one.stats.warp_instructions);
    EXPECT_LE(warp.stats.warp_instructions, one.stats.warp_instructions + 40);
    EXPECT_GT(double(warp.stats.thread_instructions) / double(warp.stats.warp_instructions), 30.0);
}

TEST_P(SimtTest, BarrierOrdersSharedMemoryAcrossWarps) {
    const uint32_t n = 128;
    RunOutcome r = launch("k_barrier", {3, 1, 1}, {n, 1, 1}, {}, n * 8);
    ASSERT_FALSE(r.exception);
    for (uint32_t c = 0; c < 3; ++c)
        for (uint32_t t = 0; t < n; ++t) {
            const uint32_t i = (t + 1) % n;
            ASSERT_EQ(out(c * n + t), uint64_t(n - 1 - i) * 7 + c + 1) << c << " " << t;
        }
    EXPECT_GT(r.stats.barrier_waits, 0u);
}

TEST_P(SimtTest, BarrierReductions) {
    const uint32_t n = 100; // a partial last warp
    for (uint64_t arg : {40ull, 200ull}) {
        Params p;
        p.arg = arg;
        RunOutcome r = launch("k_bar_red", {2, 1, 1}, {n, 1, 1}, p);
        ASSERT_FALSE(r.exception);
        uint64_t popc = 0;
        bool all = true, any = false;
        for (uint32_t t = 0; t < n; ++t) {
            popc += t % 3 == 0;
            all &= t < arg;
            any |= t == arg;
        }
        for (uint32_t i = 0; i < 2 * n; ++i) {
            ASSERT_EQ(out(3 * i), popc);
            ASSERT_EQ(out(3 * i + 1), uint64_t(all));
            ASSERT_EQ(out(3 * i + 2), uint64_t(any));
        }
    }
}

TEST_P(SimtTest, BarrierReductionsNeedSimt2) {
    config.arch = SIMTGPU_ARCH_SIMT1;
    RunOutcome r = launch("k_bar_red", {1, 1, 1}, {32, 1, 1});
    ASSERT_TRUE(r.exception);
    EXPECT_EQ(r.exception->kind, uint32_t(SIMTGPU_EXC_ILLEGAL_INSTRUCTION));
    EXPECT_EQ(r.exception->detail & 0x7f, uint32_t(SIMTGPU_OPCODE_CUSTOM0));
    RunOutcome csrs = launch("k_csrs", {1, 1, 1}, {32, 1, 1}, {}, 96); // reads envptr
    ASSERT_TRUE(csrs.exception);
    EXPECT_EQ(csrs.exception->kind, uint32_t(SIMTGPU_EXC_ILLEGAL_INSTRUCTION));
}

TEST_P(SimtTest, ExitedThreadsDoNotBlockBarriers) {
    RunOutcome r = launch("k_barrier_exit", {1, 1, 1}, {64, 1, 1});
    ASSERT_FALSE(r.exception);
    for (uint32_t t = 0; t < 64; ++t)
        if (t % 5) {
            ASSERT_EQ(out(t), 64u - 13u);
        }
}

TEST_P(SimtTest, AtomicsUnderContention) {
    const uint32_t n = 128, ctas = 2;
    Params p;
    p.n = n * ctas;
    mem.write<uint64_t>(kCounter, 0);
    mem.write<uint64_t>(kCounter + 8, uint64_t(INT64_MIN));
    mem.write<uint64_t>(kCounter + 16, 0);
    mem.write<uint64_t>(kCounter + 24, 0);
    RunOutcome r = launch("k_atomics", {ctas, 1, 1}, {n, 1, 1}, p, 64);
    ASSERT_FALSE(r.exception);
    EXPECT_EQ(mem.read<uint32_t>(kCounter), n * ctas);
    std::vector<uint64_t> seen;
    for (uint32_t i = 0; i < n * ctas; ++i) seen.push_back(out(i));
    std::sort(seen.begin(), seen.end());
    for (uint32_t i = 0; i < n * ctas; ++i) ASSERT_EQ(seen[i], i);
    int64_t mx = INT64_MIN;
    for (uint32_t t = 0; t < n; ++t) mx = std::max<int64_t>(mx, int64_t((t * 7919) % 1000) - 500);
    EXPECT_EQ(int64_t(mem.read<uint64_t>(kCounter + 8)), mx);
    EXPECT_EQ(mem.read<uint64_t>(kCounter + 16), 0u); // lock released
    EXPECT_EQ(mem.read<uint64_t>(kCounter + 24), uint64_t(n) * ctas); // lock excluded
    for (uint32_t c = 0; c < ctas; ++c) EXPECT_EQ(out(n * ctas + c), uint64_t(n) * (n - 1) / 2);
}

// simt_2's single-instruction atomics from 2 CTAs of 96 threads, each
// result against what the operations give in any order.
TEST_P(SimtTest, NativeAtomicsUnderContention) {
    const uint32_t n = 192;
    Params p;
    p.n = n;
    for (uint32_t k = 0; k < 6; ++k)
        mem.write<uint64_t>(kCounter + 8 * k, 0);
    mem.write<uint64_t>(kCounter + 40, 5); // dec starts at 5
    RunOutcome r = launch("k_native_atomics", {2, 1, 1}, {n / 2, 1, 1}, p, 64);
    ASSERT_FALSE(r.exception) << r.exception->kind;
    EXPECT_EQ(mem.read<uint32_t>(kCounter), n);
    std::vector<uint64_t> moved, halves;
    uint32_t winners = 0;
    for (uint32_t t = 0; t < n; ++t) {
        moved.push_back(out(t));
        winners += uint32_t(out(n + t));
        halves.push_back(out(2 * n + t));
    }
    std::sort(moved.begin(), moved.end());
    for (uint32_t i = 0; i < n; ++i)
        ASSERT_EQ(moved[i], i); // each CAS increment moved a different value
    EXPECT_EQ(winners, 1u);
    const uint64_t winner = mem.read<uint64_t>(kCounter + 8);
    EXPECT_TRUE(winner >= 1 && winner <= n);
    EXPECT_EQ(out(n + winner - 1), 1u);
    // Float adds: every partial sum was someone's old value.
    std::vector<float> olds;
    for (uint64_t bits : halves)
        olds.push_back(std::bit_cast<float>(uint32_t(bits)));
    std::sort(olds.begin(), olds.end());
    for (uint32_t i = 0; i < n; ++i)
        ASSERT_EQ(olds[i], 0.5f * float(i));
    EXPECT_EQ(std::bit_cast<float>(mem.read<uint32_t>(kCounter + 16)), 0.5f * float(n));
    EXPECT_EQ(std::bit_cast<double>(mem.read<uint64_t>(kCounter + 24)), 0.25 * n);
    EXPECT_EQ(mem.read<uint32_t>(kCounter + 32), n % 17);
    EXPECT_EQ(mem.read<uint32_t>(kCounter + 40), uint32_t(((5 - int(n)) % 17 + 17) % 17));
}

TEST_P(SimtTest, NativeAtomicsNeedSimt2) {
    config.arch = SIMTGPU_ARCH_SIMT1;
    Params p;
    p.n = 32;
    RunOutcome r = launch("k_native_atomics", {1, 1, 1}, {32, 1, 1}, p, 64);
    ASSERT_TRUE(r.exception);
    EXPECT_EQ(r.exception->kind, uint32_t(SIMTGPU_EXC_ILLEGAL_INSTRUCTION));
    EXPECT_EQ(r.exception->detail & 0x7f, 0x2fu); // amocas, the first of them
}

// warp.nanosleep: a sleeping warp issues nothing for the time asked (in the
// SM's cycles), the others go on; on simt_1 it is illegal.
TEST_P(SimtTest, NanosleepDelaysOnlyItsWarp) {
    const uint32_t ns = 5000, threads = 128;
    Params p;
    p.arg = ns;
    RunOutcome r = launch("k_nanosleep", {1, 1, 1}, {threads, 1, 1}, p);
    ASSERT_FALSE(r.exception);
    const uint64_t cycles = uint64_t(ns) * config.clock_khz / 1000000;
    for (uint32_t t = 0; t < threads; ++t) {
        if ((t / config.warp_size) & 1)
            ASSERT_GE(out(t), cycles) << "thread " << t;
        else
            ASSERT_LT(out(t), cycles) << "thread " << t;
    }
    config.arch = SIMTGPU_ARCH_SIMT1;
    RunOutcome old = launch("k_nanosleep", {1, 1, 1}, {threads, 1, 1}, p);
    ASSERT_TRUE(old.exception);
    EXPECT_EQ(old.exception->kind, uint32_t(SIMTGPU_EXC_ILLEGAL_INSTRUCTION));
}

TEST_P(SimtTest, AtomicsOnHostMemoryPages) {
    mem.set_host_pages(kCounter, 4096);
    Params p;
    p.n = 64;
    mem.write<uint64_t>(kCounter, 0);
    mem.write<uint64_t>(kCounter + 8, uint64_t(INT64_MIN));
    mem.write<uint64_t>(kCounter + 16, 0);
    mem.write<uint64_t>(kCounter + 24, 0);
    RunOutcome r = launch("k_atomics", {1, 1, 1}, {64, 1, 1}, p, 64);
    ASSERT_FALSE(r.exception);
    EXPECT_EQ(mem.read<uint32_t>(kCounter), 64u);
    EXPECT_EQ(mem.read<uint64_t>(kCounter + 24), 64u);
    EXPECT_EQ(mem.read<uint64_t>(kCounter + 16), 0u);
    EXPECT_GT(mem.dma_bytes, 0u);
}

TEST_P(SimtTest, ShuffleAsPtx) {
    RunOutcome r = launch("k_shfl", {1, 1, 1}, {64, 1, 1});
    ASSERT_FALSE(r.exception);
    for (uint32_t t = 0; t < 64; ++t) {
        const uint32_t l = t % 32, base = t - l;
        auto v = [&](uint32_t lane) { return uint64_t(base + lane) * 10 + 1; };
        ASSERT_EQ(out(6 * t + 0), v((l + 5) % 32)) << t;
        ASSERT_EQ(out(6 * t + 1), v(l >= 3 ? l - 3 : l)) << t;
        ASSERT_EQ(out(6 * t + 2), v(l + 4 <= 31 ? l + 4 : l)) << t;
        ASSERT_EQ(out(6 * t + 3), v(l ^ 6)) << t;
        ASSERT_EQ(out(6 * t + 4), v(l % 8 + 2 < 8 ? l + 2 : l)) << t;
        ASSERT_EQ(out(6 * t + 5), v(l % 8 >= 1 ? l - 1 : l)) << t;
    }
}

TEST_P(SimtTest, VoteAndActiveMask) {
    Params p;
    p.arg = 10;
    RunOutcome r = launch("k_vote", {1, 1, 1}, {64, 1, 1}, p);
    ASSERT_FALSE(r.exception);
    for (uint32_t t = 0; t < 64; ++t) {
        const uint32_t w = t / 32;
        uint64_t ballot = 0;
        bool any = false, all = true, some = false;
        for (uint32_t l = 0; l < 32; ++l) {
            const uint32_t u = w * 32 + l;
            if (u % 3 == 0) ballot |= uint64_t(1) << l;
            any |= u == 10;
            all &= u < 10;
            some |= u < 10;
        }
        ASSERT_EQ(out(6 * t + 0), ballot);
        ASSERT_EQ(out(6 * t + 1), uint64_t(any));
        ASSERT_EQ(out(6 * t + 2), uint64_t(all));
        ASSERT_EQ(out(6 * t + 3), uint64_t(all || !some));
        const uint64_t half = (t & 1) ? 0xaaaaaaaaull : 0x55555555ull;
        ASSERT_EQ(out(6 * t + 4), half);
        ASSERT_EQ(out(6 * t + 5), half);
    }
}

TEST_P(SimtTest, WarpSyncWaitsForDivergentLanes) {
    RunOutcome r = launch("k_warp_sync", {1, 1, 1}, {32, 1, 1});
    ASSERT_FALSE(r.exception);
    for (uint32_t t = 0; t < 32; ++t) {
        if (t < 16) ASSERT_TRUE(out(t) == 2 * t || out(t) == 2 * t + 1);
        else ASSERT_EQ(out(t), 3 * t + 100);
    }
}

TEST_P(SimtTest, WarpSyncRegroupsAfterLongDivergence) {
    for (int i = 0; i < 8; ++i) mem.write<uint64_t>(kIn + 8 * i, uint64_t(i) * 11 + 1);
    RunOutcome r = launch("k_long_divergence", {1, 1, 1}, {32, 1, 1});
    ASSERT_FALSE(r.exception);
    auto value = [](uint32_t t) {
        uint64_t v = t;
        for (uint32_t i = 0; i < (t < 16 ? 300u : 3u); ++i) v = v * 3 + (i % 8) * 11 + 1;
        return v;
    };
    for (uint32_t t = 0; t < 32; ++t) {
        ASSERT_EQ(out(t), value(31 - t)) << t;
        ASSERT_EQ(out(32 + t), 0xffffffffu) << t;
    }
}

TEST_P(SimtTest, DeadlockIsReportedNotHung) {
    RunOutcome r = launch("k_deadlock", {1, 1, 1}, {64, 1, 1});
    ASSERT_TRUE(r.exception);
    EXPECT_EQ(r.exception->kind, uint32_t(SIMTGPU_EXC_DEADLOCK));
    EXPECT_EQ(r.exception->sm, 3u);
}

TEST_P(SimtTest, BarriersCountThreadsNotInstructions) {
    Params p;
    p.arg = 10;
    RunOutcome r = launch("k_divergent_barrier", {1, 1, 1}, {64, 1, 1}, p);
    ASSERT_FALSE(r.exception);
    for (uint32_t t = 0; t < 64; ++t) ASSERT_EQ(out(t), t);
}

TEST_P(SimtTest, TrapReportsWhere) {
    Params p;
    p.arg = 37;
    RunOutcome r = launch("k_trap", {2, 1, 1}, {32, 1, 1}, p);
    ASSERT_TRUE(r.exception);
    const Exception &e = *r.exception;
    EXPECT_EQ(e.kind, uint32_t(SIMTGPU_EXC_TRAP));
    EXPECT_EQ(e.lane, 5u);
    EXPECT_EQ(e.ctaid, (Dim3{1, 0, 0}));
    EXPECT_EQ(e.tid, (Dim3{5, 0, 0}));
    EXPECT_EQ(e.sm, 3u);
    EXPECT_GE(e.pc, sym("k_trap"));
    EXPECT_LT(e.pc, sym("k_trap") + 64);
    EXPECT_EQ(mem.read<uint32_t>(e.pc) & 0xffff, 0x9002u); // c.ebreak
}

TEST_P(SimtTest, PageFaultOnLoad) {
    Params p;
    p.arg = 0x5000008;
    RunOutcome r = launch("k_load_arg", {1, 1, 1}, {32, 1, 1}, p);
    ASSERT_TRUE(r.exception);
    EXPECT_EQ(r.exception->kind, uint32_t(SIMTGPU_EXC_PAGE_FAULT));
    EXPECT_EQ(r.exception->access, uint32_t(SIMTGPU_ACCESS_READ));
    EXPECT_EQ(r.exception->detail, uint32_t(SIMTGPU_FAULT_NOT_PRESENT));
    EXPECT_EQ(r.exception->address, 0x5000008u);
    EXPECT_EQ(r.exception->lane, 3u);
}

TEST_P(SimtTest, ProtectionFaultOnStore) {
    Params p;
    p.arg = 0x1800010;
    mem.set_perms(0x1800000, 4096, FlatMemory::kR);
    RunOutcome r = launch("k_store_arg", {1, 1, 1}, {32, 1, 1}, p);
    ASSERT_TRUE(r.exception);
    EXPECT_EQ(r.exception->kind, uint32_t(SIMTGPU_EXC_PAGE_FAULT));
    EXPECT_EQ(r.exception->access, uint32_t(SIMTGPU_ACCESS_WRITE));
    EXPECT_EQ(r.exception->detail, uint32_t(SIMTGPU_FAULT_PROTECTION));
    EXPECT_EQ(r.exception->address, 0x1800010u);
    EXPECT_EQ(r.exception->lane, 2u);
}

TEST_P(SimtTest, FetchNeedsExecutePermission) {
    Params p;
    p.arg = 0x1800000;
    mem.set_perms(0x1800000, 4096, FlatMemory::kR | FlatMemory::kW);
    RunOutcome r = launch("k_jump_arg", {1, 1, 1}, {1, 1, 1}, p);
    ASSERT_TRUE(r.exception);
    EXPECT_EQ(r.exception->kind, uint32_t(SIMTGPU_EXC_PAGE_FAULT));
    EXPECT_EQ(r.exception->access, uint32_t(SIMTGPU_ACCESS_EXEC));
    EXPECT_EQ(r.exception->pc, 0x1800000u);
}

TEST_P(SimtTest, SharedWindowBounds) {
    Params p;
    p.arg = 63;
    EXPECT_FALSE(launch("k_shared_at", {1, 1, 1}, {32, 1, 1}, p, 64).exception);
    p.arg = 64;
    RunOutcome r = launch("k_shared_at", {1, 1, 1}, {32, 1, 1}, p, 64);
    ASSERT_TRUE(r.exception);
    EXPECT_EQ(r.exception->kind, uint32_t(SIMTGPU_EXC_PAGE_FAULT));
    EXPECT_EQ(r.exception->detail, uint32_t(SIMTGPU_FAULT_OUT_OF_WINDOW));
    EXPECT_EQ(r.exception->address, SIMTGPU_SHARED_BASE + 64);
    EXPECT_EQ(r.exception->lane, 1u);
}

TEST_P(SimtTest, MisalignedAtomic) {
    Params p;
    p.arg = kOut + 2;
    RunOutcome r = launch("k_amo_arg", {1, 1, 1}, {32, 1, 1}, p);
    ASSERT_TRUE(r.exception);
    EXPECT_EQ(r.exception->kind, uint32_t(SIMTGPU_EXC_MISALIGNED));
    EXPECT_EQ(r.exception->address, kOut + 2);
}

TEST_P(SimtTest, BadEcall) {
    RunOutcome r = launch("k_bad_ecall", {1, 1, 1}, {4, 1, 1});
    ASSERT_TRUE(r.exception);
    EXPECT_EQ(r.exception->kind, uint32_t(SIMTGPU_EXC_BAD_ECALL));
    EXPECT_EQ(r.exception->detail, 64u);
}

TEST_P(SimtTest, IllegalInstructionReportsBits) {
    RunOutcome r = launch("k_illegal", {1, 1, 1}, {32, 1, 1});
    ASSERT_TRUE(r.exception);
    EXPECT_EQ(r.exception->kind, uint32_t(SIMTGPU_EXC_ILLEGAL_INSTRUCTION));
    EXPECT_EQ(r.exception->detail, 0xffffffffu);
    EXPECT_EQ(r.exception->lane, 4u);
}

TEST_P(SimtTest, LocalMemoryIsPerThread) {
    const uint32_t stack = 2048;
    RunOutcome r = launch("k_local", {2, 1, 1}, {48, 1, 1}, {}, 0, stack);
    ASSERT_FALSE(r.exception);
    for (uint32_t t = 0; t < 96; ++t) {
        uint64_t s = 0;
        for (uint32_t i = 0; i < 50; ++i) s += t * 1000 + (i * 7 + t) % 64;
        ASSERT_EQ(out(2 * t), s) << t;
        ASSERT_LE(out(2 * t + 1), SIMTGPU_LOCAL_BASE + stack); // sp in the kernel body
        ASSERT_GT(out(2 * t + 1), SIMTGPU_LOCAL_BASE + stack - 256);
    }
    // With too small a stack the frame grows below the window: unmapped.
    RunOutcome small = launch("k_local", {1, 1, 1}, {1, 1, 1}, {}, 0, 256);
    ASSERT_TRUE(small.exception);
    EXPECT_EQ(small.exception->kind, uint32_t(SIMTGPU_EXC_PAGE_FAULT));
    EXPECT_LT(small.exception->address, SIMTGPU_LOCAL_BASE);
}

// Every thread finds its local memory zeroed, wherever it looks, even where
// an earlier thread of the same warp slot wrote (64 two-warp CTAs do not
// fit at once: later CTAs reuse the slots; under two-level scheduling, the
// slots of finished CTAs once stayed in its active set and starved the
// others: a livelock), and reads back what it stored,
// also across the simulator's zeroing chunks (128 bytes for a 4 KiB window:
// offset 124 straddles two; 1533 is misaligned). The kernel's own frame is at
// the top of the window, above these.
TEST_P(SimtTest, LocalMemoryStartsZeroedAndKeepsWrites) {
    const std::vector<uint64_t> offsets = {0, 60, 124, 200, 1000, 1533, 2040};
    for (size_t i = 0; i < offsets.size(); ++i)
        mem.write(kIn + 8 * i, offsets[i]);
    Params p;
    p.n = offsets.size();
    const uint32_t ctas = 64, threads = 64;
    RunOutcome r = launch("k_local_fresh", {ctas, 1, 1}, {threads, 1, 1}, p, 0, 4096);
    ASSERT_FALSE(r.exception) << r.exception->kind << " detail " << r.exception->detail;
    for (uint64_t t = 0; t < ctas * threads; ++t)
        for (uint64_t i = 0; i < offsets.size(); ++i) {
            const uint64_t k = 2 * (t * offsets.size() + i);
            ASSERT_EQ(out(k), 0u) << "thread " << t << " offset " << offsets[i];
            ASSERT_EQ(out(k + 1), t << 32 | i) << "thread " << t << " offset " << offsets[i];
        }
}

// A spill of every lane to a word none has touched is not zeroed first,
// but the word after it still reads zero (an earlier thread of the slot
// wrote it), and zeroing its 64 bytes lane by lane, for accesses at other
// addresses in each lane, leaves both words as stored.
TEST_P(SimtTest, LocalSpillsLeaveTheNextWordZeroed) {
    mem.write(kIn, 32);
    Params p;
    p.n = 1;
    const uint32_t ctas = 64, threads = 64;
    for (uint32_t window : {256u, 4096u}) {
        SCOPED_TRACE(window);
        RunOutcome r = launch("k_local_spill", {ctas, 1, 1}, {threads, 1, 1}, p, 0, window);
        ASSERT_FALSE(r.exception) << r.exception->kind << " detail " << r.exception->detail;
        for (uint64_t t = 0; t < ctas * threads; ++t) {
            ASSERT_EQ(out(4 * t), 0u) << "thread " << t;
            ASSERT_EQ(out(4 * t + 1), 0u) << "thread " << t;
            ASSERT_EQ(out(4 * t + 2), t << 32 | 1) << "thread " << t;
            ASSERT_EQ(out(4 * t + 3), (t << 32 | 1) + 1) << "thread " << t;
        }
    }
}

TEST_P(SimtTest, LocalMemoryOfLanesStaysApart) {
    const uint32_t ctas = 4, threads = 96;
    RunOutcome r = launch("k_local_lanes", {ctas, 1, 1}, {threads, 1, 1});
    ASSERT_FALSE(r.exception) << r.exception->kind << " detail " << r.exception->detail;
    for (uint32_t t = 0; t < ctas * threads; ++t) {
        uint8_t bytes[24]; // the thread's window from its shift on, as the kernel writes it
        for (uint32_t i = 0; i < 24; ++i) bytes[i] = uint8_t(t * 31 + i);
        const uint16_t half = uint16_t(t ^ 0xbeef);
        const uint32_t word = t * 0x01010101u;
        std::memcpy(bytes + 3, &half, 2);
        std::memcpy(bytes + 9, &word, 4);
        for (uint32_t k = 0; k < 3; ++k) {
            uint64_t want;
            std::memcpy(&want, bytes + 8 * k, 8);
            ASSERT_EQ(out(3 * t + k), want) << "thread " << t << " doubleword " << k;
        }
    }
}

// Warp loads and stores agree with their definition lane by lane, whichever
// path the core takes: one copy for a contiguous warp in one page, the
// coalesced path, the per-lane one. Stores that overlap land in lane order.
TEST_P(SimtTest, WarpAccessesAgreeWithPerLane) {
    constexpr uint32_t kArea = 0x1400, kThreads = 32;
    constexpr uint64_t kSomeLanes = 1 << 20, kShared = 1 << 21;
    struct Case {
        const char *what;
        uint64_t stride, offset, flags;
    };
    const Case cases[] = {
        {"bytes in a row", 1, 0, 0},
        {"halfwords in a row", 2, 0, 0},
        {"words in a row", 4, 0, 0},
        {"doublewords in a row", 8, 0, 0},
        {"strided", 16, 8, 0},
        {"one address", 0, 24, 0},
        {"misaligned words", 4, 1, 0},
        {"misaligned doublewords", 8, 5, 0},
        {"across a page", 4, 0xfc0, 0},
        {"doublewords across a page", 8, 0xf08, 0},
        {"part of the warp", 4, 0, kSomeLanes},
        {"shared words", 4, 0, kShared},
        {"shared doublewords, misaligned", 8, 3, kShared},
        {"shared, part of the warp", 8, 0, kShared | kSomeLanes},
    };
    std::vector<uint8_t> input(kArea);
    for (uint32_t i = 0; i < kArea; ++i)
        input[i] = uint8_t(i * 37 + 11 + (i >> 8));
    for (const Case &c : cases) {
        SCOPED_TRACE(c.what);
        mem.write_bytes(kIn, input.data(), kArea);
        const std::vector<uint8_t> zeros(6 * kArea + 8 * 16 * kThreads);
        mem.write_bytes(kCounter, zeros.data(), 6 * kArea);
        mem.write_bytes(kOut, zeros.data(), 8 * 16 * kThreads);
        Params p;
        p.arg = c.stride | c.offset << 8 | c.flags;
        RunOutcome r = launch("k_warp_accesses", {1, 1, 1}, {kThreads, 1, 1}, p,
                              (c.flags & kShared) ? 7 * kArea : 0);
        ASSERT_FALSE(r.exception) << why(r);
        std::vector<uint8_t> stored(6 * kArea, 0);
        for (uint32_t t = 0; t < kThreads; ++t) {
            if ((c.flags & kSomeLanes) && t % 3 == 0) {
                ASSERT_EQ(out(16 * t), 0u) << "thread " << t;
                continue;
            }
            const uint8_t *at = input.data() + c.offset + t * c.stride;
            auto bytes = [&](uint32_t n) {
                uint64_t v = 0;
                std::memcpy(&v, at, n);
                return v;
            };
            const uint64_t want[9] = {uint64_t(int64_t(int8_t(bytes(1)))),
                                      bytes(1),
                                      uint64_t(int64_t(int16_t(bytes(2)))),
                                      bytes(2),
                                      uint64_t(int64_t(int32_t(bytes(4)))),
                                      bytes(4),
                                      bytes(8),
                                      bytes(4),
                                      bytes(8)};
            for (uint32_t k = 0; k < 9; ++k)
                ASSERT_EQ(out(16 * t + k), want[k]) << "thread " << t << " load " << k;
            const uint32_t sizes[6] = {1, 2, 4, 8, 4, 8};
            for (uint32_t k = 0; k < 6; ++k) {
                const uint64_t v = 0x0123456789abcdefull * (t + 1 + k);
                std::memcpy(stored.data() + k * kArea + c.offset + t * c.stride, &v, sizes[k]);
            }
        }
        for (uint32_t i = 0; i < 6 * kArea; ++i)
            ASSERT_EQ(mem.read<uint8_t>(kCounter + i), stored[i])
                << "store " << i / kArea << ", byte " << i % kArea;
    }
}

TEST_P(SimtTest, IdentityCsrs) {
    const Dim3 grid{2, 3, 2}, block{4, 3, 5};
    RunOutcome r = launch("k_csrs", grid, block, {}, 96);
    ASSERT_FALSE(r.exception);
    const uint32_t per_cta = 60;
    for (uint32_t cz = 0; cz < 2; ++cz)
        for (uint32_t cy = 0; cy < 3; ++cy)
            for (uint32_t cx = 0; cx < 2; ++cx)
                for (uint32_t t = 0; t < per_cta; ++t) {
                    const uint32_t cta = cx + 2 * (cy + 3 * cz);
                    const uint64_t i = 16 * (uint64_t(cta) * per_cta + t);
                    ASSERT_EQ(out(i + 0), t % 4);
                    ASSERT_EQ(out(i + 1), t / 4 % 3);
                    ASSERT_EQ(out(i + 2), t / 12);
                    ASSERT_EQ(out(i + 3), 4u | 3u << 16 | uint64_t(5) << 32);
                    ASSERT_EQ(out(i + 4), cx);
                    ASSERT_EQ(out(i + 5), cy);
                    ASSERT_EQ(out(i + 6), cz);
                    ASSERT_EQ(out(i + 7), 2u | 3u << 16 | uint64_t(2) << 32);
                    ASSERT_EQ(out(i + 8), t % 32);
                    ASSERT_EQ(out(i + 9), t / 32);
                    ASSERT_EQ(out(i + 10), 32u);
                    ASSERT_EQ(out(i + 11), (uint64_t(1) << (t % 32)) - 1);
                    ASSERT_EQ(out(i + 12), 0xe000u);
                    ASSERT_EQ(out(i + 13), 96u);
                    ASSERT_EQ(out(i + 14), 42u);
                    ASSERT_EQ(out(i + 15), 3u | uint64_t(config.num_sms) << 16);
                }
}

TEST_P(SimtTest, GlobalLoadsCostMemoryLatency) {
    config.mem_latency = 50;
    for (int i = 0; i < 10; ++i) mem.write<uint64_t>(kIn + 8 * i, i + 1);
    RunOutcome r = launch("k_clock", {1, 1, 1}, {32, 1, 1});
    ASSERT_FALSE(r.exception);
    EXPECT_EQ(out(1), 55u);
    // Timing model: the ten loads share a line; the first misses to DRAM,
    // each later one (after the add of the one before) hits L1.
    const uint64_t least = config.model == Model::timing
                               ? config.memory.dram.latency + 9 * config.memory.l1.hit_latency
                               : 10u * 50u;
    EXPECT_GE(out(0), least);
    EXPECT_LT(out(0), least + (config.model == Model::timing ? 400u : 200u));
    EXPECT_GE(r.stats.sm_busy_cycles, out(0));
    EXPECT_LE(out(2), r.cycles); // ns = cycles at 1 GHz
    EXPECT_GE(out(2), out(0));
}

TEST_P(SimtTest, HostMemoryPagesGoThroughDma) {
    mem.set_host_pages(kOut, 1 << 16);
    RunOutcome r = launch("k_ifelse", {2, 1, 1}, {64, 1, 1});
    ASSERT_FALSE(r.exception);
    for (uint32_t t = 0; t < 128; ++t) {
        uint64_t v = (t & 1) ? t * 3 + ((t & 2) ? 1000 : 2000) : (t + 100) * (((t % 8) < 4) ? 2 : 1);
        ASSERT_EQ(out(3 * t), v);
    }
    EXPECT_GE(mem.dma_bytes, 128u * 3 * 8);
}

// GTO keeps issuing one warp until it stalls; round-robin interleaves. With
// register-only work, GTO finishes warp 0 long before warp 3, round-robin
// finishes them together.
TEST_F(SimtFixture, SchedulersIssueInTheirOwnOrder) {
    Params p;
    p.arg = 200;
    auto finish_of_warp = [&](uint32_t warp) { return out(2 * 32 * warp); };
    config.warp_scheduler = "greedy";
    ASSERT_FALSE(launch("k_issue_order", {1, 1, 1}, {128, 1, 1}, p).exception);
    EXPECT_LT(finish_of_warp(0) * 2, finish_of_warp(3));
    EXPECT_LT(finish_of_warp(2), finish_of_warp(3));
    config.warp_scheduler = "round-robin";
    ASSERT_FALSE(launch("k_issue_order", {1, 1, 1}, {128, 1, 1}, p).exception);
    EXPECT_GT(finish_of_warp(0) * 4, finish_of_warp(3) * 3);
}

TEST_P(SimtTest, StoresToDecodedCodeTakeEffect) {
    for (uint64_t fence : {0ull, 1ull}) {
        SetUp(); // a fresh image
        Params p;
        p.arg = fence;
        RunOutcome r = launch("k_selfmod", {1, 1, 1}, {1, 1, 1}, p);
        ASSERT_FALSE(r.exception);
        EXPECT_EQ(out(0), 1u);
        EXPECT_EQ(out(1), 2u) << "fence.i " << fence;
    }
}

// A decoded instruction whose second half is on the next page: a store to
// that page alone must drop it too (riscv-tests' fence_i is
// device_diff_fence_i.S, run against qemu by device_simt_run_test).
TEST_P(SimtTest, StoresToTheSecondPageOfAnInstructionTakeEffect) {
    for (uint64_t fence : {0ull, 1ull}) {
        SimtFixture::SetUp(); // a fresh image
        ASSERT_EQ(sym("straddle_patchme") % SIMTGPU_PAGE_SIZE, SIMTGPU_PAGE_SIZE - 2);
        Params p;
        p.arg = fence;
        RunOutcome r = launch("k_selfmod_straddle", {1, 1, 1}, {32, 1, 1}, p);
        ASSERT_FALSE(r.exception);
        EXPECT_EQ(out(0), 1u);
        EXPECT_EQ(out(1), 2u) << "fence.i " << fence;
    }
}

// Same input, same results and statistics (ARCHITECTURE D5).
TEST_P(SimtTest, RunsAreDeterministic) {
    auto once = [&] {
        mem.write<uint64_t>(kCounter, 0);
        mem.write<uint64_t>(kCounter + 8, uint64_t(INT64_MIN));
        mem.write<uint64_t>(kCounter + 16, 0);
        mem.write<uint64_t>(kCounter + 24, 0);
        Params p;
        p.n = 128;
        RunOutcome r = launch("k_atomics", {1, 1, 1}, {128, 1, 1}, p, 64);
        std::vector<uint64_t> values;
        for (uint32_t i = 0; i < 129; ++i) values.push_back(out(i));
        return std::tuple(r.cycles, r.stats.thread_instructions, r.stats.warp_instructions,
                          r.stats.sm_busy_cycles, r.stats.mem_reads, r.stats.divergent_branches,
                          values);
    };
    EXPECT_EQ(once(), once());
}

TEST_P(SimtTest, OccupancyLimitsResidentCtas) {
    LaunchDesc l;
    l.entry_pc = sym("k_barrier");
    l.param_va = kParams;
    l.grid = {8, 1, 1};
    l.block = {64, 1, 1};
    l.shared_bytes = 40 << 10; // only one fits in 64 KiB
    config.warps_per_sm = 16;
    config.shared_bytes_per_sm = 64 << 10;
    Sm s(config, 0);
    uint32_t a = *s.attach(l, mem, 0);
    ASSERT_TRUE(s.can_accept_cta(a));
    s.add_cta(a, {0, 0, 0});
    EXPECT_FALSE(s.can_accept_cta(a));
    l.shared_bytes = 0;
    l.block = {256, 1, 1}; // 8 warps of 16 slots: two CTAs
    s.abort();
    a = *s.attach(l, mem, 0);
    s.add_cta(a, {0, 0, 0});
    EXPECT_TRUE(s.can_accept_cta(a));
    s.add_cta(a, {1, 0, 0});
    EXPECT_FALSE(s.can_accept_cta(a));
}

// Two launches share an SM: the resources left by one bound the other, each
// keeps its own exits and instruction count, and aborting one leaves the
// other's CTAs running to the right answer.
TEST_P(SimtTest, TwoLaunchesShareAnSm) {
    config.warps_per_sm = 16;
    config.shared_bytes_per_sm = 64 << 10;
    LaunchDesc big;
    big.entry_pc = sym("k_barrier");
    big.param_va = kParams;
    big.block = {256, 1, 1}; // 8 warps
    big.shared_bytes = 40 << 10;
    big.stack_bytes = 4096;
    mem.write(kParams, Params{});
    LaunchDesc small = big;
    small.block = {128, 1, 1}; // 4 warps
    small.shared_bytes = 128 * 8;
    Sm s(config, 0);
    const uint32_t a = *s.attach(big, mem, 0);
    const uint32_t b = *s.attach(small, mem, 0);
    EXPECT_NE(a, b);
    s.add_cta(a, {0, 0, 0});
    EXPECT_FALSE(s.can_accept_cta(a)); // shared memory: 40 + 40 > 64 KiB
    ASSERT_TRUE(s.can_accept_cta(b));
    s.add_cta(b, {0, 0, 0});
    ASSERT_TRUE(s.can_accept_cta(b)); // 8 + 4 + 4 warps of 16
    s.add_cta(b, {1, 0, 0});
    EXPECT_FALSE(s.can_accept_cta(b));
    EXPECT_EQ(s.resident_ctas(a), 1u);
    EXPECT_EQ(s.resident_ctas(b), 2u);
    s.abort(a);
    EXPECT_EQ(s.resident_ctas(a), 0u);
    EXPECT_TRUE(s.can_accept_cta(a));
    s.detach(a);
    while (!s.idle()) {
        const SmRunResult r = s.run(100000);
        ASSERT_FALSE(r.exception);
    }
    EXPECT_EQ(s.take_ctas_completed(b), 2u);
    EXPECT_EQ(s.take_ctas_completed(b), 0u);
    EXPECT_EQ(s.thread_instructions(b), s.stats().thread_instructions);
    EXPECT_EQ(s.exit_record(b).nonzero_exits, 0u);
    const uint32_t n = 128;
    for (uint32_t c = 0; c < 2; ++c)
        for (uint32_t t = 0; t < n; ++t)
            ASSERT_EQ(out(c * n + t), uint64_t(n - 1 - (t + 1) % n) * 7 + c + 1) << c << " " << t;
}

// -------------------------------------------------- warp-level syncs

// CUDA's rule for *_sync intrinsics: a vote or shuffle waits for every live
// lane it names, wherever the compiler put the loop before it.
uint64_t collatz_steps(uint64_t n) {
    uint64_t steps = 0;
    for (; n > 1; ++steps)
        n = (n & 1) ? 3 * n + 1 : n / 2;
    return steps;
}

TEST_P(SimtTest, VotesAndShuffleAfterPerLaneLoops) {
    const uint32_t n = 96;
    for (const char *kernel : {"k_collatz_exit_above", "k_collatz_exit_below"}) {
        RunOutcome r = launch(kernel, {2, 1, 1}, {n, 1, 1});
        ASSERT_FALSE(r.exception) << kernel;
        for (uint32_t warp = 0; warp < 2 * n / 32; ++warp) {
            uint64_t ballot = 0;
            for (uint32_t l = 0; l < 32; ++l)
                ballot |= (collatz_steps(warp * 32 + l) & 1) << l;
            for (uint32_t l = 0; l < 32; ++l) {
                const uint32_t t = warp * 32 + l;
                ASSERT_EQ(out(5 * t), collatz_steps(t)) << kernel << " " << t;
                ASSERT_EQ(out(5 * t + 1), ballot) << kernel << " thread " << t;
                ASSERT_EQ(out(5 * t + 2), uint64_t(ballot != 0)) << kernel << " " << t;
                ASSERT_EQ(out(5 * t + 3), uint64_t(ballot == 0xffffffffu)) << kernel << " " << t;
                ASSERT_EQ(out(5 * t + 4), collatz_steps(t ^ 1)) << kernel << " " << t;
            }
        }
    }
}

// The figure of issue 11: threads 32..63 of a block of 64.
TEST_P(SimtTest, CollatzBallotOfSecondWarp) {
    RunOutcome r = launch("k_collatz_exit_above", {1, 1, 1}, {64, 1, 1});
    ASSERT_FALSE(r.exception);
    EXPECT_EQ(out(5 * 32 + 1), 0xf5310a7du);
}

TEST_P(SimtTest, VoteWaitingForLanesAtABarrierIsADeadlock) {
    RunOutcome r = launch("k_vote_deadlock", {1, 1, 1}, {32, 1, 1});
    ASSERT_TRUE(r.exception);
    EXPECT_EQ(r.exception->kind, uint32_t(SIMTGPU_EXC_DEADLOCK));
}

// 16 warps taking one lock with amoswap (issue 11: 390 of 1024 acquisitions
// after 400 M cycles under greedy, and no error). Round-robin gives the
// holder's warp its turn, and so does two-level (a warp waiting on memory
// leaves its active set, the one that left first comes back first); GTO and
// oldest-first, as defined, always prefer the older spinning warps, so a
// young holder never issues: that must be reported as a livelock within the
// watchdog's window, not run on.
TEST_P(SimtTest, SpinLockCompletesOrIsReportedAsLivelock) {
    mem.write<uint64_t>(kCounter, 0);
    mem.write<uint64_t>(kCounter + 8, 0);
    Params p;
    p.arg = 2;
    config.livelock_cycles = 1 << 21;
    // The timing model is slower per instruction (and far slower under the
    // sanitizers): four warps contend there, sixteen on the functional model.
    const uint32_t threads = config.model == Model::timing ? 128 : 512;
    RunOutcome r = launch("k_spin_lock", {1, 1, 1}, {threads, 1, 1}, p);
    // The timing model's sub-cores each issue: the lock's holder may run
    // beside a greedy spinner, so either outcome is allowed there.
    const bool may_starve =
        config.warp_scheduler != "round-robin" && config.warp_scheduler != "two-level";
    if (!may_starve || (config.model == Model::timing && !r.exception)) {
        ASSERT_FALSE(r.exception) << "kind " << r.exception->kind;
        EXPECT_EQ(mem.read<uint64_t>(kCounter + 8), uint64_t(threads) * p.arg);
        EXPECT_EQ(mem.read<uint32_t>(kCounter), 0u);
        return;
    }
    ASSERT_TRUE(r.exception);
    EXPECT_EQ(r.exception->kind, uint32_t(SIMTGPU_EXC_DEADLOCK));
    EXPECT_EQ(r.exception->detail, uint32_t(SIMTGPU_DEADLOCK_NO_PROGRESS));
    EXPECT_GE(r.exception->pc, sym("k_spin_lock"));
    EXPECT_LT(r.cycles, (1u << 21) + (1u << 19));
}

// The watchdog looks at state, not at events: a loop that runs far longer
// than its window without exiting, storing or reaching a barrier changes its
// registers, and that is progress.
TEST_P(SimtTest, LongLoopIsNotALivelock) {
    Params p;
    p.arg = 200000;
    config.livelock_cycles = 1 << 16;
    RunOutcome r = launch("k_issue_order", {1, 1, 1}, {128, 1, 1}, p);
    ASSERT_FALSE(r.exception) << "kind " << r.exception->kind;
    EXPECT_GT(r.cycles, uint64_t(10) << 16);
}

// All lanes waiting at a barrier or sync is still the deadlock of old.
TEST_P(SimtTest, DeadlockDetailSaysAllBlocked) {
    RunOutcome r = launch("k_deadlock", {1, 1, 1}, {64, 1, 1});
    ASSERT_TRUE(r.exception);
    EXPECT_EQ(r.exception->detail, uint32_t(SIMTGPU_DEADLOCK_ALL_BLOCKED));
}

// match.any and match.all as PTX match.sync.{any,all}.b64: 64-bit keys
// (some differ only above bit 31), the full warp and the even lanes.
TEST_P(SimtTest, MatchAnyAndAll) {
    const uint32_t n = 64;
    std::vector<uint64_t> keys(n);
    for (uint32_t t = 0; t < n; ++t) {
        keys[t] = (t % 5) | (uint64_t(t % 3 == 0) << 40);
        if (t >= 32) keys[t] = 77; // the second warp agrees
        mem.write<uint64_t>(kIn + 8 * t, keys[t]);
    }
    RunOutcome r = launch("k_match", {1, 1, 1}, {n, 1, 1});
    ASSERT_FALSE(r.exception) << why(r);
    for (uint32_t t = 0; t < n; ++t) {
        const uint32_t base = t - t % 32;
        uint64_t any = 0, even_any = 0;
        bool all = true, even_all = true;
        for (uint32_t l = 0; l < 32; ++l) {
            const uint64_t k = keys[base + l];
            any |= uint64_t(k == keys[t]) << l;
            all &= k == keys[base];
            if (l % 2 == 0) {
                even_any |= uint64_t(k == keys[t]) << l;
                even_all &= (k >> 40) == (keys[base] >> 40);
            }
        }
        ASSERT_EQ(out(4 * t), any) << t;
        ASSERT_EQ(out(4 * t + 1), all ? 0xffffffffu : 0u) << t;
        if (t % 2 == 0) {
            ASSERT_EQ(out(4 * t + 2), even_any) << t;
            ASSERT_EQ(out(4 * t + 3), even_all ? 0x55555555u : 0u) << t;
        }
    }
}

// The *_sync rule: lanes reaching match.any from different branches (and
// after per-lane loops) wait for each other and get the whole warp's answer.
TEST_P(SimtTest, MatchWaitsForDivergentLanes) {
    const uint32_t n = 64;
    for (uint32_t t = 0; t < n; ++t) mem.write<uint64_t>(kIn + 8 * t, t % 4);
    RunOutcome r = launch("k_match_divergent", {1, 1, 1}, {n, 1, 1});
    ASSERT_FALSE(r.exception) << why(r);
    for (uint32_t t = 0; t < n; ++t) {
        uint64_t any = 0;
        for (uint32_t l = 0; l < 32; ++l) any |= uint64_t(l % 4 == t % 4) << l;
        ASSERT_EQ(out(2 * t), any) << t;
    }
}

// redux.* over 64-bit values, signed and unsigned, full and partial masks.
TEST_P(SimtTest, ReduxOperations) {
    const uint32_t n = 64;
    std::vector<uint64_t> v(n);
    for (uint32_t t = 0; t < n; ++t) {
        v[t] = uint64_t(int64_t(t * 37 % 101) - 50) * 0x100000001ull;
        mem.write<uint64_t>(kIn + 8 * t, v[t]);
    }
    Params p;
    p.arg = 11;
    RunOutcome r = launch("k_redux", {1, 1, 1}, {n, 1, 1}, p);
    ASSERT_FALSE(r.exception) << why(r);
    for (uint32_t t = 0; t < n; ++t) {
        const uint32_t base = t - t % 32;
        uint64_t add = 0, band = ~uint64_t(0), bor = 0, bxor = 0, minu = ~uint64_t(0), maxu = 0;
        int64_t smin = INT64_MAX, smax = INT64_MIN;
        uint64_t add11 = 0, minu11 = ~uint64_t(0);
        for (uint32_t l = 0; l < 32; ++l) {
            const uint64_t x = v[base + l];
            add += x, band &= x, bor |= x, bxor ^= x;
            smin = std::min(smin, int64_t(x)), smax = std::max(smax, int64_t(x));
            minu = std::min(minu, x), maxu = std::max(maxu, x);
            if (l < 11) add11 += x, minu11 = std::min(minu11, x);
        }
        const uint64_t *expect[] = {&add, &band, &bor, &bxor};
        for (int k = 0; k < 4; ++k) ASSERT_EQ(out(10 * t + k), *expect[k]) << t << " " << k;
        ASSERT_EQ(out(10 * t + 4), uint64_t(smin)) << t;
        ASSERT_EQ(out(10 * t + 5), uint64_t(smax)) << t;
        ASSERT_EQ(out(10 * t + 6), minu) << t;
        ASSERT_EQ(out(10 * t + 7), maxu) << t;
        if (t % 32 < 11) {
            ASSERT_EQ(out(10 * t + 8), add11) << t;
            ASSERT_EQ(out(10 * t + 9), minu11) << t;
        }
    }
}

TEST_P(SimtTest, MatchAndReduxNeedSimt2) {
    config.arch = SIMTGPU_ARCH_SIMT1;
    for (const char *kernel : {"k_match", "k_redux"}) {
        RunOutcome r = launch(kernel, {1, 1, 1}, {32, 1, 1});
        ASSERT_TRUE(r.exception) << kernel;
        EXPECT_EQ(r.exception->kind, uint32_t(SIMTGPU_EXC_ILLEGAL_INSTRUCTION)) << kernel;
    }
}

// bar.arrive and bar.sync on named barriers: producers arrive at barrier 1
// and go on to meet at barrier 2; consumers wait at barrier 1 for all 128.
TEST_P(SimtTest, NamedBarriersProducerConsumer) {
    RunOutcome r = launch("k_named_barrier", {2, 1, 1}, {128, 1, 1}, {}, 128 * 8);
    ASSERT_FALSE(r.exception) << why(r);
    // Both CTAs write the same values; the second overwrites the first.
    for (uint32_t t = 0; t < 64; ++t) {
        ASSERT_EQ(out(t), uint64_t((t ^ 1) + 7)) << t;
        ASSERT_EQ(out(64 + t), uint64_t(t * 5 + 1)) << t;
    }
    for (uint32_t t = 0; t < 128; ++t) ASSERT_EQ(out(128 + t), uint64_t(t % 64 + 7)) << t;
}

TEST_P(SimtTest, NamedBarrierCountsAPartialLastWarpWhole) {
    RunOutcome r = launch("k_bar_partial_warp", {1, 1, 1}, {48, 1, 1});
    ASSERT_FALSE(r.exception) << why(r);
    for (uint32_t t = 0; t < 48; ++t) ASSERT_EQ(out(t), t + 1);
}

TEST_P(SimtTest, NamedBarrierCompletesWhenEveryLiveThreadWaits) {
    RunOutcome r = launch("k_bar_named_exit", {1, 1, 1}, {64, 1, 1});
    ASSERT_FALSE(r.exception) << why(r);
    for (uint32_t t = 0; t < 64; ++t) {
        if (t % 4 != 3) {
            ASSERT_EQ(out(t), t);
        }
    }
}

// Bad operands: an exception that says what is wrong and with which value.
TEST_P(SimtTest, NamedBarrierOperandsAreChecked) {
    struct Case {
        uint64_t id, count;
        uint32_t reason, value;
    };
    const Case cases[] = {
        {16, 0, SIMTGPU_BARRIER_ERR_ID, 16},
        {~uint64_t(0), 0, SIMTGPU_BARRIER_ERR_ID, 0xffffff},
        {1, 40, SIMTGPU_BARRIER_ERR_COUNT_ALIGN, 40},
        {1, 128, SIMTGPU_BARRIER_ERR_COUNT_RANGE, 128},
    };
    for (const Case &c : cases) {
        Params p;
        p.arg = c.id;
        p.n = c.count;
        RunOutcome r = launch("k_bar_sync_n", {1, 1, 1}, {96, 1, 1}, p);
        ASSERT_TRUE(r.exception) << c.id << " " << c.count;
        EXPECT_EQ(r.exception->kind, uint32_t(SIMTGPU_EXC_BAD_BARRIER));
        EXPECT_EQ(r.exception->detail, SIMTGPU_BARRIER_DETAIL(c.reason, c.value));
        EXPECT_EQ(r.exception->pc, r.exception->pc & ~uint64_t(1));
        EXPECT_GE(r.exception->pc, sym("k_bar_sync_n"));
    }
    Params ok;
    ok.arg = 15;
    ok.n = 96;
    RunOutcome r = launch("k_bar_sync_n", {1, 1, 1}, {96, 1, 1}, ok);
    ASSERT_FALSE(r.exception) << why(r);
    RunOutcome arrive = launch("k_bar_arrive_all", {1, 1, 1}, {32, 1, 1});
    ASSERT_TRUE(arrive.exception);
    EXPECT_EQ(arrive.exception->detail, SIMTGPU_BARRIER_DETAIL(SIMTGPU_BARRIER_ERR_ARRIVE_ALL, 0));
}

TEST_P(SimtTest, NamedBarrierCountMismatchIsAnError) {
    // Threads 0..31 give 64, 32..95 give 96: they disagree.
    Params p;
    p.arg = 2;
    p.n = 64;
    RunOutcome same = launch("k_bar_sync_n", {1, 1, 1}, {64, 1, 1}, p);
    ASSERT_FALSE(same.exception);
    RunOutcome r = launch("k_bar_count_mismatch", {1, 1, 1}, {96, 1, 1});
    ASSERT_TRUE(r.exception);
    EXPECT_EQ(r.exception->kind, uint32_t(SIMTGPU_EXC_BAD_BARRIER));
    EXPECT_EQ(SIMTGPU_BARRIER_DETAIL_REASON(r.exception->detail),
              uint32_t(SIMTGPU_BARRIER_ERR_COUNT_MISMATCH));
}

} // namespace
} // namespace simtgpu::sim
