#include "isa/decode.h"

#include "simtgpu/hw.h"

namespace simtgpu::sim {
namespace {

uint32_t bits(uint32_t v, int hi, int lo) { return (v >> lo) & ((1u << (hi - lo + 1)) - 1); }
int64_t sext(uint64_t v, int width) { return int64_t(v << (64 - width)) >> (64 - width); }

// Encoders of the 32-bit formats, for expanding compressed instructions.
uint32_t enc_r(uint32_t op, uint32_t rd, uint32_t f3, uint32_t rs1, uint32_t rs2, uint32_t f7)
{
    return op | rd << 7 | f3 << 12 | rs1 << 15 | rs2 << 20 | f7 << 25;
}
uint32_t enc_i(uint32_t op, uint32_t rd, uint32_t f3, uint32_t rs1, int32_t imm)
{
    return op | rd << 7 | f3 << 12 | rs1 << 15 | (uint32_t(imm) & 0xfff) << 20;
}
uint32_t enc_s(uint32_t op, uint32_t f3, uint32_t rs1, uint32_t rs2, int32_t imm)
{
    uint32_t u = uint32_t(imm);
    return op | (u & 0x1f) << 7 | f3 << 12 | rs1 << 15 | rs2 << 20 | bits(u, 11, 5) << 25;
}
uint32_t enc_b(uint32_t f3, uint32_t rs1, uint32_t rs2, int32_t imm)
{
    uint32_t u = uint32_t(imm);
    return 0x63 | bits(u, 11, 11) << 7 | bits(u, 4, 1) << 8 | f3 << 12 | rs1 << 15 |
           rs2 << 20 | bits(u, 10, 5) << 25 | bits(u, 12, 12) << 31;
}
uint32_t enc_j(uint32_t rd, int32_t imm)
{
    uint32_t u = uint32_t(imm);
    return 0x6f | rd << 7 | bits(u, 19, 12) << 12 | bits(u, 11, 11) << 20 |
           bits(u, 10, 1) << 21 | bits(u, 20, 20) << 31;
}

constexpr uint32_t kOpLoad = 0x03, kOpLoadFp = 0x07, kOpImm = 0x13, kOpImm32 = 0x1b,
                   kOpStore = 0x23, kOpStoreFp = 0x27, kOpReg = 0x33, kOpLui = 0x37,
                   kOpReg32 = 0x3b, kOpJalr = 0x67;

} // namespace

uint32_t expand_compressed(uint16_t h)
{
    const uint32_t c = h;
    const uint32_t f3 = bits(c, 15, 13);
    const uint32_t rdp = bits(c, 4, 2) + 8, rs1p = bits(c, 9, 7) + 8;
    const uint32_t rd = bits(c, 11, 7), rs2 = bits(c, 6, 2);
    const int32_t imm6 = int32_t(sext(bits(c, 12, 12) << 5 | bits(c, 6, 2), 6));
    switch (c & 3) {
    case 0:
        switch (f3) {
        case 0: { // c.addi4spn
            uint32_t imm = bits(c, 12, 11) << 4 | bits(c, 10, 7) << 6 | bits(c, 6, 6) << 2 |
                           bits(c, 5, 5) << 3;
            return imm ? enc_i(kOpImm, rdp, 0, 2, int32_t(imm)) : 0;
        }
        case 1: // c.fld
            return enc_i(kOpLoadFp, rdp, 3, rs1p, int32_t(bits(c, 12, 10) << 3 | bits(c, 6, 5) << 6));
        case 2: // c.lw
            return enc_i(kOpLoad, rdp, 2, rs1p,
                         int32_t(bits(c, 12, 10) << 3 | bits(c, 6, 6) << 2 | bits(c, 5, 5) << 6));
        case 3: // c.ld
            return enc_i(kOpLoad, rdp, 3, rs1p, int32_t(bits(c, 12, 10) << 3 | bits(c, 6, 5) << 6));
        case 5: // c.fsd
            return enc_s(kOpStoreFp, 3, rs1p, rdp, int32_t(bits(c, 12, 10) << 3 | bits(c, 6, 5) << 6));
        case 6: // c.sw
            return enc_s(kOpStore, 2, rs1p, rdp,
                         int32_t(bits(c, 12, 10) << 3 | bits(c, 6, 6) << 2 | bits(c, 5, 5) << 6));
        case 7: // c.sd
            return enc_s(kOpStore, 3, rs1p, rdp, int32_t(bits(c, 12, 10) << 3 | bits(c, 6, 5) << 6));
        default:
            return 0;
        }
    case 1:
        switch (f3) {
        case 0: // c.addi (c.nop)
            return enc_i(kOpImm, rd, 0, rd, imm6);
        case 1: // c.addiw
            return rd ? enc_i(kOpImm32, rd, 0, rd, imm6) : 0;
        case 2: // c.li
            return enc_i(kOpImm, rd, 0, 0, imm6);
        case 3:
            if (rd == 2) { // c.addi16sp
                int32_t imm = int32_t(sext(bits(c, 12, 12) << 9 | bits(c, 6, 6) << 4 |
                                               bits(c, 5, 5) << 6 | bits(c, 4, 3) << 7 |
                                               bits(c, 2, 2) << 5,
                                           10));
                return imm ? enc_i(kOpImm, 2, 0, 2, imm) : 0;
            }
            // c.lui
            return imm6 ? kOpLui | rd << 7 | (uint32_t(imm6) & 0xfffff) << 12 : 0;
        case 4: {
            const uint32_t shamt = bits(c, 12, 12) << 5 | bits(c, 6, 2);
            switch (bits(c, 11, 10)) {
            case 0: return enc_i(kOpImm, rs1p, 5, rs1p, int32_t(shamt));          // c.srli
            case 1: return enc_i(kOpImm, rs1p, 5, rs1p, int32_t(shamt | 0x400));  // c.srai
            case 2: return enc_i(kOpImm, rs1p, 7, rs1p, imm6);                    // c.andi
            default: {
                const uint32_t r2 = rdp;
                if (!bits(c, 12, 12)) {
                    static const uint32_t f3s[4] = {0, 4, 6, 7}; // sub xor or and
                    const uint32_t f = bits(c, 6, 5);
                    return enc_r(kOpReg, rs1p, f3s[f], rs1p, r2, f == 0 ? 0x20 : 0);
                }
                switch (bits(c, 6, 5)) {
                case 0: return enc_r(kOpReg32, rs1p, 0, rs1p, r2, 0x20); // c.subw
                case 1: return enc_r(kOpReg32, rs1p, 0, rs1p, r2, 0);    // c.addw
                default: return 0;
                }
            }
            }
        }
        case 5: { // c.j
            int32_t imm = int32_t(sext(bits(c, 12, 12) << 11 | bits(c, 11, 11) << 4 |
                                           bits(c, 10, 9) << 8 | bits(c, 8, 8) << 10 |
                                           bits(c, 7, 7) << 6 | bits(c, 6, 6) << 7 |
                                           bits(c, 5, 3) << 1 | bits(c, 2, 2) << 5,
                                       12));
            return enc_j(0, imm);
        }
        default: { // c.beqz / c.bnez
            int32_t imm = int32_t(sext(bits(c, 12, 12) << 8 | bits(c, 11, 10) << 3 |
                                           bits(c, 6, 5) << 6 | bits(c, 4, 3) << 1 |
                                           bits(c, 2, 2) << 5,
                                       9));
            return enc_b(f3 == 6 ? 0 : 1, rs1p, 0, imm);
        }
        }
    case 2:
        switch (f3) {
        case 0: // c.slli
            return enc_i(kOpImm, rd, 1, rd, int32_t(bits(c, 12, 12) << 5 | bits(c, 6, 2)));
        case 1: // c.fldsp
            return enc_i(kOpLoadFp, rd, 3, 2,
                         int32_t(bits(c, 12, 12) << 5 | bits(c, 6, 5) << 3 | bits(c, 4, 2) << 6));
        case 2: // c.lwsp
            return rd ? enc_i(kOpLoad, rd, 2, 2,
                              int32_t(bits(c, 12, 12) << 5 | bits(c, 6, 4) << 2 | bits(c, 3, 2) << 6))
                      : 0;
        case 3: // c.ldsp
            return rd ? enc_i(kOpLoad, rd, 3, 2,
                              int32_t(bits(c, 12, 12) << 5 | bits(c, 6, 5) << 3 | bits(c, 4, 2) << 6))
                      : 0;
        case 4:
            if (!bits(c, 12, 12)) {
                if (rs2 == 0) return rd ? enc_i(kOpJalr, 0, 0, rd, 0) : 0; // c.jr
                return enc_r(kOpReg, rd, 0, 0, rs2, 0);                   // c.mv
            }
            if (rd == 0 && rs2 == 0) return 0x00100073;                   // c.ebreak
            if (rs2 == 0) return enc_i(kOpJalr, 1, 0, rd, 0);             // c.jalr
            return enc_r(kOpReg, rd, 0, rd, rs2, 0);                      // c.add
        case 5: // c.fsdsp
            return enc_s(kOpStoreFp, 3, 2, rs2, int32_t(bits(c, 12, 10) << 3 | bits(c, 9, 7) << 6));
        case 6: // c.swsp
            return enc_s(kOpStore, 2, 2, rs2, int32_t(bits(c, 12, 9) << 2 | bits(c, 8, 7) << 6));
        default: // c.sdsp
            return enc_s(kOpStore, 3, 2, rs2, int32_t(bits(c, 12, 10) << 3 | bits(c, 9, 7) << 6));
        }
    default:
        return 0;
    }
}

namespace {

bool writes_int_rd(Op op)
{
    switch (op) {
    case Op::Beq: case Op::Bne: case Op::Blt: case Op::Bge: case Op::Bltu: case Op::Bgeu:
    case Op::Sb: case Op::Sh: case Op::Sw: case Op::Sd: case Op::Fsw: case Op::Fsd:
    case Op::Fence: case Op::FenceI: case Op::Ecall: case Op::Ebreak: case Op::WarpSync:
    case Op::Nanosleep:
    case Op::Flw: case Op::Fld: case Op::Illegal: case Op::Undecoded:
        return false;
    default:
        break;
    }
    if (op >= Op::FmaddS && op <= Op::FcvtDS) {
        switch (op) {
        case Op::FeqS: case Op::FltS: case Op::FleS: case Op::FclassS: case Op::FcvtWS:
        case Op::FcvtWuS: case Op::FcvtLS: case Op::FcvtLuS: case Op::FmvXW:
        case Op::FeqD: case Op::FltD: case Op::FleD: case Op::FclassD: case Op::FcvtWD:
        case Op::FcvtWuD: case Op::FcvtLD: case Op::FcvtLuD: case Op::FmvXD:
            return true;
        default:
            return false;
        }
    }
    return true;
}

bool valid_rm(uint32_t rm) { return rm <= 4 || rm == 7; }

// OP-FP (opcode 0x53): funct7 selects the operation, bit 25 the precision.
Op decode_op_fp(uint32_t w, bool &needs_rm)
{
    const uint32_t f7 = bits(w, 31, 25), f3 = bits(w, 14, 12), rs2 = bits(w, 24, 20);
    const bool d = f7 & 1;
    needs_rm = true;
    auto sd = [d](Op s, Op dd) { return d ? dd : s; };
    switch (f7 >> 2) {
    case 0x00: return sd(Op::FaddS, Op::FaddD);
    case 0x01: return sd(Op::FsubS, Op::FsubD);
    case 0x02: return sd(Op::FmulS, Op::FmulD);
    case 0x03: return sd(Op::FdivS, Op::FdivD);
    case 0x0b: return rs2 == 0 ? sd(Op::FsqrtS, Op::FsqrtD) : Op::Illegal;
    case 0x04:
        needs_rm = false;
        switch (f3) {
        case 0: return sd(Op::FsgnjS, Op::FsgnjD);
        case 1: return sd(Op::FsgnjnS, Op::FsgnjnD);
        case 2: return sd(Op::FsgnjxS, Op::FsgnjxD);
        default: return Op::Illegal;
        }
    case 0x05:
        needs_rm = false;
        switch (f3) {
        case 0: return sd(Op::FminS, Op::FminD);
        case 1: return sd(Op::FmaxS, Op::FmaxD);
        default: return Op::Illegal;
        }
    case 0x08: // fcvt.s.d (f7 0x20, rs2 1) / fcvt.d.s (f7 0x21, rs2 0)
        if (f7 == 0x20 && rs2 == 1) return Op::FcvtSD;
        if (f7 == 0x21 && rs2 == 0) return Op::FcvtDS;
        return Op::Illegal;
    case 0x14:
        needs_rm = false;
        switch (f3) {
        case 0: return sd(Op::FleS, Op::FleD);
        case 1: return sd(Op::FltS, Op::FltD);
        case 2: return sd(Op::FeqS, Op::FeqD);
        default: return Op::Illegal;
        }
    case 0x18: // fcvt.int.fp
        switch (rs2) {
        case 0: return sd(Op::FcvtWS, Op::FcvtWD);
        case 1: return sd(Op::FcvtWuS, Op::FcvtWuD);
        case 2: return sd(Op::FcvtLS, Op::FcvtLD);
        case 3: return sd(Op::FcvtLuS, Op::FcvtLuD);
        default: return Op::Illegal;
        }
    case 0x1a: // fcvt.fp.int
        switch (rs2) {
        case 0: return sd(Op::FcvtSW, Op::FcvtDW);
        case 1: return sd(Op::FcvtSWu, Op::FcvtDWu);
        case 2: return sd(Op::FcvtSL, Op::FcvtDL);
        case 3: return sd(Op::FcvtSLu, Op::FcvtDLu);
        default: return Op::Illegal;
        }
    case 0x1c:
        needs_rm = false;
        if (rs2 != 0) return Op::Illegal;
        if (f3 == 0) return sd(Op::FmvXW, Op::FmvXD);
        if (f3 == 1) return sd(Op::FclassS, Op::FclassD);
        return Op::Illegal;
    case 0x1e:
        needs_rm = false;
        return rs2 == 0 && f3 == 0 ? sd(Op::FmvWX, Op::FmvDX) : Op::Illegal;
    default:
        return Op::Illegal;
    }
}

Op decode_32(uint32_t w, Insn &in)
{
    const uint32_t opcode = bits(w, 6, 0), f3 = bits(w, 14, 12), f7 = bits(w, 31, 25);
    const int64_t imm_i = sext(bits(w, 31, 20), 12);
    const int64_t imm_s = sext(bits(w, 31, 25) << 5 | bits(w, 11, 7), 12);
    in.imm = imm_i;
    switch (opcode) {
    case 0x37: in.imm = sext(w & 0xfffff000u, 32); return Op::Lui;
    case 0x17: in.imm = sext(w & 0xfffff000u, 32); return Op::Auipc;
    case 0x6f:
        in.imm = sext(bits(w, 31, 31) << 20 | bits(w, 19, 12) << 12 | bits(w, 20, 20) << 11 |
                          bits(w, 30, 21) << 1,
                      21);
        return Op::Jal;
    case 0x67: return f3 == 0 ? Op::Jalr : Op::Illegal;
    case 0x63: {
        in.imm = sext(bits(w, 31, 31) << 12 | bits(w, 7, 7) << 11 | bits(w, 30, 25) << 5 |
                          bits(w, 11, 8) << 1,
                      13);
        static const Op ops[8] = {Op::Beq, Op::Bne, Op::Illegal, Op::Illegal,
                                  Op::Blt, Op::Bge, Op::Bltu,    Op::Bgeu};
        return ops[f3];
    }
    case 0x03: {
        static const Op ops[8] = {Op::Lb, Op::Lh, Op::Lw, Op::Ld, Op::Lbu, Op::Lhu, Op::Lwu, Op::Illegal};
        return ops[f3];
    }
    case 0x23: {
        in.imm = imm_s;
        static const Op ops[8] = {Op::Sb, Op::Sh, Op::Sw, Op::Sd,
                                  Op::Illegal, Op::Illegal, Op::Illegal, Op::Illegal};
        return ops[f3];
    }
    case 0x13:
        switch (f3) {
        case 0: return Op::Addi;
        case 2: return Op::Slti;
        case 3: return Op::Sltiu;
        case 4: return Op::Xori;
        case 6: return Op::Ori;
        case 7: return Op::Andi;
        case 1:
            in.imm = bits(w, 25, 20);
            return bits(w, 31, 26) == 0 ? Op::Slli : Op::Illegal;
        default:
            in.imm = bits(w, 25, 20);
            if (bits(w, 31, 26) == 0) return Op::Srli;
            if (bits(w, 31, 26) == 0x10) return Op::Srai;
            return Op::Illegal;
        }
    case 0x1b:
        switch (f3) {
        case 0: return Op::Addiw;
        case 1: in.imm = bits(w, 24, 20); return f7 == 0 ? Op::Slliw : Op::Illegal;
        case 5:
            in.imm = bits(w, 24, 20);
            if (f7 == 0) return Op::Srliw;
            if (f7 == 0x20) return Op::Sraiw;
            return Op::Illegal;
        default: return Op::Illegal;
        }
    case 0x33:
        if (f7 == 0) {
            static const Op ops[8] = {Op::Add, Op::Sll, Op::Slt, Op::Sltu, Op::Xor, Op::Srl, Op::Or, Op::And};
            return ops[f3];
        }
        if (f7 == 0x20) return f3 == 0 ? Op::Sub : f3 == 5 ? Op::Sra : Op::Illegal;
        if (f7 == 1) {
            static const Op ops[8] = {Op::Mul, Op::Mulh, Op::Mulhsu, Op::Mulhu,
                                      Op::Div, Op::Divu, Op::Rem,    Op::Remu};
            return ops[f3];
        }
        return Op::Illegal;
    case 0x3b:
        if (f7 == 0) return f3 == 0 ? Op::Addw : f3 == 1 ? Op::Sllw : f3 == 5 ? Op::Srlw : Op::Illegal;
        if (f7 == 0x20) return f3 == 0 ? Op::Subw : f3 == 5 ? Op::Sraw : Op::Illegal;
        if (f7 == 1) {
            switch (f3) {
            case 0: return Op::Mulw;
            case 4: return Op::Divw;
            case 5: return Op::Divuw;
            case 6: return Op::Remw;
            case 7: return Op::Remuw;
            default: return Op::Illegal;
            }
        }
        return Op::Illegal;
    case 0x0f:
        if (f3 == 0) return Op::Fence;
        if (f3 == 1) return Op::FenceI;
        return Op::Illegal;
    case 0x73:
        in.imm = bits(w, 31, 20);
        switch (f3) {
        case 0:
            if (bits(w, 19, 7) != 0) return Op::Illegal;
            if (bits(w, 31, 20) == 0) return Op::Ecall;
            if (bits(w, 31, 20) == 1) return Op::Ebreak;
            return Op::Illegal;
        case 1: return Op::Csrrw;
        case 2: return Op::Csrrs;
        case 3: return Op::Csrrc;
        case 5: return Op::Csrrwi;
        case 6: return Op::Csrrsi;
        case 7: return Op::Csrrci;
        default: return Op::Illegal;
        }
    case 0x2f: {
        const uint32_t f5 = bits(w, 31, 27);
        in.funct = uint8_t(f5);
        if (f3 != 2 && f3 != 3) return Op::Illegal;
        const bool d = f3 == 3;
        switch (f5) {
        case 0x02: return bits(w, 24, 20) == 0 ? (d ? Op::LrD : Op::LrW) : Op::Illegal;
        case 0x03: return d ? Op::ScD : Op::ScW;
        case kAmoAdd: case kAmoSwap: case kAmoXor: case kAmoOr: case kAmoAnd:
        case kAmoMin: case kAmoMax: case kAmoMinu: case kAmoMaxu: case kAmoCas:
            return d ? Op::AmoD : Op::AmoW;
        default: return Op::Illegal;
        }
    }
    case 0x07:
        if (f3 == 2) return Op::Flw;
        if (f3 == 3) return Op::Fld;
        return Op::Illegal;
    case 0x27:
        in.imm = imm_s;
        if (f3 == 2) return Op::Fsw;
        if (f3 == 3) return Op::Fsd;
        return Op::Illegal;
    case 0x43: case 0x47: case 0x4b: case 0x4f: {
        const uint32_t fmt = bits(w, 26, 25);
        if (fmt > 1 || !valid_rm(f3)) return Op::Illegal;
        const int k = (opcode - 0x43) / 4; // madd msub nmsub nmadd
        return Op(int(fmt ? Op::FmaddD : Op::FmaddS) + k);
    }
    case 0x53: {
        bool needs_rm = false;
        Op op = decode_op_fp(w, needs_rm);
        if (needs_rm && !valid_rm(f3)) return Op::Illegal;
        if (op != Op::Illegal && op != Op::FcvtSD && op != Op::FcvtDS && bits(w, 26, 25) > 1)
            return Op::Illegal;
        return op;
    }
    case SIMTGPU_OPCODE_CUSTOM0:
        switch (f3) {
        case SIMTGPU_F3_BARRIER:
            in.funct = uint8_t(f7);
            return f7 <= SIMTGPU_BAR_ARRIVE ? Op::Bar : Op::Illegal;
        case SIMTGPU_F3_VOTE:
            in.funct = uint8_t(f7);
            return f7 <= SIMTGPU_VOTE_UNI ? Op::Vote : Op::Illegal;
        case SIMTGPU_F3_SHUFFLE:
            in.funct = uint8_t(bits(w, 26, 25));
            return Op::Shfl;
        case SIMTGPU_F3_WARP:
            if (f7 == SIMTGPU_WARP_ACTIVEMASK) return Op::ActiveMask;
            if (f7 == SIMTGPU_WARP_SYNC) return Op::WarpSync;
            if (f7 == SIMTGPU_WARP_NANOSLEEP) return Op::Nanosleep;
            return Op::Illegal;
        case SIMTGPU_F3_MATCH:
            in.funct = uint8_t(f7);
            return f7 <= SIMTGPU_MATCH_ALL ? Op::Match : Op::Illegal;
        case SIMTGPU_F3_REDUX:
            in.funct = uint8_t(f7);
            return f7 <= SIMTGPU_REDUX_MAXU ? Op::Redux : Op::Illegal;
        case SIMTGPU_F3_ATOMIC:
            switch (f7) {
            case SIMTGPU_ATOM_FADD_S: in.funct = kAmoFadd; return Op::AmoW;
            case SIMTGPU_ATOM_FADD_D: in.funct = kAmoFadd; return Op::AmoD;
            case SIMTGPU_ATOM_INC_W: in.funct = kAmoIncW; return Op::AmoW;
            case SIMTGPU_ATOM_DEC_W: in.funct = kAmoDecW; return Op::AmoW;
            default: return Op::Illegal;
            }
        default:
            return Op::Illegal;
        }
    default:
        return Op::Illegal;
    }
}

} // namespace

Insn decode(uint32_t bits_in)
{
    Insn in;
    uint32_t w = bits_in;
    if ((bits_in & 3) != 3) {
        in.raw = bits_in & 0xffff;
        in.len = 2;
        w = expand_compressed(uint16_t(bits_in));
        if (w == 0) {
            in.op = Op::Illegal;
            return in;
        }
    } else {
        in.raw = bits_in;
    }
    in.rd = uint8_t(bits(w, 11, 7));
    in.rs1 = uint8_t(bits(w, 19, 15));
    in.rs2 = uint8_t(bits(w, 24, 20));
    in.rs3 = uint8_t(bits(w, 31, 27));
    in.rm = uint8_t(bits(w, 14, 12));
    in.op = decode_32(w, in);
    if (in.op == Op::Illegal) {
        in.imm = 0;
        return in;
    }
    if (in.rd == 0 && writes_int_rd(in.op)) in.rd = kRegSink;
    return in;
}

} // namespace simtgpu::sim
