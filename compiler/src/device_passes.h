// SPDX-License-Identifier: MIT
// simtcc's LLVM passes: they turn the NVVM IR of clang's CUDA device pass
// into an LLVM module for the simtgpu device (RV64GC, lp64d). They run in
// this order (docs/simtcc.md, "Device pipeline"):
//   1. lowerNvvmIntrinsics   llvm.nvvm.* -> CSR reads, custom-0 instructions,
//                            atomics, fences, plain loads; refuses the rest
//   2. flattenAddressSpaces  shared -> SIMTGPU_SHARED_BASE + offset, every
//                            other address space -> the flat space 0
//   3. buildKernelEntries    an entry wrapper per kernel + the kernel table
//   4. retargetModule        triple, data layout, function attributes
#ifndef SIMTCC_DEVICE_PASSES_H
#define SIMTCC_DEVICE_PASSES_H

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "llvm/Support/Error.h"

namespace llvm {
class Function;
class Instruction;
class Module;
class TargetMachine;
class Twine;
} // namespace llvm

namespace simtcc {

struct LoweringOptions {
	uint32_t arch = 2; // SIMTGPU_ARCH_*: simt_1 has no envptr CSR
};

// Rewrites every llvm.nvvm.* call simtcc supports; any other nvvm intrinsic
// is an error naming it and its source location.
llvm::Error lowerNvvmIntrinsics(llvm::Module &module, const LoweringOptions &options);

struct SharedLayout {
	uint32_t static_bytes = 0; // the most any kernel's static __shared__ variables need
	uint32_t dynamic_offset = 0; // where extern __shared__ arrays begin
	// Per kernel: the static __shared__ bytes it reaches. Variables of
	// kernels that share none may overlap (a CTA runs one kernel), so a
	// translation unit of many kernels (CUB's) does not add them all up.
	std::map<const llvm::Function *, uint32_t> kernel_bytes;
};

// Replaces the atomics RISC-V's A extension would expand into LR/SC retry
// loops with one instruction each (simt_2 on): cmpxchg with Zacas amocas,
// float add/sub and CUDA's wrapping inc/dec with simtgpu's custom atomics
// (docs/isa.md). Under contention a retry loop is quadratic in the threads
// that contend; GPUs perform these at the L2 in one operation. Runs after
// optimisation, just before code generation.
void lowerNativeAtomics(llvm::Module &module, const LoweringOptions &options);

// Drops a warp.sync that follows another with the same member mask in one
// block with only straight-line code and shuffles between them (a 64-bit
// value's shuffle is two shfl.sync of its halves, each lowered as warp.sync
// and shuffle): the lanes the first released still run as one group. Runs
// after optimisation, which inlines the halves into one block.
void mergeWarpSyncs(llvm::Module &module);

// Moves every global and pointer into address space 0. Shared variables
// become constant addresses in the shared window.
llvm::Expected<SharedLayout> flattenAddressSpaces(llvm::Module &module);

struct KernelParam {
	uint32_t offset = 0, size = 0, align = 0;
};

struct KernelInfo {
	std::string name; // the mangled kernel name (host registration name)
	std::string entry_symbol; // the wrapper the launch starts at
	std::vector<KernelParam> params;
	uint32_t param_bytes = 0;
	uint32_t static_shared_bytes = 0;
	uint32_t stack_bytes = 0; // filled in after code generation
	uint32_t max_threads_per_cta = 0;
};

// Names of the section and symbol that hold the kernel table.
inline constexpr const char *kKernelTableSymbol = "__simt_kernel_table";
inline constexpr const char *kEntryPrefix = "__simt_entry_";
// Zeroed bytes each entry wrapper reserves and points tp at, for
// thread-local data of the libraries (picolibc's errno).
inline constexpr uint64_t kThreadLocalBytes = 64;

// Adds an entry wrapper per kernel and returns the kernels in table order.
llvm::Expected<std::vector<KernelInfo>> buildKernelEntries(llvm::Module &module,
							   const SharedLayout &shared);

// Serialises the kernel table (struct simtgpu_ktab_header and friends) and
// places it in the module as a constant in section .simt.kernels.
std::vector<uint8_t> encodeKernelTable(const std::vector<KernelInfo> &kernels, uint32_t arch);
void emitKernelTable(llvm::Module &module, const std::vector<KernelInfo> &kernels, uint32_t arch);

// Byte offset of kernel `index`'s stack_bytes field within the table.
uint32_t kernelTableStackFieldOffset(uint32_t index);

// Switches the module to the RISC-V target of `machine`.
void retargetModule(llvm::Module &module, llvm::TargetMachine &machine);

// An error at `inst`: "file:line:col: error: what" and the call chain up to
// the user's code, as the passes above report theirs.
llvm::Error refuseAt(const llvm::Instruction &inst, const llvm::Twine &what);

} // namespace simtcc

#endif
