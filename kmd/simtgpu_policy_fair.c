// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The simtgpu authors */

/*
 * fair: weighted fair share of GPU time by virtual time per client, as
 * drm_sched's FAIR policy and the drm.weight proposal. Each finished job
 * advances its client's virtual time by its device time times 100 / weight
 * (the weight is the client's client_weight, else its cgroup's
 * gpu_weight, else 100). A client's next job goes to a ring only while its
 * virtual time is at most one time slice (timeslice_duration_ms of device
 * time) ahead of the lowest among the other clients with work, and while
 * it has fewer than two jobs on the rings; otherwise it waits, and the
 * others run. Alone, a client always runs. The rule is the shared
 * simtgpu_fair_may_run() (simtgpu/driver_policy.h). Rings are never
 * parked: the decision is per job, so it also separates clients whose
 * queues share a ring.
 */

#include <linux/time64.h>

#include "simtgpu_policy.h"
#include "simtgpu/driver_policy.h"

static u32 simtgpu_fair_parked(const struct simtgpu_ring_view views[SIMTGPU_NUM_RINGS],
			       struct simtgpu_policy_state *state, u64 now_ms,
			       unsigned int timeslice_ms)
{
	return 0;
}

static bool simtgpu_fair_admit(const struct simtgpu_client_sched *client,
			       const struct simtgpu_others *others,
			       unsigned int timeslice_ms)
{
	return simtgpu_fair_may_run(client->vtime_ns, client->inflight,
				    others->waiting, others->min_vtime,
				    (u64)timeslice_ms * NSEC_PER_MSEC);
}

const struct simtgpu_policy simtgpu_policy_fair = {
	.name = "fair",
	.parked = simtgpu_fair_parked,
	.admit = simtgpu_fair_admit,
};
