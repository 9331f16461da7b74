// The CUDA runtime API on libsimtgpu: devices and primary contexts, memory,
// symbols, streams, events, launches and occupancy.
#include "runtime.h"

#include "simtgpu/hw.h"
#include "simtgpu/occupancy.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

namespace simtgpu::cudart {

thread_local int current = 0;

namespace {

simtgpuEvent to_event(cudaEvent_t e) { return reinterpret_cast<simtgpuEvent>(e); }

void shutdown() {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    for (size_t d = 0; d < rt.contexts.size(); ++d)
        reset_device(int(d));
    rt.unloading = true;
}

// Destructors of objects constructed before the first CUDA call (globals)
// run after shutdown, and their streams, events and memory went with the
// contexts: as in CUDA, every call then fails with cudaErrorCudartUnloading
// instead of touching them.
cudaError_t check_loaded() {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    return rt.unloading ? cudaErrorCudartUnloading : cudaSuccess;
}

// Initialises libsimtgpu once; says plainly what is wrong when it cannot.
cudaError_t ensure_init() {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    if (rt.unloading)
        return cudaErrorCudartUnloading;
    if (rt.initialized)
        return rt.init_error;
    rt.initialized = true;
    simtgpuResult r = simtgpuInit(0);
    if (r == SIMTGPU_SUCCESS)
        r = simtgpuDeviceGetCount(&rt.device_count);
    if (r != SIMTGPU_SUCCESS) {
        std::fprintf(stderr, "simtgpu: %s\n", simtgpuGetErrorDetail());
        rt.init_error = to_cuda(r);
        rt.device_count = 0;
        return rt.init_error;
    }
    rt.contexts.assign(size_t(rt.device_count), nullptr);
    rt.fault_reported.assign(size_t(rt.device_count), false);
    rt.coop_events.assign(size_t(rt.device_count), nullptr);
    rt.malloc_heaps.assign(size_t(rt.device_count), 0);
    rt.malloc_heap_sizes.assign(size_t(rt.device_count), size_t(8) << 20); // CUDA's default
    // Contexts go before libsimtgpu's own state at exit: this runs first.
    std::atexit(shutdown);
    return cudaSuccess;
}

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

cudaError_t function_for(const void *func, simtgpuFunction *out) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    auto it = rt.kernels.find(func);
    if (it == rt.kernels.end())
        return record(cudaErrorInvalidDeviceFunction);
    Kernel &k = it->second;
    int device = current_device();
    auto f = k.functions.find(device);
    if (f != k.functions.end()) {
        *out = f->second;
        return cudaSuccess;
    }
    simtgpuModule module;
    if (cudaError_t err = module_for(*k.fatbin, &module))
        return err;
    if (simtgpuModuleGetFunction(out, module, k.device_name.c_str()) != SIMTGPU_SUCCESS) {
        std::fprintf(stderr, "simtgpu: kernel %s is not in its device image\n",
                     k.device_name.c_str());
        return record(cudaErrorInvalidDeviceFunction);
    }
    k.functions[device] = *out;
    return cudaSuccess;
}

namespace {

uint32_t shared_per_block_default(const simtgpuDeviceProperties &p) {
    return std::min(SIMTGPU_SHARED_PER_CTA_DEFAULT, p.shared_per_sm);
}

// cudaFuncSetAttribute's settings of a registered kernel on the current device.
KernelSettings &settings_of(const void *func) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    return rt.kernels.at(func).settings[current_device()];
}

// Dynamic shared memory a launch of the kernel may ask for: what the
// opt-in allows, else what fits beside its static shared memory in the
// default per-block amount (none when the static part alone exceeds it).
int max_dynamic_shared(const void *func, simtgpuFunction f) {
    if (int optin = settings_of(func).max_dynamic_shared; optin >= 0)
        return optin;
    simtgpuDeviceProperties p;
    simtgpuDeviceGetProperties(&p, current_device());
    int static_shared = 0;
    simtgpuFuncGetAttribute(&static_shared, SIMTGPU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f);
    return std::max(0, int(shared_per_block_default(p)) - static_shared);
}

} // namespace

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

Runtime &runtime() {
    static Runtime *rt = new Runtime;
    return *rt;
}

int current_device() { return current; }
void set_current_device(int device) { current = device; }

simtgpuContext current_context(cudaError_t *err) {
    if ((*err = ensure_init()) != cudaSuccess) {
        record(*err);
        return nullptr;
    }
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    int device = current_device();
    if (device < 0 || device >= rt.device_count) {
        *err = record(cudaErrorInvalidDevice);
        return nullptr;
    }
    if (!rt.contexts[device]) {
        simtgpuResult r = simtgpuCtxCreate(&rt.contexts[device], 0, device);
        if (r != SIMTGPU_SUCCESS) {
            std::fprintf(stderr, "simtgpu: %s\n", simtgpuGetErrorDetail());
            rt.contexts[device] = nullptr;
            *err = record(r);
            return nullptr;
        }
        rt.fault_reported[device] = false;
        setup_managed_variables(rt.contexts[device]);
    }
    return rt.contexts[device];
}

namespace {
// The header of compiler/runtime/malloc.c's heap: its size, its top, and
// the heads of its free lists (zero: empty).
struct simt_heap_header {
    uint64_t size;
    uint64_t top;
    uint64_t free[40];
};

// An image that uses device-side malloc (it holds __simt_malloc_heap) gets
// the context's heap, allocated the first time one is loaded.
cudaError_t attach_malloc_heap(simtgpuContext ctx, int device, simtgpuModule module) {
    Runtime &rt = runtime();
    uint64_t symbol = 0;
    size_t bytes = 0;
    if (simtgpuModuleGetGlobal(&symbol, &bytes, module, "__simt_malloc_heap") != SIMTGPU_SUCCESS)
        return cudaSuccess;
    uint64_t &heap = rt.malloc_heaps[device];
    if (!heap) {
        const size_t size = rt.malloc_heap_sizes[device];
        if (simtgpuResult r = simtgpuMemAlloc(ctx, &heap, size)) {
            std::fprintf(stderr,
                         "simtgpu: device-side malloc: cannot allocate its %zu-byte heap "
                         "(cudaLimitMallocHeapSize): %s\n",
                         size, simtgpuGetErrorDetail());
            return record(r);
        }
        simt_heap_header header{};
        header.size = size;
        header.top = (sizeof(header) + 15) & ~size_t(15);
        if (simtgpuResult r = simtgpuMemcpyHtoD(ctx, heap, &header, sizeof(header)))
            return record(r);
    }
    return record(simtgpuMemcpyHtoD(ctx, symbol, &heap, sizeof(heap)));
}
} // namespace

