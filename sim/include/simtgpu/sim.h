/* SPDX-License-Identifier: MIT */
/*
 * The simulator library's C ABI (libsimtgpu-sim.so).
 *
 * This is the only boundary the QEMU device and the userspace driver's
 * in-process transport use. It is versioned: a host built against one
 * SIMTGPU_SIM_ABI_VERSION refuses a library that reports another (compare
 * simtgpu_sim_abi_version() before calling anything else). Additions to
 * structs go at the end and are guarded by struct_size.
 *
 * The simulated device is programmed only through MMIO (registers and
 * packets of include/simtgpu/hw.h) and VRAM; the host supplies DMA and
 * interrupt callbacks. Engines run on the library's own threads: MMIO calls
 * never execute kernels, and callbacks may arrive from those threads.
 */
#ifndef SIMTGPU_SIM_H
#define SIMTGPU_SIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Exported from libsimtgpu-sim.so, which hides everything else. */
#if defined(SIMTGPU_SIM_BUILDING_DSO)
#define SIMTGPU_SIM_API __attribute__((visibility("default")))
#else
#define SIMTGPU_SIM_API
#endif

#define SIMTGPU_SIM_ABI_VERSION 4

/* Name of the library and of its version query, for dlopen()/dlsym(). */
#define SIMTGPU_SIM_LIBRARY "libsimtgpu-sim.so"
#define SIMTGPU_SIM_ABI_VERSION_SYMBOL "simtgpu_sim_abi_version"

typedef struct simtgpu_sim simtgpu_sim;

/* Host callbacks. Return 0 on success, non-zero when the bus address is not
 * reachable (the device then reports SIMTGPU_FAULT_DMA). */
typedef int (*simtgpu_dma_fn)(void *opaque, uint64_t bus_addr, void *buf,
			      uint64_t len);
typedef int (*simtgpu_dma_write_fn)(void *opaque, uint64_t bus_addr,
				    const void *buf, uint64_t len);
/* Raise MSI-X vector `vector` (SIMTGPU_MSIX_VEC_*). May be called from any
 * simulator thread. */
typedef void (*simtgpu_irq_fn)(void *opaque, uint32_t vector);

typedef struct simtgpu_sim_config {
	uint32_t struct_size; /* sizeof(simtgpu_sim_config) */
	uint32_t arch; /* SIMTGPU_ARCH_*; 0 = newest */
	uint64_t vram_bytes; /* multiple of 2 MiB; 0 = 16 GiB (a real GPU's; the
			     * library's own backing costs only touched pages) */
	uint32_t num_sms; /* 0 = 4 */
	uint32_t warps_per_sm; /* resident warp slots; 0 = 64 */
	uint32_t warp_size; /* lanes, 1..64; 0 = 32 */
	uint32_t ctas_per_sm; /* 0 = 32 */
	uint32_t shared_bytes_per_sm; /* 0 = 96 KiB */
	uint32_t max_threads_per_cta; /* 0 = min(1024, warps * warp size) */
	uint32_t clock_khz; /* simulated SM clock; 0 = 1000000 (1 GHz) */
	uint32_t mem_latency; /* cycles per global memory access; 0 = 20 */
	const char *warp_scheduler; /* NULL = "round-robin" */
	const char *reconvergence; /* NULL = "min-pc" */
	/* Optional host-provided VRAM backing of vram_bytes (QEMU's BAR2
	 * RAM); NULL = the library maps its own, touched lazily. */
	void *vram;
	void *opaque; /* passed to the callbacks */
	simtgpu_dma_fn dma_read; /* NULL: host PTEs fault */
	simtgpu_dma_write_fn dma_write;
	simtgpu_irq_fn raise_irq; /* NULL: interrupts are only polled */
	/* Block placement: "breadth-first" (NULL), "fill-first",
	 * "strict-priority" (docs/simulator.md) */
	const char *placement;
	/* Cycles in which nothing changes while a ready warp is never issued
	 * before a launch fails as a livelock; 0 = 2^26 (67 M) */
	uint64_t livelock_cycles;
	/* Which grids' CTAs one SM may hold at once: "same-context" (NULL:
	 * grids of one address space, as concurrent kernels of one CUDA
	 * context), "exclusive" (one grid per SM), "any" (also grids of
	 * different contexts, as under MPS) (docs/simulator.md) */
	const char *sm_sharing;
	/* ABI 4: a configuration file (a path) or a preset name ("functional",
	 * "teaching", "volta"; docs/timing.md), read first; the fields above
	 * that are non-zero then override it. NULL = the fields alone. A
	 * struct_size of ABI 3's struct, without this field, is still
	 * accepted. */
	const char *config;
} simtgpu_sim_config;

