// The CUDA runtime API, execution control: kernel launches (cooperative,
// with attributes, at another priority than their stream's) and a kernel's
// attributes.
#include "runtime.h"

#include "simtgpu/hw.h"
#include "simtgpu/occupancy.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

using namespace simtgpu::cudart;

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
