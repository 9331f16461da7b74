// The C ABI: version, creation errors, identity registers, bad MMIO,
// counters' latching, statistics in both forms.
#include "device_harness.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <unistd.h>

namespace simtgpu::test {
namespace {

TEST(CApi, VersionMatchesTheHeader) {
    EXPECT_EQ(simtgpu_sim_abi_version(), uint32_t(SIMTGPU_SIM_ABI_VERSION));
}

TEST(CApi, BadConfigurationsAreRefusedWithAMessage) {
    simtgpu_sim_config c{};
    c.struct_size = sizeof c;
    c.warp_size = 65;
    simtgpu_sim *sim = reinterpret_cast<simtgpu_sim *>(1);
    char err[200] = "";
    EXPECT_EQ(simtgpu_sim_create(&c, &sim, err, sizeof err), -EINVAL);
    EXPECT_EQ(sim, nullptr);
    EXPECT_NE(std::string(err).find("warp_size"), std::string::npos) << err;
    EXPECT_EQ(simtgpu_sim_create(nullptr, &sim, err, sizeof err), -EINVAL);
}

TEST(CApi, LargerStructsAreAcceptedWhenTheirNewFieldsAreZero) {
    struct {
        simtgpu_sim_config c;
        uint64_t future_field;
    } bigger{};
    bigger.c.struct_size = sizeof bigger;
    bigger.c.vram_bytes = 2 << 20;
    simtgpu_sim *sim = nullptr;
    char err[200] = "";
    ASSERT_EQ(simtgpu_sim_create(&bigger.c, &sim, err, sizeof err), 0) << err;
    simtgpu_sim_destroy(sim);
    bigger.future_field = 1;
    EXPECT_EQ(simtgpu_sim_create(&bigger.c, &sim, err, sizeof err), -EINVAL);
    EXPECT_NE(std::string(err).find("struct_size"), std::string::npos) << err;
}

TEST(CApi, HostProvidedVramIsUsed) {
    std::vector<uint8_t> backing(2 << 20);
    simtgpu_sim_config c{};
    c.struct_size = sizeof c;
    c.vram_bytes = backing.size();
    c.vram = backing.data();
    simtgpu_sim *sim = nullptr;
    ASSERT_EQ(simtgpu_sim_create(&c, &sim, nullptr, 0), 0);
    uint64_t size = 0;
    EXPECT_EQ(simtgpu_sim_vram(sim, &size), backing.data());
    EXPECT_EQ(size, backing.size());
    simtgpu_sim_destroy(sim);
}

TEST(CApi, LargeVramCostsNothingUntilTouched) {
    simtgpu_sim_config c{};
    c.vram_bytes = 64ull << 30; // 64 GiB: only address space
    DeviceHarness h(c);
    ASSERT_NE(h.sim, nullptr);
    EXPECT_EQ(h.vram_size, 64ull << 30);
    h.vram[h.vram_size - 1] = 1;
    EXPECT_EQ(h.reg(SIMTGPU_REG_VRAM_SIZE_HI), 16u);
    EXPECT_EQ(h.reg(SIMTGPU_REG_VRAM_SIZE_LO), 0u);
}

// Resident host memory of this process, from /proc/self/statm.
uint64_t resident_bytes() {
    std::FILE *f = std::fopen("/proc/self/statm", "r");
    unsigned long size = 0, resident = 0;
    if (f) {
        if (std::fscanf(f, "%lu %lu", &size, &resident) != 2)
            resident = 0;
        std::fclose(f);
    }
    return uint64_t(resident) * uint64_t(sysconf(_SC_PAGESIZE));
}

// The default VRAM is a real GPU's 16 GiB; clearing returns whole pages to
// the host, so allocating and freeing most of it commits nothing lasting.
TEST(CApi, DefaultVramIsSixteenGibAndClearingReturnsPages) {
    DeviceHarness h;
    ASSERT_NE(h.sim, nullptr);
    EXPECT_EQ(h.vram_size, 16ull << 30);
    constexpr uint64_t kBytes = 64ull << 20, kOffset = (8ull << 30) + 100;
    const uint64_t before = resident_bytes();
    std::memset(h.vram + kOffset, 0xa5, kBytes);
    const uint64_t touched = resident_bytes();
    EXPECT_GE(touched, before + kBytes - (4ull << 20));
    ASSERT_EQ(simtgpu_sim_vram_clear(h.sim, kOffset, kBytes), 0);
    EXPECT_LE(resident_bytes(), touched - kBytes + (4ull << 20));
    for (uint64_t i = 0; i < kBytes; i += 4093) // unaligned edges too
        ASSERT_EQ(h.vram[kOffset + i], 0) << i;
    EXPECT_EQ(h.vram[kOffset + kBytes - 1], 0);
    EXPECT_EQ(simtgpu_sim_vram_clear(h.sim, h.vram_size - 4096, 8192), -EINVAL);
}

TEST(CApi, IdentityRegistersDescribeTheConfiguration) {
    simtgpu_sim_config c{};
    c.num_sms = 3;
    c.warps_per_sm = 12;
    c.warp_size = 16;
    c.ctas_per_sm = 5;
    c.shared_bytes_per_sm = 32768;
    c.clock_khz = 750000;
    DeviceHarness h(c);
    EXPECT_EQ(h.reg(SIMTGPU_REG_ID), SIMTGPU_ID_MAGIC);
    EXPECT_EQ(h.reg(SIMTGPU_REG_HW_VERSION), uint32_t(SIMTGPU_HW_VERSION));
    EXPECT_EQ(h.reg(SIMTGPU_REG_ARCH), uint32_t(SIMTGPU_ARCH_NEWEST));
    EXPECT_EQ(h.reg(SIMTGPU_REG_CAPS),
              uint32_t(SIMTGPU_CAP_FP64 | SIMTGPU_CAP_ATOMICS | SIMTGPU_CAP_HOST_PTE |
                       SIMTGPU_CAP_TIMESTAMP | SIMTGPU_CAP_VRAM_CLEAR |
                       SIMTGPU_CAP_REPLAYABLE_FAULTS));
    EXPECT_EQ(h.reg(SIMTGPU_REG_NUM_SMS), 3u);
    EXPECT_EQ(h.reg(SIMTGPU_REG_WARPS_PER_SM), 12u);
    EXPECT_EQ(h.reg(SIMTGPU_REG_WARP_SIZE), 16u);
    EXPECT_EQ(h.reg(SIMTGPU_REG_CTAS_PER_SM), 5u);
    EXPECT_EQ(h.reg(SIMTGPU_REG_SHARED_PER_SM), 32768u);
    EXPECT_EQ(h.reg(SIMTGPU_REG_MAX_THREADS_PER_CTA), 12u * 16u);
    EXPECT_EQ(h.reg(SIMTGPU_REG_CLOCK_KHZ), 750000u);
    EXPECT_EQ(h.reg(SIMTGPU_REG_NUM_RINGS), uint32_t(SIMTGPU_NUM_RINGS));
    EXPECT_EQ(h.reg(SIMTGPU_REG_MAX_STACK_PER_THREAD), 1u << 20);
    EXPECT_EQ(h.reg(SIMTGPU_REG_VRAM_SIZE_LO), 0u); // the default 16 GiB
    EXPECT_EQ(h.reg(SIMTGPU_REG_VRAM_SIZE_HI), 4u);
    EXPECT_EQ(h.reg(SIMTGPU_REG_TEMPERATURE), 35000u);
    EXPECT_EQ(h.reg(SIMTGPU_REG_STATUS), 0u);

    DeviceHarness no_dma({}, false);
    EXPECT_EQ(no_dma.reg(SIMTGPU_REG_CAPS) & SIMTGPU_CAP_HOST_PTE, 0u);
}

TEST(CApi, BadAccessesAreIgnoredAndCounted) {
    DeviceHarness h;
    h.write_reg(SIMTGPU_REG_SCRATCH, 0xfeed);
    EXPECT_EQ(h.reg(SIMTGPU_REG_SCRATCH), 0xfeedu);
    simtgpu_sim_mmio_write(h.sim, SIMTGPU_REG_SCRATCH, 1, 8);  // wrong size
    simtgpu_sim_mmio_write(h.sim, SIMTGPU_REG_SCRATCH + 2, 1, 4); // misaligned
    EXPECT_EQ(simtgpu_sim_mmio_read(h.sim, SIMTGPU_REG_SCRATCH, 2), 0u);
    EXPECT_EQ(simtgpu_sim_mmio_read(h.sim, SIMTGPU_REGS_SIZE, 4), 0u); // beyond BAR0
    h.write_reg(SIMTGPU_REG_ID, 0);                                    // read-only
    h.write_reg(SIMTGPU_RING_BASE(0) + SIMTGPU_RING_HEAD, 8);          // read-only
    EXPECT_EQ(h.reg(SIMTGPU_REG_IRQ_ACK), 0u);                         // write-only
    EXPECT_EQ(h.reg(0x9000), 0u);                                      // unassigned
    EXPECT_EQ(h.reg(SIMTGPU_REG_SCRATCH), 0xfeedu);
    EXPECT_EQ(h.reg(SIMTGPU_REG_ID), SIMTGPU_ID_MAGIC);
    EXPECT_EQ(h.ring_reg(0, SIMTGPU_RING_HEAD), 0u);

    char *json = simtgpu_sim_stats_json(h.sim);
    ASSERT_NE(json, nullptr);
    EXPECT_EQ(nlohmann::json::parse(json)["bad_mmio_accesses"], 8);
    simtgpu_sim_free_string(json);
}

TEST(CApi, StatisticsAgreeInBothForms) {
    DeviceHarness h;
    const uint64_t va = 0x1000'0000;
    h.map_new(va, 4096, SIMTGPU_PTE_R | SIMTGPU_PTE_W);
    h.setup_ring(0);
    h.submit({pkt_set_context(1, h.root), pkt_fill(va, 64, 1), pkt_timestamp(va)});
    const simtgpu_sim_stats s = h.stats();
    EXPECT_EQ(s.num_sms, 4u);
    EXPECT_GT(s.cycles, 0u);
    // Reading _LO latches _HI, so the pair is one consistent value.
    const uint64_t cycles = h.reg(SIMTGPU_REG_COUNTER(SIMTGPU_COUNTER_cycles)) |
                            uint64_t(h.reg(SIMTGPU_REG_COUNTER(SIMTGPU_COUNTER_cycles) + 4)) << 32;
    EXPECT_EQ(cycles, s.cycles);

    char *text = simtgpu_sim_stats_json(h.sim);
    auto j = nlohmann::json::parse(text);
    simtgpu_sim_free_string(text);
    EXPECT_EQ(j["cycles"], s.cycles);
    EXPECT_EQ(j["launches"], s.launches);
    EXPECT_EQ(j["dma_bytes"], s.dma_bytes);
    EXPECT_EQ(j["num_sms"], 4);

    // An older, smaller struct gets only the fields it has.
    simtgpu_sim_stats small{};
    small.struct_size = offsetof(simtgpu_sim_stats, ctas);
    small.ctas = 12345;
    EXPECT_EQ(simtgpu_sim_get_stats(h.sim, &small), 0);
    EXPECT_EQ(small.num_sms, 4u);
    EXPECT_EQ(small.ctas, 12345u);
    simtgpu_sim_stats none{};
    EXPECT_EQ(simtgpu_sim_get_stats(h.sim, &none), -EINVAL);
}

} // namespace
} // namespace simtgpu::test
