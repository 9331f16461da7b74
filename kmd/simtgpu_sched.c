// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The simtgpu authors */

/**
 * DOC: Job submission, rings and recovery
 *
 * The device has SIMTGPU_NUM_RINGS kernel rings; each is fed by its own
 * drm_gpu_scheduler. A userspace queue (simtgpu_queue.c) is a drm_sched
 * entity whose priority class picks its rings: low-priority queues use
 * ring 0, normal ones rings 1 and 2 (drm_sched balances an idle entity onto
 * the less busy one), high ones ring 3. The ring's PRIORITY register tells
 * the device's command processor the same class.
 *
 * Each job becomes three packets on its ring: SET_CONTEXT (the file's page
 * tables, context id = the file's client id), INDIRECT (the user's buffer,
 * run at user privilege) and FENCE (PHYSICAL | IRQ) writing the ring's next
 * sequence number into the ring's slot of the fence page. The fence
 * interrupt reads the slots and signals every hardware fence whose number
 * has been reached (simtgpu_fence.c).
 *
 * What happens when a job fails, hangs or does not yield its SMs, down to
 * resetting the device, is in simtgpu_reset.c.
 */

#include <linux/delay.h>
#include <linux/dma-fence-chain.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_print.h>
#include <drm/drm_syncobj.h>

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

/* ------------------------------------------------------------- rings --- */

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

static void simtgpu_free_job(struct drm_sched_job *sched_job)
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

/* ------------------------------------------------------------ submit --- */

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

static int simtgpu_submit_check(const struct drm_simtgpu_submit *args)
{
	if (args->extensions || (args->flags & ~SIMTGPU_SUBMIT_FLAGS))
		return -EINVAL;
	if (!args->ib_dwords || args->ib_dwords > SIMTGPU_MAX_IB_DWORDS ||
	    (args->ib_va & 3))
		return -EINVAL;
	if (args->bo_count > SIMTGPU_MAX_SUBMIT_BOS ||
	    args->in_sync_count > SIMTGPU_MAX_SUBMIT_SYNCS ||
	    args->out_sync_count > SIMTGPU_MAX_SUBMIT_SYNCS)
		return -EINVAL;
	if (args->bo_count &&
	    args->bo_stride < sizeof(struct drm_simtgpu_bo_ref))
		return -EINVAL;
	if ((args->in_sync_count || args->out_sync_count) &&
	    args->sync_stride < sizeof(struct drm_simtgpu_sync))
		return -EINVAL;
	return 0;
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
