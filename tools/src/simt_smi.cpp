// simt-smi: nvidia-smi for the simulated GPU (docs/tools.md).
#include "gpu_snapshot.h"
#include "system_info.h"

#include "simtgpu/simtgpu.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
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
                 "SIMTGPU_TRANSPORT=sim shows the in-process simulator instead of the kernel driver.\n");
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
    g->vram_total = p.vram_size;
    uint64_t used = 0, total = 0;
    if (simtgpuDeviceGetMemInfo(dev, &used, &total) == SIMTGPU_SUCCESS)
        g->vram_used = used;
    pci->reset();
    if (g->transport != "drm")
        return true;
    std::string render = g->node.substr(g->node.rfind('/') + 1);
    for (auto &f : find_simtgpu_functions("/sys"))
        if (f.render_node == render)
            *pci = f;
    g->driver_version = drm_driver_version(g->node);
    if (*pci) {
        g->pci_bus_id = (*pci)->address;
        DriverAttributes a = read_driver_attributes(**pci);
        g->temperature_mdeg = a.temperature_mdeg;
        // This process holds the device open for the queries: not a user of it.
        for (auto &proc : find_client_processes("/proc", "simtgpu", g->pci_bus_id))
            if (proc.pid != getpid())
                g->processes.push_back(proc);
    }
    return true;
}

std::string now_string() {
    std::time_t t = std::time(nullptr);
    char text[64];
    std::strftime(text, sizeof(text), "%a %b %e %H:%M:%S %Y", std::localtime(&t));
    return text;
}

} // namespace

int main(int argc, char **argv) {
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
