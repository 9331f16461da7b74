// A Chrome/Perfetto trace (the trace-event JSON format: docs/trace.md),
// written as it happens and bounded in size. Timestamps are device time:
// cycles of the device clock, or nanoseconds of its global timer, written
// in microseconds as the format wants.
//
// Tracks are Perfetto's processes and threads: the device's rings, one
// process per SM (a thread per warp slot and per CTA slot), and host tracks
// that drivers add by name (the CUDA runtime's streams, a driver's rings).
// Every slice is a complete event ("X"), so a track's slices nest by
// construction when its writer keeps them in order.
//
// Thread-safe: the engine thread writes the device's events, a host thread
// a driver's.
#pragma once

#include "support/expected.h"

#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

namespace simtgpu::sim::trace {

// Events a trace holds unless configured otherwise (about 100 MB of JSON).
inline constexpr uint64_t kDefaultMaxEvents = 1'000'000;

// Process ids of the device's tracks; host tracks get ids from kHostPid on.
inline constexpr uint32_t kRingsPid = 1;
inline constexpr uint32_t kHostPid = 2;
inline constexpr uint32_t kSmPid = 100; // SM n is kSmPid + n
// Thread ids inside an SM's process: warp slot w is w, CTA slot c is kCtaTid + c.
inline constexpr uint32_t kCtaTid = 1000;

// `s` as a JSON string literal.
std::string quoted(std::string_view s);

class TraceWriter {
public:
    // Creates or truncates `path`. `max_events` bounds the slices and
    // instants written (0: kDefaultMaxEvents); `clock_khz` converts cycles.
    static Expected<std::unique_ptr<TraceWriter>> open(const std::string &path, uint64_t max_events,
                                                       uint32_t clock_khz);
    ~TraceWriter(); // close()
    TraceWriter(const TraceWriter &) = delete;
    TraceWriter &operator=(const TraceWriter &) = delete;

    // Names (metadata events, never dropped). `sort` orders tracks in the UI.
    void name_process(uint32_t pid, std::string_view name, int sort);
    void name_thread(uint32_t pid, uint32_t tid, std::string_view name, int sort);
    // A host track by name: its (pid, tid), named at first use.
    std::pair<uint32_t, uint32_t> host_track(std::string_view process, std::string_view track);

    // A slice [begin, end) in device cycles, or in nanoseconds. `args` is a
    // JSON object's text (the caller's, trusted) or empty.
    void slice(uint32_t pid, uint32_t tid, std::string_view name, uint64_t begin, uint64_t end,
               std::string_view args = {});
    void slice_ns(uint32_t pid, uint32_t tid, std::string_view name, uint64_t begin_ns,
                  uint64_t end_ns, std::string_view args = {});
    void instant(uint32_t pid, uint32_t tid, std::string_view name, uint64_t cycle,
                 std::string_view args = {});

    // The device clock starts again at 0 (a reset) after `cycles`: later
    // events are placed after them, so time goes on in the trace.
    void restart_clock(uint64_t cycles);

    uint64_t events() const;  // slices and instants written
    uint64_t dropped() const; // ... not written: over the limit
    // Makes the file complete as it is now (the JSON's end written, the
    // position before it), so that a host that never closes the trace (the
    // in-process transport keeps its device for the process's life, QEMU
    // until it quits) leaves a valid one: the device calls it when it goes
    // idle, and after each host slice.
    void checkpoint();
    // Ends the JSON; later events are dropped.
    void close();

private:
    TraceWriter(std::FILE *file, std::string path, uint64_t max_events, uint32_t clock_khz);
    // Room for one more event, or the limit's note (once) and false. Lock held.
    bool admit_locked(double ts_us);
    void event_locked(char phase, uint32_t pid, uint32_t tid, std::string_view name, double ts_us,
                      double dur_us, std::string_view args);
    double us_of_cycles(uint64_t cycles) const;
    void write_end_locked();
    void reopen_locked();

    mutable std::mutex mu_;
    std::FILE *file_;
    const std::string path_;
    const uint64_t max_events_;
    const uint32_t clock_khz_;
    uint64_t events_ = 0, dropped_ = 0;
    double epoch_us_ = 0; // device time before the last reset
    bool first_ = true;
    bool at_end_ = false; // the JSON's end follows the position (checkpoint)
    std::map<std::string, uint32_t, std::less<>> host_pids_;
    std::map<std::pair<uint32_t, std::string>, uint32_t, std::less<>> host_tids_;
};

} // namespace simtgpu::sim::trace