cudaError_t module_for(FatBinary &fatbin, simtgpuModule *out) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    cudaError_t err;
    simtgpuContext ctx = current_context(&err);
    if (!ctx)
        return err;
    int device = current_device();
    auto it = fatbin.modules.find(device);
    if (it != fatbin.modules.end()) {
        *out = it->second;
        return cudaSuccess;
    }
    if (!fatbin.image || !fatbin.size) {
        std::fprintf(stderr, "simtgpu: a registered fat binary holds no device ELF\n");
        return record(cudaErrorInvalidKernelImage);
    }
    simtgpuResult r = simtgpuModuleLoadData(out, ctx, fatbin.image, fatbin.size);
    if (r != SIMTGPU_SUCCESS) {
        // Say which architectures disagree, or what is wrong with the image.
        std::fprintf(stderr, "simtgpu: %s\n", simtgpuGetErrorDetail());
        return record(r);
    }
    fatbin.modules[device] = *out;
    if (cudaError_t err = attach_managed_variables(fatbin, ctx, *out))
        return err;
    return attach_malloc_heap(ctx, device, *out);
}

cudaError_t get_malloc_heap_size(size_t *value) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    *value = rt.malloc_heap_sizes[current_device()];
    return cudaSuccess;
}

cudaError_t set_malloc_heap_size(size_t value) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    const int device = current_device();
    // As CUDA: fixed once a kernel that uses malloc is loaded.
    if (rt.malloc_heaps[device] || value < sizeof(simt_heap_header))
        return record(cudaErrorInvalidValue);
    rt.malloc_heap_sizes[device] = value;
    return cudaSuccess;
}

void reset_device(int device) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    if (device < 0 || device >= int(rt.contexts.size()) || !rt.contexts[device])
        return;
    managed_variables_lose_context(rt.contexts[device]);
    simtgpuCtxDestroy(rt.contexts[device]);
    rt.contexts[device] = nullptr;
    rt.fault_reported[device] = false;
    rt.coop_events[device] = nullptr; // went with the context
    std::erase_if(rt.priority_lanes, [device](const auto &lane) { return lane.first.first == device; });
    rt.malloc_heaps[device] = 0;
    forget_pools(device);
    for (auto &fatbin : rt.fatbins)
        fatbin.modules.erase(device);
    for (auto &[stub, kernel] : rt.kernels) {
        kernel.functions.erase(device);
        kernel.settings.erase(device);
    }
}

} // namespace simtgpu::cudart

using namespace simtgpu::cudart;

// ---------------------------------------------------------------- devices ---

SIMTCUDA_API cudaError_t cudaDriverGetVersion(int *driverVersion) {
    if (!driverVersion)
        return record(cudaErrorInvalidValue);
    // The API level of the driver-side features programs test the driver
    // version for: conditional graph nodes with IF/else and SWITCH (12.8,
    // which cuda-samples' graphConditionalNodes requires) are there. A
    // driver newer than the runtime (CUDART_VERSION) is CUDA's usual case.
    // 0 when no driver can be reached, as CUDA reports it.
    constexpr int kDriverVersion = 12080;
    *driverVersion = ensure_init() == cudaSuccess ? kDriverVersion : 0;
    return cudaSuccess;
}

SIMTCUDA_API cudaError_t cudaRuntimeGetVersion(int *runtimeVersion) {
    if (!runtimeVersion)
        return record(cudaErrorInvalidValue);
    *runtimeVersion = CUDART_VERSION;
    return cudaSuccess;
}

SIMTCUDA_API cudaError_t cudaGetDeviceCount(int *count) {
    if (!count)
        return record(cudaErrorInvalidValue);
    cudaError_t err = ensure_init();
    *count = runtime().device_count;
    return record(err);
}

SIMTCUDA_API cudaError_t cudaSetDevice(int device) {
    if (cudaError_t err = ensure_init())
        return record(err);
    if (device < 0 || device >= runtime().device_count)
        return record(cudaErrorInvalidDevice);
    set_current_device(device);
    return cudaSuccess;
}

SIMTCUDA_API cudaError_t cudaGetDevice(int *device) {
    if (!device)
        return record(cudaErrorInvalidValue);
    if (cudaError_t err = ensure_init())
        return record(err);
    *device = current_device();
    return cudaSuccess;
}

SIMTCUDA_API cudaError_t cudaSetDeviceFlags(unsigned int flags) {
    if (flags & ~0x1fu)
        return record(cudaErrorInvalidValue);
    return cudaSuccess; // scheduling hints: waits always block in the kernel (or its emulation)
}

SIMTCUDA_API cudaError_t cudaDeviceCanAccessPeer(int *canAccessPeer, int device, int peerDevice) {
    if (!canAccessPeer)
        return record(cudaErrorInvalidValue);
    if (cudaError_t err = ensure_init())
        return record(err);
    if (device < 0 || device >= runtime().device_count || peerDevice < 0 ||
        peerDevice >= runtime().device_count)
        return record(cudaErrorInvalidDevice);
    *canAccessPeer = 0; // devices never map each other's memory
    return record(cudaSuccess);
}

