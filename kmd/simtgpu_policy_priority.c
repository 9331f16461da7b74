// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The simtgpu authors */

/*
 * priority: strict priority with block-level preemption and reserved SMs.
 * While a ring of a higher class has jobs, every busy ring of a lower
 * class is parked: its grid places no more blocks, so the higher class has
 * the whole GPU as soon as the lower blocks already running have finished.
 *
 * Block-level preemption cannot take an SM from a block that runs for the
 * whole kernel, so while a higher class has had jobs within the last
 * SIMTGPU_PRIORITY_HOLD_MS, the lower classes also keep off the last
 * quarter of the SMs (at least one; SM_MASK): the next high-priority
 * kernel finds them idle instead of waiting for a lower kernel to end.
 * This trades up to a quarter of the lower classes' throughput for the
 * higher class's latency, as amdgpu limits other queues' waves while a
 * high-priority compute queue is active.
 */

#include <linux/kernel.h>

#include "simtgpu_policy.h"

#define SIMTGPU_PRIORITY_HOLD_MS 100

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

static u32 simtgpu_priority_sms(const struct simtgpu_ring_view views[SIMTGPU_NUM_RINGS],
				unsigned int ring, u32 num_sms)
{
	unsigned int i;

	for (i = 0; i < SIMTGPU_NUM_RINGS; i++)
		if (views[i].priority > views[ring].priority &&
		    views[i].idle_ms < SIMTGPU_PRIORITY_HOLD_MS)
			return num_sms - min(num_sms - 1,
					     DIV_ROUND_UP(num_sms, 4));
	return num_sms;
}

const struct simtgpu_policy simtgpu_policy_priority = {
	.name = "priority",
	.parked = simtgpu_priority_parked,
	.sms = simtgpu_priority_sms,
};
