// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The simtgpu authors */

/**
 * DOC: Queues
 *
 * A queue is what CUDA calls a stream: jobs submitted to one queue run in
 * order, jobs of different queues may overlap. QUEUE_CREATE makes one for
 * the calling file with a priority class; its id indexes the file's xarray
 * (ids from 1, at most SIMTGPU_MAX_QUEUES_PER_FILE), and SUBMIT and
 * QUEUE_DESTROY name it. Underneath, a queue is a drm_sched entity: the
 * scheduler takes its jobs in order and feeds them to the rings the entity
 * may use (simtgpu_sched.c). The class picks those rings: ring 0 for low
 * priority, rings 1 and 2 for normal (drm_sched puts an idle entity on the
 * less busy one), ring 3 for high. A partition's queues all go to its own
 * ring, and the whole GPU refuses new queues while it is partitioned.
 *
 * A queue also keeps its health for QUEUE_GET_STATE: the first GPU
 * exception of one of its jobs marks it faulted, a hang or a preemption
 * that never drains marks it guilty (simtgpu_reset.c). Either way it is broken for good, as a CUDA
 * context stays broken after an illegal address: new submissions fail with
 * -ECANCELED, and so do its jobs still queued behind the failure.
 *
 * The queue is reference counted: the file's xarray holds one reference
 * and every job another, so a queue destroyed (or whose file closed) while
 * its jobs are on the rings lives until the last of them is freed.
 */

#include <linux/kref.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/xarray.h>
#include <drm/drm_file.h>

#include "simtgpu_drv.h"

void simtgpu_queue_mark_faulted(struct simtgpu_queue *queue,
				const struct drm_simtgpu_fault_info *fault)
{
	unsigned long flags;

	spin_lock_irqsave(&queue->state_lock, flags);
	simtgpu_queue_record_fault(&queue->health, fault);
	spin_unlock_irqrestore(&queue->state_lock, flags);
}

void simtgpu_queue_mark_guilty(struct simtgpu_queue *queue)
{
	unsigned long flags;

	spin_lock_irqsave(&queue->state_lock, flags);
	simtgpu_queue_record_hang(&queue->health);
	spin_unlock_irqrestore(&queue->state_lock, flags);
}

bool simtgpu_queue_is_usable(struct simtgpu_queue *queue)
{
	unsigned long flags;
	bool usable;

	spin_lock_irqsave(&queue->state_lock, flags);
	usable = simtgpu_queue_usable(&queue->health);
	spin_unlock_irqrestore(&queue->state_lock, flags);
	return usable;
}

void simtgpu_queue_release_kref(struct kref *kref)
{
	struct simtgpu_queue *queue = container_of(kref, struct simtgpu_queue,
						   refcount);

	atomic_dec(&queue->sdev->counts.queues);
	kfree(queue);
}

int simtgpu_ioctl_queue_create(struct drm_device *dev, void *data,
			       struct drm_file *file)
{
	static const enum drm_sched_priority sched_priority[] = {
		[SIMTGPU_PRIORITY_LOW] = DRM_SCHED_PRIORITY_MIN,
		[SIMTGPU_PRIORITY_NORMAL] = DRM_SCHED_PRIORITY_NORMAL,
		[SIMTGPU_PRIORITY_HIGH] = DRM_SCHED_PRIORITY_HIGH,
	};
	struct simtgpu_device *sdev = to_simtgpu_device(dev);
	struct simtgpu_file_priv *fpriv = file->driver_priv;
	struct drm_simtgpu_queue_create *args = data;
	struct simtgpu_queue *queue;
	unsigned int first, nscheds, i;
	u32 id;
	int ret;

	if (args->flags || args->pad || args->priority > SIMTGPU_PRIORITY_HIGH)
		return -EINVAL;

