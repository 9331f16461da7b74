/* SPDX-License-Identifier: MIT */
/*
 * libsimtgpu: the simtgpu userspace driver, a C API in the spirit of the CUDA
 * driver API. It speaks only the uAPI of include/uapi/drm/simtgpu_drm.h, over
 * one of two transports:
 *   - "drm": the kernel driver's render node (/dev/dri/renderD*), via libdrm;
 *   - "sim": an in-process implementation of the same ioctls on the
 *     simulator library (libsimtgpu-sim.so), for host-only runs and tests.
 * SIMTGPU_TRANSPORT=drm|sim chooses; by default the render node when one
 * exists, else the in-process simulator. docs/umd.md describes it all.
 *
 * Every function returns a simtgpuResult. When it is not SIMTGPU_SUCCESS,
 * simtgpuGetErrorDetail() returns a sentence saying what went wrong and,
 * where we know it, how to fix it (per thread, until the next failure).
 */
#ifndef SIMTGPU_SIMTGPU_H
#define SIMTGPU_SIMTGPU_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(SIMTGPU_BUILDING_LIBRARY)
#define SIMTGPU_API __attribute__((visibility("default")))
#else
#define SIMTGPU_API
#endif

typedef enum simtgpuResult {
    SIMTGPU_SUCCESS = 0,
    SIMTGPU_ERROR_INVALID_VALUE = 1,
    SIMTGPU_ERROR_OUT_OF_MEMORY = 2,       /* device (VRAM) or host memory */
    SIMTGPU_ERROR_NOT_INITIALIZED = 3,     /* simtgpuInit not called / failed */
    SIMTGPU_ERROR_NO_DEVICE = 4,           /* no render node, no simulator */
    SIMTGPU_ERROR_INVALID_DEVICE = 5,      /* ordinal out of range */
    SIMTGPU_ERROR_VERSION_MISMATCH = 6,    /* uAPI major differs */
    SIMTGPU_ERROR_PERMISSION_DENIED = 7,   /* cannot open the render node */
    SIMTGPU_ERROR_DRIVER_NOT_LOADED = 8,   /* the device is there, its module is not */
    SIMTGPU_ERROR_INVALID_HANDLE = 9,      /* unknown context/stream/event/... */
    SIMTGPU_ERROR_INVALID_IMAGE = 10,      /* not a usable device ELF */
    SIMTGPU_ERROR_NO_BINARY_FOR_GPU = 11,  /* image arch newer than the device */
    SIMTGPU_ERROR_NOT_FOUND = 12,          /* kernel or symbol name */
    SIMTGPU_ERROR_NOT_READY = 13,          /* query: work still pending */
    SIMTGPU_ERROR_ILLEGAL_ADDRESS = 14,    /* device page fault */
    SIMTGPU_ERROR_MISALIGNED_ADDRESS = 15,
    SIMTGPU_ERROR_ILLEGAL_INSTRUCTION = 16,
    SIMTGPU_ERROR_ASSERT = 17,             /* device-side assert */
    SIMTGPU_ERROR_LAUNCH_TIMEOUT = 18,     /* job timed out, device reset */
    SIMTGPU_ERROR_LAUNCH_FAILED = 19,      /* other exception (deadlock, ...) */
    SIMTGPU_ERROR_LAUNCH_OUT_OF_RESOURCES = 20, /* shared/stack/threads too big */
    SIMTGPU_ERROR_INVALID_CONFIGURATION = 21,   /* zero or too large grid/block */
    SIMTGPU_ERROR_CONTEXT_IS_DESTROYED = 22,    /* context poisoned by a fault */
    SIMTGPU_ERROR_NOT_SUPPORTED = 23,
    SIMTGPU_ERROR_HOST_MEMORY_ALREADY_REGISTERED = 24,
    SIMTGPU_ERROR_HOST_MEMORY_NOT_REGISTERED = 25,
    SIMTGPU_ERROR_UNKNOWN = 999,
} simtgpuResult;

typedef int simtgpuDevice; /* ordinal */
typedef struct simtgpuContext_st *simtgpuContext;
typedef struct simtgpuModule_st *simtgpuModule;
typedef struct simtgpuFunction_st *simtgpuFunction;
typedef struct simtgpuStream_st *simtgpuStream; /* NULL = the context's default stream */
typedef struct simtgpuEvent_st *simtgpuEvent;
typedef uint64_t simtgpuDevicePtr; /* GPU virtual address */

