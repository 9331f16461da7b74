// Managed memory (cudaMallocManaged): one address for the host and the
// device, in one of two ways (docs/cuda-runtime.md):
//  - by page migration, on the kernel driver (uAPI 1.6) with a device that
//    has replayable page faults: a managed BO mapped at its own GPU address
//    (simtgpuMemAllocManaged); each page moves to VRAM when a kernel touches
//    it and back when the host does, as NVIDIA's driver does;
//  - elsewhere (the in-process transport, older drivers): host memory the
//    device reaches over the bus. The pages are a memfd mapped twice in the
//    process: once where the runtime registers them with the device (a
//    user-pointer BO, as cudaHostRegister), and once at the GPU virtual
//    address that registration got, which is the pointer the program uses
//    on the host and in kernels. Both mappings are the same pages, so every
//    write is seen on the other side: nothing migrates.
// Either way the host and the device may use it at the same time
// (concurrentManagedAccess).
#include <cerrno>
#include <cstring>
#include <map>
#include <sys/mman.h>
#include <unistd.h>

#include "runtime.h"

namespace simtgpu::cudart {
namespace {

struct Managed {
    void *registered = nullptr; // the mapping the device BO pins (memfd way)
    size_t bytes = 0;
    bool migrating = false; // a managed BO (simtgpuMemAllocManaged)
};

std::map<uintptr_t, Managed> &managed() {
    static auto *m = new std::map<uintptr_t, Managed>; // as runtime(): lives past exit
    return *m;
}

// The managed allocation holding [p, p + count), or nullptr.
const Managed *find_managed(const void *p, size_t count) {
    const uintptr_t a = reinterpret_cast<uintptr_t>(p);
    auto it = managed().upper_bound(a);
    if (it == managed().begin())
        return nullptr;
    --it;
    if (a - it->first > it->second.bytes || count > it->second.bytes - (a - it->first))
        return nullptr;
    return &it->second;
}

} // namespace

bool is_managed_pointer(const void *p) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    return find_managed(p, 1) != nullptr;
}

cudaError_t free_managed(simtgpuContext ctx, void *p) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    auto it = managed().find(reinterpret_cast<uintptr_t>(p));
    if (it == managed().end())
        return cudaErrorNotReady;
    if (it->second.migrating) { // waits for the kernels that may use it
        simtgpuResult r = simtgpuMemFreeManaged(ctx, p);
        managed().erase(it);
        return record(to_cuda(r));
    }
    // As cudaFree: kernels that may still use it complete first.
    simtgpuCtxSynchronize(ctx);
    simtgpuMemHostUnregister(ctx, it->second.registered);
    munmap(p, it->second.bytes);
    if (it->second.registered != p) // two mappings unless unified addressing
        munmap(it->second.registered, it->second.bytes);
    managed().erase(it);
    return cudaSuccess;
}

} // namespace simtgpu::cudart

using namespace simtgpu::cudart;

