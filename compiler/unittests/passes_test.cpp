// SPDX-License-Identifier: MIT
// Unit tests of simtcc's device passes on hand-written NVVM IR: what each
// pass maps, and that what it cannot map is an error naming the construct
// and its source location.
#include <cstring>

#include <gtest/gtest.h>

#include "managed_vars.h"
#include "passes/simt_passes.h"
#include "ptx_asm.h"
#include "simtgpu/hw.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/SourceMgr.h"

using namespace llvm;

namespace {

// A CUDA-like module: `body` goes inside kernel @k (one ptr argument %p),
// with a debug location !loc at k.cu:12:7 available to attach.
std::unique_ptr<Module> parse(LLVMContext &context, const std::string &globals,
                              const std::string &body, const std::string &declarations) {
    std::string text = R"(
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"
)" + globals + R"(
define void @k(ptr %p) !dbg !5 {
)" + body + R"(
  ret void
}
)" + declarations + R"(
!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3}
!nvvm.annotations = !{!4}
!0 = distinct !DICompileUnit(language: DW_LANG_C_plus_plus, file: !1, emissionKind: NoDebug)
!1 = !DIFile(filename: "k.cu", directory: "/src")
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = !{ptr @k, !"kernel", i32 1}
!5 = distinct !DISubprogram(name: "k", scope: !1, file: !1, line: 10, type: !6, unit: !0, spFlags: DISPFlagDefinition)
!6 = !DISubroutineType(types: !{})
!7 = !DILocation(line: 12, column: 7, scope: !5)
)";
    SMDiagnostic diagnostic;
    std::unique_ptr<Module> module = parseAssemblyString(text, diagnostic, context);
    if (!module)
        ADD_FAILURE() << diagnostic.getMessage().str() << " at line " << diagnostic.getLineNo();
    return module;
}

std::string errorText(Error error) {
    return error ? toString(std::move(error)) : std::string();
}

// Every inline-asm string called in function `name`.
std::vector<std::string> asmStrings(Module &module, StringRef name) {
    std::vector<std::string> strings;
    for (BasicBlock &bb : *module.getFunction(name))
        for (Instruction &inst : bb)
            if (auto *call = dyn_cast<CallInst>(&inst))
                if (auto *asm_ = dyn_cast<InlineAsm>(call->getCalledOperand()))
                    strings.push_back(asm_->getAsmString());
    return strings;
}

TEST(NvvmLowering, SpecialRegistersBecomeCsrReads) {
    LLVMContext context;
    auto module = parse(context, "",
                        "  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.y()\n"
                        "  %c = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.z()\n"
                        "  %s = add i32 %t, %c\n  store i32 %s, ptr %p",
                        "declare i32 @llvm.nvvm.read.ptx.sreg.tid.y()\n"
                        "declare i32 @llvm.nvvm.read.ptx.sreg.nctaid.z()");
    ASSERT_TRUE(module);
    ASSERT_EQ(errorText(simtcc::lowerNvvmIntrinsics(*module, {})), "");
    std::vector<std::string> strings = asmStrings(*module, "k");
    ASSERT_EQ(strings.size(), 2u);
    EXPECT_EQ(strings[0], "csrr $0, " + std::to_string(SIMTGPU_CSR_TID_Y));
    EXPECT_EQ(strings[1], "csrr $0, " + std::to_string(SIMTGPU_CSR_NCTAID_Z));
    EXPECT_EQ(module->getFunction("llvm.nvvm.read.ptx.sreg.tid.y"), nullptr);
    EXPECT_FALSE(verifyModule(*module, &errs()));
}

TEST(NvvmLowering, BarriersVotesAndShufflesBecomeCustomInstructions) {
    LLVMContext context;
    auto module =
        parse(context, "",
              "  call void @llvm.nvvm.barrier0()\n"
              "  %b = call i32 @llvm.nvvm.vote.ballot.sync(i32 -1, i1 true)\n"
              "  %s = call float @llvm.nvvm.shfl.sync.bfly.f32(i32 -1, float 1.0, i32 4, i32 31)\n"
              "  %n = call i32 @llvm.nvvm.barrier0.popc(i32 %b)\n"
              "  store float %s, ptr %p\n  store i32 %n, ptr %p",
              "declare void @llvm.nvvm.barrier0()\n"
              "declare i32 @llvm.nvvm.vote.ballot.sync(i32, i1)\n"
              "declare float @llvm.nvvm.shfl.sync.bfly.f32(i32, float, i32, i32)\n"
              "declare i32 @llvm.nvvm.barrier0.popc(i32)");
    ASSERT_TRUE(module);
    ASSERT_EQ(errorText(simtcc::lowerNvvmIntrinsics(*module, {})), "");
    std::vector<std::string> strings = asmStrings(*module, "k");
    ASSERT_EQ(strings.size(), 5u);
    EXPECT_EQ(strings[0], ".insn r 0x0b, 0, 0, x0, x0, x0"); // bar.sync
    EXPECT_EQ(strings[1], ".insn r 0x0b, 1, 0, $0, $1, $2"); // vote.ballot
    // shfl.sync waits for its member mask first, as PTX's does.
    EXPECT_EQ(strings[2], ".insn r 0x0b, 3, 1, x0, $0, x0");      // warp.sync
    EXPECT_EQ(strings[3], ".insn r4 0x0b, 2, 3, $0, $1, $2, $3"); // shfl.bfly
    EXPECT_EQ(strings[4], ".insn r 0x0b, 0, 1, $0, $1, x0");      // bar.popc
    // Convergent, so that no optimisation moves them across control flow.
    for (Instruction &inst : module->getFunction("k")->getEntryBlock()) {
        if (auto *call = dyn_cast<CallInst>(&inst); call && call->isInlineAsm()) {
            EXPECT_TRUE(call->isConvergent());
        }
    }
    EXPECT_FALSE(verifyModule(*module, &errs()));
}

