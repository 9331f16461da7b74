#include "device/vram.h"

#include <cerrno>
#include <sys/mman.h>
#include <unistd.h>

namespace simtgpu::sim {

Expected<std::unique_ptr<Vram>> Vram::create(uint64_t bytes, void *host_backing,
                                             simtgpu_vram_discard_fn discard, void *opaque) {
    if (host_backing)
        return std::unique_ptr<Vram>(
            new Vram(static_cast<uint8_t *>(host_backing), bytes, false, discard, opaque));
    // MAP_NORESERVE: untouched pages cost neither memory nor swap reservation.
    void *p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return Error{"cannot map " + std::to_string(bytes) + " bytes of VRAM: " +
                     std::strerror(errno)};
    return std::unique_ptr<Vram>(
        new Vram(static_cast<uint8_t *>(p), bytes, true, nullptr, nullptr));
}

bool Vram::discard(uint8_t *first, uint8_t *last) const {
    // MADV_DONTNEED on our private anonymous mapping: the pages read as zero
    // from now on, and are backed again only when written.
    if (owned_)
        return madvise(first, size_t(last - first), MADV_DONTNEED) == 0;
    return discard_ && discard_(opaque_, uint64_t(first - data_), uint64_t(last - first)) == 0;
}

void Vram::clear(uint64_t offset, uint64_t length) const {
    uint8_t *begin = data_ + offset, *end = begin + length;
    const uintptr_t page = uintptr_t(sysconf(_SC_PAGESIZE));
    auto *first = reinterpret_cast<uint8_t *>((uintptr_t(begin) + page - 1) & ~(page - 1));
    auto *last = reinterpret_cast<uint8_t *>(uintptr_t(end) & ~(page - 1));
    if (first < last && discard(first, last)) {
        std::memset(begin, 0, size_t(first - begin));
        std::memset(last, 0, size_t(end - last));
        return;
    }
    std::memset(begin, 0, length);
}

Vram::~Vram() {
    if (owned_)
        munmap(data_, size_);
}

} // namespace simtgpu::sim
