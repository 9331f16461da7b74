// The driver API calls runtime programs mix in (cuda.h): the current device,
// device attributes, error names, and virtual memory management
// (cuMemAddressReserve, cuMemCreate, cuMemMap, cuMemSetAccess and their
// inverses), as cudaCompressibleMemory and allocators that grow a buffer in
// place use them.
//
// Reserving a range takes addresses only (from kReserveBase up, which no
// other allocation of this library reaches: device memory is placed from
// 2^47, lowest first, and would need 64 TiB to get there). A handle from
// cuMemCreate is a size and properties; its memory is allocated when it is
// mapped, at the mapped address (simtgpuMemAllocAt, a BO at a fixed GPU VA),
// and freed when it is unmapped. So a handle maps at one address at a time,
// whole (offset 0), and memory unmapped while its handle lives does not keep
// its contents for the next mapping; CUDA's physical allocations may be
// mapped several times and keep their contents. docs/cuda-runtime.md.
#include "cuda.h"
#include "runtime.h"

#include "simtgpu/hw.h"

#include <algorithm>
#include <cstdio>

using namespace simtgpu::cudart;

namespace {

// The granularity of sizes and addresses: 2 MiB, as CUDA's on current GPUs.
constexpr size_t kGranularity = size_t(2) << 20;
// Reserved ranges lie in [kReserveBase, SIMTGPU_LOCAL_BASE).
constexpr uint64_t kReserveBase = 0x0000c00000000000ull;
static_assert(kReserveBase < SIMTGPU_LOCAL_BASE, "reservations below the memory windows");

struct Allocation {
    size_t size = 0;
    CUmemAllocationProp prop{};
    uint64_t mapped_at = 0; // 0: not mapped
    bool released = false;
};

struct VmmState {
    std::map<uint64_t, size_t> reservations; // by start
    std::map<CUmemGenericAllocationHandle, Allocation> allocations;
    CUmemGenericAllocationHandle next_handle = 1;
    std::map<uint64_t, CUmemGenericAllocationHandle> mappings; // by start
};

VmmState &vmm() {
    static auto *state = new VmmState; // as runtime(): lives past exit
    return *state;
}

// Bad input: says what is wrong on stderr, as the runtime's other
// driver-level failures do, and returns the code.
CUresult refuse(CUresult code, const char *call, const char *why) {
    std::fprintf(stderr, "simtgpu: %s: %s\n", call, why);
    return code;
}

CUresult to_cu(cudaError_t err) {
    switch (err) {
    case cudaSuccess: return CUDA_SUCCESS;
    case cudaErrorInvalidValue: return CUDA_ERROR_INVALID_VALUE;
    case cudaErrorMemoryAllocation: return CUDA_ERROR_OUT_OF_MEMORY;
    case cudaErrorInitializationError: return CUDA_ERROR_NOT_INITIALIZED;
    case cudaErrorNoDevice: return CUDA_ERROR_NO_DEVICE;
    case cudaErrorInvalidDevice: return CUDA_ERROR_INVALID_DEVICE;
    case cudaErrorNotSupported: return CUDA_ERROR_NOT_SUPPORTED;
    case cudaErrorIllegalAddress: return CUDA_ERROR_ILLEGAL_ADDRESS;
    case cudaErrorLaunchFailure: return CUDA_ERROR_LAUNCH_FAILED;
    default: return CUDA_ERROR_UNKNOWN;
    }
}

// Whether the device can place memory at a chosen address (uAPI 1.5).
bool device_maps_at_fixed_addresses(int device) {
    simtgpuDeviceProperties p;
    return simtgpuDeviceGetProperties(&p, device) == SIMTGPU_SUCCESS &&
           (p.uapi_version >> 16) == 1 && (p.uapi_version & 0xffff) >= 5;
}

CUresult check_prop(const CUmemAllocationProp *prop, const char *call) {
    if (!prop)
        return refuse(CUDA_ERROR_INVALID_VALUE, call, "prop is NULL");
    if (prop->type != CU_MEM_ALLOCATION_TYPE_PINNED)
        return refuse(CUDA_ERROR_INVALID_VALUE, call,
                      "prop->type must be CU_MEM_ALLOCATION_TYPE_PINNED");
    if (prop->location.type != CU_MEM_LOCATION_TYPE_DEVICE)
        return refuse(CUDA_ERROR_INVALID_VALUE, call,
                      "prop->location.type must be CU_MEM_LOCATION_TYPE_DEVICE");
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || prop->location.id < 0 ||
        prop->location.id >= count)
        return refuse(CUDA_ERROR_INVALID_DEVICE, call, "prop->location.id is not a device");
    if (prop->location.id != current_device())
        return refuse(CUDA_ERROR_NOT_SUPPORTED, call,
                      "memory of a device other than the current one (cudaSetDevice it first)");
    if (prop->requestedHandleTypes != CU_MEM_HANDLE_TYPE_NONE)
        return refuse(CUDA_ERROR_NOT_SUPPORTED, call,
                      "shareable handles (requestedHandleTypes): memory cannot be shared between "
                      "processes here");
    return CUDA_SUCCESS;
}

