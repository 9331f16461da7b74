// The livelock watchdog: a launch whose threads keep running but change
// nothing (a spin lock whose holder never gets an issue slot, a flag that is
// never set) fails with an error instead of running for ever, as a launch
// whose threads are all blocked fails as a deadlock.
//
// Criterion: every `window` cycles the owner hands in a fingerprint of the
// architectural state of every SM of the launch (Sm::state_fingerprint: the
// registers of every live lane, which lanes are live or blocked, the
// resident CTAs, shared memory, CTAs completed) at intervals of window / 8.
// A legitimate loop, however long, changes that state (its counter, its
// accumulator, the clock it polls); a thread exiting or a barrier releasing
// changes it too. Only a launch whose whole state is the same at every sample
// over `window` cycles is stalled. What it cannot see is global memory and
// time spent outside the launch: a kernel that waits, with nothing else
// changing, for the host to write a flag longer than the window is reported.
#pragma once

#include <algorithm>
#include <cstdint>

namespace simtgpu::sim {

class LivelockWatchdog {
public:
    explicit LivelockWatchdog(uint64_t window)
        : window_(window), interval_(std::max<uint64_t>(1, window / 8)) {}

    // Called as the launch advances, at launch cycle `cycle`; fingerprint()
    // is only called when a sample is due. True: no progress over the window.
    template <class Fingerprint> bool stalled(uint64_t cycle, Fingerprint fingerprint) {
        if (cycle < next_sample_)
            return false;
        next_sample_ = cycle + interval_;
        const uint64_t now = fingerprint();
        if (!sampled_ || now != fingerprint_) {
            sampled_ = true;
            fingerprint_ = now;
            unchanged_since_ = cycle;
            return false;
        }
        return cycle - unchanged_since_ >= window_;
    }

private:
    uint64_t window_, interval_;
    uint64_t next_sample_ = 0, unchanged_since_ = 0, fingerprint_ = 0;
    bool sampled_ = false;
};

} // namespace simtgpu::sim
