// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The simtgpu authors */

/**
 * DOC: Buffer objects
 *
 * A simtgpu BO is a GEM object whose memory is VRAM, taken from drm_buddy
 * in 4 KiB-or-larger blocks (not necessarily contiguous), cleared, and
 * mapped at one GPU VA in the address space of the file that created it.
 * BOs are not shared between files (no PRIME, no flink on render nodes), so
 * one process can never name another's memory.
 *
 * The CPU maps a BO through BAR2, write-combined: each VRAM block is
 * remapped into the user's VMA with io_remap_pfn_range(), so a CPU access is
 * a plain load or store to the device's VRAM.
 *
 * Releasing a BO is deferred: when its last reference goes, a worker waits
 * for every fence in the BO's reservation object and for every job ever
 * submitted in its address space (the VM's reservation object), because a
 * job may use memory it did not list. Only then are the PTEs cleared and the
 * VRAM returned.
 *
 * VRAM exhaustion, and the optional per-file limit (module parameter
 * vram_limit_mb), are -ENOSPC; the limit of the owner's cgroup
 * (simtgpu_cgroup.c, dmem semantics) is -ENOMEM. Before either, the file's
 * managed pages in VRAM are evicted to make room, as cudaMalloc() pushes
 * managed memory out on NVIDIA's GPUs.
 *
 * A BO may instead be backed by pinned pages of its creator's memory
 * (BO_USERPTR, simtgpu_userptr.c); it then has no VRAM blocks, no mmap
 * offset and counts against no VRAM limit. A managed BO (BO_MANAGED,
 * simtgpu_managed.c) has no VRAM blocks either: each of its pages moves
 * between host memory and VRAM on page faults, and its mmap() is served
 * one page at a time by a fault handler.
 */

#include <linux/mm.h>
#include <linux/slab.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_print.h>
#include <drm/drm_utils.h>
#include <drm/drm_vma_manager.h>

#include "simtgpu_drv.h"

static void simtgpu_bo_free_work(struct work_struct *work)
{
	struct simtgpu_bo *bo = container_of(work, struct simtgpu_bo,
					     free_work);
	struct simtgpu_device *sdev = bo->sdev;
	struct simtgpu_vm *vm = bo->vm;
	struct drm_device *node = bo->base.dev;

	dma_resv_wait_timeout(bo->base.resv, DMA_RESV_USAGE_BOOKKEEP, false,
			      MAX_SCHEDULE_TIMEOUT);
	if (vm) {
		dma_resv_wait_timeout(&vm->resv, DMA_RESV_USAGE_BOOKKEEP, false,
				      MAX_SCHEDULE_TIMEOUT);
		simtgpu_vm_unmap_bo(vm, bo);
		/* A managed BO's VRAM is counted per page. */
		if (bo->charged) {
			atomic64_sub(bo->base.size, &vm->vram_bytes);
			simtgpu_cg_uncharge(vm->cg, bo->base.size);
		}
		atomic_dec(&vm->bo_count);
	}
	simtgpu_userptr_release(bo);
	simtgpu_managed_release(bo);
	simtgpu_vram_free(sdev, &bo->blocks);
	simtgpu_vm_put(vm);
	drm_gem_object_release(&bo->base);
	kfree(bo);
	atomic_dec(&sdev->counts.bos);
	if (node != &sdev->drm) /* a partition's node, held while BOs live */
		drm_dev_put(node);
}

static void simtgpu_bo_free(struct drm_gem_object *obj)
{
	struct simtgpu_bo *bo = to_simtgpu_bo(obj);

	INIT_WORK(&bo->free_work, simtgpu_bo_free_work);
	queue_work(bo->sdev->free_wq, &bo->free_work);
}

static int simtgpu_bo_mmap(struct drm_gem_object *obj,
			   struct vm_area_struct *vma)
{
	struct simtgpu_bo *bo = to_simtgpu_bo(obj);
	struct simtgpu_device *sdev = bo->sdev;
	u64 skip = (u64)(vma->vm_pgoff - drm_vma_node_start(&obj->vma_node))
		   << PAGE_SHIFT;
	unsigned long addr = vma->vm_start;
	struct drm_buddy_block *block;
	int ret;

	if (skip + (vma->vm_end - vma->vm_start) > obj->size)
		return -EINVAL;
	if (bo->managed)
		return simtgpu_managed_mmap(bo, vma);
	/* After an unplug, BAR2 is no longer ours to map. */
	if (drm_dev_is_unplugged(obj->dev))
		return -ENODEV;

