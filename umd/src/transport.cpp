#include "transport.h"

#include "simtgpu/counters.h"
#include "simtgpu/hw.h"
#include "uapi/drm/simtgpu_drm.h"

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
#include <sys/stat.h>
#include <unistd.h>
#include <xf86drm.h>

namespace simtgpu::umd {

namespace {

constexpr const char *kDriverName = "simtgpu";

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

bool driver_is_simtgpu(int fd) {
    drmVersionPtr version = drmGetVersion(fd);
    if (!version)
        return false;
    bool ours = version->name && std::strcmp(version->name, kDriverName) == 0;
    drmFreeVersion(version);
    return ours;
}

// A GET_PARAM on an open render node; 0 when the kernel does not know it.
uint64_t node_param(int fd, uint32_t param) {
    drm_simtgpu_get_param args{};
    args.param = param;
    return drmIoctl(fd, DRM_IOCTL_SIMTGPU_GET_PARAM, &args) == 0 ? args.value : 0;
}

// Render nodes of the simtgpu driver, /dev/dri/renderD* in order (libdrm's
// drmGetDevices2 folds the nodes of one PCI device into one entry, and
// every partition's node is one of the same device). While the GPU is
// split into partitions, the whole GPU's node runs no work and is left
// out, as CUDA sees only MIG devices in MIG mode. SIMTGPU_RENDER_NODE
// names the one node to use (what a container is given). Sets *denied
// when a node exists that we may not open, *other when only other
// drivers' nodes exist, *partitioned when SIMTGPU_RENDER_NODE names the
// whole GPU's node of a partitioned GPU.
std::vector<std::string> find_render_nodes(bool *denied, bool *other, bool *partitioned) {
    std::vector<std::string> nodes;
    const char *only = std::getenv("SIMTGPU_RENDER_NODE");
    for (int minor = 128; minor < 192; ++minor) {
        const std::string path = "/dev/dri/renderD" + std::to_string(minor);
        if (only && *only && path != only)
            continue;
        int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
        if (fd < 0) {
            if (errno == EACCES || errno == EPERM)
                *denied = true;
            continue;
        }
        if (!driver_is_simtgpu(fd))
            *other = true;
        else if (node_param(fd, SIMTGPU_PARAM_PARTITION) != 0 ||
                 node_param(fd, SIMTGPU_PARAM_NUM_PARTITIONS) == 0)
            nodes.push_back(path);
        else if (only)
            *partitioned = true;
        close(fd);
    }
    return nodes;
}

bool module_loaded() {
    struct stat st;
    return stat("/sys/module/simtgpu", &st) == 0;
}

// The PCI address of the first simtgpu function on the bus, or "".
std::string simtgpu_pci_address() {
    std::error_code ec;
    for (const auto &entry : std::filesystem::directory_iterator("/sys/bus/pci/devices", ec)) {
        auto read_id = [&](const char *name) {
            std::ifstream in(entry.path() / name);
            unsigned long id = 0;
            in >> std::hex >> id;
            return id;
        };
        if (read_id("vendor") == SIMTGPU_PCI_VENDOR_ID &&
            read_id("device") == SIMTGPU_PCI_DEVICE_ID)
            return entry.path().filename().string();
    }
    return "";
}

// Why no render node was found, with the fix; the errno as documented at
// transport_discover.
int explain_missing_node(bool denied, bool other, bool partitioned, std::string *error) {
    if (partitioned) {
        *error = std::string("SIMTGPU_RENDER_NODE=") + std::getenv("SIMTGPU_RENDER_NODE") +
                 " is the whole GPU's node, and the GPU is split into partitions: that node "
                 "runs no work while partitioned; use a partition's render node (simt-smi "
                 "partition list shows them) or destroy the partitions";
        return -EBUSY;
    }
    if (denied) {
        *error = "permission denied opening the render node /dev/dri/renderD*: add "
                 "this user to the 'render' group or run as root";
        return -EACCES;
    }
    const std::string pci = simtgpu_pci_address();
    if (!module_loaded()) {
        if (pci.empty()) {
            *error = "no simtgpu device found: no PCI device 1234:5347 and no simtgpu kernel "
                     "module on this machine: boot the VM with scripts/run-qemu.sh (make qemu), "
                     "or set SIMTGPU_TRANSPORT=sim for the in-process simulator";
            return -ENODEV;
        }
        *error = "no simtgpu device found: the PCI device 1234:5347 at " + pci +
                 " has no driver because the simtgpu kernel module is not loaded: run "
                 "`modprobe simtgpu` (or `insmod simtgpu.ko`; `make kmd` builds it)";
        return -ENOENT;
    }
    *error = std::string("no simtgpu device found: the simtgpu module is loaded but offers no "
                         "render node") +
             (other ? " (only other drivers' render nodes exist)" : "") +
             (pci.empty() ? ", and there is no PCI device 1234:5347: start the VM with the "
                            "simtgpu device (scripts/run-qemu.sh adds it)"
                          : ": check dmesg for the simtgpu probe of " + pci);
    return -ENODEV;
}

} // namespace

const char *transport_name(TransportKind kind) {
    return kind == TransportKind::Drm ? "drm" : "sim";
}

int transport_discover(std::vector<DeviceNode> *out, std::string *error) {
    out->clear();
    const char *choice = std::getenv("SIMTGPU_TRANSPORT");
    std::string want = choice ? choice : "";
    if (!want.empty() && want != "drm" && want != "sim") {
        *error = "SIMTGPU_TRANSPORT=" + want + " is not a transport: use drm or sim";
        return -EINVAL;
    }
    if (want != "sim") {
        bool denied = false, other = false, partitioned = false;
        for (auto &path : find_render_nodes(&denied, &other, &partitioned))
            out->push_back({TransportKind::Drm, path});
        if (!out->empty())
            return 0;
        const bool hardware = denied || module_loaded() || !simtgpu_pci_address().empty();
        if (want == "drm" || hardware)
            return explain_missing_node(denied, other, partitioned, error);
    }
    out->push_back({TransportKind::Sim, "in-process"});
    return 0;
}

int transport_open(const DeviceNode &node, std::unique_ptr<Transport> *out, std::string *error) {
    std::unique_ptr<Transport> t(new Transport());
    t->kind_ = node.kind;
    t->path_ = node.path;
    if (node.kind == TransportKind::Drm) {
        t->fd_ = open(node.path.c_str(), O_RDWR | O_CLOEXEC);
        if (t->fd_ < 0) {
            int err = errno;
            *error = "cannot open " + node.path + ": " + std::strerror(err);
            if (err == EACCES || err == EPERM)
                *error += " (add this user to the 'render' group or run as root)";
            return -err;
        }
        if (int rc = DrmTraceFile::get().open(error))
            return rc;
    } else {
        if (int rc = simkmd::open_file(&t->sim_, error))
            return rc;
    }
    *out = std::move(t);
    return 0;
}

Transport::~Transport() {
    if (fd_ >= 0)
        close(fd_);
}

int transport_ioctl(Transport &t, unsigned long request, void *arg) {
    if (t.kind_ == TransportKind::Drm)
        return drmIoctl(t.fd_, request, arg) == 0 ? 0 : -errno;
    return t.sim_->ioctl(request, arg);
}

void *transport_mmap(Transport &t, uint64_t offset, uint64_t size) {
    if (t.kind_ == TransportKind::Drm) {
        void *p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, t.fd_, off_t(offset));
        return p == MAP_FAILED ? nullptr : p;
    }
    return t.sim_->mmap(offset, size);
}

