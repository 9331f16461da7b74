// SPDX-License-Identifier: MIT
// simt-lower-nvvm: every llvm.nvvm.* call of clang's CUDA device pass, and
// the PTX inline assembly clang's headers write, becomes what simtgpu does
// for it, or a refusal naming it and its source location:
//
//   %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
//     -> %0 = call i64 asm "csrr $0, 3264", "=r"()   ; SIMTGPU_CSR_TID_X
//        %t = trunc i64 %0 to i32
//   call void @llvm.nvvm.barrier0()
//     -> call void asm sideeffect ".insn r 0x0b, 0, 0, x0, x0, x0", "~{memory}"()
//
// Special registers become CSR reads; barriers, votes, shuffles, matches and
// reductions custom-0 instructions (docs/isa.md); fences, __ldg and the
// wrapping atomics LLVM IR; printf and assert calls of the device runtime.
#include "simt_passes.h"

#include <optional>

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/Module.h"

#include "ptx_simd.h"
#include "simtgpu/hw.h"
#include "support.h"

using namespace llvm;

namespace simtcc {
namespace {

std::optional<unsigned> sregCsr(StringRef reg) {
    return StringSwitch<std::optional<unsigned>>(reg)
        .Case("tid.x", SIMTGPU_CSR_TID_X)
        .Case("tid.y", SIMTGPU_CSR_TID_Y)
        .Case("tid.z", SIMTGPU_CSR_TID_Z)
        .Case("ntid.x", SIMTGPU_CSR_NTID_X)
        .Case("ntid.y", SIMTGPU_CSR_NTID_Y)
        .Case("ntid.z", SIMTGPU_CSR_NTID_Z)
        .Case("ctaid.x", SIMTGPU_CSR_CTAID_X)
        .Case("ctaid.y", SIMTGPU_CSR_CTAID_Y)
        .Case("ctaid.z", SIMTGPU_CSR_CTAID_Z)
        .Case("nctaid.x", SIMTGPU_CSR_NCTAID_X)
        .Case("nctaid.y", SIMTGPU_CSR_NCTAID_Y)
        .Case("nctaid.z", SIMTGPU_CSR_NCTAID_Z)
        .Case("laneid", SIMTGPU_CSR_LANEID)
        .Case("warpid", SIMTGPU_CSR_WARPID)
        .Case("smid", SIMTGPU_CSR_SMID)
        .Case("nsmid", SIMTGPU_CSR_NSMID)
        .Case("warpsize", SIMTGPU_CSR_WARPSIZE)
        .Case("clock", SIMTGPU_CSR_CLOCK)
        .Case("clock64", SIMTGPU_CSR_CLOCK)
        .Case("globaltimer", SIMTGPU_CSR_GLOBALTIMER)
        .Case("lanemask.lt", SIMTGPU_CSR_LANEMASK_LT)
        .Case("gridid", SIMTGPU_CSR_GRIDID)
        .Default(std::nullopt);
}

class NvvmLowering {
public:
    NvvmLowering(Module &module, const LoweringOptions &options)
        : module_(module), options_(options), i64_(Type::getInt64Ty(module.getContext())) {}

    Error run() {
        std::vector<CallInst *> calls;
        for (Function &f : module_)
            for (BasicBlock &bb : f)
                for (Instruction &inst : bb)
                    if (auto *call = dyn_cast<CallInst>(&inst))
                        if (needsLowering(*call))
                            calls.push_back(call);
        for (CallInst *call : calls) {
            IRBuilder<> b(call);
            Expected<Value *> replacement = lower(*call, b);
            if (!replacement)
                return replacement.takeError();
            if (*replacement == call)
                continue; // kept as it is
            if (*replacement)
                call->replaceAllUsesWith(*replacement);
            call->eraseFromParent();
        }
        for (Function &f : make_early_inc_range(module_))
            if (f.getName().startswith("llvm.nvvm.") && f.use_empty())
                f.eraseFromParent();
        return Error::success();
    }

private:
    static bool needsLowering(const CallInst &call) {
        if (call.isInlineAsm())
            return true;
        const Function *callee = call.getCalledFunction();
        return callee &&
               (callee->getName().startswith("llvm.nvvm.") || isRuntimeCall(callee->getName()));
    }

