// SPDX-License-Identifier: GPL-2.0
/* Copyright (C) 2026 The simtgpu authors */

/**
 * DOC: Managed memory by page migration
 *
 * CUDA's cudaMallocManaged() gives one pointer that both the CPU and the GPU
 * dereference. NVIDIA's driver (its UVM module) makes that fast by moving
 * each page to whichever processor touches it: a page the GPU uses lives in
 * VRAM, a page the CPU uses lives in host memory. simtgpu does the same with
 * a managed BO (SIMTGPU_BO_MANAGED). Each of its 4 KiB pages has an owner:
 *
 * - the host: the page is a kernel page (alloc_page(), zeroed, allocated on
 *   first touch); the GPU's PTE for it is SIMTGPU_PTE_REPLAY without V, so
 *   a GPU access to it is a *replayable fault*;
 * - VRAM: the page is a VRAM page of the driver's allocator (charged to the
 *   file like any VRAM); the GPU's PTE is valid and the CPU has no mapping
 *   of it, so a CPU access to it is a CPU page fault.
 *
 * The GPU side. When a warp touches a REPLAY page, the device does not end
 * the job: it stops the warp before the instruction, queues the fault (VA,
 * access, context) and raises SIMTGPU_IRQ_FAULT on MSI-X vector 1. The hard
 * interrupt handler only acks it and queues simtgpu_managed_fault_work(),
 * because migrating sleeps (mutexes, VRAM allocation, page-table writes).
 * The work pops every queued fault, finds the address space by the context
 * id (also one whose file is closed while its jobs run) and the managed BO
 * at the address, and migrates the page to VRAM: allocate a
 * VRAM page, zap every CPU mapping of the page (unmap_mapping_range() on the
 * DRM device's address_space, as TTM does when it evicts a BO, so no CPU
 * store can land after the copy), copy host to VRAM through the BAR, and
 * write a valid PTE. Then one FAULT_REPLAY = RETRY lets the held warps run
 * their instruction again; this time it hits. A fault on an address that is
 * no managed BO of that context is a real bug in the program: the driver
 * writes FAULT_CANCEL_CONTEXT and FAULT_REPLAY = CANCEL, and the device ends
 * that launch with the page-fault exception the error interrupt reports.
 *
 * Oversubscription. When VRAM is full (or the file's VRAM limit or its
 * cgroup's is reached), the driver evicts, as NVIDIA's UVM does: the
 * address space's managed pages in VRAM are on a list in the order they
 * were migrated (vm->managed_lru), and the oldest go home, each as a CPU
 * fault would take it (PTE back to REPLAY, TLB invalidated, copied to its
 * host page), until the new page fits. A BO_CREATE that finds no room
 * evicts the same way before it fails. Only the address space's own pages
 * are evicted: one process never pushes another's out (GPU sharing,
 * docs/sharing.md). Two kinds of pages stay: those migrated by the fault
 * drain now being serviced, whose warps have not yet run again (evicting
 * them would fault again forever when a drain wants more pages than fit),
 * and those of a BO whose lock another path holds (the lock is only tried:
 * the caller holds its own BO's). When nothing can be evicted the page
 * stays in host memory and the GPU maps it over the bus instead
 * (SIMTGPU_PTE_HOST with its DMA address), as NVIDIA falls back to mapping
 * a page remotely: slower for the GPU, but correct, and the CPU keeps its
 * mapping of the same page.
 *
 * The CPU side. The BO's mmap() maps nothing up front (VM_PFNMAP): the
 * first CPU access to each page faults into simtgpu_managed_vm_fault(),
 * which brings the page home if VRAM has it (PTE back to REPLAY, a
 * synchronous SIMTGPU_REG_TLB_INVALIDATE so that no SM still uses the old
 * translation, copy VRAM to host through the BAR, free the VRAM page) and
 * maps the host page with vmf_insert_pfn().
 *
 * Locking. One mutex per managed BO orders the two paths: the state of its
 * pages, their PTEs and the CPU mappings change only under it. The CPU path
 * holds mmap_lock when it takes it; the GPU path never takes mmap_lock
 * (unmap_mapping_range() needs only the address_space's i_mmap lock), so
 * the order is mmap_lock, then the BO's lock, then the VM's lock (page
 * tables). Eviction takes the VM's LRU spinlock only to pick a page, and
 * another BO's lock only with mutex_trylock(). The fault work waits for no
 * fence: the jobs it serves cannot finish before it does.
 *
 * Read-mostly pages (MANAGED_ADVISE READ_MOSTLY, cudaMemAdviseSetReadMostly)
 * are duplicated instead of moved, as NVIDIA's UVM does: a GPU read fault
 * copies the page to VRAM and maps it there read-only with
 * SIMTGPU_PTE_REPLAY, and the host keeps its copy, which the CPU maps
 * read-only too. Both then read their own copy without faulting again. The
 * first write collapses the duplicates: a CPU write faults into
 * simtgpu_managed_pfn_mkwrite(), which drops the VRAM copy; a GPU write is a
 * replayable fault on the read-only PTE (hardware 1.6), serviced by making
 * the VRAM copy the only one (the CPU loses its mapping).
 *
 * Counters: per file (GET_PARAM SIMTGPU_PARAM_MANAGED_*) and per device
 * (debugfs "managed"); trace event simtgpu_migrate for each page moved
 * ("vram", "duplicate", "remote", "host", "evict").
 */

