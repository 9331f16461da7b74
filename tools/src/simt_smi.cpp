// simt-smi: nvidia-smi for the simulated GPU (docs/tools.md).
#include "gpu_snapshot.h"
#include "system_info.h"

#include "simtgpu/simtgpu.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <dirent.h>
#include <fcntl.h>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <unistd.h>
#include <xf86drm.h>

using namespace simtgpu::tools;

namespace {

constexpr int kExitNoDevice = 9; // as nvidia-smi when it cannot reach the driver
constexpr int kExitUsage = 2;

void usage(FILE *to) {
    std::fprintf(to,
                 "usage: simt-smi [-i INDEX] [-l SEC] [-q | --query-gpu=FIELDS --format=csv[,noheader][,nounits]]\n"
                 "  (no option)        summary table of every device and its processes\n"
                 "  -q                 full report\n"
                 "  --query-gpu=F,...  chosen fields, one line per device (needs --format=csv)\n"
                 "  --help-query-gpu   list the fields\n"
                 "  -l SEC             repeat every SEC seconds until interrupted\n"
                 "  -i INDEX           only this device\n"
                 "SIMTGPU_TRANSPORT=sim shows the in-process simulator instead of the kernel driver.\n"
                 "Sharing (docs/sharing.md; the commands that change it need root):\n"
                 "  simt-smi sharing                          policy, partitions, every client's VRAM\n"
                 "                                            and GPU time against its limit and weight\n"
                 "  simt-smi policy set NAME | policy list    the scheduling policy\n"
                 "  simt-smi partition create --sms N --vram SIZE   (SIZE: bytes or 64M, 1G...)\n"
                 "  simt-smi partition list | partition destroy ID\n");
}

struct Options {
    int index = -1;
    int loop_seconds = 0;
    bool full = false;
    std::vector<std::string> query;
    std::optional<CsvFormat> format;
};

bool parse_int(const char *text, int *out) {
    char *end = nullptr;
    long v = std::strtol(text, &end, 10);
    if (!text[0] || *end || v < 0 || v > 1000000)
        return false;
    *out = int(v);
    return true;
}

// Returns an exit status when the program should stop, -1 to go on.
int parse_options(int argc, char **argv, Options *o) {
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        auto value = [&](const char *flag) -> const char * {
            if (arg.rfind(std::string(flag) + "=", 0) == 0)
                return argv[i] + std::strlen(flag) + 1;
            if (arg == flag && i + 1 < argc)
                return argv[++i];
            return nullptr;
        };
        const char *v = nullptr;
        if (arg == "-h" || arg == "--help") {
            usage(stdout);
            return 0;
        } else if (arg == "--help-query-gpu") {
            for (const auto &f : query_fields())
                std::printf("%-18s %s\n", f.name, f.help);
            return 0;
        } else if (arg == "-q" || arg == "--query") {
            o->full = true;
        } else if ((v = value("-l")) || (v = value("--loop"))) {
            if (!parse_int(v, &o->loop_seconds) || o->loop_seconds == 0) {
                std::fprintf(stderr, "simt-smi: -l needs a number of seconds > 0, not '%s'\n", v);
                return kExitUsage;
            }
        } else if ((v = value("-i")) || (v = value("--id"))) {
            if (!parse_int(v, &o->index)) {
                std::fprintf(stderr, "simt-smi: -i needs a device index, not '%s'\n", v);
                return kExitUsage;
            }
        } else if ((v = value("--query-gpu"))) {
            std::string error;
            auto fields = parse_query(v, &error);
            if (!fields) {
                std::fprintf(stderr, "simt-smi: %s (simt-smi --help-query-gpu lists them)\n",
                             error.c_str());
                return kExitUsage;
            }
            o->query = *fields;
        } else if ((v = value("--format"))) {
            o->format = parse_csv_format(v);
            if (!o->format) {
                std::fprintf(stderr, "simt-smi: --format takes csv[,noheader][,nounits], not '%s'\n",
                             v);
                return kExitUsage;
            }
        } else {
            std::fprintf(stderr, "simt-smi: unknown option %s\n", argv[i]);
            usage(stderr);
            return kExitUsage;
        }
    }
    if (!o->query.empty() && !o->format) {
        std::fprintf(stderr, "simt-smi: --query-gpu needs --format=csv\n");
        return kExitUsage;
    }
    return -1;
}

