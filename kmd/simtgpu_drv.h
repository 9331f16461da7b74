/* SPDX-License-Identifier: GPL-2.0 */
/* Copyright (C) 2026 The simtgpu authors */
#ifndef SIMTGPU_DRV_H
#define SIMTGPU_DRV_H

#include <linux/io.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <linux/dma-resv.h>
#include <drm/drm_buddy.h>
#include <drm/drm_device.h>
#include <drm/drm_gem.h>
#include <drm/drm_mm.h>
#include <drm/gpu_scheduler.h>

#include <simtgpu/counters.h>
#include <simtgpu/hw.h>
#include <simtgpu/hw_names.h>
#include <simtgpu/driver_policy.h>
#include <drm/simtgpu_drm.h>

#include "simtgpu_policy.h"
#include "simtgpu_cgroup.h"

#define SIMTGPU_DRIVER_NAME "simtgpu"

struct simtgpu_device;
struct simtgpu_vm;
struct simtgpu_managed;
struct seq_file;
struct vm_area_struct;

/* Module parameters (simtgpu_drv.c). */
extern unsigned int simtgpu_timeout_ms;
extern unsigned int simtgpu_preempt_timeout_ms;
extern unsigned int simtgpu_vram_limit_mb;

/* Objects alive now, shown in debugfs "objects" to find leaks. */
struct simtgpu_counts {
	atomic_t bos;
	atomic_t vms;
	atomic_t queues;
	atomic_t jobs;
	atomic_t fences;
	atomic_t page_tables;
	atomic_long_t pinned_pages; /* of user-pointer BOs */
	atomic_t cgroups; /* records of cgroups (simtgpu_cgroup.c) */
	/* Pages of managed BOs (simtgpu_managed.c): host copies allocated,
	 * pages resident in VRAM.
	 */
	atomic_long_t managed_host_pages;
	atomic_long_t managed_vram_pages;
};

/*
 * What managed memory did (simtgpu_managed.c), per file (in its VM) and per
 * device: GPU faults serviced, pages moved to VRAM and back to host memory,
 * pages the GPU maps over the bus because VRAM was full, and faults on
 * addresses that are no managed memory (their launches end).
 */
struct simtgpu_managed_stats {
	atomic64_t gpu_faults;
	atomic64_t to_vram;
	atomic64_t to_host;
	atomic64_t remote;
	atomic64_t cancelled;
	atomic64_t duplicated;
	atomic64_t evicted;
};

/**
 * struct simtgpu_fence - the hardware fence of one job on one ring: signalled
 * by the fence interrupt once the ring's fence slot reaches @seqno.
 */
struct simtgpu_fence {
	struct dma_fence base;
	struct simtgpu_device *sdev;
	struct list_head link; /* in simtgpu_ring.pending, under ring->lock */
	struct simtgpu_ring *ring;
	u64 seqno;
	/* The job, while the fence is unsignalled and still the job's. */
	struct simtgpu_job *job;
	ktime_t emitted;
	u64 busy_ns; /* set when signalled */
};

/**
 * struct simtgpu_ring - one of the device's kernel rings and the drm_sched
 * scheduler that feeds it.
 */
struct simtgpu_ring {
	struct simtgpu_device *sdev;
	unsigned int index;
	char name[16];
	struct drm_gpu_scheduler sched;
	bool sched_ready;
	u32 hw_priority;

	struct list_head vram; /* buddy blocks of the ring buffer */
	u64 vram_offset;
	u32 tail; /* byte offset where the next packet goes */
	u64 fence_offset; /* VRAM offset of this ring's 64-bit fence slot */

