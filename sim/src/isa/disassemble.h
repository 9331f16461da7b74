// Disassembly of one instruction, from the ISA table (isa/isa_table.h), in
// the GNU assembler's syntax with ABI register names: for exception reports,
// traces and debuggers.
#pragma once

#include <cstdint>
#include <string>

namespace simtgpu::sim {

// The instruction whose bits are `bits` (a compressed one in the low half,
// shown as its 32-bit equivalent) at address pc: "addi a0, a0, 1",
// "lw a5, 8(sp)", "beq a0, zero, 0x10040", ".insn 0x0000ffff" when illegal.
std::string disassemble(uint32_t bits, uint64_t pc);

} // namespace simtgpu::sim
