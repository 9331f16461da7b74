// A device ELF as libsimtgpu loads it: the bytes of its PT_LOAD segments,
// the dynamic relocations to apply at the address chosen for it, its kernel
// table (.simt.kernels, include/simtgpu/hw.h) and its symbols. Parsing is
// pure (no device), so it is unit-tested on its own.
#pragma once

#include "simtgpu/hw.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace simtgpu::umd {

struct KernelInfo {
    std::string name;
    uint64_t entry_offset = 0; // from the image base
    uint32_t param_bytes = 0;
    uint32_t static_shared_bytes = 0;
    uint32_t stack_bytes = 0;
    uint32_t max_threads_per_cta = 0; // 0 = device maximum
    std::vector<simtgpu_ktab_param> params;
};

struct SymbolInfo {
    uint64_t offset = 0; // from the image base
    uint64_t size = 0;
};

struct DeviceImage {
    uint32_t arch = 0;         // SIMTGPU_ARCH_* from the kernel table
    std::vector<uint8_t> bytes; // segments laid out from the base, .bss zeroed
    std::vector<KernelInfo> kernels;
    std::map<std::string, SymbolInfo> symbols;

    struct Relocation {
        uint64_t offset = 0; // where, from the base
        uint32_t type = 0;   // R_RISCV_RELATIVE, R_RISCV_64 or R_RISCV_JUMP_SLOT
        bool has_symbol = false;
        uint64_t symbol_offset = 0; // S - base, for the symbol forms
        int64_t addend = 0;
    };
    std::vector<Relocation> relocations;

    // The image as it must appear at GPU virtual address `base`.
    std::vector<uint8_t> relocated(uint64_t base) const;
    const KernelInfo *find_kernel(const std::string &name) const;
};

// The most address space an image may span from its base (its segments,
// .bss included, laid out in DeviceImage::bytes).
constexpr uint64_t kDeviceImageMaxSpan = 1ull << 32;

// Parses and checks a device image; the error says what is wrong with it.
// An image spanning more than max_span bytes is refused (a caller that
// cannot afford 4 GiB of host memory for .bss says less: the fuzzer does).
bool parse_device_image(const void *data, size_t size, DeviceImage *out, std::string *error,
                        uint64_t max_span = kDeviceImageMaxSpan);

} // namespace simtgpu::umd
