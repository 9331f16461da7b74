// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The simtgpu authors */

/**
 * DOC: GPU address spaces
 *
 * Every open file gets its own GPU virtual address space (a "VM"), the
 * context that SET_CONTEXT switches to before the file's jobs run. Virtual
 * addresses come from a drm_mm range allocator over
 * [SIMTGPU_USER_VA_START, SIMTGPU_USER_VA_END) of the shared driver policy
 * (simtgpu/driver_policy.h): below the shared and local memory windows the
 * MMU handles itself, and above a guard that keeps address 0 and its
 * neighbourhood unmapped, so that NULL dereferences fault. The lowest free
 * range that fits is used, as the in-process transport does.
 *
 * The page tables are the four-level format of include/simtgpu/hw.h, one
 * 4 KiB VRAM page per table, read and written by the CPU through the BAR2
 * mapping. The walk from the root to a page's PTE is the shared driver
 * policy's simtgpu_pt_walk(), which the in-process transport runs over the
 * simulator's VRAM; here it goes through simtgpu_vm_pt_access. The VM keeps
 * a list of its tables' VRAM, to free them: only with the VM, since an
 * address space is as long-lived as its file, and its tables are few.
 *
 * Each BO's VA range is followed by one unmapped guard page, so that a
 * kernel running off the end of a buffer faults instead of corrupting the
 * next one. Since uAPI 1.5 a BO may ask for the upper half of the space
 * (SIMTGPU_BO_HIGH_VA) or for one exact address (SIMTGPU_BO_FIXED_VA, no
 * guard page): unified addressing puts device memory in the former and host
 * memory at its own address.
 */

#include <linux/slab.h>
#include <drm/drm_drv.h>
#include <drm/drm_print.h>

#include "simtgpu_drv.h"

struct simtgpu_pt {
	struct list_head link; /* in vm->tables */
	struct list_head vram;
	u64 offset; /* VRAM offset of the table */
};

static struct simtgpu_pt *simtgpu_pt_alloc(struct simtgpu_vm *vm)
{
	struct simtgpu_device *sdev = vm->sdev;
	struct simtgpu_pt *pt;
	int ret;

	pt = kzalloc(sizeof(*pt), GFP_KERNEL);
	if (!pt)
		return ERR_PTR(-ENOMEM);
	INIT_LIST_HEAD(&pt->vram);
	/* Page tables count against their owner's cgroup limit. */
	ret = simtgpu_cg_charge(vm->cg, SIMTGPU_PAGE_SIZE);
	if (ret) {
		kfree(pt);
		return ERR_PTR(ret);
	}
	ret = simtgpu_vram_alloc_for(sdev, vm->part, SIMTGPU_PAGE_SIZE,
				     SIMTGPU_PAGE_SIZE, &pt->vram);
	if (ret) {
		simtgpu_cg_uncharge(vm->cg, SIMTGPU_PAGE_SIZE);
		kfree(pt);
		return ERR_PTR(ret);
	}
	simtgpu_vram_clear(sdev, &pt->vram);
	pt->offset = simtgpu_vram_first_offset(&pt->vram);
	list_add_tail(&pt->link, &vm->tables);
	atomic_inc(&sdev->counts.page_tables);
	return pt;
}

/* simtgpu_pt_walk()'s view of @ctx, a VM's tables: VRAM through BAR2. */
static u64 simtgpu_vm_pt_read(void *ctx, u64 offset)
{
	struct simtgpu_vm *vm = ctx;

	return readq(vm->sdev->vram + offset);
}

static void simtgpu_vm_pt_write(void *ctx, u64 offset, u64 pte)
{
	struct simtgpu_vm *vm = ctx;

	writeq(pte, vm->sdev->vram + offset);
}

static int simtgpu_vm_pt_alloc(void *ctx, u64 *table)
{
	struct simtgpu_pt *pt = simtgpu_pt_alloc(ctx);

	if (IS_ERR(pt))
		return PTR_ERR(pt);
	*table = pt->offset;
	return 0;
}

