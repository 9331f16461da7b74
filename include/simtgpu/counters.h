/* SPDX-License-Identifier: MIT */
/*
 * The device's counters, listed once. Every layer is generated from or
 * iterates this list: the simulator's counter structs (SmStats,
 * MemoryCounters, EngineCounters, DeviceCounters), the C ABI
 * (simtgpu_sim_stats.counters[], simtgpu_sim_counter_name()), the BAR0
 * counter block (SIMTGPU_REG_COUNTER(i) in hw.h), the kernel driver's sysfs
 * directory counters/, simt-smi -q, the stats JSON and docs/counters.md.
 *
 * Each entry is X(name, unit, ncu, meaning): ncu is the Nsight Compute
 * metric it corresponds to ("" where none exists). The index of a counter
 * (SIMTGPU_COUNTER_<name>) is its place in SIMTGPU_COUNTERS; new counters
 * go at the end of their group, and a change of order is an ABI change
 * (SIMTGPU_SIM_ABI_VERSION) and a register change (SIMTGPU_HW_VERSION).
 *
 * Plain C, included by the kernel module, QEMU and C++.
 */
#ifndef SIMTGPU_COUNTERS_H
#define SIMTGPU_COUNTERS_H

/* Counted by the command processor (sim/src/command_processor: EngineCounters). */
#define SIMTGPU_ENGINE_COUNTERS(X)                                              \
	X(cycles, "cycle", "gpc__cycles_elapsed.max",                           \
	  "device cycles spent working (the global timer's time base)")          \
	X(launches, "grid", "", "grids launched (refused launches not counted)") \
	X(packets, "packet", "", "ring and indirect-buffer packets executed")   \
	X(dma_bytes, "byte", "",                                                \
	  "bytes moved to or from host memory (copies, fences, host PTEs)")

/* Counted by the register interface (sim/src/device: DeviceCounters). */
#define SIMTGPU_DEVICE_COUNTERS(X)                                     \
	X(exceptions, "record", "", "exception records raised")        \
	X(bad_mmio_accesses, "access", "",                             \
	  "BAR0 accesses ignored: bad size, offset or read-only write")  \
	X(gpu_page_faults, "fault", "",                                \
	  "replayable page faults queued for the driver (hw.h)")      \
	X(fault_replays, "replay", "",                                 \
	  "FAULT_REPLAY writes: held warps retried or cancelled")

/*
 * Warp stall reasons of the timing model (SmStats): each SM cycle, every
 * resident warp that does not issue counts one, under the first reason
 * that holds (docs/timing.md). Zero in the functional mode.
 */
#define SIMTGPU_SM_STALLS(X)                                                  \
	X(stall_long_scoreboard, "warp*cycle",                               \
	  "smsp__warps_issue_stalled_long_scoreboard.sum",                   \
	  "waiting for a register a global or local load or an atomic writes") \
	X(stall_short_scoreboard, "warp*cycle",                              \
	  "smsp__warps_issue_stalled_short_scoreboard.sum",                  \
	  "waiting for a register a shared-memory access or the SFU writes")  \
	X(stall_wait, "warp*cycle", "smsp__warps_issue_stalled_wait.sum",    \
	  "waiting for a register a fixed-latency instruction writes")        \
	X(stall_barrier, "warp*cycle", "smsp__warps_issue_stalled_barrier.sum", \
	  "waiting at a CTA barrier or a warp-level sync")                    \
	X(stall_not_selected, "warp*cycle",                                  \
	  "smsp__warps_issue_stalled_not_selected.sum",                      \
	  "ready, but its scheduler issued another warp")                     \
	X(stall_no_instruction, "warp*cycle",                                \
	  "smsp__warps_issue_stalled_no_instruction.sum",                    \
	  "waiting for its next instruction after a branch")                 \
	X(stall_memory_throttle, "warp*cycle",                               \
	  "smsp__warps_issue_stalled_lg_throttle.sum",                       \
	  "waiting for the memory system to take its access (MSHRs, LSU)")   \
	X(stall_math_pipe_throttle, "warp*cycle",                            \
	  "smsp__warps_issue_stalled_math_pipe_throttle.sum",                \
	  "waiting for its functional unit (initiation interval)")

