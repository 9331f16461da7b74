// A kernel that never ends is stopped by the driver's job timeout (300 ms
// here, for the in-process driver; kmd's timeout_ms module parameter in the
// guest): the launch fails with SIMTGPU_ERROR_LAUNCH_TIMEOUT, the device is
// reset, and other contexts keep working. A kernel that computes for many
// timeouts is not stopped (the hang rule of simtgpu/driver_policy.h).
#include "simtgpu/simtgpu.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>

using namespace simtgpu::umd::test;

TEST(JobTimeout, EndlessKernelTimesOutAndTheDeviceRecovers) {
    // Read when the device is created, which happens below.
    setenv("SIMTGPU_JOB_TIMEOUT_MS", "300", 0);
    ASSERT_EQ(simtgpuInit(0), SIMTGPU_SUCCESS) << simtgpuGetErrorDetail();
    simtgpuContext ctx, other;
    ASSERT_EQ(simtgpuCtxCreate(&ctx, 0, 0), SIMTGPU_SUCCESS);
    ASSERT_EQ(simtgpuCtxCreate(&other, 0, 0), SIMTGPU_SUCCESS);
    std::vector<uint8_t> image = kernels_image();
    simtgpuModule module;
    ASSERT_EQ(simtgpuModuleLoadData(&module, ctx, image.data(), image.size()), SIMTGPU_SUCCESS)
        << simtgpuGetErrorDetail();
    simtgpuFunction spin;
    ASSERT_EQ(simtgpuModuleGetFunction(&spin, module, "spin"), SIMTGPU_SUCCESS);
    uint32_t unused = 0;
    void *params[] = {&unused};
    ASSERT_EQ(simtgpuLaunchKernel(spin, 1, 1, 1, 32, 1, 1, 0, nullptr, params, nullptr),
              SIMTGPU_SUCCESS);
    EXPECT_EQ(simtgpuCtxSynchronize(ctx), SIMTGPU_ERROR_LAUNCH_TIMEOUT) << simtgpuGetErrorDetail();
    EXPECT_EQ(simtgpuCtxGetStickyError(ctx), SIMTGPU_ERROR_LAUNCH_TIMEOUT);

    // The innocent context still runs work after the reset.
    simtgpuDevicePtr p;
    ASSERT_EQ(simtgpuMemAlloc(other, &p, 4096), SIMTGPU_SUCCESS);
    ASSERT_EQ(simtgpuMemsetD8(other, p, 0x3c, 4096), SIMTGPU_SUCCESS) << simtgpuGetErrorDetail();
    std::vector<uint8_t> back(4096);
    ASSERT_EQ(simtgpuMemcpyDtoH(other, back.data(), p, back.size()), SIMTGPU_SUCCESS);
    for (uint8_t b : back)
        ASSERT_EQ(b, 0x3c);
    simtgpuCtxDestroy(other);
    simtgpuCtxDestroy(ctx);
}

TEST(JobTimeout, KernelThatComputesPastTheTimeoutIsNotAHang) {
    setenv("SIMTGPU_JOB_TIMEOUT_MS", "300", 0);
    ASSERT_EQ(simtgpuInit(0), SIMTGPU_SUCCESS) << simtgpuGetErrorDetail();
    simtgpuContext ctx;
    ASSERT_EQ(simtgpuCtxCreate(&ctx, 0, 0), SIMTGPU_SUCCESS);
    std::vector<uint8_t> image = kernels_image();
    simtgpuModule module;
    ASSERT_EQ(simtgpuModuleLoadData(&module, ctx, image.data(), image.size()), SIMTGPU_SUCCESS)
        << simtgpuGetErrorDetail();
    simtgpuFunction compute;
    ASSERT_EQ(simtgpuModuleGetFunction(&compute, module, "compute"), SIMTGPU_SUCCESS);
    const int threads = 32;
    simtgpuDevicePtr out;
    ASSERT_EQ(simtgpuMemAlloc(ctx, &out, threads * 8), SIMTGPU_SUCCESS);
    // Long enough to span more than three timeouts on this machine: the
    // simulator's speed varies with the host and its load, so a run that
    // ends too soon is repeated with more iterations.
    uint64_t iterations = 6'000'000;
    long long ms = 0;
    for (int attempt = 0; attempt < 4; ++attempt) {
        if (attempt)
            iterations = uint64_t(double(iterations) * 1.25 * (3 * 300) / double(ms ? ms : 1));
        void *params[] = {&out, &iterations};
        const auto start = std::chrono::steady_clock::now();
        ASSERT_EQ(simtgpuLaunchKernel(compute, 1, 1, 1, threads, 1, 1, 0, nullptr, params, nullptr),
                  SIMTGPU_SUCCESS);
        ASSERT_EQ(simtgpuCtxSynchronize(ctx), SIMTGPU_SUCCESS) << simtgpuGetErrorDetail();
        ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                 std::chrono::steady_clock::now() - start)
                 .count();
        if (ms > 3 * 300)
            break;
    }
    EXPECT_GT(ms, 3 * 300) << "the kernel was too short to test the rule";
    std::vector<uint64_t> got(threads);
    ASSERT_EQ(simtgpuMemcpyDtoH(ctx, got.data(), out, threads * 8), SIMTGPU_SUCCESS);
    for (int t = 0; t < threads; ++t) {
        uint64_t v = uint64_t(t);
        for (uint64_t i = 0; i < iterations; ++i)
            v = v * 6364136223846793005ull + 1442695040888963407ull;
        EXPECT_EQ(got[t], v) << "thread " << t;
    }
    simtgpuCtxDestroy(ctx);
}