SIMTGPU_API const char *simtgpuGetErrorName(simtgpuResult result);
SIMTGPU_API const char *simtgpuGetErrorString(simtgpuResult result);
/* Details of this thread's last failure ("" when none). */
SIMTGPU_API const char *simtgpuGetErrorDetail(void);

/* ------------------------------------------------------------ devices --- */

/* Opens the transport and checks the uAPI version and device architecture.
 * flags must be 0. Safe to call more than once. */
SIMTGPU_API simtgpuResult simtgpuInit(unsigned flags);
SIMTGPU_API simtgpuResult simtgpuDriverGetVersion(int *version); /* major*1000+minor*10 */
SIMTGPU_API simtgpuResult simtgpuDeviceGetCount(int *count);
SIMTGPU_API simtgpuResult simtgpuDeviceGet(simtgpuDevice *device, int ordinal);

typedef struct simtgpuDeviceProperties {
    char name[256];
    char transport[16];     /* "drm" or "sim" */
    char node[64];          /* "/dev/dri/renderD128", or "in-process" */
    uint32_t uapi_version;  /* major << 16 | minor, as the driver reports it */
    uint32_t hw_version;
    uint32_t arch;          /* SIMTGPU_ARCH_* */
    uint32_t caps;          /* SIMTGPU_CAP_* */
    uint32_t num_sms;
    uint32_t warps_per_sm;
    uint32_t warp_size;
    uint32_t ctas_per_sm;
    uint32_t shared_per_sm;
    uint32_t max_threads_per_cta;
    uint32_t max_stack_per_thread;
    uint32_t clock_khz;
    uint32_t max_queues;
    /* 1 when host memory the device maps (simtgpuMemHostAlloc,
     * simtgpuMemHostRegister) has the same address on the device as on the
     * host, and device memory lies where no host memory can (uAPI 1.5 on an
     * x86-64 host, whose processes use addresses below 2^47 only). */
    uint32_t unified_addressing;
    uint64_t vram_size;
    /* The memory hierarchy the device models (uAPI 1.4); 0 where it models
     * none (the functional model) or the driver is older. */
    uint32_t l2_size;       /* bytes */
    uint32_t mem_bus_width; /* bits */
    uint32_t mem_clock_khz;
    /* L2 access management (uAPI 1.7): the most bytes of L2 that may be set
     * aside for persisting lines (SIMTGPU_LIMIT_PERSISTING_L2_CACHE_SIZE)
     * and the largest access policy window; 0 where the device has none or
     * the driver is older. */
    uint32_t l2_persisting_max;
    uint32_t l2_window_max;
    uint32_t reserved3;
} simtgpuDeviceProperties;

SIMTGPU_API simtgpuResult simtgpuDeviceGetProperties(simtgpuDeviceProperties *props,
                                                    simtgpuDevice device);
/* Bytes of VRAM in use on the whole device, and the device's size. */
SIMTGPU_API simtgpuResult simtgpuDeviceGetMemInfo(simtgpuDevice device, uint64_t *used,
                                                 uint64_t *total);

/* ----------------------------------------------------------- contexts --- */

/* A context is one open file of the transport: its own GPU address space. */
SIMTGPU_API simtgpuResult simtgpuCtxCreate(simtgpuContext *ctx, unsigned flags,
                                          simtgpuDevice device);
SIMTGPU_API simtgpuResult simtgpuCtxDestroy(simtgpuContext ctx);
/* Waits for every stream; returns the context's sticky error if any. */
SIMTGPU_API simtgpuResult simtgpuCtxSynchronize(simtgpuContext ctx);
/* The sticky error that poisoned the context (SIMTGPU_SUCCESS when none). */
SIMTGPU_API simtgpuResult simtgpuCtxGetStickyError(simtgpuContext ctx);
SIMTGPU_API simtgpuResult simtgpuCtxGetDevice(simtgpuContext ctx, simtgpuDevice *device);

