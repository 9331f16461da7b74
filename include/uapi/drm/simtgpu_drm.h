/* SPDX-License-Identifier: MIT */
/*
 * simtgpu uAPI: the interface between the simtgpu kernel driver (kmd/) and
 * userspace (umd/, and umd's in-process transport, which implements the same
 * ioctls on the simulator).
 *
 * DOC: Rules
 *
 * - Every struct is 64-bit aligned and uses only __u32/__u64; pointers are
 *   __u64. Padding and reserved fields must be zero (-EINVAL otherwise).
 * - Unknown flag bits are -EINVAL. Flags are added, never removed.
 * - New fields go at the end or into padding; zero keeps the old behaviour.
 *   Each struct's `extensions` pointer (0 today) allows chained growth.
 * - Arrays carry a stride so that their elements may grow.
 * - Ioctl numbers are only appended. Each addition bumps
 *   SIMTGPU_UAPI_VERSION_MINOR; an incompatible change bumps the major.
 *
 * docs/uapi.md documents each ioctl, its fields and every errno.
 */
#ifndef _UAPI_SIMTGPU_DRM_H_
#define _UAPI_SIMTGPU_DRM_H_

#include "drm.h"

#if defined(__cplusplus)
extern "C" {
#endif

#define SIMTGPU_UAPI_VERSION_MAJOR 1
#define SIMTGPU_UAPI_VERSION_MINOR 11

#define DRM_SIMTGPU_GET_PARAM 0x00
#define DRM_SIMTGPU_BO_CREATE 0x01
#define DRM_SIMTGPU_BO_MMAP_OFFSET 0x02
#define DRM_SIMTGPU_BO_INFO 0x03
#define DRM_SIMTGPU_SUBMIT 0x04
#define DRM_SIMTGPU_WAIT_BO 0x05
#define DRM_SIMTGPU_QUEUE_CREATE 0x06
#define DRM_SIMTGPU_QUEUE_DESTROY 0x07
#define DRM_SIMTGPU_QUEUE_GET_STATE 0x08
#define DRM_SIMTGPU_BO_USERPTR 0x09 /* 1.3 */
#define DRM_SIMTGPU_MANAGED_PREFETCH 0x0a /* 1.8 */
#define DRM_SIMTGPU_MANAGED_ADVISE 0x0b /* 1.9 */

#define DRM_IOCTL_SIMTGPU_GET_PARAM \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_SIMTGPU_GET_PARAM, \
		 struct drm_simtgpu_get_param)
#define DRM_IOCTL_SIMTGPU_BO_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_SIMTGPU_BO_CREATE, \
		 struct drm_simtgpu_bo_create)
#define DRM_IOCTL_SIMTGPU_BO_MMAP_OFFSET \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_SIMTGPU_BO_MMAP_OFFSET, \
		 struct drm_simtgpu_bo_mmap_offset)
#define DRM_IOCTL_SIMTGPU_BO_INFO \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_SIMTGPU_BO_INFO, \
		 struct drm_simtgpu_bo_info)
#define DRM_IOCTL_SIMTGPU_SUBMIT \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_SIMTGPU_SUBMIT, \
		 struct drm_simtgpu_submit)
#define DRM_IOCTL_SIMTGPU_WAIT_BO \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_SIMTGPU_WAIT_BO, \
		 struct drm_simtgpu_wait_bo)
#define DRM_IOCTL_SIMTGPU_QUEUE_CREATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_SIMTGPU_QUEUE_CREATE, \
		 struct drm_simtgpu_queue_create)
#define DRM_IOCTL_SIMTGPU_QUEUE_DESTROY \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_SIMTGPU_QUEUE_DESTROY, \
		 struct drm_simtgpu_queue_destroy)
#define DRM_IOCTL_SIMTGPU_QUEUE_GET_STATE \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_SIMTGPU_QUEUE_GET_STATE, \
		 struct drm_simtgpu_queue_get_state)
#define DRM_IOCTL_SIMTGPU_BO_USERPTR \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_SIMTGPU_BO_USERPTR, \
		 struct drm_simtgpu_bo_userptr)
#define DRM_IOCTL_SIMTGPU_MANAGED_PREFETCH \
	DRM_IOWR(DRM_COMMAND_BASE + DRM_SIMTGPU_MANAGED_PREFETCH, \
		 struct drm_simtgpu_managed_prefetch)
