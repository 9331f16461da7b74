// SPDX-License-Identifier: MIT
// The simt- passes as a plugin of LLVM's opt (build/lib/SimtPasses.so):
//   opt-16 -load-pass-plugin=build/lib/SimtPasses.so -passes=simt-lower-nvvm in.ll -S
// The plugin links nothing of LLVM: opt's own libLLVM provides it. A
// refusal is an error diagnostic, which ends opt with status 1.
#include "llvm/Config/llvm-config.h"
#include "llvm/Passes/PassPlugin.h"

#include "simt_passes.h"
#include "simtgpu/hw.h"

extern "C" LLVM_ATTRIBUTE_WEAK llvm::PassPluginLibraryInfo llvmGetPassPluginInfo() {
    return {LLVM_PLUGIN_API_VERSION, "SimtPasses", LLVM_VERSION_STRING,
            [](llvm::PassBuilder &builder) {
                static simtcc::LoweringState state(SIMTGPU_ARCH_NEWEST,
                                                   simtcc::LoweringState::Refusals::Diagnose);
                simtcc::registerSimtPasses(builder, state);
            }};
}
