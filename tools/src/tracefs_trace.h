// The kernel driver's tracepoints (kmd/simtgpu_trace.h) as read from tracefs
// (/sys/kernel/tracing/trace) turned into the Chrome/Perfetto trace-event
// JSON the simulator writes (docs/trace.md): a "kmd" process with a track per
// ring holding its jobs, instants for submits, preemption and resets.
#pragma once

#include <cstdint>
#include <istream>
#include <string>
#include <vector>

namespace simtgpu::tools {

struct TracefsCounts {
    uint64_t lines = 0;     // read
    uint64_t events = 0;    // simtgpu_* events understood
    uint64_t unmatched = 0; // job ends whose begin is not in the trace
    uint64_t written = 0;   // slices and instants in the output
    uint64_t dropped = 0;   // ... not written: over max_events
};

// Reads tracefs's text output and returns the trace's JSON text. Lines
// that are not simtgpu events (other tracers, comments) are skipped. A job's
// slice runs from its begin (the doorbell) or the end of the job before it
// on the ring, whichever is later, to its end (the fence interrupt). At
// `max_events` a note goes into the trace and later events are dropped.
//
// With `device_clock`, times are the device's global timer instead of the
// guest's trace_clock: a job's slice is where its TIMESTAMPs put it
// (job_end's device_start_ns and device_ns), and the instants move by the
// difference of the two clocks at the job end nearest before them (the
// first job's before any). That is the clock of libsimtgpu's SIMTGPU_TRACE
// file on the kernel driver, so the two merge (merge_traces).
std::string tracefs_to_trace(std::istream &in, uint64_t max_events, TracefsCounts *counts,
                             bool device_clock = false);

// `base` (a trace-event JSON document) with the traceEvents of each of
// `others` appended, or "" with *error naming the one that is not such a
// document.
std::string merge_traces(const std::string &base, const std::vector<std::string> &others,
                         std::string *error);

} // namespace simtgpu::tools
