// simt-trace's conversion of tracefs text (kmd/simtgpu_trace.h's events as
// the kernel prints them) into trace-event JSON: the structure every trace
// has (trace_check.h), one slice per job from its doorbell, or the end of
// the job before it on the ring, to its fence; instants for submits,
// preemption and resets; other lines skipped; the event limit.
#include "trace_check.h"
#include "tracefs_trace.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace {

using simtgpu::test::LoadedTrace;
using simtgpu::test::TraceSlice;

// A trace as `cat /sys/kernel/tracing/trace` prints it (6.1, nop tracer):
// two jobs on ring 1, the second written while the first runs; one on ring 2
// that a reset ends.
constexpr const char *kTracefs = R"(# tracer: nop
#
# entries-in-buffer/entries-written: 12/12   #P:2
#
#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION
#              | |         |   |||||     |         |
      vector-add-71      [001] .....   100.000100: simtgpu_submit: queue=3 pid=71 ib_va=0x100000 ib_dwords=24
   kworker/u4:1-23      [000] .....   100.000150: simtgpu_job_begin: ring=1 seqno=7 queue=3 pid=71
      vector-add-71      [001] .....   100.000200: simtgpu_submit: queue=3 pid=71 ib_va=0x101000 ib_dwords=6
   kworker/u4:1-23      [000] .....   100.000250: simtgpu_job_begin: ring=1 seqno=8 queue=3 pid=71
          <idle>-0       [000] d.h1.   100.001150: simtgpu_job_end: ring=1 seqno=7 device_ns=900 error=0
          <idle>-0       [000] d.h1.   100.001400: simtgpu_job_end: ring=1 seqno=8 device_ns=200 error=0
      sched_switch-9     [000] .....   100.001500: sched_switch: prev_comm=a prev_pid=1
   kworker/u4:1-23      [000] .....   100.002000: simtgpu_job_begin: ring=2 seqno=1 queue=4 pid=72
   kworker/u4:1-23      [000] .....   100.002100: simtgpu_preempt: ring=2 park=1
   kworker/u4:1-23      [000] .....   100.003000: simtgpu_reset: ring=-1 reason=hang
   kworker/u3:0-62      [000] .....   100.003050: simtgpu_migrate: context=3 va=0x7fcbfe37e000 to=vram ns=6500
   kworker/u4:1-23      [000] .....   100.003100: simtgpu_job_end: ring=2 seqno=1 device_ns=0 error=-125
   kworker/u4:1-23      [000] .....   100.003200: simtgpu_job_end: ring=3 seqno=9 device_ns=0 error=-125
)";

LoadedTrace load_json(const std::string &json) {
    const std::string path = (std::filesystem::temp_directory_path() /
                              ("simtgpu_tracefs_" + std::to_string(getpid()) + ".json"))
                                 .string();
    std::ofstream(path) << json;
    LoadedTrace t = simtgpu::test::load_trace(path);
    std::filesystem::remove(path);
    return t;
}

LoadedTrace convert(const std::string &text, uint64_t max_events,
                    simtgpu::tools::TracefsCounts *counts, bool device_clock = false) {
    std::istringstream in(text);
    return load_json(simtgpu::tools::tracefs_to_trace(in, max_events, counts, device_clock));
}

TEST(TracefsTrace, JobsOnRingsAndInstants) {
    simtgpu::tools::TracefsCounts counts;
    const LoadedTrace t = convert(kTracefs, 1000, &counts);
    EXPECT_EQ(counts.lines, 19u);
    EXPECT_EQ(counts.events, 12u);   // every simtgpu_ line; sched_switch is not ours
    EXPECT_EQ(counts.unmatched, 1u); // ring 3's end: its begin was before the trace
    const int64_t pid = t.pid("kmd (tracefs)");
    ASSERT_GE(pid, 0);

    const auto ring1 = t.tracks_of(pid, "ring 1");
    ASSERT_EQ(ring1.size(), 1u);
    const auto &jobs = t.slices(ring1[0]);
    ASSERT_EQ(jobs.size(), 2u);
    // Job 7: doorbell at 100.000150 s to fence at 100.001150 s.
    EXPECT_NEAR(jobs[0].ts, 100000150.0, 1e-3);
    EXPECT_NEAR(jobs[0].dur, 1000.0, 1e-3);
    EXPECT_EQ(jobs[0].args["device_ns"], 900);
    // Job 8 was written at 100.000250 s but ran after job 7's end.
    EXPECT_NEAR(jobs[1].ts, 100001150.0, 1e-3);
    EXPECT_NEAR(jobs[1].dur, 250.0, 1e-3);
    EXPECT_NEAR(jobs[1].args["waited_on_ring_us"].get<double>(), 900.0, 1e-3);
    EXPECT_EQ(jobs[1].name, "job 8 (queue 3)");

    const auto ring2 = t.tracks_of(pid, "ring 2");
    ASSERT_EQ(ring2.size(), 1u);
    ASSERT_EQ(t.slices(ring2[0]).size(), 1u);
    EXPECT_EQ(t.slices(ring2[0])[0].args["error"], -125);

    auto instants = [&](const std::string &name) {
        return std::count_if(t.instants.begin(), t.instants.end(),
                             [&](const auto &e) { return e["name"] == name; });
    };
    EXPECT_EQ(instants("submit"), 2);
    EXPECT_EQ(instants("preempt: park"), 1);
    EXPECT_EQ(instants("reset: hang"), 1);
    EXPECT_EQ(t.tracks_of(pid, "device").size(), 1u);
    // A page of managed memory moved, on a track of its own.
    EXPECT_EQ(instants("page to vram"), 1);
    EXPECT_EQ(t.tracks_of(pid, "managed memory").size(), 1u);
}