/* Called under vm->lock. */
static int simtgpu_vm_walk(struct simtgpu_vm *vm, u64 va, bool create,
			   u64 *pte_offset)
{
	const struct simtgpu_pt_access access = {
		.ctx = vm,
		.read = simtgpu_vm_pt_read,
		.write = simtgpu_vm_pt_write,
		.alloc_table = simtgpu_vm_pt_alloc,
	};

	return simtgpu_pt_walk(&access, vm->root->offset, va, create,
			       pte_offset);
}

struct simtgpu_vm *simtgpu_vm_create(struct simtgpu_device *sdev,
				     struct simtgpu_partition *part, u32 id)
{
	struct simtgpu_vm *vm;
	int ret;

	vm = kzalloc(sizeof(*vm), GFP_KERNEL);
	if (!vm)
		return ERR_PTR(-ENOMEM);
	kref_init(&vm->refcount);
	vm->sdev = sdev;
	vm->part = part;
	vm->id = id;
	mutex_init(&vm->lock);
	INIT_LIST_HEAD(&vm->tables);
	drm_mm_init(&vm->mm, SIMTGPU_USER_VA_START,
		    SIMTGPU_USER_VA_END - SIMTGPU_USER_VA_START);
	dma_resv_init(&vm->resv);
	INIT_LIST_HEAD(&vm->sched.link);
	spin_lock_init(&vm->managed_lru_lock);
	INIT_LIST_HEAD(&vm->managed_lru);
	vm->cg = simtgpu_cg_get_current(sdev);
	if (!vm->cg)
		vm->root = ERR_PTR(-ENOMEM);
	else
		vm->root = simtgpu_pt_alloc(vm);
	if (IS_ERR(vm->root)) {
		ret = PTR_ERR(vm->root);
		simtgpu_cg_put(vm->cg);
		dma_resv_fini(&vm->resv);
		drm_mm_takedown(&vm->mm);
		kfree(vm);
		return ERR_PTR(ret);
	}
	atomic_inc(&sdev->counts.vms);
	/* An id already there is a dead VM's not yet erased: replace it. */
	ret = xa_err(xa_store(&sdev->vms, id, vm, GFP_KERNEL));
	if (ret) {
		simtgpu_vm_put(vm);
		return ERR_PTR(ret);
	}
	return vm;
}

static void simtgpu_vm_release(struct kref *kref)
{
	struct simtgpu_vm *vm = container_of(kref, struct simtgpu_vm, refcount);
	struct simtgpu_device *sdev = vm->sdev;
	struct simtgpu_pt *pt, *tmp;

	xa_cmpxchg(&sdev->vms, vm->id, vm, NULL, GFP_KERNEL);
	list_for_each_entry_safe(pt, tmp, &vm->tables, link) {
		simtgpu_vram_free(sdev, &pt->vram);
		simtgpu_cg_uncharge(vm->cg, SIMTGPU_PAGE_SIZE);
		list_del(&pt->link);
		kfree(pt);
		atomic_dec(&sdev->counts.page_tables);
	}
	simtgpu_cg_put(vm->cg);
	drm_mm_takedown(&vm->mm);
	dma_resv_fini(&vm->resv);
	mutex_destroy(&vm->lock);
	kfree(vm);
	atomic_dec(&sdev->counts.vms);
}

struct simtgpu_vm *simtgpu_vm_get(struct simtgpu_vm *vm)
{
	kref_get(&vm->refcount);
	return vm;
}

/* The live address space of context @id, with a reference, or NULL. */
struct simtgpu_vm *simtgpu_vm_lookup(struct simtgpu_device *sdev, u32 id)
{
	struct simtgpu_vm *vm;

	xa_lock(&sdev->vms);
	vm = xa_load(&sdev->vms, id);
	if (vm && !kref_get_unless_zero(&vm->refcount))
		vm = NULL; /* being released */
	xa_unlock(&sdev->vms);
	return vm;
}

