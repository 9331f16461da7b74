// simt-run end to end on the bare-metal programs of programs/device_*.c:
// exit statuses of one and many threads, traps and faults with their
// reports, argument errors, and a differential test against qemu-riscv64.
#include "sm/warp_scheduler.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <set>
#include <string>
#include <string_view>
#include <sys/wait.h>

namespace {

struct Result {
    int status = -1;
    std::string output; // stdout and stderr
};

Result run(const std::string &command) {
    Result r;
    FILE *p = popen((command + " 2>&1").c_str(), "r");
    if (!p)
        return r;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0)
        r.output.append(buf, n);
    const int w = pclose(p);
    r.status = WIFEXITED(w) ? WEXITSTATUS(w) : -1;
    return r;
}

std::string program(const std::string &name) {
    return std::string(SIMTGPU_DEVICE_PROGRAM_DIR) + "/" + name + ".elf";
}

Result simt_run(const std::string &args, const std::string &name) {
    return run(std::string(SIMTGPU_SIMT_RUN) + " --timeout 60 " + args + " " + program(name));
}

bool contains(const std::string &s, const std::string &part) {
    return s.find(part) != std::string::npos;
}

TEST(SimtRun, SingleThreadExitsZero) {
    const Result r = simt_run("", "device_exit");
    EXPECT_EQ(r.status, 0) << r.output;
}

TEST(SimtRun, FirstNonZeroExitOfManyThreads) {
    // Thread g exits with g: the first non-zero is global thread 1.
    Result r = simt_run("--entry exit_global_id --grid 3 --block 5", "device_exit");
    EXPECT_EQ(r.status, 1) << r.output;
    // With one thread per CTA, thread 1 is CTA 1.
    r = simt_run("--entry exit_global_id --grid 4", "device_exit");
    EXPECT_EQ(r.status, 1) << r.output;
    // Only the very last thread of a 2x2 grid of 33-thread CTAs exits 7.
    r = simt_run("--entry exit_last --grid 2,2 --block 33", "device_exit");
    EXPECT_EQ(r.status, 7) << r.output;
}

TEST(SimtRun, BarriersAndGlobalMemoryAcrossWarps) {
    const Result r = simt_run("--entry exchange --block 300", "device_exit");
    EXPECT_EQ(r.status, 0) << r.output;
}

TEST(SimtRun, AtomicsOfThousandsOfThreadsAddUp) {
    for (const char *shape : {"--grid 37 --block 100", "--grid 5,3 --block 64 --sms 1",
                              "--grid 9 --block 50 --warp-size 8"}) {
        const Result r = simt_run(shape, "device_atomic_sum");
        EXPECT_EQ(r.status, 0) << shape << "\n" << r.output;
    }
}

TEST(SimtRun, TrapReportsWhere) {
    const Result r = simt_run("--grid 3 --block 8", "device_faults");
    EXPECT_EQ(r.status, 128 + 4) << r.output; // SIMTGPU_EXC_TRAP
    EXPECT_TRUE(contains(r.output, "trap (device-side assert)")) << r.output;
    EXPECT_TRUE(contains(r.output, "CTA (1,0,0), thread (3,0,0)")) << r.output;
    EXPECT_TRUE(contains(r.output, "lane 3")) << r.output;
}

TEST(SimtRun, FaultsReportAddressAndKind) {
    Result r = simt_run("--entry store_unmapped --block 4", "device_faults");
    EXPECT_EQ(r.status, 128 + 1) << r.output; // SIMTGPU_EXC_PAGE_FAULT
    EXPECT_TRUE(contains(r.output, "page fault: write of 0x50000000, not mapped")) << r.output;
    r = simt_run("--entry store_to_code", "device_faults");
    EXPECT_EQ(r.status, 128 + 1) << r.output;
    EXPECT_TRUE(contains(r.output, "not permitted by the page")) << r.output;
    r = simt_run("--entry bad_ecall", "device_faults");
    EXPECT_EQ(r.status, 128 + 9) << r.output; // SIMTGPU_EXC_BAD_ECALL
    EXPECT_TRUE(contains(r.output, "a7 = 64")) << r.output;
    r = simt_run("--block 2000", "device_exit");
    EXPECT_EQ(r.status, 128 + 8) << r.output; // SIMTGPU_EXC_BAD_LAUNCH
}

// Greedy-then-oldest starves the young warp that holds the lock: reported
// as a livelock naming a thread. Round-robin runs the same program to its end
// (fewer threads: 512 take 2 s, too long under the sanitizers).
TEST(SimtRun, LivelockIsReported) {
    const Result r = simt_run(
        "--entry spin_lock --block 512 --scheduler greedy --livelock-cycles 1000000", "device_faults");
    EXPECT_EQ(r.status, 128 + 5) << r.output; // SIMTGPU_EXC_DEADLOCK
    EXPECT_TRUE(contains(r.output, "livelock (threads run, but no forward progress")) << r.output;
    EXPECT_TRUE(contains(r.output, "thread (")) << r.output;
    const Result fair = simt_run(
        "--entry spin_lock --block 128 --scheduler round-robin --livelock-cycles 1000000",
        "device_faults");
    EXPECT_EQ(fair.status, 0) << fair.output;
}

// A flag nobody sets, with every warp taking its turn, is a hang: it runs
// until the timeout, as a real GPU's kernel runs until the driver's.
TEST(SimtRun, HangIsNotALivelock) {
    const Result r = simt_run("--entry wait_forever --grid 2 --block 64 --timeout 1", "device_faults");
    EXPECT_EQ(r.status, 124) << r.output;
    EXPECT_FALSE(contains(r.output, "livelock")) << r.output;
}

