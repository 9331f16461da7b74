// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The simtgpu authors */

/**
 * DOC: GPU exceptions, hangs and reset
 *
 * A GPU driver cannot stop a job the way the kernel stops a process: the
 * job runs on the device, and what goes wrong there reaches the driver
 * only as an interrupt or as silence. This file decides what failed, whose
 * job it was, and how little of the device must be reset to go on.
 *
 * An exception (page fault, trap, ...) aborts the job's indirect buffer.
 * The interrupt handler (simtgpu_irq.c) calls simtgpu_ring_fail_current():
 * the job running on that ring fails with -EFAULT, its queue is marked
 * faulted and keeps the first exception for QUEUE_GET_STATE, and one line
 * in the kernel log names the process, the address and the access. Once
 * the exception is acknowledged the ring runs the job's FENCE packet and
 * goes on with the next job; nothing is reset.
 *
 * A job that runs past the timeout (module parameter timeout_ms, host time,
 * so large by default: the GPU is simulated) is checked for progress: the
 * rings run side by side, so if its ring's PROGRESS moved since the last
 * check, or the ring holds no SMs while another one does, the job gets
 * another period. Otherwise the ring is hung and its oldest job is the
 * guilty one. These rules, the job's packets, the limits and the
 * fault-to-job match are the shared driver policy
 * (simtgpu/driver_policy.h), which the userspace driver's in-process
 * transport applies too.
 *
 * For a hang the whole device is reset (the reset register stops the
 * engine, simtgpu_hw_reset()): every scheduler is stopped, the guilty job
 * fails with -ETIMEDOUT and its queue is marked guilty, the rings are
 * reprogrammed, and the innocent jobs that were on the rings are submitted
 * again. Two failures cost less: a hang on a partition's ring, and a
 * preemption that does not drain within preempt_timeout_ms, fail only the
 * job executing there and drop its grid with the ring's CTRL.ABORT, leaving
 * every other ring running.
 *
 * Faulted and guilty queues refuse new submissions with -ECANCELED, and
 * jobs already queued behind the failure are cancelled with -ECANCELED, as
 * a CUDA context stays broken after an illegal address.
 */

#include <linux/dma-fence.h>
#include <linux/iopoll.h>
#include <linux/kref.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <drm/drm_drv.h>
#include <drm/drm_print.h>

#include "simtgpu_drv.h"
#include "simtgpu_trace.h"

/*
 * Stop the engine and return the registers to their reset values. The
 * write returns at once; the engine stops within a quantum, and the rings
 * are reprogrammed only once STATUS.BUSY reads 0 (docs/hardware.md).
 */
int simtgpu_hw_reset(struct simtgpu_device *sdev)
{
	u32 status;
	int ret;

	/* Not between a clear's range and its GO: it would clear another. */
	mutex_lock(&sdev->clear_lock);
	simtgpu_write(sdev, SIMTGPU_REG_RESET, SIMTGPU_RESET_MAGIC);
	mutex_unlock(&sdev->clear_lock);
	ret = readl_poll_timeout(sdev->regs + SIMTGPU_REG_STATUS, status,
				 !(status & SIMTGPU_STATUS_BUSY), 100,
				 1000 * USEC_PER_MSEC);
	if (ret)
		drm_err(&sdev->drm, "the engine did not stop after a reset\n");
	return ret;
}

/*
 * The job that was executing on @ring when the device reported an exception
 * of @context, failed: its fences carry -EFAULT and its queue is faulted
 * with @fault, or, for a NULL @fault (a preemption that timed out),
 * -ETIMEDOUT and guilty. NULL when no pending job is the exception's.
 */
