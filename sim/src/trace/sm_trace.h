// One SM's tracks in a trace: what each warp slot did over time, and the
// CTAs each CTA slot held. The SIMT core tells it, at the points where it
// accounts cycles, the state each warp is in from a cycle on; consecutive
// cycles in the same state become one slice (docs/trace.md).
#pragma once

#include "sm/launch.h"
#include "sm/sm.h"
#include "trace/trace_writer.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace simtgpu::sim::trace {

// What a warp slot does in a cycle. The timing model's stall reasons are
// the SmStats counters of the same names; functional mode has fewer.
enum class WarpState : uint8_t {
    none,             // no warp in the slot
    issue,            // issued an instruction (functional mode: a burst)
    done,             // every lane exited; the slot frees with its CTA
    wait_mem_latency, // functional mode: a global access's mem_latency
    stall_first,      // stall_first + Stall: the timing model's reasons
};
constexpr WarpState stall_state(Stall why) {
    return WarpState(uint8_t(WarpState::stall_first) + uint8_t(why));
}
const char *warp_state_name(WarpState state);

class SmTrace {
public:
    SmTrace(TraceWriter &writer, uint32_t sm, uint32_t warp_slots, uint32_t cta_slots);

    // Warp slot `slot` is in `state` from cycle `now` on.
    void warp(uint32_t slot, WarpState state, uint64_t now) {
        if (warps_[slot].state != state)
            change(slot, state, now);
    }
    void cta_placed(uint32_t cta_slot, const Dim3 &ctaid, uint64_t entry_pc, uint64_t now);
    // The CTA left its slot (completed or aborted) with its warps; their
    // slices end at the next flush, the end of the cycles being accounted.
    void cta_left(uint32_t cta_slot, std::span<const uint32_t> warp_slots, bool completed);
    void flush(uint64_t now);

private:
    struct Open {
        WarpState state = WarpState::none;
        bool named = false; // its track has its name
        uint64_t since = 0;
    };
    struct CtaOpen {
        bool open = false, named = false;
        bool leaving = false, completed = false;
        uint64_t since = 0;
        std::string name, args;
    };
    void change(uint32_t slot, WarpState state, uint64_t now);

    TraceWriter &writer_;
    const uint32_t pid_;
    std::vector<Open> warps_;
    std::vector<CtaOpen> ctas_;
    std::vector<uint32_t> leaving_warps_;
    bool pending_ = false; // a CTA left since the last flush
};

} // namespace simtgpu::sim::trace
