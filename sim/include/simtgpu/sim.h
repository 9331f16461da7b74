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

#include "simtgpu/counters.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Exported from libsimtgpu-sim.so, which hides everything else. */
#if defined(SIMTGPU_SIM_BUILDING_DSO)
#define SIMTGPU_SIM_API __attribute__((visibility("default")))
#else
#define SIMTGPU_SIM_API
#endif

#define SIMTGPU_SIM_ABI_VERSION 8

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
/* ABI 8: an atomic compare-and-exchange of `size` (4 or 8, naturally
 * aligned) bytes at a host bus address, as a PCIe AtomicOp CAS: *old receives
 * the value before, and `desired` was stored iff *old == expected. The host
 * does it with its own atomic instruction, so that kernels' atomics on host
 * memory (atomicAdd_system) and the CPU's combine. Return as the DMA
 * callbacks. */
typedef int (*simtgpu_dma_cmpxchg_fn)(void *opaque, uint64_t bus_addr,
				      uint32_t size, uint64_t expected,
				      uint64_t desired, uint64_t *old);
/* Raise MSI-X vector `vector` (SIMTGPU_MSIX_VEC_*). May be called from any
 * simulator thread. */
typedef void (*simtgpu_irq_fn)(void *opaque, uint32_t vector);
/* Give [offset, offset + bytes) of host-provided VRAM, whole host pages,
 * back to the host: afterwards it reads as zero and costs no memory until
 * written (QEMU: ram_block_discard_range). Non-zero: not done, and the
 * library writes the zeros itself. */
typedef int (*simtgpu_vram_discard_fn)(void *opaque, uint64_t offset,
				       uint64_t bytes);

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
	 * "teaching", "volta", "ampere"; docs/timing.md), read first; the fields above
	 * that are non-zero then override it. NULL = the fields alone. A
	 * struct_size of ABI 3's struct, without this field, is still
	 * accepted. */
	const char *config;
	/* ABI 5: with `vram`, how clears (SIMTGPU_REG_VRAM_CLEAR,
	 * simtgpu_sim_vram_clear) return its pages to the host; NULL: they
	 * write zeros, which backs every page cleared. Smaller structs of ABI
	 * 3 and 4 are still accepted. */
	simtgpu_vram_discard_fn vram_discard;
	/* ABI 5: write a Chrome/Perfetto trace (trace-event JSON) of what the
	 * device does to this file (docs/trace.md), complete whenever the
	 * device is idle and when it is destroyed. NULL = no trace. */
	const char *trace;
	/* ABI 5: slices and instants the trace holds at most; when reached, a
	 * note in the trace and on stderr, and later events are dropped.
	 * 0 = 1000000. */
	uint64_t trace_max_events;
	/* ABI 6: host threads that run the SMs, 1..256; 0 = 1. Results,
	 * statistics and cycles are the same for every count, in either model
	 * (docs/simulator.md, "SMs on several host threads"). */
	uint32_t host_threads;
	/* ABI 8: atomics on host memory (needs dma_read). NULL: the device
	 * does them as a read, a compare and a write under its own lock,
	 * atomic against its other atomics but not against the host's CPUs. */
	simtgpu_dma_cmpxchg_fn dma_cmpxchg;
} simtgpu_sim_config;

/*
 * Statistics since creation or the last reset. counters[] holds every
 * counter of simtgpu/counters.h by SIMTGPU_COUNTER_* index (ABI 5); the
 * named fields before it are ABI 4's, kept at their offsets for hosts that
 * pass that struct_size (each is the counter of the same name; ipc and
 * occupancy are the derived ipc and achieved_occupancy / 100).
 */
typedef struct simtgpu_sim_stats {
	uint32_t struct_size; /* set by the caller */
	uint32_t num_sms;
	uint64_t launches;
	uint64_t ctas;
	uint64_t cycles;
	uint64_t sm_busy_cycles;
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
	double ipc;
	double occupancy;
	/* ABI 5 */
	uint32_t num_counters; /* out: entries of counters[] filled */
	uint32_t warps_per_sm; /* out: the device's shape, for */
	uint32_t clock_khz; /* simtgpu_derived_value() */
	uint32_t reserved;
	uint64_t counters[SIMTGPU_NUM_COUNTERS];
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
 * memory to a client (SIMTGPU_REG_VRAM_CLEAR does the same through BAR0).
 * Whole pages of the library's own backing go back to the host (they read
 * as zero and cost nothing until touched again), so a program that
 * allocates most of a large VRAM does not commit it; host backing is
 * discarded through vram_discard, or written without it. Returns 0, or
 * -EINVAL when the range is outside VRAM. */
SIMTGPU_SIM_API int simtgpu_sim_vram_clear(simtgpu_sim *sim, uint64_t offset, uint64_t bytes);

/* Device reset (as SIMTGPU_REG_RESET): waits for the engines to stop. */
SIMTGPU_SIM_API void simtgpu_sim_reset(simtgpu_sim *sim);

/* Blocks until every ring is idle or stalled, or timeout_ms passes
 * (0 = no wait). Returns 1 when idle, 0 on timeout. */
SIMTGPU_SIM_API int simtgpu_sim_wait_idle(simtgpu_sim *sim, uint32_t timeout_ms);

/* Fills min(out->struct_size, sizeof(simtgpu_sim_stats)) bytes; -EINVAL
 * when struct_size cannot hold num_sms. */
SIMTGPU_SIM_API int simtgpu_sim_get_stats(simtgpu_sim *sim, simtgpu_sim_stats *out);

/* The counter list as this library has it: SIMTGPU_NUM_COUNTERS of its
 * header, and counter `index`'s name (NULL past the end) or the index of
 * `name` (-1 when it has none). A host built against another header finds
 * its counters by name. */
SIMTGPU_SIM_API uint32_t simtgpu_sim_num_counters(void);
SIMTGPU_SIM_API const char *simtgpu_sim_counter_name(uint32_t index);
SIMTGPU_SIM_API int simtgpu_sim_counter_index(const char *name);

/* Statistics as a JSON object (NUL-terminated, owned by the caller: free
 * with simtgpu_sim_free_string). */
SIMTGPU_SIM_API char *simtgpu_sim_stats_json(simtgpu_sim *sim);
SIMTGPU_SIM_API void simtgpu_sim_free_string(char *s);

/* ABI 5: adds a host's slice to the trace being written (a driver's job, a
 * CUDA stream's kernel or copy), on track `track` of process `process`
 * (named at first use), from begin_ns to end_ns of the device's global
 * timer (SIMTGPU_REG_TIMER, the TIMESTAMP packet's clock). Thread-safe.
 * Returns 0, -ENOENT when no trace is being written, -EINVAL for NULL
 * strings or end_ns < begin_ns. */
SIMTGPU_SIM_API int simtgpu_sim_trace_slice(simtgpu_sim *sim, const char *process,
					    const char *track, const char *name,
					    uint64_t begin_ns, uint64_t end_ns);

#ifdef __cplusplus
}
#endif

#endif /* SIMTGPU_SIM_H */
