// The fair policy's rules of simtgpu/driver_policy.h, which kmd applies:
// checked against the behaviour their comments promise, with numbers
// worked out by hand.
#include "simtgpu/driver_policy.h"

#include <gtest/gtest.h>

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

} // namespace
