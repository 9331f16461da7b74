// SPDX-License-Identifier: MIT
// simt-flatten-address-spaces: simtgpu has one flat address space, so every
// global and pointer moves into address space 0. __shared__ variables
// become constant addresses in the shared window, laid out per kernel
// (the kernels that reach none of the same variables overlap theirs):
//
//   @tile = addrspace(3) global [64 x float] undef
//   %p = getelementptr [64 x float], ptr addrspace(3) @tile, i64 0, i64 %i
//     -> %p = getelementptr [64 x float], ptr inttoptr (i64 SHARED_BASE to ptr), i64 0, i64 %i
//
// __device__ (1) and __constant__ (4) variables become plain globals the
// host can still write by name; addrspacecasts disappear. The layout goes
// to simt-kernel-entries through the LoweringState.
#include "simt_passes.h"

#include <map>
#include <set>

#include "llvm/IR/Constants.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Operator.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#include "simtgpu/hw.h"
#include "support.h"

using namespace llvm;

namespace simtcc {
namespace {

class Flattener {
public:
    explicit Flattener(Module &module)
        : module_(module), flat_(PointerType::get(module.getContext(), 0)) {}

    Expected<SharedLayout> run() {
        SharedLayout layout;
        if (Error e = replaceGlobals(layout))
            return e;
        for (GlobalVariable &gv : module_.globals())
            if (gv.hasInitializer()) {
                Expected<Constant *> init = flatten(gv.getInitializer());
                if (!init)
                    return init.takeError();
                gv.setInitializer(*init);
            }
        for (Function &f : module_) {
            if (f.isDeclaration())
                continue;
            for (Argument &arg : f.args())
                if (isNonFlat(arg.getType()))
                    return createStringError(inconvertibleErrorCode(),
                                             "error: function '%s' takes an address-space "
                                             "qualified pointer; simtcc supports only "
                                             "generic pointers in signatures",
                                             f.getName().str().c_str());
            if (Error e = flattenFunction(f))
                return e;
        }
        for (auto &[old, replacement] : intrinsics_)
            old->eraseFromParent();
        for (GlobalVariable *gv : dead_globals_) {
            gv->removeDeadConstantUsers();
            if (!gv->use_empty())
                return createStringError(inconvertibleErrorCode(),
                                         "error: internal: '%s' still used after "
                                         "flattening address spaces",
                                         gv->getName().str().c_str());
            gv->eraseFromParent();
        }
        return layout;
    }

private:
    // The kernels that reach each __shared__ variable: through the
    // functions that use it and the calls (direct, or indirect to any
    // function whose address is taken) from each kernel.
    std::map<const GlobalVariable *, std::vector<Function *>> kernelsUsingShared() {
        std::map<const Function *, std::set<const GlobalVariable *>> direct;
        for (GlobalVariable &gv : module_.globals()) {
            if (gv.getAddressSpace() != 3)
                continue;
            std::vector<const User *> work(gv.user_begin(), gv.user_end());
            std::set<const User *> seen;
            while (!work.empty()) {
                const User *u = work.back();
                work.pop_back();
                if (!seen.insert(u).second)
                    continue;
                if (auto *inst = dyn_cast<Instruction>(u))
                    direct[inst->getFunction()].insert(&gv);
                else if (isa<Constant>(u))
                    work.insert(work.end(), u->user_begin(), u->user_end());
            }
        }
        std::vector<const Function *> addressTaken;
        for (Function &f : module_)
            if (f.hasAddressTaken())
                addressTaken.push_back(&f);
        std::map<const GlobalVariable *, std::vector<Function *>> users;
        for (Function *kernel : kernelsOf(module_)) {
            std::set<const Function *> reached;
            std::vector<const Function *> work = {kernel};
            while (!work.empty()) {
                const Function *f = work.back();
                work.pop_back();
                if (!reached.insert(f).second)
                    continue;
                for (const Instruction &inst : instructions(*f))
                    if (const auto *call = dyn_cast<CallBase>(&inst)) {
                        if (const Function *callee = call->getCalledFunction())
                            work.push_back(callee);
                        else if (!call->isInlineAsm())
                            work.insert(work.end(), addressTaken.begin(), addressTaken.end());
                    }
            }
            for (const Function *f : reached)
                for (const GlobalVariable *gv : direct[f])
                    users[gv].push_back(kernel);
        }
        return users;
    }