/* Statistics since creation or the last reset. */
typedef struct simtgpu_sim_stats {
	uint32_t struct_size; /* set by the caller */
	uint32_t num_sms;
	uint64_t launches;
	uint64_t ctas;
	uint64_t cycles; /* device cycles while busy */
	uint64_t sm_busy_cycles; /* summed over SMs */
	uint64_t thread_instructions;
	uint64_t warp_instructions;
	uint64_t mem_reads;
	uint64_t mem_writes;
	uint64_t dma_bytes;
	uint64_t exceptions;
	uint64_t tlb_hits;
	uint64_t tlb_misses;
	uint64_t divergent_branches;
	uint64_t barrier_waits;
	double ipc; /* warp instructions per SM busy cycle */
	double occupancy; /* mean resident warps / warp slots while busy */
} simtgpu_sim_stats;

SIMTGPU_SIM_API uint32_t simtgpu_sim_abi_version(void);

/* Returns 0 and *out, or a negative errno and a message in err. */
SIMTGPU_SIM_API int simtgpu_sim_create(const simtgpu_sim_config *config, simtgpu_sim **out,
		       char *err, size_t err_size);
SIMTGPU_SIM_API void simtgpu_sim_destroy(simtgpu_sim *sim);

/* BAR0 access; offset and size as the guest issued them. Bad accesses are
 * ignored (writes) or read as 0, and counted. */
SIMTGPU_SIM_API uint64_t simtgpu_sim_mmio_read(simtgpu_sim *sim, uint64_t offset,
			       unsigned size);
SIMTGPU_SIM_API void simtgpu_sim_mmio_write(simtgpu_sim *sim, uint64_t offset, uint64_t value,
			    unsigned size);

/* The VRAM backing (BAR2), vram_bytes long. */
SIMTGPU_SIM_API void *simtgpu_sim_vram(simtgpu_sim *sim, uint64_t *size);

/* Zeroes [offset, offset + bytes) of VRAM, as a driver does before it hands
 * memory to a client. Whole pages of the library's own backing go back to
 * the host (they read as zero and cost nothing until touched again), so a
 * program that allocates most of a large VRAM does not commit it; host
 * backing is written. Returns 0, or -EINVAL when the range is outside VRAM. */
SIMTGPU_SIM_API int simtgpu_sim_vram_clear(simtgpu_sim *sim, uint64_t offset, uint64_t bytes);

/* Device reset (as SIMTGPU_REG_RESET): waits for the engines to stop. */
SIMTGPU_SIM_API void simtgpu_sim_reset(simtgpu_sim *sim);

/* Blocks until every ring is idle or stalled, or timeout_ms passes
 * (0 = no wait). Returns 1 when idle, 0 on timeout. */
SIMTGPU_SIM_API int simtgpu_sim_wait_idle(simtgpu_sim *sim, uint32_t timeout_ms);

SIMTGPU_SIM_API int simtgpu_sim_get_stats(simtgpu_sim *sim, simtgpu_sim_stats *out);

/* Statistics as a JSON object (NUL-terminated, owned by the caller: free
 * with simtgpu_sim_free_string). */
SIMTGPU_SIM_API char *simtgpu_sim_stats_json(simtgpu_sim *sim);
SIMTGPU_SIM_API void simtgpu_sim_free_string(char *s);

#ifdef __cplusplus
}
#endif

#endif /* SIMTGPU_SIM_H */
