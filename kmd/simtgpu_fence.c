// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The simtgpu authors */

/**
 * DOC: Hardware fences
 *
 * A dma_fence is the kernel's promise that some work will finish: anyone
 * may wait on it, add a callback, or hand it to userspace in a syncobj. For
 * every job it puts on a ring, run_job (simtgpu_sched.c) creates one
 * struct simtgpu_fence, the hardware fence, numbered by the ring's next
 * sequence number; drm_sched waits on it and signals the job's own
 * "finished" fence, which userspace and the buffers' reservation objects
 * see, once it signals.
 *
 * The device reports progress through memory, as most GPUs do: the job's
 * last packet, FENCE, writes its sequence number into the ring's 64-bit
 * slot of the fence page (in VRAM) and raises the fence interrupt. The
 * handler (simtgpu_irq.c) calls simtgpu_ring_signal_fences(), which reads
 * the slot and signals, in order, every pending fence whose number has been
 * reached. Each ring's fences share its spinlock and one fence context, so
 * their numbers give their order.
 *
 * On completion the fence also takes the job's device time from the two
 * TIMESTAMPs around its work (for fdinfo and the fair policy) and closes the
 * device's busy period for sysfs utilisation. After a reset or an unplug
 * nothing pending will complete, and simtgpu_ring_cancel_fences() finishes
 * the rest with an error.
 */

#include <linux/dma-fence.h>
#include <linux/io.h>
#include <linux/ktime.h>
#include <linux/spinlock.h>

#include "simtgpu_drv.h"
#include "simtgpu_trace.h"

static const char *simtgpu_fence_driver_name(struct dma_fence *fence)
{
	return SIMTGPU_DRIVER_NAME;
}

static const char *simtgpu_fence_timeline_name(struct dma_fence *fence)
{
	return container_of(fence, struct simtgpu_fence, base)->ring->name;
}

static void simtgpu_fence_release(struct dma_fence *fence)
{
	struct simtgpu_fence *f = container_of(fence, struct simtgpu_fence,
					       base);

	atomic_dec(&f->sdev->counts.fences);
	dma_fence_free(fence);
}

const struct dma_fence_ops simtgpu_fence_ops = {
	.get_driver_name = simtgpu_fence_driver_name,
	.get_timeline_name = simtgpu_fence_timeline_name,
	.release = simtgpu_fence_release,
};

void simtgpu_util_start(struct simtgpu_device *sdev, ktime_t now)
{
	unsigned long flags;

	spin_lock_irqsave(&sdev->util_lock, flags);
	if (sdev->active_jobs++ == 0)
		sdev->busy_since = now;
	spin_unlock_irqrestore(&sdev->util_lock, flags);
}

static void simtgpu_util_end(struct simtgpu_device *sdev, ktime_t now)
{
	unsigned long flags;

	spin_lock_irqsave(&sdev->util_lock, flags);
	if (!WARN_ON(!sdev->active_jobs) && --sdev->active_jobs == 0)
		sdev->busy_ns += ktime_to_ns(ktime_sub(now, sdev->busy_since));
	spin_unlock_irqrestore(&sdev->util_lock, flags);
}

/* Signal @f, with @error if non-zero; called with ring->lock held. */
static void simtgpu_fence_complete(struct simtgpu_ring *ring,
				   struct simtgpu_fence *f, int error)
{
	struct simtgpu_device *sdev = ring->sdev;
	u64 slot = simtgpu_job_time_slot(sdev->job_times, ring->index,
					 f->seqno);
	ktime_t now = ktime_get();
	u64 start = readq(sdev->vram + slot);

	/* Device time, from the job's TIMESTAMPs (0 if it was cancelled). */
	f->busy_ns = simtgpu_job_device_ns(start, readq(sdev->vram + slot + 8));
	trace_simtgpu_job_end(ring->index, f->seqno, f->busy_ns,
			      f->busy_ns ? start : 0, error);
	list_del(&f->link);
	if (error)
		dma_fence_set_error(&f->base, error);
	if (f->job)
		simtgpu_policy_job_done(sdev, &f->job->vm->sched, f->busy_ns);
	f->job = NULL;
	dma_fence_signal_locked(&f->base);
	simtgpu_util_end(ring->sdev, now);
	dma_fence_put(&f->base); /* the pending list's reference */
}

/* Fence interrupt: signal what the ring's fence slot says is done. */
void simtgpu_ring_signal_fences(struct simtgpu_ring *ring)
{
	u64 seqno = readq(ring->sdev->vram + ring->fence_offset);
	struct simtgpu_fence *f, *tmp;
	unsigned long flags;

	spin_lock_irqsave(&ring->lock, flags);
	if (seqno > ring->completed && seqno <= ring->emitted)
		ring->completed = seqno;
	list_for_each_entry_safe(f, tmp, &ring->pending, link) {
		if (f->seqno > ring->completed)
			break;
		simtgpu_fence_complete(ring, f, 0);
	}
	spin_unlock_irqrestore(&ring->lock, flags);
}

/*
 * After a reset or an unplug nothing on the ring will complete: finish its
 * fences with @error, and with @fail_jobs their jobs too (drm_sched does not
 * pass a hardware fence's error on). A reset does not fail the jobs: it
 * submits them again. Callers retire what did complete first, while the
 * hardware is there (simtgpu_ring_signal_fences()).
 */
void simtgpu_ring_cancel_fences(struct simtgpu_ring *ring, int error,
				bool fail_jobs)
{
	struct simtgpu_fence *f, *tmp;
	unsigned long flags;

	spin_lock_irqsave(&ring->lock, flags);
	list_for_each_entry_safe(f, tmp, &ring->pending, link) {
		if (fail_jobs && f->job)
			dma_fence_set_error(&f->job->base.s_fence->finished,
					    error);
		simtgpu_fence_complete(ring, f, error);
	}
	ring->completed = ring->emitted;
	spin_unlock_irqrestore(&ring->lock, flags);
}
