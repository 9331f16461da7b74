#include "timing/insn_info.h"

namespace simtgpu::sim::timing {
namespace {

uint8_t x(uint8_t r) {
    return r == kRegSink || r == 0 ? kNoReg : r;
}
uint8_t f(uint8_t r) {
    return uint8_t(kFpRegBase + r);
}

} // namespace

InsnInfo describe(const Insn &in) {
    InsnInfo i;
    auto reads = [&](uint8_t a, uint8_t b = kNoReg, uint8_t c = kNoReg) { i.src = {a, b, c}; };
    auto memory = [&](InsnClass cls, MemOp op, uint8_t bytes) {
        i.cls = cls;
        i.mem = op;
        i.lane_bytes = bytes;
    };
    switch (in.op) {
    case Op::Lui:
    case Op::Auipc:
        i.dst = x(in.rd);
        break;
    case Op::Jal:
        i.cls = InsnClass::branch;
        i.dst = x(in.rd);
        break;
    case Op::Jalr:
        i.cls = InsnClass::branch;
        i.dst = x(in.rd);
        reads(x(in.rs1));
        break;
    case Op::Beq:
    case Op::Bne:
    case Op::Blt:
    case Op::Bge:
    case Op::Bltu:
    case Op::Bgeu:
        i.cls = InsnClass::branch;
        reads(x(in.rs1), x(in.rs2));
        break;
    case Op::Lb:
    case Op::Lbu:
        memory(InsnClass::global, MemOp::load, 1);
        break;
    case Op::Lh:
    case Op::Lhu:
        memory(InsnClass::global, MemOp::load, 2);
        break;
    case Op::Lw:
    case Op::Lwu:
    case Op::Flw:
        memory(InsnClass::global, MemOp::load, 4);
        break;
    case Op::Ld:
    case Op::Fld:
        memory(InsnClass::global, MemOp::load, 8);
        break;
    case Op::Sb:
        memory(InsnClass::global, MemOp::store, 1);
        break;
    case Op::Sh:
        memory(InsnClass::global, MemOp::store, 2);
        break;
    case Op::Sw:
    case Op::Fsw:
        memory(InsnClass::global, MemOp::store, 4);
        break;
    case Op::Sd:
    case Op::Fsd:
        memory(InsnClass::global, MemOp::store, 8);
        break;
    case Op::LrW:
    case Op::ScW:
    case Op::AmoW:
        memory(InsnClass::atomic, MemOp::atomic, 4);
        break;
    case Op::LrD:
    case Op::ScD:
    case Op::AmoD:
        memory(InsnClass::atomic, MemOp::atomic, 8);
        break;
    case Op::Addi:
    case Op::Slti:
    case Op::Sltiu:
    case Op::Xori:
    case Op::Ori:
    case Op::Andi:
    case Op::Slli:
    case Op::Srli:
    case Op::Srai:
    case Op::Addiw:
    case Op::Slliw:
    case Op::Srliw:
    case Op::Sraiw:
        i.dst = x(in.rd);
        reads(x(in.rs1));
        break;
    case Op::Add:
    case Op::Sub:
    case Op::Sll:
    case Op::Slt:
    case Op::Sltu:
    case Op::Xor:
    case Op::Srl:
    case Op::Sra:
    case Op::Or:
    case Op::And:
    case Op::Addw:
    case Op::Subw:
    case Op::Sllw:
    case Op::Srlw:
    case Op::Sraw:
        i.dst = x(in.rd);
        reads(x(in.rs1), x(in.rs2));
        break;
    case Op::Csrrw:
    case Op::Csrrs:
    case Op::Csrrc:
        i.dst = x(in.rd);
        reads(x(in.rs1));
        break;
    case Op::Csrrwi:
    case Op::Csrrsi:
    case Op::Csrrci:
        i.dst = x(in.rd);
        break;
    case Op::Mul:
    case Op::Mulh:
    case Op::Mulhsu:
    case Op::Mulhu:
    case Op::Mulw:
        i.cls = InsnClass::multiply;
        i.dst = x(in.rd);
        reads(x(in.rs1), x(in.rs2));
        break;
    case Op::Div:
    case Op::Divu:
    case Op::Rem:
    case Op::Remu:
    case Op::Divw:
    case Op::Divuw:
    case Op::Remw:
    case Op::Remuw:
        i.cls = InsnClass::sfu;
        i.dst = x(in.rd);
        reads(x(in.rs1), x(in.rs2));
        break;
    case Op::Ecall: // exit: a0 is the status, a7 the call
        reads(10, 17);
        break;
    case Op::Fence:
    case Op::FenceI:
    case Op::Ebreak:
    case Op::Undecoded:
    case Op::Illegal:
        break;
    case Op::Bar:
        i.cls = InsnClass::barrier;
        i.dst = x(in.rd);
        reads(x(in.rs1), x(in.rs2));
        break;
    case Op::ActiveMask:
        i.dst = x(in.rd);
        break;
    case Op::WarpSync:
        reads(x(in.rs1));
        break;
    case Op::Nanosleep: // waits like a barrier: Sm::timing_issue sets how long
        i.cls = InsnClass::barrier;
        reads(x(in.rs1));
        break;
    case Op::Shfl:
        i.dst = x(in.rd);
        reads(x(in.rs1), x(in.rs2), x(in.rs3));
        break;
    case Op::Vote:
    case Op::Match:
    case Op::Redux:
        i.dst = x(in.rd);
        reads(x(in.rs1), x(in.rs2));
        break;
    // Floating point: FP registers unless the operand is an integer one.
    case Op::FmaddS:
    case Op::FmsubS:
    case Op::FnmsubS:
    case Op::FnmaddS:
    case Op::FmaddD:
    case Op::FmsubD:
    case Op::FnmsubD:
    case Op::FnmaddD:
        i.dst = f(in.rd);
        reads(f(in.rs1), f(in.rs2), f(in.rs3));
        break;
    case Op::FsqrtS:
    case Op::FsqrtD:
    case Op::FcvtSD:
    case Op::FcvtDS:
        i.dst = f(in.rd);
        reads(f(in.rs1));
        break;
    case Op::FeqS:
    case Op::FltS:
    case Op::FleS:
    case Op::FeqD:
    case Op::FltD:
    case Op::FleD:
        i.dst = x(in.rd);
        reads(f(in.rs1), f(in.rs2));
        break;
    case Op::FclassS:
    case Op::FmvXW:
    case Op::FcvtWS:
    case Op::FcvtWuS:
    case Op::FcvtLS:
    case Op::FcvtLuS:
    case Op::FclassD:
    case Op::FmvXD:
    case Op::FcvtWD:
    case Op::FcvtWuD:
    case Op::FcvtLD:
    case Op::FcvtLuD:
        i.dst = x(in.rd);
        reads(f(in.rs1));
        break;
    case Op::FcvtSW:
    case Op::FcvtSWu:
    case Op::FcvtSL:
    case Op::FcvtSLu:
    case Op::FmvWX:
    case Op::FcvtDW:
    case Op::FcvtDWu:
    case Op::FcvtDL:
    case Op::FcvtDLu:
    case Op::FmvDX:
        i.dst = f(in.rd);
        reads(x(in.rs1));
        break;
    default: // two-operand FP arithmetic
        i.dst = f(in.rd);
        reads(f(in.rs1), f(in.rs2));
        break;
    }
    if (i.mem == MemOp::load) {
        i.dst = in.op == Op::Flw || in.op == Op::Fld ? f(in.rd) : x(in.rd);
        reads(x(in.rs1));
    } else if (i.mem == MemOp::store) {
        reads(x(in.rs1), in.op == Op::Fsw || in.op == Op::Fsd ? f(in.rs2) : x(in.rs2));
    } else if (i.mem == MemOp::atomic) {
        i.dst = x(in.rd);
        const bool cas = (in.op == Op::AmoW || in.op == Op::AmoD) && in.funct == kAmoCas;
        reads(x(in.rs1), x(in.rs2), cas ? x(in.rd) : kNoReg); // amocas compares with rd
    }
    // FP arithmetic: single or double precision, divide and square root on the SFU.
    if (in.op >= Op::FmaddS && in.op <= Op::FcvtDS) {
        const bool dbl = in.op >= Op::FmaddD && in.op != Op::FcvtSD;
        i.cls = dbl ? InsnClass::fp64 : InsnClass::fp32;
        if (in.op == Op::FdivS || in.op == Op::FsqrtS || in.op == Op::FdivD || in.op == Op::FsqrtD)
            i.cls = InsnClass::sfu;
    }
    return i;
}

} // namespace simtgpu::sim::timing