    static bool isRuntimeCall(StringRef name) {
        return name == "vprintf" || name == "__assertfail" || instructionMath(name);
    }

    // libdevice functions RV64GC does in one instruction: calling them
    // inline, as LLVM intrinsics, gives fsqrt, fabs, fmadd, fmin, ...
    static Intrinsic::ID instructionMath(StringRef name) {
        return StringSwitch<Intrinsic::ID>(name)
            .Cases("__nv_sqrtf", "__nv_sqrt", Intrinsic::sqrt)
            .Cases("__nv_fabsf", "__nv_fabs", Intrinsic::fabs)
            .Cases("__nv_fmaf", "__nv_fma", Intrinsic::fma)
            .Cases("__nv_fminf", "__nv_fmin", Intrinsic::minnum)
            .Cases("__nv_fmaxf", "__nv_fmax", Intrinsic::maxnum)
            .Cases("__nv_copysignf", "__nv_copysign", Intrinsic::copysign)
            .Default(Intrinsic::not_intrinsic);
    }

    // csrr rd, csr. Identity CSRs are pure (the optimizer may CSE them);
    // clocks are volatile.
    Value *readCsr(IRBuilder<> &b, unsigned csr, bool pure) {
        auto *type = FunctionType::get(i64_, false);
        auto *asm_ = InlineAsm::get(type, ("csrr $0, " + Twine(csr)).str(), "=r",
                                    /*hasSideEffects=*/!pure);
        CallInst *call = b.CreateCall(type, asm_);
        if (pure)
            call->setDoesNotAccessMemory();
        return call;
    }

    // .insn r 0x0b, funct3, funct7, rd, rs1, rs2 with the given operands
    // (x0 for the missing ones). Always volatile and a memory clobber: these
    // synchronise with other threads.
    Value *customR(IRBuilder<> &b, unsigned funct3, unsigned funct7, bool hasResult,
                   ArrayRef<Value *> sources) {
        std::string text = (".insn r 0x0b, " + Twine(funct3) + ", " + Twine(funct7) + ", ").str();
        std::string constraints;
        unsigned operand = 0;
        if (hasResult) {
            text += "$0";
            constraints = "=r";
            ++operand;
        } else {
            text += "x0";
        }
        SmallVector<Type *, 2> types;
        for (unsigned i = 0; i < 2; ++i) {
            if (i < sources.size()) {
                text += ", $" + std::to_string(operand++);
                constraints += std::string(constraints.empty() ? "" : ",") + "r";
                types.push_back(i64_);
            } else {
                text += ", x0";
            }
        }
        constraints += std::string(constraints.empty() ? "" : ",") + "~{memory}";
        auto *type = FunctionType::get(hasResult ? i64_ : b.getVoidTy(), types, false);
        return convergent(
            b.CreateCall(type, InlineAsm::get(type, text, constraints, true), sources));
    }

    // Barriers, votes, shuffles and the active mask depend on which threads
    // execute them together: the optimiser must not move them across
    // control flow (unswitch, sink, duplicate), as for the NVVM intrinsics.
    static CallInst *convergent(CallInst *call) {
        call->addFnAttr(Attribute::Convergent);
        return call;
    }

    Value *customR4(IRBuilder<> &b, unsigned funct2, Value *rs1, Value *rs2, Value *rs3) {
        std::string text = (kShuffleAsm + Twine(funct2) + ", $0, $1, $2, $3").str();
        auto *type = FunctionType::get(i64_, {i64_, i64_, i64_}, false);
        return convergent(b.CreateCall(type, InlineAsm::get(type, text, "=r,r,r,r,~{memory}", true),
                                       {rs1, rs2, rs3}));
    }

    Value *toI64(IRBuilder<> &b, Value *v, bool isSigned = true) {
        if (v->getType()->isFloatTy())
            v = b.CreateBitCast(v, b.getInt32Ty());
        if (v->getType() == i64_)
            return v;
        return isSigned ? b.CreateSExt(v, i64_) : b.CreateZExt(v, i64_);
    }

    Value *fromI64(IRBuilder<> &b, Value *v, Type *type) {
        if (type->isFloatTy())
            return b.CreateBitCast(b.CreateTrunc(v, b.getInt32Ty()), type);
        if (type->isIntegerTy(1))
            return b.CreateICmpNE(v, ConstantInt::get(i64_, 0));
        return b.CreateTrunc(v, type);
    }

