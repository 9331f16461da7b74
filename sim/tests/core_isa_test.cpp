// The instruction set of the core, by class: decoding (compressed expansion
// against the assembler's own 32-bit encodings), integer and M results
// against host arithmetic, F/D against the host FPU under fenv rounding
// modes and known bit patterns, and a differential run of a whole program
// against qemu-riscv64; the ISA table's encodings and the disassembler.
#include "core_support.h"
#include "isa/decode.h"
#include "isa/disassemble.h"

#include <gtest/gtest.h>

#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

namespace simtgpu::sim {
namespace {

using testing::FlatMemory;
using testing::RunOutcome;

constexpr uint64_t kBase = 0x10000, kSize = 32ull << 20;
constexpr uint64_t kParams = 0x1000000, kOut = 0x1100000, kIn = 0x1400000;

std::string program(const std::string &name) {
    return testing::device_program_path(SIMTGPU_DEVICE_PROGRAM_DIR, name);
}

struct Program {
    FlatMemory mem{kBase, kSize};
    testing::LoadedElf elf;
    DeviceConfig config = DeviceConfig::defaults();

    explicit Program(const std::string &name) {
        auto e = testing::load_elf(program(name), mem);
        if (e)
            elf = *e;
    }
    bool loaded() const { return elf.entry != 0; }
    RunOutcome run(uint64_t entry, uint32_t threads, uint32_t ctas = 1) {
        LaunchDesc l;
        l.entry_pc = entry;
        l.param_va = kParams;
        l.grid = {ctas, 1, 1};
        l.block = {threads, 1, 1};
        l.stack_bytes = 4096;
        Sm sm(config, 0);
        return testing::run_launch(sm, mem, l);
    }
};

// --------------------------------------------------------------- decoding

TEST(CoreIsa, CompressedExpandsAsTheAssemblerEncodes) {
    Program p("core_rvc");
    ASSERT_TRUE(p.loaded());
    uint64_t va = p.elf.symbols.at("rvc_pairs");
    const uint64_t end = p.elf.symbols.at("rvc_pairs_end");
    int pairs = 0;
    for (; va < end; va += 6, ++pairs) {
        const uint16_t half = p.mem.read<uint16_t>(va);
        const uint32_t word = p.mem.read<uint16_t>(va + 2) | uint32_t(p.mem.read<uint16_t>(va + 4))
                                                                 << 16;
        ASSERT_NE(half & 3, 3) << "pair " << pairs;
        EXPECT_EQ(expand_compressed(half), word) << "pair " << pairs << std::hex << " c=" << half;
        const Insn c = decode(half), w = decode(word);
        EXPECT_EQ(c.op, w.op);
        EXPECT_EQ(c.len, 2);
        EXPECT_EQ(c.imm, w.imm);
    }
    EXPECT_GT(pairs, 50);
}

TEST(CoreIsa, ReservedEncodingsAreIllegal) {
    EXPECT_EQ(decode(0x0000).op, Op::Illegal); // all-zero halfword
    EXPECT_EQ(decode(0xffffffff).op, Op::Illegal);
    EXPECT_EQ(decode(0x30200073).op, Op::Illegal); // mret
    EXPECT_EQ(decode(0x10500073).op, Op::Illegal); // wfi
    EXPECT_EQ(decode(0x6081).op, Op::Illegal);     // c.lui ra, 0 (nzimm = 0 is reserved)
    EXPECT_EQ(decode(0x02b50553 | (5u << 12)).op, Op::Illegal);              // fadd.d with rm = 5
    EXPECT_EQ(decode(0x0000000b | (6u << 12) | (4u << 25)).op, Op::Illegal); // atomic funct7 4
    EXPECT_EQ(decode(0x0000000b | (3u << 12) | (3u << 25)).op, Op::Illegal); // warp funct7 3
    EXPECT_EQ(decode(0x0000202f | (6u << 27)).op, Op::Illegal);              // AMO funct5 00110
    EXPECT_EQ(decode(0x0000000b | (7u << 12)).op, Op::Illegal);              // custom-0 funct3 7
    EXPECT_EQ(decode(0x0000000b | (5u << 25)).op, Op::Illegal);              // bar funct7 5
    EXPECT_EQ(decode(0x0000000b | (4u << 12) | (2u << 25)).op, Op::Illegal); // match funct7 2
    EXPECT_EQ(decode(0x0000000b | (5u << 12) | (8u << 25)).op, Op::Illegal); // redux funct7 8
    EXPECT_EQ(decode(0x0000000b | (4u << 25)).op, Op::Bar);                  // bar.arrive
    EXPECT_EQ(decode(0x0000000b | (4u << 12) | (1u << 25)).op, Op::Match);   // match.all
    EXPECT_EQ(decode(0x0000000b | (5u << 12) | (7u << 25)).op, Op::Redux);   // redux.maxu
    EXPECT_EQ(decode(0x0000000b).op, Op::Bar);
    EXPECT_EQ(decode(0x0000000b).rd, kRegSink);
    // simt_2's atomics and nanosleep (docs/isa.md).
    EXPECT_EQ(decode(0x0000000b | (6u << 12)).op, Op::AmoW); // amo.fadd.s
    EXPECT_EQ(decode(0x0000000b | (6u << 12)).funct, kAmoFadd);
    EXPECT_EQ(decode(0x0000000b | (6u << 12) | (1u << 25)).op, Op::AmoD); // amo.fadd.d
    EXPECT_EQ(decode(0x0000000b | (6u << 12) | (3u << 25)).funct, kAmoDecW);
    EXPECT_EQ(decode(0x0000302f | (5u << 27)).op, Op::AmoD); // amocas.d
    EXPECT_EQ(decode(0x0000302f | (5u << 27)).funct, kAmoCas);
    EXPECT_EQ(decode(0x0000000b | (3u << 12) | (2u << 25)).op, Op::Nanosleep);
}

// The ISA table (isa/isa_table.h): each encoding's own bits decode as that
// row, and every operation it lists has an encoding.
TEST(CoreIsa, EveryEncodingInTheTableDecodesAsItself) {
    std::vector<bool> encoded(size_t(Op::Nanosleep) + 1);
#define SIMTGPU_X(text, name, match, mask, imm, funct, rounds)                                     \
    {                                                                                              \
        const Encoding *e = find_encoding(match);                                                  \
        ASSERT_NE(e, nullptr) << text;                                                             \
        EXPECT_STREQ(e->mnemonic, text);                                                           \
        EXPECT_EQ(decode(match).op, Op::name) << text;                                             \
        encoded[size_t(Op::name)] = true;                                                          \
    }
    SIMTGPU_ISA_ENCODINGS(SIMTGPU_X)
#undef SIMTGPU_X
    for (size_t op = size_t(Op::Illegal) + 1; op < encoded.size(); ++op)
        EXPECT_TRUE(encoded[op]) << "Op " << op << " has no encoding";
}

TEST(CoreIsa, DisassemblesWithAbiNames) {
    EXPECT_EQ(disassemble(0x00150513, 0x10000), "addi a0, a0, 1");
    EXPECT_EQ(disassemble(0x00812783, 0x10000), "lw a5, 8(sp)");
    EXPECT_EQ(disassemble(0x00a12423, 0x10000), "sw a0, 8(sp)");
    EXPECT_EQ(disassemble(0xfe050ee3, 0x10000), "beq a0, zero, 0xfffc");
    EXPECT_EQ(disassemble(0x000012b7, 0x10000), "lui t0, 0x1");
    EXPECT_EQ(disassemble(0x100522af, 0x10000), "lr.w t0, (a0)");
    EXPECT_EQ(disassemble(0x04b5252f, 0x10000), "amoadd.w a0, a1, (a0)");
    EXPECT_EQ(disassemble(0x1ab5f543, 0x10000), "fmadd.d fa0, fa1, fa1, ft3");
    EXPECT_EQ(disassemble(0xcc0025f3, 0x10000), "csrrs a1, 0xcc0, zero");
    EXPECT_EQ(disassemble(0x0405050b, 0x10000), "bar.and a0, a0, zero");
    EXPECT_EQ(disassemble(0x00000073, 0x10000), "ecall");
    EXPECT_EQ(disassemble(0x8082, 0x10000), "jalr zero, 0(ra)"); // c.jr ra
    EXPECT_EQ(disassemble(0x0000ffff, 0x10000), ".insn 0x0000ffff");
    EXPECT_EQ(disassemble(0x0000, 0x10000), ".insn 0x0000");
}

// ---------------------------------------------------------- integer and M

uint64_t sx32(uint64_t v) {
    return uint64_t(int64_t(int32_t(uint32_t(v))));
}

// The RISC-V definitions, written out independently of the simulator.
uint64_t int_reference(int k, uint64_t a, uint64_t b) {
    const int64_t sa = int64_t(a), sb = int64_t(b);
    const int32_t wa = int32_t(a), wb = int32_t(b);
    switch (k) {
    case 0:
        return a + b;
    case 1:
        return a - b;
    case 2:
        return a << (b % 64);
    case 3:
        return a >> (b % 64);
    case 4:
        return uint64_t(sa >> (b % 64));
    case 5:
        return sa < sb;
    case 6:
        return a < b;
    case 7:
        return a ^ b;
    case 8:
        return a | b;
    case 9:
        return a & b;
    case 10:
        return sx32(a + b);
    case 11:
        return sx32(a - b);
    case 12:
        return sx32(uint32_t(a) << (b % 32));
    case 13:
        return sx32(uint32_t(a) >> (b % 32));
    case 14:
        return sx32(uint32_t(wa >> (b % 32)));
    case 15:
        return a * b;
    case 16:
        return uint64_t((__int128(sa) * sb) >> 64);
    case 17:
        return uint64_t((__int128(sa) * __int128(b)) >> 64);
    case 18:
        return uint64_t((unsigned __int128)a * b >> 64);
    case 19:
        return b == 0 ? ~0ull : (sa == INT64_MIN && sb == -1) ? a : uint64_t(sa / sb);
    case 20:
        return b == 0 ? ~0ull : a / b;
    case 21:
        return b == 0 ? a : (sa == INT64_MIN && sb == -1) ? 0 : uint64_t(sa % sb);
    case 22:
        return b == 0 ? a : a % b;
    case 23:
        return sx32(uint32_t(a) * uint32_t(b));
    case 24:
        return wb == 0 ? ~0ull : (wa == INT32_MIN && wb == -1) ? sx32(a) : sx32(uint32_t(wa / wb));
    case 25:
        return uint32_t(b) == 0 ? ~0ull : sx32(uint32_t(a) / uint32_t(b));
    case 26:
        return wb == 0 ? sx32(a) : (wa == INT32_MIN && wb == -1) ? 0 : sx32(uint32_t(wa % wb));
    case 27:
        return uint32_t(b) == 0 ? sx32(a) : sx32(uint32_t(a) % uint32_t(b));
    }
    return 0;
}

TEST(CoreIsa, IntegerAndMultiplyDivideAcrossLanes) {
    Program p("core_isa_ops");
    ASSERT_TRUE(p.loaded());
    const uint64_t edges[] = {0,
                              1,
                              ~0ull,
                              2,
                              0x8000000000000000ull,
                              0x7fffffffffffffffull,
                              0x80000000ull,
                              0x7fffffffull,
                              0xffffffffull,
                              0xffffffff80000000ull,
                              63,
                              64,
                              31,
                              33,
                              12345,
                              uint64_t(-98765)};
    const uint32_t threads = 256;
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    auto next = [&] {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        return rng;
    };
    std::vector<uint64_t> in(2 * threads);
    for (uint32_t t = 0; t < threads; ++t) {
        in[2 * t] = t < 16 * 16 / 2 ? edges[t % 16] : next();
        in[2 * t + 1] = t < 128 ? edges[(t / 16 + t) % 16] : next();
        if (t >= 128 && t % 3 == 0)
            in[2 * t + 1] = edges[t % 16]; // random / edge
    }
    p.mem.write_bytes(kIn, in.data(), in.size() * 8);
    const uint64_t params[2] = {kOut, kIn};
    p.mem.write(kParams, params);
    RunOutcome r = p.run(p.elf.symbols.at("k_intops"), threads);
    ASSERT_FALSE(r.exception);
    for (uint32_t t = 0; t < threads; ++t)
        for (int k = 0; k < 28; ++k)
            ASSERT_EQ(p.mem.read<uint64_t>(kOut + 8 * (28 * t + k)),
                      int_reference(k, in[2 * t], in[2 * t + 1]))
                << "thread " << t << " op " << k << std::hex << " a=" << in[2 * t]
                << " b=" << in[2 * t + 1];
}

// ------------------------------------------------------------ F and D

uint8_t riscv_flags(int host) {
    return uint8_t(((host & FE_INVALID) ? 16 : 0) | ((host & FE_DIVBYZERO) ? 8 : 0) |
                   ((host & FE_OVERFLOW) ? 4 : 0) | ((host & FE_UNDERFLOW) ? 2 : 0) |
                   ((host & FE_INEXACT) ? 1 : 0));
}

uint64_t canonical_bits(double d) {
    return std::isnan(d) ? 0x7ff8000000000000ull : std::bit_cast<uint64_t>(d);
}

// Result bits and RISC-V fflags of op k on the host FPU in rounding mode rm.
std::pair<uint64_t, uint8_t> fp_reference(int k, double a, double b, double c, int rm) {
    static const int modes[4] = {FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD};
    volatile double va = a, vb = b, vc = c;
    std::fesetround(modes[rm]);
    std::feclearexcept(FE_ALL_EXCEPT);
    double r = 0;
    switch (k) {
    case 0:
        r = va + vb;
        break;
    case 1:
        r = va - vb;
        break;
    case 2:
        r = va * vb;
        break;
    case 3:
        r = va / vb;
        break;
    case 4:
        r = std::sqrt(va);
        break;
    case 5:
        r = std::fma(va, vb, vc);
        break;
    }
    volatile double sink = r;
    (void)sink;
    uint8_t flags = riscv_flags(std::fetestexcept(FE_ALL_EXCEPT));
    std::fesetround(FE_TONEAREST);
    // RISC-V: inf * 0 + c is invalid even for a quiet NaN c.
    if (k == 5 && ((std::isinf(a) && b == 0) || (a == 0 && std::isinf(b))))
        flags |= 16;
    return {canonical_bits(r), flags};
}

TEST(CoreIsa, DoubleArithmeticPerLaneRoundingModesAndFlags) {
    Program p("core_isa_ops");
    ASSERT_TRUE(p.loaded());
    const uint64_t specials[] = {0,
                                 0x8000000000000000ull,
                                 0x3ff0000000000000ull,
                                 0x7ff0000000000000ull,
                                 0xfff0000000000000ull,
                                 0x7ff8000000000000ull,
                                 0x7ff4000000000000ull,
                                 0x0000000000000001ull,
                                 0x7fefffffffffffffull,
                                 0x3fb999999999999aull,
                                 0xc000000000000000ull,
                                 0x0010000000000000ull};
    const uint32_t threads = 256;
    uint64_t rng = 12345;
    auto next = [&] {
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        return rng;
    };
    auto operand = [&](uint32_t i) -> uint64_t {
        switch (next() % 4) {
        case 0:
            return specials[i % 12];
        case 1:
            return next(); // any bit pattern, NaNs included
        default:
            return std::bit_cast<uint64_t>(double(int64_t(next() % 2001) - 1000) /
                                           double(1 + next() % 97));
        }
    };
    std::vector<uint64_t> in(4 * threads);
    for (uint32_t t = 0; t < threads; ++t) {
        in[4 * t] = operand(t);
        in[4 * t + 1] = operand(t * 7);
        in[4 * t + 2] = operand(t * 5);
        in[4 * t + 3] = next() % 4; // every warp mixes all four host modes
    }
    // Round to nearest, ties to max magnitude: known answers.
    const uint32_t rmm_a = threads - 2, rmm_b = threads - 1;
    in[4 * rmm_a] = 0x3ff0000000000000ull; // 1 + 2^-53: a tie
    in[4 * rmm_a + 1] = 0x3ca0000000000000ull;
    in[4 * rmm_a + 3] = 4;
    in[4 * rmm_b] = 0x3ff0000000000003ull; // (1 + 3u) * 1.5 = 1.5 + 4.5u: a tie
    in[4 * rmm_b + 1] = 0x3ff8000000000000ull;
    in[4 * rmm_b + 3] = 4;
    p.mem.write_bytes(kIn, in.data(), in.size() * 8);
    const uint64_t params[2] = {kOut, kIn};
    p.mem.write(kParams, params);
    RunOutcome r = p.run(p.elf.symbols.at("k_fpops"), threads);
    ASSERT_FALSE(r.exception);
    auto out = [&](uint32_t t, int k, int part) {
        return p.mem.read<uint64_t>(kOut + 8 * (12 * t + 2 * k + part));
    };
    for (uint32_t t = 0; t < threads - 2; ++t) {
        const double a = std::bit_cast<double>(in[4 * t]), b = std::bit_cast<double>(in[4 * t + 1]),
                     c = std::bit_cast<double>(in[4 * t + 2]);
        for (int k = 0; k < 6; ++k) {
            const auto [bits, flags] = fp_reference(k, a, b, c, int(in[4 * t + 3]));
            ASSERT_EQ(out(t, k, 0), bits)
                << "thread " << t << " op " << k << " rm " << in[4 * t + 3];
            ASSERT_EQ(out(t, k, 1), flags)
                << "thread " << t << " op " << k << " rm " << in[4 * t + 3];
        }
    }
    EXPECT_EQ(out(rmm_a, 0, 0), 0x3ff0000000000001ull); // RNE would give 1.0
    EXPECT_EQ(out(rmm_a, 0, 1), 1u);                    // NX
    EXPECT_EQ(out(rmm_b, 2, 0), 0x3ff8000000000005ull); // RNE would give ...4
    EXPECT_EQ(out(rmm_b, 2, 1), 1u);
}

TEST(CoreIsa, ReservedDynamicRoundingModeIsIllegal) {
    Program p("core_isa_ops");
    ASSERT_TRUE(p.loaded());
    RunOutcome r = p.run(p.elf.symbols.at("k_bad_frm"), 4);
    ASSERT_TRUE(r.exception);
    EXPECT_EQ(r.exception->kind, uint32_t(SIMTGPU_EXC_ILLEGAL_INSTRUCTION));
    EXPECT_EQ(r.exception->detail & 0x7f, 0x53u); // OP-FP
}

// ------------------------------------------------------ differential: qemu

std::string find_qemu() {
    for (const char *dir : {"/usr/bin", "/usr/local/bin"}) {
        std::string path = std::string(dir) + "/qemu-riscv64";
        if (access(path.c_str(), X_OK) == 0)
            return path;
    }
    return {};
}

TEST(CoreIsa, DifferentialAgainstQemuUser) {
    const std::string qemu = find_qemu();
    if (qemu.empty())
        GTEST_SKIP() << "qemu-riscv64 not installed";
    Program p("core_diff");
    ASSERT_TRUE(p.loaded());
    FILE *pipe = popen((qemu + " " + program("core_diff")).c_str(), "r");
    ASSERT_NE(pipe, nullptr);
    uint64_t qemu_hash = 0;
    const size_t got = fread(&qemu_hash, 1, 8, pipe);
    ASSERT_EQ(pclose(pipe), 0);
    ASSERT_EQ(got, 8u);
    RunOutcome r = p.run(p.elf.entry, 1);
    ASSERT_FALSE(r.exception) << "kind " << r.exception->kind << " pc " << std::hex
                              << r.exception->pc << " detail " << r.exception->detail;
    EXPECT_EQ(p.mem.read<uint64_t>(kParams), qemu_hash);
}

} // namespace
} // namespace simtgpu::sim
