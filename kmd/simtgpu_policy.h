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

#include <linux/list.h>
#include <linux/types.h>

#include "simtgpu/hw.h"

/* A ring as a policy sees it at a tick. */
struct simtgpu_ring_view {
	bool busy; /* the driver has jobs on it */
	bool parked; /* the device reports it parked (STATUS PARKED) */
	u32 priority; /* its class, SIMTGPU_PRIORITY_* */
	u64 idle_ms; /* since it last had jobs; 0 while busy */
};

/* What a policy keeps between ticks. */
struct simtgpu_policy_state {
	unsigned int current_ring; /* round-robin: whose slice it is */
	bool slice_started; /* round-robin: the others have parked */
	u64 slice_start_ms;
};

/*
 * A client (an open file, through its VM) as the policies see it, under
 * sdev->sched_lock. Every policy keeps these figures (fdinfo shows them);
 * "fair" also decides by them.
 */
struct simtgpu_client_sched {
	struct list_head link; /* in sdev->sched_clients while the file is open */
	u64 vtime_ns; /* virtual time: device time scaled by 100 / weight */
	u64 busy_ns; /* device time of its finished jobs */
	u32 weight; /* in force: client_weight, else its cgroup's */
	u32 weight_override; /* sysfs client_weight; 0: none */
	u32 queued; /* jobs pushed, not yet let onto a ring */
	u32 inflight; /* jobs let onto a ring, not yet freed */
	u64 slices; /* jobs the policy let onto a ring */
	u64 preemptions; /* times its work was held back or its ring parked */
	u64 last_active_ns; /* ktime of its last job pushed or finished */
	u64 round_trip_ns; /* decaying peak of its idle gaps between jobs */
	u32 partition; /* 0: the whole GPU, else the partition's id + 1 */
};

/* The other clients with work, as an admit() hook sees them. */
struct simtgpu_others {
	bool waiting; /* any client but this one has work */
	u64 min_vtime; /* their lowest virtual time (if waiting) */
	u64 min_busy_ns; /* their lowest device time, unweighted (if waiting) */
};

struct simtgpu_policy {
	const char *name;
	/* The rings to keep parked now: bit n parks ring n. */
	u32 (*parked)(const struct simtgpu_ring_view views[SIMTGPU_NUM_RINGS],
		      struct simtgpu_policy_state *state, u64 now_ms,
		      unsigned int timeslice_ms);
	/*
	 * Optional: whether @client's next job may go to a ring now, given
	 * what the other clients of its partition that have work look like
	 * (@others). NULL: always. A job held back waits for the next job to
	 * finish or the next tick, and is asked again.
	 */
	bool (*admit)(const struct simtgpu_client_sched *client,
		      const struct simtgpu_others *others,
		      unsigned int timeslice_ms);
	/*
	 * Optional: how many SMs, the first ones by index, ring @ring's grids
	 * may use now (SM_MASK; CTAs already resident stay). NULL: all.
	 */
	u32 (*sms)(const struct simtgpu_ring_view views[SIMTGPU_NUM_RINGS],
		   unsigned int ring, u32 num_sms);
};

extern const struct simtgpu_policy simtgpu_policy_fifo;
extern const struct simtgpu_policy simtgpu_policy_priority;
extern const struct simtgpu_policy simtgpu_policy_round_robin;
extern const struct simtgpu_policy simtgpu_policy_fair;

#endif /* SIMTGPU_POLICY_H */