    static bool isNonFlat(Type *type) {
        if (auto *vector = dyn_cast<VectorType>(type))
            type = vector->getElementType();
        return type->isPointerTy() && type->getPointerAddressSpace() != 0;
    }

    Type *flatType(Type *type) {
        if (auto *vector = dyn_cast<VectorType>(type))
            if (isNonFlat(vector))
                return VectorType::get(flat_, vector->getElementCount());
        return isNonFlat(type) ? flat_ : type;
    }

    static bool containsNonFlat(Type *type) {
        if (isNonFlat(type))
            return true;
        for (Type *sub : type->subtypes())
            if (containsNonFlat(sub))
                return true;
        return false;
    }

    // Shared variables get addresses in the shared window (static ones in
    // declaration order, then the extern ones, which alias); globals of
    // other address spaces move to address space 0.
    Error replaceGlobals(SharedLayout &layout) {
        // A shared variable becomes a window address, with no storage in
        // the image to keep: clang lists `__device__ __shared__` ones in
        // llvm.compiler.used, where an address is an invalid member.
        removeFromUsedLists(module_, [](Constant *c) {
            auto *gv = dyn_cast<GlobalVariable>(c);
            return gv && gv->getAddressSpace() == 3;
        });
        const DataLayout &dl = module_.getDataLayout();
        std::vector<GlobalVariable *> globals;
        for (GlobalVariable &gv : module_.globals())
            if (gv.getAddressSpace() != 0)
                globals.push_back(&gv);
        std::map<const GlobalVariable *, std::vector<Function *>> users = kernelsUsingShared();
        std::map<const Function *, uint64_t> end; // per kernel
        uint64_t offset = 0;                      // the highest end
        std::vector<GlobalVariable *> dynamic;
        for (GlobalVariable *gv : globals) {
            if (gv->getAddressSpace() != 3)
                continue;
            if (gv->isDeclaration()) {
                dynamic.push_back(gv);
                continue;
            }
            // Past every kernel that reaches it has placed so far.
            const std::vector<Function *> &kernels = users[gv];
            uint64_t at = 0;
            for (const Function *k : kernels)
                at = std::max(at, end[k]);
            uint64_t align = gv->getAlign().valueOrOne().value();
            align = std::max<uint64_t>(align, dl.getABITypeAlign(gv->getValueType()).value());
            at = alignTo(at, align);
            mapped_[gv] = ConstantExpr::getIntToPtr(
                ConstantInt::get(Type::getInt64Ty(module_.getContext()), SIMTGPU_SHARED_BASE + at),
                flat_);
            uint64_t past = at + dl.getTypeAllocSize(gv->getValueType());
            for (const Function *k : kernels)
                end[k] = past;
            offset = std::max(offset, past);
        }
        layout.static_bytes = static_cast<uint32_t>(alignTo(offset, 16));
        if (offset >= SIMTGPU_SHARED_WINDOW)
            return createStringError(inconvertibleErrorCode(),
                                     "error: static __shared__ variables need %llu bytes, "
                                     "more than the shared window",
                                     static_cast<unsigned long long>(offset));
        // The extern arrays begin after the static variables of every
        // kernel that reaches them (the others' may overlap them).
        std::set<const Function *> dynamicUsers;
        uint64_t dynamicOffset = 0;
        for (GlobalVariable *gv : dynamic)
            for (Function *k : users[gv]) {
                dynamicUsers.insert(k);
                dynamicOffset = std::max(dynamicOffset, end[k]);
            }
        layout.dynamic_offset = static_cast<uint32_t>(alignTo(dynamicOffset, 16));
        for (Function *k : kernelsOf(module_))
            layout.kernel_bytes[k] = dynamicUsers.count(k)
                                         ? layout.dynamic_offset
                                         : static_cast<uint32_t>(alignTo(end[k], 16));
        for (GlobalVariable *gv : dynamic)
            mapped_[gv] = ConstantExpr::getIntToPtr(
                ConstantInt::get(Type::getInt64Ty(module_.getContext()),
                                 SIMTGPU_SHARED_BASE + layout.dynamic_offset),
                flat_);

        for (GlobalVariable *gv : globals) {
            if (containsNonFlat(gv->getValueType()))
                return createStringError(inconvertibleErrorCode(),
                                         "error: global '%s' holds address-space "
                                         "qualified pointers",
                                         gv->getName().str().c_str());
            if (gv->getAddressSpace() != 3) {
                // __device__ (1) and __constant__ (4) data: writable by the
                // host through cudaMemcpyToSymbol, so never "constant".
                auto *flat = new GlobalVariable(
                    module_, gv->getValueType(), gv->isConstant(), gv->getLinkage(), nullptr, "",
                    gv, gv->getThreadLocalMode(), 0, gv->isExternallyInitialized());
                flat->copyAttributesFrom(gv);
                flat->takeName(gv);
                // The host may write any device variable of its translation
                // unit (cudaMemcpyToSymbol registers static ones too): keep
                // each one, visible by its name and never constant-folded.
                if (gv->hasInternalLinkage()) {
                    flat->setLinkage(GlobalValue::ExternalLinkage);
                    flat->setExternallyInitialized(true);
                    flat->setVisibility(GlobalValue::DefaultVisibility);
                    kept_.push_back(flat);
                }
                SmallVector<std::pair<unsigned, MDNode *>, 4> metadata;
                gv->getAllMetadata(metadata);
                for (auto &[kind, node] : metadata)
                    flat->setMetadata(kind, node);
                if (gv->hasInitializer())
                    flat->setInitializer(gv->getInitializer());
                mapped_[gv] = flat;
            }
            dead_globals_.push_back(gv);
        }
        return Error::success();
    }