/* What the device's launch reports said of one kernel's launches that have
 * completed in this context: device cycles from each LAUNCH to its last
 * block (time spent waiting for SMs included), thread instructions. With
 * SIMTGPU_PROFILE=1 in the environment the context prints every kernel's
 * figures on stderr when it is destroyed. */
typedef struct simtgpuKernelStats {
    uint64_t launches;
    uint64_t device_cycles;
    uint64_t thread_instructions;
} simtgpuKernelStats;
SIMTGPU_API simtgpuResult simtgpuCtxGetKernelStats(simtgpuContext ctx, const char *kernel,
                                                  simtgpuKernelStats *stats);

typedef enum simtgpuLimit {
    /* Minimum stack bytes per thread for launches (0: each kernel's own
     * stack size from the kernel table, which is always honoured). */
    SIMTGPU_LIMIT_STACK_SIZE = 0,
    /* Bytes of each stream's device printf buffer (default 1 MiB). Only
     * settable before the context's first launch: INVALID_VALUE after. */
    SIMTGPU_LIMIT_PRINTF_FIFO_SIZE = 1,
    /* Bytes of L2 set aside for persisting lines, device-wide, at most
     * l2_persisting_max (INVALID_VALUE above; NOT_SUPPORTED on a device
     * whose l2_persisting_max is 0). Setting it also makes every
     * persisting line normal. Takes effect in stream order on the default
     * stream. */
    SIMTGPU_LIMIT_PERSISTING_L2_CACHE_SIZE = 2,
} simtgpuLimit;
SIMTGPU_API simtgpuResult simtgpuCtxSetLimit(simtgpuContext ctx, simtgpuLimit limit,
                                            size_t value);
SIMTGPU_API simtgpuResult simtgpuCtxGetLimit(simtgpuContext ctx, simtgpuLimit limit,
                                            size_t *value);

/* ------------------------------------------------------------- memory --- */

SIMTGPU_API simtgpuResult simtgpuMemAlloc(simtgpuContext ctx, simtgpuDevicePtr *dptr,
                                         size_t bytes);
SIMTGPU_API simtgpuResult simtgpuMemFree(simtgpuContext ctx, simtgpuDevicePtr dptr);
/* Device memory at a chosen address (the CUDA driver API's cuMemMap): va and
 * bytes page aligned (SIMTGPU_PAGE_SIZE), the range inside the device's
 * address space for buffers and free in this context; simtgpuMemFree(va)
 * releases it. INVALID_VALUE names what is wrong; NOT_SUPPORTED under a
 * kernel driver older than uAPI 1.5. */
SIMTGPU_API simtgpuResult simtgpuMemAllocAt(simtgpuContext ctx, simtgpuDevicePtr va,
                                           size_t bytes);
/* The allocation containing dptr. */
SIMTGPU_API simtgpuResult simtgpuMemGetAddressRange(simtgpuContext ctx, simtgpuDevicePtr *base,
                                                   size_t *bytes, simtgpuDevicePtr dptr);

/* Host memory the device can reach over the bus (a user-pointer BO, uAPI
 * 1.3). DEVICEMAP is accepted and always true where the driver can map host
 * memory (see simtgpuMemHostGetDevicePointer). */
#define SIMTGPU_MEMHOSTALLOC_PORTABLE 0x01
#define SIMTGPU_MEMHOSTALLOC_DEVICEMAP 0x02
#define SIMTGPU_MEMHOSTALLOC_WRITECOMBINED 0x04
SIMTGPU_API simtgpuResult simtgpuMemHostAlloc(simtgpuContext ctx, void **ptr, size_t bytes,
                                             unsigned flags);
SIMTGPU_API simtgpuResult simtgpuMemHostFree(simtgpuContext ctx, void *ptr);
/* Registers [ptr, ptr + bytes) of the caller's memory with the device:
 * pinned and mapped for the GPU (the pages around it too, whole pages being
 * what can be pinned) until simtgpuMemHostUnregister(ptr). READ_ONLY: the
 * GPU may only read it. */
#define SIMTGPU_MEMHOSTREGISTER_PORTABLE 0x01
#define SIMTGPU_MEMHOSTREGISTER_DEVICEMAP 0x02
#define SIMTGPU_MEMHOSTREGISTER_READ_ONLY 0x08
SIMTGPU_API simtgpuResult simtgpuMemHostRegister(simtgpuContext ctx, void *ptr, size_t bytes,
                                                unsigned flags);