#include <linux/dma-mapping.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_managed.h>
#include <drm/drm_print.h>
#include <drm/drm_vma_manager.h>

#include "simtgpu_drv.h"
#include "simtgpu_trace.h"

/* Where one page of a managed BO is. */
struct simtgpu_managed_page {
	/* Its host memory; NULL until first touched (it reads as zeros). */
	struct page *host;
	/* Owned by the GPU: the VRAM page holding it (the host copy is stale). */
	struct drm_buddy_block *vram;
	/* Mapped by the GPU over the bus (VRAM was full): host's DMA address. */
	dma_addr_t dma;
	/* MANAGED_ADVISE: SIMTGPU_ADVISE_PREFER_* or 0, ACCESSED_BY_GPU and
	 * READ_MOSTLY.
	 */
	u8 preferred;
	bool accessed_by_gpu;
	bool read_mostly;
	/* @vram is a read-only duplicate of @host, which is current: the GPU's
	 * PTE lacks W and the CPU maps @host read-only.
	 */
	bool duplicated;
	/* The fault drain that moved it to VRAM; 0: none (a prefetch). */
	u32 migrated_in;
	/* While @vram: on the VM's managed_lru, under its lock. */
	struct list_head lru;
	struct simtgpu_bo *bo;
};

struct simtgpu_managed {
	struct mutex lock; /* pages[], their PTEs, the CPU mappings */
	unsigned long npages;
	struct simtgpu_managed_page pages[];
};

/* Count one event of a BO's managed memory, for its file and its device. */
static void simtgpu_managed_count(atomic64_t *file, atomic64_t *device)
{
	atomic64_inc(file);
	atomic64_inc(device);
}

/**
 * simtgpu_managed_check - whether BO_CREATE may make a managed BO with
 * @flags: -EINVAL with EXEC or READ_ONLY (it is data, written by both
 * sides), -ENODEV on a device without replayable faults.
 */
int simtgpu_managed_check(struct simtgpu_device *sdev, u32 flags)
{
	if (flags & (SIMTGPU_BO_EXEC | SIMTGPU_BO_READ_ONLY))
		return -EINVAL;
	if (!(sdev->caps & SIMTGPU_CAP_REPLAYABLE_FAULTS))
		return -ENODEV;
	return 0;
}

static u64 simtgpu_managed_va(struct simtgpu_bo *bo, unsigned long index)
{
	return bo->va.start + ((u64)index << PAGE_SHIFT);
}

/* A synchronous TLB invalidation: no SM uses an old translation after it. */
static void simtgpu_tlb_invalidate(struct simtgpu_device *sdev)
{
	simtgpu_write(sdev, SIMTGPU_REG_TLB_INVALIDATE, 1);
	/* A read returns only once the posted write has reached the device. */
	simtgpu_read(sdev, SIMTGPU_REG_FAULT_COUNT);
}

/* Take every CPU mapping of page @index of @bo away: the next CPU access
 * faults into simtgpu_managed_vm_fault().
 */
static void simtgpu_managed_zap_cpu(struct simtgpu_bo *bo, unsigned long index)
{
	struct drm_gem_object *obj = &bo->base;

	unmap_mapping_range(obj->dev->anon_inode->i_mapping,
			    drm_vma_node_offset_addr(&obj->vma_node) +
			    ((u64)index << PAGE_SHIFT), PAGE_SIZE, 1);
}

/* Whether the device makes writes to read-only REPLAY PTEs replayable. */
static bool simtgpu_managed_can_duplicate(struct simtgpu_device *sdev)
{
	return (sdev->hw_version & 0xffff) >= 6;
}

/* The page's host memory, allocated zeroed on first use. */
static int simtgpu_managed_host_page(struct simtgpu_bo *bo,
				     struct simtgpu_managed_page *mp)
{
	if (mp->host)
		return 0;
	mp->host = alloc_page(GFP_HIGHUSER | __GFP_ZERO);
	if (!mp->host)
		return -ENOMEM;
	atomic_long_inc(&bo->sdev->counts.managed_host_pages);
	return 0;
}

/* @mp has a VRAM page now, by fault drain @drain (or 0): the newest on its
 * VM's eviction list.
 */
static void simtgpu_managed_lru_add(struct simtgpu_bo *bo,
				    struct simtgpu_managed_page *mp, u32 drain)
{
	mp->migrated_in = drain;
	spin_lock(&bo->vm->managed_lru_lock);
	list_add_tail(&mp->lru, &bo->vm->managed_lru);
	spin_unlock(&bo->vm->managed_lru_lock);
}

/* Give back the VRAM page of @mp and its charges. */
static void simtgpu_managed_free_vram(struct simtgpu_bo *bo,
				      struct simtgpu_managed_page *mp)
{
	LIST_HEAD(blocks);

