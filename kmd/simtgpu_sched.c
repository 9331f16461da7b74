// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The simtgpu authors */

/**
 * DOC: Rings and the drm_sched backend
 *
 * The device has SIMTGPU_NUM_RINGS kernel rings in VRAM; each is fed by its
 * own drm_gpu_scheduler, the job scheduler that v3d, panfrost, amdgpu and
 * others share: it keeps each queue's jobs in order, waits for their
 * dependencies, calls run_job when a ring may take one more (at most
 * SIMTGPU_JOBS_IN_FLIGHT_PER_RING at once) and timedout_job when one runs
 * too long, and calls free_job once a job's fences have signalled. A
 * userspace queue (simtgpu_queue.c) is a drm_sched entity whose priority
 * class picks its rings: low-priority queues use ring 0, normal ones rings
 * 1 and 2 (drm_sched balances an idle entity onto the less busy one), high
 * ones ring 3. The ring's PRIORITY register tells the device's command
 * processor the same class. SUBMIT (simtgpu_submit.c) makes the jobs.
 *
 * run_job writes a job onto its ring as five packets: SET_CONTEXT (the
 * file's page tables, context id = the file's client id), TIMESTAMP,
 * INDIRECT (the user's buffer, run at user privilege), TIMESTAMP, and FENCE
 * (PHYSICAL | IRQ) writing the ring's next sequence number into the ring's
 * slot of the fence page; then it moves the ring's TAIL, the doorbell. The
 * two timestamps give the job's device time. The fence interrupt reads the
 * slots and signals every hardware fence whose number has been reached
 * (simtgpu_fence.c). The ring choice and the job's packets are the shared
 * driver policy (simtgpu/driver_policy.h), which the userspace driver's
 * in-process transport applies too.
 *
 * The scheduling policies (simtgpu_policy.c) and partitions steer a ring
 * through two registers set here: PREEMPT parks it (its grids stop placing
 * CTAs and drain) and SM_MASK limits the SMs its grids may use.
 *
 * What happens when a job fails, hangs or does not yield its SMs, down to
 * resetting the device, is in simtgpu_reset.c.
 */

#include <linux/delay.h>
#include <linux/slab.h>
#include <drm/drm_drv.h>

#include "simtgpu_drv.h"
#include "simtgpu_trace.h"

/* Park (@park) or resume @ring: its grid stops placing CTAs and drains. */
void simtgpu_ring_preempt(struct simtgpu_ring *ring, bool park)
{
	trace_simtgpu_preempt(ring->index, park);
	simtgpu_ring_write(ring, SIMTGPU_RING_PREEMPT, park);
}

/*
 * Let @ring's grids place CTAs on the first @sms SMs of its span only
 * (SM_MASK): [sm_first, sm_first + sms).
 */
void simtgpu_ring_set_sms(struct simtgpu_ring *ring, u32 sms)
{
	u32 num_sms = ring->sdev->num_sms;
	unsigned int word, sm;
	u32 end;

	sms = clamp_t(u32, sms, 1, ring->sm_span);
	end = ring->sm_first + sms;
	for (word = 0; word < DIV_ROUND_UP(num_sms, 32); word++) {
		u32 bits = 0;

		for (sm = word * 32; sm < min(num_sms, (word + 1) * 32); sm++)
			if (sm >= ring->sm_first && sm < end)
				bits |= BIT(sm % 32);
		simtgpu_write(ring->sdev,
			      SIMTGPU_REG_SM_MASK(ring->index, word), bits);
	}
	ring->sms = sms;
}

static void simtgpu_ring_emit(struct simtgpu_ring *ring, const u32 *dwords,
			      unsigned int count)
{
	void __iomem *base = ring->sdev->vram + ring->vram_offset;
	unsigned int i;

	for (i = 0; i < count; i++) {
		writel(dwords[i], base + ring->tail);
		ring->tail = (ring->tail + 4) & (SIMTGPU_KERNEL_RING_BYTES - 1);
	}
}

/* Emit @job's packets. Packets never wrap: a NOP fills the ring's end. */
static void simtgpu_ring_emit_job(struct simtgpu_ring *ring,
				  struct simtgpu_job *job, u64 seqno)
{
	u32 pad;
	u64 slot = simtgpu_job_time_slot(ring->sdev->job_times, ring->index,
					 seqno);
	u32 packets[SIMTGPU_JOB_DWORDS];