SIMTCUDA_API cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags) {
    if (!devPtr || size == 0 || (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost))
        return record(cudaErrorInvalidValue);
    CONTEXT(ctx);
    const size_t page = size_t(sysconf(_SC_PAGESIZE));
    const size_t bytes = (size + page - 1) / page * page;
    // Page migration where the driver does it; mapped host memory where it
    // cannot (NOT_SUPPORTED: the in-process transport, an older driver).
    void *migrating = nullptr;
    if (simtgpuResult r = simtgpuMemAllocManaged(ctx, &migrating, size);
        r == SIMTGPU_SUCCESS) {
        Runtime &rt = runtime();
        std::lock_guard<std::recursive_mutex> guard(rt.mu);
        managed()[uintptr_t(migrating)] = Managed{nullptr, bytes, true};
        *devPtr = migrating;
        return cudaSuccess;
    } else if (r != SIMTGPU_ERROR_NOT_SUPPORTED) {
        std::fprintf(stderr, "simtgpu: cudaMallocManaged of %zu bytes: %s\n", size,
                     simtgpuGetErrorDetail());
        return record(r == SIMTGPU_ERROR_OUT_OF_MEMORY ? cudaErrorMemoryAllocation : to_cuda(r));
    }
    int fd = memfd_create("simtgpu-managed", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, off_t(bytes)) != 0) {
        std::fprintf(stderr, "simtgpu: cudaMallocManaged: memfd of %zu bytes: %s\n", bytes,
                     std::strerror(errno));
        if (fd >= 0)
            close(fd);
        return record(cudaErrorMemoryAllocation);
    }
    void *registered = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (registered == MAP_FAILED) {
        close(fd);
        return record(cudaErrorMemoryAllocation);
    }
    uint64_t va = 0;
    if (simtgpuResult r = simtgpuMemHostRegister(ctx, registered, bytes, 0);
        r || (r = simtgpuMemHostGetDevicePointer(ctx, &va, registered))) {
        if (r != SIMTGPU_ERROR_HOST_MEMORY_ALREADY_REGISTERED)
            simtgpuMemHostUnregister(ctx, registered);
        munmap(registered, bytes);
        close(fd);
        std::fprintf(stderr, "simtgpu: cudaMallocManaged: the device cannot map host memory: %s\n",
                     simtgpuGetErrorDetail());
        return record(r == SIMTGPU_ERROR_NOT_SUPPORTED ? cudaErrorNotSupported : to_cuda(r));
    }
    // The same pages again, at the device's address for them; under unified
    // addressing the device maps them at the host's address already.
    void *shared = va == reinterpret_cast<uint64_t>(registered)
                       ? registered
                       : mmap(reinterpret_cast<void *>(va), bytes, PROT_READ | PROT_WRITE,
                              MAP_SHARED | MAP_FIXED_NOREPLACE, fd, 0);
    close(fd);
    if (shared != reinterpret_cast<void *>(va)) {
        std::fprintf(stderr,
                     "simtgpu: cudaMallocManaged: the GPU address 0x%llx of %zu bytes is taken "
                     "in this process (%s)\n",
                     (unsigned long long)va, bytes,
                     shared == MAP_FAILED ? std::strerror(errno) : "mapped elsewhere");
        if (shared != MAP_FAILED)
            munmap(shared, bytes);
        simtgpuMemHostUnregister(ctx, registered);
        munmap(registered, bytes);
        return record(cudaErrorMemoryAllocation);
    }
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    managed()[uintptr_t(va)] = Managed{registered, bytes};
    *devPtr = shared;
    return cudaSuccess;
}

namespace {
// Managed memory is where every processor can reach it (each page moves on
// its first touch, or is shared over the bus): advice only has its
// arguments checked and moves nothing ahead of time.
cudaError_t check_range(const void *devPtr, size_t count) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    return devPtr && count && find_managed(devPtr, count) ? cudaSuccess : cudaErrorInvalidValue;
}

bool is_migrating(const void *devPtr, size_t count) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    const Managed *m = find_managed(devPtr, count);
    return m && m->migrating;
}
} // namespace

// A prefetch moves the pages of a managed BO where they are asked for, in
// the stream's order (simtgpuMemPrefetchManaged waits for the stream's work
// before it). Mapped host memory (the in-process transport's managed
// memory) is reachable from everywhere: nothing to move.
SIMTCUDA_API cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count, int dstDevice,
                                              cudaStream_t stream) {
    CONTEXT(ctx);
    if (dstDevice != cudaCpuDeviceId && (dstDevice < 0 || dstDevice >= runtime().device_count))
        return record(cudaErrorInvalidDevice);
    if (cudaError_t err = record(simtgpuStreamQuery(ctx, to_stream(stream)));
        err != cudaSuccess && err != cudaErrorNotReady)
        return err;
    if (cudaError_t err = check_range(devPtr, count))
        return record(err);
    if (!is_migrating(devPtr, count) || is_capturing(stream))
        return cudaSuccess; // a captured prefetch is a hint the graph drops
    const int to_host = dstDevice == cudaCpuDeviceId;
    if (dstDevice != cudaCpuDeviceId && dstDevice != current_device())
        return cudaSuccess; // another device's memory would be a peer's: a hint
    return record(
        simtgpuMemPrefetchManaged(ctx, devPtr, count, to_host, to_stream(stream), nullptr));
}