	queue = kzalloc(sizeof(*queue), GFP_KERNEL);
	if (!queue)
		return -ENOMEM;
	kref_init(&queue->refcount);
	spin_lock_init(&queue->state_lock);
	queue->sdev = sdev;
	queue->priority = args->priority;
	/* In ring order: drm_sched_pick_best() takes the first on a tie. */
	first = simtgpu_class_first_ring(args->priority);
	nscheds = simtgpu_class_ring_count(args->priority);
	/*
	 * A partition's queues all go to its ring; the whole GPU has none
	 * while partitioned. Counted under part_lock: partitions are made
	 * only while no queue exists.
	 */
	mutex_lock(&sdev->part_lock);
	if (fpriv->part) {
		first = fpriv->part->ring->index;
		nscheds = 1;
	} else if (sdev->num_parts) {
		nscheds = 0;
	}
	for (i = 0; i < nscheds; i++)
		queue->scheds[i] = &sdev->rings[first + i].sched;
	ret = nscheds ? drm_sched_entity_init(&queue->entity,
					      sched_priority[args->priority],
					      queue->scheds, nscheds, NULL) :
			-EBUSY;
	if (!ret)
		atomic_inc(&sdev->counts.queues);
	mutex_unlock(&sdev->part_lock);
	if (ret) {
		kfree(queue);
		return ret;
	}

	mutex_lock(&fpriv->queues_lock);
	ret = xa_alloc(&fpriv->queues, &id, queue,
		       XA_LIMIT(1, SIMTGPU_MAX_QUEUES_PER_FILE), GFP_KERNEL);
	if (!ret)
		queue->id = id;
	mutex_unlock(&fpriv->queues_lock);
	if (ret) {
		drm_sched_entity_destroy(&queue->entity);
		kref_put(&queue->refcount, simtgpu_queue_release_kref);
		return ret;
	}
	args->queue_id = id;
	return 0;
}

static void simtgpu_queue_destroy(struct simtgpu_queue *queue)
{
	/* Waits a while for queued jobs to reach the rings, then cancels
	 * the rest; jobs on the rings hold their own reference.
	 */
	drm_sched_entity_destroy(&queue->entity);
	kref_put(&queue->refcount, simtgpu_queue_release_kref);
}

int simtgpu_ioctl_queue_destroy(struct drm_device *dev, void *data,
				struct drm_file *file)
{
	struct simtgpu_file_priv *fpriv = file->driver_priv;
	struct drm_simtgpu_queue_destroy *args = data;
	struct simtgpu_queue *queue;

	if (args->pad)
		return -EINVAL;
	mutex_lock(&fpriv->queues_lock);
	queue = xa_erase(&fpriv->queues, args->queue_id);
	mutex_unlock(&fpriv->queues_lock);
	if (!queue)
		return -ENOENT;
	simtgpu_queue_destroy(queue);
	return 0;
}

void simtgpu_queues_destroy_all(struct simtgpu_file_priv *fpriv)
{
	struct simtgpu_queue *queue;
	unsigned long id;

	xa_for_each(&fpriv->queues, id, queue) {
		xa_erase(&fpriv->queues, id);
		simtgpu_queue_destroy(queue);
	}
}

struct simtgpu_queue *simtgpu_queue_lookup(struct simtgpu_file_priv *fpriv,
					   u32 id)
{
	struct simtgpu_queue *queue;

	mutex_lock(&fpriv->queues_lock);
	queue = xa_load(&fpriv->queues, id);
	if (queue)
		kref_get(&queue->refcount);
	mutex_unlock(&fpriv->queues_lock);
	return queue;
}

int simtgpu_ioctl_queue_get_state(struct drm_device *dev, void *data,
				  struct drm_file *file)
{
	struct simtgpu_file_priv *fpriv = file->driver_priv;
	struct drm_simtgpu_queue_get_state *args = data;
	struct simtgpu_queue *queue;
	unsigned long flags;

	if (args->pad)
		return -EINVAL;
	queue = simtgpu_queue_lookup(fpriv, args->queue_id);
	if (!queue)
		return -ENOENT;
	spin_lock_irqsave(&queue->state_lock, flags);
	args->state = queue->health.state;
	args->last_error = queue->health.last_error;
	args->fault = queue->health.fault;
	spin_unlock_irqrestore(&queue->state_lock, flags);
	kref_put(&queue->refcount, simtgpu_queue_release_kref);
	return 0;
}
