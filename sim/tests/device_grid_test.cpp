// The device running many grids at once (docs/hardware.md, "Grids"):
// block-level priority between rings, concurrent grids from two contexts,
// SM masks, PREEMPT (park and resume, and its time bound), placement
// policies and determinism. Every kernel records, per CTA, the SM it ran on
// and its first and last clock, so each test checks where and when CTAs
// ran against what the rule it tests says.
#include "device_harness.h"
#include "device_kernels.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <thread>

namespace simtgpu::test {
namespace {

constexpr uint64_t kCode = 0x10000;
constexpr uint64_t kHostVa = 0x70'0000'0000ull;

// One grid's buffers: parameters, records and the launch report.
struct GridBuffers {
    uint64_t va = 0, pa = 0;
    uint32_t ctas = 0;
    static constexpr uint64_t kReport = 0, kParams = 64, kRecords = 128;
};

class Grids : public ::testing::Test {
public:
    explicit Grids(const char *placement = nullptr, const char *sm_sharing = nullptr)
        : h(config_with(placement, sm_sharing)) {}
    static simtgpu_sim_config config_with(const char *placement, const char *sm_sharing) {
        simtgpu_sim_config c{};
        c.placement = placement;
        c.sm_sharing = sm_sharing;
        // The waves these tests count: 8 CTAs of 16 warp slots per SM.
        c.warps_per_sm = 16;
        c.ctas_per_sm = 8;
        return c;
    }
    void SetUp() override {
        code_pa = h.map_new(kCode, 4096, SIMTGPU_PTE_R | SIMTGPU_PTE_X);
        std::memcpy(h.vram + code_pa, kRecordKernel.data(), kRecordKernel.size() * 4);
        h.map(kHostVa, DeviceHarness::kHostBase, SIMTGPU_PTE_W | SIMTGPU_PTE_HOST);
    }
    // A second address space with the same code; h.root is left on it.
    uint64_t new_context() {
        h.root = h.alloc_pages(1);
        h.map(kCode, code_pa, SIMTGPU_PTE_R | SIMTGPU_PTE_X);
        return h.root;
    }
    // Buffers for a grid of `ctas` CTAs in the address space `root`.
    GridBuffers buffers(uint32_t ctas, uint64_t iterations, uint64_t tag, uint64_t va) {
        GridBuffers b;
        b.va = va;
        b.ctas = ctas;
        b.pa = h.map_new(va, GridBuffers::kRecords + 32ull * ctas, SIMTGPU_PTE_R | SIMTGPU_PTE_W);
        const uint64_t params[3] = {va + GridBuffers::kRecords, iterations, tag};
        std::memcpy(h.vram + b.pa + GridBuffers::kParams, params, sizeof params);
        return b;
    }
    std::vector<uint32_t> launch(const GridBuffers &b, uint32_t threads = 32,
                                 uint64_t entry = kCode) {
        simtgpu_pkt_launch l = launch_1d(entry, b.ctas, threads);
        l.param_va = b.va + GridBuffers::kParams;
        l.report_va = b.va + GridBuffers::kReport;
        return pkt_launch(l);
    }
    std::vector<Record> records(const GridBuffers &b) {
        std::vector<Record> r(b.ctas);
        std::memcpy(r.data(), h.vram + b.pa + GridBuffers::kRecords, 32ull * b.ctas);
        return r;
    }
    simtgpu_launch_report report(const GridBuffers &b) {
        return h.read_pa<simtgpu_launch_report>(b.pa + GridBuffers::kReport);
    }
    uint64_t progress(uint32_t ring) {
        const uint64_t lo = h.ring_reg(ring, SIMTGPU_RING_PROGRESS_LO);
        return lo | uint64_t(h.ring_reg(ring, SIMTGPU_RING_PROGRESS_HI)) << 32;
    }
    // Polls until `done` holds (false after 20 s).
    template <class F> bool eventually(F done) {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
        while (!done()) {
            if (std::chrono::steady_clock::now() > deadline)
                return false;
            std::this_thread::sleep_for(std::chrono::microseconds(200));
        }
        return true;
    }
    // Rings the doorbells of `rings` while the engine is held in a DMA of
    // ring 3, so that their work starts in the same engine step.
    void doorbells_together(std::initializer_list<uint32_t> rings) {
        h.hold_dma();
        h.emit(3, pkt_fence(kHostVa, 1));
        h.doorbell(3);
        h.wait_dma_held();
        for (uint32_t ring : rings)
            h.doorbell(ring);
        h.release_dma();
    }
    static bool all_tagged(const std::vector<Record> &rs, uint64_t tag) {
        return std::all_of(rs.begin(), rs.end(), [tag](const Record &r) { return r.tag == tag; });
    }
    static uint64_t first_start(const std::vector<Record> &rs) {
        uint64_t t = UINT64_MAX;
        for (const Record &r : rs)
            t = std::min(t, r.start);
        return t;
    }
    static uint64_t last_end(const std::vector<Record> &rs) {
        uint64_t t = 0;
        for (const Record &r : rs)
            t = std::max(t, r.end);
        return t;
    }
    // Whether a CTA of `a` and one of `b` ran on the same SM at the same time.
    static bool shared_an_sm(const std::vector<Record> &a, const std::vector<Record> &b) {
        for (const Record &r : a)
            for (const Record &o : b)
                if (r.sm == o.sm && r.start < o.end && o.start < r.end)
                    return true;
        return false;
    }