#define DRM_IOCTL_SIMTGPU_MANAGED_ADVISE \
	DRM_IOW(DRM_COMMAND_BASE + DRM_SIMTGPU_MANAGED_ADVISE, \
		struct drm_simtgpu_managed_advise)

/* GET_PARAM: read one device or driver property. */
enum drm_simtgpu_param {
	SIMTGPU_PARAM_UAPI_VERSION = 0, /* major << 16 | minor */
	SIMTGPU_PARAM_HW_VERSION = 1, /* SIMTGPU_REG_HW_VERSION */
	SIMTGPU_PARAM_ARCH = 2, /* SIMTGPU_ARCH_* */
	SIMTGPU_PARAM_NUM_SMS = 3,
	SIMTGPU_PARAM_WARPS_PER_SM = 4,
	SIMTGPU_PARAM_WARP_SIZE = 5,
	SIMTGPU_PARAM_CTAS_PER_SM = 6,
	SIMTGPU_PARAM_SHARED_PER_SM = 7,
	SIMTGPU_PARAM_MAX_THREADS_PER_CTA = 8,
	SIMTGPU_PARAM_VRAM_SIZE = 9, /* bytes */
	SIMTGPU_PARAM_VRAM_USED = 10, /* bytes, whole device */
	SIMTGPU_PARAM_VRAM_LIMIT = 11, /* this file's limit, 0 = none */
	SIMTGPU_PARAM_CLOCK_KHZ = 12,
	SIMTGPU_PARAM_MAX_STACK_PER_THREAD = 13,
	SIMTGPU_PARAM_TIMESTAMP = 14, /* current global timer, ns */
	SIMTGPU_PARAM_CAPS = 15, /* SIMTGPU_CAP_* */
	SIMTGPU_PARAM_NUM_QUEUES_MAX = 16, /* queues per file */
	/* 1.1: the cgroup VRAM limit (dmem "max") that applies to this
	 * file's cgroup, the lowest of its ancestors'; ~0 = none.
	 */
	SIMTGPU_PARAM_CGROUP_VRAM_MAX = 17,
	/* 1.1: VRAM charged to the cgroup whose max that is (dmem
	 * "current"); this file's own cgroup when there is no limit.
	 */
	SIMTGPU_PARAM_CGROUP_VRAM_CURRENT = 18,
	/* 1.2: 0 on the whole GPU's render node, else the id + 1 of the
	 * partition whose render node this is (NUM_SMS and VRAM_* are then
	 * the partition's).
	 */
	SIMTGPU_PARAM_PARTITION = 19,
	/* 1.2: partitions that exist; while any does, the whole GPU's node
	 * runs no work (QUEUE_CREATE fails with EBUSY).
	 */
	SIMTGPU_PARAM_NUM_PARTITIONS = 20,
	/* 1.4: the memory hierarchy the device models (SIMTGPU_REG_L2_SIZE
	 * and the two after it): L2 bytes, DRAM bus width in bits, DRAM
	 * clock in kHz; 0 where it models none. An older driver answers
	 * -EINVAL.
	 */
	SIMTGPU_PARAM_L2_SIZE = 21,
	SIMTGPU_PARAM_MEM_BUS_WIDTH = 22,
	SIMTGPU_PARAM_MEM_CLOCK_KHZ = 23,
	/* 1.6: managed memory (SIMTGPU_BO_MANAGED) of this file so far: GPU
	 * page faults serviced, pages migrated to VRAM, pages migrated back
	 * to host memory by CPU faults (and, from 1.8, by MANAGED_PREFETCH
	 * either way). An older driver answers -EINVAL.
	 */
	SIMTGPU_PARAM_MANAGED_GPU_FAULTS = 24,
	SIMTGPU_PARAM_MANAGED_TO_VRAM = 25,
	SIMTGPU_PARAM_MANAGED_TO_HOST = 26,
	/* 1.7: L2 access management (SIMTGPU_REG_L2_PERSISTING_MAX and
	 * SIMTGPU_REG_L2_WINDOW_MAX): the most bytes of L2 that may be set
	 * aside for persisting lines and the largest access policy window of
	 * SIMTGPU_PKT_L2_POLICY; 0 where the device has none. An older driver
	 * answers -EINVAL.
	 */
	SIMTGPU_PARAM_L2_PERSISTING_MAX = 27,
	SIMTGPU_PARAM_L2_WINDOW_MAX = 28,
	/* 1.10: managed pages of this file copied to VRAM as read-only
	 * duplicates (MANAGED_ADVISE READ_MOSTLY), the host keeping its copy.
	 * An older driver answers -EINVAL.
	 */
	SIMTGPU_PARAM_MANAGED_DUPLICATED = 29,
	/* 1.11: managed pages of this file that the GPU maps over the bus
	 * because no VRAM could be had for them, and pages evicted from VRAM
	 * to host memory to make room for others (oversubscription; not
	 * counted in MANAGED_TO_HOST). An older driver answers -EINVAL.
	 */
	SIMTGPU_PARAM_MANAGED_REMOTE = 30,
	SIMTGPU_PARAM_MANAGED_EVICTED = 31,
};

