// libsimtcudart's internal header: its state (per-device primary contexts on
// libsimtgpu, the fat binaries, kernels and variables that clang's
// registration code hands over, the per-thread last error and launch
// configurations) and what the files of each API area share. The API is
// split by area as HIP's runtime is: device.cpp, memory.cpp (with
// memcpy2d.cpp, managed.cpp, mempool.cpp, vmm.cpp), stream.cpp, event.cpp,
// module.cpp (with registration.cpp, managed_vars.cpp), launch.cpp,
// occupancy.cpp, graph.cpp, texture.cpp, errors.cpp; runtime.cpp holds the
// state.
#pragma once

#include "cuda_runtime_api.h"
#include "simtgpu/simtgpu.h"

#include <list>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#define SIMTCUDA_API extern "C" __attribute__((visibility("default")))

namespace simtgpu::cudart {

struct FatBinary {
    const void *image = nullptr; // the raw device ELF
    size_t size = 0;
    std::map<int, simtgpuModule> modules; // by device, loaded on first use
};

// cudaFuncSetAttribute's settings of a kernel on one device.
struct KernelSettings {
    int max_dynamic_shared = -1; // -1: the default, what fits without opting in
    int carveout = -1;           // a preference; the device has no carveout
};

struct Kernel {
    FatBinary *fatbin = nullptr;
    std::string device_name;
    std::map<int, simtgpuFunction> functions; // by device
    std::map<int, KernelSettings> settings;   // by device, until its reset
};

struct Variable {
    FatBinary *fatbin = nullptr;
    std::string device_name;
    size_t size = 0;
    bool constant = false;
};

struct Runtime {
    std::recursive_mutex mu;
    bool initialized = false;
    bool unloading = false; // the exit-time shutdown has destroyed the contexts
    cudaError_t init_error = cudaSuccess;
    int device_count = 0;
    std::vector<simtgpuContext> contexts; // primary contexts, by device
    std::vector<bool> fault_reported;
    // By device: recorded after each cooperative launch, waited for by the next.
    std::vector<simtgpuEvent> coop_events;
    // By (device, libsimtgpu priority): the stream that runs launches whose
    // priority attribute differs from their stream's, and its two events.
    struct PriorityLane {
        simtgpuStream stream = nullptr;
        simtgpuEvent before = nullptr, after = nullptr;
    };
    std::map<std::pair<int, int>, PriorityLane> priority_lanes;
    // By device: the device-side malloc heap (0 until an image needs it) and
    // its size, cudaLimitMallocHeapSize.
    std::vector<uint64_t> malloc_heaps;
    std::vector<size_t> malloc_heap_sizes;
    std::list<FatBinary> fatbins;
    std::unordered_map<const void *, Kernel> kernels;     // by host stub
    std::unordered_map<const void *, Variable> variables; // by host shadow
};

// Constructed on first use: clang's registration code runs from static
// constructors, before any of ours, and unregistration after. Never freed.
Runtime &runtime();

// The error code for a libsimtgpu result.
cudaError_t to_cuda(simtgpuResult r);
// Records err as the thread's last error (when not success) and returns it.
cudaError_t record(cudaError_t err);
// The same for a libsimtgpu result; prints sticky failures' details once.
cudaError_t record(simtgpuResult r);

// Initialises libsimtgpu once; says plainly what is wrong when it cannot.
cudaError_t ensure_init();
// cudaErrorCudartUnloading once the exit-time shutdown has run, else success.
cudaError_t check_loaded();

// The current device's primary context, created on first use; nullptr with
// the error recorded when there is none.
simtgpuContext current_context(cudaError_t *err);
int current_device();
void set_current_device(int device);

// The kernel of a host stub on the current device, its image loaded on first use.
cudaError_t function_for(const void *func, simtgpuFunction *out);
// The dynamic shared memory a block gets without opting in (module.cpp).
uint32_t shared_per_block_default(const simtgpuDeviceProperties &p);
// cudaFuncSetAttribute's settings of a registered kernel on the current device.
KernelSettings &settings_of(const void *func);
// Dynamic shared memory a launch of the kernel may ask for.
int max_dynamic_shared(const void *func, simtgpuFunction f);
// cudaErrorInvalidValue for a window CUDA refuses (hit ratio, properties).
cudaError_t check_access_policy_window(const cudaAccessPolicyWindow &w);

// What a launch's attributes (cudaLaunchKernelEx, a graph kernel node) ask
// of it.
struct LaunchAttributes {
    bool cooperative = false;
    bool has_window = false; // else the stream's
    cudaAccessPolicyWindow window{};
    bool has_priority = false; // else the stream's
    int priority = 0;
};
// Checks one attribute and adds it to `out`: cudaErrorInvalidValue for a
// bad value or unknown id, cudaErrorNotSupported (with a line on stderr
// naming it) for one the device cannot honour.
cudaError_t add_launch_attribute(cudaLaunchAttributeID id, const cudaLaunchAttributeValue &value,
                                 LaunchAttributes *out);
// A launch with attributes, as cudaLaunchKernelExC makes it (on a capturing
// stream: a node that keeps them).
cudaError_t launch_with_attributes(const void *func, dim3 grid, dim3 block, void **args,
                                   size_t shared, cudaStream_t stream,
                                   const std::vector<cudaLaunchAttribute> &attrs);

// The module of a fat binary on the current device, loaded on first use.
cudaError_t module_for(FatBinary &fatbin, simtgpuModule *out);

// cudaLimitMallocHeapSize of the current device.
cudaError_t get_malloc_heap_size(size_t *value);
cudaError_t set_malloc_heap_size(size_t value);

// Destroys a device's primary context and forgets what was loaded into it.
void reset_device(int device);

// The libsimtgpu stream of a CUDA stream: the legacy and per-thread default
// streams are the context's default stream (docs/cuda-runtime.md).
inline simtgpuStream to_stream(cudaStream_t s) {
    if (s == cudaStreamLegacy || s == cudaStreamPerThread)
        return nullptr;
    return reinterpret_cast<simtgpuStream>(s);
}

inline simtgpuEvent to_event(cudaEvent_t e) { return reinterpret_cast<simtgpuEvent>(e); }

bool is_device_pointer(simtgpuContext ctx, const void *p);
// cudaMemcpyDefault resolved by the pointers; an unknown kind is an error.
cudaError_t resolve_kind(simtgpuContext ctx, void *dst, const void *src, cudaMemcpyKind *kind);
// One contiguous copy of a resolved kind, queued on stream when async.
// On a capturing stream (async) it becomes a graph node.
cudaError_t copy(simtgpuContext ctx, void *dst, const void *src, size_t count, cudaMemcpyKind kind,
                 cudaStream_t stream, bool async);

// Stream capture (graph.cpp): work queued on a capturing stream becomes a
// node of its graph instead of running.
bool is_capturing(cudaStream_t stream);
// Work that cannot be captured: the capture is invalidated.
cudaError_t capture_refuse(cudaStream_t stream);
cudaError_t capture_kernel(const void *func, simtgpuFunction f, dim3 grid, dim3 block, void **args,
                           size_t shared, cudaStream_t stream,
                           const std::vector<cudaLaunchAttribute> &attrs = {});
cudaError_t capture_memcpy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind,
                           cudaStream_t stream);
