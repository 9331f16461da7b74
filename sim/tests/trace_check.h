// Loads a trace written by the simulator (or by simt-trace from tracefs)
// with a JSON parser and checks what every trace must be, independently of
// the writer: valid trace-event JSON, every event complete, every track with
// slices named, slices of a track ordered in time and well nested.
#pragma once

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace simtgpu::test {

struct TraceSlice {
    double ts = 0, dur = 0; // microseconds
    std::string name;
    nlohmann::json args;
};

using TrackId = std::pair<int64_t, int64_t>; // pid, tid

struct LoadedTrace {
    nlohmann::json doc;
    std::map<TrackId, std::vector<TraceSlice>> tracks; // slices in file order
    std::map<int64_t, std::string> processes;
    std::map<TrackId, std::string> threads;
    std::vector<nlohmann::json> instants;

    // The pid of the process named `name`, or -1.
    int64_t pid(const std::string &name) const {
        for (const auto &[p, n] : processes)
            if (n == name)
                return p;
        return -1;
    }
    // The tracks of process `pid` whose thread name starts with `prefix`.
    std::vector<TrackId> tracks_of(int64_t pid, const std::string &prefix) const {
        std::vector<TrackId> out;
        for (const auto &[id, n] : threads)
            if (id.first == pid && n.rfind(prefix, 0) == 0)
                out.push_back(id);
        return out;
    }
    const std::vector<TraceSlice> &slices(const TrackId &id) const {
        static const std::vector<TraceSlice> none;
        auto it = tracks.find(id);
        return it == tracks.end() ? none : it->second;
    }
};

// Device cycles of a duration in microseconds at `clock_khz`.
inline uint64_t cycles_of(double us, uint32_t clock_khz) {
    return uint64_t(std::llround(us * clock_khz / 1000.0));
}

// Total cycles covered by a set of slices (overlaps counted once).
inline uint64_t union_cycles(std::vector<TraceSlice> slices, uint32_t clock_khz) {
    std::sort(slices.begin(), slices.end(),
              [](const TraceSlice &a, const TraceSlice &b) { return a.ts < b.ts; });
    uint64_t total = 0, end = 0;
    bool any = false;
    for (const TraceSlice &s : slices) {
        const uint64_t b = cycles_of(s.ts, clock_khz), e = cycles_of(s.ts + s.dur, clock_khz);
        if (!any || b >= end) {
            total += e - b;
            end = e;
        } else if (e > end) {
            total += e - end;
            end = e;
        }
        any = true;
    }
    return total;
}

// Parses `path` and checks its structure with gtest assertions.
inline LoadedTrace load_trace(const std::string &path) {
    LoadedTrace t;
    std::ifstream in(path);
    EXPECT_TRUE(in) << "no trace at " << path;
    if (!in)
        return t;
    try {
        t.doc = nlohmann::json::parse(in);
    } catch (const std::exception &e) {
        ADD_FAILURE() << path << " is not valid JSON: " << e.what();
        return t;
    }
    EXPECT_TRUE(t.doc.is_object() && t.doc.contains("traceEvents") &&
                t.doc["traceEvents"].is_array())
        << "not a trace-event JSON object";
    if (!t.doc.contains("traceEvents"))
        return t;
    for (const nlohmann::json &e : t.doc["traceEvents"]) {
        EXPECT_TRUE(e.contains("ph") && e.contains("pid") && e.contains("tid") &&
                    e.contains("name"))
            << e.dump();
        const std::string ph = e.value("ph", "");
        const TrackId id{e.value("pid", int64_t(-1)), e.value("tid", int64_t(-1))};
        if (ph == "M") {
            const std::string what = e.value("name", "");
            if (what == "process_name")
                t.processes[id.first] = e["args"]["name"];
            else if (what == "thread_name")
                t.threads[id] = e["args"]["name"];
        } else if (ph == "X") {
            EXPECT_TRUE(e.contains("ts") && e.contains("dur")) << e.dump();
            TraceSlice s{e.value("ts", -1.0), e.value("dur", -1.0), e.value("name", ""),
                         e.value("args", nlohmann::json::object())};
            EXPECT_GE(s.ts, 0) << e.dump();
            EXPECT_GE(s.dur, 0) << e.dump();
            t.tracks[id].push_back(std::move(s));
        } else if (ph == "i") {
            EXPECT_TRUE(e.contains("ts")) << e.dump();
            t.instants.push_back(e);
        } else {
            ADD_FAILURE() << "unexpected phase " << ph << ": " << e.dump();
        }
    }
    // Slices of one track: in time order and well nested (each either
    // after the one before or inside it).
    constexpr double kEps = 1e-6;
    for (const auto &[id, slices] : t.tracks) {
        EXPECT_TRUE(t.threads.count(id))
            << "track " << id.first << "/" << id.second << " has slices but no name";
        EXPECT_TRUE(t.processes.count(id.first)) << "process " << id.first << " has no name";
        std::vector<double> open_ends; // a stack of enclosing slices' ends
        double last_ts = -1;
        for (const TraceSlice &s : slices) {
            EXPECT_GE(s.ts + kEps, last_ts)
                << "track " << id.first << "/" << id.second << ": " << s.name << " out of order";
            last_ts = s.ts;
            while (!open_ends.empty() && s.ts + kEps >= open_ends.back())
                open_ends.pop_back();
            if (!open_ends.empty()) {
                EXPECT_LE(s.ts + s.dur, open_ends.back() + kEps)
                    << "track " << id.first << "/" << id.second << ": " << s.name << " at " << s.ts
                    << " overlaps the slice around it";
            }
            open_ends.push_back(s.ts + s.dur);
        }
    }
    return t;
}

} // namespace simtgpu::test
