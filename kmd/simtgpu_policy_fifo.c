// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The simtgpu authors */

/*
 * fifo: the driver never preempts. The device runs the rings side by side
 * and gives higher-priority grids SMs first as blocks finish.
 */

#include "simtgpu_policy.h"

static u32 simtgpu_fifo_parked(const struct simtgpu_ring_view views[SIMTGPU_NUM_RINGS],
			       struct simtgpu_policy_state *state, u64 now_ms,
			       unsigned int timeslice_ms)
{
	return 0;
}

const struct simtgpu_policy simtgpu_policy_fifo = {
	.name = "fifo",
	.parked = simtgpu_fifo_parked,
};
