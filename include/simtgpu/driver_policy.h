/* SPDX-License-Identifier: MIT */
/*
 * The driver policy: every rule that the kernel driver (kmd/) and the
 * userspace driver's in-process transport (umd/src/simkmd/) both apply, so
 * that the uAPI behaves the same on either. Both compile this file: plain C,
 * static inline, fixed-width types, no C library beyond errno values and
 * stdint in userspace builds. docs/kmd.md ("The shared driver policy")
 * explains each rule and who applies it.
 */
#ifndef SIMTGPU_DRIVER_POLICY_H
#define SIMTGPU_DRIVER_POLICY_H

#ifdef __KERNEL__
#include <linux/errno.h>
#include <linux/types.h>
#include <drm/simtgpu_drm.h>
#else
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include "uapi/drm/simtgpu_drm.h"
#endif
#include "hw.h"

/* ------------------------------------------------------------ limits --- */

/* Queues one file may have at once (GET_PARAM(NUM_QUEUES_MAX)). */
#define SIMTGPU_MAX_QUEUES_PER_FILE 64u

/*
 * Each kernel ring is 16 KiB and holds at most 64 jobs: 64 jobs of 84 bytes
 * and the NOP padding one of them may need fit, so pushing never waits for
 * ring space, only for a job slot.
 */
#define SIMTGPU_KERNEL_RING_BYTES (16u * 1024)
#define SIMTGPU_JOBS_IN_FLIGHT_PER_RING 64u

/*
 * Host milliseconds a job may run before the driver checks the device for
 * progress (kmd: module parameter timeout_ms; in-process:
 * SIMTGPU_JOB_TIMEOUT_MS). Large because the GPU is simulated; never below
 * the minimum, so that a typo cannot reset every job.
 */
#define SIMTGPU_DEFAULT_TIMEOUT_MS 20000u
#define SIMTGPU_MIN_TIMEOUT_MS 100u

static inline uint32_t simtgpu_effective_timeout_ms(uint32_t configured_ms)
{
	return configured_ms < SIMTGPU_MIN_TIMEOUT_MS ? SIMTGPU_MIN_TIMEOUT_MS :
							configured_ms;
}

/*
 * MiB of BOs each file may allocate, 0 = no limit (kmd: module parameter
 * vram_limit_mb; in-process: SIMTGPU_VRAM_LIMIT_MB), read when the file is
 * opened and reported by GET_PARAM(VRAM_LIMIT).
 */
#define SIMTGPU_DEFAULT_VRAM_LIMIT_MB 0u

/* Whether a file whose BOs would total @file_bytes stays within @limit. */
static inline bool simtgpu_vram_limit_allows(uint64_t file_bytes,
					     uint64_t limit)
{
	return limit == 0 || file_bytes <= limit;
}

/*
 * BO virtual addresses: 4 KiB aligned in [SIMTGPU_USER_VA_START,
 * SIMTGPU_USER_VA_END), above a guard for NULL and below the shared and
 * local windows, each BO followed by an unmapped guard page so that running
 * off its end faults. The lowest free range that fits is used, so a file's
 * first BO is at SIMTGPU_USER_VA_START.
 */
#define SIMTGPU_USER_VA_START 0x100000ull
#define SIMTGPU_USER_VA_END SIMTGPU_LOCAL_BASE
#define SIMTGPU_VA_GUARD_BYTES SIMTGPU_PAGE_SIZE

/*
 * 1.5, SIMTGPU_BO_HIGH_VA: the lowest free range at or above 2^47 instead,
 * the upper half of the 48-bit space, which no x86-64 process's memory
 * reaches (its user space ends below 2^47), so that device memory never
 * takes an address host memory may need.
 */
#define SIMTGPU_HIGH_VA_START 0x0000800000000000ull

/*
 * 1.5, SIMTGPU_BO_FIXED_VA: the flags valid together (-EINVAL otherwise: at
 * most one placement flag, the address page aligned), and where the range
 * may go (-ERANGE outside [SIMTGPU_USER_VA_START, SIMTGPU_USER_VA_END)).
 * A range that overlaps a mapped one (guard pages included) is -EEXIST,
 * which the VA allocator reports. A fixed range has no guard page: host
 * ranges registered at their own addresses may be adjacent.
 */
