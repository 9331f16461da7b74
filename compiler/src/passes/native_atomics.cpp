// SPDX-License-Identifier: MIT
// simt-native-atomics (simt_2 on): the atomics RISC-V's A extension has no
// instruction for would become LR/SC retry loops, whose cost grows with the
// square of the threads contending for one address. Each becomes one
// instruction, as GPUs perform them at the L2:
//
//   cmpxchg ptr %p, i32 %old, i32 %new      -> amocas.w (Zacas)
//   atomicrmw fadd ptr %p, float %v         -> amo.fadd.s (custom-0)
//   atomicrmw fsub ptr %p, double %v        -> amo.fadd.d of -%v
//   atomicrmw uinc_wrap/udec_wrap ptr %p, i32 %v -> amo.inc.w / amo.dec.w
//
// The A extension's own AMOs (add, and, or, xor, swap, min, max) are left
// to the back end. Runs after optimisation, just before code generation.
#include "simt_passes.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

#include "simtgpu/hw.h"

using namespace llvm;

namespace simtcc {

bool lowerNativeAtomics(Module &module, const LoweringOptions &options) {
    if (options.arch < SIMTGPU_ARCH_SIMT2)
        return false;
    LLVMContext &context = module.getContext();
    Type *i64 = Type::getInt64Ty(context);
    // One volatile asm call: rd = old value at address $1; extra operands
    // tied where rd is also read (amocas's expected value).
    auto emit = [&](IRBuilder<> &b, const std::string &text, const char *constraints,
                    ArrayRef<Value *> operands) {
        SmallVector<Type *, 3> types;
        for (Value *v : operands)
            types.push_back(v->getType());
        auto *type = FunctionType::get(i64, types, false);
        return b.CreateCall(type, InlineAsm::get(type, text, constraints, true), operands);
    };
    // An i32/i64/float/double value as the 64-bit register RISC-V holds.
    auto toRegister = [&](IRBuilder<> &b, Value *v) -> Value * {
        if (v->getType()->isFloatTy())
            v = b.CreateBitCast(v, b.getInt32Ty());
        else if (v->getType()->isDoubleTy())
            v = b.CreateBitCast(v, i64);
        return v->getType() == i64 ? v : b.CreateSExt(v, i64);
    };
    auto fromRegister = [&](IRBuilder<> &b, Value *v, Type *type) -> Value * {
        if (type->isFloatTy())
            return b.CreateBitCast(b.CreateTrunc(v, b.getInt32Ty()), type);
        if (type->isDoubleTy())
            return b.CreateBitCast(v, type);
        return type == i64 ? v : b.CreateTrunc(v, type);
    };
    auto width = [](Type *type) { return type->getPrimitiveSizeInBits().getFixedValue(); };

    bool changed = false;
    std::vector<Instruction *> atomics;
    for (Function &f : module)
        for (Instruction &inst : instructions(f))
            if (isa<AtomicCmpXchgInst>(inst) || isa<AtomicRMWInst>(inst))
                atomics.push_back(&inst);
    for (Instruction *inst : atomics) {
        IRBuilder<> b(inst);
        if (auto *cas = dyn_cast<AtomicCmpXchgInst>(inst)) {
            Type *type = cas->getCompareOperand()->getType();
            if (!type->isIntegerTy(32) && !type->isIntegerTy(64))
                continue;
            // amocas.w/d rd, rs2, (rs1), aq and rl set.
            const std::string text = std::string(".insn r 0x2f, ") +
                                     (width(type) == 32 ? "2" : "3") + ", 0x17, $0, $1, $2";
            Value *old =
                fromRegister(b,
                             emit(b, text, "=r,r,r,0,~{memory}",
                                  {cas->getPointerOperand(), toRegister(b, cas->getNewValOperand()),
                                   toRegister(b, cas->getCompareOperand())}),
                             type);
            Value *result = b.CreateInsertValue(PoisonValue::get(cas->getType()), old, 0);
            result = b.CreateInsertValue(result, b.CreateICmpEQ(old, cas->getCompareOperand()), 1);
            cas->replaceAllUsesWith(result);
            cas->eraseFromParent();
            changed = true;
            continue;
        }
        auto *rmw = cast<AtomicRMWInst>(inst);
        Type *type = rmw->getType();
        Value *operand = rmw->getValOperand();
        unsigned funct7;
        switch (rmw->getOperation()) {
        case AtomicRMWInst::FSub:
            operand = b.CreateFNeg(operand); // a - b is a + (-b), exactly
            [[fallthrough]];
        case AtomicRMWInst::FAdd:
            if (!type->isFloatTy() && !type->isDoubleTy())
                continue;
            funct7 = type->isFloatTy() ? SIMTGPU_ATOM_FADD_S : SIMTGPU_ATOM_FADD_D;
            break;
        case AtomicRMWInst::UIncWrap:
        case AtomicRMWInst::UDecWrap:
            if (!type->isIntegerTy(32))
                continue;
            funct7 = rmw->getOperation() == AtomicRMWInst::UIncWrap ? SIMTGPU_ATOM_INC_W
                                                                    : SIMTGPU_ATOM_DEC_W;
            break;
        default: // the A extension's AMOs, or left to LLVM's LR/SC expansion
            continue;
        }
        const std::string text =
            (".insn r 0x0b, " + Twine(SIMTGPU_F3_ATOMIC) + ", " + Twine(funct7) + ", $0, $1, $2")
                .str();
        Value *old =
            emit(b, text, "=r,r,r,~{memory}", {rmw->getPointerOperand(), toRegister(b, operand)});
        rmw->replaceAllUsesWith(fromRegister(b, old, type));
        rmw->eraseFromParent();
        changed = true;
    }
    return changed;
}

PreservedAnalyses NativeAtomicsPass::run(Module &module, ModuleAnalysisManager &) {
    if (state_.failed() || !lowerNativeAtomics(module, options_))
        return PreservedAnalyses::all();
    return PreservedAnalyses::none();
}

} // namespace simtcc
