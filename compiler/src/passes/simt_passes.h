// SPDX-License-Identifier: MIT
// simtcc's device passes: LLVM new-pass-manager passes that turn the NVVM IR
// of clang's CUDA device pass into an LLVM module for the simtgpu device
// (RV64GC, lp64d). One pass per file in this folder, each registered under
// its simt- name by registerSimtPasses, so simtcc's pipeline and
// `opt-16 -load-pass-plugin=build/lib/SimtPasses.so` run the same passes
// (docs/simtcc.md, "Device passes"). simtcc runs them in this order:
//   simt-lower-nvvm              llvm.nvvm.* -> CSR reads, custom-0
//                                instructions, atomics, fences, plain loads;
//                                refuses the rest            (lower_nvvm.cpp)
//   simt-flatten-address-spaces  shared -> SIMTGPU_SHARED_BASE + offset, every
//                                other address space -> the flat space 0
//                                                  (flatten_address_spaces.cpp)
//   simt-kernel-entries          an entry wrapper per kernel (kernel_entries.cpp)
//   simt-kernel-table            the kernel table in .simt.kernels
//                                                            (kernel_table.cpp)
//   simt-retarget                triple, data layout, ABI, function
//                                attributes                      (retarget.cpp)
// then LLVM's -O pipeline, then
//   simt-merge-warp-syncs        drops a warp.sync the one before it makes
//                                redundant                (merge_warp_syncs.cpp)
//   simt-native-atomics          one custom or Zacas instruction where RISC-V
//                                would loop over LR/SC      (native_atomics.cpp)
#ifndef SIMTCC_SIMT_PASSES_H
#define SIMTCC_SIMT_PASSES_H

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "llvm/IR/PassManager.h"
#include "llvm/Support/Error.h"

namespace llvm {
class Function;
class Instruction;
class Module;
class PassBuilder;
class TargetMachine;
class Twine;
} // namespace llvm

namespace simtcc {

struct LoweringOptions {
    uint32_t arch = 2; // SIMTGPU_ARCH_*: simt_1 has no envptr CSR
};

struct SharedLayout {
    uint32_t static_bytes = 0;   // the most any kernel's static __shared__ variables need
    uint32_t dynamic_offset = 0; // where extern __shared__ arrays begin
    // Per kernel: the static __shared__ bytes it reaches. Variables of
    // kernels that share none may overlap (a CTA runs one kernel), so a
    // translation unit of many kernels (CUB's) does not add them all up.
    std::map<const llvm::Function *, uint32_t> kernel_bytes;
};

struct KernelParam {
    uint32_t offset = 0, size = 0, align = 0;
};

struct KernelInfo {
    std::string name;         // the mangled kernel name (host registration name)
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
// The device's target: RV64GC, lp64d (retarget.cpp).
inline constexpr const char *kDeviceTriple = "riscv64-unknown-elf";

// What the simt- passes of one device module hand on to the passes after
// them and to simtcc, and where their refusals go. simtcc keeps one per
// device module; the opt plugin one for its run.
class LoweringState {
public:
    // Collect: simtcc's pipeline takes the first refusal with takeError.
    // Diagnose: each refusal is an error diagnostic of the module's
    // context, which ends opt.
    enum class Refusals { Collect, Diagnose };

    LoweringState(uint32_t arch, Refusals refusals, llvm::TargetMachine *machine = nullptr);
    ~LoweringState();

    // What simt-lower-nvvm, simt-kernel-table and simt-native-atomics lower
    // for, unless a pass name gives its own (simt-lower-nvvm<simt_1>).
    uint32_t arch;
    SharedLayout shared;             // by simt-flatten-address-spaces, for simt-kernel-entries
    std::vector<KernelInfo> kernels; // by simt-kernel-entries, for simt-kernel-table and simtcc

    // simt-retarget's target: the one given, else the device's at -O2
    // (null when this LLVM has no RISC-V target).
    llvm::TargetMachine *machine();