static inline int simtgpu_bo_placement_check(uint32_t flags, uint64_t va,
					     uint64_t size)
{
	if ((flags & SIMTGPU_BO_HIGH_VA) && (flags & SIMTGPU_BO_FIXED_VA))
		return -EINVAL;
	if (!(flags & SIMTGPU_BO_FIXED_VA))
		return 0;
	if (va % SIMTGPU_PAGE_SIZE)
		return -EINVAL;
	if (va < SIMTGPU_USER_VA_START || va > SIMTGPU_USER_VA_END ||
	    size > SIMTGPU_USER_VA_END - va)
		return -ERANGE;
	return 0;
}

/* Bytes of VA a BO of @size takes: its pages and, unless fixed, a guard. */
static inline uint64_t simtgpu_bo_va_span(uint32_t flags, uint64_t size)
{
	return flags & SIMTGPU_BO_FIXED_VA ? size :
					     size + SIMTGPU_VA_GUARD_BYTES;
}

/*
 * Where the lowest-free-range search for a BO's VA starts: the upper half
 * with SIMTGPU_BO_HIGH_VA, else SIMTGPU_USER_VA_START (a SIMTGPU_BO_FIXED_VA
 * range is reserved at its address instead; -EEXIST when it is taken).
 */
static inline uint64_t simtgpu_bo_va_search_start(uint32_t flags)
{
	return flags & SIMTGPU_BO_HIGH_VA ? SIMTGPU_HIGH_VA_START :
					    SIMTGPU_USER_VA_START;
}

/* ------------------------------------------------------ ioctl checks --- */

/*
 * The checks of an ioctl's own arguments, made before any handle is looked
 * up, in this order: -EINVAL, or 0.
 */
static inline int simtgpu_bo_create_check(const struct drm_simtgpu_bo_create *a)
{
	if (a->extensions || (a->flags & ~SIMTGPU_BO_FLAGS))
		return -EINVAL;
	if (!a->size || a->size > ~(uint64_t)0 - (SIMTGPU_PAGE_SIZE - 1))
		return -EINVAL;
	return 0;
}

static inline int simtgpu_submit_check(const struct drm_simtgpu_submit *a)
{
	if (a->extensions || (a->flags & ~SIMTGPU_SUBMIT_FLAGS))
		return -EINVAL;
	if (!a->ib_dwords || a->ib_dwords > SIMTGPU_MAX_IB_DWORDS ||
	    (a->ib_va & 3))
		return -EINVAL;
	if (a->bo_count > SIMTGPU_MAX_SUBMIT_BOS ||
	    a->in_sync_count > SIMTGPU_MAX_SUBMIT_SYNCS ||
	    a->out_sync_count > SIMTGPU_MAX_SUBMIT_SYNCS)
		return -EINVAL;
	if (a->bo_count && a->bo_stride < sizeof(struct drm_simtgpu_bo_ref))
		return -EINVAL;
	if ((a->in_sync_count || a->out_sync_count) &&
	    a->sync_stride < sizeof(struct drm_simtgpu_sync))
		return -EINVAL;
	return 0;
}

static inline int
simtgpu_managed_prefetch_check(const struct drm_simtgpu_managed_prefetch *a)
{
	if (a->extensions || (a->flags & ~SIMTGPU_PREFETCH_TO_HOST) || !a->size)
		return -EINVAL;
	return 0;
}

static inline int
simtgpu_managed_advise_check(const struct drm_simtgpu_managed_advise *a)
{
	if (a->extensions || !a->size ||
	    a->advice < SIMTGPU_ADVISE_PREFER_HOST ||
	    a->advice > SIMTGPU_ADVISE_UNSET_READ_MOSTLY)
		return -EINVAL;
	return 0;
}

/* ---------------------------------------------------------- GET_PARAM --- */

/*
 * GET_PARAM's answers that are a device register of the same name
 * (SIMTGPU_PARAM_<name> is SIMTGPU_REG_<name>), read when asked: X(name,
 * minor), where minor is the hardware minor version that added the
 * register; an older device answers 0. The other parameters are constants
 * (simtgpu_param_constant()) or the driver's own state: VRAM size, use and
 * limits, cgroups, partitions, managed-memory counters, the timer.
 */
