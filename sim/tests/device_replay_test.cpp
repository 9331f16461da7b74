// Replayable faults (hw.h 1.4): a warp whose access meets a SIMTGPU_PTE_REPLAY
// page is held, the fault is queued for the driver, and FAULT_REPLAY lets it
// retry or cancels its launch. The test plays the driver: it services the
// queue by mapping pages, as kmd's managed memory does, in both timing
// models and with the SMs on two host threads.
#include "device_harness.h"

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <set>
#include <string>
#include <thread>

namespace simtgpu::test {
namespace {

constexpr uint64_t kCode = 0x10000;
constexpr uint64_t kReport = 0x10'0000'0000ull;
constexpr uint64_t kManaged = 0x20'0000'0000ull;
constexpr uint32_t kPages = 40; // one per thread: two warps, several CTAs
constexpr uint32_t kContext = 3;

// RV64 encodings (checked with llvm-mc-16).
constexpr uint32_t kCsrrA1Tid = 0xcc0025f3;   // csrr a1, tid.x
constexpr uint32_t kSlliA1By12 = 0x00c59593;  // slli a1, a1, 12
constexpr uint32_t kAddA1A1A0 = 0x00a585b3;   // add a1, a1, a0
constexpr uint32_t kLdA2A1 = 0x0005b603;      // ld a2, 0(a1)
constexpr uint32_t kAddiA2One = 0x00160613;   // addi a2, a2, 1
constexpr uint32_t kSdA2A1 = 0x00c5b023;      // sd a2, 0(a1)
constexpr uint32_t kLiA3One = 0x00100693;     // li a3, 1
constexpr uint32_t kAddiA4A1By8 = 0x00858713; // addi a4, a1, 8
constexpr uint32_t kAmoaddA4 = 0x00d7302f;    // amoadd.d zero, a3, (a4)
constexpr uint32_t kAmoaddA1 = 0x00d5b02f;    // amoadd.d zero, a3, (a1)
constexpr uint32_t kLuiT0Page = 0x000012b7;   // lui t0, 1
constexpr uint32_t kAddA1A0T0 = 0x005505b3;   // add a1, a0, t0
constexpr uint32_t kLdA2A0 = 0x00053603;      // ld a2, 0(a0)
constexpr uint32_t kLdA3A1 = 0x0005b683;      // ld a3, 0(a1)
constexpr uint32_t kLdA4A0 = 0x00053703;      // ld a4, 0(a0)
constexpr uint32_t kSdA2A1At8 = 0x00c5b423;   // sd a2, 8(a1)
constexpr uint32_t kSdA4A1At16 = 0x00e5b823;  // sd a4, 16(a1)
constexpr uint32_t kLiA7Exit = 0x05d00893;    // li a7, 93
constexpr uint32_t kLiA0Zero = 0x00000513;    // li a0, 0
constexpr uint32_t kEcall = 0x00000073;

struct ReplaySetup {
    const char *name;
    const char *preset; // nullptr: the defaults (functional)
    uint32_t host_threads;
};

class Replay : public ::testing::TestWithParam<ReplaySetup> {
protected:
    static simtgpu_sim_config config_of(const ReplaySetup &s) {
        simtgpu_sim_config c{};
        c.config = s.preset;
        c.host_threads = s.host_threads;
        return c;
    }
    Replay() : h(config_of(GetParam())) {}

    void SetUp() override {
        report_pa = h.map_new(kReport, 4096, SIMTGPU_PTE_R | SIMTGPU_PTE_W);
        // The managed range: VRAM behind it, but every leaf PTE "elsewhere".
        managed_pa = h.alloc_pages(kPages + 1);
        for (uint32_t i = 0; i <= kPages; ++i)
            h.set_pte(h.leaf_table(kManaged + i * 4096ull), kManaged + i * 4096ull, 0,
                      SIMTGPU_PTE_REPLAY);
        h.setup_ring(0);
        h.submit({pkt_set_context(kContext, h.root)});
        h.write_reg(SIMTGPU_REG_IRQ_MASK, SIMTGPU_IRQ_FAULT | SIMTGPU_IRQ_EXCEPTION);
    }
    void load(const std::vector<uint32_t> &code) {
        const uint64_t pa = h.map_new(kCode, code.size() * 4, SIMTGPU_PTE_R | SIMTGPU_PTE_X);
        std::memcpy(h.vram + pa, code.data(), code.size() * 4);
    }
    void make_present(uint64_t va) {
        const uint64_t page = (va - kManaged) / 4096;
        h.map(kManaged + page * 4096, managed_pa + page * 4096, SIMTGPU_PTE_R | SIMTGPU_PTE_W);
    }