SIMTCUDA_API cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device) {
    if (!prop)
        return record(cudaErrorInvalidValue);
    if (cudaError_t err = ensure_init())
        return record(err);
    simtgpuDeviceProperties p;
    if (simtgpuResult r = simtgpuDeviceGetProperties(&p, device))
        return record(r);
    std::memset(prop, 0, sizeof(*prop));
    std::snprintf(prop->name, sizeof(prop->name), "%s", p.name);
    prop->totalGlobalMem = p.vram_size;
    prop->sharedMemPerBlock = shared_per_block_default(p);
    prop->sharedMemPerBlockOptin = p.shared_per_sm;
    prop->sharedMemPerMultiprocessor = p.shared_per_sm;
    // What the largest CTA, and a full SM, hold (include/simtgpu/occupancy.h).
    const uint32_t cta_warps = (p.max_threads_per_cta + p.warp_size - 1) / p.warp_size;
    prop->regsPerBlock = int(SIMTGPU_REGS_ALLOCATED_PER_THREAD * cta_warps * p.warp_size);
    prop->regsPerMultiprocessor =
        int(SIMTGPU_REGS_ALLOCATED_PER_THREAD * p.warps_per_sm * p.warp_size);
    prop->warpSize = int(p.warp_size);
    prop->memPitch = size_t(p.vram_size);
    prop->maxThreadsPerBlock = int(p.max_threads_per_cta);
    prop->maxThreadsDim[0] = prop->maxThreadsDim[1] = int(p.max_threads_per_cta);
    prop->maxThreadsDim[2] = int(std::min(SIMTGPU_MAX_BLOCK_DIM_Z, p.max_threads_per_cta));
    prop->maxGridSize[0] = 0x7fffffff;
    prop->maxGridSize[1] = prop->maxGridSize[2] = 65535;
    prop->clockRate = int(p.clock_khz);
    // The memory hierarchy of the device's configuration (its preset); 0
    // under the functional model, which has none.
    prop->memoryClockRate = int(p.mem_clock_khz);
    prop->memoryBusWidth = int(p.mem_bus_width);
    prop->l2CacheSize = int(std::min<uint32_t>(p.l2_size, INT32_MAX));
    // Persisting L2 lines (the ampere preset has them; 0 elsewhere, as a V100).
    prop->persistingL2CacheMaxSize = int(std::min<uint32_t>(p.l2_persisting_max, INT32_MAX));
    prop->accessPolicyMaxWindowSize = int(std::min<uint32_t>(p.l2_window_max, INT32_MAX));
    prop->totalConstMem = 64 * 1024;
    // The compute capability whose features the device's code has; the
    // architecture itself is in the name (docs/cuda-runtime.md).
    prop->major = int(SIMTGPU_COMPUTE_CAPABILITY(p.arch) / 10);
    prop->minor = int(SIMTGPU_COMPUTE_CAPABILITY(p.arch) % 10);
    // grid_group::sync() needs the launch environment (simt_2's envptr CSR).
    prop->cooperativeLaunch = p.arch >= SIMTGPU_ARCH_SIMT2;
    prop->textureAlignment = 512;
    prop->texturePitchAlignment = 512;
    prop->surfaceAlignment = 512;
    // Textures read memory through 32-bit texel indices (texture.cpp).
    prop->maxTexture1D = prop->maxTexture1DLinear = prop->maxSurface1D = 1 << 27;
    prop->maxTexture2D[0] = prop->maxTexture2D[1] = 65536;
    prop->maxTexture2DLinear[0] = prop->maxTexture2DLinear[1] = 65536;
    prop->maxTexture2DLinear[2] = 1 << 21;
    prop->maxSurface2D[0] = prop->maxSurface2D[1] = 65536;
    for (int i = 0; i < 3; ++i)
        prop->maxTexture3D[i] = prop->maxSurface3D[i] = 16384;
    prop->deviceOverlap = 1;
    prop->asyncEngineCount = 1;
    prop->multiProcessorCount = int(p.num_sms);
    prop->kernelExecTimeoutEnabled = 1;
    // Host memory is mapped through user-pointer BOs, uAPI 1.3 on.
    prop->canMapHostMemory = (p.uapi_version & 0xffff) >= 3;
    // Pinned host memory has one address for host and device (simtgpu.h's
    // unified_addressing): device memory lies above every host address.
    prop->unifiedAddressing = int(p.unified_addressing);
    // Managed memory has one address for both (managed.cpp): pages that
    // migrate on faults under the kernel driver, mapped host memory
    // elsewhere; the host and the device may use it at the same time.
    prop->managedMemory = prop->concurrentManagedAccess = prop->canMapHostMemory;
    prop->concurrentKernels = 1;
    prop->maxThreadsPerMultiProcessor = int(p.warps_per_sm * p.warp_size);
    prop->maxBlocksPerMultiProcessor = int(p.ctas_per_sm);
    prop->streamPrioritiesSupported = 1;
    prop->singleToDoublePrecisionPerfRatio = 1;
    return cudaSuccess;
}

SIMTCUDA_API cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device) {
    if (!value)
        return record(cudaErrorInvalidValue);
    cudaDeviceProp p;
    if (cudaError_t err = cudaGetDeviceProperties(&p, device))
        return err;
    switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock: *value = p.maxThreadsPerBlock; break;
    case cudaDevAttrMaxBlockDimX: *value = p.maxThreadsDim[0]; break;
    case cudaDevAttrMaxBlockDimY: *value = p.maxThreadsDim[1]; break;
    case cudaDevAttrMaxBlockDimZ: *value = p.maxThreadsDim[2]; break;
    case cudaDevAttrMaxGridDimX: *value = p.maxGridSize[0]; break;
    case cudaDevAttrMaxGridDimY: *value = p.maxGridSize[1]; break;
    case cudaDevAttrMaxGridDimZ: *value = p.maxGridSize[2]; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *value = int(p.sharedMemPerBlock); break;
    case cudaDevAttrTotalConstantMemory: *value = int(p.totalConstMem); break;
    case cudaDevAttrWarpSize: *value = p.warpSize; break;
    case cudaDevAttrMaxRegistersPerBlock: *value = p.regsPerBlock; break;
    case cudaDevAttrClockRate: *value = p.clockRate; break;
    case cudaDevAttrMultiProcessorCount: *value = p.multiProcessorCount; break;
    case cudaDevAttrKernelExecTimeout: *value = p.kernelExecTimeoutEnabled; break;
    case cudaDevAttrIntegrated: *value = p.integrated; break;
    case cudaDevAttrCanMapHostMemory: *value = p.canMapHostMemory; break;
    case cudaDevAttrComputeMode: *value = p.computeMode; break;
    case cudaDevAttrConcurrentKernels: *value = p.concurrentKernels; break;
    case cudaDevAttrMemoryClockRate: *value = p.memoryClockRate; break;
    case cudaDevAttrGlobalMemoryBusWidth: *value = p.memoryBusWidth; break;
    case cudaDevAttrL2CacheSize: *value = p.l2CacheSize; break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: *value = p.maxThreadsPerMultiProcessor; break;
    case cudaDevAttrAsyncEngineCount: *value = p.asyncEngineCount; break;
    case cudaDevAttrUnifiedAddressing: *value = p.unifiedAddressing; break;
    case cudaDevAttrComputeCapabilityMajor: *value = p.major; break;
    case cudaDevAttrComputeCapabilityMinor: *value = p.minor; break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: *value = int(p.sharedMemPerMultiprocessor); break;
    case cudaDevAttrMaxRegistersPerMultiprocessor: *value = p.regsPerMultiprocessor; break;
    case cudaDevAttrManagedMemory: *value = p.managedMemory; break;
    case cudaDevAttrConcurrentManagedAccess: *value = p.concurrentManagedAccess; break;
    case cudaDevAttrPageableMemoryAccess: *value = p.pageableMemoryAccess; break;
    case cudaDevAttrMaxBlocksPerMultiprocessor: *value = p.maxBlocksPerMultiProcessor; break;
    case cudaDevAttrMaxPersistingL2CacheSize: *value = p.persistingL2CacheMaxSize; break;
    case cudaDevAttrMaxAccessPolicyWindowSize: *value = p.accessPolicyMaxWindowSize; break;
    case cudaDevAttrMaxPitch: *value = int(std::min<size_t>(p.memPitch, INT32_MAX)); break;
    case cudaDevAttrTextureAlignment: *value = int(p.textureAlignment); break;
    case cudaDevAttrGpuOverlap: *value = p.deviceOverlap; break;
    case cudaDevAttrEccEnabled: *value = p.ECCEnabled; break;
    case cudaDevAttrStreamPrioritiesSupported: *value = p.streamPrioritiesSupported; break;
    case cudaDevAttrSingleToDoublePrecisionPerfRatio: *value = p.singleToDoublePrecisionPerfRatio; break;
    case cudaDevAttrCooperativeLaunch: *value = p.cooperativeLaunch; break;
    case cudaDevAttrMemoryPoolsSupported:
        *value = 1;
        break; // mempool.cpp
    case cudaDevAttrMemoryPoolSupportedHandleTypes:
        *value = cudaMemHandleTypeNone;
        break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = int(p.sharedMemPerBlockOptin); break;
    case cudaDevAttrReservedSharedMemoryPerBlock: *value = int(p.reservedSharedMemPerBlock); break;
    default: return record(cudaErrorInvalidValue);
    }
    return cudaSuccess;
}

