// The CUDA runtime API, memory: device and pinned host memory, pointer
// attributes, copies and sets, and __device__/__constant__ symbols.
#include "runtime.h"

#include <algorithm>
#include <cstring>

namespace simtgpu::cudart {

// Device memory, as copies see it: under unified addressing pinned host
// memory, and managed memory, have a device address too, but copies from
// and to them are host copies (synchronous ones wait for them, as CUDA
// does; the host's touch moves managed pages home).
bool is_device_pointer(simtgpuContext ctx, const void *p) {
    return simtgpuMemGetAddressRange(ctx, nullptr, nullptr, reinterpret_cast<uint64_t>(p)) ==
               SIMTGPU_SUCCESS &&
           !simtgpuMemIsHostAllocated(ctx, p) && !is_managed_pointer(p);
}

cudaError_t resolve_kind(simtgpuContext ctx, void *dst, const void *src, cudaMemcpyKind *kind) {
    if (*kind == cudaMemcpyDefault) {
        bool d = is_device_pointer(ctx, dst), s = is_device_pointer(ctx, src);
        *kind = s ? (d ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost)
                  : (d ? cudaMemcpyHostToDevice : cudaMemcpyHostToHost);
    }
    if (*kind < cudaMemcpyHostToHost || *kind > cudaMemcpyDeviceToDevice)
        return cudaErrorInvalidMemcpyDirection;
    return cudaSuccess;
}

cudaError_t copy(simtgpuContext ctx, void *dst, const void *src, size_t count, cudaMemcpyKind kind,
                 cudaStream_t stream, bool async) {
    if (async && is_capturing(stream))
        return capture_memcpy(dst, const_cast<void *>(src), count, kind, stream);
    uint64_t d = reinterpret_cast<uint64_t>(dst), s = reinterpret_cast<uint64_t>(src);
    simtgpuStream st = to_stream(stream);
    switch (kind) {
    case cudaMemcpyHostToDevice:
        return record(async ? simtgpuMemcpyHtoDAsync(ctx, d, src, count, st)
                            : simtgpuMemcpyHtoD(ctx, d, src, count));
    case cudaMemcpyDeviceToHost:
        return record(async ? simtgpuMemcpyDtoHAsync(ctx, dst, s, count, st)
                            : simtgpuMemcpyDtoH(ctx, dst, s, count));
    case cudaMemcpyDeviceToDevice:
        return record(async ? simtgpuMemcpyDtoDAsync(ctx, d, s, count, st)
                            : simtgpuMemcpyDtoD(ctx, d, s, count));
    default: {
        simtgpuResult r = async ? simtgpuStreamSynchronize(ctx, st) : simtgpuCtxSynchronize(ctx);
        if (r == SIMTGPU_SUCCESS && count)
            std::memmove(dst, src, count);
        return record(r);
    }
    }
}

} // namespace simtgpu::cudart

using namespace simtgpu::cudart;

namespace {

// The device address of a registered __device__ or __constant__ variable.
cudaError_t symbol_address(const void *symbol, uint64_t *address, size_t *size) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    auto it = rt.variables.find(symbol);
    if (it == rt.variables.end()) // a __managed__ variable is its managed address
        return managed_symbol(symbol, address, size) ? cudaSuccess
                                                      : record(cudaErrorInvalidSymbol);
    simtgpuModule module;
    if (cudaError_t err = module_for(*it->second.fatbin, &module))
        return err;
    size_t bytes = 0;
    if (simtgpuModuleGetGlobal(address, &bytes, module, it->second.device_name.c_str()))
        return record(cudaErrorInvalidSymbol);
    *size = it->second.size ? it->second.size : bytes;
    return cudaSuccess;
}

} // namespace

SIMTCUDA_API cudaError_t cudaMalloc(void **devPtr, size_t size) {
    if (!devPtr)
        return record(cudaErrorInvalidValue);
    CONTEXT(ctx);
    if (size == 0) {
        *devPtr = nullptr;
        return cudaSuccess;
    }
    uint64_t p = 0;
    if (simtgpuResult r = simtgpuMemAlloc(ctx, &p, size)) {
        if (r == SIMTGPU_ERROR_OUT_OF_MEMORY)
            std::fprintf(stderr, "simtgpu: cudaMalloc: %s\n", simtgpuGetErrorDetail());
        return record(r);
    }
    *devPtr = reinterpret_cast<void *>(p);
    return cudaSuccess;
}

