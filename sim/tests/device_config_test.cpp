// DeviceConfig::from: defaults for zeros, every range, policy names.
#include "config.h"

#include "simtgpu/hw.h"

#include <gtest/gtest.h>

namespace simtgpu::sim {
namespace {

simtgpu_sim_config base() {
    simtgpu_sim_config c{};
    c.struct_size = sizeof c;
    return c;
}

// The error names the field, so a person knows what to fix.
void expect_refused(const simtgpu_sim_config &c, const std::string &field) {
    auto r = DeviceConfig::from(c);
    ASSERT_FALSE(r) << field;
    EXPECT_NE(r.error().find(field), std::string::npos) << r.error();
}

TEST(DeviceConfig, ZerosSelectTheDocumentedDefaults) {
    auto r = DeviceConfig::from(base());
    ASSERT_TRUE(r) << r.error();
    EXPECT_EQ(r->arch, uint32_t(SIMTGPU_ARCH_NEWEST));
    EXPECT_EQ(r->vram_bytes, 16ull << 30);
    EXPECT_EQ(r->num_sms, 4u);
    // A Volta-class SM: 64 warp slots of 32 lanes hold two 1024-thread CTAs.
    EXPECT_EQ(r->warps_per_sm, 64u);
    EXPECT_EQ(r->warp_size, 32u);
    EXPECT_EQ(r->ctas_per_sm, 32u);
    EXPECT_EQ(r->shared_bytes_per_sm, 96u << 10);
    EXPECT_EQ(r->clock_khz, 1000000u);
    EXPECT_EQ(r->mem_latency, 20u);
    EXPECT_EQ(r->host_threads, 1u);
    EXPECT_EQ(r->warp_scheduler, "round-robin");
    EXPECT_EQ(r->reconvergence, "min-pc");
    EXPECT_EQ(r->max_threads_per_cta, 1024u);
}

TEST(DeviceConfig, SmallerSmsCapTheDefaultLargestCta) {
    auto c = base();
    c.warps_per_sm = 16; // 1024 threads would not fit in 16 warps of 32
    auto r = DeviceConfig::from(c);
    ASSERT_TRUE(r) << r.error();
    EXPECT_EQ(r->max_threads_per_cta, 16u * 32u);
    c.max_threads_per_cta = 16 * 32 + 1;
    r = DeviceConfig::from(c);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().find("max_threads_per_cta = 513"), std::string::npos) << r.error();
    EXPECT_NE(r.error().find("1..512"), std::string::npos) << r.error();
}

TEST(DeviceConfig, GivenValuesAreKept) {
    auto c = base();
    c.arch = SIMTGPU_ARCH_SIMT1;
    c.vram_bytes = 6ull << 20;
    c.num_sms = 7;
    c.warps_per_sm = 48;
    c.warp_size = 64;
    c.ctas_per_sm = 3;
    c.shared_bytes_per_sm = 1000;
    c.max_threads_per_cta = 2048;
    c.clock_khz = 1500000;
    c.mem_latency = 1;
    c.host_threads = 3;
    c.warp_scheduler = "greedy";
    c.reconvergence = "min-pc";
    auto r = DeviceConfig::from(c);
    ASSERT_TRUE(r) << r.error();
    EXPECT_EQ(r->arch, 1u);
    EXPECT_EQ(r->vram_bytes, 6ull << 20);
    EXPECT_EQ(r->num_sms, 7u);
    EXPECT_EQ(r->warps_per_sm, 48u);
    EXPECT_EQ(r->warp_size, 64u);
    EXPECT_EQ(r->ctas_per_sm, 3u);
    EXPECT_EQ(r->shared_bytes_per_sm, 1000u);
    EXPECT_EQ(r->max_threads_per_cta, 2048u);
    EXPECT_EQ(r->clock_khz, 1500000u);
    EXPECT_EQ(r->mem_latency, 1u);
    EXPECT_EQ(r->host_threads, 3u);
    EXPECT_EQ(r->warp_scheduler, "greedy");
}

TEST(DeviceConfig, EveryRangeIsChecked) {
    auto c = base();
    c.struct_size = kSimConfigAbi3Size - 8;
    expect_refused(c, "struct_size");
    c.struct_size = kSimConfigAbi3Size; // ABI 3's struct, before `config`
    EXPECT_TRUE(DeviceConfig::from(c));

    c = base(), c.arch = SIMTGPU_ARCH_NEWEST + 1;
    expect_refused(c, "arch");
    c = base(), c.vram_bytes = (2ull << 20) + 4096;
    expect_refused(c, "vram_bytes");
    c = base(), c.vram_bytes = 1ull << 41;
    expect_refused(c, "vram_bytes");
    c = base(), c.num_sms = 1025;
    expect_refused(c, "num_sms");
    c = base(), c.warps_per_sm = 257;
    expect_refused(c, "warps_per_sm");
    c = base(), c.warp_size = 65;
    expect_refused(c, "warp_size");
    c = base(), c.ctas_per_sm = 257;
    expect_refused(c, "ctas_per_sm");
    c = base(), c.shared_bytes_per_sm = (16u << 20) + 1;
    expect_refused(c, "shared_bytes_per_sm");
    c = base(), c.clock_khz = 10'000'001;
    expect_refused(c, "clock_khz");
    c = base(), c.mem_latency = 100'001;
    expect_refused(c, "mem_latency");
    c = base(), c.host_threads = 257;
    expect_refused(c, "host_threads");
    c = base(), c.warps_per_sm = 2, c.warp_size = 8, c.max_threads_per_cta = 17;
    expect_refused(c, "max_threads_per_cta");
}

TEST(DeviceConfig, PolicyNamesAreChecked) {
    auto c = base();
    c.warp_scheduler = "fastest";
    expect_refused(c, "warp_scheduler");
    c = base();
    c.reconvergence = "stack";
    expect_refused(c, "reconvergence");
    auto r = DeviceConfig::from(c);
    EXPECT_NE(r.error().find("\"min-pc\""), std::string::npos) << "lists what is allowed";
}

TEST(DeviceConfig, DmaCallbacksComeInPairs) {
    auto c = base();
    c.dma_read = [](void *, uint64_t, void *, uint64_t) { return 0; };
    expect_refused(c, "dma_write");
}

TEST(DeviceConfig, HostAtomicsNeedTheDmaCallbacks) {
    auto c = base();
    c.dma_cmpxchg = [](void *, uint64_t, uint32_t, uint64_t, uint64_t, uint64_t *) { return 0; };
    expect_refused(c, "dma_cmpxchg");
}

} // namespace
} // namespace simtgpu::sim