	spinlock_t lock; /* pending, emitted, completed, busy accounting */
	struct list_head pending; /* simtgpu_fence, oldest first */
	u64 fence_context;
	u64 emitted;
	u64 completed;
	/* PROGRESS seen by the previous timeout check (simtgpu_ring_hung()) */
	struct simtgpu_ring_watch watch;
	unsigned int resets; /* per-ring resets (CTRL.ABORT) */
	bool parked_by_policy; /* under sdev->policy_lock */
	unsigned int preemptions; /* by the policy */
	u64 last_busy_ms; /* the policy tick last saw jobs on it */
	/* Its SMs: [sm_first, sm_first + sm_span), all but in a partition. */
	u32 sm_first;
	u32 sm_span;
	u32 sms; /* its SM_MASK enables the first @sms SMs of its span */
	struct simtgpu_partition *part; /* the partition it serves, or NULL */
};

/* At most one partition per ring: each partition has a ring of its own. */
#define SIMTGPU_MAX_PARTITIONS SIMTGPU_NUM_RINGS

/**
 * struct simtgpu_partition - a MIG-like slice of the GPU (simtgpu_partition.c):
 * SMs of its own (its ring's SM_MASK), a VRAM range of its own, and a DRM
 * device with a render node of its own.
 */
struct simtgpu_partition {
	struct simtgpu_device *sdev;
	struct drm_device *drm; /* dev_private points back here */
	u32 id;
	u32 sm_first;
	u32 sm_count;
	u64 vram_base;
	u64 vram_size;
	u64 vram_used; /* under sdev->mm_lock */
	struct simtgpu_ring *ring;
	unsigned int clients; /* open files, under sdev->clients_lock */
	bool dying; /* being destroyed: opens fail */
};

struct simtgpu_device {
	struct drm_device drm;
	struct pci_dev *pdev;
	void __iomem *regs;
	void __iomem *vram; /* BAR2, write-combined */
	resource_size_t vram_bus;
	u64 vram_size;

	u32 hw_version;
	u32 arch;
	u32 caps;
	u32 num_sms;
	u32 warps_per_sm;
	u32 warp_size;
	u32 clock_khz;
	u32 num_counters; /* of counters.h that the device serves */

	struct mutex mm_lock; /* buddy, vram_used, vram_shared_end, parts */
	/* The VRAM_CLEAR registers, and a reset (which zeroes them) */
	struct mutex clear_lock;
	struct drm_buddy mm;
	u64 vram_used;
	/* VRAM below the partitions' slices: the whole GPU's files' share. */
	u64 vram_shared_end;
	/* Partitions (simtgpu_partition.c); changed under part_lock. */
	struct mutex part_lock;
	struct simtgpu_partition *parts[SIMTGPU_MAX_PARTITIONS];
	unsigned int num_parts;

	struct list_head fence_vram; /* the fence page */
	u64 fence_page;
	u64 job_times; /* SIMTGPU_JOB_TIMES_BYTES after the fence page */
	struct simtgpu_ring rings[SIMTGPU_NUM_RINGS];
	struct workqueue_struct *reset_wq; /* ordered: one reset at a time */
	struct workqueue_struct *free_wq; /* deferred BO and VM release */
	unsigned int resets;
	/* The scheduling policy (simtgpu_policy.c). */
	struct mutex policy_lock; /* policy, policy_state, rings' parked_by_policy */
	const struct simtgpu_policy *policy;
	struct simtgpu_policy_state policy_state;
	unsigned int timeslice_ms;
	struct delayed_work policy_work;
	/* Per-client scheduling figures (struct simtgpu_client_sched). */
	spinlock_t sched_lock; /* sched_clients and every client's figures */
	struct list_head sched_clients;
	/* The fence held-back jobs wait on (simtgpu_policy.c). */
	spinlock_t gate_lock; /* gate */
	spinlock_t gate_fence_lock; /* the gate fence's own lock */
	struct dma_fence *gate;
	u64 gate_context;
	u64 gate_seqno;

	/* cgroup records: VRAM limits and weights (simtgpu_cgroup.c). */
	struct mutex cg_lock; /* cgroups and every record */
	struct list_head cgroups;

	struct mutex clients_lock; /* clients */
	struct list_head clients; /* simtgpu_file_priv */
	/* Every live address space by context id, also one whose file is
	 * closed while its jobs still run (a GPU fault names only the id).
	 */
	struct xarray vms;