    // A pass's refusal, collected or diagnosed as the constructor said.
    void refuse(llvm::Module &module, llvm::Error error);
    // After a refusal the passes leave the module alone: it is no longer
    // what the passes after the refusing one expect.
    bool failed() const { return failed_; }
    llvm::Error takeError();

private:
    Refusals refusals_;
    bool failed_ = false;
    std::string first_refusal_;
    llvm::TargetMachine *machine_;
    std::unique_ptr<llvm::TargetMachine> own_machine_;
};

// Registers every pass below under its simt- name (NAME, or NAME<simt_N>
// for the passes that depend on the architecture) with `builder`'s
// pipeline parser. The passes share `state`, which must outlive them.
void registerSimtPasses(llvm::PassBuilder &builder, LoweringState &state);

class LowerNvvmPass : public llvm::PassInfoMixin<LowerNvvmPass> {
public:
    LowerNvvmPass(LoweringState &state, LoweringOptions options)
        : state_(state), options_(options) {}
    llvm::PreservedAnalyses run(llvm::Module &module, llvm::ModuleAnalysisManager &);

private:
    LoweringState &state_;
    LoweringOptions options_;
};

class FlattenAddressSpacesPass : public llvm::PassInfoMixin<FlattenAddressSpacesPass> {
public:
    explicit FlattenAddressSpacesPass(LoweringState &state) : state_(state) {}
    llvm::PreservedAnalyses run(llvm::Module &module, llvm::ModuleAnalysisManager &);

private:
    LoweringState &state_;
};

class KernelEntriesPass : public llvm::PassInfoMixin<KernelEntriesPass> {
public:
    explicit KernelEntriesPass(LoweringState &state) : state_(state) {}
    llvm::PreservedAnalyses run(llvm::Module &module, llvm::ModuleAnalysisManager &);

private:
    LoweringState &state_;
};

class KernelTablePass : public llvm::PassInfoMixin<KernelTablePass> {
public:
    KernelTablePass(LoweringState &state, LoweringOptions options)
        : state_(state), options_(options) {}
    llvm::PreservedAnalyses run(llvm::Module &module, llvm::ModuleAnalysisManager &);

private:
    LoweringState &state_;
    LoweringOptions options_;
};

class RetargetPass : public llvm::PassInfoMixin<RetargetPass> {
public:
    explicit RetargetPass(LoweringState &state) : state_(state) {}
    llvm::PreservedAnalyses run(llvm::Module &module, llvm::ModuleAnalysisManager &);

private:
    LoweringState &state_;
};

class MergeWarpSyncsPass : public llvm::PassInfoMixin<MergeWarpSyncsPass> {
public:
    explicit MergeWarpSyncsPass(LoweringState &state) : state_(state) {}
    llvm::PreservedAnalyses run(llvm::Module &module, llvm::ModuleAnalysisManager &);

private:
    LoweringState &state_;
};

class NativeAtomicsPass : public llvm::PassInfoMixin<NativeAtomicsPass> {
public:
    NativeAtomicsPass(LoweringState &state, LoweringOptions options)
        : state_(state), options_(options) {}
    llvm::PreservedAnalyses run(llvm::Module &module, llvm::ModuleAnalysisManager &);

private:
    LoweringState &state_;
    LoweringOptions options_;
};

// What each pass does, callable on a module directly (the unit tests'
// way in; the passes above call them).

// simt-lower-nvvm: rewrites every llvm.nvvm.* call simtcc supports; any
// other nvvm intrinsic is an error naming it and its source location.
llvm::Error lowerNvvmIntrinsics(llvm::Module &module, const LoweringOptions &options);

// simt-flatten-address-spaces: moves every global and pointer into address
// space 0. Shared variables become constant addresses in the shared window.
llvm::Expected<SharedLayout> flattenAddressSpaces(llvm::Module &module);

// simt-kernel-entries: adds an entry wrapper per kernel and returns the
// kernels in table order.
llvm::Expected<std::vector<KernelInfo>> buildKernelEntries(llvm::Module &module,
                                                           const SharedLayout &shared);

// simt-kernel-table: serialises the kernel table (struct
// simtgpu_ktab_header and friends) and places it in the module as a
// constant in section .simt.kernels.
std::vector<uint8_t> encodeKernelTable(const std::vector<KernelInfo> &kernels, uint32_t arch);
void emitKernelTable(llvm::Module &module, const std::vector<KernelInfo> &kernels, uint32_t arch);
// Byte offset of kernel `index`'s stack_bytes field within the table.
uint32_t kernelTableStackFieldOffset(uint32_t index);

// simt-retarget: switches the module to the RISC-V target of `machine`.
void retargetModule(llvm::Module &module, llvm::TargetMachine &machine);
// The device's target machine at -O`optLevel`; null when this LLVM has no
// RISC-V target.
std::unique_ptr<llvm::TargetMachine> deviceTargetMachine(unsigned optLevel);

// simt-merge-warp-syncs: drops a warp.sync that follows another with the
// same member mask in one block with only straight-line code and shuffles
// between them (a 64-bit value's shuffle is two shfl.sync of its halves,
// each lowered as warp.sync and shuffle): the lanes the first released
// still run as one group. Runs after optimisation, which inlines the
// halves into one block. Returns whether it dropped any.
bool mergeWarpSyncs(llvm::Module &module);

// simt-native-atomics: replaces the atomics RISC-V's A extension would
// expand into LR/SC retry loops with one instruction each (simt_2 on):
// cmpxchg with Zacas amocas, float add/sub and CUDA's wrapping inc/dec with
// simtgpu's custom atomics (docs/isa.md). Under contention a retry loop is
// quadratic in the threads that contend; GPUs perform these at the L2 in
// one operation. Runs after optimisation, just before code generation.
// Returns whether it replaced any.
bool lowerNativeAtomics(llvm::Module &module, const LoweringOptions &options);

// An error at `inst`: "file:line:col: error: what" and the call chain up to
// the user's code, as the passes above report theirs.
llvm::Error refuseAt(const llvm::Instruction &inst, const llvm::Twine &what);

} // namespace simtcc

#endif
