// Pitched memory: cudaMallocPitch, cudaMalloc3D, cudaMemcpy2D/3D and
// cudaMemset2D/3D (and Async) as copies of rows. Rows that lie back to back
// on both sides (width = pitch) go as one copy per slice, or one in all.
#include <cstdint>
#include <cstring>

#include "runtime.h"

#include "driver_functions.h"

namespace simtgpu::cudart {
namespace {

// cudaMallocPitch's row alignment: what CUDA gives on most GPUs
// (texturePitchAlignment-sized rows keep every row 512-byte aligned).
constexpr size_t kPitchAlignment = 512;

size_t pitch_for(size_t width) {
    return (width + kPitchAlignment - 1) / kPitchAlignment * kPitchAlignment;
}

struct Side {
    char *base; // at the first byte copied
    size_t pitch;
    size_t rows; // rows per slice
};

// height x depth rows of width bytes.
cudaError_t copy_rows(simtgpuContext ctx, Side dst, Side src, size_t width, size_t height,
                      size_t depth, cudaMemcpyKind kind, cudaStream_t stream, bool async) {
    if (width == 0 || height == 0 || depth == 0)
        return cudaSuccess;
    if (cudaError_t err = resolve_kind(ctx, dst.base, src.base, &kind))
        return record(err);
    const bool packed = width == dst.pitch && width == src.pitch;
    if (packed && (depth == 1 || (dst.rows == height && src.rows == height)))
        return copy(ctx, dst.base, src.base, width * height * depth, kind, stream, async);
    for (size_t z = 0; z < depth; ++z) {
        char *d = dst.base + z * dst.rows * dst.pitch;
        const char *s = src.base + z * src.rows * src.pitch;
        if (packed) {
            if (cudaError_t err = copy(ctx, d, s, width * height, kind, stream, async))
                return err;
            continue;
        }
        for (size_t y = 0; y < height; ++y)
            if (cudaError_t err =
                    copy(ctx, d + y * dst.pitch, s + y * src.pitch, width, kind, stream, async))
                return err;
    }
    return cudaSuccess;
}

cudaError_t set_rows(simtgpuContext ctx, char *base, size_t pitch, size_t rows, int value,
                     size_t width, size_t height, size_t depth, cudaStream_t stream, bool async) {
    auto set = [&](char *p, size_t bytes) {
        return async ? cudaMemsetAsync(p, value, bytes, stream)
                     : record(simtgpuMemsetD8(ctx, reinterpret_cast<uint64_t>(p), uint8_t(value),
                                              bytes));
    };
    if (width == 0 || height == 0 || depth == 0)
        return cudaSuccess;
    if (width == pitch && (depth == 1 || rows == height))
        return set(base, width * height * depth);
    for (size_t z = 0; z < depth; ++z)
        for (size_t y = 0; y < height; ++y)
            if (cudaError_t err = set(base + (z * rows + y) * pitch, width))
                return err;
    return cudaSuccess;
}

cudaError_t memcpy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                     size_t height, cudaMemcpyKind kind, cudaStream_t stream, bool async) {
    CONTEXT(ctx);
    if (width == 0 || height == 0)
        return cudaSuccess;
    if (!dst || !src)
        return record(cudaErrorInvalidValue);
    if (width > dpitch || width > spitch)
        return record(cudaErrorInvalidPitchValue);
    return copy_rows(ctx, {static_cast<char *>(dst), dpitch, height},
                     {static_cast<char *>(const_cast<void *>(src)), spitch, height}, width, height,
                     1, kind, stream, async);
}

cudaError_t memcpy3d(const cudaMemcpy3DParms *p, cudaStream_t stream, bool async) {
    if (!p)
        return record(cudaErrorInvalidValue);
    if (p->srcArray || p->dstArray)
        return record(cudaErrorInvalidValue); // no CUDA arrays here (compatibility.md)
    CONTEXT(ctx);
    const cudaExtent &e = p->extent;
    if (e.width == 0 || e.height == 0 || e.depth == 0)
        return cudaSuccess;
    const cudaPitchedPtr &s = p->srcPtr, &d = p->dstPtr;
    if (!s.ptr || !d.ptr)
        return record(cudaErrorInvalidValue);
    if (p->srcPos.x + e.width > s.pitch || p->dstPos.x + e.width > d.pitch)
        return record(cudaErrorInvalidPitchValue);
    // Slices are ysize rows apart: a box taller than that would overlap the next.
    if (e.depth > 1 && (p->srcPos.y + e.height > s.ysize || p->dstPos.y + e.height > d.ysize))
        return record(cudaErrorInvalidValue);
    char *sb =
        static_cast<char *>(s.ptr) + (p->srcPos.z * s.ysize + p->srcPos.y) * s.pitch + p->srcPos.x;
    char *db =
        static_cast<char *>(d.ptr) + (p->dstPos.z * d.ysize + p->dstPos.y) * d.pitch + p->dstPos.x;
    return copy_rows(ctx, {db, d.pitch, d.ysize}, {sb, s.pitch, s.ysize}, e.width, e.height,
                     e.depth, p->kind, stream, async);
}

cudaError_t memset3d(cudaPitchedPtr p, int value, cudaExtent e, cudaStream_t stream, bool async) {
    CONTEXT(ctx);
    if (e.width == 0 || e.height == 0 || e.depth == 0)
        return cudaSuccess;
    if (!p.ptr || e.width > p.pitch || (e.depth > 1 && e.height > p.ysize))
        return record(cudaErrorInvalidValue);
    return set_rows(ctx, static_cast<char *>(p.ptr), p.pitch, p.ysize, value, e.width, e.height,
                    e.depth, stream, async);
}

} // namespace
} // namespace simtgpu::cudart

