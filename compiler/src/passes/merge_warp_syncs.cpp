// SPDX-License-Identifier: MIT
// simt-merge-warp-syncs: __shfl_sync of a 64-bit value is two shfl.sync of
// its halves, each lowered by simt-lower-nvvm as warp.sync then shuffle.
// Once optimisation has inlined them into one block, a warp.sync that
// follows another of the same member mask, with only shuffles between
// them, waits for nothing: the lanes the first released still run as one
// group. This pass drops it:
//
//   warp.sync %mask; shuffle lo; warp.sync %mask; shuffle hi
//     -> warp.sync %mask; shuffle lo; shuffle hi
#include "simt_passes.h"

#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

#include "simtgpu/hw.h"
#include "support.h"

using namespace llvm;

namespace simtcc {

bool mergeWarpSyncs(Module &module) {
    const std::string warpSync =
        (".insn r 0x0b, " + Twine(SIMTGPU_F3_WARP) + ", " + Twine(SIMTGPU_WARP_SYNC) + ", x0,")
            .str();
    auto asmText = [](const Instruction &inst) -> StringRef {
        const auto *call = dyn_cast<CallBase>(&inst);
        if (!call || !call->isInlineAsm())
            return {};
        return cast<InlineAsm>(call->getCalledOperand())->getAsmString();
    };
    std::vector<Instruction *> redundant;
    for (Function &f : module)
        for (BasicBlock &bb : f) {
            Value *syncedMask = nullptr; // the last warp.sync's, if still in force
            for (Instruction &inst : bb) {
                StringRef text = asmText(inst);
                if (text.startswith(warpSync)) {
                    Value *mask = cast<CallBase>(inst).getArgOperand(0);
                    if (mask == syncedMask)
                        redundant.push_back(&inst);
                    syncedMask = mask;
                } else if (isa<CallBase>(inst) && !text.startswith(kShuffleAsm)) {
                    syncedMask = nullptr; // a call or another collective
                }
            }
        }
    for (Instruction *inst : redundant)
        inst->eraseFromParent();
    return !redundant.empty();
}

PreservedAnalyses MergeWarpSyncsPass::run(Module &module, ModuleAnalysisManager &) {
    if (state_.failed() || !mergeWarpSyncs(module))
        return PreservedAnalyses::all();
    return PreservedAnalyses::none();
}

} // namespace simtcc