	/* Time during which any job was on the device, for sysfs. */
	spinlock_t util_lock;
	unsigned int active_jobs;
	ktime_t busy_since;
	u64 busy_ns;
	ktime_t util_last_time;
	u64 util_last_busy;

	struct simtgpu_counts counts;

	/* Replayable GPU faults of managed BOs (simtgpu_managed.c). */
	struct workqueue_struct *fault_wq;
	struct work_struct fault_work;
	/* Drains of the fault queue so far, and the number of the one in
	 * progress (0: none): the pages it migrates are not evicted before
	 * its warps may retry (simtgpu_managed.c).
	 */
	u32 fault_drains;
	u32 fault_drain;
	struct simtgpu_managed_stats managed;
};

extern const struct drm_driver simtgpu_partition_driver;

/* The partition a DRM device of ours is, or NULL for the whole GPU's. */
static inline struct simtgpu_partition *
to_simtgpu_partition(struct drm_device *dev)
{
	return dev->driver == &simtgpu_partition_driver ? dev->dev_private :
							  NULL;
}

static inline struct simtgpu_device *to_simtgpu_device(struct drm_device *dev)
{
	struct simtgpu_partition *part = to_simtgpu_partition(dev);

	return part ? part->sdev : container_of(dev, struct simtgpu_device, drm);
}

static inline u32 simtgpu_read(struct simtgpu_device *sdev, u32 reg)
{
	return readl(sdev->regs + reg);
}

static inline void simtgpu_write(struct simtgpu_device *sdev, u32 reg, u32 val)
{
	writel(val, sdev->regs + reg);
}

static inline u32 simtgpu_ring_read(struct simtgpu_ring *ring, u32 reg)
{
	return simtgpu_read(ring->sdev, SIMTGPU_RING_BASE(ring->index) + reg);
}

static inline void simtgpu_ring_write(struct simtgpu_ring *ring, u32 reg,
				      u32 val)
{
	simtgpu_write(ring->sdev, SIMTGPU_RING_BASE(ring->index) + reg, val);
}

u64 simtgpu_read64(struct simtgpu_device *sdev, u32 reg_lo);

/* Queue priority classes, each fed to its own ring(s). */
#define SIMTGPU_PRIORITY_COUNT (SIMTGPU_PRIORITY_HIGH + 1)

/**
 * struct simtgpu_queue - a userspace submission queue: one drm_sched entity.
 */
struct simtgpu_queue {
	struct kref refcount;
	struct simtgpu_device *sdev;
	u32 id;
	u32 priority;
	struct drm_sched_entity entity;
	struct drm_gpu_scheduler *scheds[SIMTGPU_NUM_RINGS];

	spinlock_t state_lock; /* health */
	struct simtgpu_queue_health health;
};

/**
 * struct simtgpu_file_priv - per open file: its GPU address space, its queues
 * and its usage statistics.
 */
struct simtgpu_file_priv {
	struct simtgpu_device *sdev;
	struct simtgpu_vm *vm;
	struct simtgpu_partition *part; /* the node it opened, NULL: whole GPU */
	u64 client_id;
	pid_t pid;
	char comm[TASK_COMM_LEN];
	struct list_head link; /* in sdev->clients */

	struct mutex queues_lock; /* queues, against concurrent ioctls */
	struct xarray queues;

};

/**
 * struct simtgpu_bo - a GEM buffer object in VRAM, mapped at one VA of its
 * creator's address space.
 */
struct simtgpu_bo {
	struct drm_gem_object base;
	struct simtgpu_device *sdev;
	struct list_head blocks; /* drm_buddy_block, in mapping order */
	struct simtgpu_vm *vm;
	struct drm_mm_node va;
	u32 flags; /* SIMTGPU_BO_* */
	bool charged; /* its VRAM, to its VM's limit and cgroup */
	struct work_struct free_work;
	/* BO_USERPTR: the pinned user pages and their bus addresses. */
	bool userptr;
	struct page **pages;
	dma_addr_t *dma_addrs;
	/* BO_MANAGED: where each page is (simtgpu_managed.c), or NULL. */
	struct simtgpu_managed *managed;
};