static struct simtgpu_job *
simtgpu_ring_fail_executing(struct simtgpu_ring *ring, u32 context,
			    const struct drm_simtgpu_fault_info *fault)
{
	int error = fault ? -EFAULT : -ETIMEDOUT;
	struct simtgpu_job *job = NULL;
	struct simtgpu_fence *f;
	unsigned long flags;

	/* The previous job's fence interrupt may not have run yet: retire
	 * what the fence slot says is done, so the first pending fence is
	 * the job that was executing.
	 */
	simtgpu_ring_signal_fences(ring);
	spin_lock_irqsave(&ring->lock, flags);
	f = list_first_entry_or_null(&ring->pending, struct simtgpu_fence,
				     link);
	if (f && f->job &&
	    simtgpu_exception_belongs_to_job(f->seqno, ring->completed,
					     f->job->vm->id, context)) {
		job = f->job;
		dma_fence_set_error(&f->base, error);
		dma_fence_set_error(&job->base.s_fence->finished, error);
		if (fault)
			simtgpu_queue_mark_faulted(job->queue, fault);
		else
			simtgpu_queue_mark_guilty(job->queue);
	}
	spin_unlock_irqrestore(&ring->lock, flags);
	return job;
}

/**
 * simtgpu_ring_fail_current - the exception interrupt's verdict on the job
 * executing on @ring: its fences carry -EFAULT, its queue is faulted, and
 * one line names the process, the queue, the address and the access.
 */
void simtgpu_ring_fail_current(struct simtgpu_ring *ring,
			       const struct drm_simtgpu_fault_info *fault,
			       u32 context)
{
	struct simtgpu_device *sdev = ring->sdev;
	struct simtgpu_job *job = simtgpu_ring_fail_executing(ring, context,
							      fault);

	if (!job) {
		dev_err_ratelimited(sdev->drm.dev,
				    "GPU exception on %s (context %u) with no job: %s @ 0x%llx\n",
				    ring->name, context,
				    simtgpu_exception_name(fault->kind),
				    fault->address);
		return;
	}
	/* Memory faults have an address and an access; the rest a detail. */
	if (fault->kind == SIMTGPU_EXC_PAGE_FAULT ||
	    fault->kind == SIMTGPU_EXC_MISALIGNED)
		dev_err_ratelimited(sdev->drm.dev,
				    "GPU exception: pid=%d, name=%s, queue %u, context %u, %s: %s @ 0x%llx, access %s, detail %#x, pc 0x%llx, sm %u warp %u lane %u, block (%u,%u,%u) thread (%u,%u,%u)\n",
				    job->pid, job->comm, job->queue->id, context,
				    ring->name, simtgpu_exception_name(fault->kind),
				    fault->address,
				    simtgpu_access_name(fault->access),
				    fault->detail, fault->pc, fault->sm,
				    fault->warp, fault->lane, fault->ctaid[0],
				    fault->ctaid[1], fault->ctaid[2], fault->tid[0],
				    fault->tid[1], fault->tid[2]);
	else
		dev_err_ratelimited(sdev->drm.dev,
				    "GPU exception: pid=%d, name=%s, queue %u, context %u, %s: %s, detail %#x, pc 0x%llx, sm %u warp %u lane %u, block (%u,%u,%u) thread (%u,%u,%u)\n",
				    job->pid, job->comm, job->queue->id, context,
				    ring->name, simtgpu_exception_name(fault->kind),
				    fault->detail, fault->pc, fault->sm,
				    fault->warp, fault->lane, fault->ctaid[0],
				    fault->ctaid[1], fault->ctaid[2], fault->tid[0],
				    fault->tid[1], fault->tid[2]);
}

/*
 * A preemption of @ring did not complete within preempt_timeout_ms (a CTA
 * that never ends): the job executing on it fails with -ETIMEDOUT, its
 * queue is guilty, and CTRL.ABORT drops its grid. Once the exception is
 * acknowledged the ring goes on with the job's FENCE and its next jobs; the
 * other rings and their grids are not touched. Error interrupt context.
 */
void simtgpu_ring_abort_current(struct simtgpu_ring *ring, u32 context)
{
	struct simtgpu_device *sdev = ring->sdev;
	struct simtgpu_job *job = simtgpu_ring_fail_executing(ring, context,
							      NULL);

	simtgpu_ring_write(ring, SIMTGPU_RING_CTRL,
			   SIMTGPU_RING_CTRL_ENABLE | SIMTGPU_RING_CTRL_ABORT);
	WRITE_ONCE(ring->parked_by_policy, false); /* ABORT cleared PREEMPT */
	ring->resets++;
	trace_simtgpu_reset(ring->index, "preempt-timeout");
	if (job)
		dev_err_ratelimited(sdev->drm.dev,
				    "preemption timed out: pid=%d, name=%s, queue %u, %s: its grid does not drain, resetting the ring\n",
				    job->pid, job->comm, job->queue->id,
				    ring->name);
	else
		dev_err_ratelimited(sdev->drm.dev,
				    "preemption of %s timed out with no job: resetting the ring\n",
				    ring->name);
}

