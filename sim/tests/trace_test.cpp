// The trace (docs/trace.md): written for one SM under both models and for a
// whole device by simt-run, loaded with a JSON parser, its structure
// checked (trace_check.h) and its content compared with the statistics the
// simulator counts on its own: CTA slices against CTAs completed, the time
// CTAs were resident against SM busy cycles, issue slices against warp
// instructions, stall slices against the stall counters; and the event limit.
#include "core_support.h"
#include "trace/trace_writer.h"
#include "trace_check.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace simtgpu::sim {
namespace {

using test::cycles_of;
using test::LoadedTrace;
using test::TraceSlice;
using test::union_cycles;

constexpr uint64_t kBase = 0x10000, kSize = 32ull << 20;
constexpr uint64_t kParams = 0x1000000, kOut = 0x1100000;

std::string temp_path(const std::string &name) {
    return (std::filesystem::temp_directory_path() /
            ("simtgpu_trace_" + std::to_string(getpid()) + "_" + name))
        .string();
}

// Sum of the durations of the slices named `name` on the tracks, in cycles.
uint64_t cycles_named(const LoadedTrace &t, const std::vector<test::TrackId> &tracks,
                      const std::string &name, uint32_t clock_khz) {
    uint64_t total = 0;
    for (const auto &id : tracks)
        for (const TraceSlice &s : t.slices(id))
            if (s.name == name)
                total += cycles_of(s.dur, clock_khz);
    return total;
}

// A launch of core_simt.elf's k_barrier (shared memory reversed across
// warps, three bar.syncs) on one SM, traced.
class SmTraceTest : public ::testing::TestWithParam<Model> {
protected:
    void SetUp() override {
        auto elf = testing::load_elf(
            testing::device_program_path(SIMTGPU_DEVICE_PROGRAM_DIR, "core_simt"), mem);
        ASSERT_TRUE(elf) << "core_simt.elf missing";
        elf_ = *elf;
        config.model = GetParam();
        config.warps_per_sm = 8; // two CTAs of three warps at a time
    }
    testing::RunOutcome run(const std::string &path, uint32_t ctas, uint64_t max_events = 0) {
        struct {
            uint64_t out = kOut, in = 0, n = 0, arg = 0, counter = 0;
        } params;
        mem.write(kParams, params);
        LaunchDesc l;
        l.entry_pc = elf_.symbols.at("k_barrier");
        l.param_va = kParams;
        l.grid = {ctas, 1, 1};
        l.block = {kThreads, 1, 1};
        l.shared_bytes = kThreads * 8;
        l.stack_bytes = 4096;
        auto writer = trace::TraceWriter::open(path, max_events, config.clock_khz);
        EXPECT_TRUE(writer) << writer.error();
        Sm sm(config, kSm);
        sm.trace_to(writer->get());
        testing::RunOutcome r = testing::run_launch(sm, mem, l);
        (*writer)->close();
        return r;
    }
    static constexpr uint32_t kThreads = 96, kSm = 3;
    testing::FlatMemory mem{kBase, kSize};
    DeviceConfig config = DeviceConfig::defaults();
    testing::LoadedElf elf_;
};

TEST_P(SmTraceTest, SlicesMatchTheSmStatistics) {
    const std::string path = temp_path("sm.json");
    const testing::RunOutcome r = run(path, 5);
    ASSERT_FALSE(r.exception);
    const LoadedTrace t = test::load_trace(path);
    const uint32_t khz = config.clock_khz;
    const int64_t pid = t.pid("SM " + std::to_string(kSm));
    ASSERT_GE(pid, 0) << "no SM 3 track";

    // One CTA slice per CTA completed; the SM is busy exactly while one is resident.
    std::vector<TraceSlice> ctas;
    for (const auto &id : t.tracks_of(pid, "CTA slot "))
        for (const TraceSlice &s : t.slices(id)) {
            ctas.push_back(s);
            EXPECT_TRUE(s.args.value("completed", false)) << s.name;
        }
    EXPECT_EQ(ctas.size(), r.stats.ctas);
    EXPECT_EQ(ctas.size(), 5u);
    EXPECT_EQ(union_cycles(ctas, khz), r.stats.sm_busy_cycles);

    // Issue slices: one cycle per warp instruction in both models.
    const auto warps = t.tracks_of(pid, "warp ");
    EXPECT_EQ(warps.size(), config.warps_per_sm / 3 * 3); // slots two CTAs of three use
    EXPECT_EQ(cycles_named(t, warps, "issue", khz), r.stats.warp_instructions);
    // Every warp track lies within the SM's busy time.
    for (const auto &id : warps)
        EXPECT_LE(union_cycles(t.slices(id), khz), r.stats.sm_busy_cycles);
    EXPECT_GT(cycles_named(t, warps, "stall_barrier", khz), 0u) << "bar.sync waits not shown";

    if (GetParam() == Model::timing) {
        // Every stall cycle a counter counts is a stall slice of that name,
        // but a warp whose lanes all exited shows as done, not at a barrier.
#define SIMTGPU_X(name, unit, nsight, what)                                                        \
    if (std::string_view(#name) != "stall_barrier") {                                              \
        EXPECT_EQ(cycles_named(t, warps, #name, khz), r.stats.name) << #name;                      \
    }
        SIMTGPU_SM_STALLS(SIMTGPU_X)
#undef SIMTGPU_X
        // In the cycle a CTA's last warp exits, the warps of sub-cores after
        // it are no longer counted (their CTA left), but their done slices
        // end with the cycle: at most one cycle per CTA more in the trace.
        const uint64_t waiting =
            cycles_named(t, warps, "stall_barrier", khz) + cycles_named(t, warps, "done", khz);
        EXPECT_GE(waiting, r.stats.stall_barrier);
        EXPECT_LE(waiting, r.stats.stall_barrier + r.stats.ctas);
        EXPECT_EQ(cycles_named(t, warps, "wait_mem_latency", khz), 0u);
    }
    std::filesystem::remove(path);
}

TEST_P(SmTraceTest, EventLimitStopsTheTraceWithANote) {
    const std::string path = temp_path("limit.json");
    ::testing::internal::CaptureStderr();
    const testing::RunOutcome r = run(path, 5, 25);
    const std::string err = ::testing::internal::GetCapturedStderr();
    ASSERT_FALSE(r.exception);
    const LoadedTrace t = test::load_trace(path);
    size_t slices = 0;
    for (const auto &[id, s] : t.tracks)
        slices += s.size();
    EXPECT_EQ(slices + t.instants.size(), 25u + 1) << "25 events and the note";
    const bool noted = std::any_of(t.instants.begin(), t.instants.end(), [](const auto &e) {
        return e["name"] == "trace event limit reached" && e["args"]["limit"] == 25;
    });
    EXPECT_TRUE(noted);
    EXPECT_EQ(t.doc["otherData"]["max_events"], 25);
    EXPECT_GT(t.doc["otherData"]["dropped_events"].get<uint64_t>(), 0u);
    EXPECT_NE(err.find("reached its limit of 25 events"), std::string::npos) << err;
    std::filesystem::remove(path);
}

INSTANTIATE_TEST_SUITE_P(Models, SmTraceTest, ::testing::Values(Model::functional, Model::timing),
                         [](const auto &info) {
                             return info.param == Model::timing ? "timing" : "functional";
                         });

TEST(TraceWriter, UnwritablePathIsAnErrorNamingIt) {
    auto w = trace::TraceWriter::open("/nonexistent-dir/t.json", 0, 1000000);
    ASSERT_FALSE(w);
    EXPECT_NE(w.error().find("/nonexistent-dir/t.json"), std::string::npos) << w.error();
}

TEST(TraceWriter, HostTracksAreNamedAndInNanoseconds) {
    const std::string path = temp_path("host.json");
    {
        auto w = trace::TraceWriter::open(path, 0, 1530000); // a V100's clock
        ASSERT_TRUE(w);
        auto [pid, tid] = (*w)->host_track("CUDA runtime", "stream \"0\"");
        (*w)->slice_ns(pid, tid, "vector_add", 1000, 4500);
        auto again = (*w)->host_track("CUDA runtime", "stream \"0\"");
        EXPECT_EQ(again, std::pair(pid, tid));
        (*w)->name_thread(trace::kRingsPid, 0, "ring 0", 0);
        (*w)->slice(trace::kRingsPid, 0, "grid", 1530, 3060); // 1 us to 2 us
    }
    const LoadedTrace t = test::load_trace(path);
    const int64_t pid = t.pid("CUDA runtime");
    ASSERT_GE(pid, 0);
    const auto streams = t.tracks_of(pid, "stream \"0\"");
    ASSERT_EQ(streams.size(), 1u);
    ASSERT_EQ(t.slices(streams[0]).size(), 1u);
    EXPECT_DOUBLE_EQ(t.slices(streams[0])[0].ts, 1.0);
    EXPECT_DOUBLE_EQ(t.slices(streams[0])[0].dur, 3.5);
    const auto &grid = t.slices({trace::kRingsPid, 0});
    ASSERT_EQ(grid.size(), 1u);
    EXPECT_NEAR(grid[0].ts, 1.0, 1e-6);
    EXPECT_NEAR(grid[0].dur, 1.0, 1e-6);
    std::filesystem::remove(path);
}

// A host that never closes the trace (the in-process transport) relies on
// checkpoints: the file is complete after each, and grows after it.
TEST(TraceWriter, CheckpointLeavesACompleteFileThatGoesOn) {
    const std::string path = temp_path("checkpoint.json");
    auto w = trace::TraceWriter::open(path, 0, 1000000);
    ASSERT_TRUE(w);
    (*w)->name_thread(trace::kRingsPid, 0, "ring 0", 0);
    (*w)->slice(trace::kRingsPid, 0, "a", 0, 10);
    (*w)->checkpoint();
    EXPECT_EQ(test::load_trace(path).slices({trace::kRingsPid, 0}).size(), 1u);
    (*w)->slice(trace::kRingsPid, 0, "b", 10, 20);
    (*w)->checkpoint();
    (*w)->checkpoint(); // nothing new: the same file
    const LoadedTrace t = test::load_trace(path);
    ASSERT_EQ(t.slices({trace::kRingsPid, 0}).size(), 2u);
    EXPECT_EQ(t.slices({trace::kRingsPid, 0})[1].name, "b");
    EXPECT_EQ(t.doc["otherData"]["events"], 2);
    (*w)->close();
    EXPECT_EQ(test::load_trace(path).slices({trace::kRingsPid, 0}).size(), 2u);
    std::filesystem::remove(path);
}

std::string slurp(const std::string &path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// simt-run --trace on a whole device: per-SM figures of the statistics JSON.
TEST(SimtRunTrace, DeviceTraceMatchesTheStatistics) {
    const std::string trace = temp_path("run.json"), stats = temp_path("run_stats.json");
    const std::string cmd = std::string(SIMTGPU_SIMT_RUN) +
                            " --timeout 60 --sms 3 --grid 11 --block 96 --stats --trace " + trace +
                            " " + SIMTGPU_DEVICE_PROGRAM_DIR + "/device_atomic_sum.elf > " + stats;
    const int w = std::system(cmd.c_str());
    ASSERT_TRUE(WIFEXITED(w) && WEXITSTATUS(w) == 0) << cmd;
    const nlohmann::json s = nlohmann::json::parse(slurp(stats));
    const LoadedTrace t = test::load_trace(trace);
    const uint32_t khz = s["clock_khz"];

    const auto &grids = t.slices({trace::kRingsPid, 0});
    ASSERT_EQ(grids.size(), 1u);
    EXPECT_EQ(grids[0].args["ctas_completed"], 11);
    EXPECT_EQ(grids[0].args["end"], "done");
    EXPECT_LE(cycles_of(grids[0].dur, khz), s["cycles"].get<uint64_t>());

    uint64_t ctas = 0;
    for (uint32_t i = 0; i < 3; ++i) {
        const nlohmann::json &sm = s["sms"][i];
        const int64_t pid = t.pid("SM " + std::to_string(i));
        ASSERT_GE(pid, 0) << i;
        std::vector<TraceSlice> resident;
        for (const auto &id : t.tracks_of(pid, "CTA slot "))
            for (const TraceSlice &c : t.slices(id)) {
                resident.push_back(c);
                // Inside the grid's slice on its ring.
                EXPECT_GE(c.ts + 1e-6, grids[0].ts);
                EXPECT_LE(c.ts + c.dur, grids[0].ts + grids[0].dur + 1e-6);
            }
        EXPECT_EQ(resident.size(), sm["ctas"].get<uint64_t>()) << "SM " << i;
        EXPECT_EQ(union_cycles(resident, khz), sm["sm_busy_cycles"].get<uint64_t>()) << "SM " << i;
        EXPECT_EQ(cycles_named(t, t.tracks_of(pid, "warp "), "issue", khz),
                  sm["warp_instructions"].get<uint64_t>())
            << "SM " << i;
        ctas += resident.size();
    }
    EXPECT_EQ(ctas, s["ctas"].get<uint64_t>());
    EXPECT_EQ(ctas, 11u);
    std::filesystem::remove(trace);
    std::filesystem::remove(stats);
}

TEST(SimtRunTrace, BadTraceOptionsExitTwo) {
    for (const char *args : {"--trace /nonexistent-dir/t.json", "--trace-max-events 0"}) {
        const std::string cmd = std::string(SIMTGPU_SIMT_RUN) + " " + args + " " +
                                SIMTGPU_DEVICE_PROGRAM_DIR + "/device_exit.elf 2>/dev/null";
        const int w = std::system(cmd.c_str());
        EXPECT_TRUE(WIFEXITED(w) && WEXITSTATUS(w) == 2) << args;
    }
}

} // namespace
} // namespace simtgpu::sim
