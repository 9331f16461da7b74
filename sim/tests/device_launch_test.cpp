// LAUNCH end to end on hand-assembled kernels: reports, exceptions with
// their records, CTA placement by the occupancy rule, statistics,
// determinism, reset and the identity registers.
#include "device/capi_internal.h"
#include "device_harness.h"
#include "simtgpu/occupancy.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <thread>

namespace simtgpu::test {
namespace {

constexpr uint64_t kCode = 0x10000;
constexpr uint64_t kData = 0x10'0000'0000ull;

// RV64 encodings (checked with llvm-mc-16).
constexpr uint32_t kLiT0_100 = 0x06400293;   // li t0, 100
constexpr uint32_t kDecT0 = 0xfff28293;      // addi t0, t0, -1
constexpr uint32_t kBnezT0Back = 0xfe029ee3; // bnez t0, .-4
constexpr uint32_t kCsrrA0Tid = 0xcc002573;  // csrr a0, tid.x
constexpr uint32_t kLiA7Exit = 0x05d00893;   // li a7, 93
constexpr uint32_t kLiA0Zero = 0x00000513;   // li a0, 0
constexpr uint32_t kEcall = 0x00000073;
constexpr uint32_t kEbreak = 0x00100073;
constexpr uint32_t kLdA1A0 = 0x00053583;      // ld a1, 0(a0)
constexpr uint32_t kJumpSelf = 0x0000006f;    // j .
constexpr uint32_t kLiT0Zero = 0x00000293;    // li t0, 0
constexpr uint32_t kBnezT0Back2 = 0xfe029ce3; // bnez t0, .-8

class Launch : public ::testing::Test {
protected:
    explicit Launch(simtgpu_sim_config c = {}) : h(c) {}
    void SetUp() override {
        data_pa = h.map_new(kData, 2 * 4096, SIMTGPU_PTE_R | SIMTGPU_PTE_W);
        h.setup_ring(0);
        h.submit({pkt_set_context(3, h.root)});
    }
    void load(const std::vector<uint32_t> &code) {
        const uint64_t pa = h.map_new(kCode, code.size() * 4, SIMTGPU_PTE_R | SIMTGPU_PTE_X);
        std::memcpy(h.vram + pa, code.data(), code.size() * 4);
    }
    simtgpu_launch_report run(simtgpu_pkt_launch l) {
        l.report_va = kData;
        h.submit({pkt_launch(l)});
        return h.read_pa<simtgpu_launch_report>(data_pa);
    }