	spin_lock(&bo->vm->managed_lru_lock);
	list_del_init(&mp->lru);
	spin_unlock(&bo->vm->managed_lru_lock);
	list_add(&mp->vram->link, &blocks);
	simtgpu_vram_free(bo->sdev, &blocks);
	mp->vram = NULL;
	atomic64_sub(PAGE_SIZE, &bo->vm->vram_bytes);
	simtgpu_cg_uncharge(bo->vm->cg, PAGE_SIZE);
	atomic_long_dec(&bo->sdev->counts.managed_vram_pages);
}

/*
 * A VRAM page for @bo, charged like any VRAM: the file's limit, its
 * cgroup's, then the allocator. NULL when any says no.
 */
static struct drm_buddy_block *simtgpu_managed_try_vram(struct simtgpu_bo *bo)
{
	struct simtgpu_vm *vm = bo->vm;
	LIST_HEAD(blocks);

	if (!simtgpu_vram_limit_allows(atomic64_add_return(PAGE_SIZE,
							   &vm->vram_bytes),
				       vm->vram_limit))
		goto err_limit;
	if (simtgpu_cg_charge(vm->cg, PAGE_SIZE))
		goto err_limit;
	if (simtgpu_vram_alloc_for(bo->sdev, vm->part, PAGE_SIZE, PAGE_SIZE,
				   &blocks)) {
		simtgpu_cg_uncharge(vm->cg, PAGE_SIZE);
		goto err_limit;
	}
	atomic_long_inc(&bo->sdev->counts.managed_vram_pages);
	return list_first_entry(&blocks, struct drm_buddy_block, link);

err_limit:
	atomic64_sub(PAGE_SIZE, &vm->vram_bytes);
	return NULL;
}

/*
 * Drop the GPU's read-only duplicate of page @index of @bo; the host copy
 * is current. Under the BO's lock, with the device entered.
 */
static void simtgpu_managed_drop_duplicate(struct simtgpu_bo *bo,
					   unsigned long index)
{
	struct simtgpu_managed_page *mp = &bo->managed->pages[index];

	simtgpu_vm_write_pte(bo->vm, simtgpu_managed_va(bo, index),
			     SIMTGPU_PTE_REPLAY);
	simtgpu_tlb_invalidate(bo->sdev);
	simtgpu_managed_free_vram(bo, mp);
	mp->duplicated = false;
}

/*
 * Make page @index of @bo the CPU's: if the GPU owns it, take its PTE away,
 * copy it home and free its VRAM; a duplicate is only dropped. Counted as
 * an eviction if @evict, else as a move home. Under the BO's lock, with the
 * device entered.
 */
static int simtgpu_managed_to_host(struct simtgpu_bo *bo, unsigned long index,
				   bool evict)
{
	struct simtgpu_managed_page *mp = &bo->managed->pages[index];
	struct simtgpu_device *sdev = bo->sdev;
	ktime_t start = ktime_get();
	void *dst;
	int ret;

	ret = simtgpu_managed_host_page(bo, mp);
	if (ret || !mp->vram)
		return ret;
	if (mp->duplicated) {
		simtgpu_managed_drop_duplicate(bo, index);
		if (evict)
			simtgpu_managed_count(&bo->vm->managed.evicted,
					      &sdev->managed.evicted);
		return 0;
	}
	/* First the GPU loses the page, then it is copied: no GPU store can
	 * land in VRAM after the copy.
	 */
	simtgpu_vm_write_pte(bo->vm, simtgpu_managed_va(bo, index),
			     SIMTGPU_PTE_REPLAY);
	simtgpu_tlb_invalidate(sdev);
	dst = kmap_local_page(mp->host);
	memcpy_fromio(dst, sdev->vram + drm_buddy_block_offset(mp->vram),
		      PAGE_SIZE);
	kunmap_local(dst);
	simtgpu_managed_free_vram(bo, mp);
	if (evict)
		simtgpu_managed_count(&bo->vm->managed.evicted,
				      &sdev->managed.evicted);
	else
		simtgpu_managed_count(&bo->vm->managed.to_host,
				      &sdev->managed.to_host);
	trace_simtgpu_migrate(bo->vm->id, simtgpu_managed_va(bo, index),
			      evict ? "evict" : "host",
			      ktime_to_ns(ktime_sub(ktime_get(), start)));
	return 0;
}

/*
 * The oldest page on @vm's eviction list that may go, with its BO locked
 * (unless it is @held, whose lock the caller holds) and referenced; NULL
 * when none may.
 */
