// SIMTGPU_TRACE on the in-process transport (docs/trace.md): one file with
// the CUDA streams' work, the in-process driver's jobs on its rings, the
// device's grids and the SMs' CTAs, each layer's slice inside the one of the
// layer above it (a job holds its stream's kernel, which holds its grid).
// Its own process: the variable is read when the device is created.
#include "simtgpu/simtgpu.h"
#include "test_support.h"
#include "trace_check.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

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

namespace {

// What the streams' tracks of a trace hold, each track's slice names in
// time order, by track name.
std::map<std::string, std::vector<std::string>> stream_kernels(const LoadedTrace &t) {
    std::map<std::string, std::vector<std::string>> out;
    const int64_t streams = t.pid("CUDA streams");
    for (const auto &id : t.tracks_of(streams, "stream ")) {
        std::vector<TraceSlice> slices = t.slices(id);
        std::stable_sort(slices.begin(), slices.end(),
                         [](const TraceSlice &a, const TraceSlice &b) { return a.ts < b.ts; });
        for (const TraceSlice &s : slices)
            out[t.threads.at(id)].push_back(s.name);
    }
    return out;
}

// The launches of StreamTracksHoldEachLaunchInOrder, in the order made:
// alternately on two streams, each stream's first kernel telling them apart.
const std::vector<std::vector<std::string>> kLaunches = {{"compute", "vec_add", "compute"},
                                                         {"vec_add", "compute"}};

// The stream tracks hold exactly kLaunches, whichever stream is which.
void expect_launches(const LoadedTrace &t) {
    ASSERT_GE(t.pid("CUDA streams"), 0);
    std::vector<std::vector<std::string>> found;
    for (auto &[track, names] : stream_kernels(t))
        found.push_back(names);
    std::vector<std::vector<std::string>> want = kLaunches;
    std::sort(found.begin(), found.end());
    std::sort(want.begin(), want.end());
    EXPECT_EQ(found, want);
}

} // namespace

// SIMTGPU_TRACE on either transport (the guest suite 73-trace runs it on the
// render node): each stream's track holds its kernels in the order they were
// launched, one slice per launch. SIMTGPU_TEST_TRACE_OUT keeps the file
// there, for simt-trace --umd.
TEST(Trace, StreamTracksHoldEachLaunchInOrder) {
    const char *keep = std::getenv("SIMTGPU_TEST_TRACE_OUT");
    const std::string path = keep && *keep
                                 ? keep
                                 : (std::filesystem::temp_directory_path() /
                                    ("simtgpu_umd_streams_" + std::to_string(getpid()) + ".json"))
                                       .string();
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
        const uint32_t n = 256;
        simtgpuDevicePtr a, b, c;
        for (simtgpuDevicePtr *p : {&a, &b, &c})
            check(simtgpuMemAlloc(ctx, p, n * 8) == SIMTGPU_SUCCESS, "alloc");
        uint64_t iterations = 100;
        void *compute_params[] = {&a, &iterations};
        void *add_params[] = {&a, &b, &c, const_cast<uint32_t *>(&n)};
        simtgpuStream streams[2];
        for (auto &s : streams)
            check(simtgpuStreamCreate(&s, ctx, SIMTGPU_STREAM_NON_BLOCKING, 0) == SIMTGPU_SUCCESS,
                  "stream");
        for (size_t i = 0; i < 3; ++i)
            for (size_t s = 0; s < 2; ++s) {
                if (i >= kLaunches[s].size())
                    continue;
                const bool compute = kLaunches[s][i] == "compute";
                simtgpuFunction f;
                check(simtgpuModuleGetFunction(&f, module, kLaunches[s][i].c_str()) ==
                          SIMTGPU_SUCCESS,
                      "function");
                check(simtgpuLaunchKernel(f, compute ? 1 : 2, 1, 1, compute ? 32 : 128, 1, 1, 0,
                                          streams[s], compute ? compute_params : add_params,
                                          nullptr) == SIMTGPU_SUCCESS,
                      "launch");
            }
        check(simtgpuCtxSynchronize(ctx) == SIMTGPU_SUCCESS, "synchronize");
        std::exit(0);
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the child failed";
    expect_launches(simtgpu::test::load_trace(path));
    if (!(keep && *keep))
        std::filesystem::remove(path);
}

// The guest's merged trace (73-trace: the tracefs jobs and the file above,
// merged by simt-trace --umd, named by SIMTGPU_TEST_MERGED_TRACE): the
// stream tracks are there as launched, and on one clock with the driver's
// jobs, each kernel inside the job that ran it.
TEST(Trace, MergedWithTheKernelDriversJobs) {
    const char *merged = std::getenv("SIMTGPU_TEST_MERGED_TRACE");
    if (!merged || !*merged)
        GTEST_SKIP() << "the guest suite 73-trace names a merged trace here";
    const LoadedTrace t = simtgpu::test::load_trace(merged);
    expect_launches(t);
    const auto jobs = all_slices(t, t.pid("kmd (tracefs)"), "ring ");
    ASSERT_FALSE(jobs.empty());
    for (const auto &id : t.tracks_of(t.pid("CUDA streams"), "stream "))
        for (const TraceSlice &s : t.slices(id))
            EXPECT_TRUE(std::any_of(jobs.begin(), jobs.end(),
                                    [&](const TraceSlice &j) { return inside(s, j); }))
                << s.name << " at " << s.ts << " us is in no job";
}