using namespace simtgpu::cudart;

SIMTCUDA_API cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width,
                                         size_t height) {
    if (!devPtr || !pitch)
        return record(cudaErrorInvalidValue);
    const size_t p = pitch_for(width);
    if (height && p > SIZE_MAX / height)
        return record(cudaErrorMemoryAllocation);
    if (cudaError_t err = cudaMalloc(devPtr, p * height))
        return err;
    *pitch = p;
    return cudaSuccess;
}

SIMTCUDA_API cudaError_t cudaMalloc3D(struct cudaPitchedPtr *pitchedDevPtr,
                                      struct cudaExtent extent) {
    if (!pitchedDevPtr)
        return record(cudaErrorInvalidValue);
    const size_t p = pitch_for(extent.width);
    const size_t rows = extent.height * extent.depth;
    if ((extent.depth && rows / extent.depth != extent.height) || (rows && p > SIZE_MAX / rows))
        return record(cudaErrorMemoryAllocation);
    void *ptr = nullptr;
    if (cudaError_t err = cudaMalloc(&ptr, p * rows))
        return err;
    *pitchedDevPtr = make_cudaPitchedPtr(ptr, p, extent.width, extent.height);
    return cudaSuccess;
}

SIMTCUDA_API cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch,
                                      size_t width, size_t height, enum cudaMemcpyKind kind) {
    return memcpy2d(dst, dpitch, src, spitch, width, height, kind, nullptr, false);
}

SIMTCUDA_API cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
                                           size_t width, size_t height, enum cudaMemcpyKind kind,
                                           cudaStream_t stream) {
    return memcpy2d(dst, dpitch, src, spitch, width, height, kind, stream, true);
}

SIMTCUDA_API cudaError_t cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width,
                                      size_t height) {
    return memset3d(make_cudaPitchedPtr(devPtr, pitch, width, height), value,
                    make_cudaExtent(width, height, 1), nullptr, false);
}

SIMTCUDA_API cudaError_t cudaMemset2DAsync(void *devPtr, size_t pitch, int value, size_t width,
                                           size_t height, cudaStream_t stream) {
    return memset3d(make_cudaPitchedPtr(devPtr, pitch, width, height), value,
                    make_cudaExtent(width, height, 1), stream, true);
}

SIMTCUDA_API cudaError_t cudaMemcpy3D(const struct cudaMemcpy3DParms *p) {
    return memcpy3d(p, nullptr, false);
}

SIMTCUDA_API cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *p, cudaStream_t stream) {
    return memcpy3d(p, stream, true);
}

SIMTCUDA_API cudaError_t cudaMemset3D(struct cudaPitchedPtr pitchedDevPtr, int value,
                                      struct cudaExtent extent) {
    return memset3d(pitchedDevPtr, value, extent, nullptr, false);
}

SIMTCUDA_API cudaError_t cudaMemset3DAsync(struct cudaPitchedPtr pitchedDevPtr, int value,
                                           struct cudaExtent extent, cudaStream_t stream) {
    return memset3d(pitchedDevPtr, value, extent, stream, true);
}