void simtgpu_vm_put(struct simtgpu_vm *vm)
{
	if (vm)
		kref_put(&vm->refcount, simtgpu_vm_release);
}

u64 simtgpu_vm_root(struct simtgpu_vm *vm)
{
	return vm->root->offset;
}

static void simtgpu_vm_clear_range(struct simtgpu_vm *vm, u64 va, u64 size)
{
	u64 end = va + size;
	u64 pte_offset;

	for (; va < end; va += SIMTGPU_PAGE_SIZE)
		if (!simtgpu_vm_walk(vm, va, false, &pte_offset))
			simtgpu_vm_pt_write(vm, pte_offset, 0);
}

/* Write the PTE of @va, creating its tables on the way. */
static int simtgpu_vm_map_page(struct simtgpu_vm *vm, u64 va, u64 pte)
{
	u64 pte_offset;
	int ret = simtgpu_vm_walk(vm, va, true, &pte_offset);

	if (ret)
		return ret;
	simtgpu_vm_pt_write(vm, pte_offset, pte);
	return 0;
}

/* The PTEs of @bo from @va on: its VRAM blocks, or its pinned user pages. */
static int simtgpu_vm_map_bo_pages(struct simtgpu_vm *vm,
				   struct simtgpu_bo *bo, u64 va, u64 flags)
{
	struct drm_buddy_block *block;
	unsigned long i;
	int ret;

	/* Managed pages start nowhere the GPU can see: its first access is a
	 * replayable fault (simtgpu_managed.c).
	 */
	if (bo->managed) {
		for (i = 0; i < bo->base.size >> PAGE_SHIFT; i++) {
			ret = simtgpu_vm_map_page(vm, va, SIMTGPU_PTE_REPLAY);
			if (ret)
				return ret;
			va += SIMTGPU_PAGE_SIZE;
		}
		return 0;
	}
	if (bo->userptr) {
		flags |= SIMTGPU_PTE_HOST;
		for (i = 0; i < bo->base.size >> PAGE_SHIFT; i++) {
			u64 pte = SIMTGPU_PTE_MAKE(bo->dma_addrs[i], flags);

			ret = simtgpu_vm_map_page(vm, va, pte);
			if (ret)
				return ret;
			va += SIMTGPU_PAGE_SIZE;
		}
		return 0;
	}
	list_for_each_entry(block, &bo->blocks, link) {
		u64 pa = drm_buddy_block_offset(block);
		u64 end = pa + drm_buddy_block_size(&vm->sdev->mm, block);

		for (; pa < end; pa += SIMTGPU_PAGE_SIZE, va += SIMTGPU_PAGE_SIZE) {
			ret = simtgpu_vm_map_page(vm, va,
						  SIMTGPU_PTE_MAKE(pa, flags));
			if (ret)
				return ret;
		}
	}
	return 0;
}

/*
 * The VA range of @bo: at @fixed_va with SIMTGPU_BO_FIXED_VA (-EEXIST when
 * taken), else the lowest free one from simtgpu_bo_va_search_start().
 * Called under vm->lock.
 */
static int simtgpu_vm_place_bo(struct simtgpu_vm *vm, struct simtgpu_bo *bo,
			       u64 fixed_va)
{
	u64 span = simtgpu_bo_va_span(bo->flags, bo->base.size);

	if (bo->flags & SIMTGPU_BO_FIXED_VA) {
		bo->va.start = fixed_va;
		bo->va.size = span;
		/* drm_mm says -ENOSPC for an overlap: name it. */
		return drm_mm_reserve_node(&vm->mm, &bo->va) ? -EEXIST : 0;
	}
	return drm_mm_insert_node_in_range(&vm->mm, &bo->va, span,
					   SIMTGPU_PAGE_SIZE, 0,
					   simtgpu_bo_va_search_start(bo->flags),
					   SIMTGPU_USER_VA_END,
					   DRM_MM_INSERT_LOW);
}