struct drm_simtgpu_get_param {
	__u32 param; /* in: enum drm_simtgpu_param */
	__u32 pad; /* in: must be 0 */
	__u64 value; /* out */
};

/* BO_CREATE: allocate a buffer object in VRAM and map it into this file's
 * GPU address space.
 */
#define SIMTGPU_BO_EXEC (1u << 0) /* map executable (device code) */
#define SIMTGPU_BO_READ_ONLY (1u << 1) /* GPU may not write it */
/* 1.5: where the BO's GPU VA goes (at most one of the two; neither: the
 * lowest free range at or above SIMTGPU_USER_VA_START, as before).
 * HIGH_VA: the lowest free range at or above SIMTGPU_HIGH_VA_START (2^47),
 * the upper half of the 48-bit space, where no x86-64 process has memory.
 * FIXED_VA: exactly at gpu_va (then an input, page aligned), with no guard
 * page: -ERANGE when [gpu_va, gpu_va + size) is not inside
 * [SIMTGPU_USER_VA_START, SIMTGPU_USER_VA_END), -EEXIST when part of it is
 * already mapped. Unified addressing uses both: device memory HIGH_VA, host
 * memory FIXED_VA at its own address.
 */
#define SIMTGPU_BO_HIGH_VA (1u << 2)
#define SIMTGPU_BO_FIXED_VA (1u << 3)
/* 1.6: managed memory, one address for the CPU and the GPU: the BO's pages
 * start in host memory (zeroed) and move to VRAM when the GPU touches them
 * (a replayable GPU page fault, hw.h) and back when the CPU touches them
 * through the BO's mmap() (a CPU page fault). Map it with FIXED_VA at the
 * address where the caller will mmap() it. -ENODEV on a device without
 * SIMTGPU_CAP_REPLAYABLE_FAULTS; not with EXEC or READ_ONLY (-EINVAL).
 */
#define SIMTGPU_BO_MANAGED (1u << 4)
#define SIMTGPU_BO_FLAGS (SIMTGPU_BO_EXEC | SIMTGPU_BO_READ_ONLY | \
			  SIMTGPU_BO_HIGH_VA | SIMTGPU_BO_FIXED_VA | \
			  SIMTGPU_BO_MANAGED)

struct drm_simtgpu_bo_create {
	__u64 size; /* in: bytes, > 0; rounded up to 4 KiB */
	__u32 flags; /* in: SIMTGPU_BO_* */
	__u32 handle; /* out: GEM handle */
	__u64 gpu_va; /* out: GPU virtual address in this file's VM;
		       * in with SIMTGPU_BO_FIXED_VA (1.5)
		       */
	__u64 extensions; /* in: must be 0 */
};

/* BO_USERPTR (1.3): make a range of the caller's own memory a BO, pinned
 * while the BO lives and mapped at one GPU VA of this file's address space;
 * the GPU reaches it over the bus (what CUDA calls host-registered, mapped or
 * zero-copy memory). The range must be page aligned and mapped in the
 * caller; it is not VRAM and counts against no VRAM limit. BO_MMAP_OFFSET is
 * -EINVAL for such a BO: the caller already has the memory.
 */
#define SIMTGPU_BO_USERPTR_FLAGS \
	(SIMTGPU_BO_READ_ONLY | SIMTGPU_BO_HIGH_VA | SIMTGPU_BO_FIXED_VA)

