// The in-process transport: the uAPI implemented in this process on the
// simulator library (simkmd/sim_kmd.h), as Mesa's v3d_simulator.c emulates
// the v3d kernel driver.
#pragma once

#include "simkmd/sim_kmd.h"
#include "transport.h"

namespace simtgpu::umd {

class SimTransport final : public Transport {
public:
    // Opens a file on the process's simulated device (made on first use).
    static int open(std::unique_ptr<Transport> *out, std::string *error);

    int ioctl(unsigned long request, void *arg) override { return file_->ioctl(request, arg); }
    void *mmap(uint64_t offset, uint64_t size) override { return file_->mmap(offset, size); }
    // BOs live in the simulator's VRAM, which is mapped where it is.
    void *mmap_at(void *, uint64_t, uint64_t) override { return nullptr; }
    void munmap(void *, uint64_t) override {}
    bool tracing() override { return file_->tracing(); }
    void trace_slice(const char *process, const char *track, const char *name, uint64_t begin_ns,
                     uint64_t end_ns) override;
    int read_counters(uint64_t *out) override;
    bool services_page_faults() const override { return false; }

private:
    explicit SimTransport(std::unique_ptr<simkmd::SimFile> file) : file_(std::move(file)) {}
    std::unique_ptr<simkmd::SimFile> file_;
};

} // namespace simtgpu::umd
