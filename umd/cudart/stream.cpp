// The CUDA runtime API, streams: creation with flags and priorities,
// attributes (the access policy window), synchronisation, host callbacks
// and waits on events.
#include "runtime.h"

#include <algorithm>
#include <map>
#include <memory>

using namespace simtgpu::cudart;

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
