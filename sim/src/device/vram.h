// The device's VRAM (BAR2): either the library's own anonymous mapping,
// reserved but not committed so that a large VRAM costs host memory only as
// it is touched, or a buffer the host provides (QEMU's BAR RAM, given back
// to it through the host's discard callback).
#pragma once

#include "simtgpu/sim.h"
#include "support/expected.h"

#include <cstdint>
#include <cstring>
#include <memory>

namespace simtgpu::sim {

class Vram {
public:
    // host_backing: NULL to map our own, else `bytes` of host memory that
    // outlives this object, whose pages `discard` (may be NULL) returns.
    static Expected<std::unique_ptr<Vram>> create(uint64_t bytes, void *host_backing,
                                                  simtgpu_vram_discard_fn discard = nullptr,
                                                  void *opaque = nullptr);
    ~Vram();
    Vram(const Vram &) = delete;
    Vram &operator=(const Vram &) = delete;

    uint8_t *data() const { return data_; }
    uint64_t size() const { return size_; }
    // Whether [offset, offset + length) lies inside VRAM (overflow-safe).
    bool contains(uint64_t offset, uint64_t length) const {
        return offset <= size_ && length <= size_ - offset;
    }
    // Zeroes [offset, offset + length), inside VRAM: whole pages are
    // returned to the host (our own mapping, or the host's through its
    // discard callback), the rest is written. Const as data() is: the
    // contents are not the object's state.
    void clear(uint64_t offset, uint64_t length) const;
    // Little-endian accessors; the caller checks contains() first.
    uint32_t read32(uint64_t offset) const {
        uint32_t v;
        std::memcpy(&v, data_ + offset, sizeof v);
        return v;
    }
    uint64_t read64(uint64_t offset) const {
        uint64_t v;
        std::memcpy(&v, data_ + offset, sizeof v);
        return v;
    }

private:
    Vram(uint8_t *data, uint64_t size, bool owned, simtgpu_vram_discard_fn discard, void *opaque)
        : data_(data), size_(size), owned_(owned), discard_(discard), opaque_(opaque) {}
    // Returns [first, last), whole host pages, to the host; false: not done.
    bool discard(uint8_t *first, uint8_t *last) const;

    uint8_t *data_;
    uint64_t size_;
    bool owned_;
    simtgpu_vram_discard_fn discard_;
    void *opaque_;
};

} // namespace simtgpu::sim