SIMTCUDA_API cudaError_t cudaFree(void *devPtr) {
    CONTEXT(ctx);
    if (!devPtr)
        return cudaSuccess;
    if (cudaError_t err = free_pool_allocation(ctx, devPtr); err != cudaErrorNotReady)
        return err == cudaSuccess ? cudaSuccess : record(err);
    if (cudaError_t err = free_managed(ctx, devPtr); err != cudaErrorNotReady)
        return err == cudaSuccess ? cudaSuccess : record(err);
    if (is_graph_allocation(devPtr))
        return free_graph_allocation(devPtr, nullptr, true);
    return record(simtgpuMemFree(ctx, reinterpret_cast<uint64_t>(devPtr)));
}

SIMTCUDA_API cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags) {
    if (!pHost || (flags & ~0x7u))
        return record(cudaErrorInvalidValue);
    CONTEXT(ctx);
    return record(simtgpuMemHostAlloc(ctx, pHost, size ? size : 1, flags));
}

SIMTCUDA_API cudaError_t cudaMallocHost(void **ptr, size_t size) {
    return cudaHostAlloc(ptr, size, cudaHostAllocDefault);
}

SIMTCUDA_API cudaError_t cudaFreeHost(void *ptr) {
    CONTEXT(ctx);
    return record(simtgpuMemHostFree(ctx, ptr));
}

SIMTCUDA_API cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags) {
    constexpr unsigned known = cudaHostRegisterPortable | cudaHostRegisterMapped |
                               cudaHostRegisterIoMemory | cudaHostRegisterReadOnly;
    if (!ptr || !size || (flags & ~known))
        return record(cudaErrorInvalidValue);
    if (flags & cudaHostRegisterIoMemory)
        return record(cudaErrorNotSupported); // no peer device's BAR to map
    CONTEXT(ctx);
    unsigned simt_flags = 0;
    if (flags & cudaHostRegisterReadOnly)
        simt_flags |= SIMTGPU_MEMHOSTREGISTER_READ_ONLY;
    return record(simtgpuMemHostRegister(ctx, ptr, size, simt_flags));
}

SIMTCUDA_API cudaError_t cudaHostUnregister(void *ptr) {
    if (!ptr)
        return record(cudaErrorInvalidValue);
    CONTEXT(ctx);
    return record(simtgpuMemHostUnregister(ctx, ptr));
}

SIMTCUDA_API cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost,
                                                  unsigned int flags) {
    if (!pDevice || flags)
        return record(cudaErrorInvalidValue);
    CONTEXT(ctx);
    uint64_t d = 0;
    if (simtgpuResult r = simtgpuMemHostGetDevicePointer(ctx, &d, pHost))
        return record(r);
    *pDevice = reinterpret_cast<void *>(d);
    return cudaSuccess;
}

// What the context knows of ptr. Under unified addressing (unifiedAddressing
// = 1) pinned host memory's device pointer is the pointer itself.
SIMTCUDA_API cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attributes,
                                                  const void *ptr) {
    if (!attributes)
        return record(cudaErrorInvalidValue);
    CONTEXT(ctx);
    *attributes = {};
    attributes->device = current_device();
    void *p = const_cast<void *>(ptr);
    uint64_t device = 0;
    if (ptr && is_managed_pointer(ptr)) {
        attributes->type = cudaMemoryTypeManaged;
        attributes->devicePointer = attributes->hostPointer = p;
    } else if (ptr && simtgpuMemIsHostAllocated(ctx, ptr)) {
        attributes->type = cudaMemoryTypeHost;
        attributes->hostPointer = p;
        // NULL where the driver cannot map host memory (uAPI before 1.3).
        if (simtgpuMemHostGetDevicePointer(ctx, &device, p) == SIMTGPU_SUCCESS)
            attributes->devicePointer = reinterpret_cast<void *>(device);
    } else if (ptr && is_device_pointer(ctx, ptr)) {
        attributes->type = cudaMemoryTypeDevice;
        attributes->devicePointer = p;
    } else {
        // As CUDA 11 on: not an error; memory CUDA does not know.
        attributes->type = cudaMemoryTypeUnregistered;
        attributes->device = -2;
        attributes->hostPointer = p;
    }
    return cudaSuccess;
}