SIMTCUDA_API cudaError_t cudaDeviceSynchronize(void) {
    CONTEXT(ctx);
    cudaError_t err = record(simtgpuCtxSynchronize(ctx));
    release_pool_memory();
    return err;
}

SIMTCUDA_API cudaError_t cudaThreadSynchronize(void) { return cudaDeviceSynchronize(); }

SIMTCUDA_API cudaError_t cudaDeviceReset(void) {
    if (cudaError_t err = ensure_init())
        return record(err);
    // Work still queued completes (and prints) before the context goes.
    reset_device(current_device());
    return cudaSuccess;
}

namespace {
bool to_simtgpu_limit(cudaLimit limit, simtgpuLimit *out) {
    switch (limit) {
    case cudaLimitStackSize: *out = SIMTGPU_LIMIT_STACK_SIZE; return true;
    case cudaLimitPrintfFifoSize: *out = SIMTGPU_LIMIT_PRINTF_FIFO_SIZE; return true;
    default: return false;
    }
}
} // namespace

// The L2 limits CUDA 11 added. The persisting set-aside is the device's
// (libsimtgpu's SIMTGPU_LIMIT_PERSISTING_L2_CACHE_SIZE) where it has one
// (persistingL2CacheMaxSize > 0); elsewhere only 0 is accepted. The fetch
// granularity is accepted and kept: the device has none.
static size_t l2_fetch_granularity = 32;

static uint32_t persisting_l2_max() {
    simtgpuDeviceProperties p{};
    simtgpuDeviceGetProperties(&p, current_device());
    return p.l2_persisting_max;
}

SIMTCUDA_API cudaError_t cudaDeviceGetLimit(size_t *value, enum cudaLimit limit) {
    if (!value)
        return record(cudaErrorInvalidValue);
    CONTEXT(ctx);
    switch (limit) {
    case cudaLimitPersistingL2CacheSize:
        if (persisting_l2_max() == 0) {
            *value = 0;
            return cudaSuccess;
        }
        return record(simtgpuCtxGetLimit(ctx, SIMTGPU_LIMIT_PERSISTING_L2_CACHE_SIZE, value));
    case cudaLimitMaxL2FetchGranularity: *value = l2_fetch_granularity; return cudaSuccess;
    case cudaLimitMallocHeapSize: return get_malloc_heap_size(value);
    default: break;
    }
    simtgpuLimit l;
    if (!to_simtgpu_limit(limit, &l))
        return record(cudaErrorUnsupportedLimit);
    return record(simtgpuCtxGetLimit(ctx, l, value));
}

SIMTCUDA_API cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value) {
    CONTEXT(ctx);
    switch (limit) {
    case cudaLimitPersistingL2CacheSize: {
        const uint32_t max = persisting_l2_max();
        if (value > max)
            return record(cudaErrorInvalidValue); // above persistingL2CacheMaxSize
        if (max == 0)
            return cudaSuccess; // 0 on a device without a set-aside
        return record(simtgpuCtxSetLimit(ctx, SIMTGPU_LIMIT_PERSISTING_L2_CACHE_SIZE, value));
    }
    case cudaLimitMaxL2FetchGranularity:
        if (value > 128)
            return record(cudaErrorInvalidValue);
        l2_fetch_granularity = value;
        return cudaSuccess;
    case cudaLimitMallocHeapSize: return set_malloc_heap_size(value);
    default: break;
    }
    simtgpuLimit l;
    if (!to_simtgpu_limit(limit, &l))
        return record(cudaErrorUnsupportedLimit);
    return record(simtgpuCtxSetLimit(ctx, l, value));
}

namespace {
// Preferences the device has no hardware for, kept so that the getters
// report what was set, as CUDA does on GPUs without the feature.
std::atomic<int> cache_config{cudaFuncCachePreferNone};
std::atomic<int> shared_mem_config{cudaSharedMemBankSizeFourByte};

bool valid_cache_config(enum cudaFuncCache config) {
    return config >= cudaFuncCachePreferNone && config <= cudaFuncCachePreferEqual;
}

bool valid_shared_mem_config(enum cudaSharedMemConfig config) {
    return config >= cudaSharedMemBankSizeDefault && config <= cudaSharedMemBankSizeEightByte;
}
} // namespace

SIMTCUDA_API cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache config) {
    if (!valid_cache_config(config))
        return record(cudaErrorInvalidValue);
    cache_config = config; // a preference; the device has no configurable cache
    return cudaSuccess;
}

SIMTCUDA_API cudaError_t cudaDeviceGetCacheConfig(enum cudaFuncCache *config) {
    if (!config)
        return record(cudaErrorInvalidValue);
    *config = static_cast<enum cudaFuncCache>(cache_config.load());
    return cudaSuccess;
}

SIMTCUDA_API cudaError_t cudaFuncSetCacheConfig(const void *, enum cudaFuncCache config) {
    return valid_cache_config(config) ? cudaSuccess : record(cudaErrorInvalidValue);
}

SIMTCUDA_API cudaError_t cudaDeviceSetSharedMemConfig(enum cudaSharedMemConfig config) {
    if (!valid_shared_mem_config(config))
        return record(cudaErrorInvalidValue);
    // Default is the device's natural width, 4 bytes (docs/cuda-runtime.md).
    shared_mem_config = config == cudaSharedMemBankSizeDefault ? cudaSharedMemBankSizeFourByte
                                                               : config;
    return cudaSuccess;
}

SIMTCUDA_API cudaError_t cudaDeviceGetSharedMemConfig(enum cudaSharedMemConfig *config) {
    if (!config)
        return record(cudaErrorInvalidValue);
    *config = static_cast<enum cudaSharedMemConfig>(shared_mem_config.load());
    return cudaSuccess;
}

SIMTCUDA_API cudaError_t cudaFuncSetSharedMemConfig(const void *, enum cudaSharedMemConfig config) {
    return valid_shared_mem_config(config) ? cudaSuccess : record(cudaErrorInvalidValue);
}

SIMTCUDA_API cudaError_t cudaMemGetInfo(size_t *free, size_t *total) {
    if (!free || !total)
        return record(cudaErrorInvalidValue);
    CONTEXT(ctx);
    (void)ctx;
    uint64_t used = 0, size = 0;
    if (simtgpuResult r = simtgpuDeviceGetMemInfo(current_device(), &used, &size))
        return record(r);
    *total = size;
    *free = size - std::min(used, size);
    return cudaSuccess;
}

