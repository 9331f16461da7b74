#include "timing/insn_info.h"

namespace simtgpu::sim::timing {
namespace {

constexpr InsnClass kClass[] = {
#define SIMTGPU_X(name, rd, rs1, rs2, rs3, cls, mem, bytes) InsnClass::cls,
    SIMTGPU_ISA_OPS(SIMTGPU_X)
#undef SIMTGPU_X
};

// The scoreboard register a field names: x0 and decode's write sink are
// none, FP registers follow the integer ones.
uint8_t scoreboard_reg(RegFile file, uint8_t r) {
    switch (file) {
    case RegFile::x: return r == kRegSink || r == 0 ? kNoReg : r;
    case RegFile::f: return uint8_t(kFpRegBase + r);
    case RegFile::no: break;
    }
    return kNoReg;
}

} // namespace

InsnInfo describe(const Insn &in) {
    const OpInfo &op = op_info(in.op);
    InsnInfo i;
    i.cls = kClass[size_t(in.op)];
    i.mem = op.mem;
    i.lane_bytes = op.lane_bytes;
    i.dst = scoreboard_reg(op.rd, in.rd);
    i.src = {scoreboard_reg(op.rs1, in.rs1), scoreboard_reg(op.rs2, in.rs2),
             scoreboard_reg(op.rs3, in.rs3)};
    if (in.op == Op::Ecall) // exit: a0 is the status, a7 the call
        i.src = {10, 17, kNoReg};
    const bool cas = (in.op == Op::AmoW || in.op == Op::AmoD) && in.funct == kAmoCas;
    if (cas) // amocas compares with rd
        i.src[2] = scoreboard_reg(RegFile::x, in.rd);
    return i;
}

} // namespace simtgpu::sim::timing
