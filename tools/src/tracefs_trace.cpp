#include "tracefs_trace.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <sstream>
#include <string_view>
#include <utility>
#include <vector>

namespace simtgpu::tools {
namespace {

constexpr int kPid = 3;         // as the simulator's host tracks: after the rings
constexpr int kDeviceTid = 100; // whole-device resets
constexpr int kManagedTid = 101; // managed memory's page migrations
constexpr int kQueueTid = 1000; // + queue id: submits

// "1234.567890" (seconds) as nanoseconds, or -1.
int64_t timestamp_ns(std::string_view text) {
    if (!text.empty() && text.back() == ':')
        text.remove_suffix(1);
    const size_t dot = text.find('.');
    if (dot == std::string_view::npos || dot == 0)
        return -1;
    int64_t ns = 0;
    for (char c : text.substr(0, dot)) {
        if (c < '0' || c > '9')
            return -1;
        ns = ns * 10 + (c - '0');
    }
    std::string frac(text.substr(dot + 1));
    if (frac.empty() || frac.size() > 9 ||
        frac.find_first_not_of("0123456789") != std::string::npos)
        return -1;
    frac.resize(9, '0');
    return ns * 1'000'000'000 + std::atoll(frac.c_str());
}

struct Writer {
    Writer(uint64_t max, TracefsCounts &c) : max_events(max), counts(c) {}
    uint64_t max_events;
    TracefsCounts &counts;
    nlohmann::json events = nlohmann::json::array();
    std::map<int, bool> named;