// A 64-bit shuffle's two halves, then a second value's: one warp.sync
// serves every shuffle of one mask in a block; another mask, a vote between
// or a new block syncs again.
TEST(NvvmLowering, ShufflesOfOneMaskInABlockShareAWarpSync) {
    LLVMContext context;
    auto module =
        parse(context, "",
              "  %lo = call i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 1, i32 1, i32 31)\n"
              "  %hi = call i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 2, i32 1, i32 31)\n"
              "  %s = add i32 %lo, %hi\n"
              "  %x = call i32 @llvm.nvvm.shfl.sync.down.i32(i32 -1, i32 %s, i32 2, i32 31)\n"
              "  %h = call i32 @llvm.nvvm.shfl.sync.down.i32(i32 65535, i32 %x, i32 1, i32 31)\n"
              "  %b = call i32 @llvm.nvvm.vote.ballot.sync(i32 65535, i1 true)\n"
              "  %y = call i32 @llvm.nvvm.shfl.sync.down.i32(i32 65535, i32 %b, i32 1, i32 31)\n"
              "  br label %next\n"
              "next:\n"
              "  %z = call i32 @llvm.nvvm.shfl.sync.down.i32(i32 65535, i32 %y, i32 1, i32 31)\n"
              "  store i32 %z, ptr %p",
              "declare i32 @llvm.nvvm.shfl.sync.down.i32(i32, i32, i32, i32)\n"
              "declare i32 @llvm.nvvm.vote.ballot.sync(i32, i1)");
    ASSERT_TRUE(module);
    ASSERT_EQ(errorText(simtcc::lowerNvvmIntrinsics(*module, {})), "");
    simtcc::mergeWarpSyncs(*module);
    std::string shapes;
    for (Instruction &inst : instructions(*module->getFunction("k")))
        if (auto *call = dyn_cast<CallInst>(&inst); call && call->isInlineAsm()) {
            StringRef text = cast<InlineAsm>(call->getCalledOperand())->getAsmString();
            shapes += text.startswith(".insn r 0x0b, 3, 1,")    ? "S"
                      : text.startswith(".insn r4 0x0b, 2, 2,") ? "d"
                      : text.startswith(".insn r 0x0b, 1, 0,")  ? "v"
                                                                : "?";
        }
    // -1: sync, 3 shuffles; 65535: sync, shuffle, vote, sync, shuffle;
    // the next block: sync, shuffle.
    EXPECT_EQ(shapes, "SdddSdvSdSd");
    EXPECT_FALSE(verifyModule(*module, &errs()));
}

TEST(NvvmLowering, AtomicIncAndLdgBecomeIrOperations) {
    LLVMContext context;
    auto module = parse(context, "",
                        "  %o = call i32 @llvm.nvvm.atomic.load.inc.32.p0(ptr %p, i32 9)\n"
                        "  %v = call i32 @llvm.nvvm.ldg.global.i.i32.p0(ptr %p, i32 4)\n"
                        "  store i32 %v, ptr %p",
                        "declare i32 @llvm.nvvm.atomic.load.inc.32.p0(ptr, i32)\n"
                        "declare i32 @llvm.nvvm.ldg.global.i.i32.p0(ptr, i32)");
    ASSERT_TRUE(module);
    ASSERT_EQ(errorText(simtcc::lowerNvvmIntrinsics(*module, {})), "");
    bool inc = false, load = false;
    for (Instruction &inst : module->getFunction("k")->getEntryBlock()) {
        if (auto *rmw = dyn_cast<AtomicRMWInst>(&inst))
            inc = rmw->getOperation() == AtomicRMWInst::UIncWrap;
        if (auto *l = dyn_cast<LoadInst>(&inst))
            load = l->getAlign().value() == 4;
    }
    EXPECT_TRUE(inc);
    EXPECT_TRUE(load);
}

// The atomics RISC-V would expand into LR/SC loops become one instruction
// each on simt_2; the A extension's own AMOs stay for the backend.
TEST(NativeAtomics, CasFloatAddAndWrappingIncDecBecomeOneInstruction) {
    const std::string body = "  %c = cmpxchg ptr %p, i32 1, i32 2 seq_cst seq_cst\n"
                             "  %d = cmpxchg ptr %p, i64 1, i64 2 monotonic monotonic\n"
                             "  %f = atomicrmw fadd ptr %p, float 1.0 monotonic\n"
                             "  %g = atomicrmw fsub ptr %p, double 1.0 monotonic\n"
                             "  %i = atomicrmw uinc_wrap ptr %p, i32 7 monotonic\n"
                             "  %j = atomicrmw udec_wrap ptr %p, i32 7 monotonic\n"
                             "  %a = atomicrmw add ptr %p, i32 1 monotonic\n"
                             "  %ok = extractvalue { i32, i1 } %c, 1\n"
                             "  store i1 %ok, ptr %p\n"
                             "  store float %f, ptr %p";
    LLVMContext context;
    auto module = parse(context, "", body, "");
    ASSERT_TRUE(module);
    simtcc::lowerNativeAtomics(*module, {SIMTGPU_ARCH_SIMT2});
    std::vector<std::string> strings = asmStrings(*module, "k");
    const std::vector<std::string> want = {
        ".insn r 0x2f, 2, 0x17, $0, $1, $2", // amocas.w.aqrl
        ".insn r 0x2f, 3, 0x17, $0, $1, $2", // amocas.d.aqrl
        ".insn r 0x0b, 6, " + std::to_string(SIMTGPU_ATOM_FADD_S) + ", $0, $1, $2",
        ".insn r 0x0b, 6, " + std::to_string(SIMTGPU_ATOM_FADD_D) + ", $0, $1, $2",
        ".insn r 0x0b, 6, " + std::to_string(SIMTGPU_ATOM_INC_W) + ", $0, $1, $2",
        ".insn r 0x0b, 6, " + std::to_string(SIMTGPU_ATOM_DEC_W) + ", $0, $1, $2"};
    EXPECT_EQ(strings, want);
    unsigned left = 0;
    for (Instruction &inst : module->getFunction("k")->getEntryBlock())
        left += isa<AtomicCmpXchgInst>(inst) || isa<AtomicRMWInst>(inst);
    EXPECT_EQ(left, 1u); // the amoadd.w
    EXPECT_FALSE(verifyModule(*module, &errs()));

    // simt_1 has none of them: LLVM's expansion stays.
    LLVMContext context1;
    auto old = parse(context1, "", body, "");
    ASSERT_TRUE(old);
    simtcc::lowerNativeAtomics(*old, {SIMTGPU_ARCH_SIMT1});
    EXPECT_TRUE(asmStrings(*old, "k").empty());
}

TEST(NvvmLowering, UnsupportedIntrinsicIsAnErrorWithItsLocation) {
    LLVMContext context;
    auto module = parse(context, "",
                        "  %m = call i32 @llvm.nvvm.fns(i32 -1, i32 0, i32 5), !dbg !7\n"
                        "  store i32 %m, ptr %p",
                        "declare i32 @llvm.nvvm.fns(i32, i32, i32)");
    ASSERT_TRUE(module);
    std::string error = errorText(simtcc::lowerNvvmIntrinsics(*module, {}));
    EXPECT_NE(error.find("k.cu:12:7: error:"), std::string::npos) << error;
    EXPECT_NE(error.find("llvm.nvvm.fns"), std::string::npos) << error;
}

