// SIMTGPU_TRACE on the in-process transport (docs/trace.md): one file with
// the CUDA streams' work, the in-process driver's jobs on its rings, the
// device's grids and the SMs' CTAs, each layer's slice inside the one of the
// layer above it (a job holds its stream's kernel, which holds its grid).
// Its own process: the variable is read when the device is created.
#include "simtgpu/simtgpu.h"
#include "test_support.h"
#include "trace_check.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

using namespace simtgpu::umd::test;
using simtgpu::test::LoadedTrace;
using simtgpu::test::TraceSlice;

namespace {

bool inside(const TraceSlice &inner, const TraceSlice &outer) {
    constexpr double kEps = 1e-6;
    return inner.ts + kEps >= outer.ts && inner.ts + inner.dur <= outer.ts + outer.dur + kEps;
}

std::vector<TraceSlice> all_slices(const LoadedTrace &t, int64_t pid, const std::string &track) {
    std::vector<TraceSlice> out;
    for (const auto &id : t.tracks_of(pid, track))
        for (const TraceSlice &s : t.slices(id))
            out.push_back(s);
    return out;
}

} // namespace

TEST(Trace, StreamsJobsGridsAndCtasInOneFile) {
    const std::string path = (std::filesystem::temp_directory_path() /
                              ("simtgpu_umd_trace_" + std::to_string(getpid()) + ".json"))
                                 .string();
    // The work runs in a child that exits: libsimtgpu keeps its in-process
    // device for the process's life, and the trace is completed at exit.
    const uint32_t n = 1000, ctas = (n + 127) / 128;
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        setenv("SIMTGPU_TRACE", path.c_str(), 1);
        auto check = [](bool ok, const char *what) {
            if (!ok) {
                std::fprintf(stderr, "failed: %s: %s\n", what, simtgpuGetErrorDetail());
                std::_Exit(1);
            }
        };
        check(simtgpuInit(0) == SIMTGPU_SUCCESS, "simtgpuInit");
        simtgpuContext ctx;
        check(simtgpuCtxCreate(&ctx, 0, 0) == SIMTGPU_SUCCESS, "simtgpuCtxCreate");
        std::vector<uint8_t> image = kernels_image();
        simtgpuModule module;
        check(simtgpuModuleLoadData(&module, ctx, image.data(), image.size()) == SIMTGPU_SUCCESS,
              "module");
        simtgpuFunction vec_add;
        check(simtgpuModuleGetFunction(&vec_add, module, "vec_add") == SIMTGPU_SUCCESS, "vec_add");
        simtgpuDevicePtr a, b, c;
        for (simtgpuDevicePtr *p : {&a, &b, &c})
            check(simtgpuMemAlloc(ctx, p, n * 4) == SIMTGPU_SUCCESS, "alloc");
        simtgpuStream s1, s2;
        check(simtgpuStreamCreate(&s1, ctx, SIMTGPU_STREAM_NON_BLOCKING, 0) == SIMTGPU_SUCCESS,
              "stream");
        check(simtgpuStreamCreate(&s2, ctx, SIMTGPU_STREAM_NON_BLOCKING, 0) == SIMTGPU_SUCCESS,
              "stream");
        check(simtgpuMemsetD8Async(ctx, a, 1, n * 4, s1) == SIMTGPU_SUCCESS, "memset");
        check(simtgpuMemsetD8Async(ctx, b, 2, n * 4, s2) == SIMTGPU_SUCCESS, "memset");
        check(simtgpuStreamSynchronize(ctx, s2) == SIMTGPU_SUCCESS, "sync");
        void *params[] = {&a, &b, &c, const_cast<uint32_t *>(&n)};
        check(simtgpuLaunchKernel(vec_add, ctas, 1, 1, 128, 1, 1, 0, s1, params, nullptr) ==
                  SIMTGPU_SUCCESS,
              "launch");
        check(simtgpuCtxSynchronize(ctx) == SIMTGPU_SUCCESS, "synchronize");
        std::exit(0);
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the child failed";

    const LoadedTrace t = simtgpu::test::load_trace(path);
    const int64_t streams = t.pid("CUDA streams"), driver = t.pid("in-process driver");
    ASSERT_GE(streams, 0);
    ASSERT_GE(driver, 0);
    // Two streams, each with its memset; the kernel on the first.
    const auto tracks = t.tracks_of(streams, "stream ");
    ASSERT_EQ(tracks.size(), 2u);
    std::vector<TraceSlice> kernels, memsets;
    for (const auto &id : tracks)
        for (const TraceSlice &s : t.slices(id))
            (s.name == "vec_add" ? kernels : memsets).push_back(s);
    ASSERT_EQ(kernels.size(), 1u);
    ASSERT_EQ(memsets.size(), 2u);
    EXPECT_EQ(memsets[0].name, "memset " + std::to_string(n * 4) + " B");

    // Every stream slice lies inside one of the driver's jobs.
    const auto jobs = all_slices(t, driver, "ring ");
    EXPECT_GE(jobs.size(), 3u);
    for (const TraceSlice &s : memsets)
        EXPECT_TRUE(std::any_of(jobs.begin(), jobs.end(), [&](auto &j) { return inside(s, j); }))
            << s.name << " at " << s.ts;
    EXPECT_TRUE(
        std::any_of(jobs.begin(), jobs.end(), [&](auto &j) { return inside(kernels[0], j); }));
    // The grid lies inside the kernel's slice, and its CTAs inside the grid.
    const auto grids = all_slices(t, 1, "ring ");
    ASSERT_EQ(grids.size(), 1u);
    EXPECT_TRUE(inside(grids[0], kernels[0]));
    EXPECT_EQ(grids[0].args["ctas_completed"], ctas);
    uint64_t cta_slices = 0;
    for (const auto &[pid, name] : t.processes)
        if (name.rfind("SM ", 0) == 0)
            for (const TraceSlice &s : all_slices(t, pid, "CTA slot ")) {
                ++cta_slices;
                EXPECT_TRUE(inside(s, grids[0])) << name << " " << s.name;
            }
    EXPECT_EQ(cta_slices, ctas);
    std::filesystem::remove(path);
}
