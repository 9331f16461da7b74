// The one seam between libsimtgpu and a kernel driver (Mesa's v3d_ioctl):
// every ioctl goes through transport_ioctl(), every BO mapping through
// transport_mmap(), and each goes either to the render node (libdrm) or to
// the in-process implementation of the uAPI on the simulator (simkmd/).
#pragma once

#include "simkmd/sim_kmd.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace simtgpu::umd {

enum class TransportKind { Drm, Sim };

const char *transport_name(TransportKind kind);

// Where a device lives: a render node path, or the in-process simulator.
struct DeviceNode {
    TransportKind kind = TransportKind::Sim;
    std::string path; // "/dev/dri/renderD128", or "in-process"
};

// One open file of a device: a render-node fd, or an in-process SimFile.
class Transport {
public:
    ~Transport();
    Transport(const Transport &) = delete;
    Transport &operator=(const Transport &) = delete;

    TransportKind kind() const { return kind_; }
    const std::string &path() const { return path_; }

private:
    Transport() = default;
    friend int transport_open(const DeviceNode &node, std::unique_ptr<Transport> *out,
                              std::string *error);
    friend int transport_ioctl(Transport &t, unsigned long request, void *arg);
    friend void *transport_mmap(Transport &t, uint64_t offset, uint64_t size);
    friend void *transport_mmap_at(Transport &t, void *at, uint64_t offset, uint64_t size);
    friend void transport_munmap(Transport &t, void *ptr, uint64_t size);
// The render node's mapping of a BO at exactly `at` (MAP_FIXED over what the
// caller reserved there), or nullptr; the in-process transport has none.
void *transport_mmap_at(Transport &t, void *at, uint64_t offset, uint64_t size);
    friend bool transport_tracing(Transport &t);
    friend void transport_trace_slice(Transport &t, const char *process, const char *track,
                                      const char *name, uint64_t begin_ns, uint64_t end_ns);
    friend int transport_read_counters(Transport &t, uint64_t *out);

    TransportKind kind_ = TransportKind::Sim;
    std::string path_;
    int fd_ = -1;
    std::unique_ptr<simkmd::SimFile> sim_;
};

// Finds the devices SIMTGPU_TRANSPORT allows: "drm" (render nodes whose
// driver is simtgpu), "sim" (the in-process device), unset (render nodes if
// any; else the in-process device, but only on a machine with no simtgpu
// hardware or driver at all, so that a broken driver setup is reported, not
// silently replaced by a simulator). Returns 0, or a negative errno with
// *error saying what is wrong and how to fix it: -EACCES (a node we may not
// open), -ENOENT (the PCI device is there, the module is not loaded),
// -ENODEV (no device), -EBUSY (SIMTGPU_RENDER_NODE names the whole GPU's
// node while the GPU is partitioned), -EINVAL (bad SIMTGPU_TRANSPORT).
int transport_discover(std::vector<DeviceNode> *out, std::string *error);

int transport_open(const DeviceNode &node, std::unique_ptr<Transport> *out, std::string *error);
// 0 or a negative errno.
int transport_ioctl(Transport &t, unsigned long request, void *arg);
// A CPU mapping of the BO at a BO_MMAP_OFFSET offset, or nullptr.
void *transport_mmap(Transport &t, uint64_t offset, uint64_t size);
void transport_munmap(Transport &t, void *ptr, uint64_t size);
// Whether the device writes a trace that drivers add to (the in-process
// transport with SIMTGPU_TRACE, docs/trace.md), and a slice of device time
// (ns of its global timer) for it.
bool transport_tracing(Transport &t);
void transport_trace_slice(Transport &t, const char *process, const char *track, const char *name,
                           uint64_t begin_ns, uint64_t end_ns);
// The device's counters, SIMTGPU_NUM_COUNTERS of them in the order of
// include/simtgpu/counters.h: the in-process device's BAR0 counter block, or
// the kernel driver's sysfs counters/ of the render node's device (the whole
// GPU's, also on a partition's node). 0, or a negative errno.
int transport_read_counters(Transport &t, uint64_t *out);

} // namespace simtgpu::umd