    // Launches and plays the driver until the fence after the launch lands:
    // each queued fault goes to `service`, then FAULT_REPLAY. Returns false
    // on a stall (no fault and no progress for 20 s).
    bool run(const simtgpu_pkt_launch &launch,
             const std::function<void(uint64_t va, uint32_t access)> &service) {
        simtgpu_pkt_launch l = launch;
        l.report_va = kReport;
        h.emit(0, pkt_launch(l));
        h.emit(0, pkt_fence(kReport + 512, 1));
        h.doorbell(0);
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
        while (h.read_pa<uint64_t>(report_pa + 512) != 1) {
            if (h.reg(SIMTGPU_REG_STATUS) & SIMTGPU_STATUS_EXCEPTION) {
                exception = {h.reg(SIMTGPU_REG_EXC_KIND), h.reg(SIMTGPU_REG_EXC_DETAIL),
                             h.reg(SIMTGPU_REG_EXC_ACCESS),
                             h.reg(SIMTGPU_REG_EXC_ADDR_LO) |
                                 uint64_t(h.reg(SIMTGPU_REG_EXC_ADDR_HI)) << 32};
                h.write_reg(SIMTGPU_REG_IRQ_ACK, SIMTGPU_IRQ_EXCEPTION); // the ring goes on
            }
            if (h.reg(SIMTGPU_REG_IRQ_STATUS) & SIMTGPU_IRQ_FAULT) {
                h.write_reg(SIMTGPU_REG_IRQ_ACK, SIMTGPU_IRQ_FAULT); // before draining
                while (h.reg(SIMTGPU_REG_FAULT_COUNT)) {
                    EXPECT_EQ(h.reg(SIMTGPU_REG_FAULT_CONTEXT), kContext);
                    EXPECT_EQ(h.reg(SIMTGPU_REG_FAULT_RING), 0u);
                    const uint64_t va = h.reg(SIMTGPU_REG_FAULT_ADDR_LO) |
                                        uint64_t(h.reg(SIMTGPU_REG_FAULT_ADDR_HI)) << 32;
                    service(va, h.reg(SIMTGPU_REG_FAULT_ACCESS));
                    faulted_pages.insert(va / 4096);
                    h.write_reg(SIMTGPU_REG_FAULT_POP, 1);
                    ++faults_seen;
                }
                h.write_reg(SIMTGPU_REG_FAULT_REPLAY, replay_with);
                ++replays;
                continue;
            }
            if (std::chrono::steady_clock::now() > deadline)
                return false;
            std::this_thread::sleep_for(std::chrono::microseconds(200));
        }
        return true;
    }
    uint64_t counter(uint32_t index) { return h.stats().counters[index]; }

