// Floating point (F and D): per-lane rounding modes and exception flags,
// whole warps in host SIMD where fp::lanes can.
#include "sm/fp.h"
#include "sm/sm_state.h"

namespace simtgpu::sim {

bool Sm::Impl::lane_rm(Warp &w, const Insn &in, uint32_t l, uint8_t &rm)
{
    rm = in.rm == fp::kDyn ? w.frm[l] : in.rm;
    return rm <= fp::kRmm;
}

// An operation that rounds: compute(l) leaves lane l's result in res[l]
// using host arithmetic in the current host rounding mode; rmm(l) redoes it
// with ties away from zero (called only when the result was inexact). Lanes
// are grouped by rounding mode; each lane's fflags get exactly its own
// exceptions.
template <class Compute, class Rmm>
bool Sm::Impl::fp_rounded(uint32_t slot, const Insn &in, uint64_t mask, uint64_t *dst,
                          const Compute &compute, const Rmm &rmm, const WarpFp &warp_op)
{
    Warp &w = warps[slot];
    uint64_t by_rm[5] = {0, 0, 0, 0, 0};
    if (in.rm != fp::kDyn) {
        by_rm[in.rm] = mask;
    } else if (frm_all_rne(w)) { // the usual case: no lane changed frm
        by_rm[fp::kRne] = mask;
    } else {
        for (uint64_t m = mask; m; m &= m - 1) {
            const uint32_t l = uint32_t(std::countr_zero(m));
            uint8_t rm;
            if (!lane_rm(w, in, l, rm)) {
                raise(SIMTGPU_EXC_ILLEGAL_INSTRUCTION, slot, l, fault_pc, in.raw);
                return false;
            }
            by_rm[rm] |= uint64_t(1) << l;
        }
    }
    for (uint8_t rm = 0; rm < fp::kRmm; ++rm) { // host-supported modes
        const uint64_t lanes = by_rm[rm];
        if (!lanes) continue;
        auto run_lanes = [&] {
            if (warp_op.ok && simd_fp && lanes == full_mask) {
                if (warp_op.dbl)
                    fp::lanes::dbl(warp_op.kind, warp_op.a, warp_op.b, warp_op.c, warp_op.sa,
                                   warp_op.sc, res, W);
                else
                    fp::lanes::single(warp_op.kind, warp_op.a, warp_op.b, warp_op.c,
                                      float(warp_op.sa), float(warp_op.sc), res, W);
            } else {
                each(lanes, compute);
            }
        };
        // Nearest-even, the host's own mode, runs without setting the mode
        // or clearing the flags: flags left from earlier operations only
        // make `raised` a superset, and the lanes are run again from clear
        // flags when a lane lacks one.
        bool cleared = rm != fp::kRne;
        if (cleared) fp::set_round(rm); // also clears the flags
        run_lanes();
        fp::HostFpState host = fp::host_state();
        if (!cleared && !host.nearest_even) { // the host program changed its mode
            fp::set_round(fp::kRne);
            cleared = true;
            run_lanes();
            host = fp::host_state();
        }
        uint8_t raised = host.flags;
        if (!raised || lanes_have_flags(w, lanes, raised)) continue;
        if (!cleared) {
            fp::clear_flags();
            run_lanes();
            raised = fp::flags();
            if (!raised || lanes_have_flags(w, lanes, raised)) continue;
        }
        // Attribute the flags to lanes.
        auto lane_flags = [&](uint32_t l) { // the lane alone, by the FPU
            fp::clear_flags();
            compute(l);
            w.fflags[l] |= fp::flags();
        };
        using fp::lanes::Kind;
        if (rm == fp::kRne && raised == fp::kNX && warp_op.ok && warp_op.kind <= Kind::Mul) {
            // Only NX, the usual case (a warp's first FP add): which lanes
            // were inexact, by error-free transforms rather than the FPU's
            // flags lane by lane.
            const double sign = warp_op.kind == Kind::Sub ? -1 : 1;
            each(lanes, [&](uint32_t l) {
                int nx;
                if (warp_op.dbl) {
                    const double a = std::bit_cast<double>(warp_op.a[l]);
                    const double b = sign * std::bit_cast<double>(warp_op.b[l]);
                    nx = warp_op.kind == Kind::Mul ? fp::rne_product_inexact(a, b)
                                                   : fp::rne_sum_inexact(a, b);
                } else {
                    const float a = fp::unbox(warp_op.a[l]);
                    const float b = float(sign) * fp::unbox(warp_op.b[l]);
                    nx = warp_op.kind == Kind::Mul ? fp::rne_product_inexact(a, b)
                                                   : fp::rne_sum_inexact(a, b);
                }
                if (nx < 0)
                    lane_flags(l);
                else if (nx)
                    w.fflags[l] |= fp::kNX;
            });
            continue;
        }
        for (uint64_t m = lanes; m; m &= m - 1)
            lane_flags(uint32_t(std::countr_zero(m)));
    }
    if (const uint64_t lanes = by_rm[fp::kRmm]) {
        fp::set_round(fp::kRne);
        for (uint64_t m = lanes; m; m &= m - 1) {
            const uint32_t l = uint32_t(std::countr_zero(m));
            fp::clear_flags();
            compute(l);
            const uint8_t raised = fp::flags();
            w.fflags[l] |= raised;
            if (raised & fp::kNX) rmm(l);
        }
    }
    if (mask != by_rm[fp::kRne]) fp::set_round(fp::kRne); // the host's own mode
    each(mask, [&](uint32_t l) { dst[l] = res[l]; });
    return true;
}

bool Sm::Impl::exec_fp(uint32_t slot, const Insn &in, uint64_t mask)
{
    Warp &w = warps[slot];
    const uint64_t *f1 = F(w, in.rs1), *f2 = F(w, in.rs2), *f3 = F(w, in.rs3);
    const uint64_t *x1 = X(w, in.rs1);
    uint64_t *fd = F(w, in.rd), *xd = X(w, in.rd);
    auto S = [](uint64_t r) { return fp::unbox(r); };
    auto D = [](uint64_t r) { return std::bit_cast<double>(r); };
    auto bs = [](float v) { return fp::box(fp::canonicalize(v)); };
    auto bd = [](double v) { return std::bit_cast<uint64_t>(fp::canonicalize(v)); };
    auto none = [](uint32_t) {};
    // Operations with exact software flags, into res then dst.
    auto soft = [&](uint64_t *dst, auto op) {
        each(mask, [&](uint32_t l) {
            uint8_t fl = 0;
            res[l] = op(l, fl);
            w.fflags[l] |= fl;
        });
        each(mask, [&](uint32_t l) { dst[l] = res[l]; });
        return true;
    };
    // Float-to-integer conversions: the rounding mode per lane, in software.
    auto to_int = [&](auto op) {
        for (uint64_t m = mask; m; m &= m - 1) {
            const uint32_t l = uint32_t(std::countr_zero(m));
            uint8_t rm;
            if (!lane_rm(w, in, l, rm)) {
                raise(SIMTGPU_EXC_ILLEGAL_INSTRUCTION, slot, l, fault_pc, in.raw);
                return false;
            }
            uint8_t fl = 0;
            res[l] = op(l, rm, fl);
            w.fflags[l] |= fl;
        }
        each(mask, [&](uint32_t l) { xd[l] = res[l]; });
        return true;
    };
    auto sx32 = [](auto v) { return uint64_t(int64_t(int32_t(uint32_t(v)))); };

    switch (in.op) {
    // ---- single
    case Op::FaddS:
        return fp_rounded(slot, in, mask, fd, [&](uint32_t l) { res[l] = bs(S(f1[l]) + S(f2[l])); },
                          [&](uint32_t l) { res[l] = bs(fp::rmm_add(S(f1[l]), S(f2[l]))); },
                          WarpFp{true, false, fp::lanes::Kind::Add, f1, f2, f3});
    case Op::FsubS:
        return fp_rounded(slot, in, mask, fd, [&](uint32_t l) { res[l] = bs(S(f1[l]) - S(f2[l])); },
                          [&](uint32_t l) { res[l] = bs(fp::rmm_add(S(f1[l]), -S(f2[l]))); },
                          WarpFp{true, false, fp::lanes::Kind::Sub, f1, f2, f3});
    case Op::FmulS:
        return fp_rounded(slot, in, mask, fd, [&](uint32_t l) { res[l] = bs(S(f1[l]) * S(f2[l])); },
                          [&](uint32_t l) { res[l] = bs(fp::rmm_mul(S(f1[l]), S(f2[l]))); },
                          WarpFp{true, false, fp::lanes::Kind::Mul, f1, f2, f3});
    case Op::FdivS: // a quotient is never a tie: RMM == RNE
        return fp_rounded(slot, in, mask, fd, [&](uint32_t l) { res[l] = bs(S(f1[l]) / S(f2[l])); }, none,
                          WarpFp{true, false, fp::lanes::Kind::Div, f1, f2, f3});
    case Op::FsqrtS: // nor is a square root
        return fp_rounded(slot, in, mask, fd, [&](uint32_t l) { res[l] = bs(std::sqrt(S(f1[l]))); }, none,
                          WarpFp{true, false, fp::lanes::Kind::Sqrt, f1, f2, f3});
    case Op::FmaddS: case Op::FmsubS: case Op::FnmsubS: case Op::FnmaddS: {
        const float sa = (in.op == Op::FnmsubS || in.op == Op::FnmaddS) ? -1.0f : 1.0f;
        const float sc = (in.op == Op::FmsubS || in.op == Op::FnmaddS) ? -1.0f : 1.0f;
        return fp_rounded(slot, in, mask, fd,
                          [&](uint32_t l) { res[l] = bs(fp::fma(sa * S(f1[l]), S(f2[l]), sc * S(f3[l]))); },
                          [&](uint32_t l) { res[l] = bs(fp::rmm_fma(sa * S(f1[l]), S(f2[l]), sc * S(f3[l]))); },
                          WarpFp{true, false, fp::lanes::Kind::Fma, f1, f2, f3, sa, sc});
    }
    case Op::FsgnjS: case Op::FsgnjnS: case Op::FsgnjxS:
        return soft(fd, [&](uint32_t l, uint8_t &) {
            const uint32_t a = std::bit_cast<uint32_t>(S(f1[l])), b = std::bit_cast<uint32_t>(S(f2[l]));
            uint32_t sign = b & 0x80000000u;
            if (in.op == Op::FsgnjnS) sign ^= 0x80000000u;
            if (in.op == Op::FsgnjxS) sign = (a ^ b) & 0x80000000u;
            return fp::kBoxMask | (a & 0x7fffffffu) | sign;
        });
    case Op::FminS: case Op::FmaxS:
        return soft(fd, [&](uint32_t l, uint8_t &fl) {
            return fp::box(fp::fminmax(S(f1[l]), S(f2[l]), in.op == Op::FmaxS, fl));
        });
    case Op::FeqS: return soft(xd, [&](uint32_t l, uint8_t &fl) { return fp::feq(S(f1[l]), S(f2[l]), fl); });
    case Op::FltS: return soft(xd, [&](uint32_t l, uint8_t &fl) { return fp::flt(S(f1[l]), S(f2[l]), false, fl); });
    case Op::FleS: return soft(xd, [&](uint32_t l, uint8_t &fl) { return fp::flt(S(f1[l]), S(f2[l]), true, fl); });
    case Op::FclassS: return soft(xd, [&](uint32_t l, uint8_t &) { return fp::fclass(S(f1[l])); });
    case Op::FmvXW: return soft(xd, [&](uint32_t l, uint8_t &) { return sx32(f1[l]); });
    case Op::FmvWX: return soft(fd, [&](uint32_t l, uint8_t &) { return fp::kBoxMask | uint32_t(x1[l]); });
    case Op::FcvtWS:
        return to_int([&](uint32_t l, uint8_t rm, uint8_t &fl) { return sx32(fp::to_int<int32_t>(S(f1[l]), rm, fl)); });
    case Op::FcvtWuS:
        return to_int([&](uint32_t l, uint8_t rm, uint8_t &fl) { return sx32(fp::to_int<uint32_t>(S(f1[l]), rm, fl)); });
    case Op::FcvtLS:
        return to_int([&](uint32_t l, uint8_t rm, uint8_t &fl) { return uint64_t(fp::to_int<int64_t>(S(f1[l]), rm, fl)); });
    case Op::FcvtLuS:
        return to_int([&](uint32_t l, uint8_t rm, uint8_t &fl) { return fp::to_int<uint64_t>(S(f1[l]), rm, fl); });
    case Op::FcvtSW:
        return fp_rounded(slot, in, mask, fd, [&](uint32_t l) { res[l] = bs(float(int32_t(x1[l]))); },
                          [&](uint32_t l) { res[l] = bs(fp::round_rmm<float>(int32_t(x1[l]), 0)); });
    case Op::FcvtSWu:
        return fp_rounded(slot, in, mask, fd, [&](uint32_t l) { res[l] = bs(float(uint32_t(x1[l]))); },
                          [&](uint32_t l) { res[l] = bs(fp::round_rmm<float>(uint32_t(x1[l]), 0)); });
    case Op::FcvtSL:
        return fp_rounded(slot, in, mask, fd, [&](uint32_t l) { res[l] = bs(float(int64_t(x1[l]))); },
                          [&](uint32_t l) { res[l] = bs(fp::round_rmm<float>(int64_t(x1[l]), 0)); });
    case Op::FcvtSLu:
        return fp_rounded(slot, in, mask, fd, [&](uint32_t l) { res[l] = bs(float(x1[l])); },
                          [&](uint32_t l) { res[l] = bs(fp::round_rmm<float>(x1[l], 0)); });
    // ---- double
    case Op::FaddD:
        return fp_rounded(slot, in, mask, fd, [&](uint32_t l) { res[l] = bd(D(f1[l]) + D(f2[l])); },
                          [&](uint32_t l) { res[l] = bd(fp::rmm_add(D(f1[l]), D(f2[l]))); },
                          WarpFp{true, true, fp::lanes::Kind::Add, f1, f2, f3});
    case Op::FsubD:
        return fp_rounded(slot, in, mask, fd, [&](uint32_t l) { res[l] = bd(D(f1[l]) - D(f2[l])); },
                          [&](uint32_t l) { res[l] = bd(fp::rmm_add(D(f1[l]), -D(f2[l]))); },
                          WarpFp{true, true, fp::lanes::Kind::Sub, f1, f2, f3});
    case Op::FmulD:
        return fp_rounded(slot, in, mask, fd, [&](uint32_t l) { res[l] = bd(D(f1[l]) * D(f2[l])); },
                          [&](uint32_t l) { res[l] = bd(fp::rmm_mul(D(f1[l]), D(f2[l]))); },
                          WarpFp{true, true, fp::lanes::Kind::Mul, f1, f2, f3});
    case Op::FdivD:
        return fp_rounded(slot, in, mask, fd, [&](uint32_t l) { res[l] = bd(D(f1[l]) / D(f2[l])); }, none,
                          WarpFp{true, true, fp::lanes::Kind::Div, f1, f2, f3});
    case Op::FsqrtD:
        return fp_rounded(slot, in, mask, fd, [&](uint32_t l) { res[l] = bd(std::sqrt(D(f1[l]))); }, none,
                          WarpFp{true, true, fp::lanes::Kind::Sqrt, f1, f2, f3});
    case Op::FmaddD: case Op::FmsubD: case Op::FnmsubD: case Op::FnmaddD: {
        const double sa = (in.op == Op::FnmsubD || in.op == Op::FnmaddD) ? -1.0 : 1.0;
        const double sc = (in.op == Op::FmsubD || in.op == Op::FnmaddD) ? -1.0 : 1.0;
        return fp_rounded(slot, in, mask, fd,
                          [&](uint32_t l) { res[l] = bd(fp::fma(sa * D(f1[l]), D(f2[l]), sc * D(f3[l]))); },
                          [&](uint32_t l) { res[l] = bd(fp::rmm_fma(sa * D(f1[l]), D(f2[l]), sc * D(f3[l]))); },
                          WarpFp{true, true, fp::lanes::Kind::Fma, f1, f2, f3, sa, sc});
    }
    case Op::FsgnjD: case Op::FsgnjnD: case Op::FsgnjxD:
        return soft(fd, [&](uint32_t l, uint8_t &) {
            const uint64_t a = f1[l], b = f2[l], top = uint64_t(1) << 63;
            uint64_t sign = b & top;
            if (in.op == Op::FsgnjnD) sign ^= top;
            if (in.op == Op::FsgnjxD) sign = (a ^ b) & top;
            return (a & ~top) | sign;
        });
    case Op::FminD: case Op::FmaxD:
        return soft(fd, [&](uint32_t l, uint8_t &fl) {
            return std::bit_cast<uint64_t>(fp::fminmax(D(f1[l]), D(f2[l]), in.op == Op::FmaxD, fl));
        });
    case Op::FeqD: return soft(xd, [&](uint32_t l, uint8_t &fl) { return fp::feq(D(f1[l]), D(f2[l]), fl); });
    case Op::FltD: return soft(xd, [&](uint32_t l, uint8_t &fl) { return fp::flt(D(f1[l]), D(f2[l]), false, fl); });
    case Op::FleD: return soft(xd, [&](uint32_t l, uint8_t &fl) { return fp::flt(D(f1[l]), D(f2[l]), true, fl); });
    case Op::FclassD: return soft(xd, [&](uint32_t l, uint8_t &) { return fp::fclass(D(f1[l])); });
    case Op::FmvXD: return soft(xd, [&](uint32_t l, uint8_t &) { return f1[l]; });
    case Op::FmvDX: return soft(fd, [&](uint32_t l, uint8_t &) { return x1[l]; });
    case Op::FcvtWD:
        return to_int([&](uint32_t l, uint8_t rm, uint8_t &fl) { return sx32(fp::to_int<int32_t>(D(f1[l]), rm, fl)); });
    case Op::FcvtWuD:
        return to_int([&](uint32_t l, uint8_t rm, uint8_t &fl) { return sx32(fp::to_int<uint32_t>(D(f1[l]), rm, fl)); });
    case Op::FcvtLD:
        return to_int([&](uint32_t l, uint8_t rm, uint8_t &fl) { return uint64_t(fp::to_int<int64_t>(D(f1[l]), rm, fl)); });
    case Op::FcvtLuD:
        return to_int([&](uint32_t l, uint8_t rm, uint8_t &fl) { return fp::to_int<uint64_t>(D(f1[l]), rm, fl); });
    case Op::FcvtDW: // exact
        return fp_rounded(slot, in, mask, fd, [&](uint32_t l) { res[l] = bd(double(int32_t(x1[l]))); }, none);
    case Op::FcvtDWu:
        return fp_rounded(slot, in, mask, fd, [&](uint32_t l) { res[l] = bd(double(uint32_t(x1[l]))); }, none);
    case Op::FcvtDL:
        return fp_rounded(slot, in, mask, fd, [&](uint32_t l) { res[l] = bd(double(int64_t(x1[l]))); },
                          [&](uint32_t l) { res[l] = bd(fp::round_rmm<double>(int64_t(x1[l]), 0)); });
    case Op::FcvtDLu:
        return fp_rounded(slot, in, mask, fd, [&](uint32_t l) { res[l] = bd(double(x1[l])); },
                          [&](uint32_t l) { res[l] = bd(fp::round_rmm<double>(x1[l], 0)); });
    case Op::FcvtSD:
        return fp_rounded(slot, in, mask, fd, [&](uint32_t l) { res[l] = bs(float(D(f1[l]))); },
                          [&](uint32_t l) { res[l] = bs(fp::round_rmm<float>(D(f1[l]), 0)); });
    case Op::FcvtDS: // exact
        return fp_rounded(slot, in, mask, fd, [&](uint32_t l) { res[l] = bd(double(S(f1[l]))); }, none);
    default:
        raise(SIMTGPU_EXC_ILLEGAL_INSTRUCTION, slot, uint32_t(std::countr_zero(mask)), fault_pc, in.raw);
        return false;
    }
}

} // namespace simtgpu::sim
