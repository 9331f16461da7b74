// What libsimtgpu and the CUDA runtime report of the device (simt-smi,
// deviceQuery) against the configuration file the device was built from,
// read here on its own (preset_config.h). ctest runs it once per preset on
// the in-process transport; the guest runs it on the render node against
// the QEMU device's config=.
#include "preset_config.h"
#include "simtgpu/simtgpu.h"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

namespace {

using simtgpu::umd::test::expected_device;
using simtgpu::umd::test::ExpectedDevice;

TEST(DeviceProperties, LibsimtgpuReportsThePreset) {
    const ExpectedDevice want = expected_device();
    ASSERT_TRUE(want.error.empty()) << want.error;
    ASSERT_EQ(simtgpuInit(0), SIMTGPU_SUCCESS) << simtgpuGetErrorDetail();
    simtgpuDeviceProperties p{};
    ASSERT_EQ(simtgpuDeviceGetProperties(&p, 0), SIMTGPU_SUCCESS) << simtgpuGetErrorDetail();
    SCOPED_TRACE("preset " + want.name);
    EXPECT_EQ(p.num_sms, want.num_sms);
    EXPECT_EQ(p.warps_per_sm, want.warps_per_sm);
    EXPECT_EQ(p.warp_size, want.warp_size);
    EXPECT_EQ(p.ctas_per_sm, want.ctas_per_sm);
    EXPECT_EQ(p.shared_per_sm, want.shared_bytes_per_sm);
    EXPECT_EQ(p.clock_khz, want.clock_khz);
    EXPECT_EQ(p.l2_size, want.l2_bytes);
    EXPECT_EQ(p.mem_bus_width, want.bus_width_bits);
    EXPECT_EQ(p.mem_clock_khz, want.mem_clock_khz);
    EXPECT_EQ(p.l2_persisting_max, want.l2_persisting_max);
    EXPECT_EQ(p.l2_window_max, want.l2_window_max);
}

TEST(DeviceProperties, CudaDevicePropAndAttributesReportThePreset) {
    const ExpectedDevice want = expected_device();
    ASSERT_TRUE(want.error.empty()) << want.error;
    cudaDeviceProp prop{};
    ASSERT_EQ(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
    SCOPED_TRACE("preset " + want.name);
    EXPECT_EQ(prop.multiProcessorCount, int(want.num_sms));
    EXPECT_EQ(prop.clockRate, int(want.clock_khz));
    EXPECT_EQ(prop.warpSize, int(want.warp_size));
    EXPECT_EQ(prop.maxThreadsPerMultiProcessor, int(want.warps_per_sm * want.warp_size));
    EXPECT_EQ(prop.maxBlocksPerMultiProcessor, int(want.ctas_per_sm));
    EXPECT_EQ(prop.sharedMemPerMultiprocessor, size_t(want.shared_bytes_per_sm));
    EXPECT_EQ(prop.l2CacheSize, int(want.l2_bytes));
    EXPECT_EQ(prop.memoryBusWidth, int(want.bus_width_bits));
    EXPECT_EQ(prop.memoryClockRate, int(want.mem_clock_khz));
    EXPECT_EQ(prop.persistingL2CacheMaxSize, int(want.l2_persisting_max));
    EXPECT_EQ(prop.accessPolicyMaxWindowSize, int(want.l2_window_max));
    const struct {
        cudaDeviceAttr attr;
        int want;
        const char *name;
    } attrs[] = {
        {cudaDevAttrMultiProcessorCount, int(want.num_sms), "MultiProcessorCount"},
        {cudaDevAttrClockRate, int(want.clock_khz), "ClockRate"},
        {cudaDevAttrL2CacheSize, int(want.l2_bytes), "L2CacheSize"},
        {cudaDevAttrGlobalMemoryBusWidth, int(want.bus_width_bits), "GlobalMemoryBusWidth"},
        {cudaDevAttrMemoryClockRate, int(want.mem_clock_khz), "MemoryClockRate"},
        {cudaDevAttrMaxPersistingL2CacheSize, int(want.l2_persisting_max),
         "MaxPersistingL2CacheSize"},
        {cudaDevAttrMaxAccessPolicyWindowSize, int(want.l2_window_max),
         "MaxAccessPolicyWindowSize"},
    };
    for (const auto &a : attrs) {
        int value = -1;
        ASSERT_EQ(cudaDeviceGetAttribute(&value, a.attr, 0), cudaSuccess) << a.name;
        EXPECT_EQ(value, a.want) << a.name;
    }
}

// The A100's figures (NVIDIA's whitepaper; cudaGetDeviceProperties on an
// A100 40 GB): 108 SMs, 40 MiB of L2 of which 30 MiB may persist, windows
// up to 134213632 bytes.
TEST(DeviceProperties, AmpereIsAnA100) {
    const ExpectedDevice want = expected_device();
    if (want.name != "ampere")
        GTEST_SKIP() << "the ampere preset only (this device: " << want.name << ")";
    cudaDeviceProp prop{};
    ASSERT_EQ(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
    EXPECT_EQ(prop.multiProcessorCount, 108);
    EXPECT_EQ(prop.l2CacheSize, 41943040);
    EXPECT_EQ(prop.persistingL2CacheMaxSize, 31457280);
    EXPECT_EQ(prop.accessPolicyMaxWindowSize, 134213632);
    EXPECT_EQ(prop.clockRate, 1410000);
}

// deviceQuery's "Memory Bandwidth": double data rate over the bus. A V100's
// 877 MHz and 4096 bits give NVIDIA's published 900 GB/s (898 by the formula).
TEST(DeviceProperties, VoltaPeakBandwidthIsTheV100s) {
    const ExpectedDevice want = expected_device();
    if (want.name != "volta")
        GTEST_SKIP() << "the volta preset only (this device: " << want.name << ")";
    cudaDeviceProp prop{};
    ASSERT_EQ(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
    const double gbps = 2.0 * prop.memoryClockRate * 1e3 * (prop.memoryBusWidth / 8) / 1e9;
    EXPECT_NEAR(gbps, 900, 900 * 0.01);
    EXPECT_EQ(prop.l2CacheSize, 6 << 20);
}

} // namespace
