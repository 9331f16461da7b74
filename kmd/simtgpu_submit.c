// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The simtgpu authors */

/**
 * DOC: Submission
 *
 * SUBMIT turns userspace's request into a drm_sched job on one of the
 * file's queues: an indirect buffer (a GPU address and a length in dwords,
 * which must lie in memory mapped in the file's VM), the buffer objects it
 * uses, syncobjs to wait for and syncobjs to signal. The handler checks
 * what it can before touching anything (flags, sizes, counts and strides,
 * then the queue), copies the arrays in, and only then builds the job.
 *
 * Three kinds of waiting meet here. Explicit: each in-syncobj (with a point
 * on a timeline syncobj) gives a fence the job depends on. Implicit: unless
 * the submit says SIMTGPU_SUBMIT_NO_IMPLICIT_SYNC, the job also waits for
 * earlier jobs that use the same buffers, as the buffers' reservation
 * objects record them (a writer waits for every user, a reader only for
 * writers). And the policy's gate (simtgpu_policy.c), which drm_sched asks
 * once the others have signalled.
 *
 * Every reservation object the job touches is locked at once, with the
 * wound/wait protocol that lets two submits lock overlapping lists without
 * deadlock, and fence slots are reserved while they are held. After
 * drm_sched_job_arm() nothing may fail: the job's finished fence goes into
 * each buffer's reservation object (write or read, as listed), into the
 * VM's (so no buffer is freed while a job may still use it), and into each
 * out-syncobj, and the job is pushed to the queue's entity.
 */

#include <linux/dma-fence-chain.h>
#include <linux/dma-resv.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_gem.h>
#include <drm/drm_syncobj.h>

#include "simtgpu_drv.h"
#include "simtgpu_trace.h"

struct simtgpu_out_sync {
	struct drm_syncobj *syncobj;
	struct dma_fence_chain *chain;
	u64 point;
};

/* Lock every reservation object of a job, as drm_gem_lock_reservations(). */
static int simtgpu_lock_resvs(struct dma_resv **resvs, int count,
			      struct ww_acquire_ctx *ctx)
{
	int contended = -1;
	int i, j, ret;

	ww_acquire_init(ctx, &reservation_ww_class);
retry:
	if (contended != -1) {
		ret = dma_resv_lock_slow_interruptible(resvs[contended], ctx);
		if (ret) {
			ww_acquire_fini(ctx);
			return ret;
		}
	}
	for (i = 0; i < count; i++) {
		if (i == contended)
			continue;
		ret = dma_resv_lock_interruptible(resvs[i], ctx);
		if (ret) {
			for (j = 0; j < i; j++)
				dma_resv_unlock(resvs[j]);
			if (contended != -1 && contended >= i)
				dma_resv_unlock(resvs[contended]);
			if (ret == -EDEADLK) {
				contended = i;
				goto retry;
			}
			ww_acquire_fini(ctx);
			/* The same BO listed twice. */
			return ret == -EALREADY ? -EINVAL : ret;
		}
	}
	ww_acquire_done(ctx);
	return 0;
}

static void simtgpu_unlock_resvs(struct dma_resv **resvs, int count,
				 struct ww_acquire_ctx *ctx)
{
	int i;

	for (i = 0; i < count; i++)
		dma_resv_unlock(resvs[i]);
	ww_acquire_fini(ctx);
}

static int simtgpu_submit_lookup_bos(struct simtgpu_job *job,
				     struct drm_file *file,
				     const struct drm_simtgpu_submit *args,
				     u32 *write_mask_out)
{
	u32 i;

	job->bos = kvcalloc(args->bo_count, sizeof(*job->bos), GFP_KERNEL);
	if (!job->bos)
		return -ENOMEM;
	for (i = 0; i < args->bo_count; i++) {
		struct drm_simtgpu_bo_ref ref;
		u64 addr = args->bos + (u64)i * args->bo_stride;

		if (copy_from_user(&ref, u64_to_user_ptr(addr), sizeof(ref)))
			return -EFAULT;
		if (ref.flags & ~SIMTGPU_BO_REF_WRITE)
			return -EINVAL;
		job->bos[i] = drm_gem_object_lookup(file, ref.handle);
		if (!job->bos[i])
			return -ENOENT;
		job->bo_count = i + 1;
		if (ref.flags & SIMTGPU_BO_REF_WRITE)
			write_mask_out[i / 32] |= 1u << (i % 32);
	}
	return 0;
}

