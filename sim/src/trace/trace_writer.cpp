#include "trace/trace_writer.h"

#include <cerrno>
#include <cstring>
#include <unistd.h>

namespace simtgpu::sim::trace {

std::string quoted(std::string_view s) {
    std::string out = "\"";
    for (const char c : s) {
        switch (c) {
        case '"':
            out += "\\\"";
            break;
        case '\\':
            out += "\\\\";
            break;
        case '\n':
            out += "\\n";
            break;
        case '\t':
            out += "\\t";
            break;
        default:
            if (static_cast<unsigned char>(c) < 0x20) {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\u%04x", unsigned(c));
                out += buf;
            } else {
                out += c;
            }
        }
    }
    return out + '"';
}

Expected<std::unique_ptr<TraceWriter>> TraceWriter::open(const std::string &path,
                                                         uint64_t max_events, uint32_t clock_khz) {
    std::FILE *f = std::fopen(path.c_str(), "w");
    if (!f)
        return Error{"trace: cannot create " + path + ": " + std::strerror(errno) +
                     "; name a file in a writable directory"};
    return std::unique_ptr<TraceWriter>(new TraceWriter(
        f, path, max_events ? max_events : kDefaultMaxEvents, clock_khz ? clock_khz : 1'000'000));
}

TraceWriter::TraceWriter(std::FILE *file, std::string path, uint64_t max_events, uint32_t clock_khz)
    : file_(file), path_(std::move(path)), max_events_(max_events), clock_khz_(clock_khz) {
    std::setvbuf(file_, nullptr, _IOFBF, 1 << 20);
    // Perfetto shows device time in ns; the events themselves are in us.
    std::fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", file_);
    name_process(kRingsPid, "GPU rings", 0);
}

TraceWriter::~TraceWriter() {
    close();
}

void TraceWriter::write_end_locked() {
    std::fprintf(file_,
                 "\n],\"otherData\":{\"producer\":\"simtgpu\",\"clock_khz\":%u,\"events\":%llu,"
                 "\"max_events\":%llu,\"dropped_events\":%llu}}\n",
                 clock_khz_, static_cast<unsigned long long>(events_),
                 static_cast<unsigned long long>(max_events_),
                 static_cast<unsigned long long>(dropped_));
}

// After a checkpoint the file ends with the JSON's end, and the position is
// before it: the next write removes it first.
void TraceWriter::reopen_locked() {
    if (!at_end_)
        return;
    at_end_ = false;
    std::fflush(file_);
    if (ftruncate(fileno(file_), std::ftell(file_)) != 0) {
        // Not for a regular file opened for writing; should it happen, the
        // file stays as complete as the last checkpoint left it.
        std::fclose(file_);
        file_ = nullptr;
    }
}

void TraceWriter::checkpoint() {
    std::lock_guard lock(mu_);
    if (!file_ || at_end_)
        return;
    const long at = std::ftell(file_);
    write_end_locked();
    std::fflush(file_);
    std::fseek(file_, at, SEEK_SET);
    at_end_ = true;
}

double TraceWriter::us_of_cycles(uint64_t cycles) const {
    return epoch_us_ + double(cycles) * 1000.0 / double(clock_khz_);
}

void TraceWriter::restart_clock(uint64_t cycles) {
    std::lock_guard lock(mu_);
    epoch_us_ = us_of_cycles(cycles);
}

void TraceWriter::event_locked(char phase, uint32_t pid, uint32_t tid, std::string_view name,
                               double ts_us, double dur_us, std::string_view args) {
    reopen_locked();
    if (!file_)
        return;
    std::fputs(first_ ? "" : ",\n", file_);
    first_ = false;
    std::fprintf(file_, "{\"ph\":\"%c\",\"pid\":%u,\"tid\":%u,\"name\":", phase, pid, tid);
    std::fputs(quoted(name).c_str(), file_);
    if (phase != 'M')
        std::fprintf(file_, ",\"ts\":%.6f", ts_us);
    if (phase == 'X')
        std::fprintf(file_, ",\"dur\":%.6f", dur_us);
    if (phase == 'i')
        std::fputs(",\"s\":\"t\"", file_);
    if (!args.empty()) {
        std::fputs(",\"args\":", file_);
        std::fwrite(args.data(), 1, args.size(), file_);
    }
    std::fputc('}', file_);
}

bool TraceWriter::admit_locked(double ts_us) {
    if (!file_)
        return false;
    if (events_ < max_events_) {
        ++events_;
        return true;
    }
    if (dropped_++ == 0) {
        reopen_locked();
        if (!file_)
            return false;
        const std::string note = "{\"limit\":" + std::to_string(max_events_) +
                                 ",\"why\":\"events after this one were not written\"}";
        std::fputs(",\n", file_);
        std::fprintf(file_,
                     "{\"ph\":\"i\",\"s\":\"g\",\"pid\":%u,\"tid\":0,\"name\":\"trace event "
                     "limit reached\",\"ts\":%.6f,\"args\":%s}",
                     kRingsPid, ts_us, note.c_str());
        std::fprintf(stderr,
                     "simtgpu: trace %s reached its limit of %llu events; later events are not "
                     "in it (raise the limit: SIMTGPU_TRACE_MAX_EVENTS, simt-run "
                     "--trace-max-events)\n",
                     path_.c_str(), static_cast<unsigned long long>(max_events_));
    }
    return false;
}

void TraceWriter::name_process(uint32_t pid, std::string_view name, int sort) {
    std::lock_guard lock(mu_);
    if (!file_)
        return;
    event_locked('M', pid, 0, "process_name", 0, 0, "{\"name\":" + quoted(name) + "}");
    event_locked('M', pid, 0, "process_sort_index", 0, 0,
                 "{\"sort_index\":" + std::to_string(sort) + "}");
}

void TraceWriter::name_thread(uint32_t pid, uint32_t tid, std::string_view name, int sort) {
    std::lock_guard lock(mu_);
    if (!file_)
        return;
    event_locked('M', pid, tid, "thread_name", 0, 0, "{\"name\":" + quoted(name) + "}");
    event_locked('M', pid, tid, "thread_sort_index", 0, 0,
                 "{\"sort_index\":" + std::to_string(sort) + "}");
}

std::pair<uint32_t, uint32_t> TraceWriter::host_track(std::string_view process,
                                                      std::string_view track) {
    uint32_t pid, tid;
    bool new_process = false, new_track = false;
    {
        std::lock_guard lock(mu_);
        auto p = host_pids_.find(process);
        if (p == host_pids_.end()) {
            p = host_pids_.emplace(std::string(process), kHostPid + uint32_t(host_pids_.size()))
                    .first;
            new_process = true;
        }
        pid = p->second;
        const auto key = std::pair(pid, std::string(track));
        auto t = host_tids_.find(key);
        if (t == host_tids_.end()) {
            uint32_t used = 0;
            for (const auto &[k, v] : host_tids_)
                used += k.first == pid;
            t = host_tids_.emplace(key, used + 1).first;
            new_track = true;
        }
        tid = t->second;
    }
    if (new_process)
        name_process(pid, process, int(pid));
    if (new_track)
        name_thread(pid, tid, track, int(tid));
    return {pid, tid};
}

void TraceWriter::slice(uint32_t pid, uint32_t tid, std::string_view name, uint64_t begin,
                        uint64_t end, std::string_view args) {
    std::lock_guard lock(mu_);
    const double ts = us_of_cycles(begin);
    if (admit_locked(ts))
        event_locked('X', pid, tid, name, ts, us_of_cycles(end) - ts, args);
}

void TraceWriter::slice_ns(uint32_t pid, uint32_t tid, std::string_view name, uint64_t begin_ns,
                           uint64_t end_ns, std::string_view args) {
    std::lock_guard lock(mu_);
    const double ts = epoch_us_ + double(begin_ns) / 1000.0;
    if (admit_locked(ts))
        event_locked('X', pid, tid, name, ts, double(end_ns - begin_ns) / 1000.0, args);
}

void TraceWriter::instant(uint32_t pid, uint32_t tid, std::string_view name, uint64_t cycle,
                          std::string_view args) {
    std::lock_guard lock(mu_);
    const double ts = us_of_cycles(cycle);
    if (admit_locked(ts))
        event_locked('i', pid, tid, name, ts, 0, args);
}

uint64_t TraceWriter::events() const {
    std::lock_guard lock(mu_);
    return events_;
}

uint64_t TraceWriter::dropped() const {
    std::lock_guard lock(mu_);
    return dropped_;
}

void TraceWriter::close() {
    std::lock_guard lock(mu_);
    if (!file_)
        return;
    reopen_locked();
    if (!file_)
        return;
    write_end_locked();
    std::fclose(file_);
    file_ = nullptr;
}

} // namespace simtgpu::sim::trace
