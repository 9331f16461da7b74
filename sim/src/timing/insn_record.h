// The seam between the functional and the timing model (docs/simulator.md,
// "The timing-model seam"): per warp instruction, the functional model makes
// a record of what it will execute, and the timing model decides from the
// record alone when it issues: it reads no register of the warp.
#pragma once

#include "sm/reconvergence.h"
#include "timing/insn_info.h"

#include <array>
#include <cstdint>

namespace simtgpu::sim::timing {

struct InsnRecord {
    GroupChoice group; // the convergent group (its lanes: group.mask) and its PC
    Insn insn;         // the decoded instruction
    InsnInfo info;     // its class, registers read and written, access size
    // A memory instruction's virtual address per lane of group.mask.
    std::array<uint64_t, 64> address{};
};

} // namespace simtgpu::sim::timing