/* Counted by each SM (sim/src/sm: SmStats); device values are sums. */
#define SIMTGPU_SM_COUNTERS(X)                                                \
	X(sm_busy_cycles, "cycle", "sm__cycles_active.sum",                  \
	  "SM cycles with at least one resident warp")                       \
	X(thread_instructions, "inst", "smsp__thread_inst_executed.sum",     \
	  "instructions executed, one per active thread")                    \
	X(warp_instructions, "inst", "smsp__inst_executed.sum",              \
	  "instructions issued, one per convergent group of a warp")         \
	X(resident_warp_cycles, "warp*cycle", "sm__warps_active.sum",        \
	  "resident warps summed over SM busy cycles")                       \
	X(ctas, "block", "sm__ctas_launched.sum", "CTAs completed")           \
	X(mem_reads, "access", "", "thread loads (global, shared, local)")   \
	X(mem_writes, "access", "", "thread stores")                         \
	X(tlb_hits, "lookup", "", "thread accesses the SM's TLB translated")  \
	X(tlb_misses, "lookup", "", "thread accesses that walked the page table") \
	X(branches, "inst", "smsp__inst_executed_op_branch.sum",             \
	  "conditional branches and indirect jumps issued (warp level)")     \
	X(divergent_branches, "inst",                                        \
	  "smsp__sass_branch_targets_threads_divergent.sum",                 \
	  "branches whose active threads went to more than one target")      \
	X(barrier_waits, "inst", "",                                         \
	  "warp arrivals at a CTA barrier")                                  \
	SIMTGPU_SM_STALLS(X)

/*
 * Counted by the memory system per requesting SM (sim/src/mem:
 * MemoryCounters); the timing model only, zero in the functional mode.
 */
#define SIMTGPU_MEMORY_COUNTERS(X)                                             \
	X(l1_sector_hits, "sector", "l1tex__t_sectors_lookup_hit.sum",        \
	  "load sectors found valid in L1")                                   \
	X(l1_sector_misses, "sector", "l1tex__t_sectors_lookup_miss.sum",     \
	  "load sectors L1 requested from L2")                                \
	X(l1_sector_merges, "sector", "",                                     \
	  "load sectors that joined a fill in flight (MSHR merge)")          \
	X(l2_sector_hits, "sector", "lts__t_sectors_lookup_hit.sum",          \
	  "sectors (load, store, atomic) found valid in L2")                  \
	X(l2_sector_misses, "sector", "lts__t_sectors_lookup_miss.sum",       \
	  "sectors L2 fetched from DRAM or allocated")                        \
	X(dram_read_bytes, "byte", "dram__bytes_read.sum",                    \
	  "bytes read from DRAM")                                             \
	X(dram_write_bytes, "byte", "dram__bytes_write.sum",                  \
	  "bytes written to DRAM (dirty sectors evicted from L2)")            \
	X(dram_row_hits, "access", "", "DRAM accesses that found their row open") \
	X(dram_row_misses, "access", "", "DRAM accesses that opened their row") \
	X(shared_passes, "wavefront",                                        \
	  "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum",                   \
	  "bank cycles of shared-memory accesses")                            \
	X(shared_bank_conflicts, "wavefront",                                \
	  "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum",               \
	  "shared-memory bank cycles beyond the fewest possible")             \
	X(mshr_throttles, "access", "",                                       \
	  "loads the memory system refused (no MSHR or no line to allocate)") \
	X(atomic_ops, "op", "", "atomic operations performed at L2")         \
	X(l2_persisting_sector_hits, "sector", "",                            \
	  "sectors an access policy window marked persisting, found in L2")   \
	X(l2_persisting_sector_misses, "sector", "",                          \
	  "sectors an access policy window marked persisting, missing L2")

/* Every counter, in index order. */
#define SIMTGPU_COUNTERS(X)         \
	SIMTGPU_ENGINE_COUNTERS(X)  \
	SIMTGPU_DEVICE_COUNTERS(X)  \
	SIMTGPU_SM_COUNTERS(X)      \
	SIMTGPU_MEMORY_COUNTERS(X)

enum simtgpu_counter {
#define SIMTGPU_X(name, unit, ncu, meaning) SIMTGPU_COUNTER_##name,
	SIMTGPU_COUNTERS(SIMTGPU_X)
#undef SIMTGPU_X
	SIMTGPU_NUM_COUNTERS
};

