// The in-process transport: the uAPI ioctls of include/uapi/drm/simtgpu_drm.h
// (and the DRM core ioctls libsimtgpu uses: GEM_CLOSE, SYNCOBJ_*), implemented
// in userspace on the simulator library, the way Mesa's v3d_simulator.c
// emulates the v3d kernel driver. It is a small kernel driver: a VRAM
// allocator, per-file address spaces with page tables written into the
// simulated VRAM, the rings, SET_CONTEXT/INDIRECT/FENCE, fence completion on
// the simulator's interrupt, syncobjs, exceptions turned into job errors and
// queue state, and job timeouts with a device reset. docs/umd.md describes
// where its semantics are those of kmd/ and where they differ.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace simtgpu::umd::simkmd {

class SimDevice;
struct FileState;

// One open file: a GPU address space and the handles that live in it.
class SimFile {
public:
    SimFile(std::shared_ptr<SimDevice> device, std::unique_ptr<FileState> state);
    ~SimFile();
    SimFile(const SimFile &) = delete;
    SimFile &operator=(const SimFile &) = delete;

    // 0 or a negative errno, exactly as ioctl(2) on the render node would
    // report it.
    int ioctl(unsigned long request, void *arg);
    // The CPU mapping of a BO at a BO_MMAP_OFFSET offset; nullptr when the
    // offset names no BO of this file or size exceeds it.
    void *mmap(uint64_t offset, uint64_t size);
    // Whether the simulator writes a trace (SIMTGPU_TRACE, docs/trace.md),
    // and a host slice for it (simtgpu_sim_trace_slice).
    bool tracing() const;
    int trace_slice(const char *process, const char *track, const char *name, uint64_t begin_ns,
                    uint64_t end_ns);
    // The device's counters (include/simtgpu/counters.h, SIMTGPU_NUM_COUNTERS
    // of them, in its order) from its BAR0 counter block.
    void read_counters(uint64_t *out) const;

private:
    std::shared_ptr<SimDevice> device_;
    std::unique_ptr<FileState> state_;
};

// Opens a file on the process's simulated device, creating the device (and
// loading libsimtgpu-sim.so) on first use. Returns 0, or a negative errno with
// a sentence in *error saying what is wrong and how to fix it.
int open_file(std::unique_ptr<SimFile> *out, std::string *error);

} // namespace simtgpu::umd::simkmd
