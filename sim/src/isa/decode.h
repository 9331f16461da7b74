// Pre-decoding of RV64GC + the SIMT extension: one Insn per instruction,
// made once per code address and executed many times (the SM's decoded-code
// cache: Sm::Impl::fetch, sim/src/sm/sm_memory.cpp).
// Compressed instructions are expanded to their 32-bit equivalents. The
// operations and their encodings are the lists of isa/isa_table.h.
#pragma once

#include "isa/isa_table.h"

#include <cstddef>
#include <cstdint>

namespace simtgpu::sim {

enum class Op : uint16_t {
#define SIMTGPU_X(name, rd, rs1, rs2, rs3, cls, mem, bytes) name,
    SIMTGPU_ISA_OPS(SIMTGPU_X)
#undef SIMTGPU_X
};

// The register file an instruction's field names (isa_table.h).
enum class RegFile : uint8_t { no, x, f };
enum class MemOp : uint8_t { none, load, store, atomic };

// What the table says of an operation: its fields' register files and its
// memory access.
struct OpInfo {
    RegFile rd, rs1, rs2, rs3;
    MemOp mem;
    uint8_t lane_bytes;
};

inline constexpr OpInfo kOpInfo[] = {
#define SIMTGPU_X(name, rd, rs1, rs2, rs3, cls, mem, bytes)                                      \
    {RegFile::rd, RegFile::rs1, RegFile::rs2, RegFile::rs3, MemOp::mem, bytes},
    SIMTGPU_ISA_OPS(SIMTGPU_X)
#undef SIMTGPU_X
};

inline const OpInfo &op_info(Op op) { return kOpInfo[size_t(op)]; }

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

// The format of an encoding's immediate: none (Insn::imm is 0), the base
// formats, shift amounts of 6 and 5 bits, and a CSR number.
enum class ImmFormat : uint8_t { none, i, s, b, u, j, shamt6, shamt5, csr };
// Where Insn::funct comes from: nowhere (0), the AMO funct5, custom-0's
// funct7 or funct2, or one of the AmoFunct values of simtgpu's atomics.
enum class FunctField : uint8_t { none, amo5, funct7, funct2, fadd, inc_w, dec_w };

// One row of SIMTGPU_ISA_ENCODINGS.
struct Encoding {
    const char *mnemonic;
    Op op;
    uint32_t match, mask;
    ImmFormat imm;
    FunctField funct;
    bool rounds; // the rm field must be a valid rounding mode
};

// The encoding of a 32-bit instruction word, or nullptr (illegal).
const Encoding *find_encoding(uint32_t word);

// Decodes a 32-bit instruction (low bits 11) or a 16-bit one (other low
// bits; upper half ignored). Unknown encodings give Op::Illegal.
Insn decode(uint32_t bits);

// Expands a compressed instruction to its 32-bit form; 0 when it is illegal.
uint32_t expand_compressed(uint16_t half);

} // namespace simtgpu::sim
