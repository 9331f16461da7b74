// Fat binaries, kernels and variables on each device: a fat binary's module
// loaded on first use (with its __managed__ variables and device-side
// malloc heap), a host stub's kernel, and cudaFuncSetAttribute's settings.
#include "runtime.h"

#include "simtgpu/occupancy.h"

#include <algorithm>
#include <cstdio>

namespace simtgpu::cudart {

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

} // namespace simtgpu::cudart