#define SIMTGPU_REGISTER_PARAMS(X) \
	X(HW_VERSION, 0)            \
	X(ARCH, 0)                  \
	X(NUM_SMS, 0)               \
	X(WARPS_PER_SM, 0)          \
	X(WARP_SIZE, 0)             \
	X(CTAS_PER_SM, 0)           \
	X(SHARED_PER_SM, 0)         \
	X(MAX_THREADS_PER_CTA, 0)   \
	X(CLOCK_KHZ, 0)             \
	X(MAX_STACK_PER_THREAD, 0)  \
	X(CAPS, 0)                  \
	X(L2_SIZE, 3)               \
	X(MEM_BUS_WIDTH, 3)         \
	X(MEM_CLOCK_KHZ, 3)         \
	X(L2_PERSISTING_MAX, 5)     \
	X(L2_WINDOW_MAX, 5)

static inline bool simtgpu_hw_minor_at_least(uint32_t hw_version,
					     uint32_t minor)
{
	return (hw_version & 0xffff) >= minor;
}

/*
 * Whether GET_PARAM(@param) is a register on a device of @hw_version: true
 * with *@reg the register, or 0 where the device predates it (the answer is
 * then 0). A partition's render node answers NUM_SMS with its own SMs.
 */
static inline bool simtgpu_param_register(uint32_t param, uint32_t hw_version,
					  uint32_t *reg)
{
	switch (param) {
#define SIMTGPU_X(name, minor)                                           \
	case SIMTGPU_PARAM_##name:                                        \
		*reg = simtgpu_hw_minor_at_least(hw_version, minor) ?     \
			       SIMTGPU_REG_##name : 0;                    \
		return true;
		SIMTGPU_REGISTER_PARAMS(SIMTGPU_X)
#undef SIMTGPU_X
	default:
		return false;
	}
}

/* Answers GET_PARAM if its parameter is a constant of the uAPI. */
static inline bool simtgpu_param_constant(struct drm_simtgpu_get_param *args)
{
	switch (args->param) {
	case SIMTGPU_PARAM_UAPI_VERSION:
		args->value = (SIMTGPU_UAPI_VERSION_MAJOR << 16) |
			      SIMTGPU_UAPI_VERSION_MINOR;
		return true;
	case SIMTGPU_PARAM_NUM_QUEUES_MAX:
		args->value = SIMTGPU_MAX_QUEUES_PER_FILE;
		return true;
	default:
		return false;
	}
}

/* -------------------------------------------------------- page tables --- */

/*
 * The PTE of a BO's page, from its SIMTGPU_BO_* flags: valid and readable,
 * writable unless READ_ONLY, executable with EXEC (pinned host pages add
 * SIMTGPU_PTE_HOST; managed pages are the kernel driver's alone).
 */
static inline uint64_t simtgpu_bo_pte_flags(uint32_t bo_flags)
{
	uint64_t pte = SIMTGPU_PTE_V | SIMTGPU_PTE_R;

	if (!(bo_flags & SIMTGPU_BO_READ_ONLY))
		pte |= SIMTGPU_PTE_W;
	if (bo_flags & SIMTGPU_BO_EXEC)
		pte |= SIMTGPU_PTE_X;
	return pte;
}

/*
 * How a driver reaches its page tables (hw.h's four-level format, each
 * table one 4 KiB page of VRAM named by its VRAM offset): kmd through its
 * BAR2 mapping, the in-process driver through the simulator's VRAM.
 */
struct simtgpu_pt_access {
	void *ctx;
	uint64_t (*read)(void *ctx, uint64_t vram_offset);
	void (*write)(void *ctx, uint64_t vram_offset, uint64_t pte);
	/* A new zeroed table: 0 and its VRAM offset in *table, or -errno. */
	int (*alloc_table)(void *ctx, uint64_t *table);
};

/*
 * The page walk: from the root table at @root through the pointer PTEs
 * (valid, no R/W/X) of levels SIMTGPU_PT_LEVELS - 1 to 1, each entry indexed
 * by SIMTGPU_PT_INDEX(@va, level), to the leaf table. A missing table is
 * made (and pointed to) with @create; without, the walk stops with -ENOENT.
 * Returns 0 with the VRAM offset of @va's leaf PTE in *@pte_offset, or the
 * allocator's -errno.
 */
