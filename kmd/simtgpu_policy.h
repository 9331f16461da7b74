/* SPDX-License-Identifier: GPL-2.0 */
/* Copyright (C) 2026 The simtgpu authors */
/*
 * Scheduling policies: what the driver does with the rings' PREEMPT bits
 * (hardware.md, "Grids") while jobs run. Each policy is one small file that
 * defines one struct simtgpu_policy; simtgpu_policy.c calls the one in force
 * every tick and parks or resumes the rings it names. sysfs sched_policy
 * chooses it at run time. docs/kmd.md has the lab that adds one.
 */
#ifndef SIMTGPU_POLICY_H
#define SIMTGPU_POLICY_H

#include <linux/types.h>

#include "simtgpu/hw.h"

/* A ring as a policy sees it at a tick. */
struct simtgpu_ring_view {
	bool busy; /* the driver has jobs on it */
	u32 priority; /* its class, SIMTGPU_PRIORITY_* */
};

/* What a policy keeps between ticks. */
struct simtgpu_policy_state {
	unsigned int current_ring; /* round-robin: whose slice it is */
	u64 slice_start_ms;
};

struct simtgpu_policy {
	const char *name;
	/* The rings to keep parked now: bit n parks ring n. */
	u32 (*parked)(const struct simtgpu_ring_view views[SIMTGPU_NUM_RINGS],
		      struct simtgpu_policy_state *state, u64 now_ms,
		      unsigned int timeslice_ms);
};

extern const struct simtgpu_policy simtgpu_policy_fifo;
extern const struct simtgpu_policy simtgpu_policy_priority;
extern const struct simtgpu_policy simtgpu_policy_round_robin;

#endif /* SIMTGPU_POLICY_H */