bool aligned(uint64_t v) { return v % kGranularity == 0; }

} // namespace

SIMTCUDA_API CUresult cuGetErrorName(CUresult error, const char **pStr) {
    if (!pStr)
        return CUDA_ERROR_INVALID_VALUE;
    switch (error) {
#define NAME(e)                                                                                    \
    case e: *pStr = #e; return CUDA_SUCCESS;
        NAME(CUDA_SUCCESS) NAME(CUDA_ERROR_INVALID_VALUE) NAME(CUDA_ERROR_OUT_OF_MEMORY)
        NAME(CUDA_ERROR_NOT_INITIALIZED) NAME(CUDA_ERROR_NO_DEVICE) NAME(CUDA_ERROR_INVALID_DEVICE)
        NAME(CUDA_ERROR_INVALID_IMAGE) NAME(CUDA_ERROR_INVALID_CONTEXT)
        NAME(CUDA_ERROR_ALREADY_MAPPED) NAME(CUDA_ERROR_NO_BINARY_FOR_GPU)
        NAME(CUDA_ERROR_NOT_MAPPED) NAME(CUDA_ERROR_INVALID_HANDLE) NAME(CUDA_ERROR_NOT_FOUND)
        NAME(CUDA_ERROR_NOT_READY) NAME(CUDA_ERROR_ILLEGAL_ADDRESS)
        NAME(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES) NAME(CUDA_ERROR_LAUNCH_TIMEOUT)
        NAME(CUDA_ERROR_ASSERT) NAME(CUDA_ERROR_ILLEGAL_INSTRUCTION)
        NAME(CUDA_ERROR_MISALIGNED_ADDRESS) NAME(CUDA_ERROR_LAUNCH_FAILED)
        NAME(CUDA_ERROR_NOT_SUPPORTED) NAME(CUDA_ERROR_UNKNOWN)
#undef NAME
    }
    *pStr = nullptr;
    return CUDA_ERROR_INVALID_VALUE;
}

SIMTCUDA_API CUresult cuGetErrorString(CUresult error, const char **pStr) {
    // The runtime's string for the same condition, where one exists.
    if (!pStr)
        return CUDA_ERROR_INVALID_VALUE;
    const char *name = nullptr;
    if (cuGetErrorName(error, &name) != CUDA_SUCCESS) {
        *pStr = nullptr;
        return CUDA_ERROR_INVALID_VALUE;
    }
    *pStr = name;
    return CUDA_SUCCESS;
}

SIMTCUDA_API CUresult cuCtxGetDevice(CUdevice *device) {
    if (!device)
        return CUDA_ERROR_INVALID_VALUE;
    cudaError_t err = cudaSuccess;
    if (!current_context(&err))
        return to_cu(err);
    *device = current_device();
    return CUDA_SUCCESS;
}

// The current device's context, made if need be (the primary context). On
// simtgpu a CUcontext is libsimtgpu's simtgpuContext, so a program may call
// libsimtgpu's own API on it (simtgpuCtxGetManagedStats, say).
SIMTCUDA_API CUresult cuCtxGetCurrent(CUcontext *pctx) {
    if (!pctx)
        return CUDA_ERROR_INVALID_VALUE;
    cudaError_t err = cudaSuccess;
    simtgpuContext ctx = current_context(&err);
    if (!ctx)
        return to_cu(err);
    *pctx = reinterpret_cast<CUcontext>(ctx);
    return CUDA_SUCCESS;
}