TEST(SimtRun, UnknownSchedulerIsRefused) {
    const Result r = simt_run("--scheduler fastest", "device_exit");
    EXPECT_EQ(r.status, 2) << r.output;
    for (std::string_view scheduler : simtgpu::sim::kWarpSchedulers)
        EXPECT_TRUE(contains(r.output, std::string(scheduler))) << r.output;
}

// The number after "NAME": in simt-run's --stats JSON.
uint64_t stat(const std::string &json, const std::string &name) {
    const std::string key = "\"" + name + "\": ";
    const size_t at = json.find(key);
    return at == std::string::npos ? UINT64_MAX : std::stoull(json.substr(at + key.size()));
}

// The same program under every warp scheduler: the sum, checked in the kernel
// against n (n + 1) / 2, never depends on the order of issue; the cycles do,
// and they are the same on every run.
TEST(SimtRun, SchedulersChangeCyclesNotResults) {
    const std::string args = "--grid 4 --block 512 --sms 1 --stats --scheduler ";
    std::set<uint64_t> cycles;
    for (std::string_view scheduler : simtgpu::sim::kWarpSchedulers) {
        const Result r = simt_run(args + std::string(scheduler), "device_atomic_sum");
        EXPECT_EQ(r.status, 0) << scheduler << ": " << r.output;
        ASSERT_NE(stat(r.output, "cycles"), UINT64_MAX) << r.output;
        cycles.insert(stat(r.output, "cycles"));
        const Result again = simt_run(args + std::string(scheduler), "device_atomic_sum");
        EXPECT_EQ(stat(again.output, "cycles"), stat(r.output, "cycles")) << scheduler;
        EXPECT_EQ(stat(again.output, "warp_instructions"), stat(r.output, "warp_instructions"));
    }
    EXPECT_GE(cycles.size(), 2u);
}

// The timing model on a whole device (SMs sharing one L2 and DRAM): the
// whole statistics JSON, every counter of every SM, is the same on a second
// run; the schedulers change the cycles, not the checked sum.
TEST(SimtRun, TimingModelIsDeterministicOnADevice) {
    const std::string args = "--config teaching --grid 8 --block 256 --stats --scheduler ";
    std::set<uint64_t> cycles;
    for (std::string_view scheduler : simtgpu::sim::kWarpSchedulers) {
        const Result r = simt_run(args + std::string(scheduler), "device_atomic_sum");
        EXPECT_EQ(r.status, 0) << scheduler << ": " << r.output;
        ASSERT_NE(stat(r.output, "stall_long_scoreboard"), UINT64_MAX) << r.output;
        EXPECT_EQ(simt_run(args + std::string(scheduler), "device_atomic_sum").output, r.output)
            << scheduler;
        cycles.insert(stat(r.output, "cycles"));
    }
    EXPECT_GE(cycles.size(), 2u);
    const Result functional = simt_run("--grid 8 --block 256 --stats", "device_atomic_sum");
    EXPECT_EQ(functional.status, 0) << functional.output;
    EXPECT_EQ(cycles.count(stat(functional.output, "cycles")), 0u);
}

TEST(SimtRun, StatisticsCountTheGrid) {
    const Result r = simt_run("--grid 6 --block 64 --stats", "device_exit");
    EXPECT_EQ(r.status, 0) << r.output;
    EXPECT_TRUE(contains(r.output, "\"ctas\": 6")) << r.output;
    EXPECT_TRUE(contains(r.output, "\"launches\": 1")) << r.output;
}

TEST(SimtRun, BadArgumentsAreExplained) {
    struct Case {
        const char *args, *message;
    };
    for (Case c : {Case{"--grid 0", "every dimension must be at least 1"},
                   Case{"--grid 1,2,3,4", "at most three dimensions"},
                   Case{"--block x", "is not a number"},
                   Case{"--stack 7", "not a multiple of 16"},
                   Case{"--warp-size 65", "warp_size = 65 is out of range"},
                   Case{"--entry no_such_symbol", "no symbol 'no_such_symbol'"},
                   Case{"--frobnicate", "unknown option --frobnicate"}}) {
        const Result r = simt_run(c.args, "device_exit");
        EXPECT_EQ(r.status, 2) << c.args;
        EXPECT_TRUE(contains(r.output, c.message)) << c.args << ": " << r.output;
    }
    Result r = run(std::string(SIMTGPU_SIMT_RUN) + " /etc/hostname");
    EXPECT_EQ(r.status, 2);
    EXPECT_TRUE(contains(r.output, "not an ELF file")) << r.output;
    r = run(std::string(SIMTGPU_SIMT_RUN) + " --help");
    EXPECT_EQ(r.status, 0);
    EXPECT_TRUE(contains(r.output, "--entry NAME")) << r.output;
}

// The same single-thread program under an independent RISC-V
// implementation: the exit status is a hash of every result it computed.
class Differential : public ::testing::TestWithParam<const char *> {};

TEST_P(Differential, SameExitStatusAsQemu) {
#ifndef SIMTGPU_QEMU_RISCV64
    GTEST_SKIP() << "qemu-riscv64 not installed (scripts/install-deps.sh installs qemu-user)";
#else
    const Result reference = run(std::string(SIMTGPU_QEMU_RISCV64) + " " + program(GetParam()));
    const Result simulated = simt_run("", GetParam());
    ASSERT_GE(reference.status, 0) << reference.output;
    EXPECT_EQ(simulated.status, reference.status) << simulated.output;
#endif
}

INSTANTIATE_TEST_SUITE_P(Programs, Differential,
                         ::testing::Values("device_diff_int", "device_diff_float",
                                           "device_diff_atomic", "device_diff_fence_i"));

} // namespace
