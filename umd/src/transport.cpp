// Device discovery (render nodes of the simtgpu driver, or the in-process
// device) and the factory that opens a device with its transport.
#include "transport.h"

#include "drm_transport.h"
#include "sim_transport.h"

#include "simtgpu/hw.h"
#include "uapi/drm/simtgpu_drm.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>
#include <xf86drm.h>

namespace simtgpu::umd {

namespace {

constexpr const char *kDriverName = "simtgpu";

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
    if (node.kind == TransportKind::Drm)
        return DrmTransport::open(node.path, out, error);
    return SimTransport::open(out, error);
}

} // namespace simtgpu::umd