std::string drm_driver_version(const std::string &node) {
    int fd = open(node.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return "";
    std::string text;
    if (drmVersionPtr v = drmGetVersion(fd)) {
        text = std::to_string(v->version_major) + "." + std::to_string(v->version_minor) + "." +
               std::to_string(v->version_patchlevel) + " (" + (v->date ? v->date : "") + ")";
        drmFreeVersion(v);
    }
    close(fd);
    return text;
}

uint32_t runtime_uapi_version() {
    int v = 0;
    simtgpuDriverGetVersion(&v); // major * 1000 + minor * 10
    return uint32_t(v / 1000) << 16 | uint32_t(v % 1000 / 10);
}

// Everything but the utilisation, which needs an interval.
bool collect(int index, GpuSnapshot *g, std::optional<PciFunction> *pci) {
    simtgpuDevice dev = 0;
    simtgpuDeviceProperties p{};
    if (simtgpuDeviceGet(&dev, index) || simtgpuDeviceGetProperties(&p, dev))
        return false;
    *g = GpuSnapshot{};
    g->index = index;
    g->name = p.name;
    g->transport = p.transport;
    g->node = p.node;
    g->uapi_driver = p.uapi_version;
    g->uapi_runtime = runtime_uapi_version();
    g->arch = p.arch;
    g->num_sms = p.num_sms;
    g->warp_size = p.warp_size;
    g->warps_per_sm = p.warps_per_sm;
    g->ctas_per_sm = p.ctas_per_sm;
    g->shared_per_sm = p.shared_per_sm;
    g->max_threads_per_cta = p.max_threads_per_cta;
    g->clock_khz = p.clock_khz;
    g->l2_bytes = p.l2_size;
    g->mem_bus_width = p.mem_bus_width;
    g->mem_clock_khz = p.mem_clock_khz;
    g->vram_total = p.vram_size;
    uint64_t used = 0, total = 0;
    if (simtgpuDeviceGetMemInfo(dev, &used, &total) == SIMTGPU_SUCCESS)
        g->vram_used = used;
    pci->reset();
    if (g->transport != "drm")
        return true;
    std::string render = g->node.substr(g->node.rfind('/') + 1);
    // A partition's render node is one more of the same PCI device's.
    for (auto &f : find_simtgpu_functions("/sys"))
        if (f.render_node == render || access((f.sysfs_path + "/drm/" + render).c_str(), F_OK) == 0)
            *pci = f;
    g->driver_version = drm_driver_version(g->node);
    if (*pci) {
        g->pci_bus_id = (*pci)->address;
        DriverAttributes a = read_driver_attributes(**pci);
        g->temperature_mdeg = a.temperature_mdeg;
        g->counters = a.counters;
        // This process holds the device open for the queries: not a user of it.
        for (auto &proc : find_client_processes("/proc", "simtgpu", g->pci_bus_id))
            if (proc.pid != getpid())
                g->processes.push_back(proc);
    }
    return true;
}

// ------------------------------------------------------------ sharing ---

// The kernel driver's sysfs directory (the PCI device), or "" with a reason.
std::string driver_dir(std::string *why) {
    for (auto &f : find_simtgpu_functions("/sys"))
        if (f.driver == "simtgpu")
            return f.sysfs_path;
    *why = "no PCI device 1234:5347 bound to the simtgpu kernel module (modprobe simtgpu; "
           "simt-doctor says more)";
    return "";
}

std::string read_text(const std::string &path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// Writes @text to a driver file; the kernel's refusal as a sentence.
bool write_driver_file(const std::string &path, const std::string &text, std::string *why) {
    int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
        *why = "cannot open " + path + ": " + std::strerror(errno) +
               (errno == EACCES ? " (run as root)" : "");
        return false;
    }
    bool ok = write(fd, text.data(), text.size()) == ssize_t(text.size());
    int err = errno;
    close(fd);
    if (!ok)
        *why = path + " refused '" + text + "': " + std::strerror(err);
    return ok;
}

// One render-node client's fdinfo keys, by drm-client-id.
struct SharingClient {
    int pid = 0;
    std::string command;
    std::map<std::string, std::string> keys;
};

std::vector<SharingClient> sharing_clients() {
    std::map<std::string, SharingClient> by_id;
    DIR *proc = opendir("/proc");
    if (!proc)
        return {};
    while (dirent *p = readdir(proc)) {
        int pid = std::atoi(p->d_name);
        if (pid <= 0 || pid == getpid())
            continue;
        std::string base = std::string("/proc/") + p->d_name;
        DIR *fds = opendir((base + "/fd").c_str());
        if (!fds)
            continue;
        while (dirent *f = readdir(fds)) {
            char link[256] = {};
            if (readlink((base + "/fd/" + f->d_name).c_str(), link, sizeof(link) - 1) <= 0 ||
                std::strncmp(link, "/dev/dri/renderD", 16) != 0)
                continue;
            std::ifstream in(base + "/fdinfo/" + f->d_name);
            SharingClient c;
            c.pid = pid;
            for (std::string line; std::getline(in, line);) {
                size_t colon = line.find(':');
                if (colon == std::string::npos)
                    continue;
                size_t v = line.find_first_not_of(" \t", colon + 1);
                c.keys[line.substr(0, colon)] = v == std::string::npos ? "" : line.substr(v);
            }
            if (c.keys["drm-driver"] != "simtgpu")
                continue;
            c.command = read_text(base + "/comm");
            if (!c.command.empty() && c.command.back() == '\n')
                c.command.pop_back();
            by_id[c.keys["drm-client-id"]] = c;
        }
        closedir(fds);
    }
    closedir(proc);
    std::vector<SharingClient> out;
    for (auto &[id, c] : by_id)
        out.push_back(c);
    return out;
}

// "123456789 ns" -> "123.5 ms"; "12345 KiB" -> "12.1 MiB".
std::string ns_as_ms(const std::string &v) {
    char text[32];
    std::snprintf(text, sizeof(text), "%.1f ms", std::strtod(v.c_str(), nullptr) / 1e6);
    return text;
}
std::string kib_as_mib(const std::string &v) {
    if (v.empty() || v == "max")
        return v.empty() ? "-" : "max";
    char text[32];
    std::snprintf(text, sizeof(text), "%.1f MiB", std::strtod(v.c_str(), nullptr) / 1024);
    return text;
}

int show_sharing(const std::string &dir) {
    std::string policy = read_text(dir + "/sched_policy");
    std::printf("Policy:     %s", policy.c_str());
    std::printf("Time slice: %s", read_text(dir + "/timeslice_duration_ms").c_str());
    std::printf("GPU resets: %s", read_text(dir + "/gpu_resets").c_str());
    std::string parts = read_text(dir + "/partitions");
    std::printf("Partitions: %s\n%s", parts.empty() ? "none (the whole GPU is one device)" : "",
                parts.c_str());
    auto clients = sharing_clients();
    std::printf("Clients:    %zu\n", clients.size());
    if (clients.empty())
        return 0;
    std::printf("  %-7s %-15s %-6s %-4s %-20s %11s %11s %12s %6s %12s %7s %11s\n", "PID",
                "COMMAND", "CLIENT", "PART", "CGROUP", "VRAM", "VRAM-LIMIT", "GPU-TIME",
                "WEIGHT", "VTIME", "SLICES", "PREEMPTIONS");
    for (auto &c : clients) {
        auto key = [&](const char *k) {
            auto it = c.keys.find(k);
            return it == c.keys.end() ? std::string() : it->second;
        };
        std::string part = key("simtgpu-partition");
        std::printf("  %-7d %-15s %-6s %-4s %-20s %11s %11s %12s %6s %12s %7s %11s\n", c.pid,
                    c.command.c_str(), key("drm-client-id").c_str(),
                    part.empty() ? "-" : part.c_str(), key("simtgpu-cgroup").c_str(),
                    kib_as_mib(key("drm-memory-vram")).c_str(),
                    kib_as_mib(key("simtgpu-cgroup-vram-max")).c_str(),
                    ns_as_ms(key("simtgpu-gpu-time")).c_str(), key("simtgpu-weight").c_str(),
                    ns_as_ms(key("simtgpu-vtime")).c_str(), key("simtgpu-slices").c_str(),
                    key("simtgpu-preemptions").c_str());
    }
    return 0;
}

// "64M", "1G", "4096": bytes; 0 when not a size.
uint64_t parse_size(const std::string &text) {
    char *end = nullptr;
    unsigned long long v = std::strtoull(text.c_str(), &end, 10);
    if (text.empty() || end == text.c_str())
        return 0;
    std::string unit = end;
    std::transform(unit.begin(), unit.end(), unit.begin(), ::toupper);
    if (unit == "K" || unit == "KB" || unit == "KIB")
        return v << 10;
    if (unit == "M" || unit == "MB" || unit == "MIB")
        return v << 20;
    if (unit == "G" || unit == "GB" || unit == "GIB")
        return v << 30;
    return unit.empty() ? v : 0;
}

// simt-smi sharing | policy ... | partition ...: an exit status.
int sharing_command(int argc, char **argv) {
    std::string why;
    std::string dir = driver_dir(&why);
    if (dir.empty()) {
        std::fprintf(stderr, "simt-smi: %s\n", why.c_str());
        return kExitNoDevice;
    }
    std::string cmd = argv[1];
    std::string sub = argc > 2 ? argv[2] : "";
    if (cmd == "sharing" && argc == 2)
        return show_sharing(dir);
    if (cmd == "policy" && (sub == "list" || sub == "show") && argc == 3) {
        std::printf("%s", read_text(dir + "/sched_policy").c_str());
        return 0;
    }
    if (cmd == "policy" && sub == "set" && argc == 4) {
        if (!write_driver_file(dir + "/sched_policy", argv[3], &why)) {
            std::fprintf(stderr, "simt-smi: %s (simt-smi policy list shows the policies)\n",
                         why.c_str());
            return 1;
        }
        std::printf("Scheduling policy: %s", read_text(dir + "/sched_policy").c_str());
        return 0;
    }
    if (cmd == "partition" && sub == "list" && argc == 3) {
        std::string parts = read_text(dir + "/partitions");
        std::printf("%s", parts.empty() ? "No partitions.\n" : parts.c_str());
        return 0;
    }
    if (cmd == "partition" && sub == "destroy" && argc == 4) {
        if (!write_driver_file(dir + "/partition_destroy", argv[3], &why)) {
            std::fprintf(stderr, "simt-smi: %s (EBUSY: a process still has its render node "
                                 "open; ENOENT: no such partition, see simt-smi partition list)\n",
                         why.c_str());
            return 1;
        }
        std::printf("Destroyed partition %s\n", argv[3]);
        return 0;
    }
    if (cmd == "partition" && sub == "create") {
        std::string sms, vram;
        for (int i = 3; i + 1 < argc; i += 2) {
            std::string a = argv[i];
            if (a == "--sms")
                sms = argv[i + 1];
            else if (a == "--vram")
                vram = argv[i + 1];
            else
                sms = vram = "";
        }
        uint64_t bytes = parse_size(vram);
        if ((argc - 3) % 2 || sms.empty() || !bytes) {
            std::fprintf(stderr, "simt-smi: partition create needs --sms N --vram SIZE (SIZE "
                                 "in bytes or with K, M, G)\n");
            return kExitUsage;
        }
        std::string before = read_text(dir + "/partitions");
        if (!write_driver_file(dir + "/partition_create", sms + " " + std::to_string(bytes),
                               &why)) {
            std::fprintf(stderr, "simt-smi: %s (EINVAL: 1 <= SMs < the GPU's, 16 MiB <= VRAM < "
                                 "the GPU's, whole pages; EBUSY: a process has queues open, "
                                 "partitions are made on an idle GPU; ENOSPC: the SMs, VRAM or "
                                 "rings left do not suffice)\n",
                         why.c_str());
            return 1;
        }
        std::string after = read_text(dir + "/partitions");
        std::istringstream lines(after);
        for (std::string line; std::getline(lines, line);)
            if (before.find(line.substr(0, line.find(' ') + 1) + "sms=") == std::string::npos)
                std::printf("Created partition %s\n", line.c_str());
        return 0;
    }
    std::fprintf(stderr, "simt-smi: unknown %s command\n", cmd.c_str());
    usage(stderr);
    return kExitUsage;
}

std::string now_string() {
    std::time_t t = std::time(nullptr);
    char text[64];
    std::strftime(text, sizeof(text), "%a %b %e %H:%M:%S %Y", std::localtime(&t));
    return text;
}

} // namespace

