#include "isa/decode.h"

#include <array>
#include <iterator>

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

constexpr Encoding kEncodings[] = {
#define SIMTGPU_X(mnemonic, name, match, mask, imm, funct, rounds)                                \
    {mnemonic, Op::name, match, mask, ImmFormat::imm, FunctField::funct, rounds},
    SIMTGPU_ISA_ENCODINGS(SIMTGPU_X)
#undef SIMTGPU_X
};
static_assert(std::size(kEncodings) <= 256, "kEncodingsByOpcode holds 8-bit row numbers");

// The rows of each major opcode (bits 6:0), so that a decode tries a few.
// Built at compile time: nothing here is destroyed at exit, when the
// device's engine thread may still be decoding a kernel the program left
// running (a function-local static vector was freed under it).
struct OpcodeIndex {
    std::array<uint8_t, 128> first{}, count{};
    std::array<uint8_t, std::size(kEncodings)> rows{};
};

constexpr OpcodeIndex make_opcode_index()
{
    OpcodeIndex index;
    size_t n = 0;
    for (uint32_t opcode = 0; opcode < 128; ++opcode) {
        index.first[opcode] = uint8_t(n);
        for (size_t r = 0; r < std::size(kEncodings); ++r)
            if ((kEncodings[r].match & 0x7f) == opcode)
                index.rows[n++] = uint8_t(r);
        index.count[opcode] = uint8_t(n - index.first[opcode]);
    }
    return index;
}

constexpr OpcodeIndex kByOpcode = make_opcode_index();

bool valid_rm(uint32_t rm) { return rm <= 4 || rm == 7; }

int64_t immediate(ImmFormat format, uint32_t w)
{
    switch (format) {
    case ImmFormat::none: return 0;
    case ImmFormat::i: return sext(bits(w, 31, 20), 12);
    case ImmFormat::s: return sext(bits(w, 31, 25) << 5 | bits(w, 11, 7), 12);
    case ImmFormat::b:
        return sext(bits(w, 31, 31) << 12 | bits(w, 7, 7) << 11 | bits(w, 30, 25) << 5 |
                        bits(w, 11, 8) << 1,
                    13);
    case ImmFormat::u: return sext(w & 0xfffff000u, 32);
    case ImmFormat::j:
        return sext(bits(w, 31, 31) << 20 | bits(w, 19, 12) << 12 | bits(w, 20, 20) << 11 |
                        bits(w, 30, 21) << 1,
                    21);
    case ImmFormat::shamt6: return bits(w, 25, 20);
    case ImmFormat::shamt5: return bits(w, 24, 20);
    case ImmFormat::csr: return bits(w, 31, 20);
    }
    return 0;
}

uint8_t funct(FunctField field, uint32_t w)
{
    switch (field) {
    case FunctField::none: return 0;
    case FunctField::amo5: return uint8_t(bits(w, 31, 27));
    case FunctField::funct7: return uint8_t(bits(w, 31, 25));
    case FunctField::funct2: return uint8_t(bits(w, 26, 25));
    case FunctField::fadd: return kAmoFadd;
    case FunctField::inc_w: return kAmoIncW;
    case FunctField::dec_w: return kAmoDecW;
    }
    return 0;
}

} // namespace

const Encoding *find_encoding(uint32_t w)
{
    const uint32_t opcode = w & 0x7f;
    for (uint32_t i = kByOpcode.first[opcode]; i < kByOpcode.first[opcode] + kByOpcode.count[opcode];
         ++i) {
        const Encoding &e = kEncodings[kByOpcode.rows[i]];
        if ((w & e.mask) == e.match && (!e.rounds || valid_rm(bits(w, 14, 12))))
            return &e;
    }
    return nullptr;
}

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
    const Encoding *e = find_encoding(w);
    if (!e) {
        in.op = Op::Illegal;
        return in;
    }
    in.op = e->op;
    in.imm = immediate(e->imm, w);
    in.funct = funct(e->funct, w);
    if (in.rd == 0 && op_info(in.op).rd == RegFile::x) in.rd = kRegSink;
    return in;
}

} // namespace simtgpu::sim