static inline struct simtgpu_bo *to_simtgpu_bo(struct drm_gem_object *obj)
{
	return container_of(obj, struct simtgpu_bo, base);
}

/**
 * struct simtgpu_job - one SUBMIT: an indirect buffer run in a file's VM.
 */
struct simtgpu_job {
	struct drm_sched_job base;
	struct simtgpu_queue *queue;
	struct simtgpu_vm *vm;
	struct drm_gem_object **bos;
	u32 bo_count;
	u64 ib_va;
	u32 ib_dwords;
	struct dma_fence *hw_fence;
	bool counted; /* pushed: in its client's queued or inflight */
	bool admitted; /* the policy let it onto a ring */
	bool held; /* the policy held it back at least once */
	pid_t pid;
	char comm[TASK_COMM_LEN];
};

static inline struct simtgpu_job *to_simtgpu_job(struct drm_sched_job *job)
{
	return container_of(job, struct simtgpu_job, base);
}

static inline struct simtgpu_ring *
to_simtgpu_ring(struct drm_gpu_scheduler *sched)
{
	return container_of(sched, struct simtgpu_ring, sched);
}

/* simtgpu_vram.c */
int simtgpu_vram_alloc(struct simtgpu_device *sdev, u64 size, u64 min_block,
		       struct list_head *blocks);
int simtgpu_vram_alloc_for(struct simtgpu_device *sdev,
			   struct simtgpu_partition *part, u64 size,
			   u64 min_block, struct list_head *blocks);
void simtgpu_vram_free(struct simtgpu_device *sdev, struct list_head *blocks);
void simtgpu_vram_clear(struct simtgpu_device *sdev, struct list_head *blocks);
u64 simtgpu_vram_first_offset(struct list_head *blocks);

/* simtgpu_sysfs.c */
extern const struct attribute_group simtgpu_attr_group;
extern const struct attribute_group simtgpu_counter_attr_group;

/* simtgpu_bo.c */
struct simtgpu_bo *simtgpu_bo_alloc(struct drm_device *dev,
				    struct drm_file *file, u64 size, u32 flags);
struct simtgpu_bo *simtgpu_bo_create(struct drm_device *dev,
				     struct drm_file *file, u64 size, u32 flags,
				     u64 fixed_va);
int simtgpu_ioctl_bo_create(struct drm_device *dev, void *data,
			    struct drm_file *file);
int simtgpu_ioctl_bo_mmap_offset(struct drm_device *dev, void *data,
				 struct drm_file *file);
int simtgpu_ioctl_bo_info(struct drm_device *dev, void *data,
			  struct drm_file *file);
int simtgpu_ioctl_wait_bo(struct drm_device *dev, void *data,
			  struct drm_file *file);

/* simtgpu_userptr.c */
int simtgpu_ioctl_bo_userptr(struct drm_device *dev, void *data,
			     struct drm_file *file);
void simtgpu_userptr_release(struct simtgpu_bo *bo);

/* simtgpu_managed.c */
int simtgpu_managed_init(struct simtgpu_device *sdev);
int simtgpu_managed_check(struct simtgpu_device *sdev, u32 flags);
struct simtgpu_bo *simtgpu_managed_create(struct drm_device *dev,
					  struct drm_file *file, u64 size,
					  u32 flags, u64 fixed_va);
int simtgpu_managed_mmap(struct simtgpu_bo *bo, struct vm_area_struct *vma);
int simtgpu_ioctl_managed_prefetch(struct drm_device *dev, void *data,
				   struct drm_file *file);
int simtgpu_ioctl_managed_advise(struct drm_device *dev, void *data,
				 struct drm_file *file);
