// The livelock watchdog: a launch whose threads keep running but change
// nothing because the warp scheduler never gives the one warp that could
// change something an issue slot (a spin lock whose holder is starved, as
// greedy-then-oldest does to a young holder) fails with an error instead of
// running for ever, as a launch whose threads are all blocked fails as a
// deadlock.
//
// Criterion, both over `window` cycles:
// - no progress: the owner hands in a fingerprint of the architectural state
//   of every SM of the launch (Sm::state_fingerprint: the registers of every
//   live lane of its CTAs, which lanes are live or blocked, the resident CTAs, shared
//   memory, CTAs completed) at intervals of window / 8, and it is the same at
//   every sample. A legitimate loop, however long, changes that state (its
//   counter, its accumulator, the clock it polls); a thread exiting or a
//   barrier releasing changes it too (each sample that differs from the one
//   before counts as progress in the ring's PROGRESS register);
// - starvation: some warp could issue and has not (Sm::starved_warp).
// A kernel that spins for ever while every warp gets its turn (a flag nobody
// sets, `while (1);`) is the program's hang, not the scheduler's: it runs on
// until the driver's job timeout stops it, as on a real GPU.
#pragma once

#include "sm/sm.h"

#include <algorithm>
#include <cstdint>
#include <optional>

namespace simtgpu::sim {

class LivelockWatchdog {
public:
    // Samples every window / 8 cycles, at most kMaxInterval: changes() is
    // also the device's measure of forward progress in a long CTA.
    static constexpr uint64_t kMaxInterval = 1u << 20;
    explicit LivelockWatchdog(uint64_t window)
        : window_(window), interval_(std::clamp<uint64_t>(window / 8, 1, kMaxInterval)) {}

    // Samples at which the state differed from the sample before.
    uint64_t changes() const { return changes_; }
    // Whether check() at `cycle` would sample (callers skip gathering SMs).
    bool due(uint64_t cycle) const { return cycle >= next_sample_; }

    // Called as the launch advances, at launch cycle `cycle`, with the
    // launch's share of each SM it is on (SmLaunch); the fingerprints are only taken
    // when a sample is due. Returns the livelock exception, naming the
    // starved warp, once both conditions have held for the window.
    template <class SmLaunches>
    std::optional<Exception> check(uint64_t cycle, const SmLaunches &sms) {
        if (cycle < next_sample_)
            return std::nullopt;
        next_sample_ = cycle + interval_;
        uint64_t now = 0;
        for (const auto &sm : sms)
            now = now * 31 + sm.state_fingerprint();
        if (!sampled_ || now != fingerprint_) {
            changes_ += sampled_;
            sampled_ = true;
            fingerprint_ = now;
            unchanged_since_ = cycle;
            return std::nullopt;
        }
        if (cycle - unchanged_since_ < window_)
            return std::nullopt;
        for (const auto &sm : sms)
            if (auto starved = sm.starved_warp(window_))
                return starved;
        return std::nullopt;
    }

private:
    uint64_t window_, interval_;
    uint64_t next_sample_ = 0, unchanged_since_ = 0, fingerprint_ = 0, changes_ = 0;
    bool sampled_ = false;
};

} // namespace simtgpu::sim
