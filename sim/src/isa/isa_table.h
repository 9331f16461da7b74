// The instruction set (RV64GC + the SIMT extension, docs/isa.md), described
// once, as include/simtgpu/counters.h describes the counters: every part of
// the simulator that needs to know an instruction iterates over these lists.
//
// SIMTGPU_ISA_OPS(X): the operations the SM executes, in the order of the
// Op enum (isa/decode.h; the interpreter relies on the FP ranges staying
// together). X(Name, rd, rs1, rs2, rs3, cls, mem, bytes):
//   rd..rs3  the register file each field names (RegFile): no register,
//            x integer, f floating point. The timing model's scoreboard and
//            the disassembler read them, and decode points an integer rd of
//            x0 at the write sink;
//   cls      the timing model's instruction class (timing::InsnClass);
//   mem      the memory access (MemOp) and bytes its size per lane.
//
// SIMTGPU_ISA_ENCODINGS(X): how each operation is encoded, one row per
// mnemonic. X("mnemonic", Name, match, mask, imm, funct, rounds): a 32-bit
// word w (compressed ones are expanded first) is this instruction when
// (w & mask) == match; imm names the immediate's format (ImmFormat), funct
// where Insn::funct comes from (FunctField), and rounds whether the rm field
// must be a valid rounding mode. No two rows match the same word.
#pragma once

#include "simtgpu/hw.h"

