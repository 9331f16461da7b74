// SPDX-License-Identifier: MIT
// The simt- names of the passes, for simtcc's pipeline and opt's -passes.
#include "simt_passes.h"

#include <optional>

#include "llvm/Passes/PassBuilder.h"

#include "simtgpu/hw.h"

using namespace llvm;

namespace simtcc {
namespace {

// NAME: the state's architecture; NAME<simt_N>: simt_N's. Nothing when
// `name` is neither.
std::optional<LoweringOptions> archOptions(StringRef name, StringRef pass, uint32_t arch) {
    if (!name.consume_front(pass))
        return std::nullopt;
    if (name.empty())
        return LoweringOptions{arch};
    unsigned given;
    if (!name.consume_front("<simt_") || !name.consume_back(">") || name.getAsInteger(10, given) ||
        given < SIMTGPU_ARCH_SIMT1 || given > SIMTGPU_ARCH_NEWEST)
        return std::nullopt;
    return LoweringOptions{given};
}

} // namespace

void registerSimtPasses(PassBuilder &builder, LoweringState &state) {
    builder.registerPipelineParsingCallback([&state](StringRef name, ModulePassManager &passes,
                                                     ArrayRef<PassBuilder::PipelineElement>) {
        if (auto options = archOptions(name, "simt-lower-nvvm", state.arch))
            passes.addPass(LowerNvvmPass(state, *options));
        else if (name == "simt-flatten-address-spaces")
            passes.addPass(FlattenAddressSpacesPass(state));
        else if (name == "simt-kernel-entries")
            passes.addPass(KernelEntriesPass(state));
        else if (auto options = archOptions(name, "simt-kernel-table", state.arch))
            passes.addPass(KernelTablePass(state, *options));
        else if (name == "simt-retarget")
            passes.addPass(RetargetPass(state));
        else if (name == "simt-merge-warp-syncs")
            passes.addPass(MergeWarpSyncsPass(state));
        else if (auto options = archOptions(name, "simt-native-atomics", state.arch))
            passes.addPass(NativeAtomicsPass(state, *options));
        else
            return false;
        return true;
    });
}

} // namespace simtcc