SIMTCUDA_API cudaError_t cudaProfilerStart(void) {
    if (cudaError_t err = ensure_init())
        return record(err);
    return cudaSuccess;
}

SIMTCUDA_API cudaError_t cudaProfilerStop(void) {
    if (cudaError_t err = ensure_init())
        return record(err);
    return cudaSuccess;
}

// ----------------------------------------------------------------- memory ---

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

// ---------------------------------------------------------------- streams ---

SIMTCUDA_API cudaError_t cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags,
                                                      int priority) {
    if (!pStream || (flags & ~unsigned(cudaStreamNonBlocking)))
        return record(cudaErrorInvalidValue);
    CONTEXT(ctx);
    simtgpuStream s;
    // As CUDA: clamped to [greatest, least] = [-1, 0], lower numbers are
    // higher priorities; the uAPI's are the reverse (0 normal, 1 high).
    priority = std::clamp(priority, -1, 0);
    if (simtgpuResult r = simtgpuStreamCreate(&s, ctx, flags, -priority))
        return record(r);
    *pStream = reinterpret_cast<cudaStream_t>(s);
    return cudaSuccess;
}

SIMTCUDA_API cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags) {
    return cudaStreamCreateWithPriority(pStream, flags, 0);
}

SIMTCUDA_API cudaError_t cudaStreamCreate(cudaStream_t *pStream) {
    return cudaStreamCreateWithPriority(pStream, cudaStreamDefault, 0);
}

SIMTCUDA_API cudaError_t cudaDeviceGetStreamPriorityRange(int *leastPriority,
                                                          int *greatestPriority) {
    // As on NVIDIA's devices the least priority is 0, every stream's default
    // (the uAPI's normal queue priority); the greatest is the uAPI's high one.
    if (leastPriority)
        *leastPriority = 0;
    if (greatestPriority)
        *greatestPriority = -1;
    return cudaSuccess;
}

namespace {
// Stream attributes CUDA keeps per stream: the access policy window (handed
// to libsimtgpu where the device has persisting lines; elsewhere a hint kept
// and ignored, as CUDA does on a V100) and the synchronisation policy.
struct StreamAttributes {
    cudaAccessPolicyWindow window{};
    cudaSynchronizationPolicy sync_policy = cudaSyncPolicyAuto;
};
std::map<cudaStream_t, StreamAttributes> &stream_attributes() {
    static auto *m = new std::map<cudaStream_t, StreamAttributes>; // as runtime()
    return *m;
}
} // namespace

cudaError_t simtgpu::cudart::check_access_policy_window(const cudaAccessPolicyWindow &w) {
    auto valid = [](cudaAccessProperty p) {
        return p == cudaAccessPropertyNormal || p == cudaAccessPropertyStreaming ||
               p == cudaAccessPropertyPersisting;
    };
    if (!(w.hitRatio >= 0.f && w.hitRatio <= 1.f) || !valid(w.hitProp) || !valid(w.missProp) ||
        w.missProp == cudaAccessPropertyPersisting)
        return cudaErrorInvalidValue;
    return cudaSuccess;
}

SIMTCUDA_API cudaError_t cudaStreamSetAttribute(cudaStream_t stream, cudaStreamAttrID attr,
                                                const cudaStreamAttrValue *value) {
    if (!value)
        return record(cudaErrorInvalidValue);
    CONTEXT(ctx);
    if (cudaError_t err = record(simtgpuStreamQuery(ctx, to_stream(stream)));
        err != cudaSuccess && err != cudaErrorNotReady)
        return err;
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    StreamAttributes &a = stream_attributes()[stream];
    switch (attr) {
    case cudaStreamAttributeAccessPolicyWindow: {
        const cudaAccessPolicyWindow &w = value->accessPolicyWindow;
        if (cudaError_t err = check_access_policy_window(w))
            return record(err);
        simtgpuDeviceProperties p{};
        simtgpuDeviceGetProperties(&p, current_device());
        if (p.l2_window_max != 0) {
            // num_bytes above accessPolicyMaxWindowSize: cudaErrorInvalidValue.
            const simtgpuAccessPolicyWindow window{
                simtgpuDevicePtr(reinterpret_cast<uintptr_t>(w.base_ptr)), w.num_bytes,
                w.hitRatio, simtgpuAccessProperty(w.hitProp), simtgpuAccessProperty(w.missProp),
                0};
            if (cudaError_t err =
                    record(simtgpuStreamSetAccessPolicyWindow(ctx, to_stream(stream), &window)))
                return err;
        }
        a.window = w;
        return cudaSuccess;
    }
    case cudaStreamAttributeSynchronizationPolicy:
        if (value->syncPolicy < cudaSyncPolicyAuto ||
            value->syncPolicy > cudaSyncPolicyBlockingSync)
            return record(cudaErrorInvalidValue);
        a.sync_policy = value->syncPolicy; // waits always block here
        return cudaSuccess;
    default: return record(cudaErrorInvalidValue);
    }
}

SIMTCUDA_API cudaError_t cudaStreamGetAttribute(cudaStream_t stream, cudaStreamAttrID attr,
                                                cudaStreamAttrValue *value) {
    if (!value)
        return record(cudaErrorInvalidValue);
    CONTEXT(ctx);
    if (cudaError_t err = record(simtgpuStreamQuery(ctx, to_stream(stream)));
        err != cudaSuccess && err != cudaErrorNotReady)
        return err;
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    auto it = stream_attributes().find(stream);
    StreamAttributes a = it == stream_attributes().end() ? StreamAttributes{} : it->second;
    switch (attr) {
    case cudaStreamAttributeAccessPolicyWindow:
        value->accessPolicyWindow = a.window;
        return cudaSuccess;
    case cudaStreamAttributeSynchronizationPolicy:
        value->syncPolicy = a.sync_policy;
        return cudaSuccess;
    default: return record(cudaErrorInvalidValue);
    }
}

SIMTCUDA_API cudaError_t cudaCtxResetPersistingL2Cache(void) {
    CONTEXT(ctx);
    return record(simtgpuCtxResetPersistingL2Cache(ctx)); // a no-op without a set-aside
}

SIMTCUDA_API cudaError_t cudaStreamDestroy(cudaStream_t stream) {
    if (cudaError_t err = check_loaded())
        return record(err);
    if (!to_stream(stream))
        return record(cudaErrorInvalidResourceHandle);
    forget_pool_stream(to_stream(stream));
    forget_capture_stream(to_stream(stream));
    {
        std::lock_guard<std::recursive_mutex> guard(runtime().mu);
        stream_attributes().erase(stream);
    }
    return record(simtgpuStreamDestroy(to_stream(stream)));
}

SIMTCUDA_API cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
    CONTEXT(ctx);
    if (is_capturing(stream))
        return capture_refuse(stream);
    cudaError_t err = record(simtgpuStreamSynchronize(ctx, to_stream(stream)));
    release_pool_memory();
    return err;
}