// clang-format off
#define SIMTGPU_ISA_OPS(X)                                   \
    X(Undecoded, no, no, no, no, integer, none, 0) /* a code cache slot not decoded yet */ \
    X(Illegal,   no, no, no, no, integer, none, 0)                                               \
    /* RV64I */                                              \
    X(Lui,    x, no, no, no, integer, none, 0)                                                   \
    X(Auipc,  x, no, no, no, integer, none, 0)                                                   \
    X(Jal,    x, no, no, no, branch,  none, 0)                                                   \
    X(Jalr,   x, x, no, no, branch,  none, 0)                                                    \
    X(Beq,    no, x, x, no, branch,  none, 0)                                                    \
    X(Bne,    no, x, x, no, branch,  none, 0)                                                    \
    X(Blt,    no, x, x, no, branch,  none, 0)                                                    \
    X(Bge,    no, x, x, no, branch,  none, 0)                                                    \
    X(Bltu,   no, x, x, no, branch,  none, 0)                                                    \
    X(Bgeu,   no, x, x, no, branch,  none, 0)                                                    \
    X(Lb,     x, x, no, no, global,  load, 1)                                                    \
    X(Lh,     x, x, no, no, global,  load, 2)                                                    \
    X(Lw,     x, x, no, no, global,  load, 4)                                                    \
    X(Ld,     x, x, no, no, global,  load, 8)                                                    \
    X(Lbu,    x, x, no, no, global,  load, 1)                                                    \
    X(Lhu,    x, x, no, no, global,  load, 2)                                                    \
    X(Lwu,    x, x, no, no, global,  load, 4)                                                    \
    X(Sb,     no, x, x, no, global,  store, 1)                                                   \
    X(Sh,     no, x, x, no, global,  store, 2)                                                   \
    X(Sw,     no, x, x, no, global,  store, 4)                                                   \
    X(Sd,     no, x, x, no, global,  store, 8)                                                   \
    X(Addi,   x, x, no, no, integer, none, 0)                                                    \
    X(Slti,   x, x, no, no, integer, none, 0)                                                    \
    X(Sltiu,  x, x, no, no, integer, none, 0)                                                    \
    X(Xori,   x, x, no, no, integer, none, 0)                                                    \
    X(Ori,    x, x, no, no, integer, none, 0)                                                    \
    X(Andi,   x, x, no, no, integer, none, 0)                                                    \
    X(Slli,   x, x, no, no, integer, none, 0)                                                    \
    X(Srli,   x, x, no, no, integer, none, 0)                                                    \
    X(Srai,   x, x, no, no, integer, none, 0)                                                    \
    X(Add,    x, x, x, no, integer, none, 0)                                                     \
    X(Sub,    x, x, x, no, integer, none, 0)                                                     \
    X(Sll,    x, x, x, no, integer, none, 0)                                                     \
    X(Slt,    x, x, x, no, integer, none, 0)                                                     \
    X(Sltu,   x, x, x, no, integer, none, 0)                                                     \
    X(Xor,    x, x, x, no, integer, none, 0)                                                     \
    X(Srl,    x, x, x, no, integer, none, 0)                                                     \
    X(Sra,    x, x, x, no, integer, none, 0)                                                     \
    X(Or,     x, x, x, no, integer, none, 0)                                                     \
    X(And,    x, x, x, no, integer, none, 0)                                                     \
    X(Addiw,  x, x, no, no, integer, none, 0)                                                    \
    X(Slliw,  x, x, no, no, integer, none, 0)                                                    \
    X(Srliw,  x, x, no, no, integer, none, 0)                                                    \
    X(Sraiw,  x, x, no, no, integer, none, 0)                                                    \
    X(Addw,   x, x, x, no, integer, none, 0)                                                     \
    X(Subw,   x, x, x, no, integer, none, 0)                                                     \
    X(Sllw,   x, x, x, no, integer, none, 0)                                                     \
    X(Srlw,   x, x, x, no, integer, none, 0)                                                     \
    X(Sraw,   x, x, x, no, integer, none, 0)                                                     \
    X(Fence,  no, no, no, no, integer, none, 0)                                                  \
    X(FenceI, no, no, no, no, integer, none, 0)                                                  \
    X(Ecall,  no, no, no, no, integer, none, 0) /* reads a0, a7: describe() */                   \
    X(Ebreak, no, no, no, no, integer, none, 0)                                                  \
    /* Zicsr (the immediate forms' rs1 field is the value) */ \
    X(Csrrw,  x, x, no, no, integer, none, 0)                                                    \
    X(Csrrs,  x, x, no, no, integer, none, 0)                                                    \
    X(Csrrc,  x, x, no, no, integer, none, 0)                                                    \
    X(Csrrwi, x, no, no, no, integer, none, 0)                                                   \
    X(Csrrsi, x, no, no, no, integer, none, 0)                                                   \
    X(Csrrci, x, no, no, no, integer, none, 0)                                                   \
    /* M */                                                  \
    X(Mul,    x, x, x, no, multiply, none, 0)                                                    \
    X(Mulh,   x, x, x, no, multiply, none, 0)                                                    \
    X(Mulhsu, x, x, x, no, multiply, none, 0)                                                    \
    X(Mulhu,  x, x, x, no, multiply, none, 0)                                                    \
    X(Div,    x, x, x, no, sfu,      none, 0)                                                    \
    X(Divu,   x, x, x, no, sfu,      none, 0)                                                    \
    X(Rem,    x, x, x, no, sfu,      none, 0)                                                    \
    X(Remu,   x, x, x, no, sfu,      none, 0)                                                    \
    X(Mulw,   x, x, x, no, multiply, none, 0)                                                    \
    X(Divw,   x, x, x, no, sfu,      none, 0)                                                    \
    X(Divuw,  x, x, x, no, sfu,      none, 0)                                                    \
    X(Remw,   x, x, x, no, sfu,      none, 0)                                                    \
    X(Remuw,  x, x, x, no, sfu,      none, 0)                                                    \
    /* A: funct holds the AMO funct5 (amocas also reads rd: describe()) */ \
    X(LrW,    x, x, x, no, atomic, atomic, 4)                                                    \
    X(ScW,    x, x, x, no, atomic, atomic, 4)                                                    \
    X(AmoW,   x, x, x, no, atomic, atomic, 4)                                                    \
    X(LrD,    x, x, x, no, atomic, atomic, 8)                                                    \
    X(ScD,    x, x, x, no, atomic, atomic, 8)                                                    \
    X(AmoD,   x, x, x, no, atomic, atomic, 8)                                                    \
    /* F and D loads and stores */                           \
    X(Flw,    f, x, no, no, global, load, 4)                                                     \
    X(Fld,    f, x, no, no, global, load, 8)                                                     \
    X(Fsw,    no, x, f, no, global, store, 4)                                                    \
    X(Fsd,    no, x, f, no, global, store, 8)                                                    \
    /* F and D arithmetic; S then D variants in the same order */ \
    X(FmaddS,   f, f, f, f, fp32, none, 0)                                                       \
    X(FmsubS,   f, f, f, f, fp32, none, 0)                                                       \
    X(FnmsubS,  f, f, f, f, fp32, none, 0)                                                       \
    X(FnmaddS,  f, f, f, f, fp32, none, 0)                                                       \
    X(FaddS,    f, f, f, no, fp32, none, 0)                                                      \
    X(FsubS,    f, f, f, no, fp32, none, 0)                                                      \
    X(FmulS,    f, f, f, no, fp32, none, 0)                                                      \
    X(FdivS,    f, f, f, no, sfu,  none, 0)                                                      \
    X(FsqrtS,   f, f, no, no, sfu,  none, 0)                                                     \
    X(FsgnjS,   f, f, f, no, fp32, none, 0)                                                      \
    X(FsgnjnS,  f, f, f, no, fp32, none, 0)                                                      \
    X(FsgnjxS,  f, f, f, no, fp32, none, 0)                                                      \
    X(FminS,    f, f, f, no, fp32, none, 0)                                                      \
    X(FmaxS,    f, f, f, no, fp32, none, 0)                                                      \
    X(FeqS,     x, f, f, no, fp32, none, 0)                                                      \
    X(FltS,     x, f, f, no, fp32, none, 0)                                                      \
    X(FleS,     x, f, f, no, fp32, none, 0)                                                      \
    X(FclassS,  x, f, no, no, fp32, none, 0)                                                     \
    X(FcvtWS,   x, f, no, no, fp32, none, 0)                                                     \
    X(FcvtWuS,  x, f, no, no, fp32, none, 0)                                                     \
    X(FcvtLS,   x, f, no, no, fp32, none, 0)                                                     \
    X(FcvtLuS,  x, f, no, no, fp32, none, 0)                                                     \
    X(FcvtSW,   f, x, no, no, fp32, none, 0)                                                     \
    X(FcvtSWu,  f, x, no, no, fp32, none, 0)                                                     \
    X(FcvtSL,   f, x, no, no, fp32, none, 0)                                                     \
    X(FcvtSLu,  f, x, no, no, fp32, none, 0)                                                     \
    X(FmvXW,    x, f, no, no, fp32, none, 0)                                                     \
    X(FmvWX,    f, x, no, no, fp32, none, 0)                                                     \
    X(FmaddD,   f, f, f, f, fp64, none, 0)                                                       \
    X(FmsubD,   f, f, f, f, fp64, none, 0)                                                       \
    X(FnmsubD,  f, f, f, f, fp64, none, 0)                                                       \
    X(FnmaddD,  f, f, f, f, fp64, none, 0)                                                       \
    X(FaddD,    f, f, f, no, fp64, none, 0)                                                      \
    X(FsubD,    f, f, f, no, fp64, none, 0)                                                      \
    X(FmulD,    f, f, f, no, fp64, none, 0)                                                      \
    X(FdivD,    f, f, f, no, sfu,  none, 0)                                                      \
    X(FsqrtD,   f, f, no, no, sfu,  none, 0)                                                     \
    X(FsgnjD,   f, f, f, no, fp64, none, 0)                                                      \
    X(FsgnjnD,  f, f, f, no, fp64, none, 0)                                                      \
    X(FsgnjxD,  f, f, f, no, fp64, none, 0)                                                      \
    X(FminD,    f, f, f, no, fp64, none, 0)                                                      \
    X(FmaxD,    f, f, f, no, fp64, none, 0)                                                      \
    X(FeqD,     x, f, f, no, fp64, none, 0)                                                      \
    X(FltD,     x, f, f, no, fp64, none, 0)                                                      \
    X(FleD,     x, f, f, no, fp64, none, 0)                                                      \
    X(FclassD,  x, f, no, no, fp64, none, 0)                                                     \
    X(FcvtWD,   x, f, no, no, fp64, none, 0)                                                     \
    X(FcvtWuD,  x, f, no, no, fp64, none, 0)                                                     \
    X(FcvtLD,   x, f, no, no, fp64, none, 0)                                                     \
    X(FcvtLuD,  x, f, no, no, fp64, none, 0)                                                     \
    X(FcvtDW,   f, x, no, no, fp64, none, 0)                                                     \
    X(FcvtDWu,  f, x, no, no, fp64, none, 0)                                                     \
    X(FcvtDL,   f, x, no, no, fp64, none, 0)                                                     \
    X(FcvtDLu,  f, x, no, no, fp64, none, 0)                                                     \
    X(FmvXD,    x, f, no, no, fp64, none, 0)                                                     \
    X(FmvDX,    f, x, no, no, fp64, none, 0)                                                     \
    X(FcvtSD,   f, f, no, no, fp32, none, 0)                                                     \
    X(FcvtDS,   f, f, no, no, fp64, none, 0)                                                     \
    /* SIMT extension (custom-0); funct holds funct7 / funct2 */ \
    X(Bar,        x, x, x, no, barrier, none, 0)                                                 \
    X(Vote,       x, x, x, no, integer, none, 0)                                                 \
    X(Shfl,       x, x, x, x, integer, none, 0)                                                  \
    X(ActiveMask, x, no, no, no, integer, none, 0)                                               \
    X(WarpSync,   no, x, no, no, integer, none, 0)                                               \
    X(Match,      x, x, x, no, integer, none, 0)                                                 \
    X(Redux,      x, x, x, no, integer, none, 0)                                                 \
    X(Nanosleep,  no, x, no, no, barrier, none, 0) /* waits like a barrier */