SIMTGPU_API simtgpuResult simtgpuMemHostUnregister(simtgpuContext ctx, void *ptr);
/* The device address of host memory from simtgpuMemHostAlloc or
 * simtgpuMemHostRegister; NOT_SUPPORTED when the kernel driver predates
 * user-pointer BOs and pinned memory is staged instead. */
SIMTGPU_API simtgpuResult simtgpuMemHostGetDevicePointer(simtgpuContext ctx,
                                                        simtgpuDevicePtr *dptr, void *ptr);
/* Whether ptr lies in memory from simtgpuMemHostAlloc or
 * simtgpuMemHostRegister (1) or not (0). */
SIMTGPU_API int simtgpuMemIsHostAllocated(simtgpuContext ctx, const void *ptr);

/* Managed memory by page migration (uAPI 1.6): one address for the host
 * and the device; each page lives in host memory until a kernel touches it
 * (a replayable GPU page fault moves it to VRAM) and goes back when the host
 * touches it (a CPU page fault). Only the kernel driver on a device with
 * SIMTGPU_CAP_REPLAYABLE_FAULTS under unified addressing does this:
 * NOT_SUPPORTED elsewhere (the in-process transport has no GPU page
 * faults), where the CUDA runtime maps host memory for the device instead.
 * Copies and fills that touch it are done by the CPU. docs/umd.md. */
SIMTGPU_API simtgpuResult simtgpuMemAllocManaged(simtgpuContext ctx, void **ptr, size_t bytes);
SIMTGPU_API simtgpuResult simtgpuMemFreeManaged(simtgpuContext ctx, void *ptr);
/* Moves the pages of managed memory that [ptr, ptr + bytes) touches to VRAM
 * (to_host 0) or home to host memory (to_host 1) once `stream`'s earlier
 * work is done (this waits for it), so that the accesses after it take no
 * page faults: cudaMemPrefetchAsync (uAPI 1.8's MANAGED_PREFETCH). *moved
 * (may be NULL): the pages that moved. INVALID_VALUE for a range that is
 * not within one simtgpuMemAllocManaged allocation; NOT_SUPPORTED under a
 * kernel driver older than uAPI 1.8. */
SIMTGPU_API simtgpuResult simtgpuMemPrefetchManaged(simtgpuContext ctx, const void *ptr,
                                                   size_t bytes, int to_host,
                                                   simtgpuStream stream, size_t *moved);
/* Where the pages of [ptr, ptr + bytes) of managed memory should live
 * (cudaMemAdvise), for the GPU's faults after the call: PREFER_HOST, or
 * ACCESSED_BY_GPU with no preferred place, keeps a page in host memory and
 * has the GPU map it over the bus; PREFER_VRAM (the default behaviour)
 * moves it to VRAM; READ_MOSTLY has a GPU read copy a page to VRAM as a
 * read-only duplicate while the host keeps its copy, until a write by
 * either side (UNSET_READ_MOSTLY drops the duplicates). Nothing moves now.
 * NOT_SUPPORTED under a kernel driver older than uAPI 1.9 (1.10 for the
 * read-mostly advice); INVALID_VALUE outside a managed allocation. */
typedef enum simtgpuManagedAdvice {
    SIMTGPU_MANAGED_PREFER_HOST = 1,
    SIMTGPU_MANAGED_PREFER_VRAM = 2,
    SIMTGPU_MANAGED_UNSET_PREFERRED = 3,
    SIMTGPU_MANAGED_ACCESSED_BY_GPU = 4,
    SIMTGPU_MANAGED_UNSET_ACCESSED_BY_GPU = 5,
    SIMTGPU_MANAGED_READ_MOSTLY = 6,
    SIMTGPU_MANAGED_UNSET_READ_MOSTLY = 7,
} simtgpuManagedAdvice;
SIMTGPU_API simtgpuResult simtgpuMemAdviseManaged(simtgpuContext ctx, const void *ptr,
                                                 size_t bytes, simtgpuManagedAdvice advice);