SIMTCUDA_API cudaError_t cudaStreamQuery(cudaStream_t stream) {
    CONTEXT(ctx);
    if (is_capturing(stream))
        return capture_refuse(stream);
    return record(simtgpuStreamQuery(ctx, to_stream(stream)));
}

// Host work in stream order runs on the driver's host-function thread, so
// the calling thread goes on (simtgpuLaunchHostFunc); these carry CUDA's
// function and its arguments there.
struct HostCallback {
    cudaStream_t stream;
    cudaStreamCallback_t callback;
    void *user_data;
};
struct HostFunction {
    cudaHostFn_t fn;
    void *user_data;
};

SIMTCUDA_API cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback,
                                               void *userData, unsigned int flags) {
    if (!callback || flags != 0)
        return record(cudaErrorInvalidValue);
    CONTEXT(ctx);
    if (is_capturing(stream))
        return capture_refuse(stream); // as in CUDA: use cudaLaunchHostFunc in graphs
    // The stream's status goes to the callback: a failed kernel's error, as
    // CUDA passes it, so it runs after errors too.
    auto *call = new HostCallback{stream, callback, userData};
    simtgpuResult r = simtgpuLaunchHostFunc(
        ctx, to_stream(stream),
        [](void *user, simtgpuResult status) {
            std::unique_ptr<HostCallback> call(static_cast<HostCallback *>(user));
            call->callback(call->stream, to_cuda(status), call->user_data);
        },
        call, SIMTGPU_HOST_FN_AFTER_ERROR);
    if (r)
        delete call;
    return record(r);
}

SIMTCUDA_API cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData) {
    if (!fn)
        return record(cudaErrorInvalidValue);
    CONTEXT(ctx);
    if (is_capturing(stream))
        return capture_host(fn, userData, stream);
    // CUDA does not run host functions after an error; nor does the driver.
    auto *call = new HostFunction{fn, userData};
    simtgpuResult r = simtgpuLaunchHostFunc(
        ctx, to_stream(stream),
        [](void *user, simtgpuResult) {
            std::unique_ptr<HostFunction> call(static_cast<HostFunction *>(user));
            call->fn(call->user_data);
        },
        call, 0);
    if (r)
        delete call;
    return record(r);
}

SIMTCUDA_API cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event,
                                             unsigned int flags) {
    CONTEXT(ctx);
    if (!event || flags != 0)
        return record(cudaErrorInvalidValue);
    if (cudaError_t err; capture_wait_event(stream, event, &err))
        return err;
    return record(simtgpuStreamWaitEvent(ctx, to_stream(stream), to_event(event), flags));
}

SIMTCUDA_API cudaError_t cudaStreamGetFlags(cudaStream_t stream, unsigned int *flags) {
    if (cudaError_t err = check_loaded())
        return record(err);
    return record(simtgpuStreamGetFlags(to_stream(stream), flags));
}

// CUDA's numbers: 0 normal, -1 high (the default streams are normal).
SIMTCUDA_API cudaError_t cudaStreamGetPriority(cudaStream_t stream, int *priority) {
    if (!priority)
        return record(cudaErrorInvalidValue);
    if (cudaError_t err = check_loaded())
        return record(err);
    int p = 0;
    if (to_stream(stream))
        if (simtgpuResult r = simtgpuStreamGetPriority(to_stream(stream), &p))
            return record(r);
    *priority = -std::clamp(p, 0, 1);
    return cudaSuccess;
}

// ----------------------------------------------------------------- events ---

SIMTCUDA_API cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags) {
    if (!event || (flags & ~unsigned(cudaEventBlockingSync | cudaEventDisableTiming)))
        return record(cudaErrorInvalidValue);
    CONTEXT(ctx);
    simtgpuEvent e;
    if (simtgpuResult r = simtgpuEventCreate(&e, ctx, flags))
        return record(r);
    *event = reinterpret_cast<cudaEvent_t>(e);
    return cudaSuccess;
}

SIMTCUDA_API cudaError_t cudaEventCreate(cudaEvent_t *event) {
    return cudaEventCreateWithFlags(event, cudaEventDefault);
}

SIMTCUDA_API cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
    if (cudaError_t err = check_loaded())
        return record(err);
    if (!event)
        return record(cudaErrorInvalidResourceHandle);
    if (capture_event_record(event, stream))
        return cudaSuccess;
    return record(simtgpuEventRecord(to_event(event), to_stream(stream)));
}

SIMTCUDA_API cudaError_t cudaEventSynchronize(cudaEvent_t event) {
    if (cudaError_t err = check_loaded())
        return record(err);
    cudaError_t err = record(simtgpuEventSynchronize(to_event(event)));
    release_pool_memory();
    return err;
}

SIMTCUDA_API cudaError_t cudaEventQuery(cudaEvent_t event) {
    if (cudaError_t err = check_loaded())
        return record(err);
    return record(simtgpuEventQuery(to_event(event)));
}

SIMTCUDA_API cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end) {
    if (cudaError_t err = check_loaded())
        return record(err);
    return record(simtgpuEventElapsedTime(ms, to_event(start), to_event(end)));
}

SIMTCUDA_API cudaError_t cudaEventDestroy(cudaEvent_t event) {
    if (cudaError_t err = check_loaded())
        return record(err);
    return record(simtgpuEventDestroy(to_event(event)));
}

// ---------------------------------------------------------------- kernels ---

