#include "drm_transport.h"

#include "simtgpu/counters.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sys/mman.h>
#include <unistd.h>
#include <xf86drm.h>

namespace simtgpu::umd {

namespace {

// SIMTGPU_TRACE on the kernel driver: the device's trace is the host's (QEMU
// trace=), so libsimtgpu writes its streams' slices to its own trace-event
// file, in device time (the TIMESTAMP packets' ns, the clock of kmd's
// tracepoint device_start_ns), for simt-trace --umd to merge with the
// tracefs jobs (docs/trace.md). One file per process; after each slice it
// ends as a complete document (the end is rewritten by the next slice).
class DrmTraceFile {
public:
    static DrmTraceFile &get() {
        static DrmTraceFile file;
        return file;
    }
    // Opens SIMTGPU_TRACE's file once; 0 (also when it is unset) or -errno.
    int open(std::string *error) {
        std::lock_guard lock(mu_);
        const char *path = std::getenv("SIMTGPU_TRACE");
        if (f_ || !path || !*path)
            return 0;
        if (refused_) { // before: refuse again, as the in-process device does
            *error = why_;
            return refused_;
        }
        f_ = std::fopen(path, "w");
        if (!f_) {
            refused_ = -errno;
            why_ = std::string("SIMTGPU_TRACE=") + path +
                   ": cannot write: " + std::strerror(-refused_);
            *error = why_;
            return refused_;
        }
        pid_ = 1000 + int(getpid()); // apart from the simulator's and simt-trace's
        std::fprintf(f_, "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n");
        write_event("{\"ph\": \"M\", \"pid\": " + std::to_string(pid_) +
                    ", \"tid\": 0, \"name\": \"process_name\", \"args\": {\"name\": "
                    "\"CUDA streams\"}}");
        return 0;
    }
    bool enabled() {
        std::lock_guard lock(mu_);
        return f_ != nullptr;
    }
    void slice(const char *track, const char *name, uint64_t begin_ns, uint64_t end_ns) {
        std::lock_guard lock(mu_);
        if (!f_)
            return;
        auto [it, fresh] = tids_.try_emplace(track, int(tids_.size()) + 1);
        const std::string pid = std::to_string(pid_), tid = std::to_string(it->second);
        if (fresh)
            write_event("{\"ph\": \"M\", \"pid\": " + pid + ", \"tid\": " + tid +
                        ", \"name\": \"thread_name\", \"args\": {\"name\": " + quoted(track) +
                        "}}");
        char times[96];
        std::snprintf(times, sizeof times, "\"ts\": %.3f, \"dur\": %.3f", double(begin_ns) / 1e3,
                      double(end_ns - begin_ns) / 1e3);
        write_event("{\"ph\": \"X\", \"pid\": " + pid + ", \"tid\": " + tid +
                    ", \"name\": " + quoted(name) + ", " + times + "}");
    }

private:
    static constexpr const char kEnd[] = "\n], \"otherData\": {\"producer\": \"libsimtgpu\", "
                                         "\"clock\": \"device\"}}\n";
    // Replaces the document's end with the event and the end again.
    void write_event(const std::string &event) {
        if (events_++)
            std::fseek(f_, -long(sizeof kEnd - 1), SEEK_END);
        std::fprintf(f_, "%s%s%s", events_ > 1 ? ",\n" : "", event.c_str(), kEnd);
        std::fflush(f_);
    }
    static std::string quoted(const std::string &text) {
        std::string out = "\"";
        for (const char c : text) {
            if (c == '"' || c == '\\')
                out += '\\';
            if (static_cast<unsigned char>(c) >= 0x20)
                out += c;
        }
        return out + "\"";
    }
    std::mutex mu_;
    FILE *f_ = nullptr;
    int refused_ = 0; // -errno of a failed open
    std::string why_;
    int pid_ = 0;
    uint64_t events_ = 0;
    std::map<std::string, int> tids_;
};

} // namespace

int DrmTransport::open(const std::string &path, std::unique_ptr<Transport> *out,
                       std::string *error) {
    int fd = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        int err = errno;
        *error = "cannot open " + path + ": " + std::strerror(err);
        if (err == EACCES || err == EPERM)
            *error += " (add this user to the 'render' group or run as root)";
        return -err;
    }
    std::unique_ptr<Transport> t(new DrmTransport(path, fd));
    if (int rc = DrmTraceFile::get().open(error))
        return rc;
    *out = std::move(t);
    return 0;
}

DrmTransport::~DrmTransport() {
    close(fd_);
}

int DrmTransport::ioctl(unsigned long request, void *arg) {
    return drmIoctl(fd_, request, arg) == 0 ? 0 : -errno;
}

void *DrmTransport::mmap(uint64_t offset, uint64_t size) {
    void *p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd_, off_t(offset));
    return p == MAP_FAILED ? nullptr : p;
}

void *DrmTransport::mmap_at(void *at, uint64_t offset, uint64_t size) {
    void *p = ::mmap(at, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd_, off_t(offset));
    return p == MAP_FAILED ? nullptr : p;
}

void DrmTransport::munmap(void *ptr, uint64_t size) {
    if (ptr)
        ::munmap(ptr, size);
}

bool DrmTransport::tracing() {
    return DrmTraceFile::get().enabled();
}

void DrmTransport::trace_slice(const char *, const char *track, const char *name, uint64_t begin_ns,
                               uint64_t end_ns) {
    DrmTraceFile::get().slice(track, name, begin_ns, end_ns);
}

int DrmTransport::read_counters(uint64_t *out) {
    static constexpr const char *kNames[] = {
#define SIMTGPU_X(name, unit, ncu, meaning) #name,
        SIMTGPU_COUNTERS(SIMTGPU_X)
#undef SIMTGPU_X
    };
    const std::filesystem::path dir = std::filesystem::path("/sys/class/drm") /
                                      std::filesystem::path(path_).filename() / "device" /
                                      "counters";
    for (uint32_t i = 0; i < SIMTGPU_NUM_COUNTERS; ++i) {
        std::ifstream file(dir / kNames[i]);
        unsigned long long value = 0;
        if (!(file >> value))
            return -ENOENT; // an older driver, or a node without the directory
        out[i] = value;
    }
    return 0;
}

} // namespace simtgpu::umd