    void name_thread(int tid, const std::string &name) {
        if (named[tid])
            return;
        named[tid] = true;
        events.push_back({{"ph", "M"},
                          {"pid", kPid},
                          {"tid", tid},
                          {"name", "thread_name"},
                          {"args", {{"name", name}}}});
        events.push_back({{"ph", "M"},
                          {"pid", kPid},
                          {"tid", tid},
                          {"name", "thread_sort_index"},
                          {"args", {{"sort_index", tid}}}});
    }
    bool admit(double ts_us) {
        if (counts.written < max_events) {
            ++counts.written;
            return true;
        }
        if (counts.dropped++ == 0)
            events.push_back(
                {{"ph", "i"},
                 {"s", "g"},
                 {"pid", kPid},
                 {"tid", 0},
                 {"name", "trace event limit reached"},
                 {"ts", ts_us},
                 {"args",
                  {{"limit", max_events}, {"why", "events after this one were not written"}}}});
        return false;
    }
    void slice(int tid, const std::string &name, int64_t begin_ns, int64_t end_ns,
               nlohmann::json args) {
        const double ts = double(begin_ns) / 1000.0;
        if (admit(ts))
            events.push_back({{"ph", "X"},
                              {"pid", kPid},
                              {"tid", tid},
                              {"name", name},
                              {"ts", ts},
                              {"dur", double(end_ns - begin_ns) / 1000.0},
                              {"args", std::move(args)}});
    }
    void instant(int tid, const std::string &name, int64_t at_ns, nlohmann::json args) {
        const double ts = double(at_ns) / 1000.0;
        if (admit(ts))
            events.push_back({{"ph", "i"},
                              {"s", "t"},
                              {"pid", kPid},
                              {"tid", tid},
                              {"name", name},
                              {"ts", ts},
                              {"args", std::move(args)}});
    }
};

} // namespace

namespace {

// The device-clock time of guest time `ns`: the offset of the two clocks at
// the latest job end at or before it, else at the first job end.
class ClockMap {
public:
    explicit ClockMap(std::vector<std::pair<int64_t, int64_t>> ends) : ends_(std::move(ends)) {
        std::sort(ends_.begin(), ends_.end());
    }
    int64_t device(int64_t guest_ns) const {
        if (ends_.empty())
            return guest_ns;
        auto it = std::upper_bound(ends_.begin(), ends_.end(),
                                   std::pair<int64_t, int64_t>(guest_ns, INT64_MAX));
        const auto &[guest, dev] = it == ends_.begin() ? *it : *std::prev(it);
        return std::max<int64_t>(0, guest_ns - guest + dev);
    }

private:
    std::vector<std::pair<int64_t, int64_t>> ends_; // (guest ns, device ns) of each job end
};

// The numeric value of " key=N" in a tracefs line, or -1.
int64_t field_of(const std::string &line, const char *key) {
    const size_t at = line.find(std::string(" ") + key + "=");
    return at == std::string::npos ? -1 : std::atoll(line.c_str() + at + std::strlen(key) + 2);
}

} // namespace

std::string tracefs_to_trace(std::istream &input, uint64_t max_events, TracefsCounts *counts,
                             bool device_clock) {
    // The device clock needs every job end first: read the text twice.
    std::stringstream in;
    in << input.rdbuf();
    std::vector<std::pair<int64_t, int64_t>> ends;
    if (device_clock) {
        std::string l;
        while (std::getline(in, l)) {
            const size_t at = l.find(": simtgpu_job_end:");
            const int64_t start = field_of(l, "device_start_ns"), dur = field_of(l, "device_ns");
            if (at == std::string::npos || start <= 0 || dur < 0)
                continue;
            const size_t ts_start = l.find_last_of(" \t", at);
            const int64_t ns = timestamp_ns(std::string_view(l).substr(
                ts_start == std::string::npos ? 0 : ts_start + 1,
                at - (ts_start == std::string::npos ? 0 : ts_start + 1)));
            if (ns >= 0)
                ends.emplace_back(ns, start + dur);
        }
        in.clear();
        in.seekg(0);
    }
    const ClockMap clock(std::move(ends));
    TracefsCounts local;
    TracefsCounts &c = counts ? *counts : local;
    c = TracefsCounts{};
    Writer w(max_events, c);
    w.events.push_back({{"ph", "M"},
                        {"pid", kPid},
                        {"tid", 0},
                        {"name", "process_name"},
                        {"args", {{"name", "kmd (tracefs)"}}}});
    w.events.push_back({{"ph", "M"},
                        {"pid", kPid},
                        {"tid", 0},
                        {"name", "process_sort_index"},
                        {"args", {{"sort_index", kPid}}}});

    struct Begun {
        int64_t at_ns = 0;
        uint64_t queue = 0, pid = 0;
    };
    std::map<std::pair<uint64_t, uint64_t>, Begun> begun; // (ring, seqno)
    std::map<uint64_t, int64_t> ring_free;                // end of the last job per ring
    std::string line;
    while (std::getline(in, line)) {
        ++c.lines;
        const size_t at = line.find(": simtgpu_");
        if (line.empty() || line[0] == '#' || at == std::string::npos)
            continue;
        const size_t ts_start = line.find_last_of(" \t", at);
        const int64_t guest_ns = timestamp_ns(
            std::string_view(line).substr(ts_start == std::string::npos ? 0 : ts_start + 1,
                                          at - (ts_start == std::string::npos ? 0 : ts_start + 1)));
        if (guest_ns < 0)
            continue;
        const int64_t ns = device_clock ? clock.device(guest_ns) : guest_ns;
        std::istringstream rest(line.substr(at + 2));
        std::string event, field;
        rest >> event;
        if (!event.empty() && event.back() == ':')
            event.pop_back();
        std::map<std::string, std::string> f;
        while (rest >> field) {
            const size_t eq = field.find('=');
            if (eq != std::string::npos)
                f[field.substr(0, eq)] = field.substr(eq + 1);
        }
        auto num = [&](const char *key) { return std::strtoull(f[key].c_str(), nullptr, 0); };
        const std::string ring_name = "ring " + f["ring"];
        const int ring_tid = int(num("ring")) + 1;
        if (event == "simtgpu_submit") {
            const int tid = kQueueTid + int(num("queue"));
            w.name_thread(tid, "queue " + f["queue"] + " submits");
            w.instant(
                tid, "submit", ns,
                {{"queue", num("queue")}, {"pid", num("pid")}, {"ib_dwords", num("ib_dwords")}});
        } else if (event == "simtgpu_job_begin") {
            begun[{num("ring"), num("seqno")}] = Begun{ns, num("queue"), num("pid")};
        } else if (event == "simtgpu_job_end") {
            auto it = begun.find({num("ring"), num("seqno")});
            if (it == begun.end()) {
                ++c.unmatched;
                ++c.events;
                continue;
            }
            // The device runs a ring's jobs in order: this one started when
            // the job before it ended, if it was written to the ring earlier.
            // On the device clock, its TIMESTAMPs say where it ran.
            int64_t start = std::max(it->second.at_ns, ring_free[num("ring")]), end = ns;
            if (device_clock && num("device_start_ns")) {
                start = int64_t(num("device_start_ns"));
                end = start + int64_t(num("device_ns"));
            }
            w.name_thread(ring_tid, ring_name);
            w.slice(ring_tid,
                    "job " + f["seqno"] + " (queue " + std::to_string(it->second.queue) + ")",
                    start, end,
                    {{"seqno", num("seqno")},
                     {"queue", it->second.queue},
                     {"pid", it->second.pid},
                     {"device_ns", num("device_ns")},
                     {"error", std::atoi(f["error"].c_str())},
                     {"waited_on_ring_us",
                      double(std::max<int64_t>(0, start - it->second.at_ns)) / 1000.0}});
            ring_free[num("ring")] = end;
            begun.erase(it);
        } else if (event == "simtgpu_preempt") {
            w.name_thread(ring_tid, ring_name);
            w.instant(ring_tid, num("park") ? "preempt: park" : "preempt: resume", ns,
                      nlohmann::json::object());
        } else if (event == "simtgpu_migrate") {
            w.name_thread(kManagedTid, "managed memory");
            w.instant(kManagedTid, "page to " + f["to"], ns,
                      {{"context", num("context")}, {"va", f["va"]}, {"driver_ns", num("ns")}});
        } else if (event == "simtgpu_reset") {
            const bool device = f["ring"] == "-1";
            const int tid = device ? kDeviceTid : ring_tid;
            w.name_thread(tid, device ? "device" : ring_name);
            w.instant(tid, "reset: " + f["reason"], ns, nlohmann::json::object());
        } else {
            continue;
        }
        ++c.events;
    }
    nlohmann::json doc = {{"displayTimeUnit", "ns"},
                          {"traceEvents", std::move(w.events)},
                          {"otherData",
                           {{"producer", "simt-trace (tracefs)"},
                            {"clock", device_clock ? "device" : "guest"},
                            {"events", c.written},
                            {"max_events", max_events},
                            {"dropped_events", c.dropped}}}};
    return doc.dump() + "\n";
}

std::string merge_traces(const std::string &base, const std::vector<std::string> &others,
                         std::string *error) {
    nlohmann::json doc = nlohmann::json::parse(base, nullptr, false);
    if (doc.is_discarded() || !doc.contains("traceEvents")) {
        *error = "the tracefs trace is not a trace-event document";
        return "";
    }
    for (size_t i = 0; i < others.size(); ++i) {
        nlohmann::json other = nlohmann::json::parse(others[i], nullptr, false);
        if (other.is_discarded() || !other.contains("traceEvents") ||
            !other["traceEvents"].is_array()) {
            *error = "input " + std::to_string(i + 1) + " is not a trace-event JSON document";
            return "";
        }
        for (auto &e : other["traceEvents"])
            doc["traceEvents"].push_back(std::move(e));
    }
    return doc.dump() + "\n";
}

} // namespace simtgpu::tools