static int simtgpu_submit_in_syncs(struct simtgpu_job *job,
				   struct drm_file *file,
				   const struct drm_simtgpu_submit *args)
{
	u32 i;
	int ret;

	for (i = 0; i < args->in_sync_count; i++) {
		struct drm_simtgpu_sync sync;
		u64 addr = args->in_syncs + (u64)i * args->sync_stride;
		struct dma_fence *fence;

		if (copy_from_user(&sync, u64_to_user_ptr(addr), sizeof(sync)))
			return -EFAULT;
		if (sync.pad)
			return -EINVAL;
		ret = drm_syncobj_find_fence(file, sync.handle, sync.point, 0,
					     &fence);
		if (ret)
			return ret;
		ret = drm_sched_job_add_dependency(&job->base, fence);
		if (ret)
			return ret;
	}
	return 0;
}

static int simtgpu_submit_out_syncs(struct simtgpu_out_sync *out,
				    struct drm_file *file,
				    const struct drm_simtgpu_submit *args)
{
	u32 i;

	for (i = 0; i < args->out_sync_count; i++) {
		struct drm_simtgpu_sync sync;
		u64 addr = args->out_syncs + (u64)i * args->sync_stride;

		if (copy_from_user(&sync, u64_to_user_ptr(addr), sizeof(sync)))
			return -EFAULT;
		if (sync.pad)
			return -EINVAL;
		out[i].syncobj = drm_syncobj_find(file, sync.handle);
		if (!out[i].syncobj)
			return -ENOENT;
		out[i].point = sync.point;
		if (sync.point) {
			out[i].chain = dma_fence_chain_alloc();
			if (!out[i].chain)
				return -ENOMEM;
		}
	}
	return 0;
}

static void simtgpu_submit_put_out_syncs(struct simtgpu_out_sync *out,
					 u32 count)
{
	u32 i;

	for (i = 0; i < count; i++) {
		if (out[i].syncobj)
			drm_syncobj_put(out[i].syncobj);
		dma_fence_chain_free(out[i].chain);
	}
	kfree(out);
}

int simtgpu_ioctl_submit(struct drm_device *dev, void *data,
			 struct drm_file *file)
{
	struct simtgpu_device *sdev = to_simtgpu_device(dev);
	struct simtgpu_file_priv *fpriv = file->driver_priv;
	struct drm_simtgpu_submit *args = data;
	u32 write_mask[SIMTGPU_MAX_SUBMIT_BOS / 32] = { 0 };
	struct simtgpu_out_sync *out = NULL;
	struct ww_acquire_ctx ctx;
	struct dma_resv **resvs = NULL;
	struct simtgpu_queue *queue;
	struct simtgpu_job *job;
	struct dma_fence *done;
	u32 i, nresvs;
	int ret;

	ret = simtgpu_submit_check(args);
	if (ret)
		return ret;
	if (drm_dev_is_unplugged(dev))
		return -ENODEV;
	queue = simtgpu_queue_lookup(fpriv, args->queue_id);
	if (!queue)
		return -ENOENT;
	if (!simtgpu_queue_is_usable(queue)) {
		kref_put(&queue->refcount, simtgpu_queue_release_kref);
		return -ECANCELED;
	}
	if (!simtgpu_vm_range_mapped(fpriv->vm, args->ib_va,
				     (u64)args->ib_dwords * 4)) {
		kref_put(&queue->refcount, simtgpu_queue_release_kref);
		return -EINVAL;
	}

