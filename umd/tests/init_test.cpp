// What simtgpuInit says when it cannot find a usable device. Each case runs
// in a fresh process (a death test), since initialisation happens once.
#include "simtgpu/simtgpu.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/stat.h>

namespace {

// Runs simtgpuInit in a child with `transport` and exits 0 when the result
// and its detail are as expected.
void init_and_check(const char *transport, simtgpuResult expect_a, simtgpuResult expect_b,
                    const char *detail_word) {
    setenv("SIMTGPU_TRANSPORT", transport, 1);
    simtgpuResult r = simtgpuInit(0);
    std::string detail = simtgpuGetErrorDetail();
    std::fprintf(stderr, "%s: %s\n", simtgpuGetErrorName(r), detail.c_str());
    bool ok = (r == expect_a || r == expect_b) && detail.find(detail_word) != std::string::npos;
    // The failure is remembered: later calls say the same.
    int count = -1;
    ok &= simtgpuDeviceGetCount(&count) == r;
    std::exit(ok ? 0 : 1);
}

TEST(InitDeathTest, UnknownTransportIsRefused) {
    EXPECT_EXIT(init_and_check("bogus", SIMTGPU_ERROR_INVALID_VALUE, SIMTGPU_ERROR_INVALID_VALUE,
                               "drm or sim"),
                ::testing::ExitedWithCode(0), "");
}

TEST(InitDeathTest, RenderNodeMissingSaysHowToFixIt) {
    struct stat st;
    if (stat("/sys/module/simtgpu", &st) == 0)
        GTEST_SKIP() << "the simtgpu kernel module is loaded here";
    // The build machine has neither the PCI device nor the module.
    EXPECT_EXIT(init_and_check("drm", SIMTGPU_ERROR_NO_DEVICE, SIMTGPU_ERROR_NO_DEVICE,
                               "no simtgpu device found"),
                ::testing::ExitedWithCode(0), "");
}

TEST(InitDeathTest, InProcessDeviceInitialises) {
    EXPECT_EXIT(
        {
            setenv("SIMTGPU_TRANSPORT", "sim", 1);
            simtgpuResult r = simtgpuInit(0);
            simtgpuDeviceProperties p{};
            bool ok = r == SIMTGPU_SUCCESS &&
                      simtgpuDeviceGetProperties(&p, 0) == SIMTGPU_SUCCESS &&
                      std::string(p.transport) == "sim";
            std::exit(ok ? 0 : 1);
        },
        ::testing::ExitedWithCode(0), "");
}

} // namespace

int main(int argc, char **argv) {
    ::testing::InitGoogleTest(&argc, argv);
    // Re-executes the binary for each death test: a fresh, uninitialised driver.
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    return RUN_ALL_TESTS();
}