SIMTCUDA_API CUresult cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev) {
    if (!pi)
        return CUDA_ERROR_INVALID_VALUE;
    int count = 0;
    if (cudaError_t err = cudaGetDeviceCount(&count))
        return to_cu(err);
    if (dev < 0 || dev >= count)
        return CUDA_ERROR_INVALID_DEVICE;
    switch (attrib) {
    case CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED:
        *pi = device_maps_at_fixed_addresses(dev);
        return CUDA_SUCCESS;
    case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED:
        *pi = 0; // no memory shared between processes, no compression
        return CUDA_SUCCESS;
    default:
        // The other attributes have the runtime's numbers.
        return to_cu(cudaDeviceGetAttribute(pi, cudaDeviceAttr(attrib), dev));
    }
}

SIMTCUDA_API CUresult cuMemGetAllocationGranularity(size_t *granularity,
                                                    const CUmemAllocationProp *prop,
                                                    CUmemAllocationGranularity_flags option) {
    if (!granularity)
        return refuse(CUDA_ERROR_INVALID_VALUE, "cuMemGetAllocationGranularity",
                      "granularity is NULL");
    if (option != CU_MEM_ALLOC_GRANULARITY_MINIMUM && option != CU_MEM_ALLOC_GRANULARITY_RECOMMENDED)
        return refuse(CUDA_ERROR_INVALID_VALUE, "cuMemGetAllocationGranularity",
                      "option must be CU_MEM_ALLOC_GRANULARITY_MINIMUM or _RECOMMENDED");
    if (CUresult r = check_prop(prop, "cuMemGetAllocationGranularity"))
        return r;
    *granularity = kGranularity;
    return CUDA_SUCCESS;
}

SIMTCUDA_API CUresult cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment,
                                          CUdeviceptr addr, unsigned long long flags) {
    const char *call = "cuMemAddressReserve";
    if (!ptr)
        return refuse(CUDA_ERROR_INVALID_VALUE, call, "ptr is NULL");
    if (flags)
        return refuse(CUDA_ERROR_INVALID_VALUE, call, "flags must be 0");
    if (!size || !aligned(size))
        return refuse(CUDA_ERROR_INVALID_VALUE, call,
                      "size must be a non-zero multiple of the granularity "
                      "(cuMemGetAllocationGranularity: 2 MiB)");
    if (alignment & (alignment - 1))
        return refuse(CUDA_ERROR_INVALID_VALUE, call, "alignment must be 0 or a power of two");
    const uint64_t align = std::max<uint64_t>(alignment, kGranularity);
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    auto &taken = vmm().reservations;
    auto fits = [&](uint64_t at) {
        if (at < kReserveBase || at > SIMTGPU_LOCAL_BASE || size > SIMTGPU_LOCAL_BASE - at)
            return false;
        auto next = taken.lower_bound(at);
        if (next != taken.end() && next->first < at + size)
            return false;
        return next == taken.begin() || std::prev(next)->first + std::prev(next)->second <= at;
    };
    // The address asked for when it is free, else the lowest that fits.
    uint64_t at = addr && addr % align == 0 && fits(addr) ? addr : 0;
    for (uint64_t candidate = kReserveBase; !at;) {
        if (fits(candidate)) {
            at = candidate;
            break;
        }
        auto next = taken.lower_bound(candidate);
        if (next != taken.begin() && std::prev(next)->first + std::prev(next)->second > candidate)
            --next;
        if (next == taken.end())
            break;
        candidate = (next->first + next->second + align - 1) / align * align;
    }
    if (!at)
        return refuse(CUDA_ERROR_OUT_OF_MEMORY, call, "no free range of addresses that large");
    taken[at] = size;
    *ptr = at;
    return CUDA_SUCCESS;
}

SIMTCUDA_API CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size) {
    const char *call = "cuMemAddressFree";
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    auto it = vmm().reservations.find(ptr);
    if (it == vmm().reservations.end() || it->second != size)
        return refuse(CUDA_ERROR_INVALID_VALUE, call,
                      "ptr and size are not a range cuMemAddressReserve returned");
    auto mapped = vmm().mappings.lower_bound(ptr);
    if (mapped != vmm().mappings.end() && mapped->first < ptr + size)
        return refuse(CUDA_ERROR_INVALID_VALUE, call,
                      "part of the range is still mapped (cuMemUnmap it first)");
    vmm().reservations.erase(it);
    return CUDA_SUCCESS;
}