TEST(NvvmLowering, MatchAndReduxBecomeCustomInstructions) {
    LLVMContext context;
    auto module = parse(context, "",
                        "  %a = call i32 @llvm.nvvm.match.any.sync.i32(i32 -1, i32 5)\n"
                        "  %b = call i32 @llvm.nvvm.match.any.sync.i64(i32 65535, i64 -2)\n"
                        "  %c = call { i32, i1 } @llvm.nvvm.match.all.sync.i64p(i32 -1, i64 7)\n"
                        "  %cm = extractvalue { i32, i1 } %c, 0\n"
                        "  %cp = extractvalue { i32, i1 } %c, 1\n"
                        "  %d = call i32 @llvm.nvvm.redux.sync.umin(i32 %a, i32 -1)\n"
                        "  %e = call i32 @llvm.nvvm.redux.sync.max(i32 %b, i32 -1)\n"
                        "  %f = call i32 @llvm.nvvm.redux.sync.xor(i32 %cm, i32 -1)\n"
                        "  %g = zext i1 %cp to i32\n"
                        "  %s1 = add i32 %d, %e\n  %s2 = add i32 %f, %g\n  %s = add i32 %s1, %s2\n"
                        "  store i32 %s, ptr %p",
                        "declare i32 @llvm.nvvm.match.any.sync.i32(i32, i32)\n"
                        "declare i32 @llvm.nvvm.match.any.sync.i64(i32, i64)\n"
                        "declare { i32, i1 } @llvm.nvvm.match.all.sync.i64p(i32, i64)\n"
                        "declare i32 @llvm.nvvm.redux.sync.umin(i32, i32)\n"
                        "declare i32 @llvm.nvvm.redux.sync.max(i32, i32)\n"
                        "declare i32 @llvm.nvvm.redux.sync.xor(i32, i32)");
    ASSERT_TRUE(module);
    ASSERT_EQ(errorText(simtcc::lowerNvvmIntrinsics(*module, {})), "");
    std::vector<std::string> strings = asmStrings(*module, "k");
    ASSERT_EQ(strings.size(), 6u);
    EXPECT_EQ(strings[0], ".insn r 0x0b, 4, 0, $0, $1, $2"); // match.any
    EXPECT_EQ(strings[1], ".insn r 0x0b, 4, 0, $0, $1, $2");
    EXPECT_EQ(strings[2], ".insn r 0x0b, 4, 1, $0, $1, $2"); // match.all
    EXPECT_EQ(strings[3], ".insn r 0x0b, 5, 6, $0, $1, $2"); // redux.minu
    EXPECT_EQ(strings[4], ".insn r 0x0b, 5, 5, $0, $1, $2"); // redux.max
    EXPECT_EQ(strings[5], ".insn r 0x0b, 5, 3, $0, $1, $2"); // redux.xor
    EXPECT_EQ(module->getFunction("llvm.nvvm.match.all.sync.i64p"), nullptr);
    EXPECT_FALSE(verifyModule(*module, &errs()));
}

TEST(NvvmLowering, NamedBarriersAndTheirInlinePtxBecomeBarSync) {
    LLVMContext context;
    auto module = parse(
        context, "",
        "  %id = load i32, ptr %p\n"
        "  call void @llvm.nvvm.barrier.sync(i32 0)\n"
        "  call void @llvm.nvvm.barrier.sync(i32 %id)\n"
        "  call void @llvm.nvvm.barrier.sync.cnt(i32 3, i32 64)\n"
        "  call void @llvm.nvvm.barrier(i32 0, i32 96)\n"
        "  call void asm sideeffect \"bar.sync $0, $1;\", \"r,r,~{memory}\"(i32 %id, i32 32)\n"
        "  call void asm sideeffect \"bar.arrive 1, 64;\", \"~{memory}\"()\n"
        "  call void asm sideeffect \"barrier.cta.sync.aligned 0;\", \"\"()\n",
        "declare void @llvm.nvvm.barrier.sync(i32)\n"
        "declare void @llvm.nvvm.barrier.sync.cnt(i32, i32)\n"
        "declare void @llvm.nvvm.barrier(i32, i32)");
    ASSERT_TRUE(module);
    ASSERT_EQ(errorText(simtcc::lowerNvvmIntrinsics(*module, {})), "");
    std::vector<std::string> strings = asmStrings(*module, "k");
    ASSERT_EQ(strings.size(), 7u);
    EXPECT_EQ(strings[0], ".insn r 0x0b, 0, 0, x0, x0, x0"); // id 0: __syncthreads
    EXPECT_EQ(strings[1], ".insn r 0x0b, 0, 0, x0, $0, x0"); // id, every thread
    EXPECT_EQ(strings[2], ".insn r 0x0b, 0, 0, x0, $0, $1"); // id, count
    EXPECT_EQ(strings[3], ".insn r 0x0b, 0, 0, x0, $0, $1"); // barrier 0 of 96 threads
    EXPECT_EQ(strings[4], ".insn r 0x0b, 0, 0, x0, $0, $1");
    EXPECT_EQ(strings[5], ".insn r 0x0b, 0, 4, x0, $0, $1"); // bar.arrive
    EXPECT_EQ(strings[6], ".insn r 0x0b, 0, 0, x0, x0, x0");
    EXPECT_FALSE(verifyModule(*module, &errs()));
}