namespace {
simtgpuAccessPolicyWindow to_simtgpu_window(const cudaAccessPolicyWindow &w) {
    return simtgpuAccessPolicyWindow{simtgpuDevicePtr(reinterpret_cast<uintptr_t>(w.base_ptr)),
                                     w.num_bytes,
                                     w.hitRatio,
                                     simtgpuAccessProperty(w.hitProp),
                                     simtgpuAccessProperty(w.missProp),
                                     0};
}

// A launch on `stream` (a libsimtgpu one), with a window of its own where
// the attributes give one and the device keeps windows (elsewhere a window
// is a hint, as on a V100).
cudaError_t submit_launch(simtgpuFunction f, dim3 grid, dim3 block, void **args, size_t shared,
                          simtgpuStream stream, const LaunchAttributes &a) {
    simtgpuAccessPolicyWindow window{};
    simtgpuDeviceProperties p{};
    simtgpuDeviceGetProperties(&p, current_device());
    const bool own_window = a.has_window && p.l2_window_max != 0;
    if (own_window)
        window = to_simtgpu_window(a.window);
    const simtgpuLaunchConfig config{{grid.x, grid.y, grid.z},
                                     {block.x, block.y, block.z},
                                     unsigned(shared),
                                     stream,
                                     own_window ? &window : nullptr};
    return record(simtgpuLaunchKernelEx(f, &config, args));
}

// Every block resident at once, or refused as CUDA refuses it: grid.sync()
// would otherwise wait for blocks that cannot be placed. Cooperative launches
// of a context run one after another (each waits for the previous one's
// event), so two of them never hold SMs the other needs.
cudaError_t submit_cooperative(simtgpuContext ctx, simtgpuFunction f, dim3 grid, dim3 block,
                               void **args, size_t shared, simtgpuStream stream,
                               const LaunchAttributes &a) {
    simtgpuDeviceProperties p;
    simtgpuDeviceGetProperties(&p, current_device());
    if (p.arch < SIMTGPU_ARCH_SIMT2)
        return record(cudaErrorNotSupported); // no launch environment CSR for the barrier
    const uint64_t threads = uint64_t(block.x) * block.y * block.z;
    const uint64_t blocks = uint64_t(grid.x) * grid.y * grid.z;
    if (threads == 0 || blocks == 0 || threads > p.max_threads_per_cta)
        return record(cudaErrorInvalidConfiguration);
    int per_sm = 0;
    if (simtgpuResult r =
            simtgpuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, f, int(threads), shared))
        return record(r);
    if (blocks > uint64_t(per_sm) * p.num_sms)
        return record(cudaErrorCooperativeLaunchTooLarge);
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    simtgpuEvent &last = rt.coop_events[size_t(current_device())];
    if (!last) {
        if (simtgpuResult r = simtgpuEventCreate(&last, ctx, SIMTGPU_EVENT_DISABLE_TIMING))
            return record(r);
    } else if (simtgpuResult r = simtgpuStreamWaitEvent(ctx, stream, last, 0)) {
        return record(r);
    }
    if (cudaError_t err = submit_launch(f, grid, block, args, shared, stream, a))
        return err;
    return record(simtgpuEventRecord(last, stream));
}

// A launch at another priority than its stream's runs on the runtime's
// stream of that priority, between the stream's work before it and after it:
// `before` recorded on the stream is waited for by the priority stream, and
// `after`, recorded behind the launch, by the stream. A wait takes the
// event's fence at the waiting stream's next submission, so a second record
// of `before` on the stream submits that wait at once, before either event
// is recorded again.
cudaError_t launch_at_priority(simtgpuContext ctx, simtgpuFunction f, dim3 grid, dim3 block,
                               void **args, size_t shared, simtgpuStream stream,
                               const LaunchAttributes &a) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    const int priority = -std::clamp(a.priority, -1, 0); // libsimtgpu's: 1 high
    Runtime::PriorityLane &lane = rt.priority_lanes[{current_device(), priority}];
    if (!lane.stream) {
        if (simtgpuResult r = simtgpuStreamCreate(&lane.stream, ctx, SIMTGPU_STREAM_NON_BLOCKING,
                                                  priority))
            return record(r);
        if (simtgpuResult r = simtgpuEventCreate(&lane.before, ctx, SIMTGPU_EVENT_DISABLE_TIMING))
            return record(r);
        if (simtgpuResult r = simtgpuEventCreate(&lane.after, ctx, SIMTGPU_EVENT_DISABLE_TIMING))
            return record(r);
    }
    if (simtgpuResult r = simtgpuEventRecord(lane.before, stream))
        return record(r);
    if (simtgpuResult r = simtgpuStreamWaitEvent(ctx, lane.stream, lane.before, 0))
        return record(r);
    const cudaError_t err =
        a.cooperative ? submit_cooperative(ctx, f, grid, block, args, shared, lane.stream, a)
                      : submit_launch(f, grid, block, args, shared, lane.stream, a);
    if (err != cudaSuccess)
        return err;
    if (simtgpuResult r = simtgpuEventRecord(lane.after, lane.stream))
        return record(r);
    if (simtgpuResult r = simtgpuStreamWaitEvent(ctx, stream, lane.after, 0))
        return record(r);
    return record(simtgpuEventRecord(lane.before, stream));
}

cudaError_t launch(const void *func, dim3 grid, dim3 block, void **args, size_t shared,
                   cudaStream_t stream, const LaunchAttributes &a,
                   const std::vector<cudaLaunchAttribute> &attrs) {
    CONTEXT(ctx);
    simtgpuFunction f;
    if (cudaError_t err = function_for(func, &f))
        return err;
    // Above the default per-block shared memory only with the opt-in, as in
    // CUDA: the same error as CUDA's.
    if (shared > size_t(max_dynamic_shared(func, f)))
        return record(cudaErrorInvalidValue);
    if (is_capturing(stream)) {
        if (a.cooperative) // a graph would lose the co-residency check's ordering
            return capture_refuse(stream);
        return capture_kernel(func, f, grid, block, args, shared, stream, attrs);
    }
    if (a.has_priority) {
        int stream_priority = 0; // the default stream's
        if (to_stream(stream))
            if (simtgpuResult r = simtgpuStreamGetPriority(to_stream(stream), &stream_priority))
                return record(r);
        if (-std::clamp(a.priority, -1, 0) != stream_priority)
            return launch_at_priority(ctx, f, grid, block, args, shared, to_stream(stream), a);
    }
    if (a.cooperative)
        return submit_cooperative(ctx, f, grid, block, args, shared, to_stream(stream), a);
    return submit_launch(f, grid, block, args, shared, to_stream(stream), a);
}

cudaError_t unsupported_attribute(const char *what) {
    std::fprintf(stderr, "simtgpu: cudaLaunchKernelEx: %s\n", what);
    return cudaErrorNotSupported;
}
} // namespace

cudaError_t simtgpu::cudart::add_launch_attribute(cudaLaunchAttributeID id,
                                                  const cudaLaunchAttributeValue &v,
                                                  LaunchAttributes *out) {
    switch (id) {
    case cudaLaunchAttributeIgnore: return cudaSuccess;
    case cudaLaunchAttributeAccessPolicyWindow:
        if (cudaError_t err = check_access_policy_window(v.accessPolicyWindow))
            return err;
        out->has_window = true;
        out->window = v.accessPolicyWindow;
        return cudaSuccess;
    case cudaLaunchAttributeCooperative: out->cooperative = v.cooperative != 0; return cudaSuccess;
    case cudaLaunchAttributeSynchronizationPolicy:
        if (v.syncPolicy < cudaSyncPolicyAuto || v.syncPolicy > cudaSyncPolicyBlockingSync)
            return cudaErrorInvalidValue;
        return cudaSuccess; // waits always block here
    case cudaLaunchAttributeClusterDimension:
        if (v.clusterDim.x == 0 || v.clusterDim.y == 0 || v.clusterDim.z == 0)
            return cudaErrorInvalidValue;
        if (v.clusterDim.x * v.clusterDim.y * v.clusterDim.z != 1)
            return unsupported_attribute("a cluster dimension above 1x1x1: the device has no "
                                         "thread block clusters (clusterLaunch is 0)");
        return cudaSuccess;
    case cudaLaunchAttributeClusterSchedulingPolicyPreference:
        if (v.clusterSchedulingPolicyPreference < cudaClusterSchedulingPolicyDefault ||
            v.clusterSchedulingPolicyPreference > cudaClusterSchedulingPolicyLoadBalancing)
            return cudaErrorInvalidValue;
        return cudaSuccess; // a preference, for clusters of one block
    case cudaLaunchAttributeProgrammaticStreamSerialization:
        return cudaSuccess; // allows overlap with the previous kernel: serialised is allowed
    case cudaLaunchAttributePriority:
        out->has_priority = true;
        out->priority = v.priority; // clamped to the range, as CUDA does
        return cudaSuccess;
    case cudaLaunchAttributeProgrammaticEvent:
    case cudaLaunchAttributeLaunchCompletionEvent:
        return unsupported_attribute(
            "programmatic and launch-completion events are not supported: record an event "
            "behind the kernel instead");
    case cudaLaunchAttributeMemSyncDomainMap:
    case cudaLaunchAttributeMemSyncDomain:
        return unsupported_attribute("memory synchronisation domains are not supported");
    }
    return cudaErrorInvalidValue;
}

