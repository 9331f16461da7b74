// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The simtgpu authors */

/**
 * DOC: VRAM allocation
 *
 * The device's VRAM (BAR2) is handed out by drm_buddy, the kernel's
 * power-of-two buddy allocator, which amdgpu, i915 and xe use for their VRAM
 * too. An allocation is a list of buddy blocks: each block is a power of two
 * of at least the caller's minimum block size and starts at a multiple of
 * its own size. A caller that needs one contiguous range (a ring, a page
 * table, the fence page) asks for a minimum block as large as the whole
 * allocation and gets one block; a buffer object takes 4 KiB blocks wherever
 * they are free, and the GPU's page tables make them look contiguous.
 *
 * Everything that takes VRAM comes here: buffer objects (simtgpu_bo.c),
 * managed pages (simtgpu_managed.c), page tables (simtgpu_vm.c), the rings
 * and the fence page (probe and simtgpu_sched.c). With partitions
 * (simtgpu_partition.c) each partition owns a slice of VRAM at the top and
 * allocates only there; the whole GPU allocates below every slice
 * (vram_shared_end). mm_lock guards the allocator and the byte counts that
 * GET_PARAM(VRAM_USED) and sysfs report.
 *
 * Fresh VRAM is cleared before anyone sees it: a buffer must never show
 * another process's data. The host backs VRAM only where it is touched
 * (docs/qemu.md), so the clear uses the device's VRAM_CLEAR register, which
 * gives the pages back to the host instead of writing zeros, and falls back
 * to memset_io() through BAR2 on a device without it.
 */

#include <linux/io.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <drm/drm_buddy.h>

#include "simtgpu_drv.h"

/**
 * simtgpu_vram_alloc - allocate @size bytes of VRAM as buddy blocks of at
 * least @min_block bytes (a power of two; @size itself gives one contiguous
 * block). Returns -ENOSPC when VRAM is exhausted.
 */
int simtgpu_vram_alloc(struct simtgpu_device *sdev, u64 size, u64 min_block,
		       struct list_head *blocks)
{
	return simtgpu_vram_alloc_for(sdev, NULL, size, min_block, blocks);
}

/**
 * simtgpu_vram_alloc_for - as simtgpu_vram_alloc(), from @part's VRAM slice,
 * or with @part NULL from the VRAM below every partition's slice.
 */
int simtgpu_vram_alloc_for(struct simtgpu_device *sdev,
			   struct simtgpu_partition *part, u64 size,
			   u64 min_block, struct list_head *blocks)
{
	u64 start = 0, end;
	int ret;

	mutex_lock(&sdev->mm_lock);
	end = sdev->vram_shared_end;
	if (part) {
		start = part->vram_base;
		end = part->vram_base + part->vram_size;
	}
	ret = drm_buddy_alloc_blocks(&sdev->mm, start, end, size, min_block,
				     blocks,
				     start || end != sdev->vram_size ?
				     DRM_BUDDY_RANGE_ALLOCATION : 0);
	if (!ret) {
		sdev->vram_used += size;
		if (part)
			part->vram_used += size;
	}
	mutex_unlock(&sdev->mm_lock);
	/* The buddy allocator says -ENOSPC, or -EINVAL for a size it can
	 * never satisfy (larger than VRAM): both are "out of VRAM".
	 */
	return ret == -EINVAL ? -ENOSPC : ret;
}

void simtgpu_vram_free(struct simtgpu_device *sdev, struct list_head *blocks)
{
	struct drm_buddy_block *block;
	u64 size = 0;

	if (list_empty(blocks))
		return;
	mutex_lock(&sdev->mm_lock);
	list_for_each_entry(block, blocks, link) {
		size += drm_buddy_block_size(&sdev->mm, block);
		simtgpu_partition_account(sdev, drm_buddy_block_offset(block),
					  -(s64)drm_buddy_block_size(&sdev->mm,
								     block));
	}
	drm_buddy_free_list(&sdev->mm, blocks);
	sdev->vram_used -= size;
	mutex_unlock(&sdev->mm_lock);
	INIT_LIST_HEAD(blocks);
}

/*
 * Zero [@offset, @offset + @len) with the device (CAPS.VRAM_CLEAR): the
 * memory controller gives the pages back to the host that backs VRAM, so a
 * client that allocates most of a 16 GiB VRAM and touches little of it costs
 * the host only what it touches. False if the device refused the range.
 */
static bool simtgpu_vram_clear_hw(struct simtgpu_device *sdev, u64 offset,
				  u64 len)
{
	u32 result;

	mutex_lock(&sdev->clear_lock);
	simtgpu_write(sdev, SIMTGPU_REG_VRAM_CLEAR_ADDR_LO,
		      lower_32_bits(offset));
	simtgpu_write(sdev, SIMTGPU_REG_VRAM_CLEAR_ADDR_HI,
		      upper_32_bits(offset));
	simtgpu_write(sdev, SIMTGPU_REG_VRAM_CLEAR_BYTES_LO,
		      lower_32_bits(len));
	simtgpu_write(sdev, SIMTGPU_REG_VRAM_CLEAR_BYTES_HI,
		      upper_32_bits(len));
	simtgpu_write(sdev, SIMTGPU_REG_VRAM_CLEAR, SIMTGPU_VRAM_CLEAR_GO);
	result = simtgpu_read(sdev, SIMTGPU_REG_VRAM_CLEAR);
	mutex_unlock(&sdev->clear_lock);
	return result == SIMTGPU_VRAM_CLEAR_DONE;
}

/* Zero fresh VRAM: a new buffer never shows another process's data. */
void simtgpu_vram_clear(struct simtgpu_device *sdev, struct list_head *blocks)
{
	bool hw = sdev->caps & SIMTGPU_CAP_VRAM_CLEAR;
	struct drm_buddy_block *block;

	list_for_each_entry(block, blocks, link) {
		u64 offset = drm_buddy_block_offset(block);
		u64 end = offset + drm_buddy_block_size(&sdev->mm, block);

		/* In pieces: a block may be gigabytes, and clearing it in
		 * one go would stall this CPU's runqueue for seconds.
		 */
		while (offset < end) {
			u64 len = min_t(u64, end - offset,
					hw ? SZ_256M : SZ_2M);

			if (!hw || !simtgpu_vram_clear_hw(sdev, offset, len))
				memset_io(sdev->vram + offset, 0, len);
			offset += len;
			cond_resched();
		}
	}
	wmb(); /* cleared before the GPU is told about the memory */
}

/* The VRAM offset of the first block: of a contiguous allocation's start. */
u64 simtgpu_vram_first_offset(struct list_head *blocks)
{
	return drm_buddy_block_offset(list_first_entry(blocks,
						       struct drm_buddy_block,
						       link));
}