struct drm_simtgpu_bo_userptr {
	__u64 user_ptr; /* in: page aligned */
	__u64 size; /* in: bytes, > 0, page aligned */
	__u32 flags; /* in: SIMTGPU_BO_READ_ONLY, _HIGH_VA, _FIXED_VA (1.5) */
	__u32 handle; /* out: GEM handle */
	__u64 gpu_va; /* out: GPU virtual address of user_ptr;
		       * in with SIMTGPU_BO_FIXED_VA (1.5)
		       */
	__u64 extensions; /* in: must be 0 */
};

/* MANAGED_PREFETCH (1.8): move the pages of a managed BO that [offset,
 * offset + size) touches to VRAM (flags 0: the GPU's accesses then take no
 * fault) or home to host memory (SIMTGPU_PREFETCH_TO_HOST: the CPU's then
 * take none), now, as the GPU and CPU faults would one page at a time
 * (cudaMemPrefetchAsync). Pages already there stay; a page that finds VRAM
 * full is mapped over the bus instead, as on a fault. Ordering against the
 * GPU's work is the caller's: userspace waits for the work before it.
 */
#define SIMTGPU_PREFETCH_TO_HOST (1u << 0)

struct drm_simtgpu_managed_prefetch {
	__u32 handle; /* in: a SIMTGPU_BO_MANAGED BO */
	__u32 flags; /* in: SIMTGPU_PREFETCH_TO_HOST or 0 */
	__u64 offset; /* in: bytes into the BO */
	__u64 size; /* in: bytes, > 0, within the BO */
	__u64 moved; /* out: pages moved (not those already there) */
	__u64 extensions; /* in: must be 0 */
};

/* MANAGED_ADVISE (1.9): where the pages of a managed BO that [offset,
 * offset + size) touches should live (cudaMemAdvise). By default a GPU
 * fault moves a page to VRAM. PREFER_HOST, or ACCESSED_BY_GPU with no
 * preferred place, makes it map the host page over the bus instead (as
 * when VRAM is full): the page stays in host memory, where the CPU keeps its
 * mapping, and the GPU reaches it remotely. PREFER_VRAM moves it (also with
 * ACCESSED_BY_GPU). The advice holds for the faults after it: pages already
 * in VRAM or mapped stay; MANAGED_PREFETCH still moves pages where it is
 * told.
 * READ_MOSTLY (1.10): a GPU read fault (or a prefetch to the GPU) copies the
 * page to VRAM as a read-only duplicate and the host keeps its copy, which
 * the CPU may read without moving it back (cudaMemAdviseSetReadMostly). The
 * first write collapses the duplicates: by the CPU to its host copy, by the
 * GPU (a replayable write fault, hw 1.6) to its VRAM copy.
 * UNSET_READ_MOSTLY drops the duplicates now; the host copies stay.
 */
enum drm_simtgpu_managed_advice {
	SIMTGPU_ADVISE_PREFER_HOST = 1,
	SIMTGPU_ADVISE_PREFER_VRAM = 2,
	SIMTGPU_ADVISE_UNSET_PREFERRED = 3,
	SIMTGPU_ADVISE_ACCESSED_BY_GPU = 4,
	SIMTGPU_ADVISE_UNSET_ACCESSED_BY_GPU = 5,
	SIMTGPU_ADVISE_READ_MOSTLY = 6, /* 1.10 */
	SIMTGPU_ADVISE_UNSET_READ_MOSTLY = 7, /* 1.10 */
};

struct drm_simtgpu_managed_advise {
	__u32 handle; /* in: a SIMTGPU_BO_MANAGED BO */
	__u32 advice; /* in: SIMTGPU_ADVISE_* */
	__u64 offset; /* in: bytes into the BO */
	__u64 size; /* in: bytes, > 0, within the BO */
	__u64 extensions; /* in: must be 0 */
};

/* BO_MMAP_OFFSET: the fake offset to mmap() the BO on this fd. */
struct drm_simtgpu_bo_mmap_offset {
	__u32 handle; /* in */
	__u32 flags; /* in: must be 0 */
	__u64 offset; /* out */
};