    // mov.{u32,s32,b32,u64,s64,b64} $0, %sreg; (the idiom that reads %laneid,
    // %clock64, %smid, %warpid...): the same CSR read as clang's
    // llvm.nvvm.read.ptx.sreg intrinsics. nullptr when the text is no such move.
    Expected<Value *> lowerPtxSregMove(CallInst &call, IRBuilder<> &b, StringRef text) {
        StringRef rest = text;
        if (!rest.consume_front("mov."))
            return nullptr;
        StringRef kind = rest.take_until([](char c) { return c == ' ' || c == '\t'; });
        if (!(kind == "u32" || kind == "s32" || kind == "b32" || kind == "u64" || kind == "s64" ||
              kind == "b64"))
            return nullptr;
        rest = rest.drop_front(kind.size()).ltrim();
        if (!rest.consume_front("$0,"))
            return nullptr;
        rest = rest.ltrim();
        if (!rest.consume_front("%") || !rest.consume_back(";"))
            return nullptr;
        StringRef ptxName = rest.trim();
        std::string reg = ptxName.str();
        if (StringRef(reg).startswith("lanemask_"))
            reg[8] = '.'; // PTX's %lanemask_lt is the intrinsic's lanemask.lt
        auto csr = sregCsr(reg);
        if (!csr || !call.getType()->isIntegerTy())
            return refuseAt(call, "PTX inline assembly '" + text + "': special register %" +
                                      ptxName + " has no simtgpu equivalent");
        bool pure = !StringRef(reg).startswith("clock") && reg != "globaltimer";
        return fromI64(b, readCsr(b, *csr, pure), call.getType());
    }

    // Inline assembly in CUDA sources (clang's headers included) is PTX.
    // The few PTX statements with a SIMT counterpart are mapped; anything
    // else written in PTX is refused. RISC-V assembly passes through.
    // __nanosleep / PTX nanosleep.u32: warp.nanosleep, an instruction of simt_2.
    Expected<Value *> lowerNanosleep(CallInst &call, IRBuilder<> &b, Value *ns) {
        if (options_.arch < SIMTGPU_ARCH_SIMT2)
            return refuseAt(call, "__nanosleep needs simt_2 (warp.nanosleep); compile with "
                                  "-arch=simt_2");
        customR(b, SIMTGPU_F3_WARP, SIMTGPU_WARP_NANOSLEEP, false, {b.CreateZExtOrTrunc(ns, i64_)});
        return nullptr;
    }

    // CUDA's SIMD-in-a-word intrinsics, as clang's headers write them.
    Expected<Value *> lowerPtxSimdVideo(CallInst &call, IRBuilder<> &b, StringRef text) {
        std::string problem;
        std::optional<PtxSimdVideo> insn = parsePtxSimdVideo(text, problem);
        if (!insn)
            return refuseAt(call, "PTX inline assembly '" + text + "': " + problem);
        if (call.arg_size() != 3 || !call.getType()->isIntegerTy(32))
            return refuseAt(call,
                            "PTX inline assembly '" + text + "' takes 32-bit operands d, a, b, c");
        return emitPtxSimdVideo(b, *insn, call.getArgOperand(0), call.getArgOperand(1),
                                call.getArgOperand(2));
    }

    Expected<Value *> lowerInlineAsm(CallInst &call, IRBuilder<> &b) {
        StringRef text = cast<InlineAsm>(call.getCalledOperand())->getAsmString();
        StringRef trimmed = text.trim();
        if (trimmed == "activemask.b32 $0;")
            return fromI64(b, customR(b, SIMTGPU_F3_WARP, SIMTGPU_WARP_ACTIVEMASK, true, {}),
                           call.getType());
        if (trimmed == "nanosleep.u32 $0;")
            return lowerNanosleep(call, b, call.getArgOperand(0));
        bool barrier = false;
        Expected<Value *> lowered = lowerPtxBarrier(call, b, trimmed, barrier);
        if (barrier || !lowered)
            return lowered;
        if (Expected<Value *> sreg = lowerPtxSregMove(call, b, trimmed); !sreg || *sreg)
            return sreg;
        if (isPtxSimdVideo(trimmed))
            return lowerPtxSimdVideo(call, b, trimmed);
        if (trimmed == "trap;" || trimmed == "brkpt;") {
            auto *type = FunctionType::get(b.getVoidTy(), false);
            b.CreateCall(type, InlineAsm::get(type, "ebreak", "~{memory}", true));
            return nullptr;
        }
        bool ptx = trimmed.endswith(";") || trimmed.contains(".b32") || trimmed.contains(".u32") ||
                   trimmed.contains(".s32") || trimmed.contains(".f32") || trimmed.contains(".u64");
        if (ptx)
            return refuseAt(call, "PTX inline assembly '" + trimmed +
                                      "' has no simtgpu equivalent (device inline assembly is "
                                      "RISC-V)");
        return &call;
    }

