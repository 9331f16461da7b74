// SPDX-License-Identifier: MIT
// Which convergent group of a warp runs next: the reconvergence policy's
// choice, the timing model's burst slices, and a turn for a starved group.
// Inline in a header because both engines call it per scheduling decision:
// the functional burst loop (interpreter.cpp) and the timing pipeline
// (timing/sm_pipeline_impl.h, through sm/timing_port.cpp), where a call
// instead of inlining cost 12% on divergent code.
#pragma once

#include <algorithm>
#include <bit>

#include "sm/sm_state.h"

namespace simtgpu::sim {

inline GroupChoice Sm::Impl::choose_group(Warp &w)
{
    const uint64_t runnable = w.runnable();
    GroupChoice group;
    if ((runnable & ~w.same_pc_lanes) == 0) {
        group = GroupChoice{w.same_pc, runnable, UINT64_MAX};
    } else {
        w.write_stale_pcs(); // the policy and the starvation turn below read `pc`
        group = reconvergence->select(w.pc.data(), runnable);
    }
    bool burst_ends = true; // the functional model: one choice per burst
    if (config.model == Model::timing) {
        burst_ends = ++w.burst_instructions >= kSliceInstructions || w.burst_global;
        if (burst_ends)
            w.burst_instructions = 0;
        w.burst_global = false;
    }
    if (group.mask == runnable) {
        w.partial_bursts = 0;
    } else if (burst_ends && ++w.partial_bursts > kStarvationBursts) {
        // A turn for a waiting group: the next PC above the one that had the
        // last such turn, wrapping, so that every group gets one. (Always the
        // second-lowest PC starved a third group: a lock's holder behind two
        // spin loops.)
        w.partial_bursts = 0;
        uint64_t next = UINT64_MAX, lowest = UINT64_MAX;
        for (uint64_t m = runnable & ~group.mask; m; m &= m - 1) {
            const uint64_t pc = w.pc[std::countr_zero(m)];
            lowest = std::min(lowest, pc);
            if (pc > w.yielded_to && pc < next) next = pc;
        }
        if (next == UINT64_MAX) next = lowest;
        uint64_t waiting = 0;
        for (uint64_t m = runnable & ~group.mask; m; m &= m - 1)
            if (w.pc[std::countr_zero(m)] == next) waiting |= m & -m;
        if (waiting) {
            w.yielded_to = next;
            group = GroupChoice{next, waiting, UINT64_MAX};
        }
    }
    return group;
}

} // namespace simtgpu::sim