void simtgpu_managed_release(struct simtgpu_bo *bo);
u64 simtgpu_managed_evict(struct simtgpu_vm *vm, struct simtgpu_bo *held,
			  u64 bytes);
void simtgpu_managed_fault_irq(struct simtgpu_device *sdev);
void simtgpu_managed_debugfs_show(struct simtgpu_device *sdev,
				  struct seq_file *m);

/* simtgpu_vm.c */
struct simtgpu_vm {
	struct kref refcount;
	struct simtgpu_device *sdev;
	/* Its VRAM comes from this partition's slice (NULL: the shared part) */
	struct simtgpu_partition *part;
	u32 id; /* the context id of SET_CONTEXT */
	struct mutex lock; /* mm, page tables */
	struct drm_mm mm;
	struct simtgpu_pt *root;
	struct list_head tables; /* every simtgpu_pt, for teardown */
	/* Bytes of BOs in this VM, for the VRAM limit and fdinfo. */
	atomic64_t vram_bytes;
	u64 vram_limit; /* 0: none */
	atomic_t bo_count;
	/* Busy time of the VM's jobs per queue priority class, for fdinfo. */
	atomic64_t engine_ns[SIMTGPU_PRIORITY_COUNT];
	/* Every job's finished fence: BOs are freed only once these signal. */
	struct dma_resv resv;
	/* The owner's cgroup, charged for the BOs and page tables. */
	struct simtgpu_cg *cg;
	/* The scheduling policies' figures for this client. */
	struct simtgpu_client_sched sched;
	/* Its managed memory's faults and migrations (GET_PARAM). */
	struct simtgpu_managed_stats managed;
	/* Its managed pages in VRAM, least recently migrated first: the
	 * order in which they are evicted (simtgpu_managed.c).
	 */
	spinlock_t managed_lru_lock;
	struct list_head managed_lru;
};

struct simtgpu_vm *simtgpu_vm_create(struct simtgpu_device *sdev,
				     struct simtgpu_partition *part, u32 id);
void simtgpu_vm_put(struct simtgpu_vm *vm);
struct simtgpu_vm *simtgpu_vm_get(struct simtgpu_vm *vm);
struct simtgpu_vm *simtgpu_vm_lookup(struct simtgpu_device *sdev, u32 id);
u64 simtgpu_vm_root(struct simtgpu_vm *vm);
int simtgpu_vm_map_bo(struct simtgpu_vm *vm, struct simtgpu_bo *bo,
		      u64 fixed_va);
void simtgpu_vm_unmap_bo(struct simtgpu_vm *vm, struct simtgpu_bo *bo);
bool simtgpu_vm_range_mapped(struct simtgpu_vm *vm, u64 va, u64 size);
int simtgpu_vm_write_pte(struct simtgpu_vm *vm, u64 va, u64 pte);
struct simtgpu_bo *simtgpu_vm_lookup_bo(struct simtgpu_vm *vm, u64 va);

/* simtgpu_fence.c */
extern const struct dma_fence_ops simtgpu_fence_ops;
void simtgpu_util_start(struct simtgpu_device *sdev, ktime_t now);
void simtgpu_ring_signal_fences(struct simtgpu_ring *ring);
void simtgpu_ring_cancel_fences(struct simtgpu_ring *ring, int error,
				bool fail_jobs);

/* simtgpu_sched.c */
int simtgpu_rings_init(struct simtgpu_device *sdev);
void simtgpu_rings_fini(struct simtgpu_device *sdev);
void simtgpu_rings_hw_init(struct simtgpu_device *sdev);
void simtgpu_free_job(struct drm_sched_job *sched_job);
void simtgpu_ring_preempt(struct simtgpu_ring *ring, bool park);
void simtgpu_ring_set_sms(struct simtgpu_ring *ring, u32 sms);

/* simtgpu_policy.c */
void simtgpu_policy_init(struct simtgpu_device *sdev);
void simtgpu_policy_fini(struct simtgpu_device *sdev);
void simtgpu_policy_kick(struct simtgpu_device *sdev);
void simtgpu_policy_client_add(struct simtgpu_device *sdev,
			       struct simtgpu_client_sched *cs, u32 weight);