cudaError_t capture_memset(void *dst, int value, size_t bytes, cudaStream_t stream);
cudaError_t capture_host(cudaHostFn_t fn, void *user_data, cudaStream_t stream);
// True when the record belongs to a capture (nothing to queue).
bool capture_event_record(cudaEvent_t event, cudaStream_t stream);
// Graph memory (graph.cpp): allocation nodes' memory, captured
// cudaMallocAsync/cudaFreeAsync.
bool is_graph_allocation(const void *p);
// Frees graph memory outside a graph (cudaFree: synchronously; cudaFreeAsync:
// on stream): its memory is kept for the allocation's next run, or for
// another's on that stream. cudaErrorInvalidValue if no launch allocated it
// since its last free.
cudaError_t free_graph_allocation(const void *p, cudaStream_t stream, bool synchronously);
cudaError_t capture_mem_alloc(void **ptr, size_t bytes, cudaStream_t stream);
cudaError_t capture_mem_free(void *p, cudaStream_t stream);
// True when the wait concerns a capture (joins it, or is refused: *err).
bool capture_wait_event(cudaStream_t stream, cudaEvent_t event, cudaError_t *err);
void forget_capture_stream(simtgpuStream stream);

// __managed__ variables (managed_vars.cpp): given managed memory when a
// context is made, their image's pointer variable set when it is loaded;
// a managed variable's address as a symbol; forgotten with their image.
void setup_managed_variables(simtgpuContext ctx);
cudaError_t attach_managed_variables(const FatBinary &fatbin, simtgpuContext ctx,
                                     simtgpuModule module);
bool managed_symbol(const void *symbol, uint64_t *address, size_t *size);
void managed_variables_lose_context(simtgpuContext ctx);
void forget_managed_variables(const FatBinary &fatbin);

// cudaFree of managed memory (managed.cpp): cudaErrorNotReady when p is not
// the start of a managed allocation.
cudaError_t free_managed(simtgpuContext ctx, void *p);
// Whether p lies in memory from cudaMallocManaged (managed.cpp).
bool is_managed_pointer(const void *p);

// Stream-ordered allocation (mempool.cpp). cudaFree of a pool allocation:
// cudaErrorNotReady when p is not one.
cudaError_t free_pool_allocation(simtgpuContext ctx, void *p);
// After a synchronising call: frees completed free blocks above each pool's
// release threshold.
void release_pool_memory();
// A destroyed stream's free blocks are reusable only after their event.
void forget_pool_stream(simtgpuStream stream);
// The device's context went: its pools' memory with it.
void forget_pools(int device);

#define CONTEXT(ctx)                                                                               \
    cudaError_t ctx_err_ = cudaSuccess;                                                            \
    simtgpuContext ctx = current_context(&ctx_err_);                                               \
    if (!ctx)                                                                                      \
    return ctx_err_

} // namespace simtgpu::cudart