/* What managed memory of this context did so far, as the kernel driver
 * counts it: GPU page faults serviced, pages moved to VRAM (by GPU faults
 * and prefetches) and back to host memory (by CPU faults and prefetches),
 * pages copied to VRAM as read-only duplicates (read-mostly; 0 under a
 * driver older than uAPI 1.10), and, when VRAM or a VRAM limit is full,
 * pages the GPU maps over the bus instead and pages evicted from VRAM to
 * make room (oversubscription; 0 under a driver older than uAPI 1.11).
 * All 0 on the in-process transport, which never migrates; NOT_SUPPORTED
 * under a kernel driver older than uAPI 1.6. */
typedef struct simtgpuManagedStats {
    uint64_t gpu_faults;
    uint64_t pages_to_vram;
    uint64_t pages_to_host;
    uint64_t pages_duplicated;
    uint64_t pages_remote;
    uint64_t pages_evicted;
} simtgpuManagedStats;
SIMTGPU_API simtgpuResult simtgpuCtxGetManagedStats(simtgpuContext ctx,
                                                   simtgpuManagedStats *stats);

/* Synchronous copies wait for all earlier work of the context's streams
 * (like CUDA's legacy default stream). */
SIMTGPU_API simtgpuResult simtgpuMemcpyHtoD(simtgpuContext ctx, simtgpuDevicePtr dst,
                                           const void *src, size_t bytes);
SIMTGPU_API simtgpuResult simtgpuMemcpyDtoH(simtgpuContext ctx, void *dst, simtgpuDevicePtr src,
                                           size_t bytes);
SIMTGPU_API simtgpuResult simtgpuMemcpyDtoD(simtgpuContext ctx, simtgpuDevicePtr dst,
                                           simtgpuDevicePtr src, size_t bytes);
SIMTGPU_API simtgpuResult simtgpuMemcpyHtoDAsync(simtgpuContext ctx, simtgpuDevicePtr dst,
                                                const void *src, size_t bytes,
                                                simtgpuStream stream);
SIMTGPU_API simtgpuResult simtgpuMemcpyDtoHAsync(simtgpuContext ctx, void *dst,
                                                simtgpuDevicePtr src, size_t bytes,
                                                simtgpuStream stream);
SIMTGPU_API simtgpuResult simtgpuMemcpyDtoDAsync(simtgpuContext ctx, simtgpuDevicePtr dst,
                                                simtgpuDevicePtr src, size_t bytes,
                                                simtgpuStream stream);
SIMTGPU_API simtgpuResult simtgpuMemsetD8(simtgpuContext ctx, simtgpuDevicePtr dst,
                                         uint8_t value, size_t bytes);
SIMTGPU_API simtgpuResult simtgpuMemsetD32(simtgpuContext ctx, simtgpuDevicePtr dst,
                                          uint32_t value, size_t count);
SIMTGPU_API simtgpuResult simtgpuMemsetD8Async(simtgpuContext ctx, simtgpuDevicePtr dst,
                                              uint8_t value, size_t bytes,
                                              simtgpuStream stream);

/* ------------------------------------------------------------ modules --- */

/* Loads a device ELF (RISC-V ET_DYN, kernel table in .simt.kernels). */
SIMTGPU_API simtgpuResult simtgpuModuleLoadData(simtgpuModule *module, simtgpuContext ctx,
                                               const void *image, size_t bytes);
SIMTGPU_API simtgpuResult simtgpuModuleLoad(simtgpuModule *module, simtgpuContext ctx,
                                           const char *path);
SIMTGPU_API simtgpuResult simtgpuModuleUnload(simtgpuModule module);
SIMTGPU_API simtgpuResult simtgpuModuleGetFunction(simtgpuFunction *function,
                                                  simtgpuModule module, const char *name);
/* A global variable (__device__ or __constant__) by symbol name. */
SIMTGPU_API simtgpuResult simtgpuModuleGetGlobal(simtgpuDevicePtr *dptr, size_t *bytes,
                                                simtgpuModule module, const char *name);
/* The architecture the image needs (SIMTGPU_ARCH_*). */
SIMTGPU_API simtgpuResult simtgpuModuleGetArch(simtgpuModule module, uint32_t *arch);

