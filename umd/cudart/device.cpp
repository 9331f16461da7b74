// The CUDA runtime API, devices: versions, device selection and
// properties, synchronisation and reset, limits, cache and shared-memory
// configurations, memory information and the profiler calls.
#include "runtime.h"

#include "simtgpu/hw.h"
#include "simtgpu/occupancy.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>

using namespace simtgpu::cudart;

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
