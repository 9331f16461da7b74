// SPDX-License-Identifier: MIT
// simt-kernel-entries: a launch starts each thread at an entry wrapper with
// a0 pointing at the kernel's parameter buffer. The wrapper points tp at
// zeroed thread-local bytes, loads each parameter from its slot (byval
// ones are passed as the slot itself), calls the kernel and exits:
//
//   define void @k(i32 %n, ptr %p)
//     -> define void @__simt_entry_k(ptr %params) noreturn nounwind
//          ... %n = load i32, ptr %params; %p = load ptr, (%params + 8)
//          call void @k(i32 %n, ptr %p); exit syscall; unreachable
//
// The kernels, their parameter layout, shared bytes (from
// simt-flatten-address-spaces) and __launch_bounds__ go to
// simt-kernel-table and simtcc through the LoweringState.
#include "simt_passes.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"

#include "support.h"

using namespace llvm;

namespace simtcc {
namespace {

uint32_t maxThreadsOf(Module &module, Function *kernel) {
    NamedMDNode *annotations = module.getNamedMetadata("nvvm.annotations");
    if (!annotations)
        return 0;
    for (MDNode *node : annotations->operands()) {
        auto *value = dyn_cast_or_null<ValueAsMetadata>(node->getOperand(0));
        if (!value || value->getValue() != kernel)
            continue;
        for (unsigned i = 1; i + 1 < node->getNumOperands(); i += 2) {
            auto *key = dyn_cast<MDString>(node->getOperand(i));
            if (key && key->getString() == "maxntidx")
                if (auto *n = mdconst::dyn_extract<ConstantInt>(node->getOperand(i + 1)))
                    return static_cast<uint32_t>(n->getZExtValue());
        }
    }
    return 0;
}

} // namespace

Expected<std::vector<KernelInfo>> buildKernelEntries(Module &module, const SharedLayout &shared) {
    LLVMContext &context = module.getContext();
    const DataLayout &dl = module.getDataLayout();
    std::vector<KernelInfo> infos;
    auto *flat = PointerType::get(context, 0);
    for (Function *kernel : kernelsOf(module)) {
        if (kernel->isVarArg())
            return createStringError(inconvertibleErrorCode(), "error: kernel '%s' is variadic",
                                     kernel->getName().str().c_str());
        KernelInfo info;
        info.name = kernel->getName().str();
        info.entry_symbol = kEntryPrefix + info.name;
        auto own = shared.kernel_bytes.find(kernel);
        info.static_shared_bytes =
            own != shared.kernel_bytes.end() ? own->second : shared.static_bytes;
        info.max_threads_per_cta = maxThreadsOf(module, kernel);

        auto *entry = Function::Create(FunctionType::get(Type::getVoidTy(context), {flat}, false),
                                       GlobalValue::ExternalLinkage, info.entry_symbol, module);
        entry->addFnAttr(Attribute::NoReturn);
        entry->addFnAttr(Attribute::NoUnwind);
        entry->setDSOLocal(true);
        IRBuilder<> b(BasicBlock::Create(context, "entry", entry));

        Value *tls = b.CreateAlloca(ArrayType::get(b.getInt8Ty(), kThreadLocalBytes));
        cast<AllocaInst>(tls)->setAlignment(Align(16));
        b.CreateMemSet(tls, b.getInt8(0), kThreadLocalBytes, Align(16));
        auto *setTp = FunctionType::get(b.getVoidTy(), {flat}, false);
        b.CreateCall(setTp, InlineAsm::get(setTp, "mv tp, $0", "r,~{memory}", true), {tls});

        uint64_t offset = 0;
        SmallVector<Value *, 8> args;
        Value *params = entry->getArg(0);
        for (Argument &arg : kernel->args()) {
            Type *byval = arg.getParamByValType();
            Type *valueType = byval ? byval : arg.getType();
            uint64_t size = dl.getTypeAllocSize(valueType);
            uint64_t align = dl.getABITypeAlign(valueType).value();
            if (MaybeAlign explicitAlign = arg.getParamAlign())
                align = std::max(align, explicitAlign->value());
            offset = alignTo(offset, align);
            info.params.push_back({static_cast<uint32_t>(offset), static_cast<uint32_t>(size),
                                   static_cast<uint32_t>(align)});
            Value *slot = b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), params, offset);
            // A byval parameter is the buffer slot itself (the callee's
            // byval semantics copy it); others are loaded from it.
            args.push_back(byval ? slot : b.CreateAlignedLoad(valueType, slot, Align(align)));
            offset += size;
        }
        info.param_bytes = static_cast<uint32_t>(offset);
        CallInst *call = b.CreateCall(kernel->getFunctionType(), kernel, args);
        call->setCallingConv(kernel->getCallingConv());
        call->setAttributes(kernel->getAttributes());

        auto *exit = FunctionType::get(b.getVoidTy(), false);
        b.CreateCall(exit, InlineAsm::get(exit, "li a0, 0\n\tli a7, 93\n\tecall",
                                          "~{x10},~{x17},~{memory}", true));
        b.CreateUnreachable();
        infos.push_back(std::move(info));
    }
    return infos;
}
PreservedAnalyses KernelEntriesPass::run(Module &module, ModuleAnalysisManager &) {
    if (state_.failed())
        return PreservedAnalyses::all();
    Expected<std::vector<KernelInfo>> kernels = buildKernelEntries(module, state_.shared);
    if (!kernels)
        state_.refuse(module, kernels.takeError());
    else
        state_.kernels = std::move(*kernels);
    return PreservedAnalyses::none();
}

} // namespace simtcc