typedef enum simtgpuFunctionAttribute {
    SIMTGPU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
    SIMTGPU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1, /* static shared memory */
    SIMTGPU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 2,  /* stack per thread */
    SIMTGPU_FUNC_ATTRIBUTE_PARAM_BYTES = 3,
    SIMTGPU_FUNC_ATTRIBUTE_NUM_PARAMS = 4,
    SIMTGPU_FUNC_ATTRIBUTE_ARCH = 5,
} simtgpuFunctionAttribute;
SIMTGPU_API simtgpuResult simtgpuFuncGetAttribute(int *value, simtgpuFunctionAttribute attr,
                                                 simtgpuFunction function);
SIMTGPU_API simtgpuResult simtgpuFuncGetName(const char **name, simtgpuFunction function);
/* Size and offset of parameter `index` in the packed parameter buffer. */
SIMTGPU_API simtgpuResult simtgpuFuncGetParamInfo(simtgpuFunction function, unsigned index,
                                                 size_t *offset, size_t *size);

/* Occupancy by include/simtgpu/occupancy.h: CTAs of this kernel, with
 * block_size threads and dynamic_shared bytes, that fit on one SM. */
SIMTGPU_API simtgpuResult simtgpuOccupancyMaxActiveBlocksPerMultiprocessor(
    int *num_blocks, simtgpuFunction function, int block_size, size_t dynamic_shared);

/* ----------------------------------------------------------- launches --- */

/* params[i] points at the value of parameter i (sizes from the kernel
 * table); extra must be NULL. */
SIMTGPU_API simtgpuResult simtgpuLaunchKernel(simtgpuFunction function, unsigned grid_x,
                                             unsigned grid_y, unsigned grid_z,
                                             unsigned block_x, unsigned block_y,
                                             unsigned block_z, unsigned dynamic_shared,
                                             simtgpuStream stream, void **params, void **extra);

/* ------------------------------------------------------------ streams --- */

#define SIMTGPU_STREAM_DEFAULT 0x0
#define SIMTGPU_STREAM_NON_BLOCKING 0x1 /* does not wait for the default stream */
SIMTGPU_API simtgpuResult simtgpuStreamCreate(simtgpuStream *stream, simtgpuContext ctx,
                                             unsigned flags, int priority);
SIMTGPU_API simtgpuResult simtgpuStreamDestroy(simtgpuStream stream);
/* The priority the stream was created with, as simtgpuStreamCreate takes it
 * (clamped: 1 high, 0 normal, -1 low). */
SIMTGPU_API simtgpuResult simtgpuStreamGetPriority(simtgpuStream stream, int *priority);

/* L2 access management, as CUDA's cudaAccessPolicyWindow: kernels launched
 * on `stream` afterwards mark their accesses to [base, base + bytes) as
 * hit_prop for a hit_ratio fraction of its lines (chosen by address) and
 * miss_prop for the others. bytes = 0 removes the window. INVALID_VALUE for
 * bytes above the device's l2_window_max, a hit_ratio outside [0, 1] or an
 * unknown property. docs/umd.md. */
typedef enum simtgpuAccessProperty {
    SIMTGPU_ACCESS_PROPERTY_NORMAL = 0,     /* SIMTGPU_L2_PROP_NORMAL */
    SIMTGPU_ACCESS_PROPERTY_STREAMING = 1,  /* first to be replaced */
    SIMTGPU_ACCESS_PROPERTY_PERSISTING = 2, /* kept in the set-aside */
} simtgpuAccessProperty;
typedef struct simtgpuAccessPolicyWindow {
    simtgpuDevicePtr base;
    uint64_t bytes;
    float hit_ratio;
    simtgpuAccessProperty hit_prop;
    simtgpuAccessProperty miss_prop;
    uint32_t reserved; /* 0 */
} simtgpuAccessPolicyWindow;
SIMTGPU_API simtgpuResult simtgpuStreamSetAccessPolicyWindow(simtgpuContext ctx,
                                                            simtgpuStream stream,
                                                            const simtgpuAccessPolicyWindow *window);
SIMTGPU_API simtgpuResult simtgpuStreamGetAccessPolicyWindow(simtgpuContext ctx,
                                                            simtgpuStream stream,
                                                            simtgpuAccessPolicyWindow *window);

