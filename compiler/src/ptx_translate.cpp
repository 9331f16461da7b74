// SPDX-License-Identifier: MIT
// Inline PTX as LLVM IR. nvcc hands a CUDA source's asm statements to ptxas;
// simtcc has no ptxas, so each PTX asm statement in the device module is
// rewritten here, before the NVVM lowering, into plain IR and llvm.nvvm.*
// intrinsics (which simt-lower-nvvm then maps to simtgpu).
//
// Before:  %r = call i32 asm "bfe.u32 $0, $1, $2, $3;", "=r,r,r,r"(i32 %x, i32 4, i32 8)
// After:   %s = lshr i32 %x, 4  ;  %r = and i32 %s, 255   (with PTX's edge cases)
//
// A statement is a PTX instruction or a `{ ... }` block with `.reg`
// declarations and guarded (`@p`) instructions, as CUB's warp shuffles are.
// Values are SSA: a register is the last value written to it, and a guarded
// write is a select. What is translated: docs/libraries.md lists it; any other
// PTX instruction is refused with its name and source location.
#include "ptx_asm.h"

#include <map>
#include <string>
#include <vector>

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/Module.h"

#include "passes/simt_passes.h"
#include "ptx_simd.h"

using namespace llvm;

namespace simtcc {
namespace {

// One PTX type suffix: b/u/s/f and a width, or pred.
struct PtxType {
    char kind = 0; // 'b', 'u', 's', 'f', 'p'
    unsigned bits = 0;
    bool isSigned() const { return kind == 's'; }
    bool isFloat() const { return kind == 'f'; }
    bool isPred() const { return kind == 'p'; }
};

std::optional<PtxType> parseType(StringRef word) {
    if (word == "pred")
        return PtxType{'p', 1};
    if (word.size() < 2 || !StringRef("busf").contains(word[0]))
        return std::nullopt;
    unsigned bits = 0;
    if (word.drop_front().getAsInteger(10, bits) ||
        !(bits == 8 || bits == 16 || bits == 32 || bits == 64))
        return std::nullopt;
    if (word[0] == 'f' && bits != 32 && bits != 64)
        return std::nullopt; // f16 arithmetic: not translated
    return PtxType{word[0], bits};
}

// An opcode split at its dots: the base, its type suffixes in order, and
// the other modifiers.
struct Opcode {
    StringRef base;
    SmallVector<PtxType, 3> types;
    SmallVector<StringRef, 6> modifiers;
    bool has(StringRef m) const { return is_contained(modifiers, m); }
};

Opcode parseOpcode(StringRef text) {
    Opcode op;
    SmallVector<StringRef, 8> parts;
    text.split(parts, '.');
    op.base = parts[0];
    for (StringRef part : ArrayRef(parts).drop_front()) {
        if (auto type = parseType(part))
            op.types.push_back(*type);
        else
            op.modifiers.push_back(part);
    }
    return op;
}

// Operands split at top-level commas (not inside {} or []).
SmallVector<StringRef, 6> splitOperands(StringRef text) {
    SmallVector<StringRef, 6> out;
    int depth = 0;
    size_t start = 0;
    for (size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (c == '{' || c == '[')
            ++depth;
        else if (c == '}' || c == ']')
            --depth;
        else if (c == ',' && depth == 0) {
            out.push_back(text.slice(start, i).trim());
            start = i + 1;
        }
    }
    if (!text.slice(start, text.size()).trim().empty())
        out.push_back(text.slice(start, text.size()).trim());
    return out;
}

// True when the asm text is PTX (not RISC-V assembly written for simtgpu):
// the same test as the NVVM lowering's refusal, plus blocks.
bool looksLikePtx(StringRef text) {
    StringRef t = text.trim();
    return t.endswith(";") || t.endswith("}") || t.contains(".b32") || t.contains(".u32") ||
           t.contains(".s32") || t.contains(".f32") || t.contains(".u64");
}

bool isIdentifierChar(char c) {
    return isAlnum(c) || c == '_' || c == '.';
}

// Single statements simt-lower-nvvm already maps (barriers, the active
// mask, nanosleep, trap): left to it. Special-register moves are translated
// here, as the intrinsics clang would emit (lanemask_le and friends too).
bool handledByNvvmLowering(StringRef text) {
    StringRef t = text.trim();
    if (t.startswith("{") || t.drop_back().contains(';'))
        return false;
    if (t.startswith("activemask") || t.startswith("nanosleep") || t.startswith("bar.") ||
        t.startswith("bar ") || t.startswith("barrier") || t == "trap;" || t == "brkpt;" ||
        isPtxSimdVideo(t)) // SIMD video (vadd2 ... vset4): ptx_simd.cpp
        return true;
    // mov of a special register clang has no intrinsic for (%globaltimer,
    // %clock_hi...): the NVVM lowering reads its CSR, or says it has none.
    size_t percent = t.find('%');
    if (!t.startswith("mov.") || percent == StringRef::npos)
        return false;
    std::string reg = t.drop_front(percent + 1).take_while(isIdentifierChar).str();
    if (StringRef(reg).startswith("lanemask_"))
        reg[8] = '.';
    return Function::lookupIntrinsicID("llvm.nvvm.read.ptx.sreg." + reg) ==
           Intrinsic::not_intrinsic;
}

class InlinePtx {
public:
    explicit InlinePtx(CallInst &call)
        : call_(call), b_(&call), context_(call.getContext()), i32_(Type::getInt32Ty(context_)),
          i64_(Type::getInt64Ty(context_)) {}

    Error run();

private:
    CallInst &call_;
    IRBuilder<> b_;
    LLVMContext &context_;
    Type *i32_, *i64_;
    std::vector<Value *> operands_;       // $0.. : outputs, then inputs
    std::vector<Type *> outputTypes_;     // of $0..$(outputs-1)
    std::map<std::string, Value *> regs_; // .reg names
    Value *guard_ = nullptr;              // the current statement's @p, as i1
    StringRef statement_;

    Error fail(const Twine &what) {
        return refuseAt(call_, "PTX inline assembly: " + what + " (in '" + statement_.trim() +
                                   "'; simtcc translates the PTX listed in docs/libraries.md)");
    }

    Type *irType(PtxType t) {
        if (t.isPred())
            return b_.getInt1Ty();
        if (t.isFloat())
            return t.bits == 32 ? b_.getFloatTy() : b_.getDoubleTy();
        return b_.getIntNTy(t.bits);
    }