    Expected<Value *> lower(CallInst &call, IRBuilder<> &b) {
        if (call.isInlineAsm())
            return lowerInlineAsm(call, b);
        StringRef name = call.getCalledFunction()->getName();
        Type *type = call.getType();
        if (name == "vprintf")
            return lowerPrintf(call, b);
        if (name == "__assertfail")
            return lowerAssert(call);
        if (Intrinsic::ID math = instructionMath(name)) {
            SmallVector<Value *, 3> args(call.args());
            return b.CreateIntrinsic(math, {type}, args);
        }
        name.consume_front("llvm.nvvm.");

        if (name.consume_front("read.ptx.sreg.")) {
            if (auto csr = sregCsr(name)) {
                bool pure = !name.startswith("clock") && name != "globaltimer";
                return fromI64(b, readCsr(b, *csr, pure), type);
            }
            if (name.startswith("lanemask.")) {
                // eq, le, gt, ge from laneid and lanemask.lt.
                Value *lane = readCsr(b, SIMTGPU_CSR_LANEID, true);
                Value *eq = b.CreateShl(ConstantInt::get(i64_, 1), lane);
                Value *lt = b.CreateSub(eq, ConstantInt::get(i64_, 1));
                Value *result = StringSwitch<Value *>(name)
                                    .Case("lanemask.eq", eq)
                                    .Case("lanemask.le", b.CreateOr(lt, eq))
                                    .Case("lanemask.gt", b.CreateNot(b.CreateOr(lt, eq)))
                                    .Case("lanemask.ge", b.CreateNot(lt))
                                    .Default(nullptr);
                if (result)
                    return fromI64(b, result, type);
            }
            return unsupported(call);
        }
        if (name == "barrier0")
            return customR(b, SIMTGPU_F3_BARRIER, SIMTGPU_BAR_SYNC, false, {});
        // Named barriers: barrier.sync/barrier.n/bar.sync(id) (every thread
        // of the CTA), barrier.sync.cnt/barrier(id, count).
        if (name == "barrier.sync" || name == "barrier.n" || name == "bar.sync")
            return lowerBarrier(call, b, SIMTGPU_BAR_SYNC, call.getArgOperand(0), nullptr);
        if (name == "barrier.sync.cnt" || name == "barrier")
            return lowerBarrier(call, b, SIMTGPU_BAR_SYNC, call.getArgOperand(0),
                                call.getArgOperand(1));
        if (name == "barrier0.popc" || name == "barrier0.and" || name == "barrier0.or") {
            unsigned op = name.endswith("popc")  ? SIMTGPU_BAR_POPC
                          : name.endswith("and") ? SIMTGPU_BAR_AND
                                                 : SIMTGPU_BAR_OR;
            Value *pred = toI64(b, call.getArgOperand(0));
            return fromI64(b, customR(b, SIMTGPU_F3_BARRIER, op, true, {pred}), type);
        }
        if (name == "bar.warp.sync")
            return customR(b, SIMTGPU_F3_WARP, SIMTGPU_WARP_SYNC, false,
                           {toI64(b, call.getArgOperand(0))});
        if (name == "activemask")
            return fromI64(b, customR(b, SIMTGPU_F3_WARP, SIMTGPU_WARP_ACTIVEMASK, true, {}), type);
        if (name == "nanosleep")
            return lowerNanosleep(call, b, call.getArgOperand(0));
        if (name.consume_front("vote.")) {
            bool sync = name.consume_back(".sync");
            unsigned op = StringSwitch<unsigned>(name)
                              .Case("ballot", SIMTGPU_VOTE_BALLOT)
                              .Case("any", SIMTGPU_VOTE_ANY)
                              .Case("all", SIMTGPU_VOTE_ALL)
                              .Case("uni", SIMTGPU_VOTE_UNI)
                              .Default(~0u);
            if (op == ~0u)
                return unsupported(call);
            Value *mask = sync ? toI64(b, call.getArgOperand(0)) : ConstantInt::get(i64_, -1);
            Value *pred = b.CreateZExt(call.getArgOperand(sync ? 1 : 0), i64_);
            return fromI64(b, customR(b, SIMTGPU_F3_VOTE, op, true, {pred, mask}), type);
        }
        if (name.startswith("match.") || name.startswith("redux.sync."))
            return lowerMatchOrRedux(call, b, name);
        if (name.consume_front("shfl.")) {
            // shfl[.sync].mode.{i32,f32}([mask,] value, b, c). shfl.sync
            // waits for its member mask as PTX's does (and as NVIDIA's
            // WARPSYNC before a SHFL): warp.sync mask, then the shuffle,
            // which has no mask of its own (docs/isa.md).
            bool sync = name.consume_front("sync.");
            if (!name.endswith(".i32") && !name.endswith(".f32"))
                return unsupported(call); // the predicate-returning forms
            unsigned mode = StringSwitch<unsigned>(name.drop_back(4))
                                .Case("idx", SIMTGPU_SHFL_IDX)
                                .Case("up", SIMTGPU_SHFL_UP)
                                .Case("down", SIMTGPU_SHFL_DOWN)
                                .Case("bfly", SIMTGPU_SHFL_BFLY)
                                .Default(~0u);
            if (mode == ~0u)
                return unsupported(call);
            unsigned first = sync ? 1 : 0;
            if (sync)
                customR(b, SIMTGPU_F3_WARP, SIMTGPU_WARP_SYNC, false,
                        {toI64(b, call.getArgOperand(0))});
            Value *value = toI64(b, call.getArgOperand(first), false);
            Value *lane = toI64(b, call.getArgOperand(first + 1), false);
            Value *clamp = toI64(b, call.getArgOperand(first + 2), false);
            return fromI64(b, customR4(b, mode, value, lane, clamp), type);
        }
        if (name == "membar.cta" || name == "membar.gl" || name == "membar.sys" ||
            name.startswith("fence.sc.") || name.startswith("fence.acq_rel.")) {
            b.CreateFence(AtomicOrdering::SequentiallyConsistent);
            return nullptr;
        }
        if (name.startswith("ldg.global.") || name.startswith("ldu.global.")) {
            // __ldg is a read through the non-coherent path; here a load.
            auto *align = cast<ConstantInt>(call.getArgOperand(1));
            return b.CreateAlignedLoad(type, call.getArgOperand(0), Align(align->getZExtValue()));
        }
        if (name.startswith("atomic.load.inc.32") || name.startswith("atomic.load.dec.32")) {
            auto op = name.startswith("atomic.load.inc") ? AtomicRMWInst::UIncWrap
                                                         : AtomicRMWInst::UDecWrap;
            return b.CreateAtomicRMW(op, call.getArgOperand(0), call.getArgOperand(1), Align(4),
                                     AtomicOrdering::Monotonic);
        }
        return unsupported(call);
    }

