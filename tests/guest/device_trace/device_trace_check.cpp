// The QEMU device's own trace (its trace=FILE property, docs/trace.md),
// checked on the host after the guest ran one CUDA program on the kernel
// driver with SIMTGPU_STATS: the file is valid trace-event JSON with the
// structure every trace has (trace_check.h), holds one SM process per SM the
// program saw, and the program's grid, whose CTAs and issued instructions
// are the ones the device counted for that kernel (the statistics come from
// the driver's sysfs counters, not from the trace).
//
// Usage (scripts/guest-tests.sh): device_trace_check, with
//   SIMTGPU_DEVICE_TRACE  the file QEMU wrote
//   SIMTGPU_DEVICE_STATS  the program's SIMTGPU_STATS file
#include "trace_check.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace {

using simtgpu::test::cycles_of;
using simtgpu::test::LoadedTrace;
using simtgpu::test::TraceSlice;

std::string env(const char *name) {
    const char *v = std::getenv(name);
    return v ? v : "";
}

class DeviceTrace : public ::testing::Test {
protected:
    void SetUp() override {
        const std::string trace_path = env("SIMTGPU_DEVICE_TRACE");
        const std::string stats_path = env("SIMTGPU_DEVICE_STATS");
        ASSERT_FALSE(trace_path.empty() || stats_path.empty())
            << "set SIMTGPU_DEVICE_TRACE and SIMTGPU_DEVICE_STATS (scripts/guest-tests.sh does)";
        std::ifstream in(stats_path);
        ASSERT_TRUE(in) << "no statistics at " << stats_path;
        stats = nlohmann::json::parse(in);
        ASSERT_EQ(stats["kernels"].size(), 1u) << "the guest ran one kernel";
        kernel = stats["kernels"].begin().value();
        trace = simtgpu::test::load_trace(trace_path);
    }

    // The grids on the device's rings, every one.
    std::vector<TraceSlice> grids() const {
        std::vector<TraceSlice> out;
        const int64_t rings = trace.pid("GPU rings");
        for (const auto &id : trace.tracks_of(rings, "ring "))
            for (const TraceSlice &s : trace.slices(id))
                out.push_back(s);
        return out;
    }

    nlohmann::json stats, kernel;
    LoadedTrace trace;
};

TEST_F(DeviceTrace, HasOneProcessPerSm) {
    uint32_t sms = 0;
    for (const auto &[pid, name] : trace.processes)
        sms += name.rfind("SM ", 0) == 0;
    EXPECT_EQ(sms, stats["device"]["num_sms"].get<uint32_t>());
    EXPECT_GE(trace.pid("GPU rings"), 0);
}

TEST_F(DeviceTrace, HoldsTheKernelsGridAndItsCtas) {
    const std::vector<TraceSlice> all = grids();
    ASSERT_EQ(all.size(), kernel["launches"].get<size_t>()) << "one grid per launch";
    const TraceSlice &grid = all.front();
    const uint64_t ctas = kernel["counters"]["ctas"];
    EXPECT_EQ(grid.args["ctas"], ctas);
    EXPECT_EQ(grid.args["ctas_completed"], ctas);
    EXPECT_EQ(grid.args["end"], "done");

    // Its CTAs: as many slices as the device counted, each inside the grid.
    constexpr double kEps = 1e-6;
    uint64_t cta_slices = 0;
    for (const auto &[pid, name] : trace.processes) {
        if (name.rfind("SM ", 0) != 0)
            continue;
        for (const auto &id : trace.tracks_of(pid, "CTA slot "))
            for (const TraceSlice &s : trace.slices(id)) {
                ++cta_slices;
                EXPECT_TRUE(s.ts + kEps >= grid.ts && s.ts + s.dur <= grid.ts + grid.dur + kEps)
                    << name << " " << s.name << " lies outside the grid";
                EXPECT_EQ(s.args["completed"], true) << name << " " << s.name;
            }
    }
    EXPECT_EQ(cta_slices, ctas);
}

TEST_F(DeviceTrace, IssueSlicesAddUpToTheKernelsWarpInstructions) {
    const uint32_t clock_khz = stats["device"]["clock_khz"];
    uint64_t issue_cycles = 0;
    for (const auto &[pid, name] : trace.processes) {
        if (name.rfind("SM ", 0) != 0)
            continue;
        for (const auto &id : trace.tracks_of(pid, "warp "))
            for (const TraceSlice &s : trace.slices(id))
                if (s.name == "issue")
                    issue_cycles += cycles_of(s.dur, clock_khz);
    }
    EXPECT_EQ(issue_cycles, kernel["counters"]["warp_instructions"].get<uint64_t>());
}

} // namespace
