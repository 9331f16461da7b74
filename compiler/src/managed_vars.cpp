// SPDX-License-Identifier: MIT
#include "managed_vars.h"

#include <set>
#include <vector>

#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/ReplaceConstant.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

using namespace llvm;

namespace simtcc {
namespace {

Error fail(const Twine &message) {
    return createStringError(inconvertibleErrorCode(), message);
}

// The variables llvm.global.annotations marks "simtgpu.managed", in order.
std::vector<GlobalVariable *> managedVariables(const Module &module) {
    std::vector<GlobalVariable *> found;
    std::set<GlobalVariable *> seen;
    const GlobalVariable *annotations = module.getNamedGlobal("llvm.global.annotations");
    if (!annotations || !annotations->hasInitializer())
        return found;
    auto *entries = dyn_cast<ConstantArray>(annotations->getInitializer());
    if (!entries)
        return found;
    for (const Use &entry : entries->operands()) {
        auto *fields = dyn_cast<ConstantStruct>(entry.get());
        if (!fields || fields->getNumOperands() < 2)
            continue;
        auto *variable = dyn_cast<GlobalVariable>(fields->getOperand(0)->stripPointerCasts());
        auto *text = dyn_cast<GlobalVariable>(fields->getOperand(1)->stripPointerCasts());
        auto *data = text && text->hasInitializer()
                         ? dyn_cast<ConstantDataSequential>(text->getInitializer())
                         : nullptr;
        if (!variable || !data || !data->isCString() || data->getAsCString() != kManagedAnnotation)
            continue;
        if (seen.insert(variable).second)
            found.push_back(variable);
    }
    return found;
}

// Metadata globals (annotations, llvm.used) keep naming the variable itself.
bool isMetadataGlobal(const GlobalVariable &g) {
    return g.getName().startswith("llvm.");
}

// True when every use of the constant leads to llvm.* globals only.
bool onlyUnderMetadata(User *constant) {
    if (auto *global = dyn_cast<GlobalVariable>(constant))
        return isMetadataGlobal(*global);
    if (isa<Instruction>(constant))
        return false;
    for (User *user : constant->users())
        if (!onlyUnderMetadata(user))
            return false;
    return true;
}

// Every instruction that uses `variable` through constant expressions gets
// them as instructions, so that each use is an instruction operand. A use
// in another global's initialiser cannot be rewritten: an error naming it.
Error expandConstantUses(GlobalVariable &variable, const std::string &what) {
    // (instruction, the expression directly on the variable it reaches it
    // through): converting that pair turns the whole path into instructions.
    std::vector<std::pair<Instruction *, ConstantExpr *>> work;
    for (User *direct : variable.users()) {
        if (auto *global = dyn_cast<GlobalVariable>(direct); global && !isMetadataGlobal(*global))
            return fail("simtcc: error: the address of " + what + " in the initialiser of '" +
                        demangle(global->getName().str()) +
                        "' is not supported: a __managed__ variable's address is known at "
                        "run time only; take it in code");
        auto *root = dyn_cast<ConstantExpr>(direct);
        if (!root)
            continue;
        std::vector<User *> stack(root->user_begin(), root->user_end());
        std::set<User *> visited;
        while (!stack.empty()) {
            User *user = stack.back();
            stack.pop_back();
            if (!visited.insert(user).second)
                continue;
            if (auto *instruction = dyn_cast<Instruction>(user)) {
                work.emplace_back(instruction, root);
            } else if (auto *global = dyn_cast<GlobalVariable>(user)) {
                if (!isMetadataGlobal(*global))
                    return fail("simtcc: error: the address of " + what +
                                " in the initialiser of '" + demangle(global->getName().str()) +
                                "' is not supported: a __managed__ variable's "
                                "address is known at run time only; take it in code");
            } else {
                stack.insert(stack.end(), user->user_begin(), user->user_end());
            }
        }
    }
    std::set<std::pair<Instruction *, ConstantExpr *>> done;
    for (auto &pair : work)
        if (done.insert(pair).second)
            convertConstantExprsToInstructions(pair.first, pair.second);
    // Left: instruction uses, and constants that only metadata globals use.
    for (User *user : variable.users())
        if (!isa<Instruction>(user) && !onlyUnderMetadata(user))
            return fail("simtcc: error: " + what +
                        " is used inside a constant aggregate, which simtcc cannot "
                        "rewrite to reach managed memory");
    return Error::success();
}

// Replaces each instruction's use of `variable` by the value `make` gives
// before that instruction (for a PHI: at the end of the incoming block).
template <typename Make> void replaceInstructionUses(GlobalVariable &variable, Make make) {
    std::vector<Use *> uses;
    for (Use &use : variable.uses())
        if (isa<Instruction>(use.getUser()))
            uses.push_back(&use);
    for (Use *use : uses) {
        auto *instruction = cast<Instruction>(use->getUser());
        Instruction *at = instruction;
        if (auto *phi = dyn_cast<PHINode>(instruction))
            at = phi->getIncomingBlock(*use)->getTerminator();
        IRBuilder<> b(at);
        use->set(make(b));
    }
}

std::string describe(const GlobalVariable &variable) {
    return "__managed__ variable '" + demangle(variable.getName().str()) + "'";
}

} // namespace

bool hasManagedVariables(const Module &module) {
    return !managedVariables(module).empty();
}

Error lowerManagedVariablesForDevice(Module &module) {
    std::vector<GlobalValue *> keep;
    for (GlobalVariable *storage : managedVariables(module)) {
        if (storage->isDeclaration())
            continue; // defined by another object of a device link
        const std::string name = storage->getName().str();
        if (Error e = expandConstantUses(*storage, describe(*storage)))
            return e;
        const unsigned space = storage->getAddressSpace();
        // It holds a generic pointer (simtcc's globals hold no address-space
        // qualified ones), cast to the storage's space at each use.
        auto *pointerType = PointerType::get(module.getContext(), 0);
        storage->setName(name + ".managed");
        auto *pointer = new GlobalVariable(module, pointerType, false, storage->getLinkage(),
                                           ConstantPointerNull::get(pointerType), name, nullptr,
                                           GlobalValue::NotThreadLocal, space);
        pointer->setAlignment(Align(8));
        pointer->setVisibility(storage->getVisibility());
        pointer->setDSOLocal(storage->isDSOLocal());
        // The runtime writes it: no load of it may be folded to null.
        pointer->setExternallyInitialized(true);
        replaceInstructionUses(*storage, [&](IRBuilder<> &b) {
            Value *address = b.CreateAlignedLoad(pointerType, pointer, Align(8), name + ".address");
            return b.CreateAddrSpaceCast(address, storage->getType());
        });
        keep.push_back(pointer);
        keep.push_back(storage);
    }
    if (!keep.empty())
        appendToUsed(module, keep);
    return Error::success();
}

Error lowerManagedVariablesForHost(Module &module) {
    std::vector<GlobalVariable *> variables = managedVariables(module);
    if (variables.empty())
        return Error::success();
    LLVMContext &context = module.getContext();
    auto *ptr = PointerType::get(context, 0);
    // ptr __simtgpuManagedVarAddress(ptr slot): sets managed variables up
    // (creating the context) when a host access comes first.
    FunctionCallee slowPath = module.getOrInsertFunction("__simtgpuManagedVarAddress", ptr, ptr);
    // An always-inlined access: the loaded pointer, or the slow path's.
    Function *access =
        Function::Create(FunctionType::get(ptr, {ptr}, false), GlobalValue::InternalLinkage,
                         "__simtgpu_managed_access", module);
    access->addFnAttr(Attribute::AlwaysInline);
    access->addFnAttr(Attribute::NoUnwind);
    {
        BasicBlock *entry = BasicBlock::Create(context, "entry", access);
        BasicBlock *ready = BasicBlock::Create(context, "ready", access);
        BasicBlock *first = BasicBlock::Create(context, "first", access);
        IRBuilder<> b(entry);
        Value *slot = access->getArg(0);
        Value *address = b.CreateAlignedLoad(ptr, slot, Align(8));
        b.CreateCondBr(b.CreateIsNull(address), first, ready,
                       MDBuilder(context).createBranchWeights(1, 1000));
        b.SetInsertPoint(ready);
        b.CreateRet(address);
        b.SetInsertPoint(first);
        b.CreateRet(b.CreateCall(slowPath, {slot}));
    }
    Function *registerVar = module.getFunction("__cudaRegisterVar");
    for (GlobalVariable *shadow : variables) {
        const std::string name = shadow->getName().str();
        if (shadow->isDeclaration())
            return fail("simtcc: error: extern " + describe(*shadow) +
                        " is not supported: define it in the translation unit that "
                        "uses it");
        if (Error e = expandConstantUses(*shadow, describe(*shadow)))
            return e;
        auto *slot = new GlobalVariable(module, ptr, false, GlobalValue::InternalLinkage,
                                        ConstantPointerNull::get(ptr), name + ".managed_ptr");
        slot->setAlignment(Align(8));
        // Its registration: __cudaRegisterVar(handle, shadow, ...) becomes
        // __cudaRegisterManagedVar(handle, slot, ...).
        CallInst *registration = nullptr;
        for (User *user : shadow->users())
            if (auto *call = dyn_cast<CallInst>(user); call && registerVar &&
                                                       call->getCalledFunction() == registerVar &&
                                                       call->getArgOperand(1) == shadow)
                registration = call;
        if (!registration)
            return fail("simtcc: internal error: no registration of " + describe(*shadow) +
                        " in the host module");
        FunctionCallee registerManaged =
            module.getOrInsertFunction("__cudaRegisterManagedVar", registerVar->getFunctionType());
        std::vector<Value *> args(registration->arg_begin(), registration->arg_end());
        args[1] = slot;
        IRBuilder<> b(registration);
        b.CreateCall(registerManaged, args);
        registration->eraseFromParent();
        replaceInstructionUses(*shadow, [&](IRBuilder<> &b) {
            return b.CreateCall(access, {slot}, name + ".address");
        });
    }
    return Error::success();
}

} // namespace simtcc