    // bar.sync id, count (or bar.arrive): the operands' rules of PTX,
    // checked here when they are constants (the device checks the others,
    // SIMTGPU_EXC_BAD_BARRIER). count = nullptr: every thread of the CTA.
    Expected<Value *> lowerBarrier(CallInst &call, IRBuilder<> &b, unsigned funct, Value *id,
                                   Value *count) {
        auto *constId = dyn_cast<ConstantInt>(id);
        auto *constCount = dyn_cast_or_null<ConstantInt>(count);
        const char *what = funct == SIMTGPU_BAR_ARRIVE ? "bar.arrive" : "bar.sync";
        if (constId && constId->getZExtValue() >= SIMTGPU_BARRIERS)
            return refuseAt(call, Twine(what) + ": barrier id " + Twine(constId->getZExtValue()) +
                                      " is out of range (0.." + Twine(SIMTGPU_BARRIERS - 1) + ")");
        if (constCount && constCount->getZExtValue() % 32)
            return refuseAt(call, Twine(what) + ": thread count " +
                                      Twine(constCount->getZExtValue()) +
                                      " is not a multiple of the warp size (32)");
        if (funct == SIMTGPU_BAR_ARRIVE && (!count || (constCount && constCount->isZero())))
            return refuseAt(call, "bar.arrive needs a non-zero thread count");
        const bool plain = funct == SIMTGPU_BAR_SYNC && constId && constId->isZero() &&
                           (!count || (constCount && constCount->isZero()));
        if (plain) // __syncthreads
            return customR(b, SIMTGPU_F3_BARRIER, SIMTGPU_BAR_SYNC, false, {});
        if (options_.arch < SIMTGPU_ARCH_SIMT2)
            return refuseAt(call, "named barriers (" + Twine(what) +
                                      " with an id or a thread count) need -arch=simt_2 or newer");
        SmallVector<Value *, 2> operands = {toI64(b, id, false)};
        if (count)
            operands.push_back(toI64(b, count, false));
        return customR(b, SIMTGPU_F3_BARRIER, funct, false, operands);
    }