	simtgpu_job_packets(packets, job->vm->id, simtgpu_vm_root(job->vm),
			    job->ib_va, job->ib_dwords, ring->fence_offset,
			    seqno, slot);
	writeq(0, ring->sdev->vram + slot);
	writeq(0, ring->sdev->vram + slot + 8);
	if (simtgpu_ring_pad(ring->tail, SIMTGPU_KERNEL_RING_BYTES, &pad)) {
		simtgpu_ring_emit(ring, &pad, 1);
		ring->tail = 0;
	}
	simtgpu_ring_emit(ring, packets, ARRAY_SIZE(packets));
	wmb(); /* the packets are in VRAM before the doorbell */
	simtgpu_ring_write(ring, SIMTGPU_RING_TAIL, ring->tail);
}

static struct dma_fence *simtgpu_run_job(struct drm_sched_job *sched_job)
{
	struct simtgpu_job *job = to_simtgpu_job(sched_job);
	struct simtgpu_ring *ring = to_simtgpu_ring(sched_job->sched);
	struct simtgpu_device *sdev = ring->sdev;
	struct simtgpu_fence *f;
	unsigned long flags;
	int idx;

	/* Already failed (the guilty job of a reset): just complete it. */
	if (sched_job->s_fence->finished.error)
		return NULL;
	if (!simtgpu_queue_is_usable(job->queue))
		return ERR_PTR(-ECANCELED);
	if (!drm_dev_enter(&sdev->drm, &idx))
		return ERR_PTR(-ENODEV);

	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f) {
		drm_dev_exit(idx);
		return ERR_PTR(-ENOMEM);
	}
	f->sdev = sdev;
	f->ring = ring;
	f->job = job;
	atomic_inc(&sdev->counts.fences);

	spin_lock_irqsave(&ring->lock, flags);
	f->seqno = ++ring->emitted;
	f->emitted = ktime_get();
	dma_fence_init(&f->base, &simtgpu_fence_ops, &ring->lock,
		       ring->fence_context, f->seqno);
	dma_fence_get(&f->base);
	list_add_tail(&f->link, &ring->pending);
	spin_unlock_irqrestore(&ring->lock, flags);
	simtgpu_util_start(sdev, f->emitted);

	dma_fence_put(job->hw_fence); /* from a run before a reset */
	job->hw_fence = dma_fence_get(&f->base);
	/* Before the doorbell: the job's end can be traced as soon as it rings. */
	trace_simtgpu_job_begin(ring->index, f->seqno, job->queue->id, job->pid);
	simtgpu_ring_emit_job(ring, job, f->seqno);
	simtgpu_policy_kick(sdev);
	drm_dev_exit(idx);
	return &f->base;
}

/* After its own dependencies: whether the policy lets the job run now. */
static struct dma_fence *simtgpu_job_dependency(struct drm_sched_job *sched_job,
						struct drm_sched_entity *entity)
{
	struct simtgpu_job *job = to_simtgpu_job(sched_job);

	return simtgpu_policy_job_gate(job->vm->sdev, &job->vm->sched,
				       &job->admitted, &job->held);
}

void simtgpu_free_job(struct drm_sched_job *sched_job)
{
	struct simtgpu_job *job = to_simtgpu_job(sched_job);
	struct simtgpu_device *sdev = job->vm->sdev;
	u32 i;

	if (job->hw_fence) {
		struct simtgpu_fence *f = container_of(job->hw_fence,
						       struct simtgpu_fence,
						       base);

		if (dma_fence_is_signaled(job->hw_fence))
			atomic64_add(f->busy_ns,
				     &job->vm->engine_ns[job->queue->priority]);
		dma_fence_put(job->hw_fence);
	}
	if (job->counted)
		simtgpu_policy_job_freed(sdev, &job->vm->sched, job->admitted);
	drm_sched_job_cleanup(sched_job);
	for (i = 0; i < job->bo_count; i++)
		drm_gem_object_put(job->bos[i]);
	kvfree(job->bos);
	kref_put(&job->queue->refcount, simtgpu_queue_release_kref);
	simtgpu_vm_put(job->vm);
	kfree(job);
	atomic_dec(&sdev->counts.jobs);
}

static const struct drm_sched_backend_ops simtgpu_sched_ops = {
	.dependency = simtgpu_job_dependency,
	.run_job = simtgpu_run_job,
	.timedout_job = simtgpu_timedout_job,
	.free_job = simtgpu_free_job,
};

