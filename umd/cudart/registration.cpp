// The entry points clang's CUDA code generation calls: module registration
// (from a static constructor of every translation unit with device code, so
// before our own initialisation: everything is constructed on first use) and
// the <<<>>> launch configuration stack.
#include "runtime.h"

#include <cstring>
#include <elf.h>

namespace simtgpu::cudart {

namespace {

// What -fcuda-include-gpubinary wraps the device image in.
struct FatbinWrapper {
    int magic;
    int version;
    const void *data;
    void *unused;
};
constexpr int kFatbinMagic = 0x466243b1;

// The wrapper gives no size: an ELF's extent is the furthest of its
// section headers, program headers, sections and segments.
size_t elf_extent(const void *data) {
    Elf64_Ehdr eh;
    std::memcpy(&eh, data, sizeof(eh));
    if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64)
        return 0;
    const auto *base = static_cast<const uint8_t *>(data);
    size_t end = sizeof(eh);
    end = std::max<size_t>(end, eh.e_shoff + size_t(eh.e_shnum) * eh.e_shentsize);
    end = std::max<size_t>(end, eh.e_phoff + size_t(eh.e_phnum) * eh.e_phentsize);
    for (unsigned i = 0; i < eh.e_shnum; ++i) {
        Elf64_Shdr sh;
        std::memcpy(&sh, base + eh.e_shoff + size_t(i) * eh.e_shentsize, sizeof(sh));
        if (sh.sh_type != SHT_NOBITS)
            end = std::max<size_t>(end, sh.sh_offset + sh.sh_size);
    }
    for (unsigned i = 0; i < eh.e_phnum; ++i) {
        Elf64_Phdr ph;
        std::memcpy(&ph, base + eh.e_phoff + size_t(i) * eh.e_phentsize, sizeof(ph));
        end = std::max<size_t>(end, ph.p_offset + ph.p_filesz);
    }
    return end;
}

struct LaunchConfig {
    dim3 grid;
    dim3 block;
    size_t shared;
    void *stream;
};
// Plain arrays, not a std::vector: exit() destroys a thread's thread_local
// objects before static destructors run, and those may still launch
// kernels (which then fail with cudaErrorCudartUnloading). Configurations
// nest only when a kernel's argument launches another kernel.
constexpr size_t kMaxNestedConfigs = 16;
thread_local LaunchConfig config_stack[kMaxNestedConfigs];
thread_local size_t config_depth = 0;

} // namespace

} // namespace simtgpu::cudart

using namespace simtgpu::cudart;

SIMTCUDA_API void **__cudaRegisterFatBinary(void *wrapper) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    FatBinary &fatbin = rt.fatbins.emplace_back();
    const auto *w = static_cast<const FatbinWrapper *>(wrapper);
    if (w && w->magic == kFatbinMagic && w->data) {
        fatbin.image = w->data;
        fatbin.size = elf_extent(w->data);
    }
    // The handle clang passes back to the other registration calls.
    return reinterpret_cast<void **>(&fatbin);
}

SIMTCUDA_API void __cudaRegisterFatBinaryEnd(void **) {}

SIMTCUDA_API void __cudaUnregisterFatBinary(void **handle) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    auto *fatbin = reinterpret_cast<FatBinary *>(handle);
    // Runs at exit: finish the work (and print device printf) first.
    for (size_t d = 0; d < rt.contexts.size(); ++d)
        if (rt.contexts[d])
            simtgpuCtxSynchronize(rt.contexts[d]);
    for (auto it = rt.kernels.begin(); it != rt.kernels.end();)
        it = it->second.fatbin == fatbin ? rt.kernels.erase(it) : std::next(it);
    for (auto it = rt.variables.begin(); it != rt.variables.end();)
        it = it->second.fatbin == fatbin ? rt.variables.erase(it) : std::next(it);
    forget_managed_variables(*fatbin);
    for (auto &[device, module] : fatbin->modules)
        if (device < int(rt.contexts.size()) && rt.contexts[device])
            simtgpuModuleUnload(module);
    rt.fatbins.remove_if([fatbin](const FatBinary &f) { return &f == fatbin; });
    if (rt.fatbins.empty())
        for (size_t d = 0; d < rt.contexts.size(); ++d)
            reset_device(int(d));
}

SIMTCUDA_API void __cudaRegisterFunction(void **handle, const char *hostFun, char *deviceFun,
                                         const char *deviceName, int thread_limit, uint3 *tid,
                                         uint3 *bid, dim3 *bDim, dim3 *gDim, int *wSize) {
    (void)deviceFun, (void)thread_limit, (void)tid, (void)bid, (void)bDim, (void)gDim,
        (void)wSize;
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    Kernel &k = rt.kernels[hostFun];
    k.fatbin = reinterpret_cast<FatBinary *>(handle);
    k.device_name = deviceName;
    k.functions.clear();
}

SIMTCUDA_API void __cudaRegisterVar(void **handle, char *hostVar, char *deviceAddress,
                                    const char *deviceName, int ext, size_t size, int constant,
                                    int global) {
    (void)deviceAddress, (void)ext, (void)global;
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    Variable &v = rt.variables[hostVar];
    v.fatbin = reinterpret_cast<FatBinary *>(handle);
    v.device_name = deviceName;
    v.size = size;
    v.constant = constant != 0;
}

SIMTCUDA_API unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
                                                  struct CUstream_st *stream) {
    if (config_depth == kMaxNestedConfigs)
        return unsigned(record(cudaErrorInvalidConfiguration)); // not launched
    config_stack[config_depth++] = {gridDim, blockDim, sharedMem, stream};
    return 0;
}

SIMTCUDA_API int __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem,
                                            void **stream) {
    if (config_depth == 0)
        return int(record(cudaErrorMissingConfiguration));
    LaunchConfig c = config_stack[--config_depth];
    *gridDim = c.grid;
    *blockDim = c.block;
    *sharedMem = c.shared;
    *stream = c.stream;
    return 0;
}