	job = kzalloc(sizeof(*job), GFP_KERNEL);
	if (!job) {
		kref_put(&queue->refcount, simtgpu_queue_release_kref);
		return -ENOMEM;
	}
	atomic_inc(&sdev->counts.jobs);
	job->queue = queue;
	job->vm = simtgpu_vm_get(fpriv->vm);
	job->ib_va = args->ib_va;
	job->ib_dwords = args->ib_dwords;
	job->pid = task_tgid_nr(current);
	get_task_comm(job->comm, current);

	ret = drm_sched_job_init(&job->base, &queue->entity, fpriv);
	if (ret) {
		/* free_job expects an initialised job: undo by hand. */
		simtgpu_vm_put(job->vm);
		kref_put(&queue->refcount, simtgpu_queue_release_kref);
		kfree(job);
		atomic_dec(&sdev->counts.jobs);
		return ret;
	}

	ret = simtgpu_submit_lookup_bos(job, file, args, write_mask);
	if (ret)
		goto err_job;
	ret = simtgpu_submit_in_syncs(job, file, args);
	if (ret)
		goto err_job;
	if (args->out_sync_count) {
		out = kcalloc(args->out_sync_count, sizeof(*out), GFP_KERNEL);
		if (!out) {
			ret = -ENOMEM;
			goto err_job;
		}
		ret = simtgpu_submit_out_syncs(out, file, args);
		if (ret)
			goto err_job;
	}

	/* The BOs' reservation objects, then the VM's (every job's fence). */
	nresvs = job->bo_count + 1;
	resvs = kvcalloc(nresvs, sizeof(*resvs), GFP_KERNEL);
	if (!resvs) {
		ret = -ENOMEM;
		goto err_job;
	}
	for (i = 0; i < job->bo_count; i++)
		resvs[i] = job->bos[i]->resv;
	resvs[job->bo_count] = &job->vm->resv;
	ret = simtgpu_lock_resvs(resvs, nresvs, &ctx);
	if (ret)
		goto err_job;
	for (i = 0; i < nresvs; i++) {
		ret = dma_resv_reserve_fences(resvs[i], 1);
		if (ret)
			goto err_unlock;
	}
	if (!(args->flags & SIMTGPU_SUBMIT_NO_IMPLICIT_SYNC)) {
		for (i = 0; i < job->bo_count; i++) {
			bool write = write_mask[i / 32] & (1u << (i % 32));

			ret = drm_sched_job_add_implicit_dependencies(&job->base,
								      job->bos[i],
								      write);
			if (ret)
				goto err_unlock;
		}
	}

	/* Nothing may fail from here on. */
	drm_sched_job_arm(&job->base);
	trace_simtgpu_submit(queue->id, job->pid, job->ib_va, job->ib_dwords);
	done = dma_fence_get(&job->base.s_fence->finished);
	for (i = 0; i < job->bo_count; i++) {
		bool write = write_mask[i / 32] & (1u << (i % 32));

		dma_resv_add_fence(resvs[i], done,
				   write ? DMA_RESV_USAGE_WRITE :
					   DMA_RESV_USAGE_READ);
	}
	dma_resv_add_fence(&job->vm->resv, done, DMA_RESV_USAGE_BOOKKEEP);
	simtgpu_policy_job_queued(sdev, &job->vm->sched);
	job->counted = true;
	drm_sched_entity_push_job(&job->base);
	simtgpu_unlock_resvs(resvs, nresvs, &ctx);
	kvfree(resvs);

	for (i = 0; i < args->out_sync_count; i++) {
		if (out[i].point) {
			drm_syncobj_add_point(out[i].syncobj, out[i].chain,
					      done, out[i].point);
			out[i].chain = NULL;
		} else {
			drm_syncobj_replace_fence(out[i].syncobj, done);
		}
	}
	dma_fence_put(done);
	if (out)
		simtgpu_submit_put_out_syncs(out, args->out_sync_count);
	return 0;

err_unlock:
	simtgpu_unlock_resvs(resvs, nresvs, &ctx);
err_job:
	kvfree(resvs);
	if (out)
		simtgpu_submit_put_out_syncs(out, args->out_sync_count);
	simtgpu_free_job(&job->base);
	return ret;
}
