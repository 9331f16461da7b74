// Rules of simtgpu/driver_policy.h that both drivers apply (the fair policy,
// which kmd applies; the page walk, PTE permissions, GET_PARAM's sources and
// the ioctl checks, which both do): checked against the behaviour their
// comments promise, with numbers worked out by hand.
#include "simtgpu/driver_policy.h"

#include <gtest/gtest.h>

#include <vector>

namespace {

constexpr uint64_t kMs = 1000000;

TEST(FairPolicy, AloneAClientAlwaysRuns) {
    EXPECT_TRUE(simtgpu_fair_may_run(1000 * kMs, SIMTGPU_FAIR_MAX_INFLIGHT, false, 0, 0));
}

TEST(FairPolicy, AClientAheadByMoreThanTheSlackWaits) {
    const uint64_t slack = 5 * kMs;
    EXPECT_TRUE(simtgpu_fair_may_run(105 * kMs, 0, true, 100 * kMs, slack));
    EXPECT_FALSE(simtgpu_fair_may_run(106 * kMs, 0, true, 100 * kMs, slack));
    EXPECT_FALSE(
        simtgpu_fair_may_run(100 * kMs, SIMTGPU_FAIR_MAX_INFLIGHT, true, 100 * kMs, slack));
}

TEST(FairPolicy, GraceIsTwiceTheRoundTripWithinItsBounds) {
    EXPECT_EQ(simtgpu_fair_grace_ns(0), uint64_t(SIMTGPU_FAIR_GRACE_MIN_MS) * kMs);
    EXPECT_EQ(simtgpu_fair_grace_ns(15 * kMs), 30 * kMs); // the loaded host of docs/sharing.md
    EXPECT_EQ(simtgpu_fair_grace_ns(10000 * kMs), uint64_t(SIMTGPU_FAIR_GRACE_MAX_MS) * kMs);
}

TEST(FairPolicy, RoundTripPeakRisesAtOnceAndDecaysByAnEighth) {
    uint64_t peak = simtgpu_fair_round_trip_update(0, 15 * kMs);
    EXPECT_EQ(peak, 15 * kMs);
    peak = simtgpu_fair_round_trip_update(peak, 1 * kMs);
    EXPECT_EQ(peak, 15 * kMs - 15 * kMs / 8);
    // Going idle for longer than the largest grace is not a round trip.
    EXPECT_EQ(simtgpu_fair_round_trip_update(peak, 10000 * kMs), peak);
}

TEST(FairPolicy, SynchronousClientSlowerThanTheMinimumGraceStillCountsAsWaiting) {
    // 15 ms between its kernels: with a fixed 10 ms grace it would drop out.
    uint64_t peak = 0;
    for (int i = 0; i < 4; ++i)
        peak = simtgpu_fair_round_trip_update(peak, 15 * kMs);
    EXPECT_TRUE(simtgpu_fair_has_work(0, 15 * kMs, simtgpu_fair_grace_ns(peak)));
    EXPECT_FALSE(simtgpu_fair_has_work(0, 15 * kMs, uint64_t(SIMTGPU_FAIR_GRACE_MIN_MS) * kMs));
}

TEST(FairPolicy, WakingClientBanksNoCredit) {
    EXPECT_EQ(simtgpu_fair_wake_vtime(10 * kMs, true, 50 * kMs), 50 * kMs);
    EXPECT_EQ(simtgpu_fair_wake_vtime(70 * kMs, true, 50 * kMs), 70 * kMs);
    EXPECT_EQ(simtgpu_fair_wake_vtime(10 * kMs, false, 50 * kMs), 10 * kMs);
}

// A VRAM of a few pages for the page walk, with a bump allocator of tables
// from page 1 on (the root is page 0).
struct FakeVram {
    std::vector<uint64_t> words = std::vector<uint64_t>(8 * 512, 0);
    uint64_t next_table = 4096;
    int tables_made = 0;
    bool full = false;

