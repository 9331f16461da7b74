// SPDX-License-Identifier: MIT
// What several simt- passes share, inside this folder.
#ifndef SIMTCC_PASSES_SUPPORT_H
#define SIMTCC_PASSES_SUPPORT_H

#include <vector>

namespace llvm {
class Function;
class Module;
} // namespace llvm

namespace simtcc {

// The shuffles' custom-0 R4 form, up to its funct2 (the mode): written by
// simt-lower-nvvm, recognised by simt-merge-warp-syncs.
inline constexpr const char *kShuffleAsm = ".insn r4 0x0b, 2, ";

// The kernels of an NVVM module: those nvvm.annotations marks "kernel",
// then any other function of the PTX kernel calling convention.
std::vector<llvm::Function *> kernelsOf(llvm::Module &module);

} // namespace simtcc

#endif
