#include "device/vram.h"

#include <cerrno>
#include <sys/mman.h>

namespace simtgpu::sim {

Expected<std::unique_ptr<Vram>> Vram::create(uint64_t bytes, void *host_backing) {
    if (host_backing)
        return std::unique_ptr<Vram>(new Vram(static_cast<uint8_t *>(host_backing), bytes, false));
    // MAP_NORESERVE: untouched pages cost neither memory nor swap reservation.
    void *p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return Error{"cannot map " + std::to_string(bytes) + " bytes of VRAM: " +
                     std::strerror(errno)};
    return std::unique_ptr<Vram>(new Vram(static_cast<uint8_t *>(p), bytes, true));
}

Vram::~Vram() {
    if (owned_)
        munmap(data_, size_);
}

} // namespace simtgpu::sim
