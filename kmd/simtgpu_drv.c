// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The simtgpu authors */

/**
 * DOC: simtgpu driver overview
 *
 * simtgpu drives the simulated SIMT GPU that QEMU exposes as PCI device
 * 1234:5347 (include/simtgpu/hw.h, docs/hardware.md). It is a render-only
 * DRM driver: userspace opens /dev/dri/renderD*, allocates buffer objects in
 * VRAM (simtgpu_bo.c, over the allocator of simtgpu_vram.c), each mapped
 * into the file's own GPU address space (simtgpu_vm.c), and submits
 * indirect buffers (simtgpu_submit.c) to queues (simtgpu_queue.c) that
 * drm_sched feeds into the device's kernel rings (simtgpu_sched.c).
 * Interrupts (simtgpu_irq.c) signal fences (simtgpu_fence.c) and report GPU
 * exceptions; failed and hung jobs and resets are simtgpu_reset.c's.
 * Managed memory moves pages between host memory and VRAM on CPU and GPU
 * page faults (simtgpu_managed.c). The device's sysfs files are in
 * simtgpu_sysfs.c.
 *
 * This file holds the PCI probe and remove, GET_PARAM, per-file setup and
 * fdinfo. Everything probe sets up is a managed resource (devm/pcim/drmm,
 * or a devm action), so a failed probe and a remove unwind in the reverse
 * order.
 */

#include <linux/stringify.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_managed.h>
#include <drm/drm_print.h>

#include "simtgpu_drv.h"

unsigned int simtgpu_timeout_ms = SIMTGPU_DEFAULT_TIMEOUT_MS;
module_param_named(timeout_ms, simtgpu_timeout_ms, uint, 0444);
MODULE_PARM_DESC(timeout_ms,
		 "Job timeout in ms of host time before an engine reset (default 20000: a simulated GPU is slow)");

unsigned int simtgpu_preempt_timeout_ms = 100;
module_param_named(preempt_timeout_ms, simtgpu_preempt_timeout_ms, uint, 0444);
MODULE_PARM_DESC(preempt_timeout_ms,
		 "Device ms a preempted ring has to park before only that ring is reset (default 100; 0: no bound)");

unsigned int simtgpu_vram_limit_mb = SIMTGPU_DEFAULT_VRAM_LIMIT_MB;
module_param_named(vram_limit_mb, simtgpu_vram_limit_mb, uint, 0644);
MODULE_PARM_DESC(vram_limit_mb,
		 "VRAM each open file may allocate, in MiB (0 = no limit; read at open)");

static atomic64_t simtgpu_next_client_id = ATOMIC64_INIT(0);

u64 simtgpu_read64(struct simtgpu_device *sdev, u32 reg_lo)
{
	u32 lo = simtgpu_read(sdev, reg_lo); /* latches the high half */

	return ((u64)simtgpu_read(sdev, reg_lo + 4) << 32) | lo;
}

/* ------------------------------------------------------- GET_PARAM --- */

static int simtgpu_ioctl_get_param(struct drm_device *dev, void *data,
				   struct drm_file *file)
{
	struct simtgpu_device *sdev = to_simtgpu_device(dev);
	struct simtgpu_partition *part = to_simtgpu_partition(dev);
	struct simtgpu_file_priv *fpriv = file->driver_priv;
	struct drm_simtgpu_get_param *args = data;
	int idx, ret = 0;
	u32 reg;

	if (args->pad)
		return -EINVAL;
	if (!drm_dev_enter(dev, &idx))
		return -ENODEV;

	/* Constants and registers as the shared policy lists them. */
	if (simtgpu_param_constant(args))
		goto out;
	if (args->param == SIMTGPU_PARAM_NUM_SMS && part) {
		args->value = part->sm_count;
		goto out;
	}
	if (simtgpu_param_register(args->param, sdev->hw_version, &reg)) {
		args->value = reg ? simtgpu_read(sdev, reg) : 0;
		goto out;
	}

