// __managed__ variables, as simtcc builds them (compiler/src/managed_vars.h):
// the host reaches variable `x` through the pointer `x.managed_ptr`, which
// __cudaRegisterManagedVar hands here; the device image holds a pointer
// variable `x`, and the initial value in `x.managed`. When a context is made,
// each variable gets managed memory (cudaMallocManaged: one address for
// the host and the device) holding its initial value, and the host pointer
// points there; when an image is loaded, its pointer variables are set to
// the same memory. A host access before any context makes it
// (__simtgpuManagedVarAddress). docs/cuda-runtime.md, "__managed__ variables".
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <elf.h>
#include <list>
#include <sys/mman.h>
#include <unistd.h>

#include "runtime.h"

namespace simtgpu::cudart {
namespace {

struct ManagedVariable {
    const FatBinary *fatbin = nullptr;
    void **slot = nullptr; // the host's pointer to it
    std::string name;      // the image's pointer variable
    size_t size = 0;
    std::vector<uint8_t> initial;     // its value in the image
    void *memory = nullptr;           // its managed memory, once a context exists
    simtgpuContext context = nullptr; // the context that memory belongs to
};

std::list<ManagedVariable> &managed_variables() {
    static auto *v = new std::list<ManagedVariable>; // as runtime(): lives past exit
    return *v;
}

// The `bytes` bytes at symbol `name` of a device ELF, as its loadable
// segments hold them (zeros past a segment's file part); false when the
// image has no such symbol.
bool image_bytes(const void *image, size_t size, const std::string &name, size_t bytes,
                 std::vector<uint8_t> *out) {
    const auto *base = static_cast<const uint8_t *>(image);
    Elf64_Ehdr eh;
    if (!image || size < sizeof(eh))
        return false;
    std::memcpy(&eh, base, sizeof(eh));
    if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        eh.e_shoff + size_t(eh.e_shnum) * sizeof(Elf64_Shdr) > size)
        return false;
    auto section = [&](unsigned i) {
        Elf64_Shdr sh;
        std::memcpy(&sh, base + eh.e_shoff + size_t(i) * eh.e_shentsize, sizeof(sh));
        return sh;
    };
    for (unsigned i = 0; i < eh.e_shnum; ++i) {
        Elf64_Shdr symtab = section(i);
        if ((symtab.sh_type != SHT_SYMTAB && symtab.sh_type != SHT_DYNSYM) ||
            symtab.sh_link >= eh.e_shnum || symtab.sh_offset + symtab.sh_size > size)
            continue;
        Elf64_Shdr strtab = section(symtab.sh_link);
        for (size_t k = 0; k < symtab.sh_size / sizeof(Elf64_Sym); ++k) {
            Elf64_Sym sym;
            std::memcpy(&sym, base + symtab.sh_offset + k * sizeof(Elf64_Sym), sizeof(sym));
            if (sym.st_shndx == SHN_UNDEF || sym.st_name >= strtab.sh_size ||
                strtab.sh_offset + strtab.sh_size > size)
                continue;
            const char *text =
                reinterpret_cast<const char *>(base + strtab.sh_offset + sym.st_name);
            if (strnlen(text, strtab.sh_size - sym.st_name) != name.size() || name != text)
                continue;
            out->assign(bytes, 0);
            for (unsigned p = 0; p < eh.e_phnum; ++p) {
                Elf64_Phdr ph;
                std::memcpy(&ph, base + eh.e_phoff + size_t(p) * eh.e_phentsize, sizeof(ph));
                if (ph.p_type != PT_LOAD || sym.st_value < ph.p_vaddr ||
                    sym.st_value + bytes > ph.p_vaddr + ph.p_memsz)
                    continue;
                const uint64_t at = sym.st_value - ph.p_vaddr;
                if (at < ph.p_filesz && ph.p_offset + ph.p_filesz <= size)
                    std::memcpy(out->data(), base + ph.p_offset + at,
                                std::min<uint64_t>(bytes, ph.p_filesz - at));
                return true;
            }
            return true; // outside every segment: zeros
        }
    }
    return false;
}

} // namespace

void setup_managed_variables(simtgpuContext ctx) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    for (ManagedVariable &v : managed_variables()) {
        if (!v.fatbin)
            continue; // its image is gone (at exit)
        // One memory for every device's images; made again after the
        // context it was made in was destroyed (cudaDeviceReset), with the
        // value it had, which the host mapping still holds.
        if (v.memory && v.context)
            continue;
        // The dead context's address may come again from the new one: the
        // value moves out of the old mapping, which goes, first.
        std::vector<uint8_t> value = v.initial;
        if (v.memory) {
            std::memcpy(value.data(), v.memory, v.size);
            const size_t page = size_t(sysconf(_SC_PAGESIZE));
            munmap(v.memory, (v.size + page - 1) / page * page);
            v.memory = nullptr;
            *v.slot = nullptr;
        }
        void *memory = nullptr;
        if (cudaError_t err = cudaMallocManaged(&memory, v.size, cudaMemAttachGlobal)) {
            std::fprintf(stderr, "simtgpu: __managed__ variable %s: no managed memory for it: %s\n",
                         v.name.c_str(), cudaGetErrorString(err));
            continue;
        }
        std::memcpy(memory, value.data(), v.size);
        v.memory = memory;
        v.context = ctx;
        *v.slot = memory;
    }
}