cudaError_t simtgpu::cudart::launch_with_attributes(const void *func, dim3 grid, dim3 block,
                                                    void **args, size_t shared,
                                                    cudaStream_t stream,
                                                    const std::vector<cudaLaunchAttribute> &attrs) {
    LaunchAttributes a;
    for (const cudaLaunchAttribute &attr : attrs)
        if (cudaError_t err = add_launch_attribute(attr.id, attr.val, &a))
            return record(err);
    return launch(func, grid, block, args, shared, stream, a, attrs);
}

SIMTCUDA_API cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim,
                                          void **args, size_t sharedMem, cudaStream_t stream) {
    return launch(func, gridDim, blockDim, args, sharedMem, stream, LaunchAttributes{}, {});
}

SIMTCUDA_API cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 gridDim, dim3 blockDim,
                                                     void **args, size_t sharedMem,
                                                     cudaStream_t stream) {
    LaunchAttributes a;
    a.cooperative = true;
    return launch(func, gridDim, blockDim, args, sharedMem, stream, a, {});
}

SIMTCUDA_API cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func,
                                             void **args) {
    if (!config || (config->numAttrs && !config->attrs))
        return record(cudaErrorInvalidValue);
    return launch_with_attributes(
        func, config->gridDim, config->blockDim, args, config->dynamicSmemBytes, config->stream,
        std::vector<cudaLaunchAttribute>(config->attrs, config->attrs + config->numAttrs));
}

SIMTCUDA_API cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func) {
    if (!attr)
        return record(cudaErrorInvalidValue);
    simtgpuFunction f;
    if (cudaError_t err = function_for(func, &f))
        return err;
    int v[4];
    simtgpuFuncGetAttribute(&v[0], SIMTGPU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f);
    simtgpuFuncGetAttribute(&v[1], SIMTGPU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f);
    simtgpuFuncGetAttribute(&v[2], SIMTGPU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, f);
    simtgpuFuncGetAttribute(&v[3], SIMTGPU_FUNC_ATTRIBUTE_ARCH, f);
    simtgpuDeviceProperties p;
    simtgpuDeviceGetProperties(&p, current_device());
    std::memset(attr, 0, sizeof(*attr));
    attr->maxThreadsPerBlock = v[0];
    attr->sharedSizeBytes = size_t(v[1]);
    attr->localSizeBytes = size_t(v[2]);
    attr->ptxVersion = attr->binaryVersion = int(SIMTGPU_COMPUTE_CAPABILITY(uint32_t(v[3])));
    attr->numRegs = int(SIMTGPU_REGS_PER_THREAD);
    attr->maxDynamicSharedSizeBytes = max_dynamic_shared(func, f);
    attr->preferredShmemCarveout = settings_of(func).carveout;
    return cudaSuccess;
}

SIMTCUDA_API cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr,
                                              int value) {
    simtgpuFunction f;
    if (cudaError_t err = function_for(func, &f))
        return err;
    switch (attr) {
    case cudaFuncAttributeMaxDynamicSharedMemorySize: {
        simtgpuDeviceProperties p;
        simtgpuDeviceGetProperties(&p, current_device());
        int static_shared = 0;
        simtgpuFuncGetAttribute(&static_shared, SIMTGPU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f);
        if (value < 0 || int64_t(value) + static_shared > int64_t(p.shared_per_sm))
            return record(cudaErrorInvalidValue);
        settings_of(func).max_dynamic_shared = value;
        return cudaSuccess;
    }
    case cudaFuncAttributePreferredSharedMemoryCarveout:
        if (value < -1 || value > 100)
            return record(cudaErrorInvalidValue);
        settings_of(func).carveout = value;
        return cudaSuccess;
    }
    return record(cudaErrorInvalidValue);
}

SIMTCUDA_API cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks,
                                                                       const void *func,
                                                                       int blockSize,
                                                                       size_t dynamicSMemSize) {
    simtgpuFunction f;
    if (cudaError_t err = function_for(func, &f))
        return err;
    if (numBlocks && dynamicSMemSize > size_t(max_dynamic_shared(func, f))) {
        *numBlocks = 0; // such a launch is refused
        return cudaSuccess;
    }
    return record(
        simtgpuOccupancyMaxActiveBlocksPerMultiprocessor(numBlocks, f, blockSize, dynamicSMemSize));
}

SIMTCUDA_API cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int *numBlocks, const void *func, int blockSize, size_t dynamicSMemSize, unsigned int flags) {
    if (flags > 1)
        return record(cudaErrorInvalidValue);
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(numBlocks, func, blockSize,
                                                         dynamicSMemSize);
}

// The most dynamic shared memory a block may use with numBlocks blocks of
// blockSize threads on one SM: the occupancy rule's answer, searched, within
// what a launch of the kernel accepts (the opt-in limit).
SIMTCUDA_API cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize,
                                                                   const void *func,
                                                                   int numBlocks, int blockSize) {
    if (!dynamicSmemSize || numBlocks <= 0 || blockSize <= 0)
        return record(cudaErrorInvalidValue);
    simtgpuFunction f;
    if (cudaError_t err = function_for(func, &f))
        return err;
    auto fits = [&](size_t bytes, bool *ok) {
        int blocks = 0;
        simtgpuResult r =
            simtgpuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f, blockSize, bytes);
        *ok = r == SIMTGPU_SUCCESS && blocks >= numBlocks;
        return r;
    };
    bool ok = false;
    if (simtgpuResult r = fits(0, &ok))
        return record(r); // a block size the kernel cannot take
    size_t lo = 0, hi = size_t(max_dynamic_shared(func, f)); // lo always fits
    if (!ok)
        hi = 0;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo + 1) / 2;
        fits(mid, &ok);
        if (ok)
            lo = mid;
        else
            hi = mid - 1;
    }
    *dynamicSmemSize = lo;
    return cudaSuccess;
}
