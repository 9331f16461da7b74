// libsimtcudart's shared state (runtime.h): initialisation and the exit-time
// shutdown, the current device and its primary context, and a device's
// reset. The API's areas each have a file (runtime.h lists them).
#include "runtime.h"

#include <cstdio>
#include <cstdlib>

namespace simtgpu::cudart {

thread_local int current = 0;

namespace {

void shutdown() {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    for (size_t d = 0; d < rt.contexts.size(); ++d)
        reset_device(int(d));
    rt.unloading = true;
}

} // namespace

// Destructors of objects constructed before the first CUDA call (globals)
// run after shutdown, and their streams, events and memory went with the
// contexts: as in CUDA, every call then fails with cudaErrorCudartUnloading
// instead of touching them.
cudaError_t check_loaded() {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    return rt.unloading ? cudaErrorCudartUnloading : cudaSuccess;
}

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