static inline int simtgpu_pt_walk(const struct simtgpu_pt_access *pt,
				  uint64_t root, uint64_t va, bool create,
				  uint64_t *pte_offset)
{
	uint64_t table = root;
	int level;

	for (level = SIMTGPU_PT_LEVELS - 1; level > 0; level--) {
		uint64_t entry = table + 8 * (uint64_t)SIMTGPU_PT_INDEX(va, level);
		uint64_t pte = pt->read(pt->ctx, entry);

		if (!(pte & SIMTGPU_PTE_V)) {
			uint64_t next;
			int ret;

			if (!create)
				return -ENOENT;
			ret = pt->alloc_table(pt->ctx, &next);
			if (ret)
				return ret;
			pte = SIMTGPU_PTE_MAKE(next, SIMTGPU_PTE_V);
			pt->write(pt->ctx, entry, pte);
		}
		table = SIMTGPU_PTE_ADDR(pte);
	}
	*pte_offset = table + 8 * (uint64_t)SIMTGPU_PT_INDEX(va, 0);
	return 0;
}

/* -------------------------------------------------------- ring choice --- */

/*
 * A queue's priority class (SIMTGPU_PRIORITY_*) picks its rings: low ring 0,
 * normal rings 1 and 2, high ring 3; each ring's PRIORITY register is the
 * class it serves, so the device's engine prefers high, then normal rings.
 */
static inline uint32_t simtgpu_ring_priority(unsigned int ring)
{
	return ring == 0 ? SIMTGPU_PRIORITY_LOW :
	       ring == SIMTGPU_NUM_RINGS - 1 ? SIMTGPU_PRIORITY_HIGH :
					       SIMTGPU_PRIORITY_NORMAL;
}

static inline unsigned int simtgpu_class_first_ring(uint32_t priority)
{
	return priority == SIMTGPU_PRIORITY_LOW ? 0 :
	       priority == SIMTGPU_PRIORITY_HIGH ? SIMTGPU_NUM_RINGS - 1 : 1;
}

static inline unsigned int simtgpu_class_ring_count(uint32_t priority)
{
	return priority == SIMTGPU_PRIORITY_NORMAL ? SIMTGPU_NUM_RINGS - 2 : 1;
}

/*
 * The ring a queue's next job goes to when the queue has nothing in flight
 * (otherwise it stays where its previous job went, so that a queue's jobs
 * run in order): the least loaded ring of its class, the first on a tie.
 * drm_sched applies this rule itself in kmd (drm_sched_pick_best over the
 * class's rings in this order, load = its score); the in-process driver
 * calls this with load = queues assigned plus jobs on the ring.
 */
static inline unsigned int
simtgpu_pick_ring(uint32_t priority, const uint32_t load[SIMTGPU_NUM_RINGS])
{
	unsigned int first = simtgpu_class_first_ring(priority);
	unsigned int best = first;
	unsigned int i;

	for (i = first + 1; i < first + simtgpu_class_ring_count(priority); i++)
		if (load[i] < load[best])
			best = i;
	return best;
}

/* ---------------------------------------------------- job packet layout --- */

/*
 * A job on a kernel ring: SET_CONTEXT (the file's context id and page
 * tables), TIMESTAMP (PHYSICAL: device time into the job's time slot),
 * INDIRECT (the user's buffer, at user privilege), TIMESTAMP (the end, 8
 * bytes further), FENCE (IRQ | PHYSICAL: the ring's next sequence number
 * into its fence slot). The two timestamps give the job's device time, the
 * GPU time a driver reports per client (kmd's fdinfo): it includes the time
 * the job's grids waited for SMs, as a GPU's engine time does.
 */
#define SIMTGPU_JOB_DWORDS 21u

/* The drivers' job-time area in VRAM: 16 bytes (start, end ns) per job slot
 * of each ring; the slot of a job is its sequence number modulo the jobs a
 * ring holds. */
#define SIMTGPU_JOB_TIMES_BYTES (SIMTGPU_NUM_RINGS * SIMTGPU_JOBS_IN_FLIGHT_PER_RING * 16u)

static inline uint64_t simtgpu_job_time_slot(uint64_t job_times, unsigned int ring,
					     uint64_t seqno)
{
	return job_times + 16u * (ring * SIMTGPU_JOBS_IN_FLIGHT_PER_RING +
				  seqno % SIMTGPU_JOBS_IN_FLIGHT_PER_RING);
}