TEST(NvvmLowering, BadNamedBarrierOperandsAreCompileErrors) {
    struct Case {
        const char *body, *declarations, *error;
        uint32_t arch = SIMTGPU_ARCH_SIMT2;
    };
    const Case cases[] = {
        {"  call void @llvm.nvvm.barrier.sync(i32 16), !dbg !7\n",
         "declare void @llvm.nvvm.barrier.sync(i32)",
         "k.cu:12:7: error: bar.sync: barrier id 16 is out of range (0..15)"},
        {"  call void @llvm.nvvm.barrier.sync.cnt(i32 1, i32 48), !dbg !7\n",
         "declare void @llvm.nvvm.barrier.sync.cnt(i32, i32)",
         "k.cu:12:7: error: bar.sync: thread count 48 is not a multiple of the warp size (32)"},
        {"  call void asm sideeffect \"bar.sync 20, 64;\", \"\"(), !dbg !7\n", "",
         "k.cu:12:7: error: bar.sync: barrier id 20 is out of range (0..15)"},
        {"  call void asm sideeffect \"bar.arrive 2;\", \"\"(), !dbg !7\n", "",
         "k.cu:12:7: error: bar.arrive needs a non-zero thread count"},
        {"  call void asm sideeffect \"bar.sync 1, 32, 5;\", \"\"(), !dbg !7\n", "",
         "k.cu:12:7: error: PTX barrier 'bar.sync 1, 32, 5;' is not of the form"},
        {"  call void @llvm.nvvm.barrier.sync(i32 1), !dbg !7\n",
         "declare void @llvm.nvvm.barrier.sync(i32)",
         "k.cu:12:7: error: named barriers (bar.sync with an id or a thread count) need "
         "-arch=simt_2",
         SIMTGPU_ARCH_SIMT1},
        {"  %m = call i32 @llvm.nvvm.redux.sync.add(i32 1, i32 -1), !dbg !7\n",
         "declare i32 @llvm.nvvm.redux.sync.add(i32, i32)",
         "k.cu:12:7: error: 'llvm.nvvm.redux.sync.add' (__match_*_sync, __reduce_*_sync) "
         "needs -arch=simt_2",
         SIMTGPU_ARCH_SIMT1},
    };
    for (const Case &c : cases) {
        LLVMContext context;
        auto module = parse(context, "", c.body, c.declarations);
        ASSERT_TRUE(module) << c.body;
        std::string error = errorText(simtcc::lowerNvvmIntrinsics(*module, {c.arch}));
        EXPECT_NE(error.find(c.error), std::string::npos) << error;
    }
    // __syncthreads as barrier.sync 0 still works on simt_1.
    LLVMContext context;
    auto module = parse(context, "", "  call void @llvm.nvvm.barrier.sync(i32 0)\n",
                        "declare void @llvm.nvvm.barrier.sync(i32)");
    ASSERT_TRUE(module);
    EXPECT_EQ(errorText(simtcc::lowerNvvmIntrinsics(*module, {SIMTGPU_ARCH_SIMT1})), "");
}

TEST(NvvmLowering, PtxInlineAssemblyIsRefusedButActivemaskAndNanosleepAreMapped) {
    LLVMContext context;
    auto module =
        parse(context, "",
              "  %a = call i32 asm sideeffect \"activemask.b32 $0;\", \"=r\"()\n"
              "  store i32 %a, ptr %p\n"
              "  call void asm sideeffect \"nanosleep.u32 $0;\", \"r\"(i32 5)\n"
              "  call void asm sideeffect \"prefetch.global.L2 [$0];\", \"l\"(ptr %p), !dbg !7",
              "");
    ASSERT_TRUE(module);
    std::string error = errorText(simtcc::lowerNvvmIntrinsics(*module, {}));
    EXPECT_NE(error.find("k.cu:12:7: error: PTX inline assembly 'prefetch.global.L2 [$0];'"),
              std::string::npos)
        << error;
    std::vector<std::string> strings = asmStrings(*module, "k");
    ASSERT_GE(strings.size(), 2u);
    EXPECT_EQ(strings[0], ".insn r 0x0b, 3, 0, $0, x0, x0"); // warp.activemask
    EXPECT_EQ(strings[1], ".insn r 0x0b, 3, 2, x0, $0, x0"); // warp.nanosleep

    // warp.nanosleep is simt_2's.
    LLVMContext context1;
    auto old = parse(context1, "",
                     "  call void asm sideeffect \"nanosleep.u32 $0;\", \"r\"(i32 5), !dbg !7", "");
    ASSERT_TRUE(old);
    EXPECT_NE(errorText(simtcc::lowerNvvmIntrinsics(*old, {SIMTGPU_ARCH_SIMT1})).find("simt_2"),
              std::string::npos);
}

TEST(NvvmLowering, PrintfNeedsTheEnvironmentCsrOfSimt2) {
    LLVMContext context;
    const char *body = "  %args = alloca { i32, double }\n"
                       "  %r = call i32 @vprintf(ptr @fmt, ptr %args), !dbg !7";
    const char *globals = "@fmt = private constant [3 x i8] c\"%d\\00\"";
    auto old = parse(context, globals, body, "declare i32 @vprintf(ptr, ptr)");
    ASSERT_TRUE(old);
    std::string error = errorText(simtcc::lowerNvvmIntrinsics(*old, {SIMTGPU_ARCH_SIMT1}));
    EXPECT_NE(error.find("k.cu:12:7: error: printf needs -arch=simt_2"), std::string::npos)
        << error;

    auto current = parse(context, globals, body, "declare i32 @vprintf(ptr, ptr)");
    ASSERT_EQ(errorText(simtcc::lowerNvvmIntrinsics(*current, {SIMTGPU_ARCH_SIMT2})), "");
    // vprintf became the runtime call, with the packed size of the arguments.
    auto *call = dyn_cast<CallInst>(
        current->getFunction("k")->getEntryBlock().getTerminator()->getPrevNode());
    ASSERT_TRUE(call);
    EXPECT_EQ(call->getCalledFunction()->getName(), "__simt_vprintf");
    EXPECT_EQ(cast<ConstantInt>(call->getArgOperand(2))->getZExtValue(), 16u);
}

TEST(FlattenAddressSpaces, SharedVariablesGetWindowAddressesAndDynamicSharedFollows) {
    LLVMContext context;
    auto module =
        parse(context,
              "@a = addrspace(3) global [3 x i8] undef, align 1\n"
              "@b = addrspace(3) global [4 x double] undef, align 8\n"
              "@dyn = external addrspace(3) global [0 x i32], align 4\n"
              "@c = addrspace(4) externally_initialized global float 0.0, align 4\n"
              "@s = internal addrspace(4) global i32 5, align 4",
              "  store i8 1, ptr addrspacecast (ptr addrspace(3) @a to ptr)\n"
              "  store double 2.0, ptr addrspacecast (ptr addrspace(3) @b to ptr)\n"
              "  %d = getelementptr i32, ptr addrspacecast (ptr addrspace(3) @dyn to ptr), i64 2\n"
              "  store i32 3, ptr %d\n"
              "  %v = load float, ptr addrspacecast (ptr addrspace(4) @c to ptr)\n"
              "  %w = load i32, ptr addrspacecast (ptr addrspace(4) @s to ptr)\n"
              "  store i32 %w, ptr %p\n"
              "  store float %v, ptr %p",
              "");
    ASSERT_TRUE(module);
    Expected<simtcc::SharedLayout> layout = simtcc::flattenAddressSpaces(*module);
    ASSERT_TRUE(bool(layout)) << toString(layout.takeError());
    // @a at 0 (3 bytes), @b aligned to 8 (32 bytes): 40, rounded to 16.
    EXPECT_EQ(layout->static_bytes, 48u);
    EXPECT_EQ(layout->dynamic_offset, 48u);
    std::vector<uint64_t> addresses;
    for (Instruction &inst : module->getFunction("k")->getEntryBlock()) {
        Value *pointer = nullptr;
        if (auto *store = dyn_cast<StoreInst>(&inst))
            pointer = store->getPointerOperand();
        if (auto *gep = dyn_cast<GetElementPtrInst>(&inst))
            pointer = gep->getPointerOperand();
        if (auto *ce = dyn_cast_or_null<ConstantExpr>(pointer))
            if (ce->getOpcode() == Instruction::IntToPtr)
                addresses.push_back(cast<ConstantInt>(ce->getOperand(0))->getZExtValue());
        for (Value *operand : inst.operands()) {
            if (auto *type = dyn_cast<PointerType>(operand->getType())) {
                EXPECT_EQ(type->getAddressSpace(), 0u);
            }
        }
    }
    ASSERT_EQ(addresses.size(), 3u);
    EXPECT_EQ(addresses[0], SIMTGPU_SHARED_BASE + 0);
    EXPECT_EQ(addresses[1], SIMTGPU_SHARED_BASE + 8);
    EXPECT_EQ(addresses[2], SIMTGPU_SHARED_BASE + 48);
    GlobalVariable *c = module->getNamedGlobal("c");
    ASSERT_TRUE(c);
    EXPECT_EQ(c->getAddressSpace(), 0u);
    EXPECT_EQ(module->getNamedGlobal("a"), nullptr);
    // A static __constant__ stays, by name, writable by the host.
    GlobalVariable *s = module->getNamedGlobal("s");
    ASSERT_TRUE(s);
    EXPECT_TRUE(s->hasExternalLinkage());
    EXPECT_TRUE(s->isExternallyInitialized());
    ASSERT_TRUE(module->getNamedGlobal("llvm.used"));
    EXPECT_FALSE(verifyModule(*module, &errs()));
}

