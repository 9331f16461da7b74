// The command processor through BAR0 and a ring: every packet, every
// refusal, the exception stall/ack/resume protocol, interrupts, arbitration.
#include "device_harness.h"

#include <gtest/gtest.h>

namespace simtgpu::test {
namespace {

constexpr uint32_t kContext = 7;
constexpr uint64_t kData = 0x10'0000'0000ull; // a VA the tests map

struct Record {
    uint32_t kind, ring, context, access, detail, ring_offset;
    uint64_t address;
};

Record exception_record(DeviceHarness &h) {
    Record r;
    r.kind = h.reg(SIMTGPU_REG_EXC_KIND);
    r.ring = h.reg(SIMTGPU_REG_EXC_RING);
    r.context = h.reg(SIMTGPU_REG_EXC_CONTEXT);
    r.access = h.reg(SIMTGPU_REG_EXC_ACCESS);
    r.detail = h.reg(SIMTGPU_REG_EXC_DETAIL);
    r.ring_offset = h.reg(SIMTGPU_REG_EXC_RING_OFFSET);
    r.address = h.reg(SIMTGPU_REG_EXC_ADDR_LO) | uint64_t(h.reg(SIMTGPU_REG_EXC_ADDR_HI)) << 32;
    return r;
}

void acknowledge(DeviceHarness &h) {
    h.write_reg(SIMTGPU_REG_IRQ_ACK, SIMTGPU_IRQ_EXCEPTION);
    ASSERT_TRUE(h.wait_idle());
}

class Ring : public ::testing::Test {
protected:
    void SetUp() override {
        data_pa = h.map_new(kData, 3 * 4096, SIMTGPU_PTE_R | SIMTGPU_PTE_W);
        h.setup_ring(0);
        h.submit({pkt_set_context(kContext, h.root)});
    }
    // Submits one packet expected to raise an exception; returns its offset.
    uint32_t submit_failing(const std::vector<uint32_t> &p) {
        const uint32_t at = h.emit(0, p);
        h.doorbell(0);
        EXPECT_TRUE(h.wait_idle());
        return at;
    }
    void expect_refused(const std::vector<uint32_t> &p, uint32_t kind, uint32_t detail) {
        const uint32_t at = submit_failing(p);
        EXPECT_EQ(h.ring_reg(0, SIMTGPU_RING_STATUS), uint32_t(SIMTGPU_RING_STATUS_STALLED));
        const Record r = exception_record(h);
        EXPECT_EQ(r.kind, kind);
        EXPECT_EQ(r.detail, detail);
        EXPECT_EQ(r.ring_offset, at);
        acknowledge(h);
        EXPECT_EQ(h.ring_reg(0, SIMTGPU_RING_STATUS), uint32_t(SIMTGPU_RING_STATUS_IDLE));
    }

