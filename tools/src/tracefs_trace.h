// The kernel driver's tracepoints (kmd/simtgpu_trace.h) as read from tracefs
// (/sys/kernel/tracing/trace) turned into the Chrome/Perfetto trace-event
// JSON the simulator writes (docs/trace.md): a "kmd" process with a track per
// ring holding its jobs, instants for submits, preemption and resets.
#pragma once

#include <cstdint>
#include <istream>
#include <string>

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
std::string tracefs_to_trace(std::istream &in, uint64_t max_events, TracefsCounts *counts);

} // namespace simtgpu::tools