/*
 * A partition's ring hung: only its executing job fails (-ETIMEDOUT, its
 * queue guilty) and CTRL.ABORT drops its grid; the ring goes on with the
 * job's FENCE and its next jobs, and no other partition's ring is touched.
 */
void simtgpu_partition_reset(struct simtgpu_partition *part,
			     struct simtgpu_job *job)
{
	struct simtgpu_ring *ring = part->ring;
	struct simtgpu_job *failed;

	failed = simtgpu_ring_fail_executing(ring, job->vm->id, NULL);
	simtgpu_ring_write(ring, SIMTGPU_RING_CTRL,
			   SIMTGPU_RING_CTRL_ENABLE | SIMTGPU_RING_CTRL_ABORT);
	ring->resets++;
	trace_simtgpu_reset(ring->index, "partition-hang");
	ring->watch.progress = 0;
	drm_err(&part->sdev->drm,
		"GPU hang in partition %u: pid=%d, name=%s, %s: no progress for %u ms, resetting the partition's work only\n",
		part->id, failed ? failed->pid : 0,
		failed ? failed->comm : "?", ring->name, simtgpu_timeout_ms);
}

/* ---------------------------------------------------- reset/timeout --- */

/* The job that hung a ring: its oldest (simtgpu_ring_hung()). */
struct simtgpu_culprit {
	struct dma_fence *finished;
	struct simtgpu_queue *queue;
	pid_t pid;
	char comm[TASK_COMM_LEN];
	const char *ring;
};

static bool simtgpu_find_culprit(struct simtgpu_ring *ring,
				 struct simtgpu_culprit *c)
{
	struct simtgpu_fence *f;
	unsigned long flags;
	bool found = false;

	spin_lock_irqsave(&ring->lock, flags);
	f = list_first_entry_or_null(&ring->pending, struct simtgpu_fence,
				     link);
	if (f && f->job) {
		c->finished = dma_fence_get(&f->job->base.s_fence->finished);
		c->queue = f->job->queue;
		kref_get(&c->queue->refcount);
		c->pid = f->job->pid;
		memcpy(c->comm, f->job->comm, sizeof(c->comm));
		c->ring = ring->name;
		found = true;
	}
	spin_unlock_irqrestore(&ring->lock, flags);
	return found;
}

/* The shared hang rule on @ring, from its PROGRESS and every RESIDENT. */
static bool simtgpu_ring_is_hung(struct simtgpu_ring *ring)
{
	struct simtgpu_device *sdev = ring->sdev;
	u32 resident[SIMTGPU_NUM_RINGS];
	unsigned int i;

	for (i = 0; i < SIMTGPU_NUM_RINGS; i++)
		resident[i] = simtgpu_ring_read(&sdev->rings[i],
						SIMTGPU_RING_RESIDENT);
	return simtgpu_ring_hung(&ring->watch, ring->index,
				 simtgpu_read64(sdev, SIMTGPU_RING_BASE(ring->index) +
						      SIMTGPU_RING_PROGRESS_LO),
				 simtgpu_ring_read(ring, SIMTGPU_RING_STATUS) ==
					 SIMTGPU_RING_STATUS_PARKED,
				 resident);
}

/*
 * Reset the whole device. @timedout is the job drm_sched timed out (and
 * took off its list); @culprit, if any, is the job that hung the engine.
 */
static void simtgpu_reset(struct simtgpu_device *sdev,
			  struct simtgpu_job *timedout,
			  struct simtgpu_culprit *culprit)
{
	struct drm_sched_job *timedout_base = &timedout->base;
	unsigned int i;

	for (i = 0; i < SIMTGPU_NUM_RINGS; i++) {
		struct drm_gpu_scheduler *sched = &sdev->rings[i].sched;

		drm_sched_stop(sched, sched == timedout_base->sched ?
					      timedout_base : NULL);
	}