    DeviceHarness h;
    uint64_t data_pa = 0;
};

TEST_F(Ring, FenceWritesItsValueAndAdvancesHead) {
    h.submit({pkt_fence(kData + 8, 0x1234'5678'9abc'def0ull)});
    EXPECT_EQ(h.read_pa<uint64_t>(data_pa + 8), 0x1234'5678'9abc'def0ull);
    EXPECT_EQ(h.ring_reg(0, SIMTGPU_RING_HEAD), h.ring_reg(0, SIMTGPU_RING_TAIL));
    EXPECT_EQ(h.ring_reg(0, SIMTGPU_RING_STATUS), uint32_t(SIMTGPU_RING_STATUS_IDLE));
    EXPECT_EQ(h.reg(SIMTGPU_REG_IRQ_STATUS), 0u);
}

TEST_F(Ring, PhysicalFenceWritesVram) {
    const uint64_t pa = h.alloc_pages(1);
    h.submit({pkt_fence(pa, 99, SIMTGPU_PKTF_PHYSICAL)});
    EXPECT_EQ(h.read_pa<uint64_t>(pa), 99u);
}

TEST_F(Ring, FenceInterruptIsRaisedWhenUnmasked) {
    h.submit({pkt_fence(kData, 1, SIMTGPU_PKTF_IRQ)});
    EXPECT_EQ(h.reg(SIMTGPU_REG_IRQ_STATUS), uint32_t(SIMTGPU_IRQ_FENCE));
    EXPECT_TRUE(h.irqs().empty()) << "masked: pending only";
    h.write_reg(SIMTGPU_REG_IRQ_MASK, SIMTGPU_IRQ_FENCE | SIMTGPU_IRQ_EXCEPTION);
    ASSERT_EQ(h.irqs().size(), 1u) << "unmasking a pending cause signals it";
    EXPECT_EQ(h.irqs()[0], uint32_t(SIMTGPU_MSIX_VEC_FENCE));
    h.write_reg(SIMTGPU_REG_IRQ_ACK, SIMTGPU_IRQ_FENCE);
    EXPECT_EQ(h.reg(SIMTGPU_REG_IRQ_STATUS), 0u);
    h.submit({pkt_fence(kData, 2, SIMTGPU_PKTF_IRQ)});
    ASSERT_EQ(h.irqs().size(), 2u);
    EXPECT_EQ(h.irqs()[1], uint32_t(SIMTGPU_MSIX_VEC_FENCE));
    EXPECT_EQ(h.read_pa<uint64_t>(data_pa), 2u);
}

TEST_F(Ring, TimestampsFollowTheGlobalTimer) {
    h.submit({pkt_timestamp(kData), pkt_nop(3), pkt_timestamp(kData + 8)});
    const uint64_t t0 = h.read_pa<uint64_t>(data_pa), t1 = h.read_pa<uint64_t>(data_pa + 8);
    EXPECT_LT(t0, t1);
    const uint64_t timer = h.reg(SIMTGPU_REG_TIMER_LO) | uint64_t(h.reg(SIMTGPU_REG_TIMER_HI)) << 32;
    EXPECT_LE(t1, timer);
    // 1 GHz by default: one device cycle is one nanosecond.
    EXPECT_EQ(timer, h.stats().cycles);
}

TEST_F(Ring, CopyMovesBytesAcrossPages) {
    std::vector<uint8_t> pattern(6000);
    for (size_t i = 0; i < pattern.size(); ++i)
        pattern[i] = uint8_t(i * 7 + 3);
    std::memcpy(h.vram + data_pa + 100, pattern.data(), pattern.size());
    const uint64_t dst_va = 0x20'0000'0000ull;
    const uint64_t dst_pa = h.map_new(dst_va, 8192, SIMTGPU_PTE_W);
    h.submit({pkt_copy(kData + 100, dst_va + 50, pattern.size())});
    EXPECT_EQ(std::memcmp(h.vram + dst_pa + 50, pattern.data(), pattern.size()), 0);
}

TEST_F(Ring, CopyReachesHostMemoryByDma) {
    const uint64_t host_va = 0x30'0000'0000ull;
    h.map(host_va, DeviceHarness::kHostBase, SIMTGPU_PTE_R | SIMTGPU_PTE_W | SIMTGPU_PTE_HOST);
    for (int i = 0; i < 256; ++i)
        h.host_memory[i] = uint8_t(255 - i);
    h.submit({pkt_copy(host_va, kData, 256), pkt_copy(kData, host_va + 1024, 256)});
    for (int i = 0; i < 256; ++i) {
        ASSERT_EQ(h.vram[data_pa + i], uint8_t(255 - i));
        ASSERT_EQ(h.host_memory[1024 + i], uint8_t(255 - i));
    }
    EXPECT_EQ(h.stats().dma_bytes, 512u);
    EXPECT_EQ(h.reg(SIMTGPU_REG_COUNTER(SIMTGPU_COUNTER_dma_bytes)), 512u);
}

TEST_F(Ring, FailedDmaIsAFault) {
    const uint64_t host_va = 0x30'0000'0000ull;
    h.map(host_va, DeviceHarness::kHostBase, SIMTGPU_PTE_R | SIMTGPU_PTE_W | SIMTGPU_PTE_HOST);
    h.set_refuse_dma(true);
    submit_failing(pkt_copy(host_va, kData, 16));
    const Record r = exception_record(h);
    EXPECT_EQ(r.kind, uint32_t(SIMTGPU_EXC_PAGE_FAULT));
    EXPECT_EQ(r.detail, uint32_t(SIMTGPU_FAULT_DMA));
    EXPECT_EQ(r.address, host_va);
    acknowledge(h);
}

TEST_F(Ring, FillRepeatsThePattern) {
    h.submit({pkt_fill(kData + 4, 4096 + 8, 0xa5a5'0f0full)});
    EXPECT_EQ(h.read_pa<uint32_t>(data_pa), 0u);
    for (uint64_t off = 4; off < 4 + 4096 + 8; off += 4)
        ASSERT_EQ(h.read_pa<uint32_t>(data_pa + off), 0xa5a5'0f0fu) << off;
    EXPECT_EQ(h.read_pa<uint32_t>(data_pa + 4 + 4096 + 8), 0u);
}

TEST_F(Ring, IndirectBufferRunsAtUserPrivilege) {
    std::vector<uint32_t> ib;
    for (const auto &p : {pkt_fence(kData + 16, 5), pkt_fill(kData + 32, 8, 0x77), pkt_nop(2)})
        ib.insert(ib.end(), p.begin(), p.end());
    const uint64_t ib_va = 0x40'0000'0000ull;
    const uint64_t ib_pa = h.map_new(ib_va, ib.size() * 4, SIMTGPU_PTE_R);
    std::memcpy(h.vram + ib_pa, ib.data(), ib.size() * 4);
    h.submit({pkt_indirect(ib_va, uint32_t(ib.size())), pkt_fence(kData + 24, 6)});
    EXPECT_EQ(h.read_pa<uint64_t>(data_pa + 16), 5u);
    EXPECT_EQ(h.read_pa<uint32_t>(data_pa + 36), 0x77u);
    EXPECT_EQ(h.read_pa<uint64_t>(data_pa + 24), 6u);
}

TEST_F(Ring, PrivilegedPacketsAreRefusedInIndirectBuffers) {
    const uint64_t ib_va = 0x40'0000'0000ull;
    const uint64_t ib_pa = h.map_new(ib_va, 4096, SIMTGPU_PTE_R);
    const std::vector<uint32_t> refused[] = {
        pkt_set_context(1, h.root),
        pkt_indirect(ib_va, 4),
        pkt_fence(h.alloc_pages(1), 1, SIMTGPU_PKTF_PHYSICAL),
        pkt_timestamp(h.alloc_pages(1), SIMTGPU_PKTF_PHYSICAL),
    };
    for (const auto &bad : refused) {
        // A fence before the refused packet runs; the one after it does not.
        std::vector<uint32_t> ib = pkt_fence(kData, 1);
        ib.insert(ib.end(), bad.begin(), bad.end());
        auto after = pkt_fence(kData + 8, 2);
        ib.insert(ib.end(), after.begin(), after.end());
        std::memcpy(h.vram + ib_pa, ib.data(), ib.size() * 4);
        h.write_pa<uint64_t>(data_pa, 0);
        h.write_pa<uint64_t>(data_pa + 8, 0);
        expect_refused(pkt_indirect(ib_va, uint32_t(ib.size())), SIMTGPU_EXC_PRIVILEGED_PACKET,
                       bad[0]);
        EXPECT_EQ(h.read_pa<uint64_t>(data_pa), 1u);
        EXPECT_EQ(h.read_pa<uint64_t>(data_pa + 8), 0u) << "the IB was aborted";
    }
}

TEST_F(Ring, IndirectBufferFetchFaults) {
    const uint64_t unmapped = 0x50'0000'0000ull;
    submit_failing(pkt_indirect(unmapped, 8));
    Record r = exception_record(h);
    EXPECT_EQ(r.kind, uint32_t(SIMTGPU_EXC_PAGE_FAULT));
    EXPECT_EQ(r.detail, uint32_t(SIMTGPU_FAULT_NOT_PRESENT));
    EXPECT_EQ(r.access, uint32_t(SIMTGPU_ACCESS_READ));
    EXPECT_EQ(r.address, unmapped);
    EXPECT_EQ(r.context, kContext);
    acknowledge(h);
    expect_refused(pkt_indirect(kData + 2, 8), SIMTGPU_EXC_BAD_PACKET,
                   SIMTGPU_PKT_HEADER(SIMTGPU_PKT_INDIRECT, 0, 4));
}

TEST_F(Ring, MalformedPacketsAreBadPackets) {
    const uint32_t unknown = SIMTGPU_PKT_HEADER(0x7f, 0, 0);
    expect_refused({unknown}, SIMTGPU_EXC_BAD_PACKET, unknown);
    auto short_fence = pkt_fence(kData, 1);
    short_fence.pop_back();
    short_fence[0] = SIMTGPU_PKT_HEADER(SIMTGPU_PKT_FENCE, 0, 3);
    expect_refused(short_fence, SIMTGPU_EXC_BAD_PACKET, short_fence[0]);
    auto reserved_flag = pkt_fence(kData, 1, 1u << 2);
    expect_refused(reserved_flag, SIMTGPU_EXC_BAD_PACKET, reserved_flag[0]);
    auto nop_flag = pkt_nop(1);
    nop_flag[0] |= 1u << 8;
    expect_refused(nop_flag, SIMTGPU_EXC_BAD_PACKET, nop_flag[0]);
    auto timestamp_irq = pkt_timestamp(kData, SIMTGPU_PKTF_IRQ);
    expect_refused(timestamp_irq, SIMTGPU_EXC_BAD_PACKET, timestamp_irq[0]);
    auto misaligned = pkt_fence(kData + 4, 1);
    expect_refused(misaligned, SIMTGPU_EXC_BAD_PACKET, misaligned[0]);
    auto fill = pkt_fill(kData + 2, 8, 0);
    expect_refused(fill, SIMTGPU_EXC_BAD_PACKET, fill[0]);
    auto context = pkt_set_context(1, h.root + 8);
    expect_refused(context, SIMTGPU_EXC_BAD_PACKET, context[0]);
    auto physical = pkt_fence(h.vram_size, 1, SIMTGPU_PKTF_PHYSICAL);
    expect_refused(physical, SIMTGPU_EXC_BAD_PACKET, physical[0]);
    auto fill_reserved = packet(SIMTGPU_PKT_FILL, simtgpu_pkt_fill{kData, 8, 0, 1});
    expect_refused(fill_reserved, SIMTGPU_EXC_BAD_PACKET, fill_reserved[0]);
    auto context_reserved = packet(SIMTGPU_PKT_SET_CONTEXT, simtgpu_pkt_set_context{1, 1, h.root});
    expect_refused(context_reserved, SIMTGPU_EXC_BAD_PACKET, context_reserved[0]);
    auto ib_reserved = packet(SIMTGPU_PKT_INDIRECT, simtgpu_pkt_indirect{kData, 4, 1});
    expect_refused(ib_reserved, SIMTGPU_EXC_BAD_PACKET, ib_reserved[0]);
    auto ib_huge = pkt_indirect(kData, (1u << 24) + 1);
    expect_refused(ib_huge, SIMTGPU_EXC_BAD_PACKET, ib_huge[0]);
}

TEST_F(Ring, CopyFaultsNameTheSideThatFailed) {
    const uint64_t read_only = 0x20'0000'0000ull;
    h.map_new(read_only, 4096, SIMTGPU_PTE_R);
    submit_failing(pkt_copy(kData, read_only + 8, 16));
    Record r = exception_record(h);
    EXPECT_EQ(r.kind, uint32_t(SIMTGPU_EXC_PAGE_FAULT));
    EXPECT_EQ(r.detail, uint32_t(SIMTGPU_FAULT_PROTECTION));
    EXPECT_EQ(r.access, uint32_t(SIMTGPU_ACCESS_WRITE));
    EXPECT_EQ(r.address, read_only + 8);
    acknowledge(h);
    submit_failing(pkt_copy(kData + 3 * 4096 - 8, read_only, 16)); // runs off the mapped data
    r = exception_record(h);
    EXPECT_EQ(r.detail, uint32_t(SIMTGPU_FAULT_NOT_PRESENT));
    EXPECT_EQ(r.access, uint32_t(SIMTGPU_ACCESS_READ));
    EXPECT_EQ(r.address, kData + 3 * 4096);
    acknowledge(h);
}

TEST_F(Ring, AHeldExceptionTakesTheRecordAfterTheAck) {
    h.write_reg(SIMTGPU_REG_IRQ_MASK, SIMTGPU_IRQ_EXCEPTION);
    h.setup_ring(2);
    h.submit({pkt_set_context(9, h.root)}, 2);
    const uint32_t bad0 = SIMTGPU_PKT_HEADER(0x70, 0, 0), bad2 = SIMTGPU_PKT_HEADER(0x72, 0, 0);
    h.emit(0, {bad0});
    h.emit(0, pkt_fence(kData, 10));
    h.emit(2, {bad2});
    h.emit(2, pkt_fence(kData + 8, 12));
    h.doorbell(0);
    h.doorbell(2);
    ASSERT_TRUE(h.wait_idle());
    EXPECT_EQ(h.ring_reg(0, SIMTGPU_RING_STATUS), uint32_t(SIMTGPU_RING_STATUS_STALLED));
    EXPECT_EQ(h.ring_reg(2, SIMTGPU_RING_STATUS), uint32_t(SIMTGPU_RING_STATUS_STALLED));
    const Record first = exception_record(h);
    EXPECT_EQ(h.irqs().size(), 1u);

    h.write_reg(SIMTGPU_REG_IRQ_ACK, SIMTGPU_IRQ_EXCEPTION);
    ASSERT_TRUE(h.wait_idle());
    const Record second = exception_record(h);
    EXPECT_NE(first.ring, second.ring);
    EXPECT_EQ(second.detail, second.ring == 0 ? bad0 : bad2);
    EXPECT_EQ(second.context, second.ring == 0 ? kContext : 9u);
    EXPECT_EQ(h.reg(SIMTGPU_REG_IRQ_STATUS), uint32_t(SIMTGPU_IRQ_EXCEPTION));
    ASSERT_EQ(h.irqs().size(), 2u) << "the handed-over record interrupts again";
    EXPECT_EQ(h.irqs()[1], uint32_t(SIMTGPU_MSIX_VEC_ERROR));
    acknowledge(h);
    EXPECT_EQ(h.read_pa<uint64_t>(data_pa), 10u);
    EXPECT_EQ(h.read_pa<uint64_t>(data_pa + 8), 12u);
    EXPECT_EQ(h.stats().exceptions, 2u);
}

TEST_F(Ring, APacketLongerThanTheSubmissionIsSkippedWhole) {
    const uint32_t header = SIMTGPU_PKT_HEADER(SIMTGPU_PKT_NOP, 0, 100);
    const uint32_t at = submit_failing({header, 0, 0});
    EXPECT_EQ(exception_record(h).kind, uint32_t(SIMTGPU_EXC_BAD_PACKET));
    EXPECT_EQ(exception_record(h).ring_offset, at);
    acknowledge(h);
    EXPECT_EQ(h.ring_reg(0, SIMTGPU_RING_HEAD), h.ring_reg(0, SIMTGPU_RING_TAIL));
}

TEST_F(Ring, ExceptionStallsTheRingUntilAcknowledged) {
    h.write_reg(SIMTGPU_REG_IRQ_MASK, SIMTGPU_IRQ_EXCEPTION);
    const uint64_t unmapped = 0x60'0000'0000ull;
    const uint32_t at = h.emit(0, pkt_fence(unmapped, 1));
    h.emit(0, pkt_fence(kData, 42));
    h.doorbell(0);
    ASSERT_TRUE(h.wait_idle());

    EXPECT_EQ(h.ring_reg(0, SIMTGPU_RING_STATUS), uint32_t(SIMTGPU_RING_STATUS_STALLED));
    EXPECT_EQ(h.reg(SIMTGPU_REG_STATUS), uint32_t(SIMTGPU_STATUS_EXCEPTION));
    EXPECT_EQ(h.reg(SIMTGPU_REG_IRQ_STATUS), uint32_t(SIMTGPU_IRQ_EXCEPTION));
    ASSERT_EQ(h.irqs().size(), 1u);
    EXPECT_EQ(h.irqs()[0], uint32_t(SIMTGPU_MSIX_VEC_ERROR));
    const Record r = exception_record(h);
    EXPECT_EQ(r.kind, uint32_t(SIMTGPU_EXC_PAGE_FAULT));
    EXPECT_EQ(r.detail, uint32_t(SIMTGPU_FAULT_NOT_PRESENT));
    EXPECT_EQ(r.access, uint32_t(SIMTGPU_ACCESS_WRITE));
    EXPECT_EQ(r.address, unmapped);
    EXPECT_EQ(r.ring, 0u);
    EXPECT_EQ(r.context, kContext);
    EXPECT_EQ(r.ring_offset, at);
    EXPECT_EQ(h.read_pa<uint64_t>(data_pa), 0u) << "the ring waits for the ack";
    EXPECT_EQ(h.stats().exceptions, 1u);

    // Acknowledging another cause does not release the record.
    h.write_reg(SIMTGPU_REG_IRQ_ACK, SIMTGPU_IRQ_FENCE);
    EXPECT_EQ(h.ring_reg(0, SIMTGPU_RING_STATUS), uint32_t(SIMTGPU_RING_STATUS_STALLED));

    acknowledge(h);
    EXPECT_EQ(h.read_pa<uint64_t>(data_pa), 42u) << "resumed after the aborted packet";
    EXPECT_EQ(h.reg(SIMTGPU_REG_STATUS), 0u);
    EXPECT_EQ(h.reg(SIMTGPU_REG_EXC_KIND), uint32_t(SIMTGPU_EXC_NONE));
}

TEST_F(Ring, WithoutAContextMemoryPacketsFault) {
    h.setup_ring(1);
    h.emit(1, pkt_fence(kData, 1));
    h.doorbell(1);
    ASSERT_TRUE(h.wait_idle());
    const Record r = exception_record(h);
    EXPECT_EQ(r.kind, uint32_t(SIMTGPU_EXC_PAGE_FAULT));
    EXPECT_EQ(r.detail, uint32_t(SIMTGPU_FAULT_NO_CONTEXT));
    EXPECT_EQ(r.ring, 1u);
    acknowledge(h);
}

TEST_F(Ring, LaunchRefusals) {
    const uint64_t report_va = kData + 4096;
    auto refused = [&](simtgpu_pkt_launch l, uint32_t kind, uint32_t detail) {
        l.report_va = report_va;
        h.write_pa<uint32_t>(data_pa + 4096 + 32, 0);
        expect_refused(pkt_launch(l), kind, detail);
        simtgpu_launch_report report = h.read_pa<simtgpu_launch_report>(data_pa + 4096);
        EXPECT_EQ(report.exception, kind) << "the report says why";
    };
    const simtgpu_pkt_launch ok = launch_1d(0x10000, 1, 32);
    simtgpu_pkt_launch l = ok;
    l.grid[1] = 0;
    refused(l, SIMTGPU_EXC_BAD_LAUNCH, SIMTGPU_LAUNCH_ERR_GEOMETRY);
    l = ok, l.block[0] = 1025; // default max_threads_per_cta
    refused(l, SIMTGPU_EXC_BAD_LAUNCH, SIMTGPU_LAUNCH_ERR_GEOMETRY);
    l = ok, l.grid[1] = 65536;
    refused(l, SIMTGPU_EXC_BAD_LAUNCH, SIMTGPU_LAUNCH_ERR_GEOMETRY);
    l = ok, l.shared_bytes = (96 << 10) + 1; // default shared_bytes_per_sm
    refused(l, SIMTGPU_EXC_BAD_LAUNCH, SIMTGPU_LAUNCH_ERR_SHARED);
    l = ok, l.stack_bytes = 1000;
    refused(l, SIMTGPU_EXC_BAD_LAUNCH, SIMTGPU_LAUNCH_ERR_STACK);
    l = ok, l.stack_bytes = (1 << 20) + 16;
    refused(l, SIMTGPU_EXC_BAD_LAUNCH, SIMTGPU_LAUNCH_ERR_STACK);
    l = ok, l.reserved = 1;
    refused(l, SIMTGPU_EXC_BAD_LAUNCH, SIMTGPU_LAUNCH_ERR_FLAGS);
    l = ok, l.arch = SIMTGPU_ARCH_NEWEST + 1;
    refused(l, SIMTGPU_EXC_ARCH_MISMATCH, SIMTGPU_ARCH_NEWEST + 1);
    auto flagged = pkt_launch(ok);
    flagged[0] |= SIMTGPU_PKTF_IRQ << 8;
    expect_refused(flagged, SIMTGPU_EXC_BAD_PACKET, flagged[0]);
    EXPECT_EQ(h.stats().launches, 0u);
}

TEST(RingArch, OlderDeviceRefusesNewerCode) {
    simtgpu_sim_config c{};
    c.arch = SIMTGPU_ARCH_SIMT1;
    DeviceHarness h(c);
    EXPECT_EQ(h.reg(SIMTGPU_REG_ARCH), uint32_t(SIMTGPU_ARCH_SIMT1));
    h.setup_ring(0);
    simtgpu_pkt_launch l = launch_1d(0x10000, 1, 1);
    l.arch = SIMTGPU_ARCH_SIMT2;
    h.submit({pkt_set_context(1, h.root), pkt_launch(l)});
    EXPECT_EQ(h.reg(SIMTGPU_REG_EXC_KIND), uint32_t(SIMTGPU_EXC_ARCH_MISMATCH));
    EXPECT_EQ(h.reg(SIMTGPU_REG_EXC_DETAIL), uint32_t(SIMTGPU_ARCH_SIMT2));
}

TEST(RingSetup, BadSetupPutsTheRingInError) {
    DeviceHarness h;
    h.write_reg(SIMTGPU_REG_IRQ_MASK, SIMTGPU_IRQ_RING_ERROR);
    h.write_ring_reg(0, SIMTGPU_RING_ADDR_LO, 0x800); // not 4 KiB aligned
    h.write_ring_reg(0, SIMTGPU_RING_SIZE, 4096);
    h.write_ring_reg(0, SIMTGPU_RING_CTRL, SIMTGPU_RING_CTRL_ENABLE);
    EXPECT_EQ(h.ring_reg(0, SIMTGPU_RING_STATUS), uint32_t(SIMTGPU_RING_STATUS_ERROR));
    EXPECT_EQ(h.reg(SIMTGPU_REG_IRQ_STATUS), uint32_t(SIMTGPU_IRQ_RING_ERROR));
    ASSERT_EQ(h.irqs().size(), 1u);
    EXPECT_EQ(h.irqs()[0], uint32_t(SIMTGPU_MSIX_VEC_ERROR));

    h.write_ring_reg(1, SIMTGPU_RING_SIZE, 3 * 4096); // not a power of two
    h.write_ring_reg(1, SIMTGPU_RING_CTRL, SIMTGPU_RING_CTRL_ENABLE);
    EXPECT_EQ(h.ring_reg(1, SIMTGPU_RING_STATUS), uint32_t(SIMTGPU_RING_STATUS_ERROR));

    h.write_ring_reg(2, SIMTGPU_RING_SIZE, 4096);
    h.write_ring_reg(2, SIMTGPU_RING_CTRL, SIMTGPU_RING_CTRL_ENABLE);
    EXPECT_EQ(h.ring_reg(2, SIMTGPU_RING_STATUS), uint32_t(SIMTGPU_RING_STATUS_IDLE));
    h.write_ring_reg(2, SIMTGPU_RING_TAIL, 4096); // beyond the ring
    EXPECT_EQ(h.ring_reg(2, SIMTGPU_RING_STATUS), uint32_t(SIMTGPU_RING_STATUS_ERROR));

    h.write_reg(SIMTGPU_REG_RESET, SIMTGPU_RESET_MAGIC);
    EXPECT_EQ(h.ring_reg(0, SIMTGPU_RING_STATUS), uint32_t(SIMTGPU_RING_STATUS_IDLE));
}

// Each engine step serves the rings highest PRIORITY first (ring index
// among equals), each up to a budget of packets, before the grids run.
TEST(RingArbitration, HigherPriorityRingsAreServedFirst) {
    DeviceHarness h;
    const uint64_t host_va = 0x70'0000'0000ull, data_va = 0x10'0000'0000ull;
    const uint64_t data_pa = h.map_new(data_va, 4096, SIMTGPU_PTE_R | SIMTGPU_PTE_W);
    h.map(host_va, DeviceHarness::kHostBase, SIMTGPU_PTE_W | SIMTGPU_PTE_HOST);
    h.setup_ring(3, 1);
    h.setup_ring(0, 0);
    h.setup_ring(1, 3);
    h.setup_ring(2, 0);
    h.submit({pkt_set_context(1, h.root)}, 0);
    h.submit({pkt_set_context(1, h.root)}, 1);
    h.submit({pkt_set_context(1, h.root)}, 2);
    h.submit({pkt_set_context(1, h.root)}, 3);

    // Hold the engine in a DMA of ring 3 while the other rings fill up.
    h.hold_dma();
    h.emit(3, pkt_fence(host_va, 1));
    h.doorbell(3);
    h.wait_dma_held();
    // Each ring stamps its own slots; the order of stamps is the service order.
    for (uint32_t ring : {0u, 1u, 2u}) {
        for (int k = 0; k < 2; ++k)
            h.emit(ring, pkt_timestamp(data_va + 64 * ring + 8 * k));
        h.doorbell(ring);
    }
    h.release_dma();
    ASSERT_TRUE(h.wait_idle());

    auto stamp = [&](uint32_t ring, int k) { return h.read_pa<uint64_t>(data_pa + 64 * ring + 8 * k); };
    // Ring 1 (priority 3) runs both packets first, then rings 0 and 2
    // (priority 0) in index order, each in its own order.
    EXPECT_LT(stamp(1, 0), stamp(1, 1));
    EXPECT_LT(stamp(1, 1), stamp(0, 0));
    EXPECT_LT(stamp(0, 0), stamp(0, 1));
    EXPECT_LT(stamp(0, 1), stamp(2, 0));
    EXPECT_LT(stamp(2, 0), stamp(2, 1));
}

} // namespace
} // namespace simtgpu::test