void *transport_mmap_at(Transport &t, void *at, uint64_t offset, uint64_t size) {
    if (t.kind_ != TransportKind::Drm)
        return nullptr;
    void *p = mmap(at, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, t.fd_, off_t(offset));
    return p == MAP_FAILED ? nullptr : p;
}

bool transport_tracing(Transport &t) {
    if (t.kind_ == TransportKind::Drm)
        return DrmTraceFile::get().enabled();
    return t.sim_->tracing();
}

void transport_trace_slice(Transport &t, const char *process, const char *track, const char *name,
                           uint64_t begin_ns, uint64_t end_ns) {
    if (t.kind_ == TransportKind::Drm)
        DrmTraceFile::get().slice(track, name, begin_ns, end_ns);
    else if (t.sim_->tracing())
        t.sim_->trace_slice(process, track, name, begin_ns, end_ns);
}

int transport_read_counters(Transport &t, uint64_t *out) {
    if (t.kind_ == TransportKind::Sim) {
        t.sim_->read_counters(out);
        return 0;
    }
    static constexpr const char *kNames[] = {
#define SIMTGPU_X(name, unit, ncu, meaning) #name,
        SIMTGPU_COUNTERS(SIMTGPU_X)
#undef SIMTGPU_X
    };
    const std::filesystem::path dir = std::filesystem::path("/sys/class/drm") /
                                      std::filesystem::path(t.path_).filename() / "device" /
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

void transport_munmap(Transport &t, void *ptr, uint64_t size) {
    if (t.kind_ == TransportKind::Drm && ptr)
        munmap(ptr, size);
}

} // namespace simtgpu::umd