    DeviceHarness h;
    uint64_t report_pa = 0, managed_pa = 0;
    std::set<uint64_t> faulted_pages;
    uint32_t faults_seen = 0, replays = 0;
    uint32_t replay_with = SIMTGPU_REPLAY_RETRY;
    struct {
        uint32_t kind = 0, detail = 0, access = 0;
        uint64_t address = 0;
    } exception; // the last exception record run() acknowledged
};

// Each thread increments a word of its own page and adds 1 to the next word
// with an atomic: every page faults once (the load), is mapped, and each
// word is changed exactly once however often its warp was replayed.
TEST_P(Replay, HeldWarpsRetryOncePagesArePresent) {
    load({kCsrrA1Tid, kSlliA1By12, kAddA1A1A0, kLdA2A1, kAddiA2One, kSdA2A1, kLiA3One,
          kAddiA4A1By8, kAmoaddA4, kLiA7Exit, kLiA0Zero, kEcall});
    for (uint32_t i = 0; i < kPages; ++i)
        h.write_pa<uint64_t>(managed_pa + i * 4096ull, 1000 + i);
    simtgpu_pkt_launch l = launch_1d(kCode, 1, kPages);
    l.param_va = kManaged;
    ASSERT_TRUE(run(l, [&](uint64_t va, uint32_t access) {
        EXPECT_EQ(access, uint32_t(SIMTGPU_ACCESS_READ)); // the load meets it first
        make_present(va);
    }));
    const simtgpu_launch_report r = h.read_pa<simtgpu_launch_report>(report_pa);
    EXPECT_EQ(r.exception, 0u);
    for (uint32_t i = 0; i < kPages; ++i) {
        EXPECT_EQ(h.read_pa<uint64_t>(managed_pa + i * 4096ull), 1001u + i) << "page " << i;
        EXPECT_EQ(h.read_pa<uint64_t>(managed_pa + i * 4096ull + 8), 1u) << "page " << i;
    }
    EXPECT_EQ(faulted_pages.size(), kPages);
    EXPECT_EQ(faults_seen, kPages); // one entry per page: never a fault of a present page
    EXPECT_EQ(counter(SIMTGPU_COUNTER_gpu_page_faults), kPages);
    EXPECT_EQ(counter(SIMTGPU_COUNTER_fault_replays), replays);
    // A warp's lanes fault one page at a time, each waiting the device's
    // fault service time (20 us at the presets' clock) before it retries.
    const uint64_t service = 20'000ull * h.reg(SIMTGPU_REG_CLOCK_KHZ) / 1'000'000;
    EXPECT_GE(r.cycles, 32 * service);
}

// The atomic is each lane's first access: a warp must not apply the atomics
// of the lanes whose pages are present and then be replayed for the others.
TEST_P(Replay, AtomicsTakeEffectOnceAcrossReplays) {
    load({kCsrrA1Tid, kSlliA1By12, kAddA1A1A0, kLiA3One, kAmoaddA1, kLiA7Exit, kLiA0Zero,
          kEcall});
    simtgpu_pkt_launch l = launch_1d(kCode, 1, kPages);
    l.param_va = kManaged;
    ASSERT_TRUE(run(l, [&](uint64_t va, uint32_t access) {
        EXPECT_EQ(access, uint32_t(SIMTGPU_ACCESS_ATOMIC));
        make_present(va);
    }));
    EXPECT_EQ(h.read_pa<simtgpu_launch_report>(report_pa).exception, 0u);
    for (uint32_t i = 0; i < kPages; ++i)
        EXPECT_EQ(h.read_pa<uint64_t>(managed_pa + i * 4096ull), 1u) << "page " << i;
}

// A page the driver cannot make present: REPLAY_CANCEL for the context ends
// the launch with the page fault the warp met, and the ring goes on.
TEST_P(Replay, CancelEndsTheLaunchWithItsFault) {
    load({kCsrrA1Tid, kSlliA1By12, kAddA1A1A0, kLdA2A1, kAddiA2One, kSdA2A1, kLiA7Exit,
          kLiA0Zero, kEcall});
    simtgpu_pkt_launch l = launch_1d(kCode, 1, 1);
    l.param_va = kManaged + 5 * 4096;
    h.write_reg(SIMTGPU_REG_FAULT_CANCEL_CONTEXT, kContext);
    EXPECT_EQ(h.reg(SIMTGPU_REG_FAULT_CANCEL_CONTEXT), kContext);
    replay_with = SIMTGPU_REPLAY_CANCEL;
    ASSERT_TRUE(run(l, [](uint64_t, uint32_t) {}));
    EXPECT_EQ(h.read_pa<simtgpu_launch_report>(report_pa).exception,
              uint32_t(SIMTGPU_EXC_PAGE_FAULT));
    EXPECT_EQ(faults_seen, 1u);
    EXPECT_EQ(exception.kind, uint32_t(SIMTGPU_EXC_PAGE_FAULT));
    EXPECT_EQ(exception.detail, uint32_t(SIMTGPU_FAULT_NOT_PRESENT));
    EXPECT_EQ(exception.address, kManaged + 5 * 4096);
    EXPECT_EQ(exception.access, uint32_t(SIMTGPU_ACCESS_READ));
}

// TLB_INVALIDATE: while a warp is held, the driver moves a page the warp
// has already read to other memory; after the invalidation the warp's next
// read of it sees the new page, not its TLB's old translation.
TEST_P(Replay, InvalidatedTranslationsAreWalkedAgain) {
    load({kLuiT0Page, kAddA1A0T0, kLdA2A0, kLdA3A1, kLdA4A0, kSdA2A1At8, kSdA4A1At16, kLiA7Exit,
          kLiA0Zero, kEcall});
    make_present(kManaged); // page A, present from the start; B faults
    h.write_pa<uint64_t>(managed_pa, 11);
    const uint64_t moved_pa = h.alloc_pages(1);
    h.write_pa<uint64_t>(moved_pa, 22);
    simtgpu_pkt_launch l = launch_1d(kCode, 1, 1);
    l.param_va = kManaged;
    ASSERT_TRUE(run(l, [&](uint64_t va, uint32_t) {
        EXPECT_EQ(va, kManaged + 4096);
        h.map(kManaged, moved_pa, SIMTGPU_PTE_R | SIMTGPU_PTE_W);
        h.write_reg(SIMTGPU_REG_TLB_INVALIDATE, 1);
        make_present(va);
    }));
    EXPECT_EQ(h.read_pa<simtgpu_launch_report>(report_pa).exception, 0u);
    EXPECT_EQ(h.read_pa<uint64_t>(managed_pa + 4096 + 8), 11u);  // before the move
    EXPECT_EQ(h.read_pa<uint64_t>(managed_pa + 4096 + 16), 22u); // after it
}

// Read-only duplicates (hw 1.6): a valid PTE_REPLAY page without W serves
// reads; a store or atomic to it waits for the driver, which makes the page
// writable, and then takes effect exactly once.
TEST_P(Replay, WritesToAReadOnlyReplayPageWaitForTheDriver) {
    load({kCsrrA1Tid, kSlliA1By12, kAddA1A1A0, kLdA2A1, kAddiA2One, kSdA2A1, kLiA3One,
          kAddiA4A1By8, kAmoaddA4, kLiA7Exit, kLiA0Zero, kEcall});
    for (uint32_t i = 0; i < kPages; ++i) {
        h.map(kManaged + i * 4096ull, managed_pa + i * 4096ull,
              SIMTGPU_PTE_R | SIMTGPU_PTE_REPLAY);
        h.write_pa<uint64_t>(managed_pa + i * 4096ull, 1000 + i);
    }
    simtgpu_pkt_launch l = launch_1d(kCode, 1, kPages);
    l.param_va = kManaged;
    std::set<uint32_t> accesses;
    ASSERT_TRUE(run(l, [&](uint64_t va, uint32_t access) {
        accesses.insert(access);
        make_present(va); // writable now; the TLB may hold the read-only entry
        h.write_reg(SIMTGPU_REG_TLB_INVALIDATE, 1);
    }));
    EXPECT_EQ(h.read_pa<simtgpu_launch_report>(report_pa).exception, 0u);
    EXPECT_EQ(accesses, std::set<uint32_t>{SIMTGPU_ACCESS_WRITE}); // the load hit
    EXPECT_EQ(faulted_pages.size(), kPages);
    for (uint32_t i = 0; i < kPages; ++i) {
        EXPECT_EQ(h.read_pa<uint64_t>(managed_pa + i * 4096ull), 1001u + i) << "page " << i;
        EXPECT_EQ(h.read_pa<uint64_t>(managed_pa + i * 4096ull + 8), 1u) << "page " << i;
    }
}

TEST_P(Replay, AtomicsOnAReadOnlyReplayPageWaitForTheDriver) {
    load({kCsrrA1Tid, kSlliA1By12, kAddA1A1A0, kLiA3One, kAmoaddA1, kLiA7Exit, kLiA0Zero,
          kEcall});
    for (uint32_t i = 0; i < kPages; ++i)
        h.map(kManaged + i * 4096ull, managed_pa + i * 4096ull,
              SIMTGPU_PTE_R | SIMTGPU_PTE_REPLAY);
    simtgpu_pkt_launch l = launch_1d(kCode, 1, kPages);
    l.param_va = kManaged;
    ASSERT_TRUE(run(l, [&](uint64_t va, uint32_t access) {
        EXPECT_EQ(access, uint32_t(SIMTGPU_ACCESS_ATOMIC));
        make_present(va);
        h.write_reg(SIMTGPU_REG_TLB_INVALIDATE, 1);
    }));
    EXPECT_EQ(h.read_pa<simtgpu_launch_report>(report_pa).exception, 0u);
    for (uint32_t i = 0; i < kPages; ++i)
        EXPECT_EQ(h.read_pa<uint64_t>(managed_pa + i * 4096ull), 1u) << "page " << i;
}

// Without PTE_REPLAY a read-only page's store is the end of the launch.
TEST_P(Replay, WritesToAPlainReadOnlyPageFault) {
    load({kCsrrA1Tid, kSlliA1By12, kAddA1A1A0, kLdA2A1, kAddiA2One, kSdA2A1, kLiA7Exit,
          kLiA0Zero, kEcall});
    h.map(kManaged, managed_pa, SIMTGPU_PTE_R);
    simtgpu_pkt_launch l = launch_1d(kCode, 1, 1);
    l.param_va = kManaged;
    ASSERT_TRUE(run(l, [](uint64_t, uint32_t) { ADD_FAILURE() << "no fault is replayable"; }));
    EXPECT_EQ(h.read_pa<simtgpu_launch_report>(report_pa).exception,
              uint32_t(SIMTGPU_EXC_PAGE_FAULT));
    EXPECT_EQ(exception.detail, uint32_t(SIMTGPU_FAULT_PROTECTION));
    EXPECT_EQ(exception.access, uint32_t(SIMTGPU_ACCESS_WRITE));
}

TEST_P(Replay, RegistersOfAnEmptyQueueReadZero) {
    EXPECT_TRUE(h.reg(SIMTGPU_REG_CAPS) & SIMTGPU_CAP_REPLAYABLE_FAULTS);
    EXPECT_EQ(h.reg(SIMTGPU_REG_FAULT_COUNT), 0u);
    EXPECT_EQ(h.reg(SIMTGPU_REG_FAULT_ADDR_LO), 0u);
    h.write_reg(SIMTGPU_REG_FAULT_POP, 1); // nothing to drop: ignored
    h.write_reg(SIMTGPU_REG_TLB_INVALIDATE, 1); // idle: returns at once
    const uint64_t bad = counter(SIMTGPU_COUNTER_bad_mmio_accesses);
    h.write_reg(SIMTGPU_REG_FAULT_REPLAY, 7); // neither RETRY nor CANCEL
    EXPECT_EQ(counter(SIMTGPU_COUNTER_bad_mmio_accesses), bad + 1);
    EXPECT_EQ(counter(SIMTGPU_COUNTER_fault_replays), 0u);
}

INSTANTIATE_TEST_SUITE_P(Models, Replay,
                         ::testing::Values(ReplaySetup{"functional", nullptr, 1},
                                           ReplaySetup{"two_threads", nullptr, 2},
                                           ReplaySetup{"teaching", "teaching", 1},
                                           ReplaySetup{"teaching_two_threads", "teaching", 2},
                                           ReplaySetup{"volta", "volta", 1}),
                         [](const auto &info) { return std::string(info.param.name); });

} // namespace
} // namespace simtgpu::test
