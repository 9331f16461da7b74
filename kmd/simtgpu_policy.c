// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The simtgpu authors */

/*
 * The scheduling policy in force (simtgpu_policy.h). While the driver has
 * jobs on the rings, a delayed work item runs every SIMTGPU_POLICY_TICK_MS:
 * it tells the policy which rings are busy, and writes PREEMPT where the
 * policy's answer changed. sysfs sched_policy and timeslice_duration_ms
 * (docs/kmd.md).
 *
 * Per client, every policy keeps virtual time, weight, slices and
 * preemptions (struct simtgpu_client_sched, shown in fdinfo). A policy
 * with an admit() hook decides per job too: drm_sched asks the job's
 * dependency() before running it, and a job held back waits on the
 * "gate", a fence the driver signals whenever a job finishes or is freed,
 * and at every tick; then it is asked again. docs/sharing.md.
 */

#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <drm/drm_drv.h>

#include "simtgpu_drv.h"
#include "simtgpu_policy.h"

#define SIMTGPU_POLICY_TICK_MS 2

static const struct simtgpu_policy *const simtgpu_policies[] = {
	&simtgpu_policy_fifo,
	&simtgpu_policy_priority,
	&simtgpu_policy_round_robin,
	&simtgpu_policy_fair,
};

/* --------------------------------------------------------- the gate --- */

static const char *simtgpu_gate_driver_name(struct dma_fence *fence)
{
	return SIMTGPU_DRIVER_NAME;
}

static const char *simtgpu_gate_timeline_name(struct dma_fence *fence)
{
	return "simtgpu-policy-gate";
}

static const struct dma_fence_ops simtgpu_gate_ops = {
	.get_driver_name = simtgpu_gate_driver_name,
	.get_timeline_name = simtgpu_gate_timeline_name,
};

/* Wakes every job held back: they ask the policy again. Any context. */
static void simtgpu_gate_open(struct simtgpu_device *sdev)
{
	struct dma_fence *gate;
	unsigned long flags;

	spin_lock_irqsave(&sdev->gate_lock, flags);
	gate = sdev->gate;
	sdev->gate = NULL;
	spin_unlock_irqrestore(&sdev->gate_lock, flags);
	if (gate) {
		dma_fence_signal(gate);
		dma_fence_put(gate);
	}
}

/* A reference to the current gate; NULL if out of memory. */
static struct dma_fence *simtgpu_gate_get(struct simtgpu_device *sdev)
{
	struct dma_fence *fresh = kzalloc(sizeof(*fresh), GFP_KERNEL);
	struct dma_fence *gate;
	unsigned long flags;

	spin_lock_irqsave(&sdev->gate_lock, flags);
	if (!sdev->gate && fresh) {
		dma_fence_init(fresh, &simtgpu_gate_ops, &sdev->gate_fence_lock,
			       sdev->gate_context, ++sdev->gate_seqno);
		sdev->gate = fresh;
		fresh = NULL;
	}
	gate = sdev->gate ? dma_fence_get(sdev->gate) : NULL;
	spin_unlock_irqrestore(&sdev->gate_lock, flags);
	kfree(fresh);
	return gate;
}

/* ------------------------------------------------------- the clients --- */

/* The clients but @self of its partition that have work. */
static struct simtgpu_others
simtgpu_others_waiting(struct simtgpu_device *sdev,
		       const struct simtgpu_client_sched *self)
{
	struct simtgpu_others others = {};
	struct simtgpu_client_sched *c;

	u64 now = ktime_get_ns();

	lockdep_assert_held(&sdev->sched_lock);
	list_for_each_entry(c, &sdev->sched_clients, link) {
		if (c == self || c->partition != self->partition ||
		    !simtgpu_fair_has_work(c->queued + c->inflight,
					   now - c->last_active_ns,
					   simtgpu_fair_grace_ns(c->round_trip_ns)))
			continue;
		if (!others.waiting || c->vtime_ns < others.min_vtime)
			others.min_vtime = c->vtime_ns;
		if (!others.waiting || c->busy_ns < others.min_busy_ns)
			others.min_busy_ns = c->busy_ns;
		others.waiting = true;
	}
	return others;
}

void simtgpu_policy_client_add(struct simtgpu_device *sdev,
			       struct simtgpu_client_sched *cs, u32 weight)
{
	unsigned long flags;

	spin_lock_irqsave(&sdev->sched_lock, flags);
	cs->weight = weight;
	list_add_tail(&cs->link, &sdev->sched_clients);
	spin_unlock_irqrestore(&sdev->sched_lock, flags);
}

void simtgpu_policy_client_remove(struct simtgpu_device *sdev,
				  struct simtgpu_client_sched *cs)
{
	unsigned long flags;

	spin_lock_irqsave(&sdev->sched_lock, flags);
	list_del_init(&cs->link);
	spin_unlock_irqrestore(&sdev->sched_lock, flags);
	simtgpu_gate_open(sdev); /* its work no longer holds anyone back */
}