    Expected<Constant *> flatten(Constant *c) {
        if (auto found = cache_.find(c); found != cache_.end())
            return found->second;
        Constant *result = c;
        if (auto *gv = dyn_cast<GlobalVariable>(c)) {
            if (auto it = mapped_.find(gv); it != mapped_.end())
                result = it->second;
        } else if (isa<ConstantPointerNull>(c)) {
            result = ConstantPointerNull::get(cast<PointerType>(flatType(c->getType())));
        } else if (isa<UndefValue>(c) && !isa<PoisonValue>(c)) {
            result = UndefValue::get(flatType(c->getType()));
        } else if (isa<PoisonValue>(c)) {
            result = PoisonValue::get(flatType(c->getType()));
        } else if (auto *ce = dyn_cast<ConstantExpr>(c)) {
            SmallVector<Constant *, 4> ops;
            bool changed = false;
            for (Use &op : ce->operands()) {
                Expected<Constant *> flat = flatten(cast<Constant>(op));
                if (!flat)
                    return flat.takeError();
                changed |= *flat != op;
                ops.push_back(*flat);
            }
            if (ce->getOpcode() == Instruction::AddrSpaceCast) {
                result = ops[0]; // every space is the flat one now
            } else if (changed || isNonFlat(ce->getType())) {
                Type *src = nullptr;
                if (auto *gep = dyn_cast<GEPOperator>(ce))
                    src = gep->getSourceElementType();
                result = ce->getWithOperands(ops, flatType(ce->getType()), false, src);
            }
        } else if (isa<ConstantAggregate>(c)) {
            SmallVector<Constant *, 8> ops;
            bool changed = false;
            for (Use &op : c->operands()) {
                Expected<Constant *> flat = flatten(cast<Constant>(op));
                if (!flat)
                    return flat.takeError();
                changed |= *flat != op;
                ops.push_back(*flat);
            }
            if (changed) {
                if (auto *array = dyn_cast<ConstantArray>(c)) {
                    if (containsNonFlat(array->getType()))
                        result = ConstantArray::get(
                            ArrayType::get(flat_, array->getType()->getNumElements()), ops);
                    else
                        result = ConstantArray::get(array->getType(), ops);
                } else if (auto *st = dyn_cast<ConstantStruct>(c)) {
                    if (containsNonFlat(st->getType()))
                        return createStringError(inconvertibleErrorCode(),
                                                 "error: constant struct with "
                                                 "address-space qualified pointers");
                    result = ConstantStruct::get(st->getType(), ops);
                } else {
                    result = ConstantVector::get(ops);
                }
            }
        }
        cache_[c] = result;
        return result;
    }