	switch (args->param) {
	case SIMTGPU_PARAM_VRAM_SIZE:
		args->value = part ? part->vram_size : sdev->vram_size;
		break;
	case SIMTGPU_PARAM_VRAM_USED:
		mutex_lock(&sdev->mm_lock);
		args->value = part ? part->vram_used : sdev->vram_used;
		mutex_unlock(&sdev->mm_lock);
		break;
	case SIMTGPU_PARAM_PARTITION:
		args->value = part ? part->id + 1 : 0;
		break;
	case SIMTGPU_PARAM_NUM_PARTITIONS:
		args->value = READ_ONCE(sdev->num_parts);
		break;
	case SIMTGPU_PARAM_VRAM_LIMIT:
		args->value = fpriv->vm->vram_limit;
		break;
	case SIMTGPU_PARAM_TIMESTAMP:
		args->value = simtgpu_read64(sdev, SIMTGPU_REG_TIMER_LO);
		break;
	case SIMTGPU_PARAM_MANAGED_GPU_FAULTS:
		args->value = atomic64_read(&fpriv->vm->managed.gpu_faults);
		break;
	case SIMTGPU_PARAM_MANAGED_TO_VRAM:
		args->value = atomic64_read(&fpriv->vm->managed.to_vram);
		break;
	case SIMTGPU_PARAM_MANAGED_TO_HOST:
		args->value = atomic64_read(&fpriv->vm->managed.to_host);
		break;
	case SIMTGPU_PARAM_MANAGED_DUPLICATED:
		args->value = atomic64_read(&fpriv->vm->managed.duplicated);
		break;
	case SIMTGPU_PARAM_MANAGED_REMOTE:
		args->value = atomic64_read(&fpriv->vm->managed.remote);
		break;
	case SIMTGPU_PARAM_MANAGED_EVICTED:
		args->value = atomic64_read(&fpriv->vm->managed.evicted);
		break;
	case SIMTGPU_PARAM_CGROUP_VRAM_MAX:
	case SIMTGPU_PARAM_CGROUP_VRAM_CURRENT: {
		u64 max, cur;

		simtgpu_cg_limit(fpriv->vm->cg, &max, &cur);
		args->value = args->param == SIMTGPU_PARAM_CGROUP_VRAM_MAX ?
			      max : cur;
		break;
	}
	default:
		ret = -EINVAL;
		break;
	}
out:
	drm_dev_exit(idx);
	return ret;
}

/* ------------------------------------------------------ open / close --- */

static int simtgpu_open(struct drm_device *dev, struct drm_file *file)
{
	struct simtgpu_device *sdev = to_simtgpu_device(dev);
	struct simtgpu_partition *part = to_simtgpu_partition(dev);
	struct simtgpu_file_priv *fpriv;

	if (part) { /* counted first: destroy waits for no file to be open */
		bool gone;

		mutex_lock(&sdev->clients_lock);
		gone = part->dying;
		if (!gone)
			part->clients++;
		mutex_unlock(&sdev->clients_lock);
		if (gone)
			return -ENODEV;
	}
	fpriv = kzalloc(sizeof(*fpriv), GFP_KERNEL);
	if (!fpriv)
		goto err_part;
	fpriv->sdev = sdev;
	fpriv->part = part;
	fpriv->client_id = atomic64_inc_return(&simtgpu_next_client_id);
	fpriv->pid = task_tgid_nr(current);
	get_task_comm(fpriv->comm, current);
	mutex_init(&fpriv->queues_lock);
	xa_init_flags(&fpriv->queues, XA_FLAGS_ALLOC1);

	fpriv->vm = simtgpu_vm_create(sdev, part, (u32)fpriv->client_id);
	if (IS_ERR(fpriv->vm)) {
		int ret = PTR_ERR(fpriv->vm);

		kfree(fpriv);
		if (part) {
			mutex_lock(&sdev->clients_lock);
			part->clients--;
			mutex_unlock(&sdev->clients_lock);
		}
		return ret;
	}
	fpriv->vm->sched.partition = part ? part->id + 1 : 0;
	fpriv->vm->vram_limit = (u64)READ_ONCE(simtgpu_vram_limit_mb) << 20;
	simtgpu_policy_client_add(sdev, &fpriv->vm->sched,
				  simtgpu_cg_weight(fpriv->vm->cg));

	mutex_lock(&sdev->clients_lock);
	list_add_tail(&fpriv->link, &sdev->clients);
	mutex_unlock(&sdev->clients_lock);
	file->driver_priv = fpriv;
	return 0;

err_part:
	if (part) {
		mutex_lock(&sdev->clients_lock);
		part->clients--;
		mutex_unlock(&sdev->clients_lock);
	}
	return -ENOMEM;
}