static inline void simtgpu_job_packets(uint32_t packets[SIMTGPU_JOB_DWORDS],
				       uint32_t context, uint64_t page_table,
				       uint64_t ib_va, uint32_t ib_dwords,
				       uint64_t fence_addr, uint64_t seqno,
				       uint64_t time_slot)
{
	packets[0] = SIMTGPU_PKT_HEADER(SIMTGPU_PKT_SET_CONTEXT, 0, 4);
	packets[1] = context;
	packets[2] = 0;
	packets[3] = (uint32_t)page_table;
	packets[4] = (uint32_t)(page_table >> 32);
	packets[5] = SIMTGPU_PKT_HEADER(SIMTGPU_PKT_TIMESTAMP,
					SIMTGPU_PKTF_PHYSICAL, 2);
	packets[6] = (uint32_t)time_slot;
	packets[7] = (uint32_t)(time_slot >> 32);
	packets[8] = SIMTGPU_PKT_HEADER(SIMTGPU_PKT_INDIRECT, 0, 4);
	packets[9] = (uint32_t)ib_va;
	packets[10] = (uint32_t)(ib_va >> 32);
	packets[11] = ib_dwords;
	packets[12] = 0;
	packets[13] = SIMTGPU_PKT_HEADER(SIMTGPU_PKT_TIMESTAMP,
					 SIMTGPU_PKTF_PHYSICAL, 2);
	packets[14] = (uint32_t)(time_slot + 8);
	packets[15] = (uint32_t)((time_slot + 8) >> 32);
	packets[16] = SIMTGPU_PKT_HEADER(SIMTGPU_PKT_FENCE,
					 SIMTGPU_PKTF_IRQ | SIMTGPU_PKTF_PHYSICAL,
					 4);
	packets[17] = (uint32_t)fence_addr;
	packets[18] = (uint32_t)(fence_addr >> 32);
	packets[19] = (uint32_t)seqno;
	packets[20] = (uint32_t)(seqno >> 32);
}

/*
 * A job's device time from its slot, or 0 when the slot does not hold a
 * finished pair (the job was cancelled by a reset): a driver clears the
 * slot when it emits the job.
 */
static inline uint64_t simtgpu_job_device_ns(uint64_t start_ns, uint64_t end_ns)
{
	return start_ns && end_ns >= start_ns ? end_ns - start_ns : 0;
}

/*
 * A job never wraps around the ring: when it does not fit between @tail and
 * the end, the end is filled with one NOP (*@header, then anything) and the
 * job starts at offset 0. Returns whether the job needs that pad. (A pad of
 * one dword is the header 0, a NOP without a body: a return value of 0 for
 * "no pad" let such a job run off the ring's end.)
 */
static inline bool simtgpu_ring_pad(uint32_t tail, uint32_t ring_bytes,
				    uint32_t *header)
{
	uint32_t room = ring_bytes - tail;

	if (room >= SIMTGPU_JOB_DWORDS * 4)
		return false;
	*header = SIMTGPU_PKT_HEADER(SIMTGPU_PKT_NOP, 0, room / 4 - 1);
	return true;
}

/* -------------------------------------------------------- fair share --- */

/*
 * GPU-time weights (sysfs gpu_weight per cgroup, client_weight per client),
 * with cgroup v2's cpu.weight range and default.
 */
#define SIMTGPU_WEIGHT_DEFAULT 100u
#define SIMTGPU_WEIGHT_MIN 1u
#define SIMTGPU_WEIGHT_MAX 10000u

static inline bool simtgpu_weight_valid(uint64_t weight)
{
	return weight >= SIMTGPU_WEIGHT_MIN && weight <= SIMTGPU_WEIGHT_MAX;
}

/*
 * Virtual time: every finished job advances its client's virtual time by
 * its device time scaled by DEFAULT / weight, so a client of weight 300
 * ages a third as fast as one of weight 100 for the same GPU time.
 */
static inline uint64_t simtgpu_fair_vtime_delta(uint64_t busy_ns,
						uint32_t weight)
{
	if (!weight)
		weight = SIMTGPU_WEIGHT_DEFAULT;
	return busy_ns * SIMTGPU_WEIGHT_DEFAULT / weight;
}