SIMTCUDA_API cudaError_t cudaMemcpy(void *dst, const void *src, size_t count,
                                    enum cudaMemcpyKind kind) {
    CONTEXT(ctx);
    if (cudaError_t err = resolve_kind(ctx, dst, src, &kind))
        return record(err);
    return record(copy(ctx, dst, src, count, kind, nullptr, false));
}

SIMTCUDA_API cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count,
                                         enum cudaMemcpyKind kind, cudaStream_t stream) {
    CONTEXT(ctx);
    if (cudaError_t err = resolve_kind(ctx, dst, src, &kind))
        return record(err);
    return record(copy(ctx, dst, src, count, kind, stream, true));
}

SIMTCUDA_API cudaError_t cudaMemset(void *devPtr, int value, size_t count) {
    CONTEXT(ctx);
    return record(simtgpuMemsetD8(ctx, reinterpret_cast<uint64_t>(devPtr), uint8_t(value), count));
}

SIMTCUDA_API cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count,
                                         cudaStream_t stream) {
    CONTEXT(ctx);
    if (is_capturing(stream))
        return capture_memset(devPtr, value, count, stream);
    return record(simtgpuMemsetD8Async(ctx, reinterpret_cast<uint64_t>(devPtr), uint8_t(value),
                                       count, to_stream(stream)));
}

SIMTCUDA_API cudaError_t cudaGetSymbolAddress(void **devPtr, const void *symbol) {
    if (!devPtr)
        return record(cudaErrorInvalidValue);
    uint64_t address = 0;
    size_t size = 0;
    if (cudaError_t err = symbol_address(symbol, &address, &size))
        return err;
    *devPtr = reinterpret_cast<void *>(address);
    return cudaSuccess;
}

SIMTCUDA_API cudaError_t cudaGetSymbolSize(size_t *size, const void *symbol) {
    if (!size)
        return record(cudaErrorInvalidValue);
    uint64_t address = 0;
    return symbol_address(symbol, &address, size);
}

namespace {
cudaError_t symbol_copy(void *dst, const void *src, const void *symbol, size_t count,
                        size_t offset, cudaMemcpyKind kind, bool to_symbol, cudaStream_t stream,
                        bool async) {
    CONTEXT(ctx);
    uint64_t address = 0;
    size_t size = 0;
    if (cudaError_t err = symbol_address(symbol, &address, &size))
        return err;
    if (offset > size || count > size - offset)
        return record(cudaErrorInvalidValue);
    void *device = reinterpret_cast<void *>(address + offset);
    if (to_symbol) {
        if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice &&
            kind != cudaMemcpyDefault)
            return record(cudaErrorInvalidMemcpyDirection);
        if (kind == cudaMemcpyDefault)
            kind = is_device_pointer(ctx, src) ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice;
        return record(copy(ctx, device, src, count, kind, stream, async));
    }
    if (kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice &&
        kind != cudaMemcpyDefault)
        return record(cudaErrorInvalidMemcpyDirection);
    if (kind == cudaMemcpyDefault)
        kind = is_device_pointer(ctx, dst) ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost;
    return record(copy(ctx, dst, device, count, kind, stream, async));
}
} // namespace

SIMTCUDA_API cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count,
                                            size_t offset, enum cudaMemcpyKind kind) {
    return symbol_copy(nullptr, src, symbol, count, offset, kind, true, nullptr, false);
}

SIMTCUDA_API cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count,
                                              size_t offset, enum cudaMemcpyKind kind) {
    return symbol_copy(dst, nullptr, symbol, count, offset, kind, false, nullptr, false);
}

SIMTCUDA_API cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src,
                                                 size_t count, size_t offset,
                                                 enum cudaMemcpyKind kind, cudaStream_t stream) {
    return symbol_copy(nullptr, src, symbol, count, offset, kind, true, stream, true);
}

SIMTCUDA_API cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count,
                                                   size_t offset, enum cudaMemcpyKind kind,
                                                   cudaStream_t stream) {
    return symbol_copy(dst, nullptr, symbol, count, offset, kind, false, stream, true);
}