// Match/mask building blocks: opcode, funct3, funct7 (bits 31:25), the
// AMO funct5 (31:27), rs2 (24:20), the FP format (26:25).
#define SIMTGPU_ENC(opcode, f3, f7) ((opcode) | (f3) << 12 | uint32_t(f7) << 25)
#define SIMTGPU_ENC_CUSTOM0(f3, f7) SIMTGPU_ENC(SIMTGPU_OPCODE_CUSTOM0, f3, f7)
#define SIMTGPU_ENC_AMO(f3, f5) (0x2fu | (f3) << 12 | uint32_t(f5) << 27)
#define SIMTGPU_ENC_FP(f7, rs2) (0x53u | uint32_t(f7) << 25 | uint32_t(rs2) << 20)
#define SIMTGPU_MASK_OPCODE 0x0000007fu
#define SIMTGPU_MASK_F3 0x0000707fu
#define SIMTGPU_MASK_F3_F7 0xfe00707fu
#define SIMTGPU_MASK_F3_SHAMT6 0xfc00707fu
#define SIMTGPU_MASK_AMO 0xf800707fu        /* aq and rl ignored */
#define SIMTGPU_MASK_AMO_RS2 0xf9f0707fu    /* lr: rs2 must be 0 */
#define SIMTGPU_MASK_F7 0xfe00007fu          /* OP-FP with a rounding mode */
#define SIMTGPU_MASK_F7_RS2 0xfff0007fu
#define SIMTGPU_MASK_F7_RS2_F3 0xfff0707fu
#define SIMTGPU_MASK_FMA 0x0600007fu         /* opcode and format */
#define SIMTGPU_MASK_F3_F2 0x0600707fu       /* custom-0 R4: funct3, funct2 */
#define SIMTGPU_MASK_ALL 0xffffffffu

