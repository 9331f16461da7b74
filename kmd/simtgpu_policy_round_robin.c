// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The simtgpu authors */

/*
 * round-robin: time slices. Of the busy rings, one runs for
 * timeslice_duration_ms and the others are parked; then the next busy ring
 * in index order has its slice. A slice starts once the other busy rings
 * have parked (their resident blocks drained), as i915 starts a context's
 * timeslice when it is switched in: counted from the PREEMPT write, a
 * slice shorter than a block would end before the ring ever got an SM. A
 * grid that cannot drain is reset by the preemption timeout
 * (preempt_timeout_ms), as i915 does.
 */

#include "simtgpu_policy.h"

static u32 simtgpu_round_robin_parked(const struct simtgpu_ring_view views[SIMTGPU_NUM_RINGS],
				      struct simtgpu_policy_state *state, u64 now_ms,
				      unsigned int timeslice_ms)
{
	unsigned int i, next;
	bool drained = true;
	u32 parked = 0;

	if (!views[state->current_ring].busy ||
	    (state->slice_started &&
	     now_ms - state->slice_start_ms >= timeslice_ms)) {
		for (i = 1; i <= SIMTGPU_NUM_RINGS; i++) {
			next = (state->current_ring + i) % SIMTGPU_NUM_RINGS;
			if (views[next].busy)
				break;
		}
		if (i <= SIMTGPU_NUM_RINGS && next != state->current_ring) {
			state->current_ring = next;
			state->slice_started = false;
		}
	}
	for (i = 0; i < SIMTGPU_NUM_RINGS; i++) {
		if (!views[i].busy || i == state->current_ring)
			continue;
		parked |= 1u << i;
		drained &= views[i].parked;
	}
	if (!state->slice_started && drained) {
		state->slice_started = true;
		state->slice_start_ms = now_ms;
	}
	return parked;
}

const struct simtgpu_policy simtgpu_policy_round_robin = {
	.name = "round-robin",
	.parked = simtgpu_round_robin_parked,
};
