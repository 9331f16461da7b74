// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The simtgpu authors */

/*
 * priority: strict priority with block-level preemption. While a ring of a
 * higher class has jobs, every busy ring of a lower class is parked: its
 * grid places no more blocks, so the higher class has the whole GPU as
 * soon as the lower blocks already running have finished.
 */

#include "simtgpu_policy.h"

static u32 simtgpu_priority_parked(const struct simtgpu_ring_view views[SIMTGPU_NUM_RINGS],
				   struct simtgpu_policy_state *state, u64 now_ms,
				   unsigned int timeslice_ms)
{
	u32 highest = 0, parked = 0;
	unsigned int i;

	for (i = 0; i < SIMTGPU_NUM_RINGS; i++)
		if (views[i].busy && views[i].priority > highest)
			highest = views[i].priority;
	for (i = 0; i < SIMTGPU_NUM_RINGS; i++)
		if (views[i].busy && views[i].priority < highest)
			parked |= 1u << i;
	return parked;
}

const struct simtgpu_policy simtgpu_policy_priority = {
	.name = "priority",
	.parked = simtgpu_priority_parked,
};
