// SPDX-License-Identifier: MIT
#include "device_passes.h"

#include <map>
#include <optional>
#include <set>

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#include "ptx_simd.h"
#include "simtgpu/hw.h"

using namespace llvm;

namespace simtcc {
namespace {

// The shuffles' custom-0 R4 form, up to its funct2 (the mode).
constexpr const char *kShuffleAsm = ".insn r4 0x0b, 2, ";

// "file:line:column: " of an instruction, from its debug location (simtcc
// always asks clang for location tracking), else the enclosing function.
std::string where(const Instruction &inst)
{
	if (const DebugLoc &loc = inst.getDebugLoc()) {
		auto *scope = cast<DIScope>(loc.getScope());
		return (scope->getFilename() + ":" + Twine(loc.getLine()) + ":" +
			Twine(loc.getCol()) + ": ")
			.str();
	}
	return ("in function '" + inst.getFunction()->getName() + "': ").str();
}

// Header functions (clang's CUDA headers) are where intrinsics are called
// from; the user's code is up the call chain. Names the first call site of
// each enclosing function, up to a few levels.
std::string callChain(const Function &function)
{
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

Error refuse(const Instruction &inst, const Twine &what)
{
	return createStringError(inconvertibleErrorCode(), where(inst) + "error: " + what.str() +
								   callChain(*inst.getFunction()));
}

// ------------------------------------------------------------------------
// 1. NVVM intrinsics
// ------------------------------------------------------------------------

std::optional<unsigned> sregCsr(StringRef reg)
{
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
		: module_(module), options_(options), i64_(Type::getInt64Ty(module.getContext()))
	{
	}

	Error run()
	{
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
	static bool needsLowering(const CallInst &call)
	{
		if (call.isInlineAsm())
			return true;
		const Function *callee = call.getCalledFunction();
		return callee && (callee->getName().startswith("llvm.nvvm.") ||
				  isRuntimeCall(callee->getName()));
	}

	static bool isRuntimeCall(StringRef name)
	{
		return name == "vprintf" || name == "__assertfail" || instructionMath(name);
	}

	// libdevice functions RV64GC does in one instruction: calling them
	// inline, as LLVM intrinsics, gives fsqrt, fabs, fmadd, fmin, ...
	static Intrinsic::ID instructionMath(StringRef name)
	{
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
	Value *readCsr(IRBuilder<> &b, unsigned csr, bool pure)
	{
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
		       ArrayRef<Value *> sources)
	{
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
		return convergent(b.CreateCall(type, InlineAsm::get(type, text, constraints, true), sources));
	}

	// Barriers, votes, shuffles and the active mask depend on which threads
	// execute them together: the optimiser must not move them across
	// control flow (unswitch, sink, duplicate), as for the NVVM intrinsics.
	static CallInst *convergent(CallInst *call)
	{
		call->addFnAttr(Attribute::Convergent);
		return call;
	}

	Value *customR4(IRBuilder<> &b, unsigned funct2, Value *rs1, Value *rs2, Value *rs3)
	{
		std::string text = (kShuffleAsm + Twine(funct2) + ", $0, $1, $2, $3").str();
		auto *type = FunctionType::get(i64_, {i64_, i64_, i64_}, false);
		return convergent(b.CreateCall(
			type, InlineAsm::get(type, text, "=r,r,r,r,~{memory}", true), {rs1, rs2, rs3}));
	}

	Value *toI64(IRBuilder<> &b, Value *v, bool isSigned = true)
	{
		if (v->getType()->isFloatTy())
			v = b.CreateBitCast(v, b.getInt32Ty());
		if (v->getType() == i64_)
			return v;
		return isSigned ? b.CreateSExt(v, i64_) : b.CreateZExt(v, i64_);
	}

	Value *fromI64(IRBuilder<> &b, Value *v, Type *type)
	{
		if (type->isFloatTy())
			return b.CreateBitCast(b.CreateTrunc(v, b.getInt32Ty()), type);
		if (type->isIntegerTy(1))
			return b.CreateICmpNE(v, ConstantInt::get(i64_, 0));
		return b.CreateTrunc(v, type);
	}

	// mov.{u32,s32,b32,u64,s64,b64} $0, %sreg; (the idiom that reads %laneid,
	// %clock64, %smid, %warpid...): the same CSR read as clang's
	// llvm.nvvm.read.ptx.sreg intrinsics. nullptr when the text is no such move.
	Expected<Value *> lowerPtxSregMove(CallInst &call, IRBuilder<> &b, StringRef text)
	{
		StringRef rest = text;
		if (!rest.consume_front("mov."))
			return nullptr;
		StringRef kind = rest.take_until([](char c) { return c == ' ' || c == '\t'; });
		if (!(kind == "u32" || kind == "s32" || kind == "b32" || kind == "u64" ||
		      kind == "s64" || kind == "b64"))
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
			return refuse(call, "PTX inline assembly '" + text +
						    "': special register %" + ptxName +
						    " has no simtgpu equivalent");
		bool pure = !StringRef(reg).startswith("clock") && reg != "globaltimer";
		return fromI64(b, readCsr(b, *csr, pure), call.getType());
	}

	// Inline assembly in CUDA sources (clang's headers included) is PTX.
	// The few PTX statements with a SIMT counterpart are mapped; anything
	// else written in PTX is refused. RISC-V assembly passes through.
	// __nanosleep / PTX nanosleep.u32: warp.nanosleep, an instruction of simt_2.
	Expected<Value *> lowerNanosleep(CallInst &call, IRBuilder<> &b, Value *ns)
	{
		if (options_.arch < SIMTGPU_ARCH_SIMT2)
			return refuse(call, "__nanosleep needs simt_2 (warp.nanosleep); compile with "
					    "-arch=simt_2");
		customR(b, SIMTGPU_F3_WARP, SIMTGPU_WARP_NANOSLEEP, false,
			{b.CreateZExtOrTrunc(ns, i64_)});
		return nullptr;
	}

	// CUDA's SIMD-in-a-word intrinsics, as clang's headers write them.
	Expected<Value *> lowerPtxSimdVideo(CallInst &call, IRBuilder<> &b, StringRef text)
	{
		std::string problem;
		std::optional<PtxSimdVideo> insn = parsePtxSimdVideo(text, problem);
		if (!insn)
			return refuse(call, "PTX inline assembly '" + text + "': " + problem);
		if (call.arg_size() != 3 || !call.getType()->isIntegerTy(32))
			return refuse(call, "PTX inline assembly '" + text +
						    "' takes 32-bit operands d, a, b, c");
		return emitPtxSimdVideo(b, *insn, call.getArgOperand(0), call.getArgOperand(1),
					call.getArgOperand(2));
	}

	Expected<Value *> lowerInlineAsm(CallInst &call, IRBuilder<> &b)
	{
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
			return refuse(call, "PTX inline assembly '" + trimmed +
						    "' has no simtgpu equivalent (device inline assembly is "
						    "RISC-V)");
		return &call;
	}

	Expected<Value *> lower(CallInst &call, IRBuilder<> &b)
	{
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
			unsigned op = name.endswith("popc") ? SIMTGPU_BAR_POPC
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
			return b.CreateAlignedLoad(type, call.getArgOperand(0),
						   Align(align->getZExtValue()));
		}
		if (name.startswith("atomic.load.inc.32") || name.startswith("atomic.load.dec.32")) {
			auto op = name.startswith("atomic.load.inc") ? AtomicRMWInst::UIncWrap
								     : AtomicRMWInst::UDecWrap;
			return b.CreateAtomicRMW(op, call.getArgOperand(0), call.getArgOperand(1),
						 Align(4), AtomicOrdering::Monotonic);
		}
		return unsupported(call);
	}

	// bar.sync id, count (or bar.arrive): the operands' rules of PTX,
	// checked here when they are constants (the device checks the others,
	// SIMTGPU_EXC_BAD_BARRIER). count = nullptr: every thread of the CTA.
	Expected<Value *> lowerBarrier(CallInst &call, IRBuilder<> &b, unsigned funct, Value *id,
				       Value *count)
	{
		auto *constId = dyn_cast<ConstantInt>(id);
		auto *constCount = dyn_cast_or_null<ConstantInt>(count);
		const char *what = funct == SIMTGPU_BAR_ARRIVE ? "bar.arrive" : "bar.sync";
		if (constId && constId->getZExtValue() >= SIMTGPU_BARRIERS)
			return refuse(call, Twine(what) + ": barrier id " + Twine(constId->getZExtValue()) +
						    " is out of range (0.." + Twine(SIMTGPU_BARRIERS - 1) + ")");
		if (constCount && constCount->getZExtValue() % 32)
			return refuse(call, Twine(what) + ": thread count " +
						    Twine(constCount->getZExtValue()) +
						    " is not a multiple of the warp size (32)");
		if (funct == SIMTGPU_BAR_ARRIVE && (!count || (constCount && constCount->isZero())))
			return refuse(call, "bar.arrive needs a non-zero thread count");
		const bool plain = funct == SIMTGPU_BAR_SYNC && constId && constId->isZero() &&
				   (!count || (constCount && constCount->isZero()));
		if (plain) // __syncthreads
			return customR(b, SIMTGPU_F3_BARRIER, SIMTGPU_BAR_SYNC, false, {});
		if (options_.arch < SIMTGPU_ARCH_SIMT2)
			return refuse(call, "named barriers (" + Twine(what) +
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
					  bool &isBarrier)
	{
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
			return refuse(call, "PTX barrier '" + text +
						    "' is not of the form 'bar.sync a{, b};' or 'bar.arrive a, b;' "
						    "with integer or input operands");
		return lowerBarrier(call, b, funct, operands[0],
				    operands.size() > 1 ? operands[1] : nullptr);
	}

	// match.{any,all}.sync.{i32,i64[p]}(mask, value) and
	// redux.sync.<op>(value, mask): one match/redux instruction over the
	// 64-bit operand (32-bit values extended as the operation needs).
	Expected<Value *> lowerMatchOrRedux(CallInst &call, IRBuilder<> &b, StringRef name)
	{
		if (options_.arch < SIMTGPU_ARCH_SIMT2)
			return refuse(call, "'" + call.getCalledFunction()->getName() +
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

	Error unsupported(CallInst &call)
	{
		return refuse(call, "simtcc cannot map NVVM intrinsic '" +
					    call.getCalledFunction()->getName() +
					    "' to the simtgpu device");
	}

	// vprintf(format, args) -> __simt_vprintf(format, args, bytes): the
	// size of clang's packed argument buffer is known here, not at run time.
	Expected<Value *> lowerPrintf(CallInst &call, IRBuilder<> &b)
	{
		if (options_.arch < SIMTGPU_ARCH_SIMT2)
			return refuse(call, "printf needs -arch=simt_2 or newer (the envptr CSR)");
		Value *args = call.getArgOperand(1)->stripPointerCasts();
		uint64_t bytes = 0;
		if (auto *alloca = dyn_cast<AllocaInst>(args)) {
			bytes = *alloca->getAllocationSizeInBits(module_.getDataLayout()) / 8;
		} else if (!isa<ConstantPointerNull>(args)) {
			return refuse(call, "vprintf needs the argument buffer clang builds for printf");
		}
		FunctionCallee runtime = module_.getOrInsertFunction(
			"__simt_vprintf", b.getInt32Ty(), call.getArgOperand(0)->getType(),
			call.getArgOperand(1)->getType(), i64_);
		return b.CreateCall(runtime, {call.getArgOperand(0), call.getArgOperand(1),
					      ConstantInt::get(i64_, bytes)});
	}

	Expected<Value *> lowerAssert(CallInst &call)
	{
		if (options_.arch < SIMTGPU_ARCH_SIMT2)
			return refuse(call, "assert needs -arch=simt_2 or newer (the envptr CSR)");
		// The runtime implements __assertfail itself; keep the call.
		IRBuilder<> b(&call);
		SmallVector<Value *, 5> args(call.args());
		FunctionCallee runtime = module_.getOrInsertFunction(
			"__simt_assertfail", call.getFunctionType());
		return b.CreateCall(runtime, args);
	}

	Module &module_;
	const LoweringOptions &options_;
	Type *i64_;
};

// ------------------------------------------------------------------------
// 2. Address spaces
// ------------------------------------------------------------------------

std::vector<Function *> kernelsOf(Module &module);

class Flattener {
public:
	explicit Flattener(Module &module) : module_(module), flat_(PointerType::get(module.getContext(), 0))
	{
	}

	Expected<SharedLayout> run()
	{
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
	std::map<const GlobalVariable *, std::vector<Function *>> kernelsUsingShared()
	{
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
							work.insert(work.end(), addressTaken.begin(),
								    addressTaken.end());
					}
			}
			for (const Function *f : reached)
				for (const GlobalVariable *gv : direct[f])
					users[gv].push_back(kernel);
		}
		return users;
	}

	static bool isNonFlat(Type *type)
	{
		if (auto *vector = dyn_cast<VectorType>(type))
			type = vector->getElementType();
		return type->isPointerTy() && type->getPointerAddressSpace() != 0;
	}

	Type *flatType(Type *type)
	{
		if (auto *vector = dyn_cast<VectorType>(type))
			if (isNonFlat(vector))
				return VectorType::get(flat_, vector->getElementCount());
		return isNonFlat(type) ? flat_ : type;
	}

	static bool containsNonFlat(Type *type)
	{
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
	Error replaceGlobals(SharedLayout &layout)
	{
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
		uint64_t offset = 0; // the highest end
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
				ConstantInt::get(Type::getInt64Ty(module_.getContext()),
						 SIMTGPU_SHARED_BASE + at),
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
					module_, gv->getValueType(), gv->isConstant(), gv->getLinkage(),
					nullptr, "", gv, gv->getThreadLocalMode(), 0,
					gv->isExternallyInitialized());
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

	Expected<Constant *> flatten(Constant *c)
	{
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

	Function *flatIntrinsic(Function *old)
	{
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

	Error flattenFunction(Function &f)
	{
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
						return refuse(inst, "call through an address-space qualified "
								    "signature is not supported");
				}
				if (auto *alloca = dyn_cast<AllocaInst>(&inst);
				    alloca && alloca->getAddressSpace() != 0)
					return refuse(inst, "alloca outside the generic address space");
				if (auto *gep = dyn_cast<GetElementPtrInst>(&inst))
					if (containsNonFlat(gep->getSourceElementType()))
						return refuse(inst, "address-space qualified pointers inside "
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

// ------------------------------------------------------------------------
// 3. Kernel entries and table
// ------------------------------------------------------------------------

std::vector<Function *> kernelsOf(Module &module)
{
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

uint32_t maxThreadsOf(Module &module, Function *kernel)
{
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

Error lowerNvvmIntrinsics(Module &module, const LoweringOptions &options)
{
	return NvvmLowering(module, options).run();
}

Expected<SharedLayout> flattenAddressSpaces(Module &module)
{
	Flattener flattener(module);
	Expected<SharedLayout> layout = flattener.run();
	if (layout && !flattener.kept_.empty())
		appendToUsed(module, flattener.kept_);
	return layout;
}

Expected<std::vector<KernelInfo>> buildKernelEntries(Module &module, const SharedLayout &shared)
{
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
		info.static_shared_bytes = own != shared.kernel_bytes.end() ? own->second : shared.static_bytes;
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

uint32_t kernelTableStackFieldOffset(uint32_t index)
{
	return sizeof(simtgpu_ktab_header) + index * sizeof(simtgpu_ktab_entry) +
	       offsetof(simtgpu_ktab_entry, stack_bytes);
}

std::vector<uint8_t> encodeKernelTable(const std::vector<KernelInfo> &kernels, uint32_t arch)
{
	std::string strtab(1, '\0');
	auto addString = [&](const std::string &s) {
		uint32_t at = static_cast<uint32_t>(strtab.size());
		strtab += s;
		strtab.push_back('\0');
		return at;
	};
	std::vector<simtgpu_ktab_entry> entries;
	std::vector<simtgpu_ktab_param> params;
	for (const KernelInfo &k : kernels) {
		simtgpu_ktab_entry e{};
		e.name = addString(k.name);
		e.entry_symbol = addString(k.entry_symbol);
		e.param_count = static_cast<uint32_t>(k.params.size());
		e.param_first = static_cast<uint32_t>(params.size());
		e.param_bytes = k.param_bytes;
		e.static_shared_bytes = k.static_shared_bytes;
		e.stack_bytes = k.stack_bytes;
		e.max_threads_per_cta = k.max_threads_per_cta;
		entries.push_back(e);
		for (const KernelParam &p : k.params)
			params.push_back({p.offset, p.size, p.align, 0});
	}
	simtgpu_ktab_header h{};
	h.magic = SIMTGPU_KTAB_MAGIC;
	h.version = SIMTGPU_KTAB_VERSION;
	h.arch = arch;
	h.count = static_cast<uint32_t>(entries.size());
	h.entry_size = sizeof(simtgpu_ktab_entry);
	h.param_size = sizeof(simtgpu_ktab_param);
	h.strtab_offset = static_cast<uint32_t>(sizeof(h) + entries.size() * sizeof(simtgpu_ktab_entry) +
						params.size() * sizeof(simtgpu_ktab_param));
	h.strtab_size = static_cast<uint32_t>(strtab.size());

	std::vector<uint8_t> bytes;
	auto append = [&](const void *data, size_t size) {
		auto *p = static_cast<const uint8_t *>(data);
		bytes.insert(bytes.end(), p, p + size);
	};
	append(&h, sizeof(h)); // the host is little-endian, as is the device
	append(entries.data(), entries.size() * sizeof(simtgpu_ktab_entry));
	append(params.data(), params.size() * sizeof(simtgpu_ktab_param));
	append(strtab.data(), strtab.size());
	return bytes;
}

void emitKernelTable(Module &module, const std::vector<KernelInfo> &kernels, uint32_t arch)
{
	std::vector<uint8_t> bytes = encodeKernelTable(kernels, arch);
	Constant *data = ConstantDataArray::get(module.getContext(), bytes);
	auto *table = new GlobalVariable(module, data->getType(), true, GlobalValue::ExternalLinkage,
					 data, kKernelTableSymbol);
	table->setSection(SIMTGPU_KERNEL_TABLE_SECTION);
	table->setAlignment(Align(8));
	table->setDSOLocal(true);
	appendToUsed(module, {table});
}

namespace {

// The RISC-V psABI passes and returns 32-bit integers sign-extended to 64
// bits, signed or not, and code compiled for RISC-V (the device runtime's
// __nv_* functions, picolibc) relies on it. NVPTX IR carries no extension
// attribute on i32, so a value whose upper bits are not its sign (a
// truncated shuffle or vote result) would reach such a callee as garbage:
// every i32 parameter and result gets signext, on both sides of every call.
// (8- and 16-bit ones already carry clang's signext/zeroext.)
template <class Attributed> void signExtendI32(Attributed &f, FunctionType *type)
{
	for (unsigned i = 0; i < type->getNumParams(); ++i)
		if (type->getParamType(i)->isIntegerTy(32) &&
		    !f.getAttributes().hasParamAttr(i, Attribute::ZExt))
			f.addParamAttr(i, Attribute::SExt);
	if (type->getReturnType()->isIntegerTy(32) &&
	    !f.getAttributes().hasRetAttr(Attribute::ZExt))
		f.addRetAttr(Attribute::SExt);
}

} // namespace

void mergeWarpSyncs(Module &module)
{
	const std::string warpSync = (".insn r 0x0b, " + Twine(SIMTGPU_F3_WARP) + ", " +
				      Twine(SIMTGPU_WARP_SYNC) + ", x0,")
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
}

void lowerNativeAtomics(Module &module, const LoweringOptions &options)
{
	if (options.arch < SIMTGPU_ARCH_SIMT2)
		return;
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
			Value *old = fromRegister(
				b,
				emit(b, text, "=r,r,r,0,~{memory}",
				     {cas->getPointerOperand(), toRegister(b, cas->getNewValOperand()),
				      toRegister(b, cas->getCompareOperand())}),
				type);
			Value *result = b.CreateInsertValue(PoisonValue::get(cas->getType()), old, 0);
			result = b.CreateInsertValue(result, b.CreateICmpEQ(old, cas->getCompareOperand()), 1);
			cas->replaceAllUsesWith(result);
			cas->eraseFromParent();
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
		Value *old = emit(b, text, "=r,r,r,~{memory}",
				  {rmw->getPointerOperand(), toRegister(b, operand)});
		rmw->replaceAllUsesWith(fromRegister(b, old, type));
		rmw->eraseFromParent();
	}
}

void retargetModule(Module &module, TargetMachine &machine)
{
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
				if (Function *callee = call->getCalledFunction();
				    !callee || !callee->isIntrinsic())
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
}

Error refuseAt(const Instruction &inst, const Twine &what)
{
	return refuse(inst, what);
}

} // namespace simtcc
