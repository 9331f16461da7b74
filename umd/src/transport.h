// The one seam between libsimtgpu and a kernel driver (Mesa's v3d_ioctl):
// every ioctl, BO mapping, trace slice and counter read goes through a
// Transport, an open file of a device. Two implementations: DrmTransport
// (drm_transport.cpp), the render node of the kernel driver through libdrm,
// and SimTransport (sim_transport.cpp), the in-process implementation of the
// uAPI on the simulator (simkmd/). transport.cpp finds the devices that
// SIMTGPU_TRANSPORT allows and opens the implementation a device needs.
#pragma once

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

// One open file of a device.
class Transport {
public:
    Transport() = default;
    virtual ~Transport() = default;
    Transport(const Transport &) = delete;
    Transport &operator=(const Transport &) = delete;

    // 0 or a negative errno, exactly as ioctl(2) on the render node.
    virtual int ioctl(unsigned long request, void *arg) = 0;
    // A CPU mapping of the BO at a BO_MMAP_OFFSET offset, or nullptr.
    virtual void *mmap(uint64_t offset, uint64_t size) = 0;
    // The mapping of a BO at exactly `at` (MAP_FIXED over what the caller
    // reserved there), or nullptr where the transport cannot place one.
    virtual void *mmap_at(void *at, uint64_t offset, uint64_t size) = 0;
    // Undoes mmap or mmap_at.
    virtual void munmap(void *ptr, uint64_t size) = 0;
    // Whether the device writes a trace that drivers add to (SIMTGPU_TRACE,
    // docs/trace.md), and a slice of device time (ns of its global timer)
    // for it.
    virtual bool tracing() = 0;
    virtual void trace_slice(const char *process, const char *track, const char *name,
                             uint64_t begin_ns, uint64_t end_ns) = 0;
    // The device's counters, SIMTGPU_NUM_COUNTERS of them in the order of
    // include/simtgpu/counters.h. 0, or a negative errno.
    virtual int read_counters(uint64_t *out) = 0;
    // Whether the driver behind it services the GPU's replayable page faults,
    // which managed BOs need (only the kernel driver does).
    virtual bool services_page_faults() const = 0;
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

// Opens a file of `node` with the implementation its kind names. 0, or a
// negative errno with *error saying what is wrong and how to fix it.
int transport_open(const DeviceNode &node, std::unique_ptr<Transport> *out, std::string *error);

} // namespace simtgpu::umd