    // PTX barriers in inline assembly, one statement:
    // bar{.cta}.sync a{, b}; barrier{.cta}.sync{.aligned} a{, b};
    // bar{.cta}.arrive a, b; barrier{.cta}.arrive{.aligned} a, b; where a
    // and b are integers or input operands ($N). isBarrier says whether
    // the text is one (then the result is the lowering or its error).
    Expected<Value *> lowerPtxBarrier(CallInst &call, IRBuilder<> &b, StringRef text,
                                      bool &isBarrier) {
        isBarrier = false;
        StringRef rest = text;
        if (!rest.consume_front("barrier") && !rest.consume_front("bar"))
            return nullptr;
        rest.consume_front(".cta");
        unsigned funct;
        if (rest.consume_front(".sync"))
            funct = SIMTGPU_BAR_SYNC;
        else if (rest.consume_front(".arrive"))
            funct = SIMTGPU_BAR_ARRIVE;
        else
            return nullptr;
        rest.consume_front(".aligned");
        if (rest.empty() || !isSpace(rest.front()) || !rest.consume_back(";"))
            return nullptr;
        isBarrier = true;
        SmallVector<StringRef, 3> fields;
        rest.split(fields, ',');
        SmallVector<Value *, 2> operands;
        for (StringRef field : fields) {
            field = field.trim();
            uint64_t number = 0;
            if (field.consume_front("$")) {
                if (field.getAsInteger(10, number) || number >= call.arg_size() ||
                    !call.getArgOperand(number)->getType()->isIntegerTy())
                    break;
                operands.push_back(call.getArgOperand(number));
            } else if (!field.getAsInteger(0, number)) {
                operands.push_back(ConstantInt::get(b.getInt32Ty(), number));
            } else {
                break;
            }
        }
        if (operands.size() != fields.size() || operands.empty() || operands.size() > 2 ||
            !call.getType()->isVoidTy())
            return refuseAt(call,
                            "PTX barrier '" + text +
                                "' is not of the form 'bar.sync a{, b};' or 'bar.arrive a, b;' "
                                "with integer or input operands");
        return lowerBarrier(call, b, funct, operands[0],
                            operands.size() > 1 ? operands[1] : nullptr);
    }