    // v as `to`: integers truncated or extended (sign-extended when
    // `sext`), floats and integers of one width bit-cast, pointers as i64.
    Value *fit(Value *v, Type *to, bool sext = false) {
        Type *from = v->getType();
        if (from == to)
            return v;
        if (to->isPointerTy())
            return b_.CreateIntToPtr(fit(v, i64_), to);
        if (from->isPointerTy())
            return fit(b_.CreatePtrToInt(v, i64_), to, sext);
        if (to->isIntegerTy(1))
            return b_.CreateICmpNE(fit(v, i32_), ConstantInt::get(i32_, 0));
        if (from->isFloatingPointTy())
            return fit(b_.CreateBitCast(v, b_.getIntNTy(from->getPrimitiveSizeInBits())), to, sext);
        if (to->isFloatingPointTy())
            return b_.CreateBitCast(fit(v, b_.getIntNTy(to->getPrimitiveSizeInBits()), sext), to);
        return sext && !from->isIntegerTy(1) ? b_.CreateSExtOrTrunc(v, to)
                                             : b_.CreateZExtOrTrunc(v, to);
    }

    Expected<Value *> specialRegister(StringRef name) {
        std::string reg = name.str();
        if (StringRef(reg).startswith("lanemask_"))
            reg[8] = '.';
        Intrinsic::ID id = Function::lookupIntrinsicID("llvm.nvvm.read.ptx.sreg." + reg);
        if (id == Intrinsic::not_intrinsic)
            return fail("special register %" + name + " is not supported");
        return b_.CreateCall(Intrinsic::getDeclaration(call_.getModule(), id));
    }

    // An operand read as `type`: $N, a .reg name, %sreg, or an immediate.
    Expected<Value *> read(StringRef text, Type *type, bool sext = false) {
        text = text.trim();
        unsigned n = 0;
        if (text.consume_front("$")) {
            if (text.getAsInteger(10, n) || n >= operands_.size())
                return fail("operand $" + text + " does not exist");
            if (!operands_[n])
                return fail("output operand $" + Twine(n) + " is read before it is written");
            return fit(operands_[n], type, sext);
        }
        if (text.consume_front("%")) {
            Expected<Value *> sreg = specialRegister(text);
            if (!sreg)
                return sreg.takeError();
            return fit(*sreg, type, sext);
        }
        if (auto reg = regs_.find(text.str()); reg != regs_.end()) {
            if (!reg->second)
                return fail("register '" + text + "' is read before it is written");
            return fit(reg->second, type, sext);
        }
        // 0fXXXXXXXX and 0dXXXXXXXXXXXXXXXX: a float's bits in hex.
        if (text.size() > 2 && (text.startswith("0f") || text.startswith("0F") ||
                                text.startswith("0d") || text.startswith("0D"))) {
            uint64_t bits = 0;
            if (!text.drop_front(2).getAsInteger(16, bits)) {
                unsigned width = (text[1] == 'f' || text[1] == 'F') ? 32 : 64;
                return fit(ConstantInt::get(b_.getIntNTy(width), bits), type);
            }
        }
        int64_t value = 0;
        StringRef digits = text;
        digits.consume_back("U");
        digits.consume_back("u");
        if (!digits.getAsInteger(0, value)) {
            if (type->isFloatingPointTy())
                return ConstantFP::get(type, double(value));
            if (type->isIntegerTy(1))
                return b_.getInt1(value != 0);
            return ConstantInt::get(type, value, /*isSigned=*/true);
        }
        double real = 0;
        if (type->isFloatingPointTy() && !text.getAsDouble(real))
            return ConstantFP::get(type, real);
        return fail("operand '" + text + "' is not a register, operand or immediate");
    }

    Expected<Value *> read(StringRef text, PtxType type) {
        return read(text, irType(type), type.isSigned());
    }

    // A write to $N or a .reg; under @p, a select of the new and old value.
    Error write(StringRef text, Value *value) {
        text = text.trim();
        Value **slot = nullptr;
        unsigned n = 0;
        if (text.startswith("$")) {
            if (text.drop_front().getAsInteger(10, n) || n >= outputTypes_.size())
                return fail("'" + text + "' is not an output operand");
            slot = &operands_[n];
        } else {
            auto reg = regs_.find(text.str());
            if (reg == regs_.end())
                return fail("register '" + text + "' is not declared");
            slot = &reg->second;
        }
        if (guard_) {
            Value *old = *slot ? fit(*slot, value->getType()) : UndefValue::get(value->getType());
            value = b_.CreateSelect(guard_, value, old);
        }
        *slot = value;
        return Error::success();
    }

    // [base], [base+offset], [base+-offset] as a pointer.
    Expected<Value *> address(StringRef text) {
        text = text.trim();
        if (!text.consume_front("[") || !text.consume_back("]"))
            return fail("'" + text + "' is not an address ([reg] or [reg+offset])");
        int64_t offset = 0;
        size_t plus = text.find('+');
        if (plus != StringRef::npos) {
            if (text.drop_front(plus + 1).trim().getAsInteger(0, offset))
                return fail("address offset '" + text.drop_front(plus + 1) + "' is not a number");
            text = text.take_front(plus);
        }
        Expected<Value *> base = read(text, i64_);
        if (!base)
            return base.takeError();
        Value *pointer = b_.CreateIntToPtr(*base, b_.getPtrTy());
        return offset ? b_.CreateConstGEP1_64(b_.getInt8Ty(), pointer, offset) : pointer;
    }

    // {a, b, ...} as its elements; a lone register as itself.
    static SmallVector<StringRef, 4> elements(StringRef text) {
        text = text.trim();
        if (text.consume_front("{") && text.consume_back("}"))
            return splitOperands(text);
        return {text};
    }

    Error declare(StringRef text) {
        // .reg .type name[, name...]  (name<N> is a vector of N registers)
        text = text.drop_front(4).ltrim();
        if (!text.consume_front("."))
            return fail("a .reg declaration without a type");
        text = text.drop_until([](char c) { return c == ' ' || c == '\t'; }).trim();
        for (StringRef name : splitOperands(text)) {
            size_t angle = name.find('<');
            if (angle == StringRef::npos) {
                regs_[name.str()] = nullptr;
                continue;
            }
            unsigned count = 0;
            if (name.drop_front(angle + 1).drop_back().getAsInteger(10, count))
                return fail("register vector '" + name + "' has no count");
            for (unsigned i = 0; i < count; ++i)
                regs_[(name.take_front(angle) + Twine(i)).str()] = nullptr;
        }
        return Error::success();
    }