static struct simtgpu_managed_page *
simtgpu_managed_pick_victim(struct simtgpu_vm *vm, struct simtgpu_bo *held)
{
	u32 drain = READ_ONCE(vm->sdev->fault_drain);
	struct simtgpu_managed_page *mp, *victim = NULL;

	spin_lock(&vm->managed_lru_lock);
	list_for_each_entry(mp, &vm->managed_lru, lru) {
		struct simtgpu_bo *bo = mp->bo;

		if (drain && mp->migrated_in == drain)
			break; /* this drain's, and all newer */
		if (bo == held) {
			victim = mp;
			break;
		}
		/* A BO being freed takes its pages with it. */
		if (!kref_get_unless_zero(&bo->base.refcount))
			continue;
		if (mutex_trylock(&bo->managed->lock)) {
			victim = mp;
			break;
		}
		drm_gem_object_put(&bo->base);
	}
	spin_unlock(&vm->managed_lru_lock);
	return victim;
}

/**
 * simtgpu_managed_evict - make room in VRAM for @vm by moving its least
 * recently migrated managed pages home until @bytes are freed or no page
 * may go (see "Oversubscription" above). @held: the BO whose lock the
 * caller holds, or NULL. With the device entered. Returns the bytes freed.
 */
u64 simtgpu_managed_evict(struct simtgpu_vm *vm, struct simtgpu_bo *held,
			  u64 bytes)
{
	u64 freed = 0;

	while (freed < bytes) {
		struct simtgpu_managed_page *mp;
		struct simtgpu_bo *bo;
		int ret;

		mp = simtgpu_managed_pick_victim(vm, held);
		if (!mp)
			break;
		bo = mp->bo;
		ret = simtgpu_managed_to_host(bo, mp - bo->managed->pages, true);
		if (bo != held) {
			mutex_unlock(&bo->managed->lock);
			drm_gem_object_put(&bo->base);
		}
		if (ret)
			break; /* no host memory to take it */
		freed += PAGE_SIZE;
	}
	return freed;
}

/* A VRAM page for @bo, evicting its VM's oldest managed pages if need be. */
static struct drm_buddy_block *simtgpu_managed_alloc_vram(struct simtgpu_bo *bo)
{
	struct drm_buddy_block *block;

	while (!(block = simtgpu_managed_try_vram(bo)) &&
	       simtgpu_managed_evict(bo->vm, bo, PAGE_SIZE))
		;
	return block;
}

/* Whether a GPU fault on @mp maps its host page rather than moving it. */
static bool simtgpu_managed_stays_home(const struct simtgpu_managed_page *mp)
{
	return mp->preferred == SIMTGPU_ADVISE_PREFER_HOST ||
	       (!mp->preferred && mp->accessed_by_gpu);
}

/*
 * Make page @index of @bo reachable by the GPU: move it to VRAM (a
 * read-only duplicate of a read-mostly page unless @write), or, when no
 * VRAM can be had or @migrate is false, map its host page over the bus.
 * @drain: the fault drain asking, 0 for a prefetch. Under the BO's lock,
 * with the device entered.
 */
static int simtgpu_managed_to_gpu(struct simtgpu_bo *bo, unsigned long index,
				  bool migrate, bool write, u32 drain)
{
	struct simtgpu_managed_page *mp = &bo->managed->pages[index];
	struct simtgpu_device *sdev = bo->sdev;
	u64 va = simtgpu_managed_va(bo, index);
	ktime_t start = ktime_get();
	struct drm_buddy_block *block;
	struct device *dev = sdev->drm.dev;
	bool duplicate;
	u64 offset;
	int ret;

	if (mp->duplicated) {
		if (!write)
			return 0; /* another warp's read fault got there first */
		/* A GPU write: VRAM's copy becomes the only one. */
		simtgpu_managed_zap_cpu(bo, index);
		simtgpu_vm_write_pte(bo->vm, va,
				     SIMTGPU_PTE_MAKE(drm_buddy_block_offset(mp->vram),
						      SIMTGPU_PTE_V |
						      SIMTGPU_PTE_R |
						      SIMTGPU_PTE_W));
		simtgpu_tlb_invalidate(sdev); /* SMs hold the read-only one */
		mp->duplicated = false;
		trace_simtgpu_migrate(bo->vm->id, va, "vram",
				      ktime_to_ns(ktime_sub(ktime_get(), start)));
		return 0;
	}
	/* Another warp's fault on the same page got there first. */
	if (mp->vram || mp->dma)
		return 0;

	duplicate = migrate && !write && mp->read_mostly &&
		    simtgpu_managed_can_duplicate(sdev);
	if (duplicate) {
		/* The host keeps its copy: it needs one. */
		ret = simtgpu_managed_host_page(bo, mp);
		if (ret)
			return ret;
	}
	block = migrate ? simtgpu_managed_alloc_vram(bo) : NULL;
	if (!block) {
		ret = simtgpu_managed_host_page(bo, mp);
		if (ret)
			return ret;
		mp->dma = dma_map_page(dev, mp->host, 0, PAGE_SIZE,
				       DMA_BIDIRECTIONAL);
		if (dma_mapping_error(dev, mp->dma)) {
			mp->dma = 0;
			return -ENOMEM;
		}
		simtgpu_vm_write_pte(bo->vm, va,
				     SIMTGPU_PTE_MAKE(mp->dma, SIMTGPU_PTE_V |
						      SIMTGPU_PTE_R |
						      SIMTGPU_PTE_W |
						      SIMTGPU_PTE_HOST));
		simtgpu_managed_count(&bo->vm->managed.remote,
				      &bo->sdev->managed.remote);
		trace_simtgpu_migrate(bo->vm->id, va, "remote",
				      ktime_to_ns(ktime_sub(ktime_get(),
							    start)));
		return 0;
	}

	offset = drm_buddy_block_offset(block);
	if (mp->host) {
		void *src;

		/* No CPU store may land in the host page after the copy (a
		 * duplicate's CPU mapping comes back read-only).
		 */
		simtgpu_managed_zap_cpu(bo, index);
		src = kmap_local_page(mp->host);
		memcpy_toio(sdev->vram + offset, src, PAGE_SIZE);
		kunmap_local(src);
	} else {
		/* Never touched: zeros, and no CPU mapping to take away. */
		memset_io(sdev->vram + offset, 0, PAGE_SIZE);
	}
	mp->vram = block;
	mp->duplicated = duplicate;
	simtgpu_managed_lru_add(bo, mp, drain);
	wmb(); /* the data is in VRAM before the PTE points at it */
	simtgpu_vm_write_pte(bo->vm, va,
			     SIMTGPU_PTE_MAKE(offset, SIMTGPU_PTE_V |
					      SIMTGPU_PTE_R |
					      (duplicate ? SIMTGPU_PTE_REPLAY :
							   SIMTGPU_PTE_W)));
	if (duplicate)
		simtgpu_managed_count(&bo->vm->managed.duplicated,
				      &bo->sdev->managed.duplicated);
	else
		simtgpu_managed_count(&bo->vm->managed.to_vram,
				      &bo->sdev->managed.to_vram);
	trace_simtgpu_migrate(bo->vm->id, va, duplicate ? "duplicate" : "vram",
			      ktime_to_ns(ktime_sub(ktime_get(), start)));
	return 0;
}

