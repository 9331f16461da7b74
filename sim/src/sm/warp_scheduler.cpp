#include "sm/warp_scheduler.h"

#include <algorithm>
#include <bit>
#include <vector>

namespace simtgpu::sim {
namespace {

// The oldest slot of a ready bitset.
int oldest_ready_bits(std::span<const uint64_t> ready, std::span<const uint64_t> age) {
    int oldest = -1;
    for (size_t k = 0; k < ready.size(); ++k)
        for (uint64_t m = ready[k]; m; m &= m - 1) {
            const int slot = int(k * 64) + std::countr_zero(m);
            if (oldest < 0 || age[slot] < age[oldest])
                oldest = slot;
        }
    return oldest;
}

bool bit(std::span<const uint64_t> bits, int slot) {
    return bits[size_t(slot) / 64] >> (slot % 64) & 1;
}

// The oldest ready warp, by the time it was launched onto the SM (not by
// slot: a young CTA may reuse the low slots of an old one); -1 if none.
int oldest_ready(std::span<const uint8_t> ready, std::span<const uint64_t> age) {
    int oldest = -1;
    for (int slot = 0; slot < int(ready.size()); ++slot)
        if (ready[slot] && (oldest < 0 || age[slot] < age[oldest]))
            oldest = slot;
    return oldest;
}

// The next ready warp after the one issued last.
class RoundRobinScheduler final : public WarpScheduler {
public:
    int pick(std::span<const uint8_t> ready, std::span<const uint64_t>, int last_issued,
             std::span<const uint8_t>) override {
        const int n = int(ready.size());
        for (int i = 1; i <= n; ++i) {
            const int slot = (last_issued + i) % n;
            if (ready[slot])
                return slot;
        }
        return -1;
    }
    // The first ready slot after last_issued, wrapping (last_issued itself last).
    int pick_bits(std::span<const uint64_t> ready, uint32_t, std::span<const uint64_t>,
                  int last_issued) override {
        const size_t words = ready.size();
        const int from = last_issued + 1; // slots >= from first
        for (size_t k = size_t(from) / 64; k < words; ++k) {
            uint64_t m = ready[k];
            if (k == size_t(from) / 64)
                m &= ~uint64_t(0) << (from % 64);
            if (m)
                return int(k * 64) + std::countr_zero(m);
        }
        for (size_t k = 0; k < words; ++k)
            if (ready[k])
                return int(k * 64) + std::countr_zero(ready[k]);
        return -1;
    }
};

// Greedy-then-oldest (GTO, Rogers et al., MICRO 2012): the warp issued last
// while it can issue, else the oldest ready warp, by the time it was launched
// onto the SM (not by slot: a young CTA may reuse the low slots of an old one).
class GreedyThenOldestScheduler final : public WarpScheduler {
public:
    int pick(std::span<const uint8_t> ready, std::span<const uint64_t> age, int last_issued,
             std::span<const uint8_t>) override {
        if (last_issued >= 0 && last_issued < int(ready.size()) && ready[last_issued])
            return last_issued;
        return oldest_ready(ready, age);
    }
    int pick_bits(std::span<const uint64_t> ready, uint32_t slots, std::span<const uint64_t> age,
                  int last_issued) override {
        if (last_issued >= 0 && last_issued < int(slots) && bit(ready, last_issued))
            return last_issued;
        return oldest_ready_bits(ready, age);
    }
};

// Oldest-first: always the oldest ready warp, whichever issued last. Old
// warps run ahead and their CTAs finish (and free their slots) first.
class OldestFirstScheduler final : public WarpScheduler {
public:
    int pick(std::span<const uint8_t> ready, std::span<const uint64_t> age, int,
             std::span<const uint8_t>) override {
        return oldest_ready(ready, age);
    }
    int pick_bits(std::span<const uint64_t> ready, uint32_t, std::span<const uint64_t> age,
                  int) override {
        return oldest_ready_bits(ready, age);
    }
};

// Two-level (Gebhart et al., ISCA 2011; Narasiman et al., MICRO 2011): round-
// robin among a small active set of warps. A warp leaves the set when it
// waits on a long-latency event (a global access, a barrier, a sync, exit;
// without long_wait: whenever it cannot issue) and the
// set is refilled from the ready warps outside it, the one that left longest
// ago first (new warps first of all, oldest first), so few warps are in
// flight at once, the others wait their turn instead of all stalling on
// memory together, and none waits forever.
class TwoLevelScheduler final : public WarpScheduler {
public:
    int pick(std::span<const uint8_t> ready, std::span<const uint64_t> age, int last_issued,
             std::span<const uint8_t> long_wait) override {
        if (left_.size() != ready.size()) { // the first pick (an SM's slots never change)
            left_.assign(ready.size(), Left{});
            active_.clear();
        }
        std::erase_if(active_, [&](const Member &m) {
            const bool stays = long_wait.empty() ? ready[m.slot] != 0 : !long_wait[m.slot];
            if (stays && age[m.slot] == m.age)
                return false;
            left_[size_t(m.slot)] = {++departures_, m.age};
            return true;
        });
        while (active_.size() < kTwoLevelActiveWarps) {
            int best = -1;
            uint64_t best_left = 0;
            for (int slot = 0; slot < int(ready.size()); ++slot) {
                if (!ready[slot] || member(slot))
                    continue;
                // A slot that now holds a younger warp: that warp is new.
                const Left &l = left_[size_t(slot)];
                const uint64_t left = l.age == age[slot] ? l.when : 0;
                if (best < 0 || left < best_left || (left == best_left && age[slot] < age[best])) {
                    best = slot;
                    best_left = left;
                }
            }
            if (best < 0)
                break;
            active_.push_back({best, age[best]});
        }
        // The next ready member by slot after the one issued last, wrapping
        // (members waiting on a short latency stay, but do not issue).
        const Member *next = nullptr, *lowest = nullptr;
        for (const Member &m : active_) {
            if (!ready[m.slot])
                continue;
            if (!lowest || m.slot < lowest->slot)
                lowest = &m;
            if (m.slot > last_issued && (!next || m.slot < next->slot))
                next = &m;
        }
        if (!lowest)
            return -1;
        return (next ? next : lowest)->slot;
    }

private:
    struct Member {
        int slot;
        uint64_t age;
    };
    struct Left {
        uint64_t when = 0;         // departure number; 0: never in the set
        uint64_t age = UINT64_MAX; // of the warp that left
    };
    bool member(int slot) const {
        return std::any_of(active_.begin(), active_.end(),
                           [&](const Member &m) { return m.slot == slot; });
    }
    std::vector<Member> active_;
    std::vector<Left> left_; // per slot
    uint64_t departures_ = 0;
};

} // namespace

int WarpScheduler::pick_bits(std::span<const uint64_t> ready, uint32_t slots,
                             std::span<const uint64_t> age, int last_issued) {
    spelled_.resize(slots);
    for (uint32_t s = 0; s < slots; ++s)
        spelled_[s] = bit(ready, int(s));
    return pick(spelled_, age, last_issued);
}

bool is_warp_scheduler(std::string_view name) {
    return std::find(kWarpSchedulers.begin(), kWarpSchedulers.end(), name) != kWarpSchedulers.end();
}

std::unique_ptr<WarpScheduler> make_warp_scheduler(std::string_view name) {
    if (name == "greedy" || name == "gto")
        return std::make_unique<GreedyThenOldestScheduler>();
    if (name == "oldest-first")
        return std::make_unique<OldestFirstScheduler>();
    if (name == "two-level")
        return std::make_unique<TwoLevelScheduler>();
    return std::make_unique<RoundRobinScheduler>();
}

} // namespace simtgpu::sim