    DeviceHarness h;
    uint64_t data_pa = 0;
};

TEST_F(Launch, ReportsTheFirstNonZeroExit) {
    load({kCsrrA0Tid, kLiA7Exit, kEcall}); // exit(threadIdx.x)
    const uint32_t ctas = 3, threads = 40;
    const simtgpu_launch_report r = run(launch_1d(kCode, ctas, threads));
    EXPECT_EQ(r.exception, 0u);
    EXPECT_EQ(r.exit_status, 1u); // thread 1 of CTA 0 is the first non-zero
    EXPECT_EQ(r.nonzero_exits, ctas * (threads - 1));
    EXPECT_EQ(r.ctaid[0], 0u);
    EXPECT_EQ(r.tid[0], 1u);
    EXPECT_EQ(r.thread_instructions, uint64_t(ctas) * threads * 3);
    EXPECT_GT(r.cycles, 0u);
    const simtgpu_sim_stats s = h.stats();
    EXPECT_EQ(s.launches, 1u);
    EXPECT_EQ(s.ctas, ctas);
    EXPECT_EQ(s.thread_instructions, r.thread_instructions);
    // Two warps per CTA (32 + 8 lanes), three instructions each.
    EXPECT_EQ(s.warp_instructions, uint64_t(ctas) * 2 * 3);
    EXPECT_EQ(h.reg(SIMTGPU_REG_COUNTER(SIMTGPU_COUNTER_launches)), 1u);
    EXPECT_EQ(h.reg(SIMTGPU_REG_COUNTER(SIMTGPU_COUNTER_ctas)), ctas);
    EXPECT_EQ(h.reg(SIMTGPU_REG_EXC_KIND), 0u);
}

TEST_F(Launch, AllZeroExitsReportZero) {
    load({kLiA0Zero, kLiA7Exit, kEcall});
    const simtgpu_launch_report r = run(launch_1d(kCode, 2, 64));
    EXPECT_EQ(r.exit_status, 0u);
    EXPECT_EQ(r.nonzero_exits, 0u);
    EXPECT_EQ(r.exception, 0u);
}

TEST_F(Launch, TrapAbortsWithARecordOfWhere) {
    load({kEbreak});
    simtgpu_pkt_launch l = launch_1d(kCode, 1, 1);
    l.report_va = kData;
    const uint32_t at = h.emit(0, pkt_launch(l));
    h.emit(0, pkt_fence(kData + 64, 9));
    h.doorbell(0);
    ASSERT_TRUE(h.wait_idle());
    EXPECT_EQ(h.reg(SIMTGPU_REG_EXC_KIND), uint32_t(SIMTGPU_EXC_TRAP));
    EXPECT_EQ(h.reg(SIMTGPU_REG_EXC_PC_LO), uint32_t(kCode));
    EXPECT_EQ(h.reg(SIMTGPU_REG_EXC_CONTEXT), 3u);
    EXPECT_EQ(h.reg(SIMTGPU_REG_EXC_RING_OFFSET), at);
    EXPECT_EQ(h.read_pa<simtgpu_launch_report>(data_pa).exception, uint32_t(SIMTGPU_EXC_TRAP));
    EXPECT_EQ(h.read_pa<uint64_t>(data_pa + 64), 0u);
    h.write_reg(SIMTGPU_REG_IRQ_ACK, SIMTGPU_IRQ_EXCEPTION);
    ASSERT_TRUE(h.wait_idle());
    EXPECT_EQ(h.read_pa<uint64_t>(data_pa + 64), 9u);
}

TEST_F(Launch, PageFaultNamesThreadAndAddress) {
    load({kLdA1A0, kLiA7Exit, kEcall}); // load from param_va
    simtgpu_pkt_launch l = launch_1d(kCode, 2, 8);
    l.param_va = 0x99'0000'0000ull;
    run(l);
    EXPECT_EQ(h.reg(SIMTGPU_REG_EXC_KIND), uint32_t(SIMTGPU_EXC_PAGE_FAULT));
    EXPECT_EQ(h.reg(SIMTGPU_REG_EXC_DETAIL), uint32_t(SIMTGPU_FAULT_NOT_PRESENT));
    EXPECT_EQ(h.reg(SIMTGPU_REG_EXC_ACCESS), uint32_t(SIMTGPU_ACCESS_READ));
    EXPECT_EQ(h.reg(SIMTGPU_REG_EXC_ADDR_LO) | uint64_t(h.reg(SIMTGPU_REG_EXC_ADDR_HI)) << 32,
              l.param_va);
    EXPECT_EQ(h.reg(SIMTGPU_REG_EXC_PC_LO), uint32_t(kCode));
    EXPECT_LT(h.reg(SIMTGPU_REG_EXC_SM), 4u);
    EXPECT_LT(h.reg(SIMTGPU_REG_EXC_TID_X), 8u);
    EXPECT_LT(h.reg(SIMTGPU_REG_EXC_CTAID_X), 2u);
}

TEST_F(Launch, NonExecutableCodeFaults) {
    const uint64_t pa = h.map_new(kCode, 4096, SIMTGPU_PTE_R);
    h.write_pa(pa, kEbreak);
    run(launch_1d(kCode, 1, 1));
    EXPECT_EQ(h.reg(SIMTGPU_REG_EXC_KIND), uint32_t(SIMTGPU_EXC_PAGE_FAULT));
    EXPECT_EQ(h.reg(SIMTGPU_REG_EXC_DETAIL), uint32_t(SIMTGPU_FAULT_PROTECTION));
    EXPECT_EQ(h.reg(SIMTGPU_REG_EXC_ACCESS), uint32_t(SIMTGPU_ACCESS_EXEC));
}

class Placement : public Launch {
protected:
    static simtgpu_sim_config small() {
        simtgpu_sim_config c{};
        c.num_sms = 2;
        c.warps_per_sm = 8;
        c.ctas_per_sm = 4;
        c.shared_bytes_per_sm = 64 << 10;
        return c;
    }
    Placement() : Launch(small()) {}
};

TEST_F(Placement, ResidentCtasFollowTheOccupancyRule) {
    load({kLiT0_100, kDecT0, kBnezT0Back, kLiA0Zero, kLiA7Exit, kEcall});
    const simtgpu_sm_resources r{8, 32, 4, 64 << 10};
    struct Shape {
        uint32_t threads, shared;
    };
    for (Shape shape : {Shape{64, 0}, Shape{64, 20000}, Shape{96, 0}, Shape{256, 0}}) {
        const uint32_t per_sm = simtgpu_max_ctas_per_sm(&r, shape.threads, shape.shared);
        ASSERT_GT(per_sm, 0u);
        const uint32_t ctas = 2 * per_sm * 3; // three full waves
        simtgpu_pkt_launch l = launch_1d(kCode, ctas, shape.threads);
        l.shared_bytes = shape.shared;
        const uint64_t before = h.stats().ctas;
        run(l);
        const sim::LaunchOutcome o = sim::device_of(h.sim).last_launch();
        ASSERT_EQ(o.peak_resident_ctas.size(), 2u);
        EXPECT_EQ(o.peak_resident_ctas[0], per_sm) << shape.threads << " " << shape.shared;
        EXPECT_EQ(o.peak_resident_ctas[1], per_sm);
        EXPECT_EQ(o.ctas_per_sm[0] + o.ctas_per_sm[1], ctas);
        EXPECT_EQ(o.ctas_per_sm[0], o.ctas_per_sm[1]) << "equal CTAs spread evenly";
        EXPECT_EQ(h.stats().ctas - before, ctas);
    }
    const simtgpu_sim_stats s = h.stats();
    EXPECT_GT(s.occupancy, 0.0);
    EXPECT_LE(s.occupancy, 1.0);
    EXPECT_GT(s.ipc, 0.0);
    EXPECT_LE(s.ipc, 1.0) << "one warp instruction issues per SM cycle";
    EXPECT_LE(s.sm_busy_cycles, 2 * s.cycles);
}

TEST_F(Placement, OneCtaGoesToEverySmFirst) {
    load({kLiT0_100, kDecT0, kBnezT0Back, kLiA0Zero, kLiA7Exit, kEcall});
    run(launch_1d(kCode, 2, 32));
    const sim::LaunchOutcome o = sim::device_of(h.sim).last_launch();
    EXPECT_EQ(o.ctas_per_sm[0], 1u);
    EXPECT_EQ(o.ctas_per_sm[1], 1u);
}

// The functional model runs each SM's quantum on a shadow copy of the pages
// it stores to and then applies only the bytes that changed, in SM order
// (docs/simulator.md): threads of CTAs on four SMs store single bytes that
// interleave within every 8-byte word, all in one quantum; each byte must
// hold its own thread's value and the bytes nobody wrote their old one. On
// one host thread and on two.
class ByteMerge : public Launch, public ::testing::WithParamInterface<uint32_t> {
protected:
    static simtgpu_sim_config four_sms() {
        simtgpu_sim_config c{};
        c.num_sms = 4;
        c.host_threads = GetParam();
        return c;
    }
    ByteMerge() : Launch(four_sms()) {}
};

TEST_P(ByteMerge, StoresOfNeighbouringBytesFromSeveralSmsAllLand) {
    // out[t * nctaid + ctaid] = (t * nctaid + ctaid + 1) as a byte (llvm-mc-16
    // -mattr=+m,-c).
    load({
        0x00053383, // ld t2, 0(a0)
        0xcc602e73, // csrr t3, ctaid.x
        0xcc0025f3, // csrr a1, tid.x
        0xcc902ef3, // csrr t4, nctaid.x
        0x03d58f33, // mul t5, a1, t4
        0x01cf0f33, // add t5, t5, t3
        0x01e383b3, // add t2, t2, t5
        0x001f0f93, // addi t6, t5, 1
        0x01f38023, // sb t6, 0(t2)
        kLiA7Exit, kLiA0Zero, kEcall,
    });
    const uint32_t ctas = 8, threads = 64, written = ctas * threads;
    uint8_t *out = h.vram + data_pa + 4096;
    std::memset(out, 0xa5, 4096);
    const uint64_t out_va = kData + 4096;
    std::memcpy(h.vram + data_pa + 256, &out_va, 8);
    simtgpu_pkt_launch l = launch_1d(kCode, ctas, threads);
    l.param_va = kData + 256;
    const simtgpu_launch_report r = run(l);
    ASSERT_EQ(r.exception, 0u);
    const sim::LaunchOutcome o = sim::device_of(h.sim).last_launch();
    for (uint32_t sm = 0; sm < 4; ++sm)
        EXPECT_EQ(o.ctas_per_sm[sm], 2u) << "every SM runs CTAs, so words are shared";
    for (uint32_t i = 0; i < written; ++i)
        ASSERT_EQ(out[i], uint8_t(i + 1)) << "byte " << i;
    for (uint32_t i = written; i < 4096; ++i)
        ASSERT_EQ(out[i], 0xa5) << "byte " << i << " was not written";
}

INSTANTIATE_TEST_SUITE_P(HostThreads, ByteMerge, ::testing::Values(1u, 2u));

std::string stats_after_a_workload() {
    simtgpu_sim_config c{};
    c.num_sms = 3;
    DeviceHarness h(c);
    const uint64_t pa = h.map_new(kCode, 4096, SIMTGPU_PTE_R | SIMTGPU_PTE_X);
    const uint32_t code[] = {kLiT0_100, kDecT0, kBnezT0Back, kCsrrA0Tid, kLiA7Exit, kEcall};
    std::memcpy(h.vram + pa, code, sizeof code);
    h.setup_ring(0);
    h.submit({pkt_set_context(1, h.root), pkt_launch(launch_1d(kCode, 7, 100))});
    char *json = simtgpu_sim_stats_json(h.sim);
    std::string out = json;
    simtgpu_sim_free_string(json);
    return out;
}

TEST(Determinism, SameInputSameStatistics) {
    const std::string a = stats_after_a_workload(), b = stats_after_a_workload();
    EXPECT_EQ(a, b);
    auto j = nlohmann::json::parse(a);
    EXPECT_EQ(j["ctas"], 7);
    EXPECT_EQ(j["sms"].size(), 3u);
}

TEST_F(Launch, TemperatureRisesWithWork) {
    EXPECT_EQ(h.reg(SIMTGPU_REG_TEMPERATURE), 35000u);
    load({kLiT0_100, kDecT0, kBnezT0Back, kLiA0Zero, kLiA7Exit, kEcall});
    run(launch_1d(kCode, 64, 256));
    const uint32_t t = h.reg(SIMTGPU_REG_TEMPERATURE);
    EXPECT_GT(t, 35000u);
    EXPECT_LE(t, 85000u);
}

TEST_F(Launch, ResetStopsARunawayKernelAndClearsState) {
    load({kJumpSelf});
    h.write_reg(SIMTGPU_REG_SCRATCH, 0x1234);
    h.write_reg(SIMTGPU_REG_IRQ_MASK, SIMTGPU_IRQ_FENCE);
    h.emit(0, pkt_launch(launch_1d(kCode, 4, 32)));
    h.doorbell(0);
    while (h.stats().cycles == 0)
        std::this_thread::yield();
    EXPECT_FALSE(simtgpu_sim_wait_idle(h.sim, 0));
    EXPECT_EQ(h.reg(SIMTGPU_REG_STATUS) & SIMTGPU_STATUS_BUSY, uint32_t(SIMTGPU_STATUS_BUSY));
    h.write_pa<uint64_t>(data_pa + 128, 77);

    simtgpu_sim_reset(h.sim);
    EXPECT_TRUE(simtgpu_sim_wait_idle(h.sim, 0));
    EXPECT_EQ(h.reg(SIMTGPU_REG_SCRATCH), 0u);
    EXPECT_EQ(h.reg(SIMTGPU_REG_IRQ_MASK), 0u);
    EXPECT_EQ(h.ring_reg(0, SIMTGPU_RING_CTRL), 0u);
    EXPECT_EQ(h.ring_reg(0, SIMTGPU_RING_HEAD), 0u);
    EXPECT_EQ(h.reg(SIMTGPU_REG_COUNTER(SIMTGPU_COUNTER_cycles)), 0u);
    EXPECT_EQ(h.stats().cycles, 0u);
    EXPECT_EQ(h.read_pa<uint64_t>(data_pa + 128), 77u) << "VRAM survives reset";

    // The device works again once the driver sets it up.
    h.setup_ring(0);
    h.submit({pkt_set_context(3, h.root), pkt_fence(kData, 5)});
    EXPECT_EQ(h.read_pa<uint64_t>(data_pa), 5u);
}

// Under the timing model a reset also restarts the SMs' clocks, sub-cores
// and scoreboards with the device clock and memory system: a kernel after
// a reset that caught loads in flight takes the cycles it takes on a fresh
// device (it used to wait for the answers and cycles of before, and was
// reported as a livelock).
class TimingLaunch : public Launch {
protected:
    static simtgpu_sim_config teaching() {
        simtgpu_sim_config c{};
        c.config = "teaching";
        return c;
    }
    TimingLaunch() : Launch(teaching()) {}
    // 100 loads of one address, one after the other, by 4 CTAs of 64 threads.
    simtgpu_launch_report run_loads() {
        load({kLiT0_100, kLdA1A0, kDecT0, kBnezT0Back2, kLiA0Zero, kLiA7Exit, kEcall});
        simtgpu_pkt_launch l = launch_1d(kCode, 4, 64);
        l.param_va = kData + 256;
        return run(l);
    }
};

TEST_F(TimingLaunch, AKernelAfterAResetTakesTheCyclesOfAFreshDevice) {
    const simtgpu_launch_report fresh = run_loads();
    ASSERT_EQ(fresh.exception, 0u);
    ASSERT_GT(fresh.cycles, 100u * 20) << "100 dependent loads of at least an L1 hit each";

    load({kLiT0Zero, kLdA1A0, kDecT0, kBnezT0Back2}); // 2^64 loads: until the reset
    simtgpu_pkt_launch runaway = launch_1d(kCode, 4, 64);
    runaway.param_va = kData + 256;
    h.emit(0, pkt_launch(runaway));
    h.doorbell(0);
    while (h.stats().cycles < 100000)
        std::this_thread::yield();
    simtgpu_sim_reset(h.sim);
    ASSERT_TRUE(simtgpu_sim_wait_idle(h.sim, 0));
    h.setup_ring(0);
    h.submit({pkt_set_context(3, h.root)});
    const simtgpu_launch_report after = run_loads();
    EXPECT_EQ(after.exception, 0u);
    EXPECT_EQ(after.cycles, fresh.cycles);
    EXPECT_EQ(after.thread_instructions, fresh.thread_instructions);
}

TEST_F(Launch, ResetRegisterNeedsTheMagic) {
    h.write_reg(SIMTGPU_REG_SCRATCH, 7);
    h.write_reg(SIMTGPU_REG_RESET, 1);
    EXPECT_EQ(h.reg(SIMTGPU_REG_SCRATCH), 7u);
    h.write_reg(SIMTGPU_REG_RESET, SIMTGPU_RESET_MAGIC);
    EXPECT_EQ(h.reg(SIMTGPU_REG_SCRATCH), 0u);
    EXPECT_TRUE(h.wait_idle());
}

} // namespace
} // namespace simtgpu::test
