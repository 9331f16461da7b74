// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The simtgpu authors */

/*
 * The scheduling policy in force (simtgpu_policy.h). While the driver has
 * jobs on the rings, a delayed work item runs every SIMTGPU_POLICY_TICK_MS:
 * it tells the policy which rings are busy, and writes PREEMPT where the
 * policy's answer changed. sysfs sched_policy and timeslice_duration_ms
 * (docs/kmd.md).
 */

#include <linux/jiffies.h>
#include <linux/workqueue.h>
#include <drm/drm_drv.h>

#include "simtgpu_drv.h"
#include "simtgpu_policy.h"

#define SIMTGPU_POLICY_TICK_MS 2

static const struct simtgpu_policy *const simtgpu_policies[] = {
	&simtgpu_policy_fifo,
	&simtgpu_policy_priority,
	&simtgpu_policy_round_robin,
};

static void simtgpu_policy_tick(struct work_struct *work)
{
	struct simtgpu_device *sdev = container_of(to_delayed_work(work),
						   struct simtgpu_device,
						   policy_work);
	struct simtgpu_ring_view views[SIMTGPU_NUM_RINGS];
	bool active = false;
	unsigned long flags;
	unsigned int i;
	u32 parked;
	int idx;

	if (!drm_dev_enter(&sdev->drm, &idx))
		return;
	for (i = 0; i < SIMTGPU_NUM_RINGS; i++) {
		struct simtgpu_ring *ring = &sdev->rings[i];

		spin_lock_irqsave(&ring->lock, flags);
		views[i].busy = !list_empty(&ring->pending);
		spin_unlock_irqrestore(&ring->lock, flags);
		views[i].priority = ring->hw_priority;
		active |= views[i].busy;
	}
	mutex_lock(&sdev->policy_lock);
	parked = sdev->policy->parked(views, &sdev->policy_state,
				      jiffies_to_msecs(jiffies),
				      sdev->timeslice_ms);
	for (i = 0; i < SIMTGPU_NUM_RINGS; i++) {
		struct simtgpu_ring *ring = &sdev->rings[i];
		bool park = parked & BIT(i);

		if (park != ring->parked_by_policy) {
			simtgpu_ring_preempt(ring, park);
			ring->parked_by_policy = park;
			ring->preemptions += park;
		}
		active |= ring->parked_by_policy;
	}
	mutex_unlock(&sdev->policy_lock);
	drm_dev_exit(idx);
	if (active)
		schedule_delayed_work(&sdev->policy_work,
				      msecs_to_jiffies(SIMTGPU_POLICY_TICK_MS));
}

/* A job was pushed: make sure the policy is looking. */
void simtgpu_policy_kick(struct simtgpu_device *sdev)
{
	if (sdev->policy != &simtgpu_policy_fifo)
		mod_delayed_work(system_wq, &sdev->policy_work, 0);
}

void simtgpu_policy_init(struct simtgpu_device *sdev)
{
	mutex_init(&sdev->policy_lock);
	sdev->policy = &simtgpu_policy_fifo;
	sdev->timeslice_ms = 20;
	INIT_DELAYED_WORK(&sdev->policy_work, simtgpu_policy_tick);
}

/* Stops the tick (the device, or its reset, clears PREEMPT). */
void simtgpu_policy_fini(struct simtgpu_device *sdev)
{
	cancel_delayed_work_sync(&sdev->policy_work);
}

ssize_t simtgpu_policy_name(struct simtgpu_device *sdev, char *buf)
{
	ssize_t n = 0;
	unsigned int i;

	mutex_lock(&sdev->policy_lock);
	for (i = 0; i < ARRAY_SIZE(simtgpu_policies); i++)
		n += sysfs_emit_at(buf, n, simtgpu_policies[i] == sdev->policy ?
				   "[%s]%s" : "%s%s", simtgpu_policies[i]->name,
				   i + 1 < ARRAY_SIZE(simtgpu_policies) ? " " : "\n");
	mutex_unlock(&sdev->policy_lock);
	return n;
}

int simtgpu_policy_select(struct simtgpu_device *sdev, const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(simtgpu_policies); i++) {
		if (!sysfs_streq(name, simtgpu_policies[i]->name))
			continue;
		mutex_lock(&sdev->policy_lock);
		sdev->policy = simtgpu_policies[i];
		memset(&sdev->policy_state, 0, sizeof(sdev->policy_state));
		mutex_unlock(&sdev->policy_lock);
		/* One more tick applies it, and resumes what it no longer parks. */
		mod_delayed_work(system_wq, &sdev->policy_work, 0);
		return 0;
	}
	return -EINVAL;
}
