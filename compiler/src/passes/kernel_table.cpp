// SPDX-License-Identifier: MIT
// simt-kernel-table: the kernels simt-kernel-entries found, as the table
// the driver reads to launch them (struct simtgpu_ktab_header, entries,
// parameters, then the string table; include/simtgpu/hw.h): a constant
// __simt_kernel_table in section .simt.kernels, kept by llvm.used. simtcc
// writes each kernel's stack_bytes into the linked image.
#include "simt_passes.h"

#include <cstddef>
#include <cstring>

#include "llvm/IR/Constants.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#include "simtgpu/hw.h"

using namespace llvm;

namespace simtcc {

uint32_t kernelTableStackFieldOffset(uint32_t index) {
    return sizeof(simtgpu_ktab_header) + index * sizeof(simtgpu_ktab_entry) +
           offsetof(simtgpu_ktab_entry, stack_bytes);
}

std::vector<uint8_t> encodeKernelTable(const std::vector<KernelInfo> &kernels, uint32_t arch) {
    std::string strtab(1, '\0');
    auto addString = [&](const std::string &s) {
        uint32_t at = static_cast<uint32_t>(strtab.size());
        strtab += s;
        strtab.push_back('\0');
        return at;
    };
    std::vector<simtgpu_ktab_entry> entries;
    std::vector<simtgpu_ktab_param> params;
    for (const KernelInfo &k : kernels) {
        simtgpu_ktab_entry e{};
        e.name = addString(k.name);
        e.entry_symbol = addString(k.entry_symbol);
        e.param_count = static_cast<uint32_t>(k.params.size());
        e.param_first = static_cast<uint32_t>(params.size());
        e.param_bytes = k.param_bytes;
        e.static_shared_bytes = k.static_shared_bytes;
        e.stack_bytes = k.stack_bytes;
        e.max_threads_per_cta = k.max_threads_per_cta;
        entries.push_back(e);
        for (const KernelParam &p : k.params)
            params.push_back({p.offset, p.size, p.align, 0});
    }
    simtgpu_ktab_header h{};
    h.magic = SIMTGPU_KTAB_MAGIC;
    h.version = SIMTGPU_KTAB_VERSION;
    h.arch = arch;
    h.count = static_cast<uint32_t>(entries.size());
    h.entry_size = sizeof(simtgpu_ktab_entry);
    h.param_size = sizeof(simtgpu_ktab_param);
    h.strtab_offset =
        static_cast<uint32_t>(sizeof(h) + entries.size() * sizeof(simtgpu_ktab_entry) +
                              params.size() * sizeof(simtgpu_ktab_param));
    h.strtab_size = static_cast<uint32_t>(strtab.size());

    std::vector<uint8_t> bytes(h.strtab_offset + h.strtab_size);
    size_t filled = 0;
    auto append = [&](const void *data, size_t size) {
        if (size)
            std::memcpy(bytes.data() + filled, data, size);
        filled += size;
    };
    append(&h, sizeof(h)); // the host is little-endian, as is the device
    append(entries.data(), entries.size() * sizeof(simtgpu_ktab_entry));
    append(params.data(), params.size() * sizeof(simtgpu_ktab_param));
    append(strtab.data(), strtab.size());
    return bytes;
}

void emitKernelTable(Module &module, const std::vector<KernelInfo> &kernels, uint32_t arch) {
    std::vector<uint8_t> bytes = encodeKernelTable(kernels, arch);
    Constant *data = ConstantDataArray::get(module.getContext(), bytes);
    auto *table = new GlobalVariable(module, data->getType(), true, GlobalValue::ExternalLinkage,
                                     data, kKernelTableSymbol);
    table->setSection(SIMTGPU_KERNEL_TABLE_SECTION);
    table->setAlignment(Align(8));
    table->setDSOLocal(true);
    appendToUsed(module, {table});
}
PreservedAnalyses KernelTablePass::run(Module &module, ModuleAnalysisManager &) {
    if (state_.failed())
        return PreservedAnalyses::all();
    emitKernelTable(module, state_.kernels, options_.arch);
    return PreservedAnalyses::none();
}

} // namespace simtcc