// A file of many kernels (CUB's) each with its own __shared__ storage: a
// kernel's static bytes are what it reaches, and variables that no kernel
// shares overlap; one a helper of both kernels uses is placed for both.
TEST(FlattenAddressSpaces, EachKernelGetsItsOwnSharedLayout) {
    LLVMContext context;
    auto module = parse(context,
                        "@a = addrspace(3) global [1024 x i8] undef, align 4\n"
                        "@b = addrspace(3) global [2048 x i8] undef, align 4\n"
                        "@both = addrspace(3) global [16 x i8] undef, align 4",
                        "  store i8 1, ptr addrspacecast (ptr addrspace(3) @a to ptr)\n"
                        "  call void @helper()",
                        "define ptx_kernel void @k2() {\n"
                        "  store i8 2, ptr addrspacecast (ptr addrspace(3) @b to ptr)\n"
                        "  call void @helper()\n"
                        "  ret void\n"
                        "}\n"
                        "define internal void @helper() {\n"
                        "  store i8 3, ptr addrspacecast (ptr addrspace(3) @both to ptr)\n"
                        "  ret void\n"
                        "}\n");
    ASSERT_TRUE(module);
    const Function *k = module->getFunction("k"), *k2 = module->getFunction("k2");
    Expected<simtcc::SharedLayout> layout = simtcc::flattenAddressSpaces(*module);
    ASSERT_TRUE(bool(layout)) << toString(layout.takeError());
    // @a and @b both at 0; @both after the larger (2048).
    EXPECT_EQ(layout->kernel_bytes.at(k), 2064u);
    EXPECT_EQ(layout->kernel_bytes.at(k2), 2064u);
    EXPECT_EQ(layout->static_bytes, 2064u);
    auto storedAt = [&](const char *function) -> uint64_t {
        for (Instruction &inst : instructions(*module->getFunction(function)))
            if (auto *store = dyn_cast<StoreInst>(&inst))
                if (auto *ce = dyn_cast<ConstantExpr>(store->getPointerOperand()))
                    return cast<ConstantInt>(ce->getOperand(0))->getZExtValue() -
                           SIMTGPU_SHARED_BASE;
        return uint64_t(~0ull);
    };
    EXPECT_EQ(storedAt("k"), 0u);
    EXPECT_EQ(storedAt("k2"), 0u);
    EXPECT_EQ(storedAt("helper"), 2048u);
    EXPECT_FALSE(verifyModule(*module, &errs()));
}

// Inline PTX as IR: with constant operands the builder folds the
// translation, so each case's stored value is PTX's answer.
uint64_t translatedConstant(const std::string &type, const std::string &text,
                            const std::string &constraints, const std::string &operands) {
    LLVMContext context;
    auto module =
        parse(context, "",
              "  %r = call " + type + " asm sideeffect \"" + text + "\", \"" + constraints + "\"(" +
                  operands + "), !dbg !7\n  store " + type + " %r, ptr %p",
              "");
    if (!module)
        return ~0ull;
    if (Error e = simtcc::translateInlinePtx(*module)) {
        ADD_FAILURE() << toString(std::move(e));
        return ~0ull;
    }
    for (Instruction &inst : instructions(*module->getFunction("k")))
        if (auto *store = dyn_cast<StoreInst>(&inst)) {
            if (auto *c = dyn_cast<ConstantInt>(store->getValueOperand()))
                return c->getZExtValue();
            ADD_FAILURE() << text << ": not folded to a constant";
        }
    return ~0ull;
}