/* A launch with what simtgpuLaunchKernel takes as arguments, and a window of
 * its own (cuLaunchKernelEx's access policy window attribute): l2_window
 * NULL takes the stream's (simtgpuStreamSetAccessPolicyWindow); otherwise
 * *l2_window holds for this launch only (bytes 0: none), checked as
 * simtgpuStreamSetAccessPolicyWindow checks a window. */
typedef struct simtgpuLaunchConfig {
    unsigned grid[3], block[3];
    unsigned dynamic_shared;
    simtgpuStream stream;
    const simtgpuAccessPolicyWindow *l2_window;
} simtgpuLaunchConfig;
SIMTGPU_API simtgpuResult simtgpuLaunchKernelEx(simtgpuFunction function,
                                               const simtgpuLaunchConfig *config, void **params);
/* The device's counters now (include/simtgpu/counters.h, in its order: the
 * in-process device's counter block, or the kernel driver's sysfs
 * counters/), device-wide: the first `count` of them (at most
 * SIMTGPU_NUM_COUNTERS). NOT_SUPPORTED where they cannot be read (an older
 * driver). */
SIMTGPU_API simtgpuResult simtgpuCtxReadCounters(simtgpuContext ctx, uint64_t *values,
                                                size_t count);
/* Makes every persisting L2 line normal (cudaCtxResetPersistingL2Cache), in
 * order on the default stream; nothing to do on a device without any. */
SIMTGPU_API simtgpuResult simtgpuCtxResetPersistingL2Cache(simtgpuContext ctx);
SIMTGPU_API simtgpuResult simtgpuStreamSynchronize(simtgpuContext ctx, simtgpuStream stream);
/* SUCCESS when idle, NOT_READY while work is pending. */
SIMTGPU_API simtgpuResult simtgpuStreamQuery(simtgpuContext ctx, simtgpuStream stream);
SIMTGPU_API simtgpuResult simtgpuStreamWaitEvent(simtgpuContext ctx, simtgpuStream stream,
                                                simtgpuEvent event, unsigned flags);
/* A host function in stream order (CUDA's cudaLaunchHostFunc and
 * cudaStreamAddCallback): fn(user, status) runs on the context's
 * host-function thread once the stream's earlier work has completed, and
 * the stream's later work, events recorded after it and streams waiting for
 * those wait for it to return. The call does not wait. status is the
 * context's error then (SUCCESS, or the sticky error of a fault); fn is not
 * called after an error unless flags has SIMTGPU_HOST_FN_AFTER_ERROR. fn
 * must not wait for its own stream (that cannot end, as in CUDA). */
typedef void (*simtgpuHostFn)(void *user, simtgpuResult status);
#define SIMTGPU_HOST_FN_AFTER_ERROR 0x1
SIMTGPU_API simtgpuResult simtgpuLaunchHostFunc(simtgpuContext ctx, simtgpuStream stream,
                                               simtgpuHostFn fn, void *user, unsigned flags);
SIMTGPU_API simtgpuResult simtgpuStreamGetFlags(simtgpuStream stream, unsigned *flags);

/* ------------------------------------------------------------- events --- */

#define SIMTGPU_EVENT_DEFAULT 0x0
#define SIMTGPU_EVENT_BLOCKING_SYNC 0x1
#define SIMTGPU_EVENT_DISABLE_TIMING 0x2
SIMTGPU_API simtgpuResult simtgpuEventCreate(simtgpuEvent *event, simtgpuContext ctx,
                                            unsigned flags);
SIMTGPU_API simtgpuResult simtgpuEventDestroy(simtgpuEvent event);
SIMTGPU_API simtgpuResult simtgpuEventRecord(simtgpuEvent event, simtgpuStream stream);
SIMTGPU_API simtgpuResult simtgpuEventSynchronize(simtgpuEvent event);
SIMTGPU_API simtgpuResult simtgpuEventQuery(simtgpuEvent event);
/* Milliseconds of device time between two recorded events. */
SIMTGPU_API simtgpuResult simtgpuEventElapsedTime(float *ms, simtgpuEvent start,
                                                 simtgpuEvent end);

#ifdef __cplusplus
}
#endif

#endif /* SIMTGPU_SIMTGPU_H */
