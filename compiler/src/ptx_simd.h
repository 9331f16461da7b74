// SPDX-License-Identifier: MIT
// PTX's SIMD video instructions (vadd2, vsub4, vabsdiff2, vmin4, vmax2,
// vavrg4, vset2, ...): CUDA's SIMD-in-a-word intrinsics (__vadd2, __vmaxs4,
// __vcmpgeu2, __vsads4, ...) are written with them in clang's
// __clang_cuda_device_functions.h, and hand-written inline PTX uses them
// too. simtcc reads the statement and builds the same computation in LLVM
// IR on the lanes of the 32-bit word (2 halfwords or 4 bytes); RISC-V code
// generation then does it with ordinary integer instructions.
#pragma once

#include <optional>
#include <string>

#include "llvm/ADT/StringRef.h"
#include "llvm/IR/IRBuilder.h"

namespace simtcc {

// One parsed statement `vOP{2,4}.dtype.atype.btype{.sat}{.add} d, a, b, c;`
// (vset: `vset{2,4}.atype.btype.cmp{.add} d, a, b, c;`).
struct PtxSimdVideo {
    enum class Op { Add, Sub, AbsDiff, Min, Max, Average, Set };
    enum class Compare { Eq, Ne, Lt, Le, Gt, Ge };
    Op op;
    unsigned lanes;          // 2 (halfwords) or 4 (bytes)
    bool operands_signed;    // atype/btype .s32
    bool result_signed;      // dtype .s32 (where saturation clamps)
    bool saturate = false;   // .sat: clamp each lane to the result type
    bool accumulate = false; // .add: d = c + the sum of the lanes' results
    Compare compare = Compare::Eq;
};

// True when `text` (an inline-asm template) is a SIMD video instruction,
// whether or not simtcc supports its form.
bool isPtxSimdVideo(llvm::StringRef text);

// The statement in `text`, with its operands exactly `$0,$1,$2,$3` (d, a,
// b, c); std::nullopt with `problem` set for a form simtcc does not
// support (lane selectors, masks, .min/.max secondary operations).
std::optional<PtxSimdVideo> parsePtxSimdVideo(llvm::StringRef text, std::string &problem);

// d for the 32-bit words a, b, c.
llvm::Value *emitPtxSimdVideo(llvm::IRBuilder<> &b, const PtxSimdVideo &insn, llvm::Value *a,
                              llvm::Value *bw, llvm::Value *c);

} // namespace simtcc