/* ------------------------------------------------------- CPU faults --- */

static vm_fault_t simtgpu_managed_vm_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct drm_gem_object *obj = vma->vm_private_data;
	struct simtgpu_bo *bo = to_simtgpu_bo(obj);
	struct simtgpu_managed *managed = bo->managed;
	unsigned long index = vmf->pgoff - drm_vma_node_start(&obj->vma_node);
	struct simtgpu_managed_page *mp;
	vm_fault_t fault;
	int idx, ret;

	if (index >= managed->npages)
		return VM_FAULT_SIGBUS;
	mp = &managed->pages[index];
	mutex_lock(&managed->lock);
	if (mp->duplicated && !(vmf->flags & FAULT_FLAG_WRITE)) {
		/* Both have it: the CPU reads its own copy, read-only. */
		fault = vmf_insert_pfn_prot(vma, vmf->address,
					    page_to_pfn(mp->host),
					    vm_get_page_prot(vma->vm_flags &
							     ~VM_WRITE));
		mutex_unlock(&managed->lock);
		return fault;
	}
	if (mp->vram) {
		/* Its only copy is in VRAM: gone with the device. */
		if (!drm_dev_enter(&bo->sdev->drm, &idx)) {
			mutex_unlock(&managed->lock);
			return VM_FAULT_SIGBUS;
		}
		ret = simtgpu_managed_to_host(bo, index, false);
		drm_dev_exit(idx);
	} else {
		ret = simtgpu_managed_host_page(bo, mp);
	}
	if (ret)
		fault = ret == -ENOMEM ? VM_FAULT_OOM : VM_FAULT_SIGBUS;
	else
		fault = vmf_insert_pfn_prot(vma, vmf->address,
					    page_to_pfn(mp->host),
					    vm_get_page_prot(vma->vm_flags));
	mutex_unlock(&managed->lock);
	return fault;
}

/* A CPU write to a page it maps read-only: a read-mostly page's duplicate
 * goes, then the kernel makes the mapping writable.
 */
static vm_fault_t simtgpu_managed_pfn_mkwrite(struct vm_fault *vmf)
{
	struct drm_gem_object *obj = vmf->vma->vm_private_data;
	struct simtgpu_bo *bo = to_simtgpu_bo(obj);
	struct simtgpu_managed *managed = bo->managed;
	unsigned long index = vmf->pgoff - drm_vma_node_start(&obj->vma_node);
	vm_fault_t fault = 0;
	int idx;

	if (index >= managed->npages)
		return VM_FAULT_SIGBUS;
	mutex_lock(&managed->lock);
	if (managed->pages[index].duplicated) {
		if (drm_dev_enter(&bo->sdev->drm, &idx)) {
			simtgpu_managed_drop_duplicate(bo, index);
			drm_dev_exit(idx);
		} else {
			fault = VM_FAULT_SIGBUS;
		}
	}
	mutex_unlock(&managed->lock);
	return fault;
}

static const struct vm_operations_struct simtgpu_managed_vm_ops = {
	.fault = simtgpu_managed_vm_fault,
	.pfn_mkwrite = simtgpu_managed_pfn_mkwrite,
	.open = drm_gem_vm_open,
	.close = drm_gem_vm_close,
};