#define SIMTGPU_ISA_ENCODINGS(X)                                                             \
    X("lui",    Lui,   0x37, SIMTGPU_MASK_OPCODE, u, none, false)                                \
    X("auipc",  Auipc, 0x17, SIMTGPU_MASK_OPCODE, u, none, false)                                \
    X("jal",    Jal,   0x6f, SIMTGPU_MASK_OPCODE, j, none, false)                                \
    X("jalr",   Jalr,  SIMTGPU_ENC(0x67, 0, 0), SIMTGPU_MASK_F3, i, none, false)                 \
    X("beq",    Beq,   SIMTGPU_ENC(0x63, 0, 0), SIMTGPU_MASK_F3, b, none, false)                 \
    X("bne",    Bne,   SIMTGPU_ENC(0x63, 1, 0), SIMTGPU_MASK_F3, b, none, false)                 \
    X("blt",    Blt,   SIMTGPU_ENC(0x63, 4, 0), SIMTGPU_MASK_F3, b, none, false)                 \
    X("bge",    Bge,   SIMTGPU_ENC(0x63, 5, 0), SIMTGPU_MASK_F3, b, none, false)                 \
    X("bltu",   Bltu,  SIMTGPU_ENC(0x63, 6, 0), SIMTGPU_MASK_F3, b, none, false)                 \
    X("bgeu",   Bgeu,  SIMTGPU_ENC(0x63, 7, 0), SIMTGPU_MASK_F3, b, none, false)                 \
    X("lb",     Lb,    SIMTGPU_ENC(0x03, 0, 0), SIMTGPU_MASK_F3, i, none, false)                 \
    X("lh",     Lh,    SIMTGPU_ENC(0x03, 1, 0), SIMTGPU_MASK_F3, i, none, false)                 \
    X("lw",     Lw,    SIMTGPU_ENC(0x03, 2, 0), SIMTGPU_MASK_F3, i, none, false)                 \
    X("ld",     Ld,    SIMTGPU_ENC(0x03, 3, 0), SIMTGPU_MASK_F3, i, none, false)                 \
    X("lbu",    Lbu,   SIMTGPU_ENC(0x03, 4, 0), SIMTGPU_MASK_F3, i, none, false)                 \
    X("lhu",    Lhu,   SIMTGPU_ENC(0x03, 5, 0), SIMTGPU_MASK_F3, i, none, false)                 \
    X("lwu",    Lwu,   SIMTGPU_ENC(0x03, 6, 0), SIMTGPU_MASK_F3, i, none, false)                 \
    X("sb",     Sb,    SIMTGPU_ENC(0x23, 0, 0), SIMTGPU_MASK_F3, s, none, false)                 \
    X("sh",     Sh,    SIMTGPU_ENC(0x23, 1, 0), SIMTGPU_MASK_F3, s, none, false)                 \
    X("sw",     Sw,    SIMTGPU_ENC(0x23, 2, 0), SIMTGPU_MASK_F3, s, none, false)                 \
    X("sd",     Sd,    SIMTGPU_ENC(0x23, 3, 0), SIMTGPU_MASK_F3, s, none, false)                 \
    X("addi",   Addi,  SIMTGPU_ENC(0x13, 0, 0), SIMTGPU_MASK_F3, i, none, false)                 \
    X("slti",   Slti,  SIMTGPU_ENC(0x13, 2, 0), SIMTGPU_MASK_F3, i, none, false)                 \
    X("sltiu",  Sltiu, SIMTGPU_ENC(0x13, 3, 0), SIMTGPU_MASK_F3, i, none, false)                 \
    X("xori",   Xori,  SIMTGPU_ENC(0x13, 4, 0), SIMTGPU_MASK_F3, i, none, false)                 \
    X("ori",    Ori,   SIMTGPU_ENC(0x13, 6, 0), SIMTGPU_MASK_F3, i, none, false)                 \
    X("andi",   Andi,  SIMTGPU_ENC(0x13, 7, 0), SIMTGPU_MASK_F3, i, none, false)                 \
    X("slli",   Slli,  SIMTGPU_ENC(0x13, 1, 0), SIMTGPU_MASK_F3_SHAMT6, shamt6, none, false)     \
    X("srli",   Srli,  SIMTGPU_ENC(0x13, 5, 0), SIMTGPU_MASK_F3_SHAMT6, shamt6, none, false)     \
    X("srai",   Srai,  SIMTGPU_ENC(0x13, 5, 0x20), SIMTGPU_MASK_F3_SHAMT6, shamt6, none, false)  \
    X("add",    Add,   SIMTGPU_ENC(0x33, 0, 0), SIMTGPU_MASK_F3_F7, none, none, false)           \
    X("sub",    Sub,   SIMTGPU_ENC(0x33, 0, 0x20), SIMTGPU_MASK_F3_F7, none, none, false)        \
    X("sll",    Sll,   SIMTGPU_ENC(0x33, 1, 0), SIMTGPU_MASK_F3_F7, none, none, false)           \
    X("slt",    Slt,   SIMTGPU_ENC(0x33, 2, 0), SIMTGPU_MASK_F3_F7, none, none, false)           \
    X("sltu",   Sltu,  SIMTGPU_ENC(0x33, 3, 0), SIMTGPU_MASK_F3_F7, none, none, false)           \
    X("xor",    Xor,   SIMTGPU_ENC(0x33, 4, 0), SIMTGPU_MASK_F3_F7, none, none, false)           \
    X("srl",    Srl,   SIMTGPU_ENC(0x33, 5, 0), SIMTGPU_MASK_F3_F7, none, none, false)           \
    X("sra",    Sra,   SIMTGPU_ENC(0x33, 5, 0x20), SIMTGPU_MASK_F3_F7, none, none, false)        \
    X("or",     Or,    SIMTGPU_ENC(0x33, 6, 0), SIMTGPU_MASK_F3_F7, none, none, false)           \
    X("and",    And,   SIMTGPU_ENC(0x33, 7, 0), SIMTGPU_MASK_F3_F7, none, none, false)           \
    X("addiw",  Addiw, SIMTGPU_ENC(0x1b, 0, 0), SIMTGPU_MASK_F3, i, none, false)                 \
    X("slliw",  Slliw, SIMTGPU_ENC(0x1b, 1, 0), SIMTGPU_MASK_F3_F7, shamt5, none, false)         \
    X("srliw",  Srliw, SIMTGPU_ENC(0x1b, 5, 0), SIMTGPU_MASK_F3_F7, shamt5, none, false)         \
    X("sraiw",  Sraiw, SIMTGPU_ENC(0x1b, 5, 0x20), SIMTGPU_MASK_F3_F7, shamt5, none, false)      \
    X("addw",   Addw,  SIMTGPU_ENC(0x3b, 0, 0), SIMTGPU_MASK_F3_F7, none, none, false)           \
    X("subw",   Subw,  SIMTGPU_ENC(0x3b, 0, 0x20), SIMTGPU_MASK_F3_F7, none, none, false)        \
    X("sllw",   Sllw,  SIMTGPU_ENC(0x3b, 1, 0), SIMTGPU_MASK_F3_F7, none, none, false)           \
    X("srlw",   Srlw,  SIMTGPU_ENC(0x3b, 5, 0), SIMTGPU_MASK_F3_F7, none, none, false)           \
    X("sraw",   Sraw,  SIMTGPU_ENC(0x3b, 5, 0x20), SIMTGPU_MASK_F3_F7, none, none, false)        \
    X("fence",  Fence, SIMTGPU_ENC(0x0f, 0, 0), SIMTGPU_MASK_F3, i, none, false)                 \
    X("fence.i", FenceI, SIMTGPU_ENC(0x0f, 1, 0), SIMTGPU_MASK_F3, i, none, false)               \
    X("ecall",  Ecall, 0x00000073, SIMTGPU_MASK_ALL, none, none, false)                          \
    X("ebreak", Ebreak, 0x00100073, SIMTGPU_MASK_ALL, none, none, false)                         \
    X("csrrw",  Csrrw,  SIMTGPU_ENC(0x73, 1, 0), SIMTGPU_MASK_F3, csr, none, false)              \
    X("csrrs",  Csrrs,  SIMTGPU_ENC(0x73, 2, 0), SIMTGPU_MASK_F3, csr, none, false)              \
    X("csrrc",  Csrrc,  SIMTGPU_ENC(0x73, 3, 0), SIMTGPU_MASK_F3, csr, none, false)              \
    X("csrrwi", Csrrwi, SIMTGPU_ENC(0x73, 5, 0), SIMTGPU_MASK_F3, csr, none, false)              \
    X("csrrsi", Csrrsi, SIMTGPU_ENC(0x73, 6, 0), SIMTGPU_MASK_F3, csr, none, false)              \
    X("csrrci", Csrrci, SIMTGPU_ENC(0x73, 7, 0), SIMTGPU_MASK_F3, csr, none, false)              \
    X("mul",    Mul,    SIMTGPU_ENC(0x33, 0, 1), SIMTGPU_MASK_F3_F7, none, none, false)          \
    X("mulh",   Mulh,   SIMTGPU_ENC(0x33, 1, 1), SIMTGPU_MASK_F3_F7, none, none, false)          \
    X("mulhsu", Mulhsu, SIMTGPU_ENC(0x33, 2, 1), SIMTGPU_MASK_F3_F7, none, none, false)          \
    X("mulhu",  Mulhu,  SIMTGPU_ENC(0x33, 3, 1), SIMTGPU_MASK_F3_F7, none, none, false)          \
    X("div",    Div,    SIMTGPU_ENC(0x33, 4, 1), SIMTGPU_MASK_F3_F7, none, none, false)          \
    X("divu",   Divu,   SIMTGPU_ENC(0x33, 5, 1), SIMTGPU_MASK_F3_F7, none, none, false)          \
    X("rem",    Rem,    SIMTGPU_ENC(0x33, 6, 1), SIMTGPU_MASK_F3_F7, none, none, false)          \
    X("remu",   Remu,   SIMTGPU_ENC(0x33, 7, 1), SIMTGPU_MASK_F3_F7, none, none, false)          \
    X("mulw",   Mulw,   SIMTGPU_ENC(0x3b, 0, 1), SIMTGPU_MASK_F3_F7, none, none, false)          \
    X("divw",   Divw,   SIMTGPU_ENC(0x3b, 4, 1), SIMTGPU_MASK_F3_F7, none, none, false)          \
    X("divuw",  Divuw,  SIMTGPU_ENC(0x3b, 5, 1), SIMTGPU_MASK_F3_F7, none, none, false)          \
    X("remw",   Remw,   SIMTGPU_ENC(0x3b, 6, 1), SIMTGPU_MASK_F3_F7, none, none, false)          \
    X("remuw",  Remuw,  SIMTGPU_ENC(0x3b, 7, 1), SIMTGPU_MASK_F3_F7, none, none, false)          \
    X("lr.w",      LrW,  SIMTGPU_ENC_AMO(2, 0x02), SIMTGPU_MASK_AMO_RS2, none, amo5, false)      \
    X("sc.w",      ScW,  SIMTGPU_ENC_AMO(2, 0x03), SIMTGPU_MASK_AMO, none, amo5, false)          \
    X("amoadd.w",  AmoW, SIMTGPU_ENC_AMO(2, 0x00), SIMTGPU_MASK_AMO, none, amo5, false)          \
    X("amoswap.w", AmoW, SIMTGPU_ENC_AMO(2, 0x01), SIMTGPU_MASK_AMO, none, amo5, false)          \
    X("amoxor.w",  AmoW, SIMTGPU_ENC_AMO(2, 0x04), SIMTGPU_MASK_AMO, none, amo5, false)          \
    X("amoor.w",   AmoW, SIMTGPU_ENC_AMO(2, 0x08), SIMTGPU_MASK_AMO, none, amo5, false)          \
    X("amoand.w",  AmoW, SIMTGPU_ENC_AMO(2, 0x0c), SIMTGPU_MASK_AMO, none, amo5, false)          \
    X("amomin.w",  AmoW, SIMTGPU_ENC_AMO(2, 0x10), SIMTGPU_MASK_AMO, none, amo5, false)          \
    X("amomax.w",  AmoW, SIMTGPU_ENC_AMO(2, 0x14), SIMTGPU_MASK_AMO, none, amo5, false)          \
    X("amominu.w", AmoW, SIMTGPU_ENC_AMO(2, 0x18), SIMTGPU_MASK_AMO, none, amo5, false)          \
    X("amomaxu.w", AmoW, SIMTGPU_ENC_AMO(2, 0x1c), SIMTGPU_MASK_AMO, none, amo5, false)          \
    X("amocas.w",  AmoW, SIMTGPU_ENC_AMO(2, 0x05), SIMTGPU_MASK_AMO, none, amo5, false)          \
    X("lr.d",      LrD,  SIMTGPU_ENC_AMO(3, 0x02), SIMTGPU_MASK_AMO_RS2, none, amo5, false)      \
    X("sc.d",      ScD,  SIMTGPU_ENC_AMO(3, 0x03), SIMTGPU_MASK_AMO, none, amo5, false)          \
    X("amoadd.d",  AmoD, SIMTGPU_ENC_AMO(3, 0x00), SIMTGPU_MASK_AMO, none, amo5, false)          \
    X("amoswap.d", AmoD, SIMTGPU_ENC_AMO(3, 0x01), SIMTGPU_MASK_AMO, none, amo5, false)          \
    X("amoxor.d",  AmoD, SIMTGPU_ENC_AMO(3, 0x04), SIMTGPU_MASK_AMO, none, amo5, false)          \
    X("amoor.d",   AmoD, SIMTGPU_ENC_AMO(3, 0x08), SIMTGPU_MASK_AMO, none, amo5, false)          \
    X("amoand.d",  AmoD, SIMTGPU_ENC_AMO(3, 0x0c), SIMTGPU_MASK_AMO, none, amo5, false)          \
    X("amomin.d",  AmoD, SIMTGPU_ENC_AMO(3, 0x10), SIMTGPU_MASK_AMO, none, amo5, false)          \
    X("amomax.d",  AmoD, SIMTGPU_ENC_AMO(3, 0x14), SIMTGPU_MASK_AMO, none, amo5, false)          \
    X("amominu.d", AmoD, SIMTGPU_ENC_AMO(3, 0x18), SIMTGPU_MASK_AMO, none, amo5, false)          \
    X("amomaxu.d", AmoD, SIMTGPU_ENC_AMO(3, 0x1c), SIMTGPU_MASK_AMO, none, amo5, false)          \
    X("amocas.d",  AmoD, SIMTGPU_ENC_AMO(3, 0x05), SIMTGPU_MASK_AMO, none, amo5, false)          \
    X("flw",    Flw,    SIMTGPU_ENC(0x07, 2, 0), SIMTGPU_MASK_F3, i, none, false)                \
    X("fld",    Fld,    SIMTGPU_ENC(0x07, 3, 0), SIMTGPU_MASK_F3, i, none, false)                \
    X("fsw",    Fsw,    SIMTGPU_ENC(0x27, 2, 0), SIMTGPU_MASK_F3, s, none, false)                \
    X("fsd",    Fsd,    SIMTGPU_ENC(0x27, 3, 0), SIMTGPU_MASK_F3, s, none, false)                \
    X("fmadd.s",  FmaddS,  0x43, SIMTGPU_MASK_FMA, none, none, true)                             \
    X("fmsub.s",  FmsubS,  0x47, SIMTGPU_MASK_FMA, none, none, true)                             \
    X("fnmsub.s", FnmsubS, 0x4b, SIMTGPU_MASK_FMA, none, none, true)                             \
    X("fnmadd.s", FnmaddS, 0x4f, SIMTGPU_MASK_FMA, none, none, true)                             \
    X("fmadd.d",  FmaddD,  0x43 | 1u << 25, SIMTGPU_MASK_FMA, none, none, true)                  \
    X("fmsub.d",  FmsubD,  0x47 | 1u << 25, SIMTGPU_MASK_FMA, none, none, true)                  \
    X("fnmsub.d", FnmsubD, 0x4b | 1u << 25, SIMTGPU_MASK_FMA, none, none, true)                  \
    X("fnmadd.d", FnmaddD, 0x4f | 1u << 25, SIMTGPU_MASK_FMA, none, none, true)                  \
    X("fadd.s",   FaddS,   SIMTGPU_ENC_FP(0x00, 0), SIMTGPU_MASK_F7, none, none, true)           \
    X("fsub.s",   FsubS,   SIMTGPU_ENC_FP(0x04, 0), SIMTGPU_MASK_F7, none, none, true)           \
    X("fmul.s",   FmulS,   SIMTGPU_ENC_FP(0x08, 0), SIMTGPU_MASK_F7, none, none, true)           \
    X("fdiv.s",   FdivS,   SIMTGPU_ENC_FP(0x0c, 0), SIMTGPU_MASK_F7, none, none, true)           \
    X("fsqrt.s",  FsqrtS,  SIMTGPU_ENC_FP(0x2c, 0), SIMTGPU_MASK_F7_RS2, none, none, true)       \
    X("fsgnj.s",  FsgnjS,  SIMTGPU_ENC(0x53, 0, 0x10), SIMTGPU_MASK_F3_F7, none, none, false)    \
    X("fsgnjn.s", FsgnjnS, SIMTGPU_ENC(0x53, 1, 0x10), SIMTGPU_MASK_F3_F7, none, none, false)    \
    X("fsgnjx.s", FsgnjxS, SIMTGPU_ENC(0x53, 2, 0x10), SIMTGPU_MASK_F3_F7, none, none, false)    \
    X("fmin.s",   FminS,   SIMTGPU_ENC(0x53, 0, 0x14), SIMTGPU_MASK_F3_F7, none, none, false)    \
    X("fmax.s",   FmaxS,   SIMTGPU_ENC(0x53, 1, 0x14), SIMTGPU_MASK_F3_F7, none, none, false)    \
    X("fle.s",    FleS,    SIMTGPU_ENC(0x53, 0, 0x50), SIMTGPU_MASK_F3_F7, none, none, false)    \
    X("flt.s",    FltS,    SIMTGPU_ENC(0x53, 1, 0x50), SIMTGPU_MASK_F3_F7, none, none, false)    \
    X("feq.s",    FeqS,    SIMTGPU_ENC(0x53, 2, 0x50), SIMTGPU_MASK_F3_F7, none, none, false)    \
    X("fcvt.w.s",  FcvtWS,  SIMTGPU_ENC_FP(0x60, 0), SIMTGPU_MASK_F7_RS2, none, none, true)      \
    X("fcvt.wu.s", FcvtWuS, SIMTGPU_ENC_FP(0x60, 1), SIMTGPU_MASK_F7_RS2, none, none, true)      \
    X("fcvt.l.s",  FcvtLS,  SIMTGPU_ENC_FP(0x60, 2), SIMTGPU_MASK_F7_RS2, none, none, true)      \
    X("fcvt.lu.s", FcvtLuS, SIMTGPU_ENC_FP(0x60, 3), SIMTGPU_MASK_F7_RS2, none, none, true)      \
    X("fcvt.s.w",  FcvtSW,  SIMTGPU_ENC_FP(0x68, 0), SIMTGPU_MASK_F7_RS2, none, none, true)      \
    X("fcvt.s.wu", FcvtSWu, SIMTGPU_ENC_FP(0x68, 1), SIMTGPU_MASK_F7_RS2, none, none, true)      \
    X("fcvt.s.l",  FcvtSL,  SIMTGPU_ENC_FP(0x68, 2), SIMTGPU_MASK_F7_RS2, none, none, true)      \
    X("fcvt.s.lu", FcvtSLu, SIMTGPU_ENC_FP(0x68, 3), SIMTGPU_MASK_F7_RS2, none, none, true)      \
    X("fmv.x.w",  FmvXW,   SIMTGPU_ENC_FP(0x70, 0), SIMTGPU_MASK_F7_RS2_F3, none, none, false)   \
    X("fclass.s", FclassS, SIMTGPU_ENC_FP(0x70, 0) | 1u << 12, SIMTGPU_MASK_F7_RS2_F3, none, none, false) \
    X("fmv.w.x",  FmvWX,   SIMTGPU_ENC_FP(0x78, 0), SIMTGPU_MASK_F7_RS2_F3, none, none, false)   \
    X("fadd.d",   FaddD,   SIMTGPU_ENC_FP(0x01, 0), SIMTGPU_MASK_F7, none, none, true)           \
    X("fsub.d",   FsubD,   SIMTGPU_ENC_FP(0x05, 0), SIMTGPU_MASK_F7, none, none, true)           \
    X("fmul.d",   FmulD,   SIMTGPU_ENC_FP(0x09, 0), SIMTGPU_MASK_F7, none, none, true)           \
    X("fdiv.d",   FdivD,   SIMTGPU_ENC_FP(0x0d, 0), SIMTGPU_MASK_F7, none, none, true)           \
    X("fsqrt.d",  FsqrtD,  SIMTGPU_ENC_FP(0x2d, 0), SIMTGPU_MASK_F7_RS2, none, none, true)       \
    X("fsgnj.d",  FsgnjD,  SIMTGPU_ENC(0x53, 0, 0x11), SIMTGPU_MASK_F3_F7, none, none, false)    \
    X("fsgnjn.d", FsgnjnD, SIMTGPU_ENC(0x53, 1, 0x11), SIMTGPU_MASK_F3_F7, none, none, false)    \
    X("fsgnjx.d", FsgnjxD, SIMTGPU_ENC(0x53, 2, 0x11), SIMTGPU_MASK_F3_F7, none, none, false)    \
    X("fmin.d",   FminD,   SIMTGPU_ENC(0x53, 0, 0x15), SIMTGPU_MASK_F3_F7, none, none, false)    \
    X("fmax.d",   FmaxD,   SIMTGPU_ENC(0x53, 1, 0x15), SIMTGPU_MASK_F3_F7, none, none, false)    \
    X("fle.d",    FleD,    SIMTGPU_ENC(0x53, 0, 0x51), SIMTGPU_MASK_F3_F7, none, none, false)    \
    X("flt.d",    FltD,    SIMTGPU_ENC(0x53, 1, 0x51), SIMTGPU_MASK_F3_F7, none, none, false)    \
    X("feq.d",    FeqD,    SIMTGPU_ENC(0x53, 2, 0x51), SIMTGPU_MASK_F3_F7, none, none, false)    \
    X("fcvt.w.d",  FcvtWD,  SIMTGPU_ENC_FP(0x61, 0), SIMTGPU_MASK_F7_RS2, none, none, true)      \
    X("fcvt.wu.d", FcvtWuD, SIMTGPU_ENC_FP(0x61, 1), SIMTGPU_MASK_F7_RS2, none, none, true)      \
    X("fcvt.l.d",  FcvtLD,  SIMTGPU_ENC_FP(0x61, 2), SIMTGPU_MASK_F7_RS2, none, none, true)      \
    X("fcvt.lu.d", FcvtLuD, SIMTGPU_ENC_FP(0x61, 3), SIMTGPU_MASK_F7_RS2, none, none, true)      \
    X("fcvt.d.w",  FcvtDW,  SIMTGPU_ENC_FP(0x69, 0), SIMTGPU_MASK_F7_RS2, none, none, true)      \
    X("fcvt.d.wu", FcvtDWu, SIMTGPU_ENC_FP(0x69, 1), SIMTGPU_MASK_F7_RS2, none, none, true)      \
    X("fcvt.d.l",  FcvtDL,  SIMTGPU_ENC_FP(0x69, 2), SIMTGPU_MASK_F7_RS2, none, none, true)      \
    X("fcvt.d.lu", FcvtDLu, SIMTGPU_ENC_FP(0x69, 3), SIMTGPU_MASK_F7_RS2, none, none, true)      \
    X("fmv.x.d",  FmvXD,   SIMTGPU_ENC_FP(0x71, 0), SIMTGPU_MASK_F7_RS2_F3, none, none, false)   \
    X("fclass.d", FclassD, SIMTGPU_ENC_FP(0x71, 0) | 1u << 12, SIMTGPU_MASK_F7_RS2_F3, none, none, false) \
    X("fmv.d.x",  FmvDX,   SIMTGPU_ENC_FP(0x79, 0), SIMTGPU_MASK_F7_RS2_F3, none, none, false)   \
    X("fcvt.s.d", FcvtSD,  SIMTGPU_ENC_FP(0x20, 1), SIMTGPU_MASK_F7_RS2, none, none, true)       \
    X("fcvt.d.s", FcvtDS,  SIMTGPU_ENC_FP(0x21, 0), SIMTGPU_MASK_F7_RS2, none, none, true)       \
    X("bar.sync",    Bar,  SIMTGPU_ENC_CUSTOM0(SIMTGPU_F3_BARRIER, SIMTGPU_BAR_SYNC), SIMTGPU_MASK_F3_F7, none, funct7, false) \
    X("bar.popc",    Bar,  SIMTGPU_ENC_CUSTOM0(SIMTGPU_F3_BARRIER, SIMTGPU_BAR_POPC), SIMTGPU_MASK_F3_F7, none, funct7, false) \
    X("bar.and",     Bar,  SIMTGPU_ENC_CUSTOM0(SIMTGPU_F3_BARRIER, SIMTGPU_BAR_AND), SIMTGPU_MASK_F3_F7, none, funct7, false) \
    X("bar.or",      Bar,  SIMTGPU_ENC_CUSTOM0(SIMTGPU_F3_BARRIER, SIMTGPU_BAR_OR), SIMTGPU_MASK_F3_F7, none, funct7, false) \
    X("bar.arrive",  Bar,  SIMTGPU_ENC_CUSTOM0(SIMTGPU_F3_BARRIER, SIMTGPU_BAR_ARRIVE), SIMTGPU_MASK_F3_F7, none, funct7, false) \
    X("vote.ballot", Vote, SIMTGPU_ENC_CUSTOM0(SIMTGPU_F3_VOTE, SIMTGPU_VOTE_BALLOT), SIMTGPU_MASK_F3_F7, none, funct7, false) \
    X("vote.any",    Vote, SIMTGPU_ENC_CUSTOM0(SIMTGPU_F3_VOTE, SIMTGPU_VOTE_ANY), SIMTGPU_MASK_F3_F7, none, funct7, false) \
    X("vote.all",    Vote, SIMTGPU_ENC_CUSTOM0(SIMTGPU_F3_VOTE, SIMTGPU_VOTE_ALL), SIMTGPU_MASK_F3_F7, none, funct7, false) \
    X("vote.uni",    Vote, SIMTGPU_ENC_CUSTOM0(SIMTGPU_F3_VOTE, SIMTGPU_VOTE_UNI), SIMTGPU_MASK_F3_F7, none, funct7, false) \
    X("shfl.idx",    Shfl, SIMTGPU_ENC_CUSTOM0(SIMTGPU_F3_SHUFFLE, SIMTGPU_SHFL_IDX), SIMTGPU_MASK_F3_F2, none, funct2, false) \
    X("shfl.up",     Shfl, SIMTGPU_ENC_CUSTOM0(SIMTGPU_F3_SHUFFLE, SIMTGPU_SHFL_UP), SIMTGPU_MASK_F3_F2, none, funct2, false) \
    X("shfl.down",   Shfl, SIMTGPU_ENC_CUSTOM0(SIMTGPU_F3_SHUFFLE, SIMTGPU_SHFL_DOWN), SIMTGPU_MASK_F3_F2, none, funct2, false) \
    X("shfl.bfly",   Shfl, SIMTGPU_ENC_CUSTOM0(SIMTGPU_F3_SHUFFLE, SIMTGPU_SHFL_BFLY), SIMTGPU_MASK_F3_F2, none, funct2, false) \
    X("warp.activemask", ActiveMask, SIMTGPU_ENC_CUSTOM0(SIMTGPU_F3_WARP, SIMTGPU_WARP_ACTIVEMASK), SIMTGPU_MASK_F3_F7, none, none, false) \
    X("warp.sync",       WarpSync,   SIMTGPU_ENC_CUSTOM0(SIMTGPU_F3_WARP, SIMTGPU_WARP_SYNC), SIMTGPU_MASK_F3_F7, none, none, false) \
    X("warp.nanosleep",  Nanosleep,  SIMTGPU_ENC_CUSTOM0(SIMTGPU_F3_WARP, SIMTGPU_WARP_NANOSLEEP), SIMTGPU_MASK_F3_F7, none, none, false) \
    X("match.any",   Match, SIMTGPU_ENC_CUSTOM0(SIMTGPU_F3_MATCH, SIMTGPU_MATCH_ANY), SIMTGPU_MASK_F3_F7, none, funct7, false) \
    X("match.all",   Match, SIMTGPU_ENC_CUSTOM0(SIMTGPU_F3_MATCH, SIMTGPU_MATCH_ALL), SIMTGPU_MASK_F3_F7, none, funct7, false) \
    X("redux.add",   Redux, SIMTGPU_ENC_CUSTOM0(SIMTGPU_F3_REDUX, SIMTGPU_REDUX_ADD), SIMTGPU_MASK_F3_F7, none, funct7, false) \
    X("redux.and",   Redux, SIMTGPU_ENC_CUSTOM0(SIMTGPU_F3_REDUX, SIMTGPU_REDUX_AND), SIMTGPU_MASK_F3_F7, none, funct7, false) \
    X("redux.or",    Redux, SIMTGPU_ENC_CUSTOM0(SIMTGPU_F3_REDUX, SIMTGPU_REDUX_OR), SIMTGPU_MASK_F3_F7, none, funct7, false) \
    X("redux.xor",   Redux, SIMTGPU_ENC_CUSTOM0(SIMTGPU_F3_REDUX, SIMTGPU_REDUX_XOR), SIMTGPU_MASK_F3_F7, none, funct7, false) \
    X("redux.min",   Redux, SIMTGPU_ENC_CUSTOM0(SIMTGPU_F3_REDUX, SIMTGPU_REDUX_MIN), SIMTGPU_MASK_F3_F7, none, funct7, false) \
    X("redux.max",   Redux, SIMTGPU_ENC_CUSTOM0(SIMTGPU_F3_REDUX, SIMTGPU_REDUX_MAX), SIMTGPU_MASK_F3_F7, none, funct7, false) \
    X("redux.minu",  Redux, SIMTGPU_ENC_CUSTOM0(SIMTGPU_F3_REDUX, SIMTGPU_REDUX_MINU), SIMTGPU_MASK_F3_F7, none, funct7, false) \
    X("redux.maxu",  Redux, SIMTGPU_ENC_CUSTOM0(SIMTGPU_F3_REDUX, SIMTGPU_REDUX_MAXU), SIMTGPU_MASK_F3_F7, none, funct7, false) \
    X("amo.fadd.s",  AmoW, SIMTGPU_ENC_CUSTOM0(SIMTGPU_F3_ATOMIC, SIMTGPU_ATOM_FADD_S), SIMTGPU_MASK_F3_F7, none, fadd, false) \
    X("amo.fadd.d",  AmoD, SIMTGPU_ENC_CUSTOM0(SIMTGPU_F3_ATOMIC, SIMTGPU_ATOM_FADD_D), SIMTGPU_MASK_F3_F7, none, fadd, false) \
    X("amo.inc.w",   AmoW, SIMTGPU_ENC_CUSTOM0(SIMTGPU_F3_ATOMIC, SIMTGPU_ATOM_INC_W), SIMTGPU_MASK_F3_F7, none, inc_w, false) \
    X("amo.dec.w",   AmoW, SIMTGPU_ENC_CUSTOM0(SIMTGPU_F3_ATOMIC, SIMTGPU_ATOM_DEC_W), SIMTGPU_MASK_F3_F7, none, dec_w, false)
// clang-format on