TEST(PtxTranslate, BitFieldAndVideoInstructionsComputePtxAnswers) {
    // bfe: bits 8..19 of 0xabcd1234, zero- and sign-extended; a length
    // past the top takes the bits there are, the sign from bit 31.
    EXPECT_EQ(translatedConstant("i32", "bfe.u32 $0, $1, $2, $3;", "=r,r,r,r",
                                 "i32 u0xabcd1234, i32 8, i32 12"),
              0xd12u);
    EXPECT_EQ(translatedConstant("i32", "bfe.s32 $0, $1, $2, $3;", "=r,r,r,r",
                                 "i32 u0xabcd1234, i32 8, i32 12"),
              0xfffffd12u);
    EXPECT_EQ(translatedConstant("i32", "bfe.s32 $0, $1, $2, $3;", "=r,r,r,r",
                                 "i32 u0xabcd1234, i32 28, i32 10"),
              0xfffffffau);
    EXPECT_EQ(translatedConstant("i32", "bfe.u32 $0, $1, $2, $3;", "=r,r,r,r",
                                 "i32 u0xabcd1234, i32 40, i32 4"),
              0u);
    // bfi: 4 bits of 0xf into 0x12345678 at bit 8.
    EXPECT_EQ(translatedConstant("i32", "bfi.b32 $0, $1, $2, $3, $4;", "=r,r,r,r,r",
                                 "i32 15, i32 u0x12345678, i32 8, i32 4"),
              0x12345f78u);
    // prmt: bytes 7,0,5,2 of {b, a} = {0x44332211 (b), 0x88776655... }.
    EXPECT_EQ(translatedConstant("i32", "prmt.b32 $0, $1, $2, $3;", "=r,r,r,r",
                                 "i32 u0x44332211, i32 u0x88776655, i32 u0x2507"),
              0x33661188u);
    // prmt with a sign-replicating selector (8 | 3: byte 3's sign).
    EXPECT_EQ(translatedConstant("i32", "prmt.b32 $0, $1, $2, $3;", "=r,r,r,r",
                                 "i32 u0x80000000, i32 0, i32 u0xb"),
              0xffu);
    // lop3 with LUT 0x96: a ^ b ^ c.
    EXPECT_EQ(translatedConstant("i32", "lop3.b32 $0, $1, $2, $3, 0x96;", "=r,r,r,r",
                                 "i32 u0xf0f0f0f0, i32 u0xcccccccc, i32 u0xaaaaaaaa"),
              0xf0f0f0f0u ^ 0xccccccccu ^ 0xaaaaaaaau);
    // vshr .clamp: a shift of 40 is a shift of 32; then + c.
    EXPECT_EQ(translatedConstant("i32", "vshr.u32.u32.u32.clamp.add $0, $1, $2, $3;", "=r,r,r,r",
                                 "i32 u0x80000000, i32 40, i32 7"),
              7u);
    EXPECT_EQ(translatedConstant("i32", "vadd.u32.u32.u32.add $0, $1, $2, $3;", "=r,r,r,r",
                                 "i32 1, i32 2, i32 3"),
              6u);
    EXPECT_EQ(
        translatedConstant("i32", "mul.hi.u32 $0, $1, $2;", "=r,r,r", "i32 u0x80000000, i32 6"),
        3u);
    // A block with its own registers, a predicate and a guarded add.
    EXPECT_EQ(
        translatedConstant("i32",
                           "{ .reg .u32 r0; .reg .pred p; setp.lt.u32 p, $1, $2; mov.u32 r0, $1; "
                           "@p add.u32 r0, r0, 100; mov.u32 $0, r0; }",
                           "=r,r,r", "i32 5, i32 9"),
        105u);
    // mov.b64 packs {lo, hi}.
    EXPECT_EQ(translatedConstant("i64", "mov.b64 $0, {$1, $2};", "=l,r,r", "i32 1, i32 2"),
              0x200000001ull);
}

TEST(PtxTranslate, UnsupportedPtxIsAnErrorNamingTheInstructionAndItsLine) {
    LLVMContext context;
    auto module = parse(
        context, "",
        "  %r = call i32 asm sideeffect \"tex.1d.v4.f32.s32 $0, [$1];\", \"=r,l\"(ptr %p), !dbg !7",
        "");
    ASSERT_TRUE(module);
    std::string error = errorText(simtcc::translateInlinePtx(*module));
    EXPECT_NE(error.find("k.cu:12:7: error: PTX inline assembly: instruction 'tex.1d.v4.f32.s32' "
                         "is not supported"),
              std::string::npos)
        << error;
    // Shuffles become the NVVM intrinsics, with PTX's predicate computed.
    LLVMContext context2;
    auto shfl =
        parse(context2, "",
              "  %r = call i32 asm sideeffect \"{ .reg .u32 r0; .reg .pred p; "
              "shfl.sync.up.b32 r0|p, $1, 1, 0, -1; @p add.u32 r0, r0, $1; mov.u32 $0, r0; }\", "
              "\"=r,r\"(i32 7), !dbg !7\n  store i32 %r, ptr %p",
              "");
    ASSERT_TRUE(shfl);
    ASSERT_FALSE(errorText(simtcc::translateInlinePtx(*shfl)).size());
    bool intrinsic = false;
    for (Instruction &inst : instructions(*shfl->getFunction("k")))
        if (auto *call = dyn_cast<CallInst>(&inst)) {
            EXPECT_FALSE(call->isInlineAsm());
            if (call->getCalledFunction() &&
                call->getCalledFunction()->getName() == "llvm.nvvm.shfl.sync.up.i32")
                intrinsic = true;
        }
    EXPECT_TRUE(intrinsic);
    EXPECT_FALSE(verifyModule(*shfl, &errs()));
}

// clang keeps a namespace-scope `__device__ __shared__` variable in
// llvm.compiler.used, like every __device__ one (issue 18.1): its window
// address there was an invalid member, an internal error.
TEST(FlattenAddressSpaces, SharedVariablesLeaveTheUsedLists) {
    LLVMContext context;
    auto module =
        parse(context,
              "@mt = addrspace(3) externally_initialized global [64 x i32] undef, align 4\n"
              "@g = addrspace(1) externally_initialized global i32 0, align 4\n"
              "@llvm.compiler.used = appending global [2 x ptr] ["
              "ptr addrspacecast (ptr addrspace(3) @mt to ptr), "
              "ptr addrspacecast (ptr addrspace(1) @g to ptr)], section \"llvm.metadata\"",
              "  store i32 1, ptr addrspacecast (ptr addrspace(3) @mt to ptr)\n"
              "  store i32 2, ptr addrspacecast (ptr addrspace(1) @g to ptr)",
              "");
    ASSERT_TRUE(module);
    Expected<simtcc::SharedLayout> layout = simtcc::flattenAddressSpaces(*module);
    ASSERT_TRUE(bool(layout)) << toString(layout.takeError());
    EXPECT_EQ(layout->static_bytes, 256u);
    EXPECT_FALSE(verifyModule(*module, &errs()));
    GlobalVariable *used = module->getNamedGlobal("llvm.compiler.used");
    ASSERT_TRUE(used);
    auto *members = cast<ConstantArray>(used->getInitializer());
    ASSERT_EQ(members->getNumOperands(), 1u);
    EXPECT_EQ(members->getOperand(0)->stripPointerCasts(), module->getNamedGlobal("g"));
}

