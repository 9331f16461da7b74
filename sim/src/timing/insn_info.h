// What the timing model needs to know of a decoded instruction: its class
// (functional unit) and the registers it reads and writes (the scoreboard's
// business), and for memory instructions the access size; all of it from
// the ISA table (isa/isa_table.h). The functional
// core adds the active mask and per-lane addresses when it issues one.
#pragma once

#include "isa/decode.h"
#include "timing/pipeline_config.h"

#include <array>
#include <cstdint>

namespace simtgpu::sim::timing {

// Scoreboard register numbers: x0..x32 (32 is decode's write sink), then
// f0..f31.
inline constexpr uint8_t kFpRegBase = kIntRegs;
inline constexpr uint32_t kScoreboardRegs = kIntRegs + 32;
inline constexpr uint8_t kNoReg = 0xff;

using sim::MemOp;

struct InsnInfo {
    InsnClass cls = InsnClass::integer;
    MemOp mem = MemOp::none;
    uint8_t lane_bytes = 0; // memory instructions
    uint8_t dst = kNoReg;
    std::array<uint8_t, 3> src{kNoReg, kNoReg, kNoReg};
};

InsnInfo describe(const Insn &in);

} // namespace simtgpu::sim::timing