static void simtgpu_postclose(struct drm_device *dev, struct drm_file *file)
{
	struct simtgpu_device *sdev = to_simtgpu_device(dev);
	struct simtgpu_file_priv *fpriv = file->driver_priv;

	simtgpu_queues_destroy_all(fpriv);
	simtgpu_policy_client_remove(sdev, &fpriv->vm->sched);
	mutex_lock(&sdev->clients_lock);
	list_del(&fpriv->link);
	if (fpriv->part)
		fpriv->part->clients--;
	mutex_unlock(&sdev->clients_lock);
	/* BOs still referenced (mmaps, jobs) keep the VM alive. */
	simtgpu_vm_put(fpriv->vm);
	xa_destroy(&fpriv->queues);
	mutex_destroy(&fpriv->queues_lock);
	kfree(fpriv);
}

/*
 * The sharing view, as driver-specific keys (drm-usage-stats.rst): the
 * policy in force and this client's figures under it, its cgroup, and the
 * VRAM limit that applies there with the usage it is counted against.
 */
static void simtgpu_show_fdinfo_sharing(struct seq_file *m,
					struct simtgpu_device *sdev,
					struct simtgpu_file_priv *fpriv)
{
	struct simtgpu_client_sched cs;
	unsigned long flags;
	char path[128];
	u64 max, cur;

	spin_lock_irqsave(&sdev->sched_lock, flags);
	cs = fpriv->vm->sched;
	spin_unlock_irqrestore(&sdev->sched_lock, flags);
	if (fpriv->part)
		seq_printf(m, "simtgpu-partition:\t%u\n", fpriv->part->id);
	seq_printf(m, "simtgpu-policy:\t%s\n", simtgpu_policy_current(sdev));
	seq_printf(m, "simtgpu-weight:\t%u\n", cs.weight);
	seq_printf(m, "simtgpu-vtime:\t%llu ns\n", cs.vtime_ns);
	seq_printf(m, "simtgpu-gpu-time:\t%llu ns\n", cs.busy_ns);
	seq_printf(m, "simtgpu-slices:\t%llu\n", cs.slices);
	seq_printf(m, "simtgpu-preemptions:\t%llu\n", cs.preemptions);
	seq_printf(m, "simtgpu-fair-grace:\t%llu ns\n",
		   simtgpu_fair_grace_ns(cs.round_trip_ns));
	if (simtgpu_cg_path(fpriv->vm->cg, path, sizeof(path)) < 0)
		strscpy(path, "?", sizeof(path));
	seq_printf(m, "simtgpu-cgroup:\t%s\n", path);
	simtgpu_cg_limit(fpriv->vm->cg, &max, &cur);
	if (max == SIMTGPU_DMEM_MAX_NONE)
		seq_puts(m, "simtgpu-cgroup-vram-max:\tmax\n");
	else
		seq_printf(m, "simtgpu-cgroup-vram-max:\t%llu KiB\n", max >> 10);
	seq_printf(m, "simtgpu-cgroup-vram-current:\t%llu KiB\n", cur >> 10);
}

/* drm_show_fdinfo() only arrived in 6.5: print the DRM fdinfo keys here. */
static void simtgpu_show_fdinfo(struct seq_file *m, struct file *f)
{
	static const char *const class_names[SIMTGPU_PRIORITY_COUNT] = {
		"low", "normal", "high"
	};
	struct drm_file *file = f->private_data;
	struct simtgpu_device *sdev = to_simtgpu_device(file->minor->dev);
	struct simtgpu_file_priv *fpriv = file->driver_priv;
	int i;

	seq_printf(m, "drm-driver:\t%s\n", SIMTGPU_DRIVER_NAME);
	seq_printf(m, "drm-pdev:\t%s\n", pci_name(sdev->pdev));
	seq_printf(m, "drm-client-id:\t%llu\n", fpriv->client_id);
	for (i = 0; i < SIMTGPU_PRIORITY_COUNT; i++)
		seq_printf(m, "drm-engine-%s:\t%llu ns\n", class_names[i],
			   (u64)atomic64_read(&fpriv->vm->engine_ns[i]));
	seq_printf(m, "drm-memory-vram:\t%llu KiB\n",
		   (u64)atomic64_read(&fpriv->vm->vram_bytes) >> 10);
	simtgpu_show_fdinfo_sharing(m, sdev, fpriv);
}