void simtgpu_policy_client_remove(struct simtgpu_device *sdev,
				  struct simtgpu_client_sched *cs);
void simtgpu_policy_job_queued(struct simtgpu_device *sdev,
			       struct simtgpu_client_sched *cs);
struct dma_fence *simtgpu_policy_job_gate(struct simtgpu_device *sdev,
					  struct simtgpu_client_sched *cs,
					  bool *admitted, bool *held);
void simtgpu_policy_job_done(struct simtgpu_device *sdev,
			     struct simtgpu_client_sched *cs, u64 busy_ns);
void simtgpu_policy_job_freed(struct simtgpu_device *sdev,
			      struct simtgpu_client_sched *cs, bool admitted);
const char *simtgpu_policy_current(struct simtgpu_device *sdev);
void simtgpu_policy_reweight(struct simtgpu_device *sdev);
int simtgpu_policy_set_client_weight(struct simtgpu_device *sdev,
				     u64 client_id, u32 weight);
ssize_t simtgpu_policy_name(struct simtgpu_device *sdev, char *buf);
int simtgpu_policy_select(struct simtgpu_device *sdev, const char *name);

/* simtgpu_submit.c */
int simtgpu_ioctl_submit(struct drm_device *dev, void *data,
			 struct drm_file *file);

/* simtgpu_reset.c */
int simtgpu_hw_reset(struct simtgpu_device *sdev);
void simtgpu_ring_fail_current(struct simtgpu_ring *ring,
			       const struct drm_simtgpu_fault_info *fault,
			       u32 context);
void simtgpu_ring_abort_current(struct simtgpu_ring *ring, u32 context);
void simtgpu_partition_reset(struct simtgpu_partition *part,
			     struct simtgpu_job *job);
enum drm_gpu_sched_stat
simtgpu_timedout_job(struct drm_sched_job *sched_job);

/* simtgpu_queue.c */
void simtgpu_queue_mark_faulted(struct simtgpu_queue *queue,
				const struct drm_simtgpu_fault_info *fault);
void simtgpu_queue_mark_guilty(struct simtgpu_queue *queue);
bool simtgpu_queue_is_usable(struct simtgpu_queue *queue);
void simtgpu_queue_release_kref(struct kref *kref);
int simtgpu_ioctl_queue_create(struct drm_device *dev, void *data,
			       struct drm_file *file);
int simtgpu_ioctl_queue_destroy(struct drm_device *dev, void *data,
				struct drm_file *file);
int simtgpu_ioctl_queue_get_state(struct drm_device *dev, void *data,
				  struct drm_file *file);
void simtgpu_queues_destroy_all(struct simtgpu_file_priv *fpriv);
struct simtgpu_queue *simtgpu_queue_lookup(struct simtgpu_file_priv *fpriv,
					   u32 id);

/* simtgpu_partition.c */
int simtgpu_partition_create(struct simtgpu_device *sdev, u32 sms,
			     u64 vram_size, u32 *id);
int simtgpu_partition_destroy(struct simtgpu_device *sdev, u32 id);
ssize_t simtgpu_partition_list(struct simtgpu_device *sdev, char *buf);
void simtgpu_partitions_unplug(struct simtgpu_device *sdev);
void simtgpu_partition_account(struct simtgpu_device *sdev, u64 offset,
			       s64 bytes);
extern const struct attribute_group simtgpu_partition_attr_group;

/* simtgpu_irq.c */
int simtgpu_irq_init(struct simtgpu_device *sdev);
void simtgpu_irq_enable(struct simtgpu_device *sdev);
void simtgpu_irq_disable(struct simtgpu_device *sdev);

/* simtgpu_debugfs.c */
#ifdef CONFIG_DEBUG_FS
void simtgpu_debugfs_init(struct drm_minor *minor);
#endif

#endif /* SIMTGPU_DRV_H */
