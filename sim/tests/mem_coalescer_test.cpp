// The coalescer and the shared-memory bank model against sector counts and
// bank passes worked out by hand for 32 lanes, 128-byte lines, 32-byte
// sectors and 32 four-byte banks.
#include "mem/coalescer.h"

#include <gtest/gtest.h>

namespace simtgpu::sim::mem {
namespace {

WarpAccess strided(uint64_t base, uint64_t stride, uint32_t bytes = 4, uint32_t lanes = 32,
                   AccessKind kind = AccessKind::load) {
    WarpAccess a;
    a.kind = kind;
    a.lane_bytes = bytes;
    a.active_mask = lanes == 64 ? ~0ull : (1ull << lanes) - 1;
    for (uint32_t lane = 0; lane < lanes; ++lane)
        a.address[lane] = base + lane * stride;
    return a;
}

CoalescedAccess run(const WarpAccess &a) {
    CoalescedAccess out;
    coalesce(a, 128, 32, out);
    return out;
}

TEST(MemCoalescer, UnitStrideFillsOneLine) {
    // 32 lanes x 4 bytes = 128 bytes, aligned: one line, all four sectors.
    CoalescedAccess c = run(strided(0x1000, 4));
    ASSERT_EQ(c.count, 1u);
    EXPECT_EQ(c.lines[0].line, 0x1000u / 128);
    EXPECT_EQ(c.lines[0].sector_mask, 0xF);
    EXPECT_EQ(c.sectors(), 4u);
}

TEST(MemCoalescer, StrideTwoTouchesTwiceTheSectors) {
    // Lanes 8 bytes apart span 256 bytes: two lines, every sector of both,
    // half of each sector's bytes unused.
    CoalescedAccess c = run(strided(0x1000, 8));
    ASSERT_EQ(c.count, 2u);
    EXPECT_EQ(c.lines[0].sector_mask, 0xF);
    EXPECT_EQ(c.lines[1].sector_mask, 0xF);
    EXPECT_EQ(c.sectors(), 8u);
}

TEST(MemCoalescer, ScatteredLanesTakeOneSectorEach) {
    // A page apart: 32 lines of one sector each.
    CoalescedAccess c = run(strided(0x10000, 4096));
    EXPECT_EQ(c.count, 32u);
    EXPECT_EQ(c.sectors(), 32u);
}

TEST(MemCoalescer, MisalignedUnitStrideSpillsIntoTheNextLine) {
    // Bytes 4..131 of a line: its four sectors and the first of the next.
    CoalescedAccess c = run(strided(0x1004, 4));
    ASSERT_EQ(c.count, 2u);
    EXPECT_EQ(c.lines[0].sector_mask, 0xF);
    EXPECT_EQ(c.lines[1].sector_mask, 0x1);
    EXPECT_EQ(c.sectors(), 5u);
}

TEST(MemCoalescer, WideLanesAndPartialMasks) {
    EXPECT_EQ(run(strided(0x2000, 8, 8)).sectors(), 8u);    // 256 bytes of doubles
    EXPECT_EQ(run(strided(0x2000, 16, 16)).sectors(), 16u); // 512 bytes of float4
    EXPECT_EQ(run(strided(0x2000, 4, 4, 8)).sectors(), 1u); // 8 lanes: 32 bytes
    EXPECT_EQ(run(strided(0x2000, 0)).sectors(), 1u);       // one address for all
    // A lane straddling a sector boundary needs both sectors.
    WarpAccess a = strided(0x201e, 0, 4, 1);
    CoalescedAccess c = run(a);
    ASSERT_EQ(c.count, 1u);
    EXPECT_EQ(c.lines[0].sector_mask, 0x3);
}

TEST(MemCoalescer, AtomicsCountTheLanesSharingAnAddress) {
    CoalescedAccess same = run(strided(0x3000, 0, 4, 32, AccessKind::atomic));
    ASSERT_EQ(same.count, 1u);
    EXPECT_EQ(same.lines[0].atomic_ops[0], 32);
    CoalescedAccess distinct = run(strided(0x3000, 4, 4, 32, AccessKind::atomic));
    ASSERT_EQ(distinct.count, 1u);
    for (uint32_t s = 0; s < 4; ++s)
        EXPECT_EQ(distinct.lines[0].atomic_ops[s], 1);
    // Lanes 0..15 on one word, 16..31 on another in a second sector.
    WarpAccess halves = strided(0x3000, 0, 4, 32, AccessKind::atomic);
    for (uint32_t lane = 16; lane < 32; ++lane)
        halves.address[lane] = 0x3040;
    CoalescedAccess h = run(halves);
    EXPECT_EQ(h.lines[0].atomic_ops[0], 16);
    EXPECT_EQ(h.lines[0].atomic_ops[2], 16);
}

SharedPasses banks(const WarpAccess &a) {
    return shared_passes(a, 32, 4);
}

TEST(MemSharedBanks, StridesSerialiseAsWorkedOut) {
    // Stride 1 word: lane i in bank i.
    EXPECT_EQ(banks(strided(0, 4)).passes, 1u);
    EXPECT_EQ(banks(strided(0, 4)).conflicts, 0u);
    // Stride 2 words: banks 0, 2, ..., 30, two words each.
    EXPECT_EQ(banks(strided(0, 8)).passes, 2u);
    EXPECT_EQ(banks(strided(0, 8)).conflicts, 1u);
    // Stride 32 words: every lane in bank 0, 32 different words.
    EXPECT_EQ(banks(strided(0, 128)).passes, 32u);
    EXPECT_EQ(banks(strided(0, 128)).conflicts, 31u);
    // An odd stride visits every bank once.
    EXPECT_EQ(banks(strided(0, 12)).passes, 1u);
}

TEST(MemSharedBanks, OneWordIsBroadcast) {
    SharedPasses p = banks(strided(0x40, 0));
    EXPECT_EQ(p.passes, 1u);
    EXPECT_EQ(p.conflicts, 0u);
    // Two words in one bank, each read by 16 lanes: two passes.
    WarpAccess a = strided(0, 0);
    for (uint32_t lane = 16; lane < 32; ++lane)
        a.address[lane] = 128;
    EXPECT_EQ(banks(a).passes, 2u);
}

TEST(MemSharedBanks, WideAccessesNeedTheirPassesWithoutConflicts) {
    // 32 lanes x 8 bytes = 64 words: two per bank, and two passes are the
    // fewest 256 bytes can take.
    SharedPasses p = banks(strided(0, 8, 8));
    EXPECT_EQ(p.passes, 2u);
    EXPECT_EQ(p.conflicts, 0u);
}

} // namespace
} // namespace simtgpu::sim::mem