    Function *flatIntrinsic(Function *old) {
        if (auto it = intrinsics_.find(old); it != intrinsics_.end())
            return it->second;
        SmallVector<Type *, 4> overloads;
        Intrinsic::getIntrinsicSignature(old, overloads);
        for (Type *&t : overloads)
            t = flatType(t);
        Function *flat = Intrinsic::getDeclaration(&module_, old->getIntrinsicID(), overloads);
        intrinsics_[old] = flat;
        return flat;
    }

    Error flattenFunction(Function &f) {
        std::vector<Instruction *> casts;
        for (BasicBlock &bb : f) {
            for (Instruction &inst : bb) {
                for (Use &op : inst.operands()) {
                    auto *c = dyn_cast<Constant>(op);
                    if (!c || isa<Function>(c))
                        continue;
                    Expected<Constant *> flat = flatten(c);
                    if (!flat)
                        return flat.takeError();
                    if (*flat != c)
                        op.set(*flat);
                }
                if (auto *call = dyn_cast<CallInst>(&inst)) {
                    Function *callee = call->getCalledFunction();
                    if (callee && callee->isIntrinsic() &&
                        containsNonFlat(callee->getFunctionType()))
                        call->setCalledFunction(flatIntrinsic(callee));
                    else if (containsNonFlat(call->getFunctionType()))
                        return refuseAt(inst, "call through an address-space qualified "
                                              "signature is not supported");
                }
                if (auto *alloca = dyn_cast<AllocaInst>(&inst);
                    alloca && alloca->getAddressSpace() != 0)
                    return refuseAt(inst, "alloca outside the generic address space");
                if (auto *gep = dyn_cast<GetElementPtrInst>(&inst))
                    if (containsNonFlat(gep->getSourceElementType()))
                        return refuseAt(inst, "address-space qualified pointers inside "
                                              "aggregates are not supported");
                if (containsNonFlat(inst.getType()))
                    inst.mutateType(flatType(inst.getType()));
                if (isa<AddrSpaceCastInst>(inst))
                    casts.push_back(&inst);
            }
        }
        for (Instruction *cast : casts) {
            cast->replaceAllUsesWith(cast->getOperand(0));
            cast->eraseFromParent();
        }
        return Error::success();
    }

    Module &module_;
    PointerType *flat_;
    std::map<GlobalVariable *, Constant *> mapped_;
    std::map<Constant *, Constant *> cache_;
    std::map<Function *, Function *> intrinsics_;
    std::vector<GlobalVariable *> dead_globals_;

public:
    std::vector<GlobalValue *> kept_; // formerly internal device variables
};

} // namespace

Expected<SharedLayout> flattenAddressSpaces(Module &module) {
    Flattener flattener(module);
    Expected<SharedLayout> layout = flattener.run();
    if (layout && !flattener.kept_.empty())
        appendToUsed(module, flattener.kept_);
    return layout;
}

PreservedAnalyses FlattenAddressSpacesPass::run(Module &module, ModuleAnalysisManager &) {
    if (state_.failed())
        return PreservedAnalyses::all();
    Expected<SharedLayout> layout = flattenAddressSpaces(module);
    if (!layout)
        state_.refuse(module, layout.takeError());
    else
        state_.shared = std::move(*layout);
    return PreservedAnalyses::none();
}

} // namespace simtcc
