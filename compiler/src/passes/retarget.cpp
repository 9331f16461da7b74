// SPDX-License-Identifier: MIT
// simt-retarget: the flattened NVVM module becomes a RISC-V one: the
// device's triple, data layout and lp64d ABI, the C calling convention for
// NVPTX's kernel and device ones, nvvm.annotations dropped, target-cpu and
// target-features on every definition, definitions dso_local, and signext
// on every i32 parameter and result (the psABI's rule, which NVPTX IR does
// not spell):
//
//   target triple = "nvptx64-nvidia-cuda"
//   define ptx_kernel void @k(i32 %n)
//     -> target triple = "riscv64-unknown-elf"
//        define dso_local void @k(i32 signext %n) "target-cpu"="generic-rv64" ...
#include "simt_passes.h"

#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"

using namespace llvm;

namespace simtcc {
namespace {

constexpr const char *kDeviceCpu = "generic-rv64";
constexpr const char *kDeviceFeatures = "+m,+a,+f,+d,+c";

// The RISC-V psABI passes and returns 32-bit integers sign-extended to 64
// bits, signed or not, and code compiled for RISC-V (the device runtime's
// __nv_* functions, picolibc) relies on it. NVPTX IR carries no extension
// attribute on i32, so a value whose upper bits are not its sign (a
// truncated shuffle or vote result) would reach such a callee as garbage:
// every i32 parameter and result gets signext, on both sides of every call.
// (8- and 16-bit ones already carry clang's signext/zeroext.)
template <class Attributed> void signExtendI32(Attributed &f, FunctionType *type) {
    for (unsigned i = 0; i < type->getNumParams(); ++i)
        if (type->getParamType(i)->isIntegerTy(32) &&
            !f.getAttributes().hasParamAttr(i, Attribute::ZExt))
            f.addParamAttr(i, Attribute::SExt);
    if (type->getReturnType()->isIntegerTy(32) && !f.getAttributes().hasRetAttr(Attribute::ZExt))
        f.addRetAttr(Attribute::SExt);
}

} // namespace

std::unique_ptr<TargetMachine> deviceTargetMachine(unsigned optLevel) {
    std::string error;
    const Target *target = TargetRegistry::lookupTarget(kDeviceTriple, error);
    if (!target)
        return nullptr;
    TargetOptions options;
    options.MCOptions.ABIName = "lp64d";
    options.EmitStackSizeSection = true;
    auto level = optLevel == 0   ? CodeGenOpt::None
                 : optLevel == 1 ? CodeGenOpt::Less
                 : optLevel == 2 ? CodeGenOpt::Default
                                 : CodeGenOpt::Aggressive;
    return std::unique_ptr<TargetMachine>(
        target->createTargetMachine(kDeviceTriple, kDeviceCpu, kDeviceFeatures, options,
                                    Reloc::PIC_, CodeModel::Medium, level));
}

void retargetModule(Module &module, TargetMachine &machine) {
    module.setTargetTriple(machine.getTargetTriple().str());
    module.setDataLayout(machine.createDataLayout());
    if (NamedMDNode *annotations = module.getNamedMetadata("nvvm.annotations"))
        module.eraseNamedMetadata(annotations);
    std::string features = machine.getTargetFeatureString().str();
    for (Function &f : module) {
        if (f.getCallingConv() == CallingConv::PTX_Kernel ||
            f.getCallingConv() == CallingConv::PTX_Device)
            f.setCallingConv(CallingConv::C);
        for (User *user : f.users())
            if (auto *call = dyn_cast<CallBase>(user))
                if (call->getCallingConv() == CallingConv::PTX_Kernel ||
                    call->getCallingConv() == CallingConv::PTX_Device)
                    call->setCallingConv(CallingConv::C);
        if (!f.isIntrinsic())
            signExtendI32(f, f.getFunctionType());
        for (Instruction &inst : instructions(f)) // direct and indirect calls
            if (auto *call = dyn_cast<CallBase>(&inst); call && !call->isInlineAsm())
                if (Function *callee = call->getCalledFunction(); !callee || !callee->isIntrinsic())
                    signExtendI32(*call, call->getFunctionType());
        f.removeFnAttr("target-cpu");
        f.removeFnAttr("target-features");
        if (!f.isDeclaration()) {
            f.addFnAttr("target-cpu", machine.getTargetCPU());
            f.addFnAttr("target-features", features);
        }
    }
    for (GlobalValue &gv : module.global_values())
        if (!gv.isDeclaration() && !gv.hasLocalLinkage())
            gv.setDSOLocal(true);
    module.addModuleFlag(
        Module::Error, "target-abi",
        MDString::get(module.getContext(), machine.Options.MCOptions.getABIName()));
}

PreservedAnalyses RetargetPass::run(Module &module, ModuleAnalysisManager &) {
    if (state_.failed())
        return PreservedAnalyses::all();
    TargetMachine *machine = state_.machine();
    if (!machine) {
        state_.refuse(module, createStringError(inconvertibleErrorCode(),
                                                "simt-retarget: this LLVM has no RISC-V target"));
        return PreservedAnalyses::all();
    }
    retargetModule(module, *machine);
    return PreservedAnalyses::none();
}

} // namespace simtcc
