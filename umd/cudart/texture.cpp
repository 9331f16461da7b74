// CUDA arrays, texture and surface objects. simtgpu's device has no texture
// unit: an array is pitched device memory, and a texture or surface object
// is the device address of a simt_texture descriptor (simt_texture.h) that
// device code reads to fetch, address and filter (texture_indirect_functions.h).
#include <cstring>
#include <map>
#include <set>

#include "runtime.h"

#include "simt_texture.h"

struct cudaArray {
    uint64_t base = 0;
    cudaChannelFormatDesc desc{};
    size_t elem = 0;                         // bytes per element
    size_t width = 0, height = 0, depth = 0; // elements, rows, slices (0 for absent)
    size_t pitch = 0;
    unsigned flags = 0;
};

namespace simtgpu::cudart {
namespace {

// Rows of arrays start 512 bytes apart at least, as cudaMallocPitch's do.
constexpr size_t kArrayPitchAlignment = 512;

struct TextureObject {
    uint64_t descriptor = 0; // the device allocation holding the simt_texture
    cudaResourceDesc resource{};
    cudaTextureDesc texture{};
    bool surface = false;
};

struct Textures {
    std::set<cudaArray_t> arrays;
    std::map<unsigned long long, TextureObject> objects;
};

Textures &textures() {
    static auto *t = new Textures; // as runtime(): lives past exit-time code
    return *t;
}

// Bytes per element of a channel format with equal channels of 8, 16 or 32
// bits, 0 for one simtgpu's textures cannot read.
size_t element_bytes(const cudaChannelFormatDesc &d, unsigned *channels) {
    const int bits[4] = {d.x, d.y, d.z, d.w};
    unsigned n = 0;
    while (n < 4 && bits[n] > 0)
        ++n;
    for (unsigned i = n; i < 4; ++i)
        if (bits[i] != 0)
            return 0; // a channel after a missing one
    if (n == 0 || (bits[0] != 8 && bits[0] != 16 && bits[0] != 32))
        return 0;
    for (unsigned i = 1; i < n; ++i)
        if (bits[i] != bits[0])
            return 0;
    if (d.f != cudaChannelFormatKindSigned && d.f != cudaChannelFormatKindUnsigned &&
        d.f != cudaChannelFormatKindFloat)
        return 0;
    if (d.f == cudaChannelFormatKindFloat && bits[0] != 32)
        return 0; // half-precision texels: not offered
    *channels = n;
    return size_t(n) * size_t(bits[0]) / 8;
}

bool is_array(cudaArray_const_t a) {
    return textures().arrays.count(const_cast<cudaArray_t>(a)) != 0;
}

// The array's memory at byte xoffset of row y.
char *array_at(cudaArray_const_t a, size_t xoffset, size_t y) {
    return reinterpret_cast<char *>(a->base + y * a->pitch + xoffset);
}

size_t rows_of(cudaArray_const_t a) {
    return a->height ? a->height : 1;
}

// count bytes from byte xoffset of row y on, row after row: the runs of
// linear memory that face each row's part.
template <class Copy>
cudaError_t linear_runs(cudaArray_const_t a, size_t xoffset, size_t y, size_t count,
                        Copy copy_run) {
    const size_t row = a->width * a->elem;
    if (xoffset > row || y >= rows_of(a) || count > (rows_of(a) - y) * row - xoffset)
        return record(cudaErrorInvalidValue);
    size_t done = 0;
    while (done < count) {
        const size_t n = std::min(count - done, row - xoffset);
        if (cudaError_t err = copy_run(array_at(a, xoffset, y), done, n))
            return err;
        done += n;
        xoffset = 0;
        ++y;
    }
    return cudaSuccess;
}

cudaError_t make_array(cudaArray_t *array, const cudaChannelFormatDesc *desc, size_t width,
                       size_t height, size_t depth, unsigned flags) {
    if (!array || !desc || width == 0 || (depth && !height) ||
        (flags & ~unsigned(cudaArraySurfaceLoadStore | cudaArrayTextureGather)))
        return record(cudaErrorInvalidValue);
    unsigned channels = 0;
    const size_t elem = element_bytes(*desc, &channels);
    if (!elem)
        return record(cudaErrorInvalidChannelDescriptor);
    CONTEXT(ctx);
    auto a = new cudaArray;
    a->desc = *desc;
    a->elem = elem;
    a->width = width;
    a->height = height;
    a->depth = depth;
    a->flags = flags;
    a->pitch =
        (width * elem + kArrayPitchAlignment - 1) / kArrayPitchAlignment * kArrayPitchAlignment;
    const size_t bytes = a->pitch * (height ? height : 1) * (depth ? depth : 1);
    if (simtgpuResult r = simtgpuMemAlloc(ctx, &a->base, bytes)) {
        delete a;
        return record(r);
    }
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    textures().arrays.insert(a);
    *array = a;
    return cudaSuccess;
}

// The descriptor of a resource, its address, size and format.
cudaError_t describe(const cudaResourceDesc &res, simt_texture *t, bool surface) {
    unsigned channels = 0;
    size_t elem = 0;
    switch (res.resType) {
    case cudaResourceTypeArray: {
        cudaArray_t a = res.res.array.array;
        if (!is_array(a))
            return cudaErrorInvalidResourceHandle;
        if (surface && !(a->flags & cudaArraySurfaceLoadStore))
            return cudaErrorInvalidValue; // as CUDA: the array must allow surface access
        elem = element_bytes(a->desc, &channels);
        t->base = a->base;
        t->pitch = a->pitch;
        t->width = uint32_t(a->width);
        t->height = uint32_t(rows_of(a));
        t->depth = uint32_t(a->depth ? a->depth : 1);
        t->slice_pitch = a->pitch * rows_of(a);
        t->kind = uint32_t(a->desc.f);
        break;
    }
    case cudaResourceTypeLinear:
        if (surface)
            return cudaErrorInvalidValue;
        elem = element_bytes(res.res.linear.desc, &channels);
        if (!elem)
            return cudaErrorInvalidChannelDescriptor;
        if (!res.res.linear.devPtr || res.res.linear.sizeInBytes < elem)
            return cudaErrorInvalidValue;
        t->base = reinterpret_cast<uint64_t>(res.res.linear.devPtr);
        t->width = uint32_t(res.res.linear.sizeInBytes / elem);
        t->height = t->depth = 1;
        t->pitch = t->slice_pitch = res.res.linear.sizeInBytes;
        t->kind = uint32_t(res.res.linear.desc.f);
        break;
    case cudaResourceTypePitch2D:
        if (surface)
            return cudaErrorInvalidValue;
        elem = element_bytes(res.res.pitch2D.desc, &channels);
        if (!elem)
            return cudaErrorInvalidChannelDescriptor;
        if (!res.res.pitch2D.devPtr || !res.res.pitch2D.width || !res.res.pitch2D.height ||
            res.res.pitch2D.pitchInBytes < res.res.pitch2D.width * elem)
            return cudaErrorInvalidValue;
        t->base = reinterpret_cast<uint64_t>(res.res.pitch2D.devPtr);
        t->width = uint32_t(res.res.pitch2D.width);
        t->height = uint32_t(res.res.pitch2D.height);
        t->depth = 1;
        t->pitch = res.res.pitch2D.pitchInBytes;
        t->slice_pitch = t->pitch * t->height;
        t->kind = uint32_t(res.res.pitch2D.desc.f);
        break;
    default:
        return cudaErrorNotSupported; // mipmapped arrays
    }
    t->channels = channels;
    t->channel_bytes = uint32_t(elem / channels);
    return cudaSuccess;
}

cudaError_t make_object(unsigned long long *out, const cudaResourceDesc *res,
                        const cudaTextureDesc *tex, bool surface) {
    if (!out || !res || (!surface && !tex))
        return record(cudaErrorInvalidValue);
    CONTEXT(ctx);
    simt_texture t{};
    if (cudaError_t err = describe(*res, &t, surface))
        return record(err);
    if (tex) {
        for (int i = 0; i < 3; ++i) {
            if (tex->addressMode[i] < cudaAddressModeWrap ||
                tex->addressMode[i] > cudaAddressModeBorder)
                return record(cudaErrorInvalidValue);
            t.address_mode[i] = uint32_t(tex->addressMode[i]);
        }
        const bool integer = t.kind != SIMT_TEXTURE_FLOAT;
        if (tex->readMode == cudaReadModeNormalizedFloat && integer && t.channel_bytes == 4)
            return record(cudaErrorInvalidNormSetting);
        // Linear filtering blends floats: float texels or normalized reads.
        if (tex->filterMode == cudaFilterModeLinear && integer &&
            tex->readMode != cudaReadModeNormalizedFloat)
            return record(cudaErrorInvalidFilterSetting);
        if (tex->filterMode != cudaFilterModePoint && tex->filterMode != cudaFilterModeLinear)
            return record(cudaErrorInvalidValue);
        if (tex->sRGB)
            return record(cudaErrorNotSupported);
        t.filter_mode = uint32_t(tex->filterMode);
        t.read_mode = uint32_t(tex->readMode);
        t.normalized_coords = tex->normalizedCoords ? 1 : 0;
        std::memcpy(t.border, tex->borderColor, sizeof(t.border));
    }
    uint64_t descriptor = 0;
    if (simtgpuResult r = simtgpuMemAlloc(ctx, &descriptor, sizeof(t)))
        return record(r);
    if (simtgpuResult r = simtgpuMemcpyHtoD(ctx, descriptor, &t, sizeof(t))) {
        simtgpuMemFree(ctx, descriptor);
        return record(r);
    }
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    TextureObject &o = textures().objects[descriptor];
    o.descriptor = descriptor;
    o.resource = *res;
    if (tex)
        o.texture = *tex;
    o.surface = surface;
    *out = descriptor;
    return cudaSuccess;
}

cudaError_t destroy_object(unsigned long long object, bool surface) {
    CONTEXT(ctx);
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    auto it = textures().objects.find(object);
    if (it == textures().objects.end() || it->second.surface != surface)
        return record(cudaErrorInvalidValue);
    // Kernels still queued may read the descriptor: wait for them, as CUDA does.
    simtgpuCtxSynchronize(ctx);
    simtgpuMemFree(ctx, it->second.descriptor);
    textures().objects.erase(it);
    return cudaSuccess;
}

} // namespace
} // namespace simtgpu::cudart

