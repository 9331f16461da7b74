// The CUDA runtime API, events.
#include "runtime.h"

using namespace simtgpu::cudart;

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
