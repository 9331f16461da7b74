// SPDX-License-Identifier: MIT
#include "ptx_simd.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Intrinsics.h"

using namespace llvm;

namespace simtcc {
namespace {

using Op = PtxSimdVideo::Op;
using Compare = PtxSimdVideo::Compare;

// The mnemonic's first part without its lane count: vadd, vsub, ...
std::optional<Op> opNamed(StringRef name) {
    return StringSwitch<std::optional<Op>>(name)
        .Case("vadd", Op::Add)
        .Case("vsub", Op::Sub)
        .Case("vabsdiff", Op::AbsDiff)
        .Case("vmin", Op::Min)
        .Case("vmax", Op::Max)
        .Case("vavrg", Op::Average)
        .Case("vset", Op::Set)
        .Default(std::nullopt);
}

// .s32 -> true, .u32 -> false.
std::optional<bool> signedType(StringRef type) {
    if (type == "s32")
        return true;
    if (type == "u32")
        return false;
    return std::nullopt;
}

} // namespace

bool isPtxSimdVideo(StringRef text) {
    StringRef first = text.trim().split('.').first;
    return first.size() > 1 && (first.back() == '2' || first.back() == '4') &&
           opNamed(first.drop_back()).has_value();
}

std::optional<PtxSimdVideo> parsePtxSimdVideo(StringRef text, std::string &problem) {
    StringRef statement = text.trim();
    auto [mnemonic, operands] = statement.split(' ');
    SmallVector<StringRef, 8> parts;
    mnemonic.split(parts, '.');
    PtxSimdVideo insn{};
    insn.op = *opNamed(parts[0].drop_back());
    insn.lanes = parts[0].back() - '0';
    const size_t types = insn.op == Op::Set ? 2 : 3;
    if (parts.size() < 1 + types) {
        problem = "expected " + std::to_string(types) + " operand types (.s32 or .u32)";
        return std::nullopt;
    }
    SmallVector<bool, 3> signs;
    for (size_t i = 1; i <= types; ++i) {
        std::optional<bool> sign = signedType(parts[i]);
        if (!sign) {
            problem = "operand type ." + parts[i].str() + " (simtgpu takes .s32 or .u32)";
            return std::nullopt;
        }
        signs.push_back(*sign);
    }
    // d, a, b for arithmetic; a, b for vset.
    const bool a_signed = signs[types - 2], b_signed = signs[types - 1];
    if (a_signed != b_signed) {
        problem = "operands a and b of different signedness";
        return std::nullopt;
    }
    insn.operands_signed = a_signed;
    insn.result_signed = insn.op == Op::Set ? false : signs[0];
    size_t next = 1 + types;
    if (insn.op == Op::Set) {
        std::optional<Compare> compare = next < parts.size()
                                             ? StringSwitch<std::optional<Compare>>(parts[next])
                                                   .Case("eq", Compare::Eq)
                                                   .Case("ne", Compare::Ne)
                                                   .Case("lt", Compare::Lt)
                                                   .Case("le", Compare::Le)
                                                   .Case("gt", Compare::Gt)
                                                   .Case("ge", Compare::Ge)
                                                   .Default(std::nullopt)
                                             : std::nullopt;
        if (!compare) {
            problem = "vset needs a comparison (.eq .ne .lt .le .gt .ge)";
            return std::nullopt;
        }
        insn.compare = *compare;
        ++next;
    }
    for (; next < parts.size(); ++next) {
        if (parts[next] == "sat" && insn.op != Op::Set)
            insn.saturate = true;
        else if (parts[next] == "add")
            insn.accumulate = true;
        else {
            problem = "modifier ." + parts[next].str() +
                      " (simtgpu supports .sat and the .add secondary operation)";
            return std::nullopt;
        }
    }
    std::string spelled;
    for (char ch : operands)
        if (ch != ' ' && ch != '\t')
            spelled += ch;
    if (spelled != "$0,$1,$2,$3;") {
        problem = "operands must be d, a, b, c without lane selectors or masks";
        return std::nullopt;
    }
    return insn;
}

Value *emitPtxSimdVideo(IRBuilder<> &b, const PtxSimdVideo &insn, Value *a, Value *bw, Value *c) {
    const unsigned bits = 32 / insn.lanes;
    Type *i32 = b.getInt32Ty();
    auto *lanes = FixedVectorType::get(b.getIntNTy(bits), insn.lanes);
    auto *wide = FixedVectorType::get(i32, insn.lanes);
    // Each lane widened to 32 bits, where every result is exact.
    auto widen = [&](Value *word) {
        Value *v = b.CreateBitCast(b.CreateZExtOrTrunc(word, i32), lanes);
        return insn.operands_signed ? b.CreateSExt(v, wide) : b.CreateZExt(v, wide);
    };
    auto splat = [&](int64_t value) {
        return ConstantVector::getSplat(ElementCount::getFixed(insn.lanes),
                                        ConstantInt::get(i32, value, true));
    };
    Value *x = widen(a), *y = widen(bw);
    Value *r = nullptr;
    switch (insn.op) {
    case Op::Add:
        r = b.CreateAdd(x, y);
        break;
    case Op::Sub:
        r = b.CreateSub(x, y);
        break;
    case Op::AbsDiff: // the widened difference is exact: |x - y| as smax(d, -d)
        r = b.CreateBinaryIntrinsic(Intrinsic::smax, b.CreateSub(x, y), b.CreateSub(y, x));
        break;
    case Op::Min:
        r = b.CreateBinaryIntrinsic(insn.operands_signed ? Intrinsic::smin : Intrinsic::umin, x, y);
        break;
    case Op::Max:
        r = b.CreateBinaryIntrinsic(insn.operands_signed ? Intrinsic::smax : Intrinsic::umax, x, y);
        break;
    case Op::Average: {
        // Rounded half away from zero: (a + b + (a + b >= 0)) >> 1.
        Value *sum = b.CreateAdd(x, y);
        Value *up =
            insn.operands_signed ? b.CreateZExt(b.CreateICmpSGE(sum, splat(0)), wide) : splat(1);
        r = b.CreateAShr(b.CreateAdd(sum, up), splat(1));
        break;
    }
    case Op::Set: {
        static constexpr CmpInst::Predicate kSigned[] = {CmpInst::ICMP_EQ,  CmpInst::ICMP_NE,
                                                         CmpInst::ICMP_SLT, CmpInst::ICMP_SLE,
                                                         CmpInst::ICMP_SGT, CmpInst::ICMP_SGE};
        static constexpr CmpInst::Predicate kUnsigned[] = {CmpInst::ICMP_EQ,  CmpInst::ICMP_NE,
                                                           CmpInst::ICMP_ULT, CmpInst::ICMP_ULE,
                                                           CmpInst::ICMP_UGT, CmpInst::ICMP_UGE};
        const unsigned which = static_cast<unsigned>(insn.compare);
        r = b.CreateZExt(
            b.CreateICmp(insn.operands_signed ? kSigned[which] : kUnsigned[which], x, y), wide);
        break;
    }
    }
    Value *word;
    if (insn.accumulate) {
        word = b.CreateAdd(b.CreateAddReduce(r), b.CreateZExtOrTrunc(c, i32));
    } else {
        if (insn.saturate) {
            const int64_t lo = insn.result_signed ? -(int64_t(1) << (bits - 1)) : 0;
            const int64_t hi =
                insn.result_signed ? (int64_t(1) << (bits - 1)) - 1 : (int64_t(1) << bits) - 1;
            r = b.CreateBinaryIntrinsic(Intrinsic::smax, r, splat(lo));
            r = b.CreateBinaryIntrinsic(Intrinsic::smin, r, splat(hi));
        }
        word = b.CreateBitCast(b.CreateTrunc(r, lanes), i32);
    }
    return word;
}

} // namespace simtcc