/* BO_INFO: size, flags and address of a BO. */
struct drm_simtgpu_bo_info {
	__u32 handle; /* in */
	__u32 flags; /* out: SIMTGPU_BO_* it was created with */
	__u64 size; /* out: bytes (page aligned) */
	__u64 gpu_va; /* out */
};

/* QUEUE_CREATE: a submission queue (a drm_sched entity). */
enum drm_simtgpu_priority {
	SIMTGPU_PRIORITY_LOW = 0,
	SIMTGPU_PRIORITY_NORMAL = 1,
	SIMTGPU_PRIORITY_HIGH = 2,
};

struct drm_simtgpu_queue_create {
	__u32 priority; /* in: enum drm_simtgpu_priority */
	__u32 flags; /* in: must be 0 */
	__u32 queue_id; /* out */
	__u32 pad; /* in: must be 0 */
};

struct drm_simtgpu_queue_destroy {
	__u32 queue_id; /* in */
	__u32 pad; /* in: must be 0 */
};

/* QUEUE_GET_STATE: why a queue's jobs failed. */
#define SIMTGPU_QUEUE_STATE_FAULTED (1u << 0) /* a job faulted */
#define SIMTGPU_QUEUE_STATE_GUILTY (1u << 1) /* a job timed out (reset) */

struct drm_simtgpu_fault_info {
	__u32 kind; /* SIMTGPU_EXC_* */
	__u32 access; /* SIMTGPU_ACCESS_* */
	__u64 address; /* faulting VA */
	__u64 pc;
	__u32 sm, warp, lane, detail;
	__u32 ctaid[3];
	__u32 tid[3];
};

struct drm_simtgpu_queue_get_state {
	__u32 queue_id; /* in */
	__u32 state; /* out: SIMTGPU_QUEUE_STATE_* */
	__s32 last_error; /* out: -errno of the last failed job, or 0 */
	__u32 pad; /* in: must be 0 */
	struct drm_simtgpu_fault_info fault; /* out: the first exception */
};

/* SUBMIT: run an indirect buffer (packets of include/simtgpu/hw.h) in this
 * file's address space on a queue.
 */
#define SIMTGPU_SUBMIT_NO_IMPLICIT_SYNC (1u << 0)
#define SIMTGPU_SUBMIT_FLAGS (SIMTGPU_SUBMIT_NO_IMPLICIT_SYNC)

struct drm_simtgpu_bo_ref {
	__u32 handle;
	__u32 flags; /* SIMTGPU_BO_REF_WRITE when the job writes it */
};

#define SIMTGPU_BO_REF_WRITE (1u << 0)

struct drm_simtgpu_sync {
	__u32 handle; /* syncobj handle */
	__u32 pad; /* must be 0 */
	__u64 point; /* timeline point, 0 for a binary syncobj */
};

struct drm_simtgpu_submit {
	__u64 ib_va; /* in: GPU VA of the indirect buffer, 4-byte aligned */
	__u32 ib_dwords; /* in: length, 1..SIMTGPU_MAX_IB_DWORDS */
	__u32 queue_id; /* in */
	__u64 bos; /* in: pointer to drm_simtgpu_bo_ref[bo_count] */
	__u32 bo_count; /* in */
	__u32 bo_stride; /* in: sizeof(struct drm_simtgpu_bo_ref) */
	__u64 in_syncs; /* in: pointer to drm_simtgpu_sync[in_sync_count] */
	__u32 in_sync_count;
	__u32 sync_stride; /* in: sizeof(struct drm_simtgpu_sync) */
	__u64 out_syncs; /* in: drm_simtgpu_sync[out_sync_count], signalled */
	__u32 out_sync_count;
	__u32 flags; /* in: SIMTGPU_SUBMIT_* */
	__u64 extensions; /* in: must be 0 */
};

#define SIMTGPU_MAX_IB_DWORDS (1u << 22)
#define SIMTGPU_MAX_SUBMIT_BOS 4096
#define SIMTGPU_MAX_SUBMIT_SYNCS 64

/* WAIT_BO: wait until the GPU is done with a BO. */
struct drm_simtgpu_wait_bo {
	__u32 handle; /* in */
	__u32 flags; /* in: must be 0 */
	__s64 timeout_ns; /* in: absolute CLOCK_MONOTONIC, as in v3d */
};

#if defined(__cplusplus)
}
#endif

#endif /* _UAPI_SIMTGPU_DRM_H_ */