using namespace simtgpu::cudart;

SIMTCUDA_API cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w,
                                                         cudaChannelFormatKind f) {
    return cudaChannelFormatDesc{x, y, z, w, f};
}

SIMTCUDA_API cudaError_t cudaMallocArray(cudaArray_t *array, const cudaChannelFormatDesc *desc,
                                         size_t width, size_t height, unsigned int flags) {
    return make_array(array, desc, width, height, 0, flags);
}

SIMTCUDA_API cudaError_t cudaMalloc3DArray(cudaArray_t *array, const cudaChannelFormatDesc *desc,
                                           cudaExtent extent, unsigned int flags) {
    return make_array(array, desc, extent.width, extent.height, extent.depth, flags);
}

SIMTCUDA_API cudaError_t cudaFreeArray(cudaArray_t array) {
    if (!array)
        return cudaSuccess;
    CONTEXT(ctx);
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    if (!textures().arrays.erase(array))
        return record(cudaErrorInvalidValue);
    simtgpuCtxSynchronize(ctx); // as cudaFree: work still using it completes first
    simtgpuMemFree(ctx, array->base);
    delete array;
    return cudaSuccess;
}

SIMTCUDA_API cudaError_t cudaArrayGetInfo(cudaChannelFormatDesc *desc, cudaExtent *extent,
                                          unsigned int *flags, cudaArray_t array) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    if (!is_array(array))
        return record(cudaErrorInvalidResourceHandle);
    if (desc)
        *desc = array->desc;
    if (extent)
        *extent = cudaExtent{array->width, array->height, array->depth};
    if (flags)
        *flags = array->flags;
    return cudaSuccess;
}