int main(int argc, char **argv) {
    if (argc > 1 && (std::strcmp(argv[1], "sharing") == 0 || std::strcmp(argv[1], "policy") == 0 ||
                     std::strcmp(argv[1], "partition") == 0))
        return sharing_command(argc, argv);
    Options o;
    if (int status = parse_options(argc, argv, &o); status >= 0)
        return status;

    // The tool reports on the GPU: without a render node it says so rather
    // than falling back to a private in-process simulator.
    setenv("SIMTGPU_TRANSPORT", "drm", 0);
    if (simtgpuResult r = simtgpuInit(0)) {
        // For a missing device libsimtgpu's detail starts "no simtgpu device
        // found: <cause and fix>".
        bool missing = r == SIMTGPU_ERROR_NO_DEVICE || r == SIMTGPU_ERROR_DRIVER_NOT_LOADED;
        std::fprintf(stderr,
                     "simt-smi: %s%s\n"
                     "simt-smi: simt-doctor checks the whole chain and says how to fix it.\n",
                     missing ? "" : "cannot use the simtgpu device: ", simtgpuGetErrorDetail());
        return r == SIMTGPU_ERROR_VERSION_MISMATCH ? kExitNoDevice + 1 : kExitNoDevice;
    }
    int count = 0;
    simtgpuDeviceGetCount(&count);
    if (o.index >= count) {
        std::fprintf(stderr, "simt-smi: no device %d (%d found)\n", o.index, count);
        return kExitUsage;
    }
    std::vector<int> indices;
    for (int i = 0; i < count; ++i)
        if (o.index < 0 || o.index == i)
            indices.push_back(i);

    // Utilisation is over the interval between two reads of the driver's
    // counter: prime it, then sample after half a second or after -l SEC.
    std::vector<std::optional<PciFunction>> pci(indices.size());
    std::vector<GpuSnapshot> gpus(indices.size());
    std::vector<DriverAttributes> previous(indices.size());
    for (size_t k = 0; k < indices.size(); ++k)
        if (collect(indices[k], &gpus[k], &pci[k]) && pci[k])
            previous[k] = read_driver_attributes(*pci[k]);
    auto interval = o.loop_seconds ? std::chrono::milliseconds(o.loop_seconds * 1000)
                                   : std::chrono::milliseconds(500);
    for (bool first = true;; first = false) {
        std::this_thread::sleep_for(interval);
        for (size_t k = 0; k < indices.size(); ++k) {
            if (!collect(indices[k], &gpus[k], &pci[k])) {
                std::fprintf(stderr, "simt-smi: device %d: %s\n", indices[k],
                             simtgpuGetErrorDetail());
                return kExitNoDevice;
            }
            if (pci[k]) {
                DriverAttributes now = read_driver_attributes(*pci[k]);
                gpus[k].utilisation_percent = now.utilisation_percent;
                gpus[k].sm_activity_percent = sm_activity_percent(previous[k], now);
                previous[k] = std::move(now);
            }
        }
        std::string out;
        if (!o.query.empty()) {
            CsvFormat format = *o.format;
            format.header = format.header && first;
            out = format_csv(gpus, o.query, format);
        } else if (o.full) {
            out = format_full_report(gpus, now_string());
        } else {
            out = format_table(gpus, now_string());
        }
        std::fputs(out.c_str(), stdout);
        std::fflush(stdout);
        if (!o.loop_seconds)
            return 0;
    }
}
