// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The simtgpu authors */

/**
 * DOC: User-pointer BOs
 *
 * BO_USERPTR turns a page-aligned range of the caller's memory into a BO
 * that the GPU reaches over the bus: CUDA's host-registered, mapped or
 * "zero-copy" memory. The pages are pinned with pin_user_pages_fast() and
 * FOLL_LONGTERM (they stay put, and out of ZONE_MOVABLE, for as long as the
 * GPU may use them), mapped for DMA one page at a time, and their bus
 * addresses written into the file's page tables as SIMTGPU_PTE_HOST entries.
 * The device then reads and writes them by DMA, never through VRAM.
 *
 * The BO is released like any other (simtgpu_bo.c): once every job of its
 * address space is done, the PTEs are cleared, the pages unmapped and
 * unpinned, marked dirty unless the BO was read-only. Pinned pages are
 * counted in debugfs "objects" so that a leak shows.
 */

#include <linux/dma-mapping.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>

#include "simtgpu_drv.h"

static void simtgpu_userptr_unmap_pages(struct simtgpu_bo *bo,
					unsigned long count)
{
	struct device *dev = bo->sdev->drm.dev;
	enum dma_data_direction dir = bo->flags & SIMTGPU_BO_READ_ONLY ?
				      DMA_TO_DEVICE : DMA_BIDIRECTIONAL;
	unsigned long i;

	for (i = 0; i < count; i++)
		dma_unmap_page(dev, bo->dma_addrs[i], PAGE_SIZE, dir);
}

/* Undo simtgpu_userptr_pin(): called by the BO's release. */
void simtgpu_userptr_release(struct simtgpu_bo *bo)
{
	unsigned long npages = bo->base.size >> PAGE_SHIFT;

	if (!bo->pages)
		return;
	if (bo->dma_addrs) {
		simtgpu_userptr_unmap_pages(bo, npages);
		kvfree(bo->dma_addrs);
	}
	unpin_user_pages_dirty_lock(bo->pages, npages,
				    !(bo->flags & SIMTGPU_BO_READ_ONLY));
	kvfree(bo->pages);
	bo->pages = NULL;
	atomic_long_sub(npages, &bo->sdev->counts.pinned_pages);
}

static int simtgpu_userptr_pin(struct simtgpu_bo *bo, u64 user_ptr)
{
	struct device *dev = bo->sdev->drm.dev;
	unsigned long npages = bo->base.size >> PAGE_SHIFT;
	unsigned int gup_flags = FOLL_LONGTERM;
	enum dma_data_direction dir = DMA_BIDIRECTIONAL;
	struct page **pages;
	unsigned long i;
	long pinned = 0;

	if (!(bo->flags & SIMTGPU_BO_READ_ONLY))
		gup_flags |= FOLL_WRITE;
	else
		dir = DMA_TO_DEVICE;

	pages = kvmalloc_array(npages, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return -ENOMEM;
	while (pinned < npages) {
		long ret = pin_user_pages_fast(user_ptr + (pinned << PAGE_SHIFT),
					       npages - pinned, gup_flags,
					       pages + pinned);

		if (ret <= 0) {
			unpin_user_pages(pages, pinned);
			kvfree(pages);
			/* A hole in the range, or a read-only mapping
			 * asked for writing.
			 */
			return ret ? ret : -EFAULT;
		}
		pinned += ret;
	}
	bo->pages = pages;
	atomic_long_add(npages, &bo->sdev->counts.pinned_pages);

	bo->dma_addrs = kvmalloc_array(npages, sizeof(*bo->dma_addrs),
				       GFP_KERNEL);
	if (!bo->dma_addrs)
		return -ENOMEM;
	for (i = 0; i < npages; i++) {
		bo->dma_addrs[i] = dma_map_page(dev, pages[i], 0, PAGE_SIZE,
						dir);
		if (dma_mapping_error(dev, bo->dma_addrs[i])) {
			simtgpu_userptr_unmap_pages(bo, i);
			kvfree(bo->dma_addrs);
			bo->dma_addrs = NULL;
			return -ENOMEM;
		}
	}
	return 0;
}

int simtgpu_ioctl_bo_userptr(struct drm_device *dev, void *data,
			     struct drm_file *file)
{
	struct drm_simtgpu_bo_userptr *args = data;
	struct simtgpu_bo *bo;
	int idx, ret;

	if (args->extensions || (args->flags & ~SIMTGPU_BO_USERPTR_FLAGS))
		return -EINVAL;
	if (!args->size || !PAGE_ALIGNED(args->size) ||
	    !PAGE_ALIGNED(args->user_ptr))
		return -EINVAL;
	ret = simtgpu_bo_placement_check(args->flags, args->gpu_va, args->size);
	if (ret)
		return ret;
	if (!access_ok(u64_to_user_ptr(args->user_ptr), args->size))
		return -EFAULT;

	/* Writing PTEs needs the device. */
	if (!drm_dev_enter(dev, &idx))
		return -ENODEV;
	bo = simtgpu_bo_alloc(dev, file, args->size, args->flags);
	if (IS_ERR(bo)) {
		drm_dev_exit(idx);
		return PTR_ERR(bo);
	}
	bo->userptr = true;
	ret = simtgpu_userptr_pin(bo, args->user_ptr);
	if (!ret)
		ret = simtgpu_vm_map_bo(bo->vm, bo, args->gpu_va);
	drm_dev_exit(idx);
	if (!ret)
		ret = drm_gem_handle_create(file, &bo->base, &args->handle);
	if (!ret)
		args->gpu_va = bo->va.start;
	/* The handle holds the reference now, or the BO is released. */
	drm_gem_object_put(&bo->base);
	return ret;
}