/**
 * simtgpu_managed_mmap - map @bo for the CPU: nothing is mapped now, each
 * page on its first access (simtgpu_managed_vm_fault()). Only shared
 * mappings: a private one would copy pages on write and never see the
 * GPU's data.
 */
int simtgpu_managed_mmap(struct simtgpu_bo *bo, struct vm_area_struct *vma)
{
	if (is_cow_mapping(vma->vm_flags))
		return -EINVAL;
	vma->vm_flags |= VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP;
	vma->vm_page_prot = vm_get_page_prot(vma->vm_flags);
	vma->vm_ops = &simtgpu_managed_vm_ops;
	return 0;
}

/* -------------------------------------------------------- prefetch --- */

/*
 * The managed BO @handle of @file, with a reference, if [@offset, @offset +
 * @size) lies in it: -ENOENT for no such handle, -EINVAL for a BO that is
 * not managed or a range past its end.
 */
static int simtgpu_managed_range(struct drm_file *file, u32 handle,
				 u64 offset, u64 size, struct simtgpu_bo **out)
{
	struct drm_gem_object *obj = drm_gem_object_lookup(file, handle);

	if (!obj)
		return -ENOENT;
	if (!to_simtgpu_bo(obj)->managed || offset >= obj->size ||
	    size > obj->size - offset) {
		drm_gem_object_put(obj);
		return -EINVAL;
	}
	*out = to_simtgpu_bo(obj);
	return 0;
}

/**
 * simtgpu_ioctl_managed_prefetch - MANAGED_PREFETCH: move the pages of a
 * managed BO in a range to VRAM (or home) now, as the GPU's (or the CPU's)
 * faults would one at a time, so that the accesses after it take none.
 * What the caller's earlier GPU work does to the pages it has waited for:
 * the pages only change place, never contents, so even a running kernel
 * still reads and writes them right (through a fault, at worst).
 */
int simtgpu_ioctl_managed_prefetch(struct drm_device *dev, void *data,
				   struct drm_file *file)
{
	struct drm_simtgpu_managed_prefetch *args = data;
	bool to_host = args->flags & SIMTGPU_PREFETCH_TO_HOST;
	struct drm_gem_object *obj;
	unsigned long first, last, index;
	struct simtgpu_bo *bo;
	int idx, ret = 0;

	ret = simtgpu_managed_prefetch_check(args);
	if (ret)
		return ret;
	ret = simtgpu_managed_range(file, args->handle, args->offset,
				    args->size, &bo);
	if (ret)
		return ret;
	obj = &bo->base;
	if (!drm_dev_enter(dev, &idx)) {
		ret = -ENODEV;
		goto out_put;
	}
	first = args->offset >> PAGE_SHIFT;
	last = (args->offset + args->size - 1) >> PAGE_SHIFT;
	args->moved = 0;
	mutex_lock(&bo->managed->lock);
	for (index = first; index <= last && !ret; ++index) {
		struct simtgpu_managed_page *mp = &bo->managed->pages[index];

		if (to_host ? !mp->vram : mp->vram || mp->dma)
			continue; /* already there */
		ret = to_host ? simtgpu_managed_to_host(bo, index, false) :
				simtgpu_managed_to_gpu(bo, index, true, false, 0);
		if (!ret)
			args->moved++;
		if (fatal_signal_pending(current))
			ret = -EINTR;
	}
	mutex_unlock(&bo->managed->lock);
	drm_dev_exit(idx);
	if (ret)
		drm_dbg_driver(dev, "prefetch of BO %u stopped at page %lu: %d\n",
			       args->handle, index - 1, ret);
out_put:
	drm_gem_object_put(obj);
	return ret;
}

/* ---------------------------------------------------------- advice --- */

/**
 * simtgpu_ioctl_managed_advise - MANAGED_ADVISE: record where the pages of
 * a range should live, for the GPU faults after it (cudaMemAdvise). Pages
 * do not move now; the next GPU fault on one follows the advice. Only
 * UNSET_READ_MOSTLY acts at once: it drops the range's duplicates.
 */
int simtgpu_ioctl_managed_advise(struct drm_device *dev, void *data,
				 struct drm_file *file)
{
	struct drm_simtgpu_managed_advise *args = data;
	unsigned long first, last, index;
	struct simtgpu_bo *bo;
	int idx, ret;

