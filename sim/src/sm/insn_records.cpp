// The functional side of the seam with the timing model
// (timing/insn_record.h): the record of a warp's next instruction, made
// without executing it, and the execution of exactly that instruction.
#include "sm/group_choice.h"
#include "sm/sm_state.h"

namespace simtgpu::sim {

bool Sm::Impl::next_record(uint32_t slot, timing::InsnRecord &record)
{
    Warp &w = warps[slot];
    cur = &launches[ctas[w.cta].launch];
    record.group = choose_group(w);
    fault_slot = slot;
    fault_pc = record.group.pc;
    CodePage *page = nullptr;
    uint64_t page_vpn = UINT64_MAX;
    const Insn *in = fetch(slot, uint32_t(std::countr_zero(record.group.mask)), record.group.pc,
                           page, page_vpn);
    if (!in)
        return false;
    record.insn = *in;
    record.info = timing::describe(*in);
    if (record.info.mem != MemOp::none) {
        const uint64_t *base = X(w, in->rs1);
        const int64_t imm = record.info.mem == MemOp::atomic ? 0 : in->imm; // AMOs: (rs1)
        each(record.group.mask, [&](uint32_t l) { record.address[l] = base[l] + uint64_t(imm); });
    }
    return true;
}

uint64_t Sm::Impl::execute_record(uint32_t slot, const timing::InsnRecord &record)
{
    const timing::InsnClass cls = record.info.cls;
    warps[slot].burst_global = cls == timing::InsnClass::global || cls == timing::InsnClass::atomic;
    burst_group(slot, record.group, 1);
    return sleep_cycles;
}

} // namespace simtgpu::sim