SIMTCUDA_API cudaError_t cudaMemPrefetchAsync_v2(const void *devPtr, size_t count,
                                                 cudaMemLocation location, unsigned int flags,
                                                 cudaStream_t stream) {
    if (flags)
        return record(cudaErrorInvalidValue);
    if (location.type == cudaMemLocationTypeHost)
        return cudaMemPrefetchAsync(devPtr, count, cudaCpuDeviceId, stream);
    if (location.type != cudaMemLocationTypeDevice)
        return record(cudaErrorInvalidValue);
    return cudaMemPrefetchAsync(devPtr, count, location.id, stream);
}

// Advice on pages that migrate (the kernel driver's managed BOs) goes to the
// driver: a preferred place, and the GPU's access, decide whether a GPU fault
// moves a page to VRAM or maps it where it is; read-mostly pages are
// duplicated on GPU reads instead (MANAGED_ADVISE). Mapped host memory (the
// in-process transport's) is reachable from everywhere: there, advice only
// has its arguments checked.
SIMTCUDA_API cudaError_t cudaMemAdvise(const void *devPtr, size_t count, cudaMemoryAdvise advice,
                                       int device) {
    if (advice < cudaMemAdviseSetReadMostly || advice > cudaMemAdviseUnsetAccessedBy)
        return record(cudaErrorInvalidValue);
    CONTEXT(ctx);
    if (device != cudaCpuDeviceId && (device < 0 || device >= runtime().device_count))
        return record(cudaErrorInvalidDevice);
    if (cudaError_t err = check_range(devPtr, count))
        return record(err);
    const bool cpu = device == cudaCpuDeviceId;
    if (!is_migrating(devPtr, count) || (!cpu && device != current_device()))
        return cudaSuccess; // another device would be a peer: a hint
    simtgpuManagedAdvice to;
    switch (advice) {
    case cudaMemAdviseSetPreferredLocation:
        to = cpu ? SIMTGPU_MANAGED_PREFER_HOST : SIMTGPU_MANAGED_PREFER_VRAM;
        break;
    case cudaMemAdviseUnsetPreferredLocation:
        to = SIMTGPU_MANAGED_UNSET_PREFERRED;
        break;
    case cudaMemAdviseSetAccessedBy:
    case cudaMemAdviseUnsetAccessedBy:
        if (cpu)
            return cudaSuccess; // the CPU maps host pages; VRAM ones come home
        to = advice == cudaMemAdviseSetAccessedBy ? SIMTGPU_MANAGED_ACCESSED_BY_GPU
                                                  : SIMTGPU_MANAGED_UNSET_ACCESSED_BY_GPU;
        break;
    default: { // read-mostly: for every processor, whichever `device` names
        to = advice == cudaMemAdviseSetReadMostly ? SIMTGPU_MANAGED_READ_MOSTLY
                                                  : SIMTGPU_MANAGED_UNSET_READ_MOSTLY;
        const simtgpuResult r = simtgpuMemAdviseManaged(ctx, devPtr, count, to);
        // An older driver cannot take the hint: pages move as without it.
        return r == SIMTGPU_ERROR_NOT_SUPPORTED ? cudaSuccess : record(r);
    }
    }
    return record(simtgpuMemAdviseManaged(ctx, devPtr, count, to));
}

SIMTCUDA_API cudaError_t cudaMemAdvise_v2(const void *devPtr, size_t count, cudaMemoryAdvise advice,
                                          cudaMemLocation location) {
    if (location.type == cudaMemLocationTypeHost)
        return cudaMemAdvise(devPtr, count, advice, cudaCpuDeviceId);
    if (location.type != cudaMemLocationTypeDevice)
        return record(cudaErrorInvalidValue);
    return cudaMemAdvise(devPtr, count, advice, location.id);
}

// Attaching to a stream lets CUDA keep other streams' kernels off the
// memory; here every processor may touch it at any time, so only the
// arguments are checked.
SIMTCUDA_API cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void *devPtr, size_t length,
                                                  unsigned int flags) {
    if (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost && flags != cudaMemAttachSingle)
        return record(cudaErrorInvalidValue);
    CONTEXT(ctx);
    if (cudaError_t err = record(simtgpuStreamQuery(ctx, to_stream(stream)));
        err != cudaSuccess && err != cudaErrorNotReady)
        return err;
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    if (!find_managed(devPtr, length ? length : 1))
        return record(cudaErrorInvalidValue);
    return cudaSuccess;
}
