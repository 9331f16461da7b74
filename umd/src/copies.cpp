// The Context's copies and fills: which engine moves the bytes. api.cpp has
// checked the arguments (the device ranges lie inside allocations of this
// context); each function here picks the strategy:
//   - managed memory on either side: the CPU, in stream order (the device's
//     copy engine takes no replayable page faults, and a CPU access moves
//     each page home; docs/umd.md);
//   - pinned host memory: a COPY packet, the device reaching it by DMA;
//   - pageable host memory to the device: staged now into a BO the device
//     copies from (the caller may reuse its buffer at once);
//   - pageable host memory from the device: synchronous for the stream, as
//     in CUDA;
//   - device to device: a COPY packet; fills: a FILL packet for the 4-byte
//     aligned middle, the CPU for ragged ends.
#include "driver.h"

#include "uapi/drm/simtgpu_drm.h"

#include <cstring>

namespace simtgpu::umd {

namespace {

std::vector<uint32_t> copy_packet(uint64_t src, uint64_t dst, uint64_t bytes) {
    std::vector<uint32_t> ib;
    put_packet(ib, SIMTGPU_PKT_COPY, simtgpu_pkt_copy{src, dst, bytes});
    return ib;
}

} // namespace

uint8_t *Context::managed_cpu(uint64_t va, uint64_t bytes) {
    Bo *bo = find_device(va, bytes);
    return bo && bo->kind == BoKind::Managed ? bo->cpu + (va - bo->va) : nullptr;
}

simtgpuResult Context::memcpy_htod(uint64_t dst, const void *src, uint64_t bytes) {
    Bo *bo = find_device(dst, bytes);
    if (simtgpuResult r = synchronize_all())
        return r;
    std::memcpy(bo->cpu + (dst - bo->va), src, bytes);
    return SIMTGPU_SUCCESS;
}

simtgpuResult Context::memcpy_dtoh(void *dst, uint64_t src, uint64_t bytes) {
    Bo *bo = find_device(src, bytes);
    if (simtgpuResult r = synchronize_all())
        return r;
    std::memcpy(dst, bo->cpu + (src - bo->va), bytes);
    return SIMTGPU_SUCCESS;
}

simtgpuResult Context::memcpy_dtod_async(simtgpuStream_st &s, uint64_t dst, uint64_t src,
                                         uint64_t bytes) {
    Bo *to = find_device(dst, bytes);
    Bo *from = find_device(src, bytes);
    if (to->kind == BoKind::Managed || from->kind == BoKind::Managed) {
        if (simtgpuResult r = synchronize(s))
            return r;
        std::memmove(to->cpu + (dst - to->va), from->cpu + (src - from->va), bytes);
        return SIMTGPU_SUCCESS;
    }
    return submit(s, copy_packet(src, dst, bytes), {});
}

simtgpuResult Context::memcpy_htod_async(simtgpuStream_st &s, uint64_t dst, const void *src,
                                         uint64_t bytes) {
    Bo *to = find_device(dst, bytes);
    // Managed memory on either side: in stream order, by the CPU (a
    // source staged now could miss what the stream's kernels write to it).
    if (to->kind == BoKind::Managed || managed_cpu(reinterpret_cast<uint64_t>(src), bytes)) {
        if (simtgpuResult r = synchronize(s))
            return r;
        std::memcpy(to->cpu + (dst - to->va), src, bytes);
        return SIMTGPU_SUCCESS;
    }
    if (Bo *pinned = find_host(src, bytes)) // the device reads it by DMA
        return submit(
            s,
            copy_packet(pinned->va + (static_cast<const uint8_t *>(src) - pinned->cpu), dst, bytes),
            {});
    // Pageable memory: copy it now into a staging BO the device copies from.
    Bo staging;
    if (simtgpuResult r = create_bo(bytes, 0, &staging))
        return r;
    std::memcpy(staging.cpu, src, bytes);
    return submit(s, copy_packet(staging.va, dst, bytes), {staging});
}

simtgpuResult Context::memcpy_dtoh_async(simtgpuStream_st &s, void *dst, uint64_t src,
                                         uint64_t bytes) {
    Bo *bo = find_device(src, bytes);
    if (Bo *pinned = find_host(dst, bytes); pinned && bo->kind != BoKind::Managed)
        return submit(
            s, copy_packet(src, pinned->va + (static_cast<uint8_t *>(dst) - pinned->cpu), bytes),
            {});
    // Pageable memory: as in CUDA, the copy is synchronous for the stream.
    if (simtgpuResult r = synchronize(s))
        return r;
    std::memcpy(dst, bo->cpu + (src - bo->va), bytes);
    return SIMTGPU_SUCCESS;
}

simtgpuResult Context::memset8_async(simtgpuStream_st &s, uint64_t dst, uint8_t value,
                                     uint64_t bytes) {
    Bo *bo = find_device(dst, bytes);
    if (uint8_t *managed = managed_cpu(dst, bytes)) {
        if (simtgpuResult r = synchronize(s))
            return r;
        std::memset(managed, value, bytes);
        return SIMTGPU_SUCCESS;
    }
    uint64_t begin = (dst + 3) & ~uint64_t(3), end = (dst + bytes) & ~uint64_t(3);
    if (begin >= end) {
        begin = end = dst + bytes; // too short for FILL: all on the CPU below
    }
    if (begin != dst || end != dst + bytes) {
        // FILL needs 4-byte alignment; the CPU writes the ragged ends once the
        // stream's earlier work is done.
        if (simtgpuResult r = synchronize(s))
            return r;
        std::memset(bo->cpu + (dst - bo->va), value, begin - dst);
        std::memset(bo->cpu + (end - bo->va), value, dst + bytes - end);
    }
    if (begin == end)
        return SIMTGPU_SUCCESS;
    std::vector<uint32_t> ib;
    put_packet(ib, SIMTGPU_PKT_FILL, simtgpu_pkt_fill{begin, end - begin, value * 0x01010101u, 0});
    return submit(s, ib, {});
}

simtgpuResult Context::memset32(uint64_t dst, uint32_t value, uint64_t count) {
    if (uint8_t *managed = managed_cpu(dst, count * 4)) {
        if (simtgpuResult r = synchronize_all())
            return r;
        for (size_t i = 0; i < count; i++)
            std::memcpy(managed + 4 * i, &value, 4);
        return SIMTGPU_SUCCESS;
    }
    std::vector<uint32_t> ib;
    put_packet(ib, SIMTGPU_PKT_FILL, simtgpu_pkt_fill{dst, count * 4, value, 0});
    if (simtgpuResult r = submit(*stream(nullptr), ib, {}))
        return r;
    return synchronize_all();
}

} // namespace simtgpu::umd