SIMTCUDA_API CUresult cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size,
                                  const CUmemAllocationProp *prop, unsigned long long flags) {
    const char *call = "cuMemCreate";
    if (!handle)
        return refuse(CUDA_ERROR_INVALID_VALUE, call, "handle is NULL");
    if (flags)
        return refuse(CUDA_ERROR_INVALID_VALUE, call, "flags must be 0");
    if (CUresult r = check_prop(prop, call))
        return r;
    if (!size || !aligned(size))
        return refuse(CUDA_ERROR_INVALID_VALUE, call,
                      "size must be a non-zero multiple of the granularity "
                      "(cuMemGetAllocationGranularity: 2 MiB)");
    cudaError_t err = cudaSuccess;
    if (!current_context(&err))
        return to_cu(err);
    if (!device_maps_at_fixed_addresses(current_device()))
        return refuse(CUDA_ERROR_NOT_SUPPORTED, call,
                      "the kernel driver cannot place memory at a chosen address (uAPI 1.5): "
                      "load the simtgpu.ko built with this library");
    // The memory is taken when mapped; refuse now what VRAM cannot hold.
    uint64_t used = 0, total = 0;
    if (simtgpuDeviceGetMemInfo(current_device(), &used, &total) == SIMTGPU_SUCCESS &&
        size > total - std::min(used, total))
        return refuse(CUDA_ERROR_OUT_OF_MEMORY, call, "more than the device's free memory");
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    Allocation a;
    a.size = size;
    a.prop = *prop;
    a.prop.allocFlags.compressionType = CU_MEM_ALLOCATION_COMP_NONE; // none here
    *handle = vmm().next_handle++;
    vmm().allocations[*handle] = a;
    return CUDA_SUCCESS;
}

SIMTCUDA_API CUresult cuMemGetAllocationPropertiesFromHandle(CUmemAllocationProp *prop,
                                                             CUmemGenericAllocationHandle handle) {
    if (!prop)
        return refuse(CUDA_ERROR_INVALID_VALUE, "cuMemGetAllocationPropertiesFromHandle",
                      "prop is NULL");
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    auto it = vmm().allocations.find(handle);
    if (it == vmm().allocations.end() || it->second.released)
        return refuse(CUDA_ERROR_INVALID_VALUE, "cuMemGetAllocationPropertiesFromHandle",
                      "not a handle from cuMemCreate that is still held");
    *prop = it->second.prop;
    return CUDA_SUCCESS;
}

SIMTCUDA_API CUresult cuMemRelease(CUmemGenericAllocationHandle handle) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    auto it = vmm().allocations.find(handle);
    if (it == vmm().allocations.end() || it->second.released)
        return refuse(CUDA_ERROR_INVALID_VALUE, "cuMemRelease",
                      "not a handle from cuMemCreate that is still held");
    // A mapping keeps the memory until cuMemUnmap, as in CUDA.
    if (it->second.mapped_at)
        it->second.released = true;
    else
        vmm().allocations.erase(it);
    return CUDA_SUCCESS;
}