/*
 * Figures derived from the counters, computed only by
 * simtgpu_derived_value(): X(name, unit, ncu, meaning, numerator,
 * denominator), the figure being numerator / denominator (0 when that is
 * 0). The expressions use SIMTGPU_C(name), a counter's value, and the
 * device's warps_per_sm and clock_khz.
 */
#define SIMTGPU_DERIVED(X)                                                      \
	X(ipc, "inst/cycle", "sm__inst_executed.avg.per_cycle_active",         \
	  "warp instructions per SM busy cycle",                              \
	  SIMTGPU_C(warp_instructions), SIMTGPU_C(sm_busy_cycles))            \
	X(threads_per_instruction, "thread",                                   \
	  "smsp__thread_inst_executed_per_inst_executed.ratio",               \
	  "active threads per warp instruction",                              \
	  SIMTGPU_C(thread_instructions), SIMTGPU_C(warp_instructions))       \
	X(achieved_occupancy, "%",                                             \
	  "sm__warps_active.avg.pct_of_peak_sustained_active",                \
	  "resident warps per warp slot while the SM is busy",               \
	  100.0 * SIMTGPU_C(resident_warp_cycles),                            \
	  SIMTGPU_C(sm_busy_cycles) * warps_per_sm)                           \
	X(l1_hit_rate, "%", "l1tex__t_sector_hit_rate.pct",                    \
	  "load sectors found in L1 per sector looked up",                    \
	  100.0 * SIMTGPU_C(l1_sector_hits),                                  \
	  SIMTGPU_C(l1_sector_hits) + SIMTGPU_C(l1_sector_misses) +            \
		  SIMTGPU_C(l1_sector_merges))                                 \
	X(l2_hit_rate, "%", "lts__t_sector_hit_rate.pct",                      \
	  "sectors found in L2 per sector looked up",                         \
	  100.0 * SIMTGPU_C(l2_sector_hits),                                  \
	  SIMTGPU_C(l2_sector_hits) + SIMTGPU_C(l2_sector_misses))             \
	X(dram_bandwidth, "GB/s", "dram__bytes.sum.per_second",                \
	  "DRAM bytes per second of device time",                             \
	  (SIMTGPU_C(dram_read_bytes) + SIMTGPU_C(dram_write_bytes)) *         \
		  clock_khz / 1e6,                                             \
	  SIMTGPU_C(cycles))                                                   \
	X(shared_conflicts_per_pass, "%", "",                                  \
	  "shared-memory bank cycles lost to conflicts",                     \
	  100.0 * SIMTGPU_C(shared_bank_conflicts), SIMTGPU_C(shared_passes))  \
	X(branch_efficiency, "%",                                              \
	  "smsp__sass_average_branch_targets_threads_uniform.pct",            \
	  "branches whose active threads all went one way",                  \
	  100.0 * (SIMTGPU_C(branches) - SIMTGPU_C(divergent_branches)),      \
	  SIMTGPU_C(branches))

enum simtgpu_derived {
#define SIMTGPU_X(name, unit, ncu, meaning, num, den) SIMTGPU_DERIVED_##name,
	SIMTGPU_DERIVED(SIMTGPU_X)
#undef SIMTGPU_X
	SIMTGPU_NUM_DERIVED
};

#ifndef __KERNEL__ /* floating point: not in the kernel module */
#include <stdint.h>

/*
 * Derived figure `which` of the counter values `c` (SIMTGPU_NUM_COUNTERS
 * of them, or deltas of two readings: a kernel's own figures) on a device
 * with `warps_per_sm` warp slots per SM and an SM clock of `clock_khz`.
 */
static inline double simtgpu_derived_value(enum simtgpu_derived which,
					   const uint64_t *c,
					   uint32_t warps_per_sm,
					   uint32_t clock_khz)
{
#define SIMTGPU_C(name) ((double)c[SIMTGPU_COUNTER_##name])
	double num = 0, den = 0;

	switch (which) {
#define SIMTGPU_X(name, unit, ncu, meaning, n, d) \
	case SIMTGPU_DERIVED_##name:              \
		num = (n);                        \
		den = (d);                        \
		break;
		SIMTGPU_DERIVED(SIMTGPU_X)
#undef SIMTGPU_X
	case SIMTGPU_NUM_DERIVED:
		break;
	}
#undef SIMTGPU_C
	return den > 0 ? num / den : 0;
}
#endif

#endif /* SIMTGPU_COUNTERS_H */