namespace {
cudaError_t to_array_2d(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                        size_t spitch, size_t width, size_t height, cudaMemcpyKind kind,
                        cudaStream_t stream, bool async) {
    {
        Runtime &rt = runtime();
        std::lock_guard<std::recursive_mutex> guard(rt.mu);
        if (!is_array(dst))
            return record(cudaErrorInvalidResourceHandle);
    }
    if (wOffset + width > dst->width * dst->elem || hOffset + height > rows_of(dst))
        return record(cudaErrorInvalidValue);
    void *d = array_at(dst, wOffset, hOffset);
    return async ? cudaMemcpy2DAsync(d, dst->pitch, src, spitch, width, height, kind, stream)
                 : cudaMemcpy2D(d, dst->pitch, src, spitch, width, height, kind);
}

cudaError_t from_array_2d(void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset,
                          size_t hOffset, size_t width, size_t height, cudaMemcpyKind kind,
                          cudaStream_t stream, bool async) {
    {
        Runtime &rt = runtime();
        std::lock_guard<std::recursive_mutex> guard(rt.mu);
        if (!is_array(src))
            return record(cudaErrorInvalidResourceHandle);
    }
    if (wOffset + width > src->width * src->elem || hOffset + height > rows_of(src))
        return record(cudaErrorInvalidValue);
    const void *s = array_at(src, wOffset, hOffset);
    return async ? cudaMemcpy2DAsync(dst, dpitch, s, src->pitch, width, height, kind, stream)
                 : cudaMemcpy2D(dst, dpitch, s, src->pitch, width, height, kind);
}
} // namespace

