// L2 access management through BAR0 and a ring (hw.h 1.5): the limit
// registers of the ampere preset and of devices without persisting lines,
// the L2_POLICY packet's effect on L2_SET_ASIDE, and every refusal.
#include "device_harness.h"

#include <gtest/gtest.h>

#include <cstring>

namespace simtgpu::test {
namespace {

constexpr uint64_t kData = 0x10'0000'0000ull;

simtgpu_sim_config preset(const char *name) {
    simtgpu_sim_config c{};
    c.config = name;
    c.vram_bytes = 64ull << 20;
    return c;
}

std::vector<uint32_t> pkt_l2_policy(uint32_t flags, uint64_t base, uint64_t bytes,
                                    uint32_t ratio, uint32_t hit, uint32_t miss,
                                    uint64_t set_aside, uint32_t reserved = 0) {
    return packet(SIMTGPU_PKT_L2_POLICY,
                  simtgpu_pkt_l2_policy{base, bytes, ratio, hit, miss, reserved, set_aside},
                  flags);
}

class L2Policy : public ::testing::Test {
protected:
    L2Policy() : h(preset("ampere")) {}
    void SetUp() override {
        h.map_new(kData, 4096, SIMTGPU_PTE_R | SIMTGPU_PTE_W);
        h.setup_ring(0);
        h.submit({pkt_set_context(1, h.root)});
    }
    void expect_refused(const std::vector<uint32_t> &p, uint32_t detail) {
        h.emit(0, p);
        h.doorbell(0);
        ASSERT_TRUE(h.wait_idle());
        EXPECT_EQ(h.ring_reg(0, SIMTGPU_RING_STATUS), uint32_t(SIMTGPU_RING_STATUS_STALLED));
        EXPECT_EQ(h.reg(SIMTGPU_REG_EXC_KIND), uint32_t(SIMTGPU_EXC_BAD_L2_POLICY));
        EXPECT_EQ(h.reg(SIMTGPU_REG_EXC_DETAIL), detail);
        h.write_reg(SIMTGPU_REG_IRQ_ACK, SIMTGPU_IRQ_EXCEPTION);
        ASSERT_TRUE(h.wait_idle());
    }
    DeviceHarness h;
};

TEST_F(L2Policy, TheAmperePresetReportsItsLimits) {
    EXPECT_EQ(h.reg(SIMTGPU_REG_HW_VERSION), uint32_t(SIMTGPU_HW_VERSION));
    EXPECT_EQ(h.reg(SIMTGPU_REG_L2_SIZE), 40u << 20);
    EXPECT_EQ(h.reg(SIMTGPU_REG_L2_PERSISTING_MAX), 30u << 20); // 0.75 of L2
    EXPECT_EQ(h.reg(SIMTGPU_REG_L2_WINDOW_MAX), 134213632u);
    EXPECT_EQ(h.reg(SIMTGPU_REG_L2_SET_ASIDE), 0u);
    EXPECT_EQ(h.reg(SIMTGPU_REG_NUM_SMS), 108u);
    EXPECT_EQ(h.reg(SIMTGPU_REG_CLOCK_KHZ), 1410000u);
}

TEST_F(L2Policy, SetAsideTakesEffectAndResetKeepsIt) {
    const uint32_t set_aside = SIMTGPU_PKTF_L2_SET_ASIDE;
    h.submit({pkt_l2_policy(set_aside, 0, 0, 0, 0, 0, 4 << 20)});
    EXPECT_EQ(h.ring_reg(0, SIMTGPU_RING_STATUS), uint32_t(SIMTGPU_RING_STATUS_IDLE));
    EXPECT_EQ(h.reg(SIMTGPU_REG_L2_SET_ASIDE), 4u << 20);
    h.submit({pkt_l2_policy(SIMTGPU_PKTF_L2_RESET, 0, 0, 0, 0, 0, 0)});
    EXPECT_EQ(h.reg(SIMTGPU_REG_L2_SET_ASIDE), 4u << 20);
    // A window, the largest allowed, with every property.
    h.submit({pkt_l2_policy(SIMTGPU_PKTF_L2_WINDOW | set_aside, kData, 134213632,
                            SIMTGPU_L2_HIT_RATIO_ONE, SIMTGPU_L2_PROP_PERSISTING,
                            SIMTGPU_L2_PROP_STREAMING, 30 << 20)});
    EXPECT_EQ(h.ring_reg(0, SIMTGPU_RING_STATUS), uint32_t(SIMTGPU_RING_STATUS_IDLE));
    EXPECT_EQ(h.reg(SIMTGPU_REG_L2_SET_ASIDE), 30u << 20);
    // A device reset returns it to 0.
    h.write_reg(SIMTGPU_REG_RESET, SIMTGPU_RESET_MAGIC);
    ASSERT_TRUE(h.wait_idle());
    EXPECT_EQ(h.reg(SIMTGPU_REG_L2_SET_ASIDE), 0u);
}

// Clients send it in their command buffers: it runs at user privilege (its
// SET_ASIDE flag shares a bit with FENCE's PHYSICAL, which does not).
TEST_F(L2Policy, IndirectBuffersMayCarryIt) {
    std::vector<uint32_t> ib = pkt_l2_policy(
        SIMTGPU_PKTF_L2_WINDOW | SIMTGPU_PKTF_L2_SET_ASIDE | SIMTGPU_PKTF_L2_RESET, kData, 4096,
        SIMTGPU_L2_HIT_RATIO_ONE / 2, SIMTGPU_L2_PROP_PERSISTING, SIMTGPU_L2_PROP_NORMAL, 1 << 20);
    const uint64_t ib_va = 0x40'0000'0000ull;
    const uint64_t ib_pa = h.map_new(ib_va, ib.size() * 4, SIMTGPU_PTE_R);
    std::memcpy(h.vram + ib_pa, ib.data(), ib.size() * 4);
    h.submit({pkt_indirect(ib_va, uint32_t(ib.size()))});
    EXPECT_EQ(h.ring_reg(0, SIMTGPU_RING_STATUS), uint32_t(SIMTGPU_RING_STATUS_IDLE));
    EXPECT_EQ(h.reg(SIMTGPU_REG_EXC_KIND), uint32_t(SIMTGPU_EXC_NONE));
    EXPECT_EQ(h.reg(SIMTGPU_REG_L2_SET_ASIDE), 1u << 20);
}

TEST_F(L2Policy, BadValuesAreRefused) {
    const uint32_t window = SIMTGPU_PKTF_L2_WINDOW;
    const uint32_t one = SIMTGPU_L2_HIT_RATIO_ONE, p = SIMTGPU_L2_PROP_PERSISTING;
    expect_refused(pkt_l2_policy(window, kData, 134213632 + 1, one, p, 0, 0),
                   SIMTGPU_L2_POLICY_ERR_WINDOW);
    expect_refused(pkt_l2_policy(window, ~0ull - 10, 4096, one, p, 0, 0),
                   SIMTGPU_L2_POLICY_ERR_WINDOW);
    expect_refused(pkt_l2_policy(window, kData, 4096, one + 1, p, 0, 0),
                   SIMTGPU_L2_POLICY_ERR_HIT_RATIO);
    expect_refused(pkt_l2_policy(window, kData, 4096, one, 3, 0, 0),
                   SIMTGPU_L2_POLICY_ERR_PROPERTY);
    expect_refused(pkt_l2_policy(window, kData, 4096, one, p, 7, 0),
                   SIMTGPU_L2_POLICY_ERR_PROPERTY);
    expect_refused(pkt_l2_policy(SIMTGPU_PKTF_L2_SET_ASIDE, 0, 0, 0, 0, 0, (30 << 20) + 1),
                   SIMTGPU_L2_POLICY_ERR_SET_ASIDE);
    expect_refused(pkt_l2_policy(0, 0, 0, 0, 0, 0, 0), SIMTGPU_L2_POLICY_ERR_FLAGS);
    expect_refused(pkt_l2_policy(SIMTGPU_PKTF_L2_RESET, 0, 0, 0, 0, 0, 0, 1),
                   SIMTGPU_L2_POLICY_ERR_FLAGS);
    // Nothing changed on the way.
    EXPECT_EQ(h.reg(SIMTGPU_REG_L2_SET_ASIDE), 0u);
    // An unknown flag is a bad packet, as for every opcode.
    auto unknown = pkt_l2_policy(1u << 3, 0, 0, 0, 0, 0, 0);
    h.emit(0, unknown);
    h.doorbell(0);
    ASSERT_TRUE(h.wait_idle());
    EXPECT_EQ(h.reg(SIMTGPU_REG_EXC_KIND), uint32_t(SIMTGPU_EXC_BAD_PACKET));
    EXPECT_EQ(h.reg(SIMTGPU_REG_EXC_DETAIL), unknown[0]);
}

TEST(L2PolicyUnsupported, VoltaAndTheFunctionalModelHaveNone) {
    for (const char *name : {"volta", "functional"}) {
        DeviceHarness h(preset(name));
        EXPECT_EQ(h.reg(SIMTGPU_REG_L2_PERSISTING_MAX), 0u) << name;
        EXPECT_EQ(h.reg(SIMTGPU_REG_L2_WINDOW_MAX), 0u) << name;
        h.setup_ring(0);
        h.submit({pkt_set_context(1, h.root)});
        h.emit(0, pkt_l2_policy(SIMTGPU_PKTF_L2_RESET, 0, 0, 0, 0, 0, 0));
        h.doorbell(0);
        ASSERT_TRUE(h.wait_idle());
        EXPECT_EQ(h.reg(SIMTGPU_REG_EXC_KIND), uint32_t(SIMTGPU_EXC_BAD_L2_POLICY)) << name;
        EXPECT_EQ(h.reg(SIMTGPU_REG_EXC_DETAIL), uint32_t(SIMTGPU_L2_POLICY_ERR_UNSUPPORTED));
    }
}

} // namespace
} // namespace simtgpu::test
