// simt-smi and simt-doctor as programs, on the in-process transport (and,
// on a host without the device, on the missing kernel driver). The device's
// shape comes from the simulator's environment knobs, set here.
#include "system_info.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/wait.h>

namespace {

struct Outcome {
    int status;
    std::string output;
};

Outcome run(const std::string &command) {
    Outcome r{-1, ""};
    FILE *p = popen((command + " 2>&1").c_str(), "r");
    if (!p)
        return r;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), p)) > 0)
        r.output.append(buf, n);
    int status = pclose(p);
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

const std::string kSim = "env SIMTGPU_TRANSPORT=sim ";

TEST(SimtSmi, QueryReportsTheSimulatedDevicesShape) {
    Outcome r = run(kSim + "SIMTGPU_SIM_VRAM_MB=64 SIMTGPU_SIM_SMS=3 SIMTGPU_SIM_ARCH=1 " SIMT_SMI
                       " --query-gpu=transport,arch,memory.total,sm_count,pci.bus_id "
                       "--format=csv,noheader,nounits");
    EXPECT_EQ(r.status, 0) << r.output;
    EXPECT_EQ(r.output, "sim, simt_1, 64, 3, [N/A]\n");
}

TEST(SimtSmi, MemoryUsedPlusFreeIsTotal) {
    Outcome r = run(kSim + "SIMTGPU_SIM_VRAM_MB=128 " SIMT_SMI
                       " --query-gpu=memory.total,memory.used,memory.free --format=csv,noheader,nounits");
    ASSERT_EQ(r.status, 0) << r.output;
    unsigned total = 0, used = 0, free = 0;
    ASSERT_EQ(std::sscanf(r.output.c_str(), "%u, %u, %u", &total, &used, &free), 3) << r.output;
    EXPECT_EQ(total, 128u);
    EXPECT_LE(used, total);
    // Both are rounded down to MiB from bytes.
    EXPECT_GE(used + free, total - 1);
    EXPECT_LE(used + free, total);
}

TEST(SimtSmi, TableAndFullReport) {
    Outcome table = run(kSim + SIMT_SMI);
    EXPECT_EQ(table.status, 0) << table.output;
    EXPECT_NE(table.output.find("SIMT-SMI"), std::string::npos) << table.output;
    EXPECT_NE(table.output.find("in-process"), std::string::npos) << table.output;
    Outcome full = run(kSim + SIMT_SMI " -q");
    EXPECT_EQ(full.status, 0) << full.output;
    EXPECT_NE(full.output.find("FB Memory Usage"), std::string::npos) << full.output;
}

TEST(SimtSmi, LoopRepeatsWithOneHeader) {
    Outcome r = run(kSim + "timeout -s INT 3.5 " SIMT_SMI " -l 1 --query-gpu=index,arch --format=csv");
    size_t headers = 0, lines = 0, pos = 0;
    while ((pos = r.output.find('\n', pos)) != std::string::npos) {
        ++lines;
        ++pos;
    }
    for (pos = 0; (pos = r.output.find("index, arch", pos)) != std::string::npos; ++pos)
        ++headers;
    EXPECT_EQ(headers, 1u) << r.output;
    EXPECT_GE(lines, 3u) << r.output; // header and at least two samples in 3.5 s
}

TEST(SimtSmi, BadOptionsAreUsageErrors) {
    EXPECT_EQ(run(kSim + SIMT_SMI " --query-gpu=fan.speed --format=csv").status, 2);
    EXPECT_EQ(run(kSim + SIMT_SMI " --query-gpu=name").status, 2);
    EXPECT_EQ(run(kSim + SIMT_SMI " -l 0").status, 2);
}

TEST(SimtSmi, WithoutTheKernelDriverSaysNoDeviceFound) {
    if (!simtgpu::tools::find_simtgpu_functions("/sys").empty())
        GTEST_SKIP() << "this machine has a simtgpu device";
    Outcome r = run("env -u SIMTGPU_TRANSPORT " SIMT_SMI);
    EXPECT_EQ(r.status, 9) << r.output;
    EXPECT_NE(r.output.find("no simtgpu device found"), std::string::npos) << r.output;
}

#ifndef SIMT_DOCTOR_MISSING
TEST(SimtDoctor, InProcessChainPasses) {
    Outcome r = run(kSim + SIMT_DOCTOR);
    EXPECT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("[ ok ] compiler target"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("[ ok ] tiny kernel"), std::string::npos) << r.output;
}

TEST(SimtDoctor, OldDeviceFailsTheCompilerCheckButRunsTheTinyKernel) {
    Outcome r = run(kSim + "SIMTGPU_SIM_ARCH=1 " SIMT_DOCTOR);
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_NE(r.output.find("[FAIL] compiler target"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("-arch=simt_1"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("[ ok ] tiny kernel"), std::string::npos) << r.output;
}

TEST(SimtDoctor, WithoutSimtccTheBuildsDefaultImageIsJudged) {
    // A copy away from build/bin, with a PATH that has no simtcc: as in the
    // guest, where the compiler is not in the image.
    char dir[] = "/tmp/tools-doctor.XXXXXX";
    ASSERT_TRUE(mkdtemp(dir));
    std::string copy = std::string(dir) + "/simt-doctor";
    ASSERT_EQ(run("cp " SIMT_DOCTOR " " + copy).status, 0);
    Outcome ok = run(kSim + "PATH=/usr/bin:/bin " + copy);
    Outcome old = run(kSim + "SIMTGPU_SIM_ARCH=1 PATH=/usr/bin:/bin " + copy);
    run(std::string("rm -rf ") + dir);
    EXPECT_EQ(ok.status, 0) << ok.output;
    EXPECT_NE(ok.output.find("simtcc is neither beside simt-doctor nor on PATH"), std::string::npos)
        << ok.output;
    EXPECT_NE(ok.output.find("[ ok ] compiler target: simtcc (the build's) builds simt_2"),
              std::string::npos)
        << ok.output;
    EXPECT_EQ(old.status, 1) << old.output;
    EXPECT_NE(old.output.find("[FAIL] compiler target"), std::string::npos) << old.output;
}

TEST(SimtDoctor, WithoutTheDeviceTheFirstCheckFailsWithItsFix) {
    if (!simtgpu::tools::find_simtgpu_functions("/sys").empty())
        GTEST_SKIP() << "this machine has a simtgpu device";
    Outcome r = run("env -u SIMTGPU_TRANSPORT " SIMT_DOCTOR);
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_NE(r.output.find("[FAIL] PCI device: no PCI device 1234:5347"), std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("fix: "), std::string::npos) << r.output;
}
#endif

} // namespace