    Error instruction(StringRef text);
    Error arithmetic(const Opcode &op, ArrayRef<StringRef> args, bool &done);
    Error bitField(const Opcode &op, ArrayRef<StringRef> args, bool &done);
    Error memory(const Opcode &op, ArrayRef<StringRef> args, bool &done);
    Error warp(const Opcode &op, ArrayRef<StringRef> args, bool &done);
    Error convert(const Opcode &op, ArrayRef<StringRef> args);
    Error compare(const Opcode &op, ArrayRef<StringRef> args);
    Error move(const Opcode &op, ArrayRef<StringRef> args);
    Error video(const Opcode &op, ArrayRef<StringRef> args);
    Error access128(bool load, Value *address, ArrayRef<StringRef> regs, PtxType t);
    Value *roundTowardZero(Value *exact, Type *type);
    Value *shiftLeft(Value *v, Value *amount);
    Value *shiftRight(Value *v, Value *amount, bool arithmetic);
};

// v << amount with PTX's rule: amounts past the width give 0.
Value *InlinePtx::shiftLeft(Value *v, Value *amount) {
    Type *type = v->getType();
    unsigned width = type->getIntegerBitWidth();
    amount = fit(amount, type);
    Value *big = b_.CreateICmpUGE(amount, ConstantInt::get(type, width));
    Value *safe = b_.CreateAnd(amount, ConstantInt::get(type, width - 1));
    return b_.CreateSelect(big, ConstantInt::get(type, 0), b_.CreateShl(v, safe));
}

// v >> amount: past the width, 0 (logical) or the sign (arithmetic).
Value *InlinePtx::shiftRight(Value *v, Value *amount, bool arithmetic) {
    Type *type = v->getType();
    unsigned width = type->getIntegerBitWidth();
    amount = fit(amount, type);
    Value *big = b_.CreateICmpUGE(amount, ConstantInt::get(type, width));
    Value *max = ConstantInt::get(type, width - 1);
    if (arithmetic)
        return b_.CreateAShr(v, b_.CreateSelect(big, max, amount));
    return b_.CreateSelect(big, ConstantInt::get(type, 0),
                           b_.CreateLShr(v, b_.CreateAnd(amount, max)));
}

// A float of `type` from `exact` (a double holding the exact or nearly
// exact result): rounded toward zero, as PTX's .rz asks.
Value *InlinePtx::roundTowardZero(Value *exact, Type *type) {
    if (type->isDoubleTy())
        return exact;
    Value *nearest = b_.CreateFPTrunc(exact, type);
    Value *back = b_.CreateFPExt(nearest, exact->getType());
    Value *fabsBack = b_.CreateUnaryIntrinsic(Intrinsic::fabs, back);
    Value *fabsExact = b_.CreateUnaryIntrinsic(Intrinsic::fabs, exact);
    // Rounded away from zero: one ulp toward zero (the magnitude's bits - 1).
    Value *away = b_.CreateFCmpOGT(fabsBack, fabsExact);
    Value *bits = b_.CreateBitCast(nearest, i32_);
    Value *smaller = b_.CreateBitCast(b_.CreateSub(bits, ConstantInt::get(i32_, 1)), type);
    return b_.CreateSelect(away, smaller, nearest);
}

Error InlinePtx::move(const Opcode &op, ArrayRef<StringRef> args) {
    if (op.types.size() != 1 || args.size() != 2)
        return fail("mov needs one type and two operands");
    PtxType t = op.types[0];
    SmallVector<StringRef, 4> to = elements(args[0]), from = elements(args[1]);
    if (to.size() == 1 && from.size() == 1) {
        Expected<Value *> v = read(from[0], t);
        return v ? write(to[0], *v) : v.takeError();
    }
    // Pack {a, b} into one register, or unpack one into {a, b}.
    unsigned parts = std::max(to.size(), from.size());
    Type *part = b_.getIntNTy(t.bits / parts), *whole = b_.getIntNTy(t.bits);
    if (from.size() > 1) {
        Value *packed = ConstantInt::get(whole, 0);
        for (unsigned i = 0; i < parts; ++i) {
            Expected<Value *> v = read(from[i], part);
            if (!v)
                return v.takeError();
            packed = b_.CreateOr(
                packed, b_.CreateShl(b_.CreateZExt(*v, whole), i * part->getIntegerBitWidth()));
        }
        return write(to[0], packed);
    }
    Expected<Value *> v = read(from[0], whole);
    if (!v)
        return v.takeError();
    for (unsigned i = 0; i < parts; ++i)
        if (Error e = write(
                to[i], b_.CreateTrunc(b_.CreateLShr(*v, i * part->getIntegerBitWidth()), part)))
            return e;
    return Error::success();
}

Error InlinePtx::arithmetic(const Opcode &op, ArrayRef<StringRef> args, bool &done) {
    done = true;
    StringRef name = op.base;
    if (op.types.size() != 1) {
        done = false;
        return Error::success();
    }
    PtxType t = op.types[0];
    Type *type = irType(t);
    auto operands = [&](unsigned count) -> Expected<SmallVector<Value *, 4>> {
        if (args.size() != count + 1)
            return fail(name + " takes " + Twine(count + 1) + " operands");
        SmallVector<Value *, 4> values;
        for (unsigned i = 1; i <= count; ++i) {
            Expected<Value *> v = read(args[i], t);
            if (!v)
                return v.takeError();
            values.push_back(*v);
        }
        return values;
    };
    bool unary = StringSwitch<bool>(name)
                     .Cases("not", "neg", "abs", "popc", "clz", "brev", true)
                     .Default(false);
    bool ternary = name == "mad" || name == "fma";
    bool binary = StringSwitch<bool>(name)
                      .Cases("add", "sub", "mul", "div", "rem", "min", "max", true)
                      .Cases("and", "or", "xor", "shl", "shr", true)
                      .Default(false);
    if (!unary && !ternary && !binary) {
        done = false;
        return Error::success();
    }
    if (op.has("cc") || op.has("sat"))
        return fail(name + " with ." + (op.has("cc") ? "cc" : "sat") + " is not supported");
    Expected<SmallVector<Value *, 4>> v = operands(unary ? 1 : ternary ? 3 : 2);
    if (!v)
        return v.takeError();
    Value *a = (*v)[0], *result = nullptr;
    Value *bv = unary ? nullptr : (*v)[1];
    if (t.isFloat()) {
        bool rz = op.has("rz");
        Type *wide = b_.getDoubleTy();
        if (name == "add")
            result = b_.CreateFAdd(a, bv);
        else if (name == "sub")
            result = b_.CreateFSub(a, bv);
        else if (name == "mul")
            result =
                rz ? roundTowardZero(
                         b_.CreateFMul(b_.CreateFPExt(a, wide), b_.CreateFPExt(bv, wide)), type)
                   : b_.CreateFMul(a, bv);
        else if (ternary)
            result = rz && t.bits == 32
                         ? roundTowardZero(b_.CreateIntrinsic(Intrinsic::fma, {wide},
                                                              {b_.CreateFPExt(a, wide),
                                                               b_.CreateFPExt(bv, wide),
                                                               b_.CreateFPExt((*v)[2], wide)}),
                                           type)
                         : b_.CreateIntrinsic(Intrinsic::fma, {type}, {a, bv, (*v)[2]});
        else if (name == "div")
            result = b_.CreateFDiv(a, bv);
        else if (name == "min")
            result = b_.CreateBinaryIntrinsic(Intrinsic::minnum, a, bv);
        else if (name == "max")
            result = b_.CreateBinaryIntrinsic(Intrinsic::maxnum, a, bv);
        else if (name == "neg")
            result = b_.CreateFNeg(a);
        else if (name == "abs")
            result = b_.CreateUnaryIntrinsic(Intrinsic::fabs, a);
        else
            return fail(name + "." + (t.bits == 32 ? "f32" : "f64") + " is not supported");
        return write(args[0], result);
    }
    bool s = t.isSigned();
    unsigned width = t.bits;
    // mul/mad .lo (default), .hi and .wide.
    auto product = [&](Value *x, Value *y) -> Value * {
        if (op.has("hi") || op.has("wide")) {
            Type *doubled = b_.getIntNTy(2 * width);
            Value *p = b_.CreateMul(fit(x, doubled, s), fit(y, doubled, s));
            return op.has("wide") ? p : b_.CreateTrunc(b_.CreateLShr(p, width), type);
        }
        return b_.CreateMul(x, y);
    };
    if (name == "add")
        result = b_.CreateAdd(a, bv);
    else if (name == "sub")
        result = b_.CreateSub(a, bv);
    else if (name == "mul")
        result = product(a, bv);
    else if (name == "mad") {
        Value *p = product(a, bv);
        result = b_.CreateAdd(p, fit((*v)[2], p->getType(), s));
    } else if (name == "div")
        result = s ? b_.CreateSDiv(a, bv) : b_.CreateUDiv(a, bv);
    else if (name == "rem")
        result = s ? b_.CreateSRem(a, bv) : b_.CreateURem(a, bv);
    else if (name == "min")
        result = b_.CreateSelect(s ? b_.CreateICmpSLT(a, bv) : b_.CreateICmpULT(a, bv), a, bv);
    else if (name == "max")
        result = b_.CreateSelect(s ? b_.CreateICmpSGT(a, bv) : b_.CreateICmpUGT(a, bv), a, bv);
    else if (name == "and")
        result = b_.CreateAnd(a, bv);
    else if (name == "or")
        result = b_.CreateOr(a, bv);
    else if (name == "xor")
        result = b_.CreateXor(a, bv);
    else if (name == "not")
        result = b_.CreateNot(a);
    else if (name == "neg")
        result = b_.CreateNeg(a);
    else if (name == "abs")
        result = b_.CreateBinaryIntrinsic(Intrinsic::abs, a, b_.getFalse());
    else if (name == "popc")
        result = fit(b_.CreateUnaryIntrinsic(Intrinsic::ctpop, a), i32_);
    else if (name == "clz")
        result = fit(b_.CreateBinaryIntrinsic(Intrinsic::ctlz, a, b_.getFalse()), i32_);
    else if (name == "brev")
        result = b_.CreateUnaryIntrinsic(Intrinsic::bitreverse, a);
    else if (name == "shl" || name == "shr") {
        // The shift amount is a u32 whatever the type.
        Expected<Value *> amount = read(args[2], i32_);
        if (!amount)
            return amount.takeError();
        result = name == "shl" ? shiftLeft(a, *amount) : shiftRight(a, *amount, s);
    }
    return write(args[0], result);
}

// bfe, bfi, prmt, lop3: the bit-field instructions CUB's radix sort uses.
Error InlinePtx::bitField(const Opcode &op, ArrayRef<StringRef> args, bool &done) {
    done = true;
    if (op.types.size() != 1 || op.types[0].isFloat() || op.types[0].isPred()) {
        done = false;
        return Error::success();
    }
    PtxType t = op.types[0];
    Type *type = irType(t);
    unsigned width = t.bits;
    auto readAll = [&](unsigned count,
                       ArrayRef<Type *> types) -> Expected<SmallVector<Value *, 5>> {
        if (args.size() != count)
            return fail(op.base + " takes " + Twine(count) + " operands");
        SmallVector<Value *, 5> values;
        for (unsigned i = 1; i < count; ++i) {
            Expected<Value *> v = read(args[i], types[i - 1], t.isSigned());
            if (!v)
                return v.takeError();
            values.push_back(*v);
        }
        return values;
    };
    auto constant = [&](uint64_t v) { return ConstantInt::get(type, v); };
    if (op.base == "bfe") {
        Expected<SmallVector<Value *, 5>> v = readAll(4, {type, i32_, i32_});
        if (!v)
            return v.takeError();
        Value *a = (*v)[0];
        Value *pos = fit(b_.CreateAnd((*v)[1], 0xff), type);
        Value *len = fit(b_.CreateAnd((*v)[2], 0xff), type);
        Value *zeroLen = b_.CreateICmpEQ(len, constant(0));
        Value *result;
        if (!t.isSigned()) {
            Value *all = constant(~0ull >> (64 - width));
            Value *mask = b_.CreateSelect(b_.CreateICmpUGE(len, constant(width)), all,
                                          b_.CreateSub(shiftLeft(constant(1), len), constant(1)));
            result = b_.CreateAnd(shiftRight(a, pos, false), mask);
        } else {
            // Bits [pos, hi) sign-extended from bit hi-1, hi = min(pos+len, width).
            Value *end = b_.CreateAdd(pos, len);
            Value *hi =
                b_.CreateSelect(b_.CreateICmpUGT(end, constant(width)), constant(width), end);
            Value *posPast = b_.CreateICmpUGE(pos, constant(width));
            Value *safeHi = b_.CreateSelect(posPast, constant(width), hi);
            Value *up = b_.CreateShl(a, b_.CreateSub(constant(width), safeHi));
            Value *down = b_.CreateSelect(posPast, constant(width - 1),
                                          b_.CreateAdd(b_.CreateSub(constant(width), safeHi), pos));
            result = b_.CreateAShr(b_.CreateSelect(posPast, a, up), down);
        }
        return write(args[0], b_.CreateSelect(zeroLen, constant(0), result));
    }
    if (op.base == "bfi") {
        Expected<SmallVector<Value *, 5>> v = readAll(5, {type, type, i32_, i32_});
        if (!v)
            return v.takeError();
        Value *a = (*v)[0], *into = (*v)[1];
        Value *pos = fit(b_.CreateAnd((*v)[2], 0xff), type);
        Value *len = fit(b_.CreateAnd((*v)[3], 0xff), type);
        Value *all = constant(~0ull >> (64 - width));
        Value *field = b_.CreateSelect(b_.CreateICmpUGE(len, constant(width)), all,
                                       b_.CreateSub(shiftLeft(constant(1), len), constant(1)));
        Value *mask = shiftLeft(field, pos);
        Value *result = b_.CreateOr(b_.CreateAnd(into, b_.CreateNot(mask)),
                                    b_.CreateAnd(shiftLeft(a, pos), mask));
        return write(args[0], result);
    }
    if (op.base == "prmt") {
        if (width != 32 || !op.modifiers.empty())
            return fail("prmt is translated in its default mode (prmt.b32) only");
        Expected<SmallVector<Value *, 5>> v = readAll(4, {i32_, i32_, i32_});
        if (!v)
            return v.takeError();
        Value *bytes = b_.CreateOr(b_.CreateZExt((*v)[0], i64_),
                                   b_.CreateShl(b_.CreateZExt((*v)[1], i64_), 32));
        Value *result = b_.getInt32(0);
        for (unsigned i = 0; i < 4; ++i) {
            Value *sel = b_.CreateAnd(b_.CreateLShr((*v)[2], 4 * i), 0xf);
            Value *shift = b_.CreateZExt(b_.CreateShl(b_.CreateAnd(sel, 7), 3), i64_);
            Value *byte = b_.CreateTrunc(b_.CreateAnd(b_.CreateLShr(bytes, shift), 0xff), i32_);
            Value *signFill =
                b_.CreateSelect(b_.CreateICmpNE(b_.CreateAnd(byte, 0x80), b_.getInt32(0)),
                                b_.getInt32(0xff), b_.getInt32(0));
            byte = b_.CreateSelect(b_.CreateICmpNE(b_.CreateAnd(sel, 8), b_.getInt32(0)), signFill,
                                   byte);
            result = b_.CreateOr(result, b_.CreateShl(byte, 8 * i));
        }
        return write(args[0], result);
    }
    if (op.base == "lop3") {
        Expected<SmallVector<Value *, 5>> v = readAll(5, {type, type, type, i32_});
        if (!v)
            return v.takeError();
        auto *lut = dyn_cast<ConstantInt>((*v)[3]);
        if (!lut)
            return fail("lop3's lookup table must be a constant");
        Value *result = constant(0);
        for (unsigned i = 0; i < 8; ++i) {
            if (!((lut->getZExtValue() >> i) & 1))
                continue;
            Value *a = (i & 4) ? (*v)[0] : b_.CreateNot((*v)[0]);
            Value *bb = (i & 2) ? (*v)[1] : b_.CreateNot((*v)[1]);
            Value *c = (i & 1) ? (*v)[2] : b_.CreateNot((*v)[2]);
            result = b_.CreateOr(result, b_.CreateAnd(a, b_.CreateAnd(bb, c)));
        }
        return write(args[0], result);
    }
    done = false;
    return Error::success();
}

// cvt.dst.src with PTX's rounding modifiers.
Error InlinePtx::convert(const Opcode &op, ArrayRef<StringRef> args) {
    if (op.types.size() != 2 || args.size() != 2)
        return fail("cvt needs a destination and a source type and two operands");
    PtxType to = op.types[0], from = op.types[1];
    if (op.has("sat"))
        return fail("cvt with .sat is not supported");
    Expected<Value *> v = read(args[1], from);
    if (!v)
        return v.takeError();
    Type *type = irType(to);
    Value *result = nullptr;
    auto rounded = [&](Value *x) -> Value * {
        if (op.has("rni"))
            return b_.CreateUnaryIntrinsic(Intrinsic::rint, x);
        if (op.has("rmi"))
            return b_.CreateUnaryIntrinsic(Intrinsic::floor, x);
        if (op.has("rpi"))
            return b_.CreateUnaryIntrinsic(Intrinsic::ceil, x);
        if (op.has("rzi"))
            return b_.CreateUnaryIntrinsic(Intrinsic::trunc, x);
        return x;
    };
    if (!from.isFloat() && !to.isFloat())
        result = fit(*v, type, from.isSigned());
    else if (from.isFloat() && to.isFloat())
        result = rounded(from.bits < to.bits   ? b_.CreateFPExt(*v, type)
                         : from.bits > to.bits ? b_.CreateFPTrunc(*v, type)
                                               : *v);
    else if (from.isFloat())
        result =
            to.isSigned() ? b_.CreateFPToSI(rounded(*v), type) : b_.CreateFPToUI(rounded(*v), type);
    else
        result = from.isSigned() ? b_.CreateSIToFP(*v, type) : b_.CreateUIToFP(*v, type);
    return write(args[0], result);
}

// setp.cmp.type p, a, b and selp.type d, a, b, p.
Error InlinePtx::compare(const Opcode &op, ArrayRef<StringRef> args) {
    if (op.types.size() != 1)
        return fail(op.base + " needs one type");
    PtxType t = op.types[0];
    if (op.base == "selp") {
        if (args.size() != 4)
            return fail("selp takes four operands");
        Expected<Value *> a = read(args[1], t), bv = read(args[2], t);
        Expected<Value *> p = read(args[3], b_.getInt1Ty());
        if (!a || !bv || !p)
            return joinErrors(joinErrors(a.takeError(), bv.takeError()), p.takeError());
        return write(args[0], b_.CreateSelect(*p, *a, *bv));
    }
    if (args.size() != 3 || op.modifiers.size() != 1 || args[0].contains('|'))
        return fail("setp is translated as setp.cmp.type p, a, b only");
    Expected<Value *> a = read(args[1], t), bv = read(args[2], t);
    if (!a || !bv)
        return joinErrors(a.takeError(), bv.takeError());
    StringRef cmp = op.modifiers[0];
    using P = CmpInst::Predicate;
    P pred;
    if (t.isFloat())
        pred = StringSwitch<P>(cmp)
                   .Case("eq", P::FCMP_OEQ)
                   .Case("ne", P::FCMP_ONE)
                   .Case("lt", P::FCMP_OLT)
                   .Case("le", P::FCMP_OLE)
                   .Case("gt", P::FCMP_OGT)
                   .Case("ge", P::FCMP_OGE)
                   .Case("equ", P::FCMP_UEQ)
                   .Case("neu", P::FCMP_UNE)
                   .Case("ltu", P::FCMP_ULT)
                   .Case("leu", P::FCMP_ULE)
                   .Case("gtu", P::FCMP_UGT)
                   .Case("geu", P::FCMP_UGE)
                   .Case("num", P::FCMP_ORD)
                   .Case("nan", P::FCMP_UNO)
                   .Default(P::BAD_FCMP_PREDICATE);
    else
        pred = StringSwitch<P>(cmp)
                   .Case("eq", P::ICMP_EQ)
                   .Case("ne", P::ICMP_NE)
                   .Case("lt", t.isSigned() ? P::ICMP_SLT : P::ICMP_ULT)
                   .Case("le", t.isSigned() ? P::ICMP_SLE : P::ICMP_ULE)
                   .Case("gt", t.isSigned() ? P::ICMP_SGT : P::ICMP_UGT)
                   .Case("ge", t.isSigned() ? P::ICMP_SGE : P::ICMP_UGE)
                   .Case("lo", P::ICMP_ULT)
                   .Case("ls", P::ICMP_ULE)
                   .Case("hi", P::ICMP_UGT)
                   .Case("hs", P::ICMP_UGE)
                   .Default(P::BAD_ICMP_PREDICATE);
    if (pred == P::BAD_FCMP_PREDICATE || pred == P::BAD_ICMP_PREDICATE)
        return fail("setp comparison '" + cmp + "' is not supported");
    return write(args[0],
                 t.isFloat() ? b_.CreateFCmp(pred, *a, *bv) : b_.CreateICmp(pred, *a, *bv));
}

// vadd/vsub/vmin/vmax/vshl/vshr .u32.u32.u32 (or .s32) with an optional
// secondary .add/.min/.max: the scalar video instructions CUB's BFE, SHL_ADD
// and IADD3 use.
Error InlinePtx::video(const Opcode &op, ArrayRef<StringRef> args) {
    if (op.types.size() != 3 || op.has("sat"))
        return fail(op.base + " is translated with three 32-bit types and no .sat only");
    for (PtxType t : op.types)
        if (t.bits != 32 || t.isFloat())
            return fail(op.base + " is translated on 32-bit integers only");
    bool secondary = op.has("add") || op.has("min") || op.has("max");
    if (args.size() != (secondary ? 4u : 3u))
        return fail(op.base + " has the wrong number of operands");
    bool s = op.types[0].isSigned();
    Expected<Value *> a = read(args[1], op.types[1]), bv = read(args[2], op.types[2]);
    if (!a || !bv)
        return joinErrors(a.takeError(), bv.takeError());
    Value *r;
    if (op.base == "vadd")
        r = b_.CreateAdd(*a, *bv);
    else if (op.base == "vsub")
        r = b_.CreateSub(*a, *bv);
    else if (op.base == "vmin" || op.base == "vmax") {
        bool min = op.base == "vmin";
        Value *less = s ? b_.CreateICmpSLT(*a, *bv) : b_.CreateICmpULT(*a, *bv);
        r = b_.CreateSelect(less, min ? *a : *bv, min ? *bv : *a);
    } else {
        // .clamp (default): amounts above 32 act as 32; .wrap: amount mod 32.
        Value *amount = op.has("wrap") ? b_.CreateAnd(*bv, 31) : *bv;
        r = op.base == "vshl" ? shiftLeft(*a, amount)
                              : shiftRight(*a, amount, op.types[1].isSigned());
    }
    if (secondary) {
        Expected<Value *> c = read(args[3], op.types[0]);
        if (!c)
            return c.takeError();
        if (op.has("add"))
            r = b_.CreateAdd(r, *c);
        else {
            Value *less = s ? b_.CreateICmpSLT(r, *c) : b_.CreateICmpULT(r, *c);
            r = op.has("min") ? b_.CreateSelect(less, r, *c) : b_.CreateSelect(less, *c, r);
        }
    }
    return write(args[0], r);
}

// ld, ld.global.nc, ldu, st (any state space, cache operator, .v2/.v4),
// atom, red, membar and fence. Every access is volatile: asm volatile
// loads spin on flags (CUB's decoupled look-back) and must not be hoisted.
Error InlinePtx::memory(const Opcode &op, ArrayRef<StringRef> args, bool &done) {
    done = true;
    StringRef name = op.base;
    if (name == "membar" || name == "fence") {
        if (op.has("proxy"))
            return fail("fence.proxy is not supported");
        b_.CreateFence(AtomicOrdering::SequentiallyConsistent);
        return Error::success();
    }
    bool load = name == "ld" || name == "ldu";
    if (!load && name != "st" && name != "atom" && name != "red") {
        done = false;
        return Error::success();
    }
    if (guard_)
        return fail("a guarded (@p) " + name + " is not supported");
    if (op.types.empty())
        return fail(name + " needs a type");
    if (op.has("param"))
        return fail(name + ".param is not supported");
    PtxType t = op.types.back();
    Type *type = irType(t);
    if (t.isPred())
        return fail(name + " of a predicate");
    unsigned bytes = t.bits / 8;
    if (load || name == "st") {
        if (args.size() != 2)
            return fail(name + " takes two operands");
        Expected<Value *> base = address(load ? args[1] : args[0]);
        if (!base)
            return base.takeError();
        SmallVector<StringRef, 4> regs = elements(load ? args[0] : args[1]);
        if (regs.size() * bytes == 16 && !op.has("nc") && (regs.size() == 2 || regs.size() == 4))
            return access128(load, *base, regs, t);
        for (unsigned i = 0; i < regs.size(); ++i) {
            Value *at = i ? b_.CreateConstGEP1_64(b_.getInt8Ty(), *base, i * bytes) : *base;
            if (load) {
                LoadInst *l = b_.CreateAlignedLoad(type, at, Align(bytes * regs.size()), true);
                if (Error e = write(regs[i], l))
                    return e;
            } else {
                Expected<Value *> v = read(regs[i], t);
                if (!v)
                    return v.takeError();
                b_.CreateAlignedStore(*v, at, Align(bytes * regs.size()), true);
            }
        }
        if (op.has("acquire") && load)
            b_.CreateFence(AtomicOrdering::Acquire);
        return Error::success();
    }
    // atom[.space][.sem][.scope].op.type d, [a], b[, c]; red without d.
    bool atom = name == "atom";
    ArrayRef<StringRef> rest = atom ? args.drop_front() : args;
    if (rest.size() < 2)
        return fail(name + " has too few operands");
    Expected<Value *> at = address(rest[0]);
    if (!at)
        return at.takeError();
    AtomicOrdering order = op.has("acquire")   ? AtomicOrdering::Acquire
                           : op.has("release") ? AtomicOrdering::Release
                           : op.has("acq_rel") ? AtomicOrdering::AcquireRelease
                                               : AtomicOrdering::Monotonic;
    Expected<Value *> v = read(rest[1], t);
    if (!v)
        return v.takeError();
    Value *old;
    if (op.has("cas")) {
        if (rest.size() != 3)
            return fail("atom.cas takes four operands");
        Expected<Value *> swap = read(rest[2], t);
        if (!swap)
            return swap.takeError();
        Type *intType = b_.getIntNTy(t.bits);
        auto *cas = b_.CreateAtomicCmpXchg(
            at.get(), fit(*v, intType), fit(*swap, intType), Align(bytes),
            order == AtomicOrdering::Monotonic ? AtomicOrdering::Monotonic : order,
            AtomicOrdering::Monotonic);
        old = b_.CreateExtractValue(cas, 0);
    } else {
        using B = AtomicRMWInst::BinOp;
        B binop = StringSwitch<B>(StringRef(op.modifiers.empty() ? "" : op.modifiers.back()))
                      .Case("add", t.isFloat() ? B::FAdd : B::Add)
                      .Case("min", t.isSigned() ? B::Min : B::UMin)
                      .Case("max", t.isSigned() ? B::Max : B::UMax)
                      .Case("inc", B::UIncWrap)
                      .Case("dec", B::UDecWrap)
                      .Case("and", B::And)
                      .Case("or", B::Or)
                      .Case("xor", B::Xor)
                      .Case("exch", B::Xchg)
                      .Default(B::BAD_BINOP);
        if (binop == B::BAD_BINOP || (t.isFloat() && binop != B::FAdd && binop != B::Xchg))
            return fail(name + " operation is not supported");
        old = b_.CreateAtomicRMW(binop, *at, *v, Align(bytes), order);
    }
    return atom ? write(args[0], old) : Error::success();
}

// A 16-byte ld/st (.v2.u64, .v4.u32, ...): one indivisible access on NVIDIA
// GPUs, which CUB's tile status words rely on; here a call to the device
// runtime's __simt_ptx_ld128/st128 (compiler/runtime/ptx_vector.c), which
// make it indivisible. The elements travel as two 64-bit halves.
Error InlinePtx::access128(bool load, Value *address, ArrayRef<StringRef> regs, PtxType t) {
    Module *module = call_.getModule();
    unsigned perHalf = regs.size() / 2;
    Type *element = b_.getIntNTy(t.bits);
    if (load) {
        auto *pair = StructType::get(i64_, i64_);
        FunctionCallee ld = module->getOrInsertFunction("__simt_ptx_ld128", pair, b_.getPtrTy());
        Value *halves = b_.CreateCall(ld, {address});
        for (unsigned i = 0; i < regs.size(); ++i) {
            Value *half = b_.CreateExtractValue(halves, i / perHalf);
            Value *part = b_.CreateTrunc(b_.CreateLShr(half, (i % perHalf) * t.bits), element);
            if (Error e = write(regs[i], fit(part, irType(t))))
                return e;
        }
        return Error::success();
    }
    Value *halves[2] = {ConstantInt::get(i64_, 0), ConstantInt::get(i64_, 0)};
    for (unsigned i = 0; i < regs.size(); ++i) {
        Expected<Value *> v = read(regs[i], element);
        if (!v)
            return v.takeError();
        Value *&half = halves[i / perHalf];
        half = b_.CreateOr(half, b_.CreateShl(b_.CreateZExt(*v, i64_), (i % perHalf) * t.bits));
    }
    FunctionCallee st =
        module->getOrInsertFunction("__simt_ptx_st128", b_.getVoidTy(), b_.getPtrTy(), i64_, i64_);
    b_.CreateCall(st, {address, halves[0], halves[1]});
    return Error::success();
}

// shfl (with its predicate output), vote, activemask.
Error InlinePtx::warp(const Opcode &op, ArrayRef<StringRef> args, bool &done) {
    done = true;
    Module *module = call_.getModule();
    if (op.base == "shfl") {
        if (guard_)
            return fail("a guarded (@p) shfl is not supported");
        bool sync = op.has("sync");
        StringRef mode = op.modifiers.empty() ? "" : op.modifiers.back();
        if (args.size() != (sync ? 5u : 4u))
            return fail("shfl takes " + Twine(sync ? 5 : 4) + " operands");
        SmallVector<Value *, 5> values;
        for (unsigned i = 1; i < args.size(); ++i) {
            Expected<Value *> v = read(args[i], i32_);
            if (!v)
                return v.takeError();
            values.push_back(*v);
        }
        Intrinsic::ID id =
            StringSwitch<Intrinsic::ID>(mode)
                .Case("up", sync ? Intrinsic::nvvm_shfl_sync_up_i32 : Intrinsic::nvvm_shfl_up_i32)
                .Case("down",
                      sync ? Intrinsic::nvvm_shfl_sync_down_i32 : Intrinsic::nvvm_shfl_down_i32)
                .Case("idx",
                      sync ? Intrinsic::nvvm_shfl_sync_idx_i32 : Intrinsic::nvvm_shfl_idx_i32)
                .Case("bfly",
                      sync ? Intrinsic::nvvm_shfl_sync_bfly_i32 : Intrinsic::nvvm_shfl_bfly_i32)
                .Default(Intrinsic::not_intrinsic);
        if (id == Intrinsic::not_intrinsic)
            return fail("shfl mode '" + mode + "' is not supported");
        SmallVector<Value *, 4> callArgs;
        if (sync)
            callArgs.push_back(values[3]);
        callArgs.append({values[0], values[1], values[2]});
        Value *result = b_.CreateCall(Intrinsic::getDeclaration(module, id), callArgs);
        SmallVector<StringRef, 2> outs;
        args[0].split(outs, '|');
        if (Error e = write(outs[0], result))
            return e;
        if (outs.size() < 2)
            return Error::success();
        // The predicate: whether the source lane was inside the segment
        // (PTX ISA, shfl.sync: c packs clamp in bits 0-4, the segment mask
        // in bits 8-12).
        Value *lane =
            b_.CreateCall(Intrinsic::getDeclaration(module, Intrinsic::nvvm_read_ptx_sreg_laneid));
        Value *clamp = b_.CreateAnd(values[2], 0x1f);
        Value *segmask = b_.CreateAnd(b_.CreateLShr(values[2], 8), 0x1f);
        Value *minLane = b_.CreateAnd(lane, segmask);
        Value *maxLane = b_.CreateOr(minLane, b_.CreateAnd(clamp, b_.CreateNot(segmask)));
        Value *in;
        if (mode == "up")
            in = b_.CreateICmpSGE(b_.CreateSub(lane, values[1]), minLane);
        else if (mode == "down")
            in = b_.CreateICmpSLE(b_.CreateAdd(lane, values[1]), maxLane);
        else if (mode == "bfly")
            in = b_.CreateICmpSLE(b_.CreateXor(lane, values[1]), maxLane);
        else
            in = b_.CreateICmpSLE(
                b_.CreateOr(minLane, b_.CreateAnd(values[1], b_.CreateNot(segmask))), maxLane);
        return write(outs[1].trim(), in);
    }
    if (op.base == "vote") {
        if (!op.has("sync") || args.size() != 3)
            return fail("vote is translated as vote.sync.mode.type d, p, membermask only");
        Expected<Value *> p = read(args[1], b_.getInt1Ty()), mask = read(args[2], i32_);
        if (!p || !mask)
            return joinErrors(p.takeError(), mask.takeError());
        Intrinsic::ID id = op.has("ballot") ? Intrinsic::nvvm_vote_ballot_sync
                           : op.has("any")  ? Intrinsic::nvvm_vote_any_sync
                           : op.has("all")  ? Intrinsic::nvvm_vote_all_sync
                           : op.has("uni")  ? Intrinsic::nvvm_vote_uni_sync
                                            : Intrinsic::ID(Intrinsic::not_intrinsic);
        if (id == Intrinsic::not_intrinsic)
            return fail("vote mode is not supported");
        return write(args[0], b_.CreateCall(Intrinsic::getDeclaration(module, id), {*mask, *p}));
    }
    if (op.base == "activemask") {
        if (args.size() != 1)
            return fail("activemask takes one operand");
        // As clang's __activemask writes it, which the NVVM lowering maps.
        auto *type = FunctionType::get(i32_, false);
        return write(args[0],
                     b_.CreateCall(type, InlineAsm::get(type, "activemask.b32 $0;", "=r", true)));
    }
    done = false;
    return Error::success();
}

Error InlinePtx::instruction(StringRef text) {
    statement_ = text;
    guard_ = nullptr;
    if (text.consume_front("@")) {
        bool negate = text.consume_front("!");
        StringRef reg = text.take_until([](char c) { return c == ' ' || c == '\t'; });
        text = text.drop_front(reg.size()).ltrim();
        Expected<Value *> p = read(reg, b_.getInt1Ty());
        if (!p)
            return p.takeError();
        guard_ = negate ? b_.CreateNot(*p) : *p;
    }
    StringRef opcodeText = text.take_until([](char c) { return c == ' ' || c == '\t'; });
    SmallVector<StringRef, 6> args = splitOperands(text.drop_front(opcodeText.size()));
    Opcode op = parseOpcode(opcodeText);
    if (op.base == "mov")
        return move(op, args);
    if (op.base == "cvt")
        return convert(op, args);
    if (op.base == "exit") {
        // The thread ends, as a kernel's entry wrapper ends it (exit, status 0).
        if (guard_)
            return fail("a guarded (@p) exit is not supported");
        auto *type = FunctionType::get(b_.getVoidTy(), false);
        b_.CreateCall(type,
                      InlineAsm::get(type, "li a0, 0\n\tli a7, 93\n\tecall", "~{memory}", true));
        return Error::success();
    }
    if (op.base == "cvta") {
        if (args.size() != 2)
            return fail("cvta takes two operands");
        Expected<Value *> v = read(args[1], i64_);
        return v ? write(args[0], *v) : v.takeError();
    }
    if (op.base == "setp" || op.base == "selp")
        return compare(op, args);
    if (op.base.size() > 1 && op.base[0] == 'v' &&
        StringRef("vadd vsub vmin vmax vshl vshr").contains(op.base))
        return video(op, args);
    bool done = false;
    for (auto family :
         {&InlinePtx::arithmetic, &InlinePtx::bitField, &InlinePtx::memory, &InlinePtx::warp}) {
        if (Error e = (this->*family)(op, args, done))
            return e;
        if (done)
            return Error::success();
    }
    return fail("instruction '" + opcodeText + "' is not supported");
}

Error InlinePtx::run() {
    auto *asm_ = cast<InlineAsm>(call_.getCalledOperand());
    // Operands: direct outputs, then inputs; a tied input ("0") starts its
    // output with its value.
    unsigned input = 0;
    InlineAsm::ConstraintInfoVector constraints = asm_->ParseConstraints();
    SmallVector<Type *, 4> results;
    if (auto *st = dyn_cast<StructType>(call_.getType()))
        results.append(st->element_begin(), st->element_end());
    else if (!call_.getType()->isVoidTy())
        results.push_back(call_.getType());
    for (const InlineAsm::ConstraintInfo &c : constraints) {
        if (c.Type == InlineAsm::isOutput) {
            if (c.isIndirect)
                return fail("memory outputs (\"=m\") are not supported");
            outputTypes_.push_back(results[outputTypes_.size()]);
            operands_.push_back(nullptr);
        } else if (c.Type == InlineAsm::isInput) {
            if (c.isIndirect)
                return fail("memory inputs (\"m\") are not supported");
            Value *v = call_.getArgOperand(input++);
            if (c.hasMatchingInput() || (!c.Codes.empty() && isDigit(c.Codes[0][0]))) {
                unsigned tied = 0;
                if (!StringRef(c.Codes[0]).getAsInteger(10, tied) && tied < outputTypes_.size())
                    operands_[tied] = v;
            }
            operands_.push_back(v);
        }
    }
    SmallVector<StringRef, 16> statements;
    StringRef(asm_->getAsmString()).split(statements, ';');
    for (StringRef s : statements) {
        // Block braces and comments around the statement.
        s = s.trim();
        while (s.consume_front("{") || s.consume_front("}"))
            s = s.ltrim();
        // A closing brace of a block, not of a {a, b} vector operand.
        while (s.count('}') > s.count('{') && s.consume_back("}"))
            s = s.rtrim();
        if (s.empty())
            continue;
        statement_ = s;
        Error e = s.startswith(".reg") ? declare(s) : instruction(s);
        if (e)
            return e;
    }
    statement_ = asm_->getAsmString();
    SmallVector<Value *, 4> outputs;
    for (unsigned i = 0; i < outputTypes_.size(); ++i) {
        if (!operands_[i])
            return fail("output operand $" + Twine(i) + " is never written");
        outputs.push_back(fit(operands_[i], outputTypes_[i]));
    }
    if (outputs.size() == 1) {
        call_.replaceAllUsesWith(outputs[0]);
    } else if (outputs.size() > 1) {
        Value *aggregate = UndefValue::get(call_.getType());
        for (unsigned i = 0; i < outputs.size(); ++i)
            aggregate = b_.CreateInsertValue(aggregate, outputs[i], i);
        call_.replaceAllUsesWith(aggregate);
    }
    call_.eraseFromParent();
    return Error::success();
}

} // namespace

Error translateInlinePtx(Module &module) {
    std::vector<CallInst *> calls;
    for (Function &f : module)
        for (BasicBlock &bb : f)
            for (Instruction &inst : bb)
                if (auto *call = dyn_cast<CallInst>(&inst); call && call->isInlineAsm()) {
                    StringRef text = cast<InlineAsm>(call->getCalledOperand())->getAsmString();
                    if (looksLikePtx(text) && !handledByNvvmLowering(text))
                        calls.push_back(call);
                }
    for (CallInst *call : calls)
        if (Error e = InlinePtx(*call).run())
            return e;
    return Error::success();
}

} // namespace simtcc