TEST(KernelEntries, ParametersAreLaidOutAtNaturalAlignment) {
    LLVMContext context;
    std::string text = R"(
target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"
%struct.S = type { i8, double, [3 x i32] }
define void @_Z1kcd1Si(i8 %c, double %d, ptr byval(%struct.S) align 8 %s, i32 %i) {
  ret void
}
!nvvm.annotations = !{!0}
!0 = !{ptr @_Z1kcd1Si, !"kernel", i32 1, !"maxntidx", i32 256}
)";
    SMDiagnostic diagnostic;
    std::unique_ptr<Module> module = parseAssemblyString(text, diagnostic, context);
    ASSERT_TRUE(module);
    Expected<std::vector<simtcc::KernelInfo>> kernels =
        simtcc::buildKernelEntries(*module, {64, 64, {}});
    ASSERT_TRUE(bool(kernels)) << toString(kernels.takeError());
    ASSERT_EQ(kernels->size(), 1u);
    const simtcc::KernelInfo &k = (*kernels)[0];
    EXPECT_EQ(k.name, "_Z1kcd1Si");
    EXPECT_EQ(k.entry_symbol, "__simt_entry__Z1kcd1Si");
    EXPECT_EQ(k.static_shared_bytes, 64u);
    EXPECT_EQ(k.max_threads_per_cta, 256u);
    ASSERT_EQ(k.params.size(), 4u);
    // char at 0; double at 8; struct {i8, double, [3 x i32]} (32 bytes) at 16; int at 48.
    EXPECT_EQ(k.params[0].offset, 0u);
    EXPECT_EQ(k.params[0].size, 1u);
    EXPECT_EQ(k.params[1].offset, 8u);
    EXPECT_EQ(k.params[2].offset, 16u);
    EXPECT_EQ(k.params[2].size, 32u);
    EXPECT_EQ(k.params[2].align, 8u);
    EXPECT_EQ(k.params[3].offset, 48u);
    EXPECT_EQ(k.param_bytes, 52u);
    Function *entry = module->getFunction("__simt_entry__Z1kcd1Si");
    ASSERT_TRUE(entry);
    EXPECT_TRUE(entry->doesNotReturn());
    std::vector<std::string> strings = asmStrings(*module, entry->getName());
    ASSERT_EQ(strings.size(), 2u);
    EXPECT_EQ(strings[0], "mv tp, $0");                         // picolibc's errno lives at tp
    EXPECT_NE(strings[1].find("li a7, 93"), std::string::npos); // exit(0)
    EXPECT_FALSE(verifyModule(*module, &errs()));
}

TEST(KernelTable, EncodingFollowsHwH) {
    simtcc::KernelInfo a;
    a.name = "_Z3fooi";
    a.entry_symbol = "__simt_entry__Z3fooi";
    a.params = {{0, 4, 4}};
    a.param_bytes = 4;
    a.static_shared_bytes = 128;
    a.stack_bytes = 96;
    simtcc::KernelInfo b = a;
    b.name = "bar";
    b.entry_symbol = "__simt_entry_bar";
    b.params = {{0, 8, 8}, {8, 24, 8}};
    b.param_bytes = 32;
    std::vector<uint8_t> bytes = simtcc::encodeKernelTable({a, b}, SIMTGPU_ARCH_SIMT2);

    simtgpu_ktab_header h;
    std::memcpy(&h, bytes.data(), sizeof(h));
    EXPECT_EQ(h.magic, SIMTGPU_KTAB_MAGIC);
    EXPECT_EQ(h.version, static_cast<uint32_t>(SIMTGPU_KTAB_VERSION));
    EXPECT_EQ(h.arch, static_cast<uint32_t>(SIMTGPU_ARCH_SIMT2));
    EXPECT_EQ(h.count, 2u);
    EXPECT_EQ(h.entry_size, sizeof(simtgpu_ktab_entry));
    EXPECT_EQ(h.param_size, sizeof(simtgpu_ktab_param));
    EXPECT_EQ(h.strtab_offset + h.strtab_size, bytes.size());
    simtgpu_ktab_entry e[2];
    std::memcpy(e, bytes.data() + sizeof(h), sizeof(e));
    const char *strtab = reinterpret_cast<const char *>(bytes.data() + h.strtab_offset);
    EXPECT_STREQ(strtab + e[0].name, "_Z3fooi");
    EXPECT_STREQ(strtab + e[1].entry_symbol, "__simt_entry_bar");
    EXPECT_EQ(e[1].param_first, 1u);
    EXPECT_EQ(e[1].param_count, 2u);
    EXPECT_EQ(e[0].stack_bytes, 96u);
    simtgpu_ktab_param p;
    std::memcpy(&p, bytes.data() + sizeof(h) + sizeof(e) + 2 * sizeof(p), sizeof(p));
    EXPECT_EQ(p.offset, 8u);
    EXPECT_EQ(p.size, 24u);
    EXPECT_EQ(simtcc::kernelTableStackFieldOffset(1),
              sizeof(h) + sizeof(simtgpu_ktab_entry) + offsetof(simtgpu_ktab_entry, stack_bytes));
}

} // namespace

namespace {

std::string escaped(const std::string &preprocessed) {
    clang::LangOptions language;
    language.CPlusPlus = 1;
    language.CPlusPlus17 = 1;
    std::optional<std::string> text = simtcc::escapePtxSpecialRegisters(preprocessed, language);
    return text ? *text : "unchanged";
}

} // namespace

// nvcc's `%globaltimer` (one `%`) becomes clang's `%%globaltimer`, in the
// templates of extended asm only, for PTX special register names only.
TEST(PtxAsm, LoneEscapesBeforeSpecialRegistersAreDoubled) {
    EXPECT_EQ(escaped(R"(asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t));)"),
              R"(asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));)");
    EXPECT_EQ(escaped(R"(__asm__ __volatile__("mov.u32 %0, %tid.x;" :: "r"(x));)"),
              R"(__asm__ __volatile__("mov.u32 %0, %%tid.x;" :: "r"(x));)");
    // A template in several literals, the `%` ending one of them.
    EXPECT_EQ(
        escaped(
            R"(asm("mov.u32 %0, %" "laneid;\n\t" "mov.u32 %1, %lanemask_lt;" : "=r"(a), "=r"(b));)"),
        R"(asm("mov.u32 %0, %%" "laneid;\n\t" "mov.u32 %1, %%lanemask_lt;" : "=r"(a), "=r"(b));)");
    EXPECT_EQ(escaped(R"(asm("mov.u32 %0, %envreg3; mov.u32 %1, %pm0_64;" : "=r"(a), "=r"(b));)"),
              R"(asm("mov.u32 %0, %%envreg3; mov.u32 %1, %%pm0_64;" : "=r"(a), "=r"(b));)");
}

TEST(PtxAsm, EverythingElseIsLeftAsItIs) {
    // Already escaped, operands and modifiers, names that are no register.
    EXPECT_EQ(escaped(R"(asm("mov.u32 %0, %%laneid;" : "=r"(l));)"), "unchanged");
    EXPECT_EQ(escaped(R"(asm("add %0, %1, %[x]; %= %l0 %c1" : "=r"(l) : "r"(a), [x] "r"(b));)"),
              "unchanged");
    EXPECT_EQ(escaped(R"(asm("mov.u32 %0, %laneidx; %clocks" : "=r"(l));)"), "unchanged");
    // "%%%laneid": a literal `%`, then an escape.
    EXPECT_EQ(escaped(R"(asm("%%%laneid" : "=r"(l));)"), R"(asm("%%%%laneid" : "=r"(l));)");
    // Basic asm (no operands) reads `%` as text already; strings elsewhere
    // and comments are no templates.
    EXPECT_EQ(escaped(R"(asm volatile("membar %laneid;");)"), "unchanged");
    EXPECT_EQ(escaped(R"(printf("%laneid"); // asm("%laneid" : "=r"(x)))"), "unchanged");
    EXPECT_EQ(escaped("# 1 \"k.cu\"\nconst char *s = \"asm(\\\"%laneid\\\" : )\";"), "unchanged");
}