static const struct file_operations simtgpu_fops = {
	.owner = THIS_MODULE,
	DRM_GEM_FOPS,
	.show_fdinfo = simtgpu_show_fdinfo,
};

static const struct drm_ioctl_desc simtgpu_ioctls[] = {
	DRM_IOCTL_DEF_DRV(SIMTGPU_GET_PARAM, simtgpu_ioctl_get_param,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(SIMTGPU_BO_CREATE, simtgpu_ioctl_bo_create,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(SIMTGPU_BO_MMAP_OFFSET, simtgpu_ioctl_bo_mmap_offset,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(SIMTGPU_BO_INFO, simtgpu_ioctl_bo_info,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(SIMTGPU_SUBMIT, simtgpu_ioctl_submit,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(SIMTGPU_WAIT_BO, simtgpu_ioctl_wait_bo,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(SIMTGPU_QUEUE_CREATE, simtgpu_ioctl_queue_create,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(SIMTGPU_QUEUE_DESTROY, simtgpu_ioctl_queue_destroy,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(SIMTGPU_QUEUE_GET_STATE,
			  simtgpu_ioctl_queue_get_state, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(SIMTGPU_BO_USERPTR, simtgpu_ioctl_bo_userptr,
			  DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(SIMTGPU_MANAGED_PREFETCH,
			  simtgpu_ioctl_managed_prefetch, DRM_RENDER_ALLOW),
	DRM_IOCTL_DEF_DRV(SIMTGPU_MANAGED_ADVISE,
			  simtgpu_ioctl_managed_advise, DRM_RENDER_ALLOW),
};

static const struct drm_driver simtgpu_drm_driver = {
	.driver_features = DRIVER_GEM | DRIVER_RENDER | DRIVER_SYNCOBJ |
			   DRIVER_SYNCOBJ_TIMELINE,
	.open = simtgpu_open,
	.postclose = simtgpu_postclose,
	.ioctls = simtgpu_ioctls,
	.num_ioctls = ARRAY_SIZE(simtgpu_ioctls),
	.fops = &simtgpu_fops,
#ifdef CONFIG_DEBUG_FS
	.debugfs_init = simtgpu_debugfs_init,
#endif
	.name = SIMTGPU_DRIVER_NAME,
	.desc = "simtgpu simulated SIMT GPU",
	.date = "20261202",
	.major = SIMTGPU_UAPI_VERSION_MAJOR,
	.minor = SIMTGPU_UAPI_VERSION_MINOR,
};

/*
 * A partition's DRM device (simtgpu_partition.c): the same ioctls and
 * files on its own render node; no debugfs of its own (the whole GPU's
 * shows everything).
 */
const struct drm_driver simtgpu_partition_driver = {
	.driver_features = DRIVER_GEM | DRIVER_RENDER | DRIVER_SYNCOBJ |
			   DRIVER_SYNCOBJ_TIMELINE,
	.open = simtgpu_open,
	.postclose = simtgpu_postclose,
	.ioctls = simtgpu_ioctls,
	.num_ioctls = ARRAY_SIZE(simtgpu_ioctls),
	.fops = &simtgpu_fops,
	.name = SIMTGPU_DRIVER_NAME,
	.desc = "simtgpu simulated SIMT GPU, partition",
	.date = "20261202",
	.major = SIMTGPU_UAPI_VERSION_MAJOR,
	.minor = SIMTGPU_UAPI_VERSION_MINOR,
};

/* ------------------------------------------------------ probe/remove --- */

static int simtgpu_hw_check_id(struct simtgpu_device *sdev)
{
	u32 id = simtgpu_read(sdev, SIMTGPU_REG_ID);

	if (id != SIMTGPU_ID_MAGIC) {
		drm_err(&sdev->drm, "no simtgpu behind BAR0 (id %#x)\n", id);
		return -ENODEV;
	}
	return 0;
}

static int simtgpu_hw_identify(struct simtgpu_device *sdev)
{
	u64 vram_reg;

	sdev->hw_version = simtgpu_read(sdev, SIMTGPU_REG_HW_VERSION);
	if ((sdev->hw_version >> 16) != SIMTGPU_HW_VERSION_MAJOR) {
		drm_err(&sdev->drm, "hardware interface %u.%u, driver speaks %u.x\n",
			sdev->hw_version >> 16, sdev->hw_version & 0xffff,
			SIMTGPU_HW_VERSION_MAJOR);
		return -ENODEV;
	}
	/* A register sanity check before trusting anything else. */
	simtgpu_write(sdev, SIMTGPU_REG_SCRATCH, 0x5a5aa5a5);
	if (simtgpu_read(sdev, SIMTGPU_REG_SCRATCH) != 0x5a5aa5a5) {
		drm_err(&sdev->drm, "scratch register does not hold a value\n");
		return -ENODEV;
	}
	if (simtgpu_read(sdev, SIMTGPU_REG_NUM_RINGS) < SIMTGPU_NUM_RINGS) {
		drm_err(&sdev->drm, "device has fewer than %d rings\n",
			SIMTGPU_NUM_RINGS);
		return -ENODEV;
	}

	sdev->arch = simtgpu_read(sdev, SIMTGPU_REG_ARCH);
	sdev->caps = simtgpu_read(sdev, SIMTGPU_REG_CAPS);
	sdev->num_sms = simtgpu_read(sdev, SIMTGPU_REG_NUM_SMS);
	sdev->warps_per_sm = simtgpu_read(sdev, SIMTGPU_REG_WARPS_PER_SM);
	sdev->warp_size = simtgpu_read(sdev, SIMTGPU_REG_WARP_SIZE);
	sdev->clock_khz = simtgpu_read(sdev, SIMTGPU_REG_CLOCK_KHZ);
	/* The device's own list may be shorter (an older one) or longer. */
	sdev->num_counters = min_t(u32, SIMTGPU_NUM_COUNTERS,
				   simtgpu_read(sdev, SIMTGPU_REG_NUM_COUNTERS));

	vram_reg = simtgpu_read64(sdev, SIMTGPU_REG_VRAM_SIZE_LO);
	sdev->vram_size = min_t(u64, vram_reg,
				pci_resource_len(sdev->pdev, SIMTGPU_BAR_VRAM));
	sdev->vram_size = rounddown_pow_of_two(sdev->vram_size);
	if (sdev->vram_size < SZ_4M) {
		drm_err(&sdev->drm, "only %llu bytes of VRAM\n",
			sdev->vram_size);
		return -ENODEV;
	}
	return 0;
}

/*
 * What the driver builds on top of the device lives as long as the DRM
 * device (drmm): after a hot unplug, open files may still hold BOs, queues
 * and jobs, and release them later.
 */
static void simtgpu_buddy_fini(struct drm_device *drm, void *data)
{
	struct simtgpu_device *sdev = data;

	drm_buddy_fini(&sdev->mm);
}

static void simtgpu_reset_wq_fini(struct drm_device *drm, void *data)
{
	struct simtgpu_device *sdev = data;

	destroy_workqueue(sdev->reset_wq);
}

static void simtgpu_free_wq_fini(struct drm_device *drm, void *data)
{
	struct simtgpu_device *sdev = data;

	destroy_workqueue(sdev->free_wq); /* runs what is still queued */
}

static void simtgpu_fence_page_fini(struct drm_device *drm, void *data)
{
	struct simtgpu_device *sdev = data;

	simtgpu_vram_free(sdev, &sdev->fence_vram);
}

static void simtgpu_cgroup_fini_action(struct drm_device *drm, void *data)
{
	simtgpu_cgroup_fini(data);
}

static void simtgpu_rings_fini_action(struct drm_device *drm, void *data)
{
	simtgpu_rings_fini(data);
}

static void simtgpu_policy_fini_action(struct drm_device *drm, void *data)
{
	simtgpu_policy_fini(data);
}

static int simtgpu_map_bars(struct simtgpu_device *sdev)
{
	struct pci_dev *pdev = sdev->pdev;
	struct device *dev = &pdev->dev;
	resource_size_t start, len;
	int ret;

	if (pci_resource_len(pdev, SIMTGPU_BAR_REGS) < SIMTGPU_REGS_SIZE ||
	    !(pci_resource_flags(pdev, SIMTGPU_BAR_VRAM) & IORESOURCE_MEM))
		return -ENODEV;

	ret = pcim_iomap_regions(pdev, BIT(SIMTGPU_BAR_REGS),
				 SIMTGPU_DRIVER_NAME);
	if (ret)
		return ret;
	sdev->regs = pcim_iomap_table(pdev)[SIMTGPU_BAR_REGS];

	start = pci_resource_start(pdev, SIMTGPU_BAR_VRAM);
	len = pci_resource_len(pdev, SIMTGPU_BAR_VRAM);
	if (!devm_request_mem_region(dev, start, len, "simtgpu-vram"))
		return -EBUSY;
	sdev->vram = devm_ioremap_wc(dev, start, len);
	if (!sdev->vram)
		return -ENOMEM;
	sdev->vram_bus = start;
	return 0;
}

static int simtgpu_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct device *dev = &pdev->dev;
	struct simtgpu_device *sdev;
	int ret;

	sdev = devm_drm_dev_alloc(dev, &simtgpu_drm_driver,
				  struct simtgpu_device, drm);
	if (IS_ERR(sdev))
		return PTR_ERR(sdev);
	sdev->pdev = pdev;
	pci_set_drvdata(pdev, sdev);
	mutex_init(&sdev->mm_lock);
	mutex_init(&sdev->clear_lock);
	mutex_init(&sdev->part_lock);
	mutex_init(&sdev->clients_lock);
	INIT_LIST_HEAD(&sdev->clients);
	xa_init(&sdev->vms);
	INIT_LIST_HEAD(&sdev->fence_vram);
	spin_lock_init(&sdev->util_lock);
	sdev->util_last_time = ktime_get();

	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	pci_set_master(pdev);
	ret = dma_set_mask_and_coherent(dev, DMA_BIT_MASK(64));
	if (ret)
		return ret;
	ret = simtgpu_map_bars(sdev);
	if (ret)
		return ret;

	ret = simtgpu_hw_check_id(sdev);
	if (ret)
		return ret;
	ret = simtgpu_hw_reset(sdev);
	if (ret)
		return ret;
	ret = simtgpu_hw_identify(sdev);
	if (ret)
		return ret;

	sdev->vram_shared_end = sdev->vram_size;
	ret = drm_buddy_init(&sdev->mm, sdev->vram_size, SIMTGPU_PAGE_SIZE);
	if (ret)
		return ret;
	ret = drmm_add_action_or_reset(&sdev->drm, simtgpu_buddy_fini, sdev);
	if (ret)
		return ret;

	sdev->reset_wq = alloc_ordered_workqueue("simtgpu-reset", 0);
	if (!sdev->reset_wq)
		return -ENOMEM;
	ret = drmm_add_action_or_reset(&sdev->drm, simtgpu_reset_wq_fini, sdev);
	if (ret)
		return ret;

	/* One page holds every ring's 64-bit fence slot, the next the jobs'
	 * device times.
	 */
	BUILD_BUG_ON(SIMTGPU_JOB_TIMES_BYTES != SIMTGPU_PAGE_SIZE);
	ret = simtgpu_vram_alloc(sdev, 2 * SIMTGPU_PAGE_SIZE,
				 2 * SIMTGPU_PAGE_SIZE, &sdev->fence_vram);
	if (ret)
		return ret;
	ret = drmm_add_action_or_reset(&sdev->drm, simtgpu_fence_page_fini,
				       sdev);
	if (ret)
		return ret;
	simtgpu_vram_clear(sdev, &sdev->fence_vram);
	sdev->fence_page = simtgpu_vram_first_offset(&sdev->fence_vram);
	sdev->job_times = sdev->fence_page + SIMTGPU_PAGE_SIZE;

	simtgpu_cgroup_init(sdev);
	ret = drmm_add_action_or_reset(&sdev->drm, simtgpu_cgroup_fini_action,
				       sdev);
	if (ret)
		return ret;
	simtgpu_policy_init(sdev);
	ret = simtgpu_rings_init(sdev);
	if (ret)
		return ret;
	ret = drmm_add_action_or_reset(&sdev->drm, simtgpu_rings_fini_action,
				       sdev);
	if (ret)
		return ret;
	/* Stopped before the rings go: its tick looks at them. */
	ret = drmm_add_action_or_reset(&sdev->drm, simtgpu_policy_fini_action,
				       sdev);
	if (ret)
		return ret;

	/* Finished first: pending releases return VRAM before the rest. */
	sdev->free_wq = alloc_workqueue("simtgpu-free", WQ_UNBOUND, 0);
	if (!sdev->free_wq)
		return -ENOMEM;
	ret = drmm_add_action_or_reset(&sdev->drm, simtgpu_free_wq_fini, sdev);
	if (ret)
		return ret;

	ret = simtgpu_managed_init(sdev);
	if (ret)
		return ret;
	ret = simtgpu_irq_init(sdev);
	if (ret)
		return ret;
	simtgpu_rings_hw_init(sdev);
	simtgpu_irq_enable(sdev);

	ret = devm_device_add_group(dev, &simtgpu_attr_group);
	if (ret)
		goto err_irq;
	ret = devm_device_add_group(dev, &simtgpu_counter_attr_group);
	if (ret)
		goto err_irq;
	ret = devm_device_add_group(dev, &simtgpu_cgroup_attr_group);
	if (ret)
		goto err_irq;
	ret = devm_device_add_group(dev, &simtgpu_partition_attr_group);
	if (ret)
		goto err_irq;

	ret = drm_dev_register(&sdev->drm, 0);
	if (ret)
		goto err_irq;

	drm_info(&sdev->drm,
		 "simt_%u, %u SMs x %u warps of %u, %llu MiB VRAM, hw %u.%u\n",
		 sdev->arch, sdev->num_sms, sdev->warps_per_sm,
		 sdev->warp_size, sdev->vram_size >> 20,
		 sdev->hw_version >> 16, sdev->hw_version & 0xffff);
	return 0;

err_irq:
	simtgpu_irq_disable(sdev);
	simtgpu_hw_reset(sdev);
	return ret;
}

/*
 * Remove may come with files still open (a hot unplug): after
 * drm_dev_unplug() no ioctl, job or timeout touches the hardware any more
 * (drm_dev_enter() fails), CPU mappings of VRAM are zapped, and every job on
 * the rings completes with -ENODEV. What is left is freed when the last file
 * closes and the DRM device is released.
 */
static void simtgpu_remove(struct pci_dev *pdev)
{
	struct simtgpu_device *sdev = pci_get_drvdata(pdev);
	unsigned int i;

	simtgpu_partitions_unplug(sdev);
	drm_dev_unplug(&sdev->drm);
	unmap_mapping_range(sdev->drm.anon_inode->i_mapping, 0, 0, 1);
	simtgpu_irq_disable(sdev);
	simtgpu_hw_reset(sdev);
	for (i = 0; i < SIMTGPU_NUM_RINGS; i++) {
		simtgpu_ring_signal_fences(&sdev->rings[i]);
		simtgpu_ring_cancel_fences(&sdev->rings[i], -ENODEV, true);
	}
}

static const struct pci_device_id simtgpu_pci_ids[] = {
	{ PCI_DEVICE(SIMTGPU_PCI_VENDOR_ID, SIMTGPU_PCI_DEVICE_ID) },
	{}
};
MODULE_DEVICE_TABLE(pci, simtgpu_pci_ids);

static struct pci_driver simtgpu_pci_driver = {
	.name = SIMTGPU_DRIVER_NAME,
	.id_table = simtgpu_pci_ids,
	.probe = simtgpu_probe,
	.remove = simtgpu_remove,
};
module_pci_driver(simtgpu_pci_driver);

MODULE_DESCRIPTION("DRM render driver for the simtgpu simulated SIMT GPU");
/* The uAPI version, in /sys/module/simtgpu/version for scripts. */
MODULE_VERSION(__stringify(SIMTGPU_UAPI_VERSION_MAJOR) "."
	       __stringify(SIMTGPU_UAPI_VERSION_MINOR));
MODULE_AUTHOR("The simtgpu authors");
MODULE_LICENSE("GPL");
