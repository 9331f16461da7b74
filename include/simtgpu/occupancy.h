/* SPDX-License-Identifier: MIT */
/*
 * The occupancy rule: how many CTAs of a launch fit on one SM at once. The
 * simulator's CTA dispatcher places CTAs by exactly this rule, and the
 * runtime's cudaOccupancy* functions report it, so the two cannot disagree.
 */
#ifndef SIMTGPU_OCCUPANCY_H
#define SIMTGPU_OCCUPANCY_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdint.h>
#endif

struct simtgpu_sm_resources {
	uint32_t warps_per_sm; /* warp slots */
	uint32_t warp_size;
	uint32_t ctas_per_sm; /* CTA slots */
	uint32_t shared_bytes_per_sm;
};

/*
 * Registers are no resource of their own: each warp slot holds all 63
 * architectural registers (31 integer, 32 floating-point) of its lanes,
 * counted as 64 per thread as CUDA allocates them (multiples of 8). So the
 * warp slots bound the registers too; CUDA's register limits follow.
 */
#define SIMTGPU_REGS_PER_THREAD 63u
#define SIMTGPU_REGS_ALLOCATED_PER_THREAD 64u

/*
 * Shared memory a CTA may have without opting in to more (CUDA's
 * cudaFuncAttributeMaxDynamicSharedMemorySize), as on NVIDIA GPUs since
 * Fermi; the device itself accepts up to its shared memory per SM.
 */
#define SIMTGPU_SHARED_PER_CTA_DEFAULT (48u * 1024)

/* Largest blockDim.z (x and y are bounded only by the threads of a CTA). */
#define SIMTGPU_MAX_BLOCK_DIM_Z 64u

/* Shared memory is allocated to CTAs in 256-byte granules. */
#define SIMTGPU_SHARED_GRANULE 256u

static inline uint32_t simtgpu_shared_alloc_bytes(uint32_t shared_bytes)
{
	return (shared_bytes + SIMTGPU_SHARED_GRANULE - 1) /
	       SIMTGPU_SHARED_GRANULE * SIMTGPU_SHARED_GRANULE;
}

static inline uint32_t simtgpu_warps_per_cta(const struct simtgpu_sm_resources *r,
					     uint32_t threads_per_cta)
{
	return (threads_per_cta + r->warp_size - 1) / r->warp_size;
}

/* CTAs of this shape that one SM can hold; 0 when even one does not fit. */
static inline uint32_t
simtgpu_max_ctas_per_sm(const struct simtgpu_sm_resources *r,
			uint32_t threads_per_cta, uint32_t shared_bytes)
{
	uint32_t warps = simtgpu_warps_per_cta(r, threads_per_cta);
	uint32_t shared = simtgpu_shared_alloc_bytes(shared_bytes);
	uint32_t n = r->ctas_per_sm;

	if (warps == 0 || warps > r->warps_per_sm ||
	    shared > r->shared_bytes_per_sm)
		return 0;
	if (r->warps_per_sm / warps < n)
		n = r->warps_per_sm / warps;
	if (shared && r->shared_bytes_per_sm / shared < n)
		n = r->shared_bytes_per_sm / shared;
	return n;
}

#endif /* SIMTGPU_OCCUPANCY_H */