/**
 * simtgpu_vm_map_bo - give @bo a VA range in @vm and write its PTEs.
 * @fixed_va: where, with SIMTGPU_BO_FIXED_VA (checked by
 * simtgpu_bo_placement_check() already); ignored otherwise.
 *
 * Returns -ENOSPC when the address space or VRAM for page tables is full,
 * -EEXIST when the fixed range overlaps a mapped one.
 */
int simtgpu_vm_map_bo(struct simtgpu_vm *vm, struct simtgpu_bo *bo,
		      u64 fixed_va)
{
	u64 size = bo->base.size;
	int ret;

	mutex_lock(&vm->lock);
	ret = simtgpu_vm_place_bo(vm, bo, fixed_va);
	if (ret)
		goto out_unlock;
	ret = simtgpu_vm_map_bo_pages(vm, bo, bo->va.start,
				      simtgpu_bo_pte_flags(bo->flags));
	if (ret) {
		simtgpu_vm_clear_range(vm, bo->va.start, size);
		drm_mm_remove_node(&bo->va);
		goto out_unlock;
	}
	wmb(); /* PTEs reach VRAM before any job can use them */
out_unlock:
	mutex_unlock(&vm->lock);
	return ret;
}

/*
 * Only called once the GPU is done with @bo: no TLB can still hold it.
 * After an unplug there are no page tables to clear, only the range.
 */
void simtgpu_vm_unmap_bo(struct simtgpu_vm *vm, struct simtgpu_bo *bo)
{
	int idx;

	if (!drm_mm_node_allocated(&bo->va))
		return;
	mutex_lock(&vm->lock);
	if (drm_dev_enter(&vm->sdev->drm, &idx)) {
		simtgpu_vm_clear_range(vm, bo->va.start, bo->base.size);
		wmb(); /* cleared before the range can be handed out again */
		drm_dev_exit(idx);
	}
	drm_mm_remove_node(&bo->va);
	mutex_unlock(&vm->lock);
}

/*
 * Rewrite the PTE of @va, a page of a BO mapped in @vm (its tables exist):
 * how managed memory moves a page. The caller invalidates the TLBs when
 * the old PTE was valid.
 */
int simtgpu_vm_write_pte(struct simtgpu_vm *vm, u64 va, u64 pte)
{
	u64 pte_offset;
	int ret;

	mutex_lock(&vm->lock);
	ret = simtgpu_vm_walk(vm, va, false, &pte_offset);
	if (!ret)
		simtgpu_vm_pt_write(vm, pte_offset, pte);
	wmb(); /* in VRAM before the device is told */
	mutex_unlock(&vm->lock);
	return ret;
}

/*
 * The BO whose pages hold @va in @vm, with a reference, or NULL (no BO
 * there, or one being released).
 */
struct simtgpu_bo *simtgpu_vm_lookup_bo(struct simtgpu_vm *vm, u64 va)
{
	struct simtgpu_bo *found = NULL;
	struct drm_mm_node *node;

	mutex_lock(&vm->lock);
	drm_mm_for_each_node_in_range(node, &vm->mm, va, va + 1) {
		struct simtgpu_bo *bo = container_of(node, struct simtgpu_bo,
						     va);

		if (va < node->start + bo->base.size &&
		    kref_get_unless_zero(&bo->base.refcount))
			found = bo;
		break;
	}
	mutex_unlock(&vm->lock);
	return found;
}

/* Whether [va, va + size) lies inside one BO mapped in @vm. */
bool simtgpu_vm_range_mapped(struct simtgpu_vm *vm, u64 va, u64 size)
{
	struct drm_mm_node *node;
	bool found = false;

	if (!size || va + size < va)
		return false;
	mutex_lock(&vm->lock);
	drm_mm_for_each_node_in_range(node, &vm->mm, va, va + size) {
		/* The node's last page is the unmapped guard. */
		if (node->start <= va &&
		    va + size <= node->start + node->size - SIMTGPU_PAGE_SIZE)
			found = true;
		break;
	}
	mutex_unlock(&vm->lock);
	return found;
}
