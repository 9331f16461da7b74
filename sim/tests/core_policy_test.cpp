// The reconvergence and warp-scheduling policies on their own.
#include "core/policy.h"

#include <gtest/gtest.h>

#include <vector>

namespace simtgpu::sim {
namespace {

TEST(CorePolicy, MinPcPicksLowestPcGroupAndYieldsAtTheNext)
{
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

TEST(CorePolicy, Names)
{
    EXPECT_TRUE(is_reconvergence_policy("min-pc"));
    EXPECT_FALSE(is_reconvergence_policy("stack"));
    EXPECT_TRUE(is_warp_scheduler("round-robin"));
    EXPECT_TRUE(is_warp_scheduler("greedy"));
    EXPECT_FALSE(is_warp_scheduler("lrr"));
}

} // namespace
} // namespace simtgpu::sim