cudaError_t attach_managed_variables(const FatBinary &fatbin, simtgpuContext ctx,
                                     simtgpuModule module) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    for (const ManagedVariable &v : managed_variables()) {
        if (v.fatbin != &fatbin || !v.memory)
            continue;
        uint64_t pointer = 0;
        const uint64_t address = reinterpret_cast<uintptr_t>(v.memory);
        if (simtgpuModuleGetGlobal(&pointer, nullptr, module, v.name.c_str()) != SIMTGPU_SUCCESS) {
            std::fprintf(stderr,
                         "simtgpu: __managed__ variable %s: its image has no pointer variable "
                         "of that name (build it with simtcc)\n",
                         v.name.c_str());
            return record(cudaErrorInvalidSymbol);
        }
        if (cudaError_t err = record(simtgpuMemcpyHtoD(ctx, pointer, &address, sizeof(address))))
            return err;
    }
    return cudaSuccess;
}

bool managed_symbol(const void *symbol, uint64_t *address, size_t *size) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    for (const ManagedVariable &v : managed_variables())
        if (v.memory && v.memory == symbol) {
            *address = reinterpret_cast<uintptr_t>(v.memory);
            *size = v.size;
            return true;
        }
    return false;
}

void managed_variables_lose_context(simtgpuContext ctx) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    // Host accesses take the slow path again, which makes the next context
    // (and moves the values into its memory); the old mapping keeps them.
    for (ManagedVariable &v : managed_variables())
        if (v.context == ctx) {
            *v.slot = nullptr;
            v.context = nullptr; // the memory's context is gone
        }
}

void forget_managed_variables(const FatBinary &fatbin) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    // Kept, for host accesses at exit (static destructors run after the
    // image is unregistered): the memory stays mapped on the host.
    for (ManagedVariable &v : managed_variables())
        if (v.fatbin == &fatbin)
            v.fatbin = nullptr;
}

} // namespace simtgpu::cudart

using namespace simtgpu::cudart;

// nvcc's signature; simtcc passes the host pointer's address as hostVar.
SIMTCUDA_API void __cudaRegisterManagedVar(void **handle, void **hostVarPtrAddress,
                                           char *deviceAddress, const char *deviceName, int ext,
                                           size_t size, int constant, int global) {
    (void)deviceAddress, (void)ext, (void)constant, (void)global;
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    auto *fatbin = reinterpret_cast<const FatBinary *>(handle);
    ManagedVariable &v = managed_variables().emplace_back();
    v.fatbin = fatbin;
    v.slot = hostVarPtrAddress;
    v.name = deviceName;
    v.size = size;
    if (!image_bytes(fatbin->image, fatbin->size, v.name + ".managed", size, &v.initial)) {
        std::fprintf(stderr,
                     "simtgpu: __managed__ variable %s: no initial value '%s.managed' in its "
                     "device image (build it with simtcc); it starts as zeros\n",
                     deviceName, deviceName);
        v.initial.assign(size, 0);
    }
    // A context made already (an image registered late): set it up now.
    int device = current_device();
    if (device >= 0 && device < int(rt.contexts.size()) && rt.contexts[device])
        setup_managed_variables(rt.contexts[device]);
}

// The managed address of the variable whose host pointer is *slot, making
// the current device's context (and so every variable's memory) first: a
// host access that comes before any other CUDA call, or after a reset. Without a device there
// is no memory for the variable: the program cannot go on.
SIMTCUDA_API void *__simtgpuManagedVarAddress(void **slot) {
    cudaError_t err = cudaSuccess;
    simtgpuContext ctx = current_context(&err);
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    if (*slot)
        return *slot;
    std::string name = "?";
    for (const ManagedVariable &v : managed_variables())
        if (v.slot == slot) {
            // No new context (the runtime is shutting down at exit): the
            // memory of the last one is still mapped on the host.
            if (v.memory)
                return v.memory;
            name = v.name;
        }
    std::fprintf(stderr,
                 "simtgpu: the host used __managed__ variable %s, which has no managed "
                 "memory: %s\n",
                 name.c_str(), ctx ? "its allocation failed (above)" : cudaGetErrorString(err));
    std::abort();
}