/*
 * Jobs a client may have on the rings under "fair" while another client
 * waits: bounds how far its virtual time can run ahead of the decision.
 */
#define SIMTGPU_FAIR_MAX_INFLIGHT 2u

/*
 * The fair policy's rule, at the moment a client's next job would go to a
 * ring: alone, it always may; otherwise only while it has fewer than
 * SIMTGPU_FAIR_MAX_INFLIGHT jobs on the rings and its virtual time is at
 * most @slack_ns ahead of the lowest virtual time among the other clients
 * that have work (@min_other_vtime).
 */
static inline bool simtgpu_fair_may_run(uint64_t vtime, uint32_t inflight,
					bool others_waiting,
					uint64_t min_other_vtime,
					uint64_t slack_ns)
{
	if (!others_waiting)
		return true;
	if (inflight >= SIMTGPU_FAIR_MAX_INFLIGHT)
		return false;
	return vtime <= min_other_vtime + slack_ns;
}

/*
 * Whether a client counts as having work for the rule above: it has jobs
 * queued or on the rings, or had within the last @grace_ns (a synchronous
 * client is briefly idle between its kernels, and must not lose its turn
 * for it: BFQ's idling).
 */
static inline bool simtgpu_fair_has_work(uint32_t jobs, uint64_t idle_ns,
					 uint64_t grace_ns)
{
	return jobs || idle_ns < grace_ns;
}

/*
 * The grace follows each client's own round trip, the host time from its
 * last job finishing to its next one being queued (the wake-up, the
 * program's work, the next ioctl): a constant that fits an idle host is too
 * short on a loaded one, where no client would ever count as waiting and
 * fair would hold nobody. The driver keeps a decaying peak of the gaps
 * (a burst of slow round trips raises it at once, and it decays by 1/8 per
 * job); the grace is twice that, within [GRACE_MIN, GRACE_MAX]. A gap
 * longer than GRACE_MAX is the client going idle, not a round trip.
 */
#define SIMTGPU_FAIR_GRACE_MIN_MS 10u
#define SIMTGPU_FAIR_GRACE_MAX_MS 250u
static inline uint64_t simtgpu_fair_round_trip_update(uint64_t peak_ns,
						      uint64_t gap_ns)
{
	uint64_t decayed = peak_ns - peak_ns / 8;

	if (gap_ns >= (uint64_t)SIMTGPU_FAIR_GRACE_MAX_MS * 1000000u)
		return peak_ns;
	return gap_ns > decayed ? gap_ns : decayed;
}

static inline uint64_t simtgpu_fair_grace_ns(uint64_t round_trip_peak_ns)
{
	const uint64_t lo = (uint64_t)SIMTGPU_FAIR_GRACE_MIN_MS * 1000000u;
	const uint64_t hi = (uint64_t)SIMTGPU_FAIR_GRACE_MAX_MS * 1000000u;
	uint64_t grace = 2 * round_trip_peak_ns;

	return grace < lo ? lo : grace > hi ? hi : grace;
}

/*
 * A client that had no work (for longer than the grace) and now has some
 * starts at the lowest virtual time of those that have work, never behind
 * its own: idling banks no credit (as CFS's min_vruntime).
 */
static inline uint64_t simtgpu_fair_wake_vtime(uint64_t vtime,
					       bool others_waiting,
					       uint64_t min_other_vtime)
{
	return others_waiting && min_other_vtime > vtime ? min_other_vtime :
							   vtime;
}

/* ------------------------------------------------ cgroup VRAM limits --- */

/*
 * The dmem controller's rule: a cgroup's "current" is the VRAM charged to
 * it and its descendants (BOs and page tables); an allocation is refused
 * with -ENOMEM when it would take any ancestor-or-self's current above its
 * "max" (SIMTGPU_DMEM_MAX_NONE: no limit). kmd: sysfs dmem_max; in-process:
 * SIMTGPU_DMEM_MAX (bytes) for the process's own cgroup.
 */
#define SIMTGPU_DMEM_MAX_NONE (~(uint64_t)0)

static inline bool simtgpu_dmem_allows(uint64_t current_bytes, uint64_t size,
				       uint64_t max)
{
	return max == SIMTGPU_DMEM_MAX_NONE ||
	       (size <= max && current_bytes <= max - size);
}

