// The reconvergence and warp-scheduling policies on their own.
#include "sm/reconvergence.h"
#include "sm/warp_scheduler.h"

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <vector>

namespace simtgpu::sim {
namespace {

TEST(CorePolicy, MinPcPicksLowestPcGroupAndYieldsAtTheNext) {
    auto policy = make_reconvergence_policy("min-pc");
    const uint64_t pcs[8] = {0x200, 0x100, 0x300, 0x100, 0x200, 0x050, 0x100, 0x400};
    // Lane 5 (PC 0x50) is not runnable: the group is the lanes at 0x100.
    const uint64_t runnable = 0xff & ~(uint64_t(1) << 5);
    const GroupChoice g = policy->select(pcs, runnable);
    EXPECT_EQ(g.pc, 0x100u);
    EXPECT_EQ(g.mask, (1u << 1) | (1u << 3) | (1u << 6));
    EXPECT_EQ(g.yield_pc, 0x200u);
    const GroupChoice all = policy->select(pcs, uint64_t(1) << 7);
    EXPECT_EQ(all.mask, uint64_t(1) << 7);
    EXPECT_EQ(all.yield_pc, UINT64_MAX);
}

// min-PC (whichever way the host computes it: AVX2 or per lane) against
// its definition, for warps of 1 to 64 lanes with PCs drawn from a few
// values (so groups form) or at random, and random runnable lanes.
TEST(CorePolicy, MinPcAgreesWithItsDefinition) {
    auto policy = make_reconvergence_policy("min-pc");
    std::mt19937_64 rng(23);
    for (int round = 0; round < 5000; ++round) {
        const uint32_t lanes = 1 + uint32_t(rng() % 64);
        std::vector<uint64_t> pcs(lanes); // exactly the warp's lanes: nothing past them is read
        const bool few = round % 2 == 0;
        for (uint64_t &pc : pcs)
            pc = few ? 0x1000 + 4 * (rng() % 4) : (round % 7 == 0 ? rng() : rng() % 0x10000);
        const uint64_t all = lanes == 64 ? ~uint64_t(0) : (uint64_t(1) << lanes) - 1;
        const uint64_t runnable = (rng() & all) | (uint64_t(1) << (rng() % lanes));
        uint64_t min_pc = UINT64_MAX, second = UINT64_MAX, mask = 0;
        for (uint32_t l = 0; l < lanes; ++l)
            if (runnable >> l & 1) min_pc = std::min(min_pc, pcs[l]);
        for (uint32_t l = 0; l < lanes; ++l) {
            if (!(runnable >> l & 1)) continue;
            if (pcs[l] == min_pc) mask |= uint64_t(1) << l;
            else second = std::min(second, pcs[l]);
        }
        const GroupChoice g = policy->select(pcs.data(), runnable);
        ASSERT_EQ(g.pc, min_pc) << "round " << round;
        ASSERT_EQ(g.mask, mask) << "round " << round;
        ASSERT_EQ(g.yield_pc, second) << "round " << round;
    }
}

TEST(CorePolicy, RoundRobinAndGreedyThenOldest) {
    auto rr = make_warp_scheduler("round-robin");
    auto gto = make_warp_scheduler("greedy");
    const std::vector<uint8_t> ready{1, 0, 1, 1};
    const std::vector<uint64_t> age{7, 1, 5, 2}; // slot 3 is the oldest ready warp
    EXPECT_EQ(rr->pick(ready, age, 0), 2);
    EXPECT_EQ(rr->pick(ready, age, 3), 0);
    EXPECT_EQ(rr->pick(ready, age, -1), 0);
    EXPECT_EQ(gto->pick(ready, age, 2), 2); // greedy while it can issue
    EXPECT_EQ(gto->pick(ready, age, 1), 3); // then the oldest, not the lowest slot
    EXPECT_EQ(gto->pick(ready, age, -1), 3);
    const std::vector<uint8_t> none{0, 0};
    const std::vector<uint64_t> none_age{0, 1};
    EXPECT_EQ(rr->pick(none, none_age, 0), -1);
    EXPECT_EQ(gto->pick(none, none_age, 0), -1);
}

TEST(CorePolicy, OldestFirstIgnoresTheLastIssued) {
    auto of = make_warp_scheduler("oldest-first");
    const std::vector<uint8_t> ready{1, 0, 1, 1};
    const std::vector<uint64_t> age{7, 1, 5, 2};
    EXPECT_EQ(of->pick(ready, age, 2), 3);
    EXPECT_EQ(of->pick(ready, age, 3), 3);
    const std::vector<uint8_t> none{0, 0, 0, 0};
    EXPECT_EQ(of->pick(none, age, 3), -1);
}

// Twelve ready warps: two-level round-robins among the eight oldest until one
// cannot issue, then lets in the oldest warp never in the set, and later the
// one that left longest ago.
TEST(CorePolicy, TwoLevelRoundRobinsInItsActiveSet) {
    auto tl = make_warp_scheduler("two-level");
    std::vector<uint8_t> ready(12, 1);
    std::vector<uint64_t> age(12);
    for (size_t s = 0; s < age.size(); ++s)
        age[s] = 100 - s; // slot 11 is the oldest
    std::vector<int> order;
    int last = -1;
    for (int i = 0; i < 16; ++i)
        order.push_back(last = tl->pick(ready, age, last));
    for (int i = 0; i < 16; ++i)
        EXPECT_EQ(order[size_t(i)], 4 + i % 8) << "pick " << i; // slots 4..11
    ready[6] = 0; // waits on memory: slot 3, the oldest outside, takes its place
    EXPECT_EQ(tl->pick(ready, age, 5), 7);
    EXPECT_EQ(tl->pick(ready, age, 11), 3);
    ready[6] = 1; // ready again, but the set is full: it stays out
    for (int i = 0, l = 3; i < 16; ++i)
        EXPECT_NE(l = tl->pick(ready, age, l), 6);
    // A slot that now holds a younger warp is a new warp, not a member.
    age[3] = 200;
    EXPECT_NE(tl->pick(ready, age, 2), 3);
    std::vector<uint8_t> none(12, 0);
    EXPECT_EQ(tl->pick(none, age, 0), -1);
}

// Nine warps, slot 0 the oldest: a place in the active set goes to the warp
// that left it longest ago, so a young warp is not starved by older ones.
TEST(CorePolicy, TwoLevelReadmitsTheWarpThatLeftFirst) {
    auto tl = make_warp_scheduler("two-level");
    std::vector<uint8_t> ready(9, 1);
    std::vector<uint64_t> age{0, 1, 2, 3, 4, 5, 6, 7, 8};
    // Eight picks in a row issue each member of the set once.
    auto members = [&] {
        std::set<int> picked;
        for (int i = 0, l = -1; i < 8; ++i)
            picked.insert(l = tl->pick(ready, age, l));
        return picked;
    };
    EXPECT_EQ(members(), (std::set<int>{0, 1, 2, 3, 4, 5, 6, 7}));
    for (int leaves : {2, 5, 0}) {
        ready[size_t(leaves)] = 0;
        const std::set<int> set = members();
        EXPECT_FALSE(set.count(leaves));
        EXPECT_EQ(set.size(), 8u);
        ready[size_t(leaves)] = 1;
    }
    // 8 (never in) replaced 2, then 2 replaced 5, then 5 replaced 0.
    EXPECT_EQ(members(), (std::set<int>{1, 2, 3, 4, 5, 6, 7, 8}));
}

// The timing model says which warps wait on a long latency: a member that
// only waits a few cycles (a dependent add) stays in the set and does not
// issue; one waiting on a global load leaves it.
TEST(CorePolicy, TwoLevelKeepsMembersWaitingShortLatencies) {
    auto tl = make_warp_scheduler("two-level");
    std::vector<uint8_t> ready(9, 1), long_wait(9, 0);
    std::vector<uint64_t> age{0, 1, 2, 3, 4, 5, 6, 7, 8};
    for (int i = 0, l = -1; i < 8; ++i)
        EXPECT_EQ(l = tl->pick(ready, age, l, long_wait), i); // slots 0..7
    ready[1] = 0; // a short wait: slot 8 is not let in, 1 is skipped
    EXPECT_EQ(tl->pick(ready, age, 0, long_wait), 2);
    for (int i = 0, l = 2; i < 16; ++i)
        EXPECT_NE(l = tl->pick(ready, age, l, long_wait), 8);
    long_wait[1] = 1; // a global load: slot 8 takes its place
    std::set<int> picked;
    for (int i = 0, l = -1; i < 8; ++i)
        picked.insert(l = tl->pick(ready, age, l, long_wait));
    EXPECT_EQ(picked, (std::set<int>{0, 2, 3, 4, 5, 6, 7, 8}));
    std::vector<uint8_t> none(9, 0);
    EXPECT_EQ(tl->pick(none, age, 0, long_wait), -1);
}

TEST(CorePolicy, Names) {
    EXPECT_TRUE(is_reconvergence_policy("min-pc"));
    EXPECT_FALSE(is_reconvergence_policy("stack"));
    EXPECT_TRUE(is_warp_scheduler("round-robin"));
    EXPECT_TRUE(is_warp_scheduler("greedy"));
    EXPECT_TRUE(is_warp_scheduler("oldest-first"));
    EXPECT_TRUE(is_warp_scheduler("two-level"));
    EXPECT_FALSE(is_warp_scheduler("lrr"));
}

// The functional model asks schedulers with a bitset of ready slots; each
// must choose as it does from the byte per slot (the timing model's form).
// Two instances per scheduler see the same sequence of ready sets (random,
// over 1-3 words of slots), so stateful ones (two-level) are compared too.
TEST(CorePolicy, PickFromBitsAgreesWithPickFromBytes) {
    std::mt19937_64 rng(17);
    for (std::string_view name : kWarpSchedulers) {
        for (uint32_t slots : {5u, 64u, 100u, 192u}) {
            auto bytes = make_warp_scheduler(name), bits = make_warp_scheduler(name);
            std::vector<uint64_t> age(slots);
            for (uint32_t s = 0; s < slots; ++s) age[s] = rng() % 1000000;
            int last_bytes = -1, last_bits = -1;
            for (int round = 0; round < 2000; ++round) {
                std::vector<uint8_t> ready(slots);
                std::vector<uint64_t> words((slots + 63) / 64);
                const uint64_t density = rng() % 4; // from empty to nearly full
                for (uint32_t s = 0; s < slots; ++s) {
                    ready[s] = rng() % 4 < density;
                    words[s / 64] |= uint64_t(ready[s]) << (s % 64);
                }
                if (round % 50 == 0) age[rng() % slots] = 1000000 + round; // a new warp
                last_bytes = bytes->pick(ready, age, last_bytes);
                last_bits = bits->pick_bits(words, slots, age, last_bits);
                ASSERT_EQ(last_bits, last_bytes) << name << " slots " << slots << " round " << round;
                if (last_bytes >= 0) {
                    ASSERT_LT(last_bytes, int(slots));
                    ASSERT_TRUE(ready[size_t(last_bytes)]);
                }
            }
        }
    }
}

} // namespace
} // namespace simtgpu::sim
