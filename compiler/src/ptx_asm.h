// SPDX-License-Identifier: MIT
// nvcc hands inline PTX to ptxas as text, so `%globaltimer` (one `%`) reads
// a special register there; clang parses the asm template as GCC's and
// refuses `%g...` as an operand escape. simtcc rewrites such templates in
// the device pass's preprocessed source before clang sees them.
#pragma once

#include <optional>
#include <string>

#include "clang/Basic/LangOptions.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Error.h"

namespace simtcc {

// True for the name (without `%`) of a PTX special register: tid, laneid,
// clock64, globaltimer, lanemask_lt, envreg3, pm0_64...
bool isPtxSpecialRegister(llvm::StringRef name);

// `preprocessed` (clang -E output) with `%%` in place of a lone `%` before a
// PTX special register name in the templates of extended asm statements
// (those with operands, where `%` is an escape); std::nullopt when there is
// none. Basic asm (no operands) keeps its `%`s: there clang reads them as
// text already.
std::optional<std::string> escapePtxSpecialRegisters(llvm::StringRef preprocessed,
                                                     const clang::LangOptions &language);

// Every inline PTX statement of the device module rewritten as IR and
// llvm.nvvm.* intrinsics (ptx_translate.cpp), before simt-lower-nvvm;
// an error naming the instruction and its source location for PTX that is
// not translated. Single statements the NVVM lowering maps itself (barriers,
// activemask, nanosleep, trap) and RISC-V assembly
// are left as they are.
llvm::Error translateInlinePtx(llvm::Module &module);

} // namespace simtcc