	ret = simtgpu_managed_advise_check(args);
	if (ret)
		return ret;
	ret = simtgpu_managed_range(file, args->handle, args->offset,
				    args->size, &bo);
	if (ret)
		return ret;
	/* Dropping duplicates writes PTEs and registers. */
	if (!drm_dev_enter(dev, &idx)) {
		drm_gem_object_put(&bo->base);
		return -ENODEV;
	}
	first = args->offset >> PAGE_SHIFT;
	last = (args->offset + args->size - 1) >> PAGE_SHIFT;
	mutex_lock(&bo->managed->lock);
	for (index = first; index <= last; ++index) {
		struct simtgpu_managed_page *mp = &bo->managed->pages[index];

		switch (args->advice) {
		case SIMTGPU_ADVISE_PREFER_HOST:
		case SIMTGPU_ADVISE_PREFER_VRAM:
			mp->preferred = args->advice;
			break;
		case SIMTGPU_ADVISE_UNSET_PREFERRED:
			mp->preferred = 0;
			break;
		case SIMTGPU_ADVISE_READ_MOSTLY:
			mp->read_mostly = true;
			break;
		case SIMTGPU_ADVISE_UNSET_READ_MOSTLY:
			mp->read_mostly = false;
			if (mp->duplicated)
				simtgpu_managed_drop_duplicate(bo, index);
			break;
		default:
			mp->accessed_by_gpu =
				args->advice == SIMTGPU_ADVISE_ACCESSED_BY_GPU;
		}
	}
	mutex_unlock(&bo->managed->lock);
	drm_dev_exit(idx);
	drm_gem_object_put(&bo->base);
	return 0;
}

/* ------------------------------------------------------- GPU faults --- */

/*
 * Service one GPU fault: 0 when the page is now present, else why the
 * launch must end (-ESRCH: no such context, -EFAULT: no managed BO there,
 * -EACCES: an instruction fetch, -ENOMEM).
 */
static int simtgpu_managed_service(struct simtgpu_device *sdev, u32 context,
				   u64 va, u32 access)
{
	struct simtgpu_vm *vm;
	struct simtgpu_bo *bo;
	unsigned long index;
	int ret;

	vm = simtgpu_vm_lookup(sdev, context);
	if (!vm)
		return -ESRCH;
	bo = simtgpu_vm_lookup_bo(vm, va);
	if (!bo || !bo->managed) {
		ret = -EFAULT;
		goto out;
	}
	if (access == SIMTGPU_ACCESS_EXEC) {
		ret = -EACCES;
		goto out;
	}
	index = (va - bo->va.start) >> PAGE_SHIFT;
	mutex_lock(&bo->managed->lock);
	ret = simtgpu_managed_to_gpu(bo, index,
				     !simtgpu_managed_stays_home(&bo->managed->pages[index]),
				     access == SIMTGPU_ACCESS_WRITE ||
				     access == SIMTGPU_ACCESS_ATOMIC,
				     READ_ONCE(sdev->fault_drain));
	mutex_unlock(&bo->managed->lock);
	if (!ret)
		simtgpu_managed_count(&bo->vm->managed.gpu_faults,
				      &bo->sdev->managed.gpu_faults);
out:
	if (bo)
		drm_gem_object_put(&bo->base);
	simtgpu_vm_put(vm);
	return ret;
}

/*
 * Drain the fault queue: service each entry, cancel the launches of
 * contexts whose fault no managed memory explains, then let every held warp
 * retry. A fault queued after the drain raises the interrupt again.
 */
static void simtgpu_managed_fault_work(struct work_struct *work)
{
	struct simtgpu_device *sdev = container_of(work, struct simtgpu_device,
						   fault_work);
	int idx;

	if (!drm_dev_enter(&sdev->drm, &idx))
		return;
	/* Numbered from 1 (0 is "none"), wrapping past 0. */
	sdev->fault_drains = sdev->fault_drains + 1 ?: 1;
	WRITE_ONCE(sdev->fault_drain, sdev->fault_drains);
	while (simtgpu_read(sdev, SIMTGPU_REG_FAULT_COUNT)) {
		u64 va = simtgpu_read(sdev, SIMTGPU_REG_FAULT_ADDR_LO) |
			 (u64)simtgpu_read(sdev, SIMTGPU_REG_FAULT_ADDR_HI) << 32;
		u32 access = simtgpu_read(sdev, SIMTGPU_REG_FAULT_ACCESS);
		u32 context = simtgpu_read(sdev, SIMTGPU_REG_FAULT_CONTEXT);
		int ret;

		simtgpu_write(sdev, SIMTGPU_REG_FAULT_POP, 1);
		ret = simtgpu_managed_service(sdev, context, va, access);
		if (!ret)
			continue;
		drm_dbg_driver(&sdev->drm,
			       "GPU fault at 0x%llx (access %u) in context %u not serviced (%d: no managed memory there, or none left): its launch ends\n",
			       va, access, context, ret);
		atomic64_inc(&sdev->managed.cancelled);
		simtgpu_write(sdev, SIMTGPU_REG_FAULT_CANCEL_CONTEXT, context);
		simtgpu_write(sdev, SIMTGPU_REG_FAULT_REPLAY,
			      SIMTGPU_REPLAY_CANCEL);
	}
	/* No TLB holds a non-valid PTE (hardware.md): the new PTEs need no
	 * invalidation, only the retry (a duplicate made writable was
	 * invalidated by simtgpu_managed_to_gpu()). Also after a cancel: the other
	 * contexts' warps, and warps a full queue left out, are held too.
	 */
	simtgpu_write(sdev, SIMTGPU_REG_FAULT_REPLAY, SIMTGPU_REPLAY_RETRY);
	WRITE_ONCE(sdev->fault_drain, 0);
	drm_dev_exit(idx);
}