    simtgpu_pt_access access() {
        simtgpu_pt_access a{};
        a.ctx = this;
        a.read = [](void *ctx, uint64_t offset) {
            return static_cast<FakeVram *>(ctx)->words.at(offset / 8);
        };
        a.write = [](void *ctx, uint64_t offset, uint64_t pte) {
            static_cast<FakeVram *>(ctx)->words.at(offset / 8) = pte;
        };
        a.alloc_table = [](void *ctx, uint64_t *table) {
            auto *vram = static_cast<FakeVram *>(ctx);
            if (vram->full)
                return -ENOSPC;
            *table = vram->next_table;
            vram->next_table += 4096;
            ++vram->tables_made;
            return 0;
        };
        return a;
    }
};

// Table indices 5, 7, 9 and 11 at levels 3, 2, 1 and 0.
constexpr uint64_t kVa = (5ull << 39) | (7ull << 30) | (9ull << 21) | (11ull << 12);

TEST(PageWalk, MakesEachMissingTableAndPointsToIt) {
    FakeVram vram;
    simtgpu_pt_access a = vram.access();
    uint64_t pte = 0;
    ASSERT_EQ(simtgpu_pt_walk(&a, 0, kVa, true, &pte), 0);
    EXPECT_EQ(vram.tables_made, 3);
    // Pointer entries: the next table's page number at bit 10, valid only.
    EXPECT_EQ(vram.words[5], (uint64_t(4096 >> 12) << 10) | 1);
    EXPECT_EQ(vram.words[4096 / 8 + 7], (uint64_t(8192 >> 12) << 10) | 1);
    EXPECT_EQ(vram.words[8192 / 8 + 9], (uint64_t(12288 >> 12) << 10) | 1);
    EXPECT_EQ(pte, 12288u + 8 * 11);
}

TEST(PageWalk, FindsExistingTablesAndMakesNoMore) {
    FakeVram vram;
    simtgpu_pt_access a = vram.access();
    uint64_t pte = 0;
    ASSERT_EQ(simtgpu_pt_walk(&a, 0, kVa, true, &pte), 0);
    ASSERT_EQ(simtgpu_pt_walk(&a, 0, kVa + 4096, false, &pte), 0);
    EXPECT_EQ(pte, 12288u + 8 * 12);
    EXPECT_EQ(vram.tables_made, 3);
}

TEST(PageWalk, WithoutCreateAMissingTableIsNoEntry) {
    FakeVram vram;
    simtgpu_pt_access a = vram.access();
    uint64_t pte = 0;
    EXPECT_EQ(simtgpu_pt_walk(&a, 0, kVa, false, &pte), -ENOENT);
    EXPECT_EQ(vram.tables_made, 0);
}

TEST(PageWalk, AllocatorFailureIsReturned) {
    FakeVram vram;
    vram.full = true;
    simtgpu_pt_access a = vram.access();
    uint64_t pte = 0;
    EXPECT_EQ(simtgpu_pt_walk(&a, 0, kVa, true, &pte), -ENOSPC);
    EXPECT_EQ(vram.words[5], 0u); // nothing points to a table that is not there
}

TEST(PtePermissions, FollowTheBoFlags) {
    EXPECT_EQ(simtgpu_bo_pte_flags(0), SIMTGPU_PTE_V | SIMTGPU_PTE_R | SIMTGPU_PTE_W);
    EXPECT_EQ(simtgpu_bo_pte_flags(SIMTGPU_BO_READ_ONLY), SIMTGPU_PTE_V | SIMTGPU_PTE_R);
    EXPECT_EQ(simtgpu_bo_pte_flags(SIMTGPU_BO_EXEC),
              SIMTGPU_PTE_V | SIMTGPU_PTE_R | SIMTGPU_PTE_W | SIMTGPU_PTE_X);
}

TEST(BoVa, HighVaSearchStartsInTheUpperHalf) {
    EXPECT_EQ(simtgpu_bo_va_search_start(0), SIMTGPU_USER_VA_START);
    EXPECT_EQ(simtgpu_bo_va_search_start(SIMTGPU_BO_HIGH_VA), 1ull << 47);
}

TEST(GetParam, RegistersAddedLaterAreZeroOnAnOlderDevice) {
    uint32_t reg = 1;
    ASSERT_TRUE(simtgpu_param_register(SIMTGPU_PARAM_L2_SIZE, (1u << 16) | 2, &reg));
    EXPECT_EQ(reg, 0u);
    ASSERT_TRUE(simtgpu_param_register(SIMTGPU_PARAM_L2_SIZE, (1u << 16) | 3, &reg));
    EXPECT_EQ(reg, uint32_t(SIMTGPU_REG_L2_SIZE));
    ASSERT_TRUE(simtgpu_param_register(SIMTGPU_PARAM_WARP_SIZE, 1u << 16, &reg));
    EXPECT_EQ(reg, uint32_t(SIMTGPU_REG_WARP_SIZE));
    // Driver state, not a register.
    EXPECT_FALSE(simtgpu_param_register(SIMTGPU_PARAM_VRAM_SIZE, 1u << 16, &reg));
}

TEST(GetParam, ConstantsOfTheUapi) {
    drm_simtgpu_get_param p{};
    p.param = SIMTGPU_PARAM_NUM_QUEUES_MAX;
    ASSERT_TRUE(simtgpu_param_constant(&p));
    EXPECT_EQ(p.value, 64u);
    p.param = SIMTGPU_PARAM_UAPI_VERSION;
    ASSERT_TRUE(simtgpu_param_constant(&p));
    EXPECT_EQ(p.value >> 16, uint64_t(SIMTGPU_UAPI_VERSION_MAJOR));
    p.param = SIMTGPU_PARAM_ARCH;
    EXPECT_FALSE(simtgpu_param_constant(&p));
}

TEST(IoctlChecks, SubmitRefusesMisalignedBuffersAndShortStrides) {
    drm_simtgpu_submit s{};
    s.ib_dwords = 4;
    EXPECT_EQ(simtgpu_submit_check(&s), 0);
    s.ib_va = 2;
    EXPECT_EQ(simtgpu_submit_check(&s), -EINVAL);
    s.ib_va = 0;
    s.bo_count = 1;
    s.bo_stride = sizeof(drm_simtgpu_bo_ref) - 1;
    EXPECT_EQ(simtgpu_submit_check(&s), -EINVAL);
    s.bo_stride = sizeof(drm_simtgpu_bo_ref);
    EXPECT_EQ(simtgpu_submit_check(&s), 0);
    s.ib_dwords = 0;
    EXPECT_EQ(simtgpu_submit_check(&s), -EINVAL);
}

TEST(IoctlChecks, BoCreateRefusesSizesThatWrapWhenRounded) {
    drm_simtgpu_bo_create c{};
    c.size = 1;
    EXPECT_EQ(simtgpu_bo_create_check(&c), 0);
    c.size = ~0ull - 4094; // rounding up to a page would wrap
    EXPECT_EQ(simtgpu_bo_create_check(&c), -EINVAL);
    c.size = 0;
    EXPECT_EQ(simtgpu_bo_create_check(&c), -EINVAL);
}

} // namespace
