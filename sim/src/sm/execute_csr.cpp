// The CSRs: RISC-V's floating-point ones and simtgpu's read-only identity
// ones (docs/isa.md).
#include "sm/sm_state.h"

namespace simtgpu::sim {

bool Sm::Impl::csr_read(Warp &w, uint32_t l, uint32_t csr, uint64_t clock, uint64_t &v)
{
    const Cta &cta = ctas[w.cta];
    switch (csr) {
    case 0x001: v = w.fflags[l]; return true;
    case 0x002: v = w.frm[l]; return true;
    case 0x003: v = uint64_t(w.frm[l]) << 5 | w.fflags[l]; return true;
    case 0xc00: case SIMTGPU_CSR_CLOCK: v = clock; return true;
    case 0xc01: case SIMTGPU_CSR_GLOBALTIMER:
        v = uint64_t((unsigned __int128)clock * 1000000u / config.clock_khz);
        return true;
    case 0xc02: v = stats.warp_instructions; return true;
    case SIMTGPU_CSR_TID_X: case SIMTGPU_CSR_TID_Y: case SIMTGPU_CSR_TID_Z:
        v = w.tid[3 * l + (csr - SIMTGPU_CSR_TID_X)];
        return true;
    case SIMTGPU_CSR_NTID_X: case SIMTGPU_CSR_NTID_Y: case SIMTGPU_CSR_NTID_Z:
        v = cur->desc.block[csr - SIMTGPU_CSR_NTID_X];
        return true;
    case SIMTGPU_CSR_CTAID_X: case SIMTGPU_CSR_CTAID_Y: case SIMTGPU_CSR_CTAID_Z:
        v = cta.ctaid[csr - SIMTGPU_CSR_CTAID_X];
        return true;
    case SIMTGPU_CSR_NCTAID_X: case SIMTGPU_CSR_NCTAID_Y: case SIMTGPU_CSR_NCTAID_Z:
        v = cur->desc.grid[csr - SIMTGPU_CSR_NCTAID_X];
        return true;
    case SIMTGPU_CSR_LANEID: v = l; return true;
    case SIMTGPU_CSR_WARPID: v = w.warp_in_cta; return true;
    case SIMTGPU_CSR_SMID: v = sm_id; return true;
    case SIMTGPU_CSR_WARPSIZE: v = W; return true;
    case SIMTGPU_CSR_NSMID: v = config.num_sms; return true;
    case SIMTGPU_CSR_LANEMASK_LT: v = (uint64_t(1) << l) - 1; return true;
    case SIMTGPU_CSR_ENVPTR: // simt_2 and newer
        v = cur->desc.env_va;
        return config.arch >= SIMTGPU_ARCH_SIMT2;
    case SIMTGPU_CSR_DYNSHARED: v = cur->desc.shared_bytes; return true;
    case SIMTGPU_CSR_GRIDID: v = cur->desc.grid_id; return true;
    default: return false;
    }
}

bool Sm::Impl::exec_csr(uint32_t slot, const Insn &in, uint64_t mask, uint64_t clock)
{
    Warp &w = warps[slot];
    const uint32_t csr = uint32_t(in.imm);
    const bool imm_form = in.op >= Op::Csrrwi;
    const bool writes = in.op == Op::Csrrw || in.op == Op::Csrrwi || in.rs1 != 0;
    const bool writable = csr >= 1 && csr <= 3;
    const uint32_t first = uint32_t(std::countr_zero(mask));
    uint64_t probe;
    if (!csr_read(w, first, csr, clock, probe) || (writes && !writable)) {
        raise(SIMTGPU_EXC_ILLEGAL_INSTRUCTION, slot, first, fault_pc, in.raw);
        return false;
    }
    if (!writes) { // a read: most are the same for every lane (probe's)
        uint64_t *dst = X(w, in.rd);
        switch (csr) {
        case SIMTGPU_CSR_TID_X: case SIMTGPU_CSR_TID_Y: case SIMTGPU_CSR_TID_Z: {
            const uint32_t axis = csr - SIMTGPU_CSR_TID_X;
            each(mask, [&](uint32_t l) { dst[l] = w.tid[3 * l + axis]; });
            return true;
        }
        case 0xc00: case SIMTGPU_CSR_CLOCK: case 0xc01: case SIMTGPU_CSR_GLOBALTIMER: case 0xc02:
        case SIMTGPU_CSR_NTID_X: case SIMTGPU_CSR_NTID_Y: case SIMTGPU_CSR_NTID_Z:
        case SIMTGPU_CSR_CTAID_X: case SIMTGPU_CSR_CTAID_Y: case SIMTGPU_CSR_CTAID_Z:
        case SIMTGPU_CSR_NCTAID_X: case SIMTGPU_CSR_NCTAID_Y: case SIMTGPU_CSR_NCTAID_Z:
        case SIMTGPU_CSR_WARPID: case SIMTGPU_CSR_SMID: case SIMTGPU_CSR_WARPSIZE:
        case SIMTGPU_CSR_NSMID: case SIMTGPU_CSR_ENVPTR: case SIMTGPU_CSR_DYNSHARED:
        case SIMTGPU_CSR_GRIDID:
            each(mask, [&](uint32_t l) { dst[l] = probe; });
            return true;
        default: break; // per lane: below
        }
    }
    const uint64_t *src = X(w, in.rs1);
    each(mask, [&](uint32_t l) {
        uint64_t old = 0;
        csr_read(w, l, csr, clock, old);
        res[l] = old;
        if (!writes) return;
        const uint64_t operand = imm_form ? in.rs1 : src[l];
        uint64_t value = operand;
        if (in.op == Op::Csrrs || in.op == Op::Csrrsi) value = old | operand;
        if (in.op == Op::Csrrc || in.op == Op::Csrrci) value = old & ~operand;
        switch (csr) {
        case 1: w.fflags[l] = value & 0x1f; break;
        case 2: w.frm[l] = value & 7; break;
        case 3: w.fflags[l] = value & 0x1f; w.frm[l] = (value >> 5) & 7; break;
        }
    });
    uint64_t *dst = X(w, in.rd);
    each(mask, [&](uint32_t l) { dst[l] = res[l]; });
    return true;
}

} // namespace simtgpu::sim