	vma->vm_flags |= VM_IO | VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP;
	vma->vm_page_prot = pgprot_writecombine(vm_get_page_prot(vma->vm_flags));

	list_for_each_entry(block, &bo->blocks, link) {
		u64 pa = drm_buddy_block_offset(block);
		u64 len = drm_buddy_block_size(&sdev->mm, block);

		if (skip >= len) {
			skip -= len;
			continue;
		}
		pa += skip;
		len -= skip;
		skip = 0;
		len = min_t(u64, len, vma->vm_end - addr);
		ret = io_remap_pfn_range(vma, addr,
					 (sdev->vram_bus + pa) >> PAGE_SHIFT,
					 len, vma->vm_page_prot);
		if (ret)
			return ret;
		addr += len;
		if (addr >= vma->vm_end)
			break;
	}
	return 0;
}

static const struct vm_operations_struct simtgpu_bo_vm_ops = {
	.open = drm_gem_vm_open,
	.close = drm_gem_vm_close,
};

static const struct drm_gem_object_funcs simtgpu_gem_funcs = {
	.free = simtgpu_bo_free,
	.mmap = simtgpu_bo_mmap,
	.vm_ops = &simtgpu_bo_vm_ops,
};

/**
 * simtgpu_bo_alloc - a BO of @size bytes in @file's address space, with no
 * memory and no mapping yet; dropping its reference undoes whatever its
 * creator did next (simtgpu_bo_free_work()).
 */
struct simtgpu_bo *simtgpu_bo_alloc(struct drm_device *dev,
				    struct drm_file *file, u64 size, u32 flags)
{
	struct simtgpu_device *sdev = to_simtgpu_device(dev);
	struct simtgpu_file_priv *fpriv = file->driver_priv;
	struct simtgpu_bo *bo;

	bo = kzalloc(sizeof(*bo), GFP_KERNEL);
	if (!bo)
		return ERR_PTR(-ENOMEM);
	bo->sdev = sdev;
	bo->flags = flags;
	bo->base.funcs = &simtgpu_gem_funcs;
	INIT_LIST_HEAD(&bo->blocks);
	drm_gem_private_object_init(dev, &bo->base, size);
	if (dev != &sdev->drm)
		drm_dev_get(dev);
	atomic_inc(&sdev->counts.bos);
	bo->vm = simtgpu_vm_get(fpriv->vm);
	atomic_inc(&bo->vm->bo_count);
	return bo;
}

/*
 * Charge @bo's size to its file's limit and its cgroup's and take its VRAM:
 * all of it or, with the error, nothing.
 */
static int simtgpu_bo_take_vram(struct simtgpu_bo *bo, u64 size)
{
	struct simtgpu_vm *vm = bo->vm;
	int ret;

	if (!simtgpu_vram_limit_allows(atomic64_add_return(size,
							   &vm->vram_bytes),
				       vm->vram_limit)) {
		ret = -ENOSPC;
		goto err_limit;
	}
	ret = simtgpu_cg_charge(vm->cg, size);
	if (ret)
		goto err_limit;
	ret = simtgpu_vram_alloc_for(bo->sdev, vm->part, size,
				     SIMTGPU_PAGE_SIZE, &bo->blocks);
	if (ret)
		goto err_cgroup;
	bo->charged = true;
	return 0;

err_cgroup:
	simtgpu_cg_uncharge(vm->cg, size);
err_limit:
	atomic64_sub(size, &vm->vram_bytes);
	return ret;
}

/**
 * simtgpu_bo_create - allocate a cleared, page-aligned BO of @size bytes in
 * VRAM and map it into @file's address space (at @fixed_va with
 * SIMTGPU_BO_FIXED_VA).
 */