// On the device clock (simt-trace --umd), a job lies where its TIMESTAMPs
// put it, and a libsimtgpu stream slice on the same clock merges beside it:
// its kernel inside its job.
TEST(TracefsTrace, DeviceClockMergesTheStreamsOfLibsimtgpu) {
    constexpr const char *kDeviceTimes = R"(
 app-71 [001] ..... 50.000100: simtgpu_submit: queue=3 pid=71 ib_va=0x100000 ib_dwords=24
 kworker-23 [000] ..... 50.000150: simtgpu_job_begin: ring=0 seqno=1 queue=3 pid=71
 <idle>-0 [000] d.h1. 50.002000: simtgpu_job_end: ring=0 seqno=1 device_ns=700 device_start_ns=5000 error=0
 kworker-23 [000] ..... 50.003000: simtgpu_job_begin: ring=0 seqno=2 queue=3 pid=71
 <idle>-0 [000] d.h1. 50.004000: simtgpu_job_end: ring=0 seqno=2 device_ns=300 device_start_ns=6000 error=0
)";
    simtgpu::tools::TracefsCounts counts;
    std::istringstream in(kDeviceTimes);
    const std::string kmd = simtgpu::tools::tracefs_to_trace(in, 100, &counts, true);
    // A kernel of 100 ns inside job 2, as libsimtgpu's file writes it.
    const std::string umd =
        R"({"traceEvents": [{"ph": "M", "pid": 1071, "tid": 0, "name": "process_name",)"
        R"( "args": {"name": "CUDA streams"}}, {"ph": "M", "pid": 1071, "tid": 1, "name":)"
        R"( "thread_name", "args": {"name": "stream 1"}}, {"ph": "X", "pid": 1071, "tid": 1,)"
        R"( "name": "vec_add", "ts": 6.1, "dur": 0.1}]})";
    std::string error;
    const std::string merged = simtgpu::tools::merge_traces(kmd, {umd}, &error);
    ASSERT_FALSE(merged.empty()) << error;
    const LoadedTrace t = load_json(merged);
    const auto ring0 = t.tracks_of(t.pid("kmd (tracefs)"), "ring 0");
    ASSERT_EQ(ring0.size(), 1u);
    const auto &jobs = t.slices(ring0[0]);
    ASSERT_EQ(jobs.size(), 2u);
    EXPECT_NEAR(jobs[0].ts, 5.0, 1e-6); // device_start_ns 5000, in us
    EXPECT_NEAR(jobs[0].dur, 0.7, 1e-6);
    EXPECT_NEAR(jobs[1].ts, 6.0, 1e-6);
    const auto streams = t.tracks_of(t.pid("CUDA streams"), "stream ");
    ASSERT_EQ(streams.size(), 1u);
    const TraceSlice &kernel = t.slices(streams[0])[0];
    EXPECT_GE(kernel.ts, jobs[1].ts);
    EXPECT_LE(kernel.ts + kernel.dur, jobs[1].ts + jobs[1].dur + 1e-6);
    // The submit, 1.9 ms of guest time before job 1's end (5.7 us of device
    // time), is as far before it on the device clock, at 0 at the least.
    ASSERT_EQ(t.instants.size(), 1u);
    EXPECT_NEAR(t.instants[0]["ts"].get<double>(), 0.0, 1e-6);
    EXPECT_EQ(t.doc["otherData"]["clock"], "device");
    EXPECT_TRUE(simtgpu::tools::merge_traces(kmd, {"not json"}, &error).empty());
    EXPECT_NE(error.find("input 1"), std::string::npos);
}

TEST(TracefsTrace, EventLimitLeavesANote) {
    simtgpu::tools::TracefsCounts counts;
    const LoadedTrace t = convert(kTracefs, 3, &counts);
    EXPECT_EQ(counts.written, 3u);
    EXPECT_EQ(counts.dropped, 5u); // of 3 slices and 5 instants
    EXPECT_TRUE(std::any_of(t.instants.begin(), t.instants.end(), [](const auto &e) {
        return e["name"] == "trace event limit reached" && e["args"]["limit"] == 3;
    }));
    EXPECT_EQ(t.doc["otherData"]["dropped_events"], 5);
}

TEST(TracefsTrace, NothingOfOursIsAnEmptyValidTrace) {
    simtgpu::tools::TracefsCounts counts;
    const LoadedTrace t =
        convert("# tracer: nop\nfoo-1 [000] ..... 1.5: sched_switch: x=1\n", 10, &counts);
    EXPECT_EQ(counts.events, 0u);
    EXPECT_TRUE(t.tracks.empty());
}

} // namespace