/* A job of @cs was pushed to its queue. */
void simtgpu_policy_job_queued(struct simtgpu_device *sdev,
			       struct simtgpu_client_sched *cs)
{
	struct simtgpu_others others;
	unsigned long flags;

	u64 now = ktime_get_ns();

	spin_lock_irqsave(&sdev->sched_lock, flags);
	if (!cs->queued && !cs->inflight && cs->last_active_ns)
		cs->round_trip_ns = simtgpu_fair_round_trip_update(
			cs->round_trip_ns, now - cs->last_active_ns);
	if (!simtgpu_fair_has_work(cs->queued + cs->inflight,
				   now - cs->last_active_ns,
				   simtgpu_fair_grace_ns(cs->round_trip_ns))) {
		others = simtgpu_others_waiting(sdev, cs);
		cs->vtime_ns = simtgpu_fair_wake_vtime(cs->vtime_ns,
						       others.waiting,
						       others.min_vtime);
	}
	cs->queued++;
	cs->last_active_ns = now;
	spin_unlock_irqrestore(&sdev->sched_lock, flags);
}

/**
 * simtgpu_policy_job_gate - drm_sched's dependency() for a job of @cs:
 * NULL once the policy lets it onto a ring (*@admitted is then set), else
 * a fence to wait for before asking again.
 */
struct dma_fence *simtgpu_policy_job_gate(struct simtgpu_device *sdev,
					  struct simtgpu_client_sched *cs,
					  bool *admitted, bool *held)
{
	const struct simtgpu_policy *policy = READ_ONCE(sdev->policy);
	unsigned long flags;
	struct simtgpu_others others;
	struct dma_fence *gate;
	bool ok;

	if (*admitted)
		return NULL;
	spin_lock_irqsave(&sdev->sched_lock, flags);
	others = simtgpu_others_waiting(sdev, cs);
	ok = !policy->admit ||
	     policy->admit(cs, &others, READ_ONCE(sdev->timeslice_ms));
	if (ok) {
		cs->queued--;
		cs->inflight++;
		cs->slices++;
		*admitted = true;
	} else if (!*held) {
		cs->preemptions++;
		*held = true;
	}
	spin_unlock_irqrestore(&sdev->sched_lock, flags);
	if (ok)
		return NULL;
	gate = simtgpu_gate_get(sdev);
	/* The tick opens the gate even if nothing finishes meanwhile. */
	mod_delayed_work(system_wq, &sdev->policy_work,
			 msecs_to_jiffies(SIMTGPU_POLICY_TICK_MS));
	return gate;
}

/* A job of @cs finished after @busy_ns of device time. Any context. */
void simtgpu_policy_job_done(struct simtgpu_device *sdev,
			     struct simtgpu_client_sched *cs, u64 busy_ns)
{
	unsigned long flags;

	spin_lock_irqsave(&sdev->sched_lock, flags);
	cs->busy_ns += busy_ns;
	cs->vtime_ns += simtgpu_fair_vtime_delta(busy_ns, cs->weight);
	cs->last_active_ns = ktime_get_ns();
	spin_unlock_irqrestore(&sdev->sched_lock, flags);
	simtgpu_gate_open(sdev);
}

/* A job of @cs was freed: it had been let onto a ring, or never was. */
void simtgpu_policy_job_freed(struct simtgpu_device *sdev,
			      struct simtgpu_client_sched *cs, bool admitted)
{
	unsigned long flags;

	spin_lock_irqsave(&sdev->sched_lock, flags);
	if (admitted)
		cs->inflight--;
	else
		cs->queued--;
	spin_unlock_irqrestore(&sdev->sched_lock, flags);
	simtgpu_gate_open(sdev);
}

/* The ring @ring is being parked: its clients count a preemption. */
static void simtgpu_policy_count_park(struct simtgpu_ring *ring)
{
	struct simtgpu_device *sdev = ring->sdev;
	struct simtgpu_vm *last = NULL;
	struct simtgpu_fence *f;
	unsigned long flags;

	spin_lock_irqsave(&ring->lock, flags);
	spin_lock(&sdev->sched_lock);
	list_for_each_entry(f, &ring->pending, link) {
		if (!f->job || f->job->vm == last)
			continue;
		last = f->job->vm;
		last->sched.preemptions++;
	}
	spin_unlock(&sdev->sched_lock);
	spin_unlock_irqrestore(&ring->lock, flags);
}