/**
 * simtgpu_managed_fault_irq - SIMTGPU_IRQ_FAULT, acked by the caller in hard
 * interrupt context: the servicing sleeps, so it runs in a work item.
 */
void simtgpu_managed_fault_irq(struct simtgpu_device *sdev)
{
	if (sdev->fault_wq)
		queue_work(sdev->fault_wq, &sdev->fault_work);
}

static void simtgpu_fault_wq_fini(struct drm_device *drm, void *data)
{
	struct simtgpu_device *sdev = data;

	destroy_workqueue(sdev->fault_wq); /* runs what is still queued */
}

/**
 * simtgpu_managed_init - the fault work's queue, at probe (ordered: one
 * drain at a time). Nothing on a device without replayable faults.
 */
int simtgpu_managed_init(struct simtgpu_device *sdev)
{
	BUILD_BUG_ON(PAGE_SIZE != SIMTGPU_PAGE_SIZE);
	INIT_WORK(&sdev->fault_work, simtgpu_managed_fault_work);
	if (!(sdev->caps & SIMTGPU_CAP_REPLAYABLE_FAULTS))
		return 0;
	sdev->fault_wq = alloc_ordered_workqueue("simtgpu-fault",
						 WQ_MEM_RECLAIM | WQ_HIGHPRI);
	if (!sdev->fault_wq)
		return -ENOMEM;
	return drmm_add_action_or_reset(&sdev->drm, simtgpu_fault_wq_fini,
					sdev);
}

/* ------------------------------------------------------ BO lifetime --- */

/**
 * simtgpu_managed_create - a managed BO of @size bytes in @file's address
 * space (at @fixed_va with SIMTGPU_BO_FIXED_VA): every page in host memory
 * (allocated on first touch), every PTE a replayable fault.
 */
struct simtgpu_bo *simtgpu_managed_create(struct drm_device *dev,
					  struct drm_file *file, u64 size,
					  u32 flags, u64 fixed_va)
{
	unsigned long i, npages = size >> PAGE_SHIFT;
	struct simtgpu_managed *managed;
	struct simtgpu_bo *bo;
	int ret;

	bo = simtgpu_bo_alloc(dev, file, size, flags);
	if (IS_ERR(bo))
		return bo;
	managed = kvzalloc(struct_size(managed, pages, npages), GFP_KERNEL);
	if (!managed) {
		ret = -ENOMEM;
		goto err_put;
	}
	mutex_init(&managed->lock);
	managed->npages = npages;
	for (i = 0; i < npages; i++) {
		INIT_LIST_HEAD(&managed->pages[i].lru);
		managed->pages[i].bo = bo;
	}
	bo->managed = managed;
	ret = simtgpu_vm_map_bo(bo->vm, bo, fixed_va);
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

/**
 * simtgpu_managed_release - free @bo's pages, host and VRAM, once no job
 * and no CPU mapping can use them (the BO's release, simtgpu_bo.c).
 */
void simtgpu_managed_release(struct simtgpu_bo *bo)
{
	struct simtgpu_managed *managed = bo->managed;
	unsigned long i;

	if (!managed)
		return;
	for (i = 0; i < managed->npages; i++) {
		struct simtgpu_managed_page *mp = &managed->pages[i];

		if (mp->vram)
			simtgpu_managed_free_vram(bo, mp);
		if (mp->dma)
			dma_unmap_page(bo->sdev->drm.dev, mp->dma, PAGE_SIZE,
				       DMA_BIDIRECTIONAL);
		if (mp->host) {
			__free_page(mp->host);
			atomic_long_dec(&bo->sdev->counts.managed_host_pages);
		}
	}
	mutex_destroy(&managed->lock);
	kvfree(managed);
	bo->managed = NULL;
}

/* debugfs "managed": the device's counters since probe. */
void simtgpu_managed_debugfs_show(struct simtgpu_device *sdev,
				  struct seq_file *m)
{
	struct simtgpu_managed_stats *s = &sdev->managed;

	seq_printf(m, "replayable_faults %s\n",
		   sdev->caps & SIMTGPU_CAP_REPLAYABLE_FAULTS ? "yes" : "no");
	seq_printf(m, "gpu_faults %lld\n", atomic64_read(&s->gpu_faults));
	seq_printf(m, "to_vram %lld\n", atomic64_read(&s->to_vram));
	seq_printf(m, "to_host %lld\n", atomic64_read(&s->to_host));
	seq_printf(m, "remote %lld\n", atomic64_read(&s->remote));
	seq_printf(m, "duplicated %lld\n", atomic64_read(&s->duplicated));
	seq_printf(m, "evicted %lld\n", atomic64_read(&s->evicted));
	seq_printf(m, "cancelled %lld\n", atomic64_read(&s->cancelled));
	seq_printf(m, "host_pages %ld\n",
		   atomic_long_read(&sdev->counts.managed_host_pages));
	seq_printf(m, "vram_pages %ld\n",
		   atomic_long_read(&sdev->counts.managed_vram_pages));
}