SIMTCUDA_API CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset,
                               CUmemGenericAllocationHandle handle, unsigned long long flags) {
    const char *call = "cuMemMap";
    if (flags)
        return refuse(CUDA_ERROR_INVALID_VALUE, call, "flags must be 0");
    if (!aligned(ptr) || !size || !aligned(size))
        return refuse(CUDA_ERROR_INVALID_VALUE, call,
                      "ptr and size must be multiples of the granularity (2 MiB), size non-zero");
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    auto it = vmm().allocations.find(handle);
    if (it == vmm().allocations.end() || it->second.released)
        return refuse(CUDA_ERROR_INVALID_VALUE, call,
                      "not a handle from cuMemCreate that is still held");
    Allocation &a = it->second;
    if (offset != 0 || size != a.size)
        return refuse(CUDA_ERROR_NOT_SUPPORTED, call,
                      "only a whole allocation maps (offset 0, size its size)");
    if (a.mapped_at)
        return refuse(CUDA_ERROR_NOT_SUPPORTED, call,
                      "the allocation is mapped already: an allocation maps at one address at "
                      "a time here");
    auto r = vmm().reservations.upper_bound(ptr);
    if (r == vmm().reservations.begin() || std::prev(r)->first + std::prev(r)->second < ptr + size)
        return refuse(CUDA_ERROR_INVALID_VALUE, call,
                      "the range is not inside one range from cuMemAddressReserve");
    auto m = vmm().mappings.lower_bound(ptr);
    bool overlaps = m != vmm().mappings.end() && m->first < ptr + size;
    if (m != vmm().mappings.begin()) {
        auto prev = std::prev(m);
        overlaps |= prev->first + vmm().allocations[prev->second].size > ptr;
    }
    if (overlaps)
        return refuse(CUDA_ERROR_ALREADY_MAPPED, call, "part of the range is mapped already");
    cudaError_t err = cudaSuccess;
    simtgpuContext ctx = current_context(&err);
    if (!ctx)
        return to_cu(err);
    if (simtgpuResult res = simtgpuMemAllocAt(ctx, ptr, size)) {
        std::fprintf(stderr, "simtgpu: cuMemMap: %s\n", simtgpuGetErrorDetail());
        return res == SIMTGPU_ERROR_OUT_OF_MEMORY ? CUDA_ERROR_OUT_OF_MEMORY
                                                  : to_cu(to_cuda(res));
    }
    a.mapped_at = ptr;
    vmm().mappings[ptr] = handle;
    return CUDA_SUCCESS;
}

SIMTCUDA_API CUresult cuMemUnmap(CUdeviceptr ptr, size_t size) {
    const char *call = "cuMemUnmap";
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    // The range must be whole mappings, end to end.
    std::vector<uint64_t> starts;
    for (uint64_t at = ptr; at < ptr + size;) {
        auto m = vmm().mappings.find(at);
        if (m == vmm().mappings.end())
            return refuse(CUDA_ERROR_INVALID_VALUE, call,
                          "the range is not whole mappings made by cuMemMap");
        starts.push_back(at);
        at += vmm().allocations[m->second].size;
        if (at > ptr + size)
            return refuse(CUDA_ERROR_INVALID_VALUE, call,
                          "the range ends inside a mapping (unmap whole mappings)");
    }
    if (starts.empty())
        return refuse(CUDA_ERROR_INVALID_VALUE, call, "size is 0");
    cudaError_t err = cudaSuccess;
    simtgpuContext ctx = current_context(&err);
    if (!ctx)
        return to_cu(err);
    for (uint64_t at : starts) {
        auto m = vmm().mappings.find(at);
        auto a = vmm().allocations.find(m->second);
        simtgpuMemFree(ctx, at); // waits for the work that may use it, as cudaFree
        if (a->second.released)
            vmm().allocations.erase(a);
        else
            a->second.mapped_at = 0;
        vmm().mappings.erase(m);
    }
    return CUDA_SUCCESS;
}

SIMTCUDA_API CUresult cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc,
                                     size_t count) {
    const char *call = "cuMemSetAccess";
    if (!desc || !count)
        return refuse(CUDA_ERROR_INVALID_VALUE, call, "no access descriptors");
    for (size_t i = 0; i < count; ++i) {
        if (desc[i].location.type != CU_MEM_LOCATION_TYPE_DEVICE ||
            desc[i].location.id != current_device())
            return refuse(CUDA_ERROR_INVALID_DEVICE, call,
                          "a descriptor names a location other than the current device");
        if (desc[i].flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
            return refuse(CUDA_ERROR_NOT_SUPPORTED, call,
                          "mapped memory is readable and writable by the device: only "
                          "CU_MEM_ACCESS_FLAGS_PROT_READWRITE is offered");
    }
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    // Every byte of the range must be mapped; mapped memory is read-write.
    for (uint64_t at = ptr; at < ptr + size;) {
        auto m = vmm().mappings.upper_bound(at);
        if (m == vmm().mappings.begin())
            return refuse(CUDA_ERROR_INVALID_VALUE, call, "part of the range is not mapped");
        --m;
        const uint64_t end = m->first + vmm().allocations[m->second].size;
        if (end <= at)
            return refuse(CUDA_ERROR_INVALID_VALUE, call, "part of the range is not mapped");
        at = end;
    }
    return size ? CUDA_SUCCESS
                : refuse(CUDA_ERROR_INVALID_VALUE, call, "size is 0");
}
