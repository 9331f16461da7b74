// Timed events on the SM clock: a ring of per-cycle buckets covering the
// next Span cycles (scheduling and running an event is O(1)), and a heap for
// the rare ones further out. Events of one cycle run in the order they were
// scheduled, which keeps the model deterministic. The buckets are made at
// the first event: a device has a wheel per SM, most of them often unused.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace simtgpu::sim::mem {

template <typename Payload, uint64_t Span = 4096> class EventWheel {
    static_assert((Span & (Span - 1)) == 0, "a power of two");

public:
    static constexpr uint64_t kNever = UINT64_MAX;

    // An event for a cycle already run (only an empty access asks for one)
    // runs at the first cycle not yet run.
    void schedule(uint64_t cycle, const Payload &payload) {
        cycle = std::max(cycle, base_);
        if (buckets_.empty())
            buckets_.resize(kSpan);
        if (cycle - base_ < kSpan) {
            buckets_[cycle & (kSpan - 1)].push_back(payload);
            ++in_buckets_;
        } else {
            later_.push_back(Later{cycle, seq_++, payload});
            std::push_heap(later_.begin(), later_.end(), &Later::after);
        }
    }

    // Runs run(cycle, payload) for every event due by `now`, in cycle order,
    // including those that run() schedules for a cycle up to `now`.
    template <typename Run> void run_until(uint64_t now, Run &&run) {
        while (base_ <= now) {
            if (in_buckets_ == 0) {
                if (later_.empty()) {
                    base_ = now + 1;
                    return;
                }
                base_ = std::min(later_.front().cycle, now + 1); // jump over empty cycles
                if (base_ > now)
                    return;
            }
            while (!later_.empty() && later_.front().cycle - base_ < kSpan) {
                std::pop_heap(later_.begin(), later_.end(), &Later::after);
                buckets_[later_.back().cycle & (kSpan - 1)].push_back(later_.back().payload);
                ++in_buckets_;
                later_.pop_back();
            }
            std::vector<Payload> &bucket = buckets_[base_ & (kSpan - 1)];
            for (size_t i = 0; i < bucket.size(); ++i) {
                Payload payload = bucket[i]; // run() may grow the bucket
                run(base_, payload);
            }
            in_buckets_ -= bucket.size();
            bucket.clear();
            ++base_;
        }
    }

    // The cycle of the earliest event, kNever when there is none.
    uint64_t next_cycle() const {
        if (in_buckets_ > 0)
            for (uint64_t c = base_;; ++c)
                if (!buckets_[c & (kSpan - 1)].empty())
                    return c;
        return later_.empty() ? kNever : later_.front().cycle;
    }

    bool empty() const { return in_buckets_ == 0 && later_.empty(); }
    // The first cycle run_until() has not run yet.
    uint64_t first_open_cycle() const { return base_; }

private:
    static constexpr uint64_t kSpan = Span;

    struct Later {
        uint64_t cycle;
        uint64_t seq;
        Payload payload;
        static bool after(const Later &a, const Later &b) {
            return a.cycle != b.cycle ? a.cycle > b.cycle : a.seq > b.seq;
        }
    };

    std::vector<std::vector<Payload>> buckets_;
    size_t in_buckets_ = 0;
    uint64_t base_ = 0; // the first cycle not yet run
    uint64_t seq_ = 0;
    std::vector<Later> later_; // a heap, earliest first
};

} // namespace simtgpu::sim::mem