    DeviceHarness h;
    uint64_t code_pa = 0;
};

// A long grid of many waves on a low-priority ring holds every SM; a short
// grid on a high-priority ring launched after it takes SMs as the long
// grid's CTAs finish, not when the whole grid has: it ends long before.
TEST_F(Grids, HighPriorityGridOvertakesALongLowPriorityOne) {
    h.setup_ring(0, 0);
    h.setup_ring(3, 3);
    h.submit({pkt_set_context(1, h.root)}, 0);
    h.submit({pkt_set_context(1, h.root)}, 3);
    const GridBuffers slow = buffers(256, 3000, 0x51, 0x10'0000'0000ull);
    const GridBuffers fast = buffers(4, 300, 0xfa, 0x20'0000'0000ull);
    h.emit(0, launch(slow));
    h.doorbell(0);
    ASSERT_TRUE(eventually([&] { return progress(0) >= 1 + 40; })); // SET_CONTEXT + CTAs
    h.emit(3, launch(fast));
    h.doorbell(3);
    ASSERT_TRUE(h.wait_idle());

    const auto s = records(slow), f = records(fast);
    ASSERT_TRUE(all_tagged(s, 0x51));
    ASSERT_TRUE(all_tagged(f, 0xfa));
    EXPECT_EQ(report(slow).exception, 0u);
    EXPECT_EQ(report(fast).exception, 0u);
    EXPECT_LT(last_end(f), last_end(s));
    const uint64_t slow_span = last_end(s) - first_start(s);
    EXPECT_LT(last_end(f) - first_start(f), slow_span / 10);
    // CTAs of the slow grid started after the fast one had finished.
    EXPECT_GT(std::count_if(s.begin(), s.end(), [&](const Record &r) { return r.start > last_end(f); }),
              100);
}

// Two grids of two contexts, each smaller than the device, run side by side
// on different SMs, and each writes only its own address space, though the
// VAs are the same.
TEST_F(Grids, ConcurrentGridsOfTwoContextsOverlapAndStayIsolated) {
    const uint64_t va = 0x10'0000'0000ull;
    const uint64_t root_a = h.root;
    const GridBuffers a = buffers(2, 20000, 0xa, va);
    const uint64_t root_b = new_context();
    const GridBuffers b = buffers(2, 20000, 0xb, va);
    h.root = root_a;

    h.setup_ring(1, 1);
    h.setup_ring(2, 1);
    h.setup_ring(3, 0);
    h.submit({pkt_set_context(1, root_a)}, 1);
    h.submit({pkt_set_context(2, root_b)}, 2);
    h.submit({pkt_set_context(1, root_a)}, 3);
    h.emit(1, launch(a));
    h.emit(2, launch(b));
    doorbells_together({1, 2});
    ASSERT_TRUE(h.wait_idle());

    const auto ra = records(a), rb = records(b);
    EXPECT_TRUE(all_tagged(ra, 0xa));
    EXPECT_TRUE(all_tagged(rb, 0xb));
    EXPECT_LT(first_start(rb), last_end(ra));
    EXPECT_LT(first_start(ra), last_end(rb));
    for (const Record &r : ra)
        for (const Record &o : rb)
            EXPECT_NE(r.sm, o.sm);
}

TEST_F(Grids, SmMaskKeepsARingsGridsOnItsSms) {
    h.setup_ring(0, 0);
    h.write_reg(SIMTGPU_REG_SM_MASK(0, 0), 0b0110);
    h.submit({pkt_set_context(1, h.root)}, 0);
    const GridBuffers g = buffers(24, 200, 0x1, 0x10'0000'0000ull);
    h.submit({launch(g)}, 0);
    const auto rs = records(g);
    ASSERT_TRUE(all_tagged(rs, 0x1));
    for (const Record &r : rs)
        EXPECT_TRUE(r.sm == 1 || r.sm == 2) << "CTA on SM " << r.sm;
    EXPECT_EQ(h.reg(SIMTGPU_REG_SM_MASK(0, 0)), 0b0110u);

    // A mask with no SM of this device refuses the launch and says why.
    h.write_reg(SIMTGPU_REG_SM_MASK(0, 0), 0b10000);
    h.submit({launch(g)}, 0);
    EXPECT_EQ(h.reg(SIMTGPU_REG_EXC_KIND), uint32_t(SIMTGPU_EXC_BAD_LAUNCH));
    EXPECT_EQ(h.reg(SIMTGPU_REG_EXC_DETAIL), uint32_t(SIMTGPU_LAUNCH_ERR_SM_MASK));
}

// Park in the middle, nothing moves while parked, resume: every CTA ran
// once, as in a run that was never interrupted.
TEST_F(Grids, PreemptParksAndResumeFinishesTheGrid) {
    h.write_reg(SIMTGPU_REG_IRQ_MASK, SIMTGPU_IRQ_PARKED);
    h.setup_ring(0, 0);
    h.submit({pkt_set_context(1, h.root)}, 0);
    const GridBuffers g = buffers(96, 4000, 0x7, 0x10'0000'0000ull);
    h.emit(0, launch(g));
    h.doorbell(0);
    ASSERT_TRUE(eventually([&] { return progress(0) >= 1 + 8; }));
    h.write_ring_reg(0, SIMTGPU_RING_PREEMPT, 1);
    ASSERT_TRUE(eventually(
        [&] { return h.ring_reg(0, SIMTGPU_RING_STATUS) == SIMTGPU_RING_STATUS_PARKED; }));
    EXPECT_TRUE(h.reg(SIMTGPU_REG_IRQ_STATUS) & SIMTGPU_IRQ_PARKED);
    ASSERT_TRUE(h.wait_idle()); // parked is idle
    const uint64_t parked_at = progress(0);
    const auto while_parked = records(g);
    const auto done = std::count_if(while_parked.begin(), while_parked.end(),
                                    [](const Record &r) { return r.tag == 0x7; });
    EXPECT_GE(parked_at - 1, uint64_t(done)); // CTAs, and state changes seen
    EXPECT_LT(done, 96);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_EQ(progress(0), parked_at);

    h.write_ring_reg(0, SIMTGPU_RING_PREEMPT, 0);
    ASSERT_TRUE(eventually([&] { return progress(0) >= 1 + 96 + 1; }));
    ASSERT_TRUE(h.wait_idle());
    EXPECT_TRUE(all_tagged(records(g), 0x7));
    const simtgpu_launch_report r = report(g);
    EXPECT_EQ(r.exception, 0u);
    EXPECT_EQ(r.nonzero_exits, 0u);
    EXPECT_EQ(h.ring_reg(0, SIMTGPU_RING_STATUS), uint32_t(SIMTGPU_RING_STATUS_IDLE));
}

// A CTA that never ends cannot be drained: the bound reports it on its
// ring; CTRL.ABORT drops that ring's grid, the ring goes on with the packet
// after it, and the other ring's grid was never touched.
TEST_F(Grids, PreemptThatCannotDrainIsReportedAndTheRingIsAborted) {
    const uint64_t spin_pa = h.map_new(0x30000, 4096, SIMTGPU_PTE_R | SIMTGPU_PTE_X);
    h.write_pa(spin_pa, kJumpSelf);
    h.setup_ring(0, 0);
    h.setup_ring(1, 0);
    h.submit({pkt_set_context(1, h.root)}, 0);
    h.submit({pkt_set_context(1, h.root)}, 1);
    h.write_reg(SIMTGPU_REG_PREEMPT_TIMEOUT, 20000);
    const GridBuffers spin = buffers(1, 1, 0, 0x10'0000'0000ull);
    const GridBuffers other = buffers(2, 200000, 0x9, 0x20'0000'0000ull);
    h.emit(0, launch(spin, 32, 0x30000));
    h.emit(0, pkt_fence(spin.va + GridBuffers::kParams + 32, 5));
    h.emit(1, launch(other));
    h.doorbell(0);
    h.doorbell(1);
    ASSERT_TRUE(eventually([&] { return h.ring_reg(0, SIMTGPU_RING_RESIDENT) == 1; }));
    h.write_ring_reg(0, SIMTGPU_RING_PREEMPT, 1);
    ASSERT_TRUE(eventually([&] { return h.reg(SIMTGPU_REG_STATUS) & SIMTGPU_STATUS_EXCEPTION; }));
    EXPECT_EQ(h.reg(SIMTGPU_REG_EXC_KIND), uint32_t(SIMTGPU_EXC_PREEMPT_TIMEOUT));
    EXPECT_EQ(h.reg(SIMTGPU_REG_EXC_RING), 0u);
    EXPECT_EQ(h.reg(SIMTGPU_REG_EXC_DETAIL), 1u); // CTAs still resident
    EXPECT_EQ(h.ring_reg(0, SIMTGPU_RING_STATUS), uint32_t(SIMTGPU_RING_STATUS_STALLED));
    EXPECT_EQ(h.ring_reg(1, SIMTGPU_RING_STATUS), uint32_t(SIMTGPU_RING_STATUS_BUSY));

    h.write_ring_reg(0, SIMTGPU_RING_CTRL, SIMTGPU_RING_CTRL_ENABLE | SIMTGPU_RING_CTRL_ABORT);
    h.write_reg(SIMTGPU_REG_IRQ_ACK, SIMTGPU_IRQ_EXCEPTION);
    ASSERT_TRUE(h.wait_idle());
    EXPECT_EQ(h.read_pa<uint64_t>(spin.pa + GridBuffers::kParams + 32), 5u); // the FENCE ran
    EXPECT_EQ(h.ring_reg(0, SIMTGPU_RING_CTRL), uint32_t(SIMTGPU_RING_CTRL_ENABLE));
    EXPECT_EQ(h.ring_reg(0, SIMTGPU_RING_PREEMPT), 0u);
    EXPECT_TRUE(all_tagged(records(other), 0x9));
    EXPECT_EQ(report(other).exception, 0u);
    const GridBuffers after = buffers(8, 100, 0x3, 0x30'0000'0000ull);
    h.submit({launch(after)}, 0);
    EXPECT_TRUE(all_tagged(records(after), 0x3));
}

// Disabling a ring drops its grid too; the ring starts again from HEAD 0.
TEST_F(Grids, DisablingARingDropsItsGrid) {
    const uint64_t spin_pa = h.map_new(0x30000, 4096, SIMTGPU_PTE_R | SIMTGPU_PTE_X);
    h.write_pa(spin_pa, kJumpSelf);
    h.setup_ring(0, 0);
    h.submit({pkt_set_context(1, h.root)}, 0);
    const GridBuffers spin = buffers(1, 1, 0, 0x10'0000'0000ull);
    h.emit(0, launch(spin, 32, 0x30000));
    h.doorbell(0);
    ASSERT_TRUE(eventually([&] { return h.ring_reg(0, SIMTGPU_RING_RESIDENT) == 1; }));
    h.write_ring_reg(0, SIMTGPU_RING_CTRL, 0);
    ASSERT_TRUE(h.wait_idle());
    EXPECT_EQ(h.stats().ctas, 0u);
    EXPECT_EQ(h.ring_reg(0, SIMTGPU_RING_RESIDENT), 0u);
}

// The same two concurrent grids give the same records, clocks included.
TEST_F(Grids, ConcurrentGridsAreDeterministic) {
    auto run = [](std::vector<Record> &ra, std::vector<Record> &rb) {
        struct Fixture : Grids {
            void TestBody() override {}
        } t;
        t.SetUp();
        t.h.setup_ring(0, 0);
        t.h.setup_ring(1, 2);
        t.h.setup_ring(3, 0);
        for (uint32_t ring : {0u, 1u, 3u})
            t.h.submit({pkt_set_context(1, t.h.root)}, ring);
        const GridBuffers a = t.buffers(40, 700, 0xa, 0x10'0000'0000ull);
        const GridBuffers b = t.buffers(12, 300, 0xb, 0x20'0000'0000ull);
        t.h.emit(0, t.launch(a));
        t.h.emit(1, t.launch(b));
        t.doorbells_together({0, 1});
        ASSERT_TRUE(t.h.wait_idle());
        ra = t.records(a);
        rb = t.records(b);
    };
    std::vector<Record> a1, b1, a2, b2;
    run(a1, b1);
    run(a2, b2);
    ASSERT_TRUE(all_tagged(a1, 0xa) && all_tagged(b1, 0xb));
    for (size_t i = 0; i < a1.size(); ++i)
        EXPECT_TRUE(a1[i].sm == a2[i].sm && a1[i].start == a2[i].start && a1[i].end == a2[i].end)
            << "CTA " << i << " of grid a";
    for (size_t i = 0; i < b1.size(); ++i)
        EXPECT_TRUE(b1[i].sm == b2[i].sm && b1[i].start == b2[i].start && b1[i].end == b2[i].end)
            << "CTA " << i << " of grid b";
}

class PlacementPolicies : public Grids, public ::testing::WithParamInterface<const char *> {
protected:
    PlacementPolicies() : Grids(GetParam()) {}
};

// Four one-warp CTAs: breadth-first puts one on each SM, fill-first all on
// SM 0 (it holds eight), strict-priority spreads as breadth-first does.
TEST_P(PlacementPolicies, SmallGridGoesWhereThePolicySays) {
    h.setup_ring(0, 0);
    h.submit({pkt_set_context(1, h.root)}, 0);
    const GridBuffers g = buffers(4, 100, 0x4, 0x10'0000'0000ull);
    h.submit({launch(g)}, 0);
    const auto rs = records(g);
    ASSERT_TRUE(all_tagged(rs, 0x4));
    for (uint32_t i = 0; i < rs.size(); ++i)
        EXPECT_EQ(rs[i].sm, std::string(GetParam()) == "fill-first" ? 0u : i) << "CTA " << i;
}

// A long one-CTA grid of the high class and a short grid of the low class,
// launched together: only strict-priority keeps the low grid off the idle
// SMs until the high grid has finished.
TEST_P(PlacementPolicies, LowerClassWaitsOnlyUnderStrictPriority) {
    h.setup_ring(0, 0);
    h.setup_ring(2, 3);
    h.setup_ring(3, 0);
    for (uint32_t ring : {0u, 2u, 3u})
        h.submit({pkt_set_context(1, h.root)}, ring);
    const GridBuffers high = buffers(1, 20000, 0x3, 0x10'0000'0000ull);
    const GridBuffers low = buffers(3, 100, 0x1, 0x20'0000'0000ull);
    h.emit(2, launch(high));
    h.emit(0, launch(low));
    doorbells_together({0, 2});
    ASSERT_TRUE(h.wait_idle());
    const auto rh = records(high), rl = records(low);
    ASSERT_TRUE(all_tagged(rh, 0x3) && all_tagged(rl, 0x1));
    if (std::string(GetParam()) == "strict-priority")
        EXPECT_GE(first_start(rl), last_end(rh));
    else
        EXPECT_LT(last_end(rl), last_end(rh));
}

INSTANTIATE_TEST_SUITE_P(Policies, PlacementPolicies,
                         ::testing::Values("breadth-first", "fill-first", "strict-priority"),
                         [](const auto &info) {
                             std::string name = info.param;
                             std::replace(name.begin(), name.end(), '-', '_');
                             return name;
                         });

class SmSharingModes : public Grids, public ::testing::WithParamInterface<const char *> {
protected:
    SmSharingModes() : Grids(nullptr, GetParam()) {}
    bool mode(const char *name) const { return std::string(GetParam()) == name; }
    // Two grids of four 8-warp CTAs (half an SM each) on rings 0 and 1,
    // started together: breadth-first gives the first one CTA per SM.
    void run_pair(uint64_t root_a, uint64_t root_b, std::vector<Record> &ra,
                  std::vector<Record> &rb) {
        h.root = root_a;
        const GridBuffers a = buffers(4, 20000, 0xa, 0x10'0000'0000ull);
        h.root = root_b;
        const GridBuffers b = buffers(4, 20000, 0xb, 0x20'0000'0000ull);
        h.setup_ring(0, 0);
        h.setup_ring(1, 0);
        h.setup_ring(3, 0);
        h.submit({pkt_set_context(1, root_a)}, 0);
        h.submit({pkt_set_context(2, root_b)}, 1);
        h.submit({pkt_set_context(1, root_a)}, 3);
        h.emit(0, launch(a, 256));
        h.emit(1, launch(b, 256));
        doorbells_together({0, 1});
        ASSERT_TRUE(h.wait_idle());
        ra = records(a);
        rb = records(b);
        EXPECT_EQ(report(a).exception, 0u);
        EXPECT_EQ(report(b).exception, 0u);
    }
};

// Kernels of one context share SMs unless the mode is exclusive: the second
// grid's CTAs run beside the first one's instead of after them.
TEST_P(SmSharingModes, GridsOfOneContextShareSmsUnlessExclusive) {
    std::vector<Record> ra, rb;
    run_pair(h.root, h.root, ra, rb);
    ASSERT_TRUE(all_tagged(ra, 0xa) && all_tagged(rb, 0xb));
    EXPECT_EQ(shared_an_sm(ra, rb), !mode("exclusive"));
    if (mode("exclusive")) {
        // b waits until a has released every SM it held.
        EXPECT_GE(first_start(rb), last_end(ra));
    }
}

// Grids of two contexts share an SM only under "any" (MPS-like), and each
// still writes only its own address space.
TEST_P(SmSharingModes, GridsOfTwoContextsShareSmsOnlyUnderAny) {
    const uint64_t root_a = h.root, root_b = new_context();
    std::vector<Record> ra, rb;
    run_pair(root_a, root_b, ra, rb);
    ASSERT_TRUE(all_tagged(ra, 0xa) && all_tagged(rb, 0xb));
    EXPECT_EQ(shared_an_sm(ra, rb), mode("any"));
}

// A grid that faults while it shares SMs with another loses only its own
// CTAs: the other grid's CTAs on the same SMs run to the end.
TEST_P(SmSharingModes, AFaultingGridLeavesTheGridBesideItRunning) {
    h.setup_ring(0, 0);
    h.setup_ring(1, 0);
    h.setup_ring(3, 0);
    for (uint32_t ring : {0u, 1u, 3u})
        h.submit({pkt_set_context(1, h.root)}, ring);
    const GridBuffers good = buffers(4, 20000, 0x6, 0x10'0000'0000ull);
    const GridBuffers bad = buffers(4, 20000, 0xe, 0x20'0000'0000ull);
    const uint64_t unmapped = 0x50'0000'0000ull;
    std::memcpy(h.vram + bad.pa + GridBuffers::kParams, &unmapped, sizeof unmapped);
    h.emit(0, launch(good, 256));
    h.emit(1, launch(bad, 256));
    doorbells_together({0, 1});
    ASSERT_TRUE(eventually([&] { return h.reg(SIMTGPU_REG_STATUS) & SIMTGPU_STATUS_EXCEPTION; }));
    EXPECT_EQ(h.reg(SIMTGPU_REG_EXC_KIND), uint32_t(SIMTGPU_EXC_PAGE_FAULT));
    EXPECT_EQ(h.reg(SIMTGPU_REG_EXC_RING), 1u);
    h.write_ring_reg(1, SIMTGPU_RING_CTRL, SIMTGPU_RING_CTRL_ENABLE | SIMTGPU_RING_CTRL_ABORT);
    h.write_reg(SIMTGPU_REG_IRQ_ACK, SIMTGPU_IRQ_EXCEPTION);
    ASSERT_TRUE(h.wait_idle());
    EXPECT_TRUE(all_tagged(records(good), 0x6));
    EXPECT_EQ(report(good).exception, 0u);
    // Its instructions are its own: the spin loop's two per iteration, and
    // the few around it.
    const uint64_t loop = 4ull * 256 * 20000 * 2;
    EXPECT_GE(report(good).thread_instructions, loop);
    EXPECT_LT(report(good).thread_instructions, loop + 4ull * 256 * 32);
}

INSTANTIATE_TEST_SUITE_P(Modes, SmSharingModes,
                         ::testing::Values("same-context", "exclusive", "any"),
                         [](const auto &info) {
                             std::string name = info.param;
                             std::replace(name.begin(), name.end(), '-', '_');
                             return name;
                         });

TEST(GridConfig, UnknownSmSharingIsRefusedWithTheChoices) {
    simtgpu_sim_config c{};
    c.struct_size = sizeof c;
    c.sm_sharing = "always";
    simtgpu_sim *sim = nullptr;
    char err[512] = "";
    ASSERT_NE(simtgpu_sim_create(&c, &sim, err, sizeof err), 0);
    EXPECT_NE(std::string(err).find("sm_sharing = \"always\" is unknown: allowed "
                                    "\"same-context\", \"exclusive\", \"any\""),
              std::string::npos)
        << err;
}

TEST(GridConfig, UnknownPlacementIsRefusedWithTheChoices) {
    simtgpu_sim_config c{};
    c.struct_size = sizeof c;
    c.placement = "random";
    simtgpu_sim *sim = nullptr;
    char err[512] = "";
    ASSERT_NE(simtgpu_sim_create(&c, &sim, err, sizeof err), 0);
    EXPECT_NE(std::string(err).find("\"breadth-first\", \"fill-first\", \"strict-priority\""),
              std::string::npos)
        << err;
}

} // namespace
} // namespace simtgpu::test
