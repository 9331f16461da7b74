// The sysfs and fdinfo readers against fake trees laid out as the kernel
// lays them out (PCI devices, the simtgpu driver's attributes, DRM fdinfo).
#include "system_info.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace simtgpu::tools;

namespace {

class FakeTree : public ::testing::Test {
protected:
    void SetUp() override {
        char dir[] = "/tmp/tools-test.XXXXXX";
        root_ = mkdtemp(dir);
    }
    void TearDown() override { fs::remove_all(root_); }
    void write(const std::string &path, const std::string &text) {
        fs::path p = root_ / path;
        fs::create_directories(p.parent_path());
        std::ofstream(p) << text;
    }
    fs::path root_;
};

std::string fdinfo(const std::string &driver, const std::string &pdev, int client, int vram_kib,
                   int low_ns, int normal_ns) {
    return "pos:\t0\nflags:\t02100002\nmnt_id:\t15\nino:\t5\n"
           "drm-driver:\t" + driver + "\ndrm-pdev:\t" + pdev +
           "\ndrm-client-id:\t" + std::to_string(client) +
           "\ndrm-engine-low:\t" + std::to_string(low_ns) +
           " ns\ndrm-engine-normal:\t" + std::to_string(normal_ns) +
           " ns\ndrm-engine-high:\t0 ns\ndrm-memory-vram:\t" + std::to_string(vram_kib) + " KiB\n";
}

TEST_F(FakeTree, FindsOnlySimtgpuFunctionsWithDriverAndRenderNode) {
    std::string gpu = "bus/pci/devices/0000:01:00.0/";
    write(gpu + "vendor", "0x1234\n");
    write(gpu + "device", "0x5347\n");
    write(gpu + "revision", "0x01\n");
    write(gpu + "class", "0x030200\n");
    fs::create_directories(root_ / "bus/pci/drivers/simtgpu");
    fs::create_symlink("../../../bus/pci/drivers/simtgpu", root_ / gpu / "driver");
    fs::create_directories(root_ / gpu / "drm/card0");
    fs::create_directories(root_ / gpu / "drm/renderD128");
    // Another vendor's device, and one with our vendor but another device ID.
    write("bus/pci/devices/0000:00:01.0/vendor", "0x8086\n");
    write("bus/pci/devices/0000:00:01.0/device", "0x5347\n");
    write("bus/pci/devices/0000:00:02.0/vendor", "0x1234\n");
    write("bus/pci/devices/0000:00:02.0/device", "0x1111\n");
    // A second simtgpu without a driver.
    write("bus/pci/devices/0000:02:00.0/vendor", "0x1234\n");
    write("bus/pci/devices/0000:02:00.0/device", "0x5347\n");

    auto found = find_simtgpu_functions(root_.string());
    ASSERT_EQ(found.size(), 2u);
    EXPECT_EQ(found[0].address, "0000:01:00.0");
    EXPECT_EQ(found[0].vendor, 0x1234u);
    EXPECT_EQ(found[0].device, 0x5347u);
    EXPECT_EQ(found[0].revision, 1u);
    EXPECT_EQ(found[0].class_code, 0x030200u);
    EXPECT_EQ(found[0].driver, "simtgpu");
    EXPECT_EQ(found[0].render_node, "renderD128");
    EXPECT_EQ(found[1].address, "0000:02:00.0");
    EXPECT_EQ(found[1].driver, "");
    EXPECT_EQ(found[1].render_node, "");
}

TEST_F(FakeTree, NoPciTreeMeansNoFunctions) {
    EXPECT_TRUE(find_simtgpu_functions((root_ / "missing").string()).empty());
}

TEST_F(FakeTree, ReadsTheDriverAttributesAndHwmonTemperature) {
    std::string dir = "bus/pci/devices/0000:01:00.0/";
    write(dir + "vram_total", "268435456\n");
    write(dir + "vram_used", "1114112\n");
    write(dir + "utilisation", "42\n");
    write(dir + "sm_count", "4\n");
    write(dir + "arch", "simt_2\n");
    write(dir + "hwmon/hwmon3/temp1_input", "45250\n");
    PciFunction f;
    f.sysfs_path = (root_ / dir).string();
    DriverAttributes a = read_driver_attributes(f);
    EXPECT_EQ(a.vram_total, 268435456u);
    EXPECT_EQ(a.vram_used, 1114112u);
    EXPECT_EQ(a.utilisation_percent, 42u);
    EXPECT_EQ(a.sm_count, 4u);
    EXPECT_EQ(a.arch, "simt_2");
    EXPECT_EQ(a.temperature_mdeg, 45250);
}

TEST_F(FakeTree, MissingAttributesAreAbsentNotZero) {
    PciFunction f;
    f.sysfs_path = (root_ / "nothing").string();
    DriverAttributes a = read_driver_attributes(f);
    EXPECT_FALSE(a.vram_total);
    EXPECT_FALSE(a.utilisation_percent);
    EXPECT_FALSE(a.temperature_mdeg);
}

// The driver's counters/ directory has a file per counter of counters.h;
// each lands at its SIMTGPU_COUNTER_* index, and one the driver lacks (an
// older device serves fewer) is absent, not zero.
TEST_F(FakeTree, ReadsEveryCounterOfTheListByName) {
    const std::string dir = "bus/pci/devices/0000:01:00.0/";
    uint64_t value = 1000;
#define SIMTGPU_X(name, unit, ncu, what)                                                           \
    write(dir + "counters/" #name, std::to_string(value++) + "\n");
    SIMTGPU_COUNTERS(SIMTGPU_X)
#undef SIMTGPU_X
    fs::remove(root_ / dir / "counters/atomic_ops");
    PciFunction f;
    f.sysfs_path = (root_ / dir).string();
    DriverAttributes a = read_driver_attributes(f);
    for (uint32_t i = 0; i < SIMTGPU_NUM_COUNTERS; ++i) {
        if (i == SIMTGPU_COUNTER_atomic_ops)
            EXPECT_FALSE(a.counters[i]);
        else
            EXPECT_EQ(a.counters[i], std::optional<uint64_t>(1000 + i)) << "counter " << i;
    }
}

TEST(DrmFdinfo, ParsesTheKeysTheDriverPrints) {
    auto info = parse_drm_fdinfo(fdinfo("simtgpu", "0000:01:00.0", 7, 1088, 5, 1200));
    ASSERT_TRUE(info);
    EXPECT_EQ(info->driver, "simtgpu");
    EXPECT_EQ(info->pdev, "0000:01:00.0");
    EXPECT_EQ(info->client_id, 7u);
    EXPECT_EQ(info->vram_kib, 1088u);
    EXPECT_EQ(info->engine_ns, 1205u);
}

TEST(DrmFdinfo, MemoryUnitsAreConvertedToKiB) {
    auto mib = parse_drm_fdinfo("drm-driver:\tx\ndrm-memory-vram:\t3 MiB\n");
    ASSERT_TRUE(mib);
    EXPECT_EQ(mib->vram_kib, 3u * 1024);
    auto bytes = parse_drm_fdinfo("drm-driver:\tx\ndrm-memory-vram:\t8192\n");
    ASSERT_TRUE(bytes);
    EXPECT_EQ(bytes->vram_kib, 8u);
}

TEST(DrmFdinfo, AFileThatIsNotDrmIsRejected) {
    EXPECT_FALSE(parse_drm_fdinfo("pos:\t0\nflags:\t0100002\nmnt_id:\t21\n"));
}

TEST_F(FakeTree, ClientsAreSummedPerProcessAndDupedFdsCountOnce) {
    std::string pdev = "0000:01:00.0";
    // pid 100: two clients, one of them reachable through two fds.
    write("100/comm", "matmul\n");
    write("100/fdinfo/3", fdinfo("simtgpu", pdev, 1, 1024, 10, 20));
    write("100/fdinfo/4", fdinfo("simtgpu", pdev, 1, 1024, 10, 20));
    write("100/fdinfo/5", fdinfo("simtgpu", pdev, 2, 64, 0, 5));
    // pid 200: another driver's node and another simtgpu device only.
    write("200/comm", "Xorg\n");
    write("200/fdinfo/3", fdinfo("i915", pdev, 9, 500, 0, 0));
    write("200/fdinfo/4", fdinfo("simtgpu", "0000:02:00.0", 3, 500, 0, 0));
    // pid 300: a plain file.
    write("300/comm", "bash\n");
    write("300/fdinfo/0", "pos:\t0\nflags:\t02\n");
    write("self/comm", "ignored\n"); // not a pid directory

    auto procs = find_client_processes(root_.string(), "simtgpu", pdev);
    ASSERT_EQ(procs.size(), 1u);
    EXPECT_EQ(procs[0].pid, 100);
    EXPECT_EQ(procs[0].command, "matmul");
    EXPECT_EQ(procs[0].clients, 2u);
    EXPECT_EQ(procs[0].vram_kib, 1024u + 64u);
    EXPECT_EQ(procs[0].engine_ns, 10u + 20u + 5u);
}

TEST(UapiVersion, MajorAndMinorFromTheEncodedValue) {
    EXPECT_EQ(uapi_version_string((1u << 16) | 0), "1.0");
    EXPECT_EQ(uapi_version_string((2u << 16) | 13), "2.13");
}

} // namespace

TEST(SmActivity, BusySmCyclesOverTheCyclesTheDeviceRan) {
    DriverAttributes before, after;
    before.sm_count = after.sm_count = 4;
    before.counters[SIMTGPU_COUNTER_cycles] = 1000;
    before.counters[SIMTGPU_COUNTER_sm_busy_cycles] = 2000;
    after.counters[SIMTGPU_COUNTER_cycles] = 1000 + 500; // 500 cycles x 4 SMs = 2000 SM cycles
    after.counters[SIMTGPU_COUNTER_sm_busy_cycles] = 2000 + 1500; // of which 1500 busy
    EXPECT_EQ(sm_activity_percent(before, after), std::optional<uint64_t>(75));
}

TEST(SmActivity, NoFigureWithoutWorkOrAfterAReset) {
    DriverAttributes before, after;
    before.sm_count = after.sm_count = 2;
    before.counters[SIMTGPU_COUNTER_cycles] = after.counters[SIMTGPU_COUNTER_cycles] = 100;
    before.counters[SIMTGPU_COUNTER_sm_busy_cycles] =
        after.counters[SIMTGPU_COUNTER_sm_busy_cycles] = 50;
    EXPECT_FALSE(sm_activity_percent(before, after)) << "the device did not run";
    after.counters[SIMTGPU_COUNTER_cycles] = 10;
    after.counters[SIMTGPU_COUNTER_sm_busy_cycles] = 5;
    EXPECT_FALSE(sm_activity_percent(before, after)) << "counters restarted";
    EXPECT_FALSE(sm_activity_percent(DriverAttributes{}, DriverAttributes{}));
}