    // match.{any,all}.sync.{i32,i64[p]}(mask, value) and
    // redux.sync.<op>(value, mask): one match/redux instruction over the
    // 64-bit operand (32-bit values extended as the operation needs).
    Expected<Value *> lowerMatchOrRedux(CallInst &call, IRBuilder<> &b, StringRef name) {
        if (options_.arch < SIMTGPU_ARCH_SIMT2)
            return refuseAt(call, "'" + call.getCalledFunction()->getName() +
                                      "' (__match_*_sync, __reduce_*_sync) needs -arch=simt_2 or "
                                      "newer");
        if (name.consume_front("match.")) {
            unsigned op;
            if (name.consume_front("any.sync."))
                op = SIMTGPU_MATCH_ANY;
            else if (name.consume_front("all.sync."))
                op = SIMTGPU_MATCH_ALL;
            else
                return unsupported(call);
            if (name != "i32" && name != "i64" && name != "i32p" && name != "i64p")
                return unsupported(call);
            Value *mask = toI64(b, call.getArgOperand(0));
            Value *value = toI64(b, call.getArgOperand(1), false);
            Value *lanes = customR(b, SIMTGPU_F3_MATCH, op, true, {value, mask});
            Value *result = b.CreateTrunc(lanes, b.getInt32Ty());
            if (!call.getType()->isStructTy())
                return result;
            // {mask, pred}: pred says whether every member lane agreed.
            Value *pair = UndefValue::get(call.getType());
            pair = b.CreateInsertValue(pair, result, 0);
            return b.CreateInsertValue(pair, b.CreateICmpNE(lanes, ConstantInt::get(i64_, 0)), 1);
        }
        name.consume_front("redux.sync.");
        struct Redux {
            unsigned op;
            bool isSigned;
        };
        std::optional<Redux> redux = StringSwitch<std::optional<Redux>>(name)
                                         .Case("add", Redux{SIMTGPU_REDUX_ADD, false})
                                         .Case("and", Redux{SIMTGPU_REDUX_AND, false})
                                         .Case("or", Redux{SIMTGPU_REDUX_OR, false})
                                         .Case("xor", Redux{SIMTGPU_REDUX_XOR, false})
                                         .Case("min", Redux{SIMTGPU_REDUX_MIN, true})
                                         .Case("max", Redux{SIMTGPU_REDUX_MAX, true})
                                         .Case("umin", Redux{SIMTGPU_REDUX_MINU, false})
                                         .Case("umax", Redux{SIMTGPU_REDUX_MAXU, false})
                                         .Default(std::nullopt);
        if (!redux)
            return unsupported(call);
        Value *value = toI64(b, call.getArgOperand(0), redux->isSigned);
        Value *mask = toI64(b, call.getArgOperand(1));
        return fromI64(b, customR(b, SIMTGPU_F3_REDUX, redux->op, true, {value, mask}),
                       call.getType());
    }

    Error unsupported(CallInst &call) {
        return refuseAt(call, "simtcc cannot map NVVM intrinsic '" +
                                  call.getCalledFunction()->getName() + "' to the simtgpu device");
    }

    // vprintf(format, args) -> __simt_vprintf(format, args, bytes): the
    // size of clang's packed argument buffer is known here, not at run time.
    Expected<Value *> lowerPrintf(CallInst &call, IRBuilder<> &b) {
        if (options_.arch < SIMTGPU_ARCH_SIMT2)
            return refuseAt(call, "printf needs -arch=simt_2 or newer (the envptr CSR)");
        Value *args = call.getArgOperand(1)->stripPointerCasts();
        uint64_t bytes = 0;
        if (auto *alloca = dyn_cast<AllocaInst>(args)) {
            bytes = *alloca->getAllocationSizeInBits(module_.getDataLayout()) / 8;
        } else if (!isa<ConstantPointerNull>(args)) {
            return refuseAt(call, "vprintf needs the argument buffer clang builds for printf");
        }
        FunctionCallee runtime = module_.getOrInsertFunction(
            "__simt_vprintf", b.getInt32Ty(), call.getArgOperand(0)->getType(),
            call.getArgOperand(1)->getType(), i64_);
        return b.CreateCall(
            runtime, {call.getArgOperand(0), call.getArgOperand(1), ConstantInt::get(i64_, bytes)});
    }

    Expected<Value *> lowerAssert(CallInst &call) {
        if (options_.arch < SIMTGPU_ARCH_SIMT2)
            return refuseAt(call, "assert needs -arch=simt_2 or newer (the envptr CSR)");
        // The runtime implements __assertfail itself; keep the call.
        IRBuilder<> b(&call);
        SmallVector<Value *, 5> args(call.args());
        FunctionCallee runtime =
            module_.getOrInsertFunction("__simt_assertfail", call.getFunctionType());
        return b.CreateCall(runtime, args);
    }

    Module &module_;
    const LoweringOptions &options_;
    Type *i64_;
};

} // namespace

Error lowerNvvmIntrinsics(Module &module, const LoweringOptions &options) {
    return NvvmLowering(module, options).run();
}

PreservedAnalyses LowerNvvmPass::run(Module &module, ModuleAnalysisManager &) {
    if (state_.failed())
        return PreservedAnalyses::all();
    if (Error e = lowerNvvmIntrinsics(module, options_))
        state_.refuse(module, std::move(e));
    return PreservedAnalyses::none();
}

} // namespace simtcc