static void simtgpu_policy_tick(struct work_struct *work)
{
	struct simtgpu_device *sdev = container_of(to_delayed_work(work),
						   struct simtgpu_device,
						   policy_work);
	struct simtgpu_ring_view views[SIMTGPU_NUM_RINGS];
	u64 now_ms = jiffies_to_msecs(jiffies);
	const struct simtgpu_policy *policy;
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
		if (views[i].busy)
			ring->last_busy_ms = now_ms;
		views[i].idle_ms = now_ms - ring->last_busy_ms;
		views[i].parked = simtgpu_ring_read(ring, SIMTGPU_RING_STATUS) ==
				  SIMTGPU_RING_STATUS_PARKED;
		views[i].priority = ring->hw_priority;
		active |= views[i].busy;
	}
	mutex_lock(&sdev->policy_lock);
	/* Partitions have a ring each, on SMs of their own: nothing to share. */
	policy = sdev->num_parts ? &simtgpu_policy_fifo : sdev->policy;
	parked = policy->parked(views, &sdev->policy_state, now_ms,
				sdev->timeslice_ms);
	for (i = 0; i < SIMTGPU_NUM_RINGS; i++) {
		struct simtgpu_ring *ring = &sdev->rings[i];
		bool park = parked & BIT(i);
		u32 sms = policy->sms ? policy->sms(views, i, ring->sm_span) :
					ring->sm_span;

		if (park != ring->parked_by_policy) {
			if (park)
				simtgpu_policy_count_park(ring);
			simtgpu_ring_preempt(ring, park);
			ring->parked_by_policy = park;
			ring->preemptions += park;
		}
		if (sms != ring->sms)
			simtgpu_ring_set_sms(ring, sms);
		/* Keep looking until the rings have it all again. */
		active |= ring->parked_by_policy || ring->sms != ring->sm_span;
	}
	mutex_unlock(&sdev->policy_lock);
	drm_dev_exit(idx);
	spin_lock_irqsave(&sdev->gate_lock, flags);
	active |= sdev->gate != NULL;
	spin_unlock_irqrestore(&sdev->gate_lock, flags);
	simtgpu_gate_open(sdev);
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
	spin_lock_init(&sdev->sched_lock);
	INIT_LIST_HEAD(&sdev->sched_clients);
	spin_lock_init(&sdev->gate_lock);
	spin_lock_init(&sdev->gate_fence_lock);
	sdev->gate_context = dma_fence_context_alloc(1);
	sdev->policy = &simtgpu_policy_fifo;
	sdev->timeslice_ms = 20;
	INIT_DELAYED_WORK(&sdev->policy_work, simtgpu_policy_tick);
}

/* Stops the tick (the device, or its reset, clears PREEMPT). */
void simtgpu_policy_fini(struct simtgpu_device *sdev)
{
	cancel_delayed_work_sync(&sdev->policy_work);
	simtgpu_gate_open(sdev);
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
		WRITE_ONCE(sdev->policy, simtgpu_policies[i]);
		memset(&sdev->policy_state, 0, sizeof(sdev->policy_state));
		mutex_unlock(&sdev->policy_lock);
		/* One more tick applies it, and resumes what it no longer parks. */
		mod_delayed_work(system_wq, &sdev->policy_work, 0);
		simtgpu_gate_open(sdev);
		return 0;
	}
	return -EINVAL;
}

/* The policy in force's name, for fdinfo. */
const char *simtgpu_policy_current(struct simtgpu_device *sdev)
{
	return READ_ONCE(sdev->policy)->name;
}

/* Recomputes every client's weight after a weight file was written. */
void simtgpu_policy_reweight(struct simtgpu_device *sdev)
{
	struct simtgpu_file_priv *fpriv;
	unsigned long flags;

	mutex_lock(&sdev->clients_lock);
	list_for_each_entry(fpriv, &sdev->clients, link) {
		struct simtgpu_vm *vm = fpriv->vm;
		u32 weight = simtgpu_cg_weight(vm->cg);

		spin_lock_irqsave(&sdev->sched_lock, flags);
		if (vm->sched.weight_override)
			weight = vm->sched.weight_override;
		vm->sched.weight = weight;
		spin_unlock_irqrestore(&sdev->sched_lock, flags);
	}
	mutex_unlock(&sdev->clients_lock);
}

/*
 * sysfs client_weight: "CLIENT_ID WEIGHT" gives one client (drm-client-id
 * in its fdinfo) its own weight; "CLIENT_ID 0" returns it to its cgroup's.
 */
int simtgpu_policy_set_client_weight(struct simtgpu_device *sdev,
				     u64 client_id, u32 weight)
{
	struct simtgpu_file_priv *fpriv;
	int ret = -ENOENT;

	if (weight && !simtgpu_weight_valid(weight))
		return -EINVAL;
	mutex_lock(&sdev->clients_lock);
	list_for_each_entry(fpriv, &sdev->clients, link) {
		if (fpriv->client_id != client_id)
			continue;
		WRITE_ONCE(fpriv->vm->sched.weight_override, weight);
		ret = 0;
	}
	mutex_unlock(&sdev->clients_lock);
	if (!ret)
		simtgpu_policy_reweight(sdev);
	return ret;
}
