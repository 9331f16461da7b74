// The kernel driver's transport: an open render node of the simtgpu DRM
// driver (kmd/), reached through libdrm.
#pragma once

#include "transport.h"

namespace simtgpu::umd {

class DrmTransport final : public Transport {
public:
    // Opens the render node at `path` (and SIMTGPU_TRACE's file, once).
    static int open(const std::string &path, std::unique_ptr<Transport> *out, std::string *error);
    ~DrmTransport() override;

    int ioctl(unsigned long request, void *arg) override;
    void *mmap(uint64_t offset, uint64_t size) override;
    void *mmap_at(void *at, uint64_t offset, uint64_t size) override;
    void munmap(void *ptr, uint64_t size) override;
    // SIMTGPU_TRACE: the device's trace is the host's (QEMU trace=), so
    // libsimtgpu writes its streams' slices to a file of its own.
    bool tracing() override;
    void trace_slice(const char *process, const char *track, const char *name, uint64_t begin_ns,
                     uint64_t end_ns) override;
    // The kernel driver's sysfs counters/ of the render node's device (the
    // whole GPU's, also on a partition's node).
    int read_counters(uint64_t *out) override;
    bool services_page_faults() const override { return true; }

private:
    DrmTransport(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
    std::string path_;
    int fd_;
};

} // namespace simtgpu::umd