/* ------------------------------------------------- implicit sync --- */

/*
 * SUBMIT without NO_IMPLICIT_SYNC: a job waits for an earlier job that
 * listed one of its BOs when either of the two writes it (readers do not
 * wait for readers). Every job's fence is recorded on each BO it lists,
 * with the flag too, and WAIT_BO and freeing a BO wait for all of them.
 * kmd gets this from drm_sched_job_add_implicit_dependencies()
 * (dma_resv_usage_rw()); the in-process driver calls this.
 */
static inline bool simtgpu_implicit_dependency(bool job_writes,
					       bool earlier_job_writes)
{
	return job_writes || earlier_job_writes;
}

/* ------------------------------------------------- faults and guilt --- */

/* What QUEUE_GET_STATE reports about a queue. */
struct simtgpu_queue_health {
	uint32_t state; /* SIMTGPU_QUEUE_STATE_* */
	int32_t last_error;
	struct drm_simtgpu_fault_info fault; /* the first exception */
};

/* A faulted or guilty queue takes no more jobs (-ECANCELED). */
static inline bool simtgpu_queue_usable(const struct simtgpu_queue_health *h)
{
	return h->state == 0;
}

/*
 * Fault to job: the driver first retires the jobs whose fences the ring's
 * fence slot has passed; the ring's oldest remaining job was executing when
 * the exception was raised, and it is the exception's job if its context is
 * the record's. Otherwise no job is failed (the exception is only logged).
 */
static inline bool simtgpu_exception_belongs_to_job(uint64_t job_seqno,
						    uint64_t ring_completed,
						    uint32_t job_context,
						    uint32_t exc_context)
{
	return job_seqno > ring_completed && job_context == exc_context;
}

/*
 * Every exception fails its job with -EFAULT (the record's kind says which)
 * and faults its queue; the first exception is kept.
 */
static inline void
simtgpu_queue_record_fault(struct simtgpu_queue_health *h,
			   const struct drm_simtgpu_fault_info *fault)
{
	if (!(h->state & SIMTGPU_QUEUE_STATE_FAULTED))
		h->fault = *fault;
	h->state |= SIMTGPU_QUEUE_STATE_FAULTED;
	h->last_error = -EFAULT;
}

/* The job that hung the engine fails with -ETIMEDOUT; its queue is guilty. */
static inline void simtgpu_queue_record_hang(struct simtgpu_queue_health *h)
{
	h->state |= SIMTGPU_QUEUE_STATE_GUILTY;
	h->last_error = -ETIMEDOUT;
}

/* -------------------------------------------------------------- hangs --- */

/*
 * A hang is "no progress" on a ring. Each ring's timer fires once its
 * oldest job has been first on the ring for the timeout, and again every
 * timeout while it stays first. The ring is then hung if its PROGRESS
 * register (hw.h: packets and CTAs completed, and the device's samples of
 * its CTAs' state changing) has not moved since the previous check, unless
 * it holds no CTAs on the SMs (RESIDENT) while another ring holds some: its
 * grid is then waiting for SMs behind higher-priority or earlier work; or
 * unless the driver parked it (STATUS PARKED: it is waiting for the driver).
 * The
 * rings run side by side, so a job is judged by its own ring alone and the
 * guilty job is that ring's oldest. A long kernel that computes is never
 * hung; one that spins on a flag nothing sets is, one to two timeouts after
 * it stopped changing anything.
 */
struct simtgpu_ring_watch {
	uint64_t progress; /* PROGRESS at the previous check */
};

/* Records @progress; true if ring @ring is hung by the rule above, given
 * whether it is parked and every ring's RESIDENT. */
static inline bool simtgpu_ring_hung(struct simtgpu_ring_watch *watch,
				     unsigned int ring, uint64_t progress,
				     bool parked,
				     const uint32_t resident[SIMTGPU_NUM_RINGS])
{
	bool moved = watch->progress != progress;
	unsigned int i;

	watch->progress = progress;
	if (moved || parked)
		return false;
	if (resident[ring])
		return true;
	for (i = 0; i < SIMTGPU_NUM_RINGS; i++)
		if (resident[i])
			return false;
	return true;
}

#endif /* SIMTGPU_DRIVER_POLICY_H */
