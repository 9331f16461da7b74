// Pre-decoding of RV64GC + the SIMT extension: one Insn per instruction,
// made once per code address and executed many times (the SM's decoded-code
// cache: Sm::Impl::fetch, sim/src/sm/sm_memory.cpp).
// Compressed instructions are expanded to their 32-bit equivalents.
#pragma once

#include <cstdint>

namespace simtgpu::sim {

enum class Op : uint16_t {
    Undecoded, // slot of the code cache not decoded yet
    Illegal,
    // RV64I
    Lui, Auipc, Jal, Jalr,
    Beq, Bne, Blt, Bge, Bltu, Bgeu,
    Lb, Lh, Lw, Ld, Lbu, Lhu, Lwu,
    Sb, Sh, Sw, Sd,
    Addi, Slti, Sltiu, Xori, Ori, Andi, Slli, Srli, Srai,
    Add, Sub, Sll, Slt, Sltu, Xor, Srl, Sra, Or, And,
    Addiw, Slliw, Srliw, Sraiw, Addw, Subw, Sllw, Srlw, Sraw,
    Fence, FenceI, Ecall, Ebreak,
    // Zicsr
    Csrrw, Csrrs, Csrrc, Csrrwi, Csrrsi, Csrrci,
    // M
    Mul, Mulh, Mulhsu, Mulhu, Div, Divu, Rem, Remu,
    Mulw, Divw, Divuw, Remw, Remuw,
    // A: funct holds the AMO funct5 (SIMTGPU-independent RISC-V numbering)
    LrW, ScW, AmoW, LrD, ScD, AmoD,
    // F and D: loads/stores
    Flw, Fld, Fsw, Fsd,
    // F and D arithmetic; S then D variants in the same order
    FmaddS, FmsubS, FnmsubS, FnmaddS, FaddS, FsubS, FmulS, FdivS, FsqrtS,
    FsgnjS, FsgnjnS, FsgnjxS, FminS, FmaxS, FeqS, FltS, FleS, FclassS,
    FcvtWS, FcvtWuS, FcvtLS, FcvtLuS, FcvtSW, FcvtSWu, FcvtSL, FcvtSLu, FmvXW, FmvWX,
    FmaddD, FmsubD, FnmsubD, FnmaddD, FaddD, FsubD, FmulD, FdivD, FsqrtD,
    FsgnjD, FsgnjnD, FsgnjxD, FminD, FmaxD, FeqD, FltD, FleD, FclassD,
    FcvtWD, FcvtWuD, FcvtLD, FcvtLuD, FcvtDW, FcvtDWu, FcvtDL, FcvtDLu, FmvXD, FmvDX,
    FcvtSD, FcvtDS,
    // SIMT extension (custom-0); funct holds funct7 / funct2
    Bar, Vote, Shfl, ActiveMask, WarpSync, Match, Redux, Nanosleep,
};

// AMO funct5 values (instruction bits 31:27).
enum AmoFunct : uint8_t {
    kAmoAdd = 0x00, kAmoSwap = 0x01, kAmoXor = 0x04, kAmoOr = 0x08, kAmoAnd = 0x0c,
    kAmoMin = 0x10, kAmoMax = 0x14, kAmoMinu = 0x18, kAmoMaxu = 0x1c,
    kAmoCas = 0x05, // Zacas amocas: rd holds the expected value, rs2 the new one
    // simtgpu's custom-0 atomics (SIMTGPU_F3_ATOMIC) decode as AMOs with
    // these functs, above every funct5: float add, CUDA's wrapping inc/dec.
    kAmoFadd = 0x20, kAmoIncW = 0x21, kAmoDecW = 0x22,
};

// Integer register 32 is a write sink: decode points rd = x0 there so
// executing never has to test for x0.
inline constexpr uint8_t kRegSink = 32;
inline constexpr uint32_t kIntRegs = 33;

struct Insn {
    Op op = Op::Undecoded;
    uint8_t rd = 0, rs1 = 0, rs2 = 0, rs3 = 0;
    uint8_t rm = 0;    // FP rounding mode field
    uint8_t funct = 0; // AMO funct5, custom funct7/funct2
    uint8_t len = 4;   // 2 for compressed
    int64_t imm = 0;   // immediate, branch offset or CSR number
    uint32_t raw = 0;  // the instruction bits (for illegal-instruction reports)
};

// Decodes a 32-bit instruction (low bits 11) or a 16-bit one (other low
// bits; upper half ignored). Unknown encodings give Op::Illegal.
Insn decode(uint32_t bits);

// Expands a compressed instruction to its 32-bit form; 0 when it is illegal.
uint32_t expand_compressed(uint16_t half);

} // namespace simtgpu::sim
