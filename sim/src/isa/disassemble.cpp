#include "isa/disassemble.h"

#include "isa/decode.h"

#include <cstdio>

namespace simtgpu::sim {
namespace {

const char *const kXNames[32] = {"zero", "ra", "sp", "gp", "tp",  "t0",  "t1", "t2",
                                 "s0",   "s1", "a0", "a1", "a2",  "a3",  "a4", "a5",
                                 "a6",   "a7", "s2", "s3", "s4",  "s5",  "s6", "s7",
                                 "s8",   "s9", "s10", "s11", "t3", "t4", "t5", "t6"};
const char *const kFNames[32] = {"ft0", "ft1", "ft2",  "ft3",  "ft4", "ft5", "ft6",  "ft7",
                                 "fs0", "fs1", "fa0",  "fa1",  "fa2", "fa3", "fa4",  "fa5",
                                 "fa6", "fa7", "fs2",  "fs3",  "fs4", "fs5", "fs6",  "fs7",
                                 "fs8", "fs9", "fs10", "fs11", "ft8", "ft9", "ft10", "ft11"};

std::string reg(RegFile file, uint8_t r)
{
    if (r == kRegSink) r = 0; // decode's write sink is x0
    return file == RegFile::f ? kFNames[r] : kXNames[r];
}

std::string hex(uint64_t v)
{
    char text[24];
    std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(v));
    return text;
}

} // namespace

std::string disassemble(uint32_t bits, uint64_t pc)
{
    const Insn in = decode(bits);
    const uint32_t word = in.len == 2 ? expand_compressed(uint16_t(bits)) : bits;
    const Encoding *e = in.op == Op::Illegal ? nullptr : find_encoding(word);
    if (!e) {
        char text[24];
        std::snprintf(text, sizeof text, in.len == 2 ? ".insn 0x%04x" : ".insn 0x%08x", in.raw);
        return text;
    }
    const OpInfo &op = op_info(in.op);
    const std::string rd = reg(op.rd, in.rd), rs1 = reg(op.rs1, in.rs1), rs2 = reg(op.rs2, in.rs2);
    std::string operands;
    switch (e->imm) {
    case ImmFormat::u:
        operands = rd + ", " + hex(uint64_t(in.imm) >> 12 & 0xfffff);
        break;
    case ImmFormat::j:
        operands = rd + ", " + hex(pc + uint64_t(in.imm));
        break;
    case ImmFormat::b:
        operands = rs1 + ", " + rs2 + ", " + hex(pc + uint64_t(in.imm));
        break;
    case ImmFormat::s:
        operands = rs2 + ", " + std::to_string(in.imm) + "(" + rs1 + ")";
        break;
    case ImmFormat::i:
        if (in.op == Op::Fence || in.op == Op::FenceI)
            break;
        if (op.mem == MemOp::load || in.op == Op::Jalr)
            operands = rd + ", " + std::to_string(in.imm) + "(" + rs1 + ")";
        else
            operands = rd + ", " + rs1 + ", " + std::to_string(in.imm);
        break;
    case ImmFormat::shamt6:
    case ImmFormat::shamt5:
        operands = rd + ", " + rs1 + ", " + std::to_string(in.imm);
        break;
    case ImmFormat::csr: // the immediate forms' rs1 field is the value
        operands = rd + ", " + hex(uint64_t(in.imm)) + ", " +
                   (op.rs1 == RegFile::no ? std::to_string(in.rs1) : rs1);
        break;
    case ImmFormat::none:
        if (op.mem == MemOp::atomic) { // lr rd, (rs1); the others rd, rs2, (rs1)
            operands = rd + ", " + (in.op == Op::LrW || in.op == Op::LrD ? "" : rs2 + ", ") +
                       "(" + rs1 + ")";
            break;
        }
        for (const auto &[file, r] : {std::pair{op.rd, in.rd}, std::pair{op.rs1, in.rs1},
                                      std::pair{op.rs2, in.rs2}, std::pair{op.rs3, in.rs3}}) {
            if (file == RegFile::no)
                continue;
            operands += (operands.empty() ? "" : ", ") + reg(file, r);
        }
        break;
    }
    return operands.empty() ? e->mnemonic : std::string(e->mnemonic) + " " + operands;
}

} // namespace simtgpu::sim