struct simtgpu_bo *simtgpu_bo_create(struct drm_device *dev,
				     struct drm_file *file, u64 size, u32 flags,
				     u64 fixed_va)
{
	struct simtgpu_device *sdev = to_simtgpu_device(dev);
	struct simtgpu_bo *bo;
	struct simtgpu_vm *vm;
	int ret;

	bo = simtgpu_bo_alloc(dev, file, size, flags);
	if (IS_ERR(bo))
		return bo;
	vm = bo->vm;
	ret = simtgpu_bo_take_vram(bo, size);
	/* Room for the page tables its mapping may need too. */
	if (ret && simtgpu_managed_evict(vm, NULL, size +
					 (SIMTGPU_PT_LEVELS - 1) * PAGE_SIZE))
		ret = simtgpu_bo_take_vram(bo, size);
	if (ret)
		goto err_put;
	simtgpu_vram_clear(sdev, &bo->blocks);
	ret = simtgpu_vm_map_bo(vm, bo, fixed_va);
	if (ret)
		goto err_put;
	ret = drm_gem_create_mmap_offset(&bo->base);
	if (ret)
		goto err_put;
	return bo;

err_put:
	drm_gem_object_put(&bo->base);
	return ERR_PTR(ret);
}

int simtgpu_ioctl_bo_create(struct drm_device *dev, void *data,
			    struct drm_file *file)
{
	struct simtgpu_device *sdev = to_simtgpu_device(dev);
	struct drm_simtgpu_bo_create *args = data;
	struct simtgpu_bo *bo;
	u64 size;
	int idx, ret;

	ret = simtgpu_bo_create_check(args);
	if (ret)
		return ret;
	size = round_up(args->size, SIMTGPU_PAGE_SIZE);
	if (args->flags & SIMTGPU_BO_MANAGED) {
		ret = simtgpu_managed_check(sdev, args->flags);
		if (ret)
			return ret;
	}
	ret = simtgpu_bo_placement_check(args->flags, args->gpu_va, size);
	if (ret)
		return ret;
	/* Managed memory lives in host memory too: it may exceed VRAM. */
	if (size > sdev->vram_size && !(args->flags & SIMTGPU_BO_MANAGED))
		return -ENOSPC;

	/* Clearing VRAM and writing PTEs need the device. */
	if (!drm_dev_enter(dev, &idx))
		return -ENODEV;
	if (args->flags & SIMTGPU_BO_MANAGED)
		bo = simtgpu_managed_create(dev, file, size, args->flags,
					    args->gpu_va);
	else
		bo = simtgpu_bo_create(dev, file, size, args->flags,
				       args->gpu_va);
	drm_dev_exit(idx);
	if (IS_ERR(bo))
		return PTR_ERR(bo);
	ret = drm_gem_handle_create(file, &bo->base, &args->handle);
	if (!ret)
		args->gpu_va = bo->va.start;
	/* The handle holds the reference now. */
	drm_gem_object_put(&bo->base);
	return ret;
}

int simtgpu_ioctl_bo_mmap_offset(struct drm_device *dev, void *data,
				 struct drm_file *file)
{
	struct drm_simtgpu_bo_mmap_offset *args = data;
	struct drm_gem_object *obj;

	if (args->flags)
		return -EINVAL;
	obj = drm_gem_object_lookup(file, args->handle);
	if (!obj)
		return -ENOENT;
	/* A user-pointer BO is the caller's own memory already. */
	if (to_simtgpu_bo(obj)->userptr) {
		drm_gem_object_put(obj);
		return -EINVAL;
	}
	args->offset = drm_vma_node_offset_addr(&obj->vma_node);
	drm_gem_object_put(obj);
	return 0;
}

int simtgpu_ioctl_bo_info(struct drm_device *dev, void *data,
			  struct drm_file *file)
{
	struct drm_simtgpu_bo_info *args = data;
	struct drm_gem_object *obj;
	struct simtgpu_bo *bo;

	obj = drm_gem_object_lookup(file, args->handle);
	if (!obj)
		return -ENOENT;
	bo = to_simtgpu_bo(obj);
	args->flags = bo->flags;
	args->size = obj->size;
	args->gpu_va = bo->va.start;
	drm_gem_object_put(obj);
	return 0;
}

int simtgpu_ioctl_wait_bo(struct drm_device *dev, void *data,
			  struct drm_file *file)
{
	struct drm_simtgpu_wait_bo *args = data;
	struct drm_gem_object *obj;
	unsigned long timeout;
	long ret;

	if (args->flags)
		return -EINVAL;
	obj = drm_gem_object_lookup(file, args->handle);
	if (!obj)
		return -ENOENT;
	timeout = drm_timeout_abs_to_jiffies(args->timeout_ns);
	ret = dma_resv_wait_timeout(obj->resv, DMA_RESV_USAGE_READ, true,
				    timeout);
	drm_gem_object_put(obj);
	if (ret == 0)
		return -ETIME;
	return ret < 0 ? ret : 0;
}
