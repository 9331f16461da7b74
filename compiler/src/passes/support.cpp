// SPDX-License-Identifier: MIT
// What the simt- passes share: the state they hand on, their refusals with
// source locations, and the kernels of an NVVM module.
#include "simt_passes.h"

#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"

#include "support.h"

using namespace llvm;

namespace simtcc {

LoweringState::LoweringState(uint32_t arch, Refusals refusals, TargetMachine *machine)
    : arch(arch), refusals_(refusals), machine_(machine) {}

LoweringState::~LoweringState() = default;

TargetMachine *LoweringState::machine() {
    if (!machine_) {
        own_machine_ = deviceTargetMachine(2);
        machine_ = own_machine_.get();
    }
    return machine_;
}

void LoweringState::refuse(Module &module, Error error) {
    std::string message = toString(std::move(error));
    if (refusals_ == Refusals::Diagnose)
        module.getContext().emitError(message);
    else if (!failed_)
        first_refusal_ = message;
    failed_ = true;
}

Error LoweringState::takeError() {
    if (!failed_)
        return Error::success();
    failed_ = false;
    return createStringError(inconvertibleErrorCode(), first_refusal_);
}

namespace {

// "file:line:column: " of an instruction, from its debug location (simtcc
// always asks clang for location tracking), else the enclosing function.
std::string where(const Instruction &inst) {
    if (const DebugLoc &loc = inst.getDebugLoc()) {
        auto *scope = cast<DIScope>(loc.getScope());
        return (scope->getFilename() + ":" + Twine(loc.getLine()) + ":" + Twine(loc.getCol()) +
                ": ")
            .str();
    }
    return ("in function '" + inst.getFunction()->getName() + "': ").str();
}

// Header functions (clang's CUDA headers) are where intrinsics are called
// from; the user's code is up the call chain. Names the first call site of
// each enclosing function, up to a few levels.
std::string callChain(const Function &function) {
    std::string chain;
    const Function *current = &function;
    for (int depth = 0; depth < 4; ++depth) {
        const CallBase *site = nullptr;
        for (const User *user : current->users())
            if (auto *call = dyn_cast<CallBase>(user); call && call->getDebugLoc()) {
                site = call;
                break;
            }
        if (!site)
            break;
        chain.append("\n").append(where(*site)).append("note: '");
        chain.append(current->getName().str()).append("' called here");
        current = site->getFunction();
    }
    return chain;
}

} // namespace

Error refuseAt(const Instruction &inst, const Twine &what) {
    return createStringError(inconvertibleErrorCode(),
                             where(inst) + "error: " + what.str() + callChain(*inst.getFunction()));
}

std::vector<Function *> kernelsOf(Module &module) {
    std::vector<Function *> kernels;
    if (NamedMDNode *annotations = module.getNamedMetadata("nvvm.annotations")) {
        for (MDNode *node : annotations->operands()) {
            if (node->getNumOperands() < 3)
                continue;
            auto *kind = dyn_cast<MDString>(node->getOperand(1));
            if (!kind || kind->getString() != "kernel")
                continue;
            if (auto *value = dyn_cast_or_null<ValueAsMetadata>(node->getOperand(0)))
                if (auto *f = dyn_cast<Function>(value->getValue()))
                    kernels.push_back(f);
        }
    }
    for (Function &f : module)
        if (f.getCallingConv() == CallingConv::PTX_Kernel &&
            std::find(kernels.begin(), kernels.end(), &f) == kernels.end())
            kernels.push_back(&f);
    return kernels;
}

} // namespace simtcc