namespace {

// A host module as clang's CUDA host pass emits it for
// `__managed__ int counter = 5;` read by host code: the shadow, its
// annotation and its registration.
const char *kManagedHostModule = R"(
@counter = internal global i32 undef, align 4
@.str = private unnamed_addr constant [16 x i8] c"simtgpu.managed\00", section "llvm.metadata"
@.file = private unnamed_addr constant [5 x i8] c"k.cu\00", section "llvm.metadata"
@name = private unnamed_addr constant [8 x i8] c"counter\00"
@llvm.global.annotations = appending global [1 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } { ptr @counter, ptr @.str, ptr @.file, i32 3, ptr null }], section "llvm.metadata"

define i32 @read() {
  %v = load i32, ptr @counter
  ret i32 %v
}

define ptr @address() {
  ret ptr getelementptr (i8, ptr @counter, i64 0)
}

define void @register(ptr %handle) {
  call void @__cudaRegisterVar(ptr %handle, ptr @counter, ptr @name, ptr @name, i32 0, i64 4, i32 0, i32 0)
  ret void
}

declare void @__cudaRegisterVar(ptr, ptr, ptr, ptr, i32, i64, i32, i32)
)";

} // namespace

// Host accesses go through counter.managed_ptr (the runtime's slow path
// while it is null), and the registration names that pointer.
TEST(ManagedVariables, HostAccessesGoThroughTheRegisteredPointer) {
    LLVMContext context;
    SMDiagnostic diagnostic;
    std::unique_ptr<Module> module = parseAssemblyString(kManagedHostModule, diagnostic, context);
    ASSERT_TRUE(module);
    ASSERT_TRUE(simtcc::hasManagedVariables(*module));
    ASSERT_EQ(errorText(simtcc::lowerManagedVariablesForHost(*module)), "");
    EXPECT_FALSE(verifyModule(*module, &errs()));
    GlobalVariable *slot = module->getNamedGlobal("counter.managed_ptr");
    ASSERT_TRUE(slot);
    // Every use of the shadow in code is gone (the annotation keeps it).
    for (User *user : module->getNamedGlobal("counter")->users())
        EXPECT_FALSE(isa<Instruction>(user));
    EXPECT_TRUE(module->getFunction("__simtgpuManagedVarAddress"));
    Function *registerManaged = module->getFunction("__cudaRegisterManagedVar");
    ASSERT_TRUE(registerManaged);
    ASSERT_EQ(registerManaged->getNumUses(), 1u);
    auto *call = cast<CallInst>(*registerManaged->user_begin());
    EXPECT_EQ(call->getArgOperand(1), slot);
    EXPECT_TRUE(module->getFunction("__cudaRegisterVar")->use_empty());
    // read() and address() both reach the variable through the slot.
    for (const char *name : {"read", "address"}) {
        bool calls_access = false;
        for (Instruction &inst : instructions(*module->getFunction(name)))
            if (auto *c = dyn_cast<CallInst>(&inst))
                calls_access |= c->getCalledFunction() &&
                                c->getCalledFunction()->getName() == "__simtgpu_managed_access" &&
                                c->getArgOperand(0) == slot;
        EXPECT_TRUE(calls_access) << name;
    }
}

// Device side: the storage keeps the initial value as NAME.managed and a
// pointer variable takes the name; a global initialiser that holds the
// address is refused, naming both.
TEST(ManagedVariables, DeviceStorageBecomesAPointerVariable) {
    const char *text = R"(
@counter = addrspace(1) externally_initialized global i32 5, align 4
@.str = private unnamed_addr constant [16 x i8] c"simtgpu.managed\00", section "llvm.metadata"
@llvm.global.annotations = appending global [1 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } { ptr addrspacecast (ptr addrspace(1) @counter to ptr), ptr @.str, ptr null, i32 3, ptr null }], section "llvm.metadata"

define void @bump() {
  %v = load i32, ptr addrspacecast (ptr addrspace(1) @counter to ptr)
  %w = add i32 %v, 1
  store i32 %w, ptr addrspacecast (ptr addrspace(1) @counter to ptr)
  ret void
}
)";
    LLVMContext context;
    SMDiagnostic diagnostic;
    std::unique_ptr<Module> module = parseAssemblyString(text, diagnostic, context);
    ASSERT_TRUE(module);
    ASSERT_EQ(errorText(simtcc::lowerManagedVariablesForDevice(*module)), "");
    EXPECT_FALSE(verifyModule(*module, &errs()));
    GlobalVariable *storage = module->getNamedGlobal("counter.managed");
    GlobalVariable *pointer = module->getNamedGlobal("counter");
    ASSERT_TRUE(storage && pointer);
    EXPECT_EQ(cast<ConstantInt>(storage->getInitializer())->getZExtValue(), 5u);
    EXPECT_TRUE(pointer->getValueType()->isPointerTy());
    EXPECT_TRUE(pointer->isExternallyInitialized());
    unsigned loads = 0;
    for (Instruction &inst : instructions(*module->getFunction("bump"))) {
        for (Value *operand : inst.operands())
            EXPECT_NE(operand->stripPointerCasts(), storage);
        if (auto *load = dyn_cast<LoadInst>(&inst))
            loads += load->getPointerOperand() == pointer;
    }
    EXPECT_EQ(loads, 2u);

    const char *initialiser = R"(
@counter = addrspace(1) global i32 5, align 4
@where = addrspace(1) global ptr addrspacecast (ptr addrspace(1) @counter to ptr)
@.str = private unnamed_addr constant [16 x i8] c"simtgpu.managed\00", section "llvm.metadata"
@llvm.global.annotations = appending global [1 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } { ptr addrspacecast (ptr addrspace(1) @counter to ptr), ptr @.str, ptr null, i32 3, ptr null }], section "llvm.metadata"
)";
    LLVMContext context2;
    std::unique_ptr<Module> refused = parseAssemblyString(initialiser, diagnostic, context2);
    ASSERT_TRUE(refused);
    EXPECT_NE(errorText(simtcc::lowerManagedVariablesForDevice(*refused))
                  .find("the address of __managed__ variable 'counter' in the initialiser of "
                        "'where' is not supported"),
              std::string::npos);
}