	/* The schedulers are stopped: the culprit's fence cannot signal now,
	 * unless it finished before.
	 */
	if (culprit && !dma_fence_is_signaled(culprit->finished)) {
		dma_fence_set_error(culprit->finished, -ETIMEDOUT);
		simtgpu_queue_mark_guilty(culprit->queue);
	}

	trace_simtgpu_reset(-1, "hang");
	simtgpu_irq_disable(sdev);
	simtgpu_hw_reset(sdev);
	sdev->resets++;
	for (i = 0; i < SIMTGPU_NUM_RINGS; i++) {
		simtgpu_ring_signal_fences(&sdev->rings[i]);
		simtgpu_ring_cancel_fences(&sdev->rings[i], -ECANCELED,
					   false);
	}
	simtgpu_rings_hw_init(sdev);
	simtgpu_irq_enable(sdev);
	for (i = 0; i < SIMTGPU_NUM_RINGS; i++)
		sdev->rings[i].watch.progress = 0; /* the rings start again */

	for (i = 0; i < SIMTGPU_NUM_RINGS; i++) {
		drm_sched_resubmit_jobs(&sdev->rings[i].sched);
		drm_sched_start(&sdev->rings[i].sched, true);
	}
}

/*
 * drm_sched took the timed-out job off its pending list; put it back at the
 * head, where it was, for a job that is not hung after all (6.1 has no
 * "no hang" status; drm_sched_stop() and drm_sched_start() without a
 * resubmission would complete every job of the ring).
 */
static void simtgpu_sched_reinsert(struct drm_sched_job *sched_job)
{
	struct drm_gpu_scheduler *sched = sched_job->sched;

	spin_lock(&sched->job_list_lock);
	list_add(&sched_job->list, &sched->pending_list);
	spin_unlock(&sched->job_list_lock);
}

enum drm_gpu_sched_stat
simtgpu_timedout_job(struct drm_sched_job *sched_job)
{
	struct simtgpu_job *job = to_simtgpu_job(sched_job);
	struct simtgpu_ring *ring = to_simtgpu_ring(sched_job->sched);
	struct simtgpu_device *sdev = ring->sdev;
	struct simtgpu_culprit culprit;
	bool found;
	int idx;

	/*
	 * Slow is not hung: while this ring's PROGRESS moves, or it waits for
	 * SMs that another ring holds, it is not stuck. Gone is not hung
	 * either: the unplug completed every job on the rings.
	 */
	if (!drm_dev_enter(&sdev->drm, &idx)) {
		simtgpu_sched_reinsert(sched_job);
		return DRM_GPU_SCHED_STAT_ENODEV;
	}
	if (!simtgpu_ring_is_hung(ring) || !job->hw_fence ||
	    dma_fence_is_signaled(job->hw_fence)) {
		simtgpu_sched_reinsert(sched_job);
		drm_dev_exit(idx);
		return DRM_GPU_SCHED_STAT_NOMINAL;
	}

	if (ring->part) {
		simtgpu_partition_reset(ring->part, job);
		simtgpu_sched_reinsert(sched_job);
		drm_dev_exit(idx);
		return DRM_GPU_SCHED_STAT_NOMINAL;
	}
	found = simtgpu_find_culprit(ring, &culprit);
	if (found)
		drm_err(&sdev->drm,
			"GPU hang: pid=%d, name=%s, queue %u, %s: no progress for %u ms, resetting the GPU\n",
			culprit.pid, culprit.comm, culprit.queue->id,
			culprit.ring, simtgpu_timeout_ms);
	else
		drm_err(&sdev->drm,
			"GPU hang: no progress for %u ms, resetting the GPU\n",
			simtgpu_timeout_ms);
	simtgpu_reset(sdev, job, found ? &culprit : NULL);
	if (found) {
		dma_fence_put(culprit.finished);
		kref_put(&culprit.queue->refcount, simtgpu_queue_release_kref);
	}
	drm_dev_exit(idx);
	return DRM_GPU_SCHED_STAT_NOMINAL;
}