/* Program the rings after probe or a reset; the device is idle. */
void simtgpu_rings_hw_init(struct simtgpu_device *sdev)
{
	unsigned int i;

	for (i = 0; i < SIMTGPU_NUM_RINGS; i++) {
		struct simtgpu_ring *ring = &sdev->rings[i];

		ring->tail = 0;
		WRITE_ONCE(ring->parked_by_policy, false); /* PREEMPT is 0 again */
		simtgpu_ring_set_sms(ring, ring->sm_span);
		simtgpu_ring_write(ring, SIMTGPU_RING_CTRL, 0);
		simtgpu_ring_write(ring, SIMTGPU_RING_ADDR_LO,
				   lower_32_bits(ring->vram_offset));
		simtgpu_ring_write(ring, SIMTGPU_RING_ADDR_HI,
				   upper_32_bits(ring->vram_offset));
		simtgpu_ring_write(ring, SIMTGPU_RING_SIZE, SIMTGPU_KERNEL_RING_BYTES);
		simtgpu_ring_write(ring, SIMTGPU_RING_PRIORITY,
				   ring->hw_priority);
		/* Device cycles of simtgpu_preempt_timeout_ms, at most 2^32-1. */
		simtgpu_write(sdev, SIMTGPU_REG_PREEMPT_TIMEOUT,
			      min_t(u64, (u64)simtgpu_preempt_timeout_ms *
					 sdev->clock_khz, U32_MAX));
		simtgpu_ring_write(ring, SIMTGPU_RING_TAIL, 0);
		simtgpu_ring_write(ring, SIMTGPU_RING_CTRL,
				   SIMTGPU_RING_CTRL_ENABLE);
	}
}

static int simtgpu_sched_init(struct simtgpu_ring *ring)
{
	struct simtgpu_device *sdev = ring->sdev;
	unsigned int ms = simtgpu_effective_timeout_ms(simtgpu_timeout_ms);
	long timeout = msecs_to_jiffies(ms);
#ifdef SIMTGPU_SCHED_INIT_ARGS
	const struct drm_sched_init_args args = {
		.ops = &simtgpu_sched_ops,
		.timeout_wq = sdev->reset_wq,
		.credit_limit = SIMTGPU_JOBS_IN_FLIGHT_PER_RING,
		.hang_limit = 0,
		.timeout = timeout,
		.name = ring->name,
		.dev = sdev->drm.dev,
	};

	return drm_sched_init(&ring->sched, &args);
#else
	return drm_sched_init(&ring->sched, &simtgpu_sched_ops,
			      SIMTGPU_JOBS_IN_FLIGHT_PER_RING, 0, timeout,
			      sdev->reset_wq, NULL, ring->name,
			      sdev->drm.dev);
#endif
}

int simtgpu_rings_init(struct simtgpu_device *sdev)
{
	unsigned int i;
	int ret;

	for (i = 0; i < SIMTGPU_NUM_RINGS; i++) {
		struct simtgpu_ring *ring = &sdev->rings[i];

		ring->sdev = sdev;
		ring->index = i;
		snprintf(ring->name, sizeof(ring->name), "simtgpu-ring%u", i);
		spin_lock_init(&ring->lock);
		INIT_LIST_HEAD(&ring->pending);
		INIT_LIST_HEAD(&ring->vram);
		ring->fence_context = dma_fence_context_alloc(1);
		ring->fence_offset = sdev->fence_page + i * sizeof(u64);
		ring->hw_priority = simtgpu_ring_priority(i);
		ring->sm_first = 0;
		ring->sm_span = sdev->num_sms;

		ret = simtgpu_vram_alloc(sdev, SIMTGPU_KERNEL_RING_BYTES,
					 SIMTGPU_KERNEL_RING_BYTES, &ring->vram);
		if (ret)
			goto err;
		simtgpu_vram_clear(sdev, &ring->vram);
		ring->vram_offset = simtgpu_vram_first_offset(&ring->vram);

		ret = simtgpu_sched_init(ring);
		if (ret)
			goto err;
		ring->sched_ready = true;
	}
	return 0;

err:
	simtgpu_rings_fini(sdev);
	return ret;
}

void simtgpu_rings_fini(struct simtgpu_device *sdev)
{
	unsigned int i;

	for (i = 0; i < SIMTGPU_NUM_RINGS; i++) {
		struct simtgpu_ring *ring = &sdev->rings[i];
		unsigned long deadline = jiffies + 5 * HZ;

		/* drm_sched_fini() does not free finished jobs still on its
		 * list: give the scheduler thread time to free them.
		 */
		while (ring->sched_ready &&
		       !list_empty_careful(&ring->sched.pending_list) &&
		       time_before(jiffies, deadline))
			msleep(20);
		if (ring->sched_ready)
			drm_sched_fini(&ring->sched);
		ring->sched_ready = false;
		if (ring->sdev)
			simtgpu_ring_cancel_fences(ring, -ENODEV, true);
		if (ring->sdev)
			simtgpu_vram_free(sdev, &ring->vram);
	}
}