SIMTCUDA_API cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                             const void *src, size_t spitch, size_t width,
                                             size_t height, cudaMemcpyKind kind) {
    return to_array_2d(dst, wOffset, hOffset, src, spitch, width, height, kind, nullptr, false);
}

SIMTCUDA_API cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                                  const void *src, size_t spitch, size_t width,
                                                  size_t height, cudaMemcpyKind kind,
                                                  cudaStream_t stream) {
    return to_array_2d(dst, wOffset, hOffset, src, spitch, width, height, kind, stream, true);
}

SIMTCUDA_API cudaError_t cudaMemcpy2DFromArray(void *dst, size_t dpitch, cudaArray_const_t src,
                                               size_t wOffset, size_t hOffset, size_t width,
                                               size_t height, cudaMemcpyKind kind) {
    return from_array_2d(dst, dpitch, src, wOffset, hOffset, width, height, kind, nullptr, false);
}

SIMTCUDA_API cudaError_t cudaMemcpy2DFromArrayAsync(void *dst, size_t dpitch, cudaArray_const_t src,
                                                    size_t wOffset, size_t hOffset, size_t width,
                                                    size_t height, cudaMemcpyKind kind,
                                                    cudaStream_t stream) {
    return from_array_2d(dst, dpitch, src, wOffset, hOffset, width, height, kind, stream, true);
}

SIMTCUDA_API cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                           const void *src, size_t count, cudaMemcpyKind kind) {
    {
        Runtime &rt = runtime();
        std::lock_guard<std::recursive_mutex> guard(rt.mu);
        if (!is_array(dst))
            return record(cudaErrorInvalidResourceHandle);
    }
    return linear_runs(dst, wOffset, hOffset, count, [&](char *at, size_t done, size_t n) {
        return cudaMemcpy(at, static_cast<const char *>(src) + done, n, kind);
    });
}

SIMTCUDA_API cudaError_t cudaMemcpyFromArray(void *dst, cudaArray_const_t src, size_t wOffset,
                                             size_t hOffset, size_t count, cudaMemcpyKind kind) {
    {
        Runtime &rt = runtime();
        std::lock_guard<std::recursive_mutex> guard(rt.mu);
        if (!is_array(src))
            return record(cudaErrorInvalidResourceHandle);
    }
    return linear_runs(src, wOffset, hOffset, count, [&](char *at, size_t done, size_t n) {
        return cudaMemcpy(static_cast<char *>(dst) + done, at, n, kind);
    });
}

SIMTCUDA_API cudaError_t cudaCreateTextureObject(cudaTextureObject_t *pTexObject,
                                                 const cudaResourceDesc *pResDesc,
                                                 const cudaTextureDesc *pTexDesc,
                                                 const cudaResourceViewDesc *pResViewDesc) {
    if (pResViewDesc)
        return record(cudaErrorNotSupported); // resource views are not offered
    return make_object(pTexObject, pResDesc, pTexDesc, false);
}

SIMTCUDA_API cudaError_t cudaDestroyTextureObject(cudaTextureObject_t texObject) {
    return destroy_object(texObject, false);
}

SIMTCUDA_API cudaError_t cudaGetTextureObjectResourceDesc(cudaResourceDesc *pResDesc,
                                                          cudaTextureObject_t texObject) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    auto it = textures().objects.find(texObject);
    if (!pResDesc || it == textures().objects.end() || it->second.surface)
        return record(cudaErrorInvalidValue);
    *pResDesc = it->second.resource;
    return cudaSuccess;
}

SIMTCUDA_API cudaError_t cudaGetTextureObjectTextureDesc(cudaTextureDesc *pTexDesc,
                                                         cudaTextureObject_t texObject) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    auto it = textures().objects.find(texObject);
    if (!pTexDesc || it == textures().objects.end() || it->second.surface)
        return record(cudaErrorInvalidValue);
    *pTexDesc = it->second.texture;
    return cudaSuccess;
}

SIMTCUDA_API cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t *pSurfObject,
                                                 const cudaResourceDesc *pResDesc) {
    return make_object(pSurfObject, pResDesc, nullptr, true);
}

SIMTCUDA_API cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t surfObject) {
    return destroy_object(surfObject, true);
}
