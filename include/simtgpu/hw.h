/* SPDX-License-Identifier: MIT */
/*
 * simtgpu hardware interface: the one definition of the device's registers,
 * command packets, page-table format, exception records, SIMT CSRs, custom
 * instruction encodings and address-space windows.
 *
 * Used unchanged by the simulator (C++), the QEMU device (C), the kernel
 * driver (kernel C) and the userspace driver, so it uses fixed-width types
 * only and no C library headers in kernel builds. docs/hardware.md and
 * docs/isa.md explain every definition here; change both together.
 */
#ifndef SIMTGPU_HW_H
#define SIMTGPU_HW_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdint.h>
#endif

/* ---------------------------------------------------------------- PCI --- */

#define SIMTGPU_PCI_VENDOR_ID 0x1234 /* QEMU's test vendor */
#define SIMTGPU_PCI_DEVICE_ID 0x5347 /* "SG" */
#define SIMTGPU_PCI_REVISION 0x01
#define SIMTGPU_PCI_CLASS 0x0302 /* display controller: 3D controller */

#define SIMTGPU_BAR_REGS 0 /* 64 KiB of 32-bit registers */
#define SIMTGPU_BAR_VRAM 2 /* 64-bit prefetchable, the whole VRAM */
#define SIMTGPU_BAR_MSIX 4 /* MSI-X table and PBA */
#define SIMTGPU_REGS_SIZE 0x10000

#define SIMTGPU_MSIX_VECTORS 2
#define SIMTGPU_MSIX_VEC_FENCE 0 /* SIMTGPU_IRQ_FENCE */
#define SIMTGPU_MSIX_VEC_ERROR 1 /* SIMTGPU_IRQ_EXCEPTION, _FAULT */

/* ------------------------------------------------------ architectures --- */

/*
 * The device architecture, as in -arch=simt_N. A device runs code built for
 * its own architecture or an older one.
 */
#define SIMTGPU_ARCH_SIMT1 1 /* RV64GC + SIMT extension v1 */
#define SIMTGPU_ARCH_SIMT2 2 /* adds bar.red, the envptr CSR, named barriers
			    * (bar.sync id, count; bar.arrive), match, redux,
			    * Zacas amocas.w/d and the custom atomics */
#define SIMTGPU_ARCH_NEWEST SIMTGPU_ARCH_SIMT2

/*
 * The CUDA compute capability (major * 10 + minor) a device of each
 * architecture reports: the highest whose features code for it all has.
 * simtcc compiles CUDA as sm_70 (__CUDA_ARCH__ 700), so simt_2 is 7.0;
 * simt_1 lacks printf, assert and __syncthreads_count (2.0) but has doubles
 * and shared-memory atomics (1.3). docs/cuda-runtime.md.
 */
#define SIMTGPU_ARCH_SIMT1_COMPUTE_CAPABILITY 13
#define SIMTGPU_ARCH_SIMT2_COMPUTE_CAPABILITY 70
#define SIMTGPU_COMPUTE_CAPABILITY(arch)                                   \
	((arch) == SIMTGPU_ARCH_SIMT1 ? SIMTGPU_ARCH_SIMT1_COMPUTE_CAPABILITY : \
					SIMTGPU_ARCH_SIMT2_COMPUTE_CAPABILITY)

/* Version of this register/packet interface: major << 16 | minor. */
#define SIMTGPU_HW_VERSION_MAJOR 1
/* 1.1: SM masks, PREEMPT, PROGRESS; 1.2: VRAM_CLEAR, the counter block
 * (counters.h); 1.3: L2_SIZE, MEM_BUS_WIDTH, MEM_CLOCK_KHZ; 1.4: replayable
 * faults (PTE_REPLAY, the fault queue, FAULT_REPLAY, TLB_INVALIDATE); 1.5:
 * persisting L2 lines (L2_PERSISTING_MAX, L2_WINDOW_MAX, L2_SET_ASIDE, the
 * L2_POLICY packet, EXC_BAD_L2_POLICY); 1.6: a write or atomic that a
 * valid PTE with PTE_REPLAY does not permit is a replayable fault (read-only
 * duplicates of managed pages) */
#define SIMTGPU_HW_VERSION_MINOR 6
#define SIMTGPU_HW_VERSION \
	((SIMTGPU_HW_VERSION_MAJOR << 16) | SIMTGPU_HW_VERSION_MINOR)

/* ---------------------------------------------------- BAR0 registers --- */
/*
 * All registers are 32 bits wide and must be accessed with aligned 32-bit
 * reads and writes; 64-bit values are split into _LO and _HI halves (read
 * _LO first: it latches _HI for the counters).
 */

/* Identity and capabilities (read-only). */
#define SIMTGPU_REG_ID 0x0000 /* SIMTGPU_ID_MAGIC */
#define SIMTGPU_ID_MAGIC 0x544d4953u /* "SIMT" little-endian */
#define SIMTGPU_REG_HW_VERSION 0x0004 /* SIMTGPU_HW_VERSION */
#define SIMTGPU_REG_ARCH 0x0008 /* SIMTGPU_ARCH_* the SMs implement */
#define SIMTGPU_REG_CAPS 0x000c /* SIMTGPU_CAP_* */
#define SIMTGPU_CAP_FP64 (1u << 0)
#define SIMTGPU_CAP_ATOMICS (1u << 1) /* A extension on global and shared */
#define SIMTGPU_CAP_HOST_PTE (1u << 2) /* PTEs may point at host memory */
#define SIMTGPU_CAP_TIMESTAMP (1u << 3)
#define SIMTGPU_CAP_VRAM_CLEAR (1u << 4) /* SIMTGPU_REG_VRAM_CLEAR */
#define SIMTGPU_CAP_REPLAYABLE_FAULTS (1u << 5) /* SIMTGPU_PTE_REPLAY, 1.4 */
#define SIMTGPU_REG_NUM_SMS 0x0010
#define SIMTGPU_REG_WARPS_PER_SM 0x0014 /* resident warp slots per SM */
#define SIMTGPU_REG_WARP_SIZE 0x0018 /* lanes per warp */
#define SIMTGPU_REG_CTAS_PER_SM 0x001c /* resident CTA slots per SM */
#define SIMTGPU_REG_SHARED_PER_SM 0x0020 /* bytes of shared memory per SM */
#define SIMTGPU_REG_MAX_THREADS_PER_CTA 0x0024
#define SIMTGPU_REG_VRAM_SIZE_LO 0x0028
#define SIMTGPU_REG_VRAM_SIZE_HI 0x002c
#define SIMTGPU_REG_CLOCK_KHZ 0x0030 /* simulated SM clock */
#define SIMTGPU_REG_NUM_RINGS 0x0034
#define SIMTGPU_REG_MAX_STACK_PER_THREAD 0x0038 /* bytes of local memory */

/* Simulated time and sensors (read-only). */
#define SIMTGPU_REG_TIMER_LO 0x0040 /* global timer, ns of simulated time */
#define SIMTGPU_REG_TIMER_HI 0x0044
#define SIMTGPU_REG_TEMPERATURE 0x0048 /* millidegrees Celsius */
#define SIMTGPU_REG_STATUS 0x004c /* SIMTGPU_STATUS_* */
#define SIMTGPU_STATUS_BUSY (1u << 0) /* an engine is executing */
#define SIMTGPU_STATUS_EXCEPTION (1u << 1) /* a record awaits its ack */

/* Reset (write-only). Writing SIMTGPU_RESET_MAGIC stops every engine and
 * returns all registers to their reset values; VRAM is preserved. */
#define SIMTGPU_REG_RESET 0x0050
#define SIMTGPU_RESET_MAGIC 0x52535421u /* "!TSR" */

/* Scratch register for driver sanity checks (read/write). */
#define SIMTGPU_REG_SCRATCH 0x0054

/* Bound on a preemption (read/write): device cycles from a PREEMPT request
 * until the ring must be parked, else SIMTGPU_EXC_PREEMPT_TIMEOUT on that
 * ring. 0 (the reset value): no bound. */
#define SIMTGPU_REG_PREEMPT_TIMEOUT 0x0058
/* Counters the device serves at SIMTGPU_REG_COUNTER(0..N-1) (read-only). */
#define SIMTGPU_REG_NUM_COUNTERS 0x005c

/*
 * VRAM clear (CAPS.VRAM_CLEAR): the memory controller zeroes a range of
 * VRAM, as a driver must before it hands memory to a client. Write the
 * range's VRAM offset and length (both 4 KiB aligned) to the _LO/_HI pairs
 * (read/write), then SIMTGPU_VRAM_CLEAR_GO to VRAM_CLEAR: the write returns
 * once the range reads as zero, and VRAM_CLEAR then reads
 * SIMTGPU_VRAM_CLEAR_DONE, or SIMTGPU_VRAM_CLEAR_BAD_RANGE (nothing
 * cleared) for a range that is unaligned or not inside VRAM. Cleared pages
 * go back to the host that backs VRAM and cost it nothing until written.
 */
#define SIMTGPU_REG_VRAM_CLEAR_ADDR_LO 0x0060
#define SIMTGPU_REG_VRAM_CLEAR_ADDR_HI 0x0064
#define SIMTGPU_REG_VRAM_CLEAR_BYTES_LO 0x0068
#define SIMTGPU_REG_VRAM_CLEAR_BYTES_HI 0x006c
#define SIMTGPU_REG_VRAM_CLEAR 0x0070
#define SIMTGPU_VRAM_CLEAR_GO 1u /* write */
#define SIMTGPU_VRAM_CLEAR_DONE 0u /* read: the last clear's result */
#define SIMTGPU_VRAM_CLEAR_BAD_RANGE 1u

/*
 * The memory hierarchy the device models (read-only, 1.3): the L2 cache's
 * bytes, the DRAM interface's width in bits and its clock. 0 where the
 * device models none (the functional model: a global access costs a fixed
 * latency). Peak DRAM bandwidth, as CUDA's deviceQuery computes it, is
 * 2 * MEM_CLOCK_KHZ * 1000 * MEM_BUS_WIDTH / 8 bytes per second.
 */
#define SIMTGPU_REG_L2_SIZE 0x0074
#define SIMTGPU_REG_MEM_BUS_WIDTH 0x0078
#define SIMTGPU_REG_MEM_CLOCK_KHZ 0x007c

/*
 * L2 access management (read-only, 1.5), as CUDA's persisting L2 lines: the
 * most bytes of L2 that may be set aside for persisting lines, the largest
 * access policy window (SIMTGPU_PKT_L2_POLICY), and the set-aside in force.
 * 0 where the device has none (the functional model, or a configuration
 * without a set-aside, as a V100).
 */
#define SIMTGPU_REG_L2_PERSISTING_MAX 0x0080
#define SIMTGPU_REG_L2_WINDOW_MAX 0x0084
#define SIMTGPU_REG_L2_SET_ASIDE 0x0088

/*
 * Rings. Ring n's registers are at SIMTGPU_RING_BASE(n) + offset.
 * The ring is a power-of-two sized circular buffer of 32-bit dwords in VRAM
 * (a physical VRAM offset). The driver writes packets, then writes TAIL (the
 * doorbell). The device advances HEAD as it consumes packets. Rings run at
 * kernel privilege; they are owned by the kernel driver.
 */
#define SIMTGPU_NUM_RINGS 4
#define SIMTGPU_RING_BASE(n) (0x0100 + (n) * 0x40)
#define SIMTGPU_RING_ADDR_LO 0x00 /* VRAM offset, 4 KiB aligned */
#define SIMTGPU_RING_ADDR_HI 0x04
#define SIMTGPU_RING_SIZE 0x08 /* bytes, power of two, 4 KiB..16 MiB */
#define SIMTGPU_RING_HEAD 0x0c /* RO: byte offset of next packet */
#define SIMTGPU_RING_TAIL 0x10 /* RW: byte offset past last packet */
#define SIMTGPU_RING_CTRL 0x14 /* RW: SIMTGPU_RING_CTRL_* */
#define SIMTGPU_RING_CTRL_ENABLE (1u << 0)
/* Write 1 (with ENABLE) to drop the ring's grid and indirect buffer: HEAD
 * moves past the packet at HEAD, PREEMPT clears, the ring goes on; other
 * rings are not touched. Reads as 0. A per-ring reset. */
#define SIMTGPU_RING_CTRL_ABORT (1u << 1)
#define SIMTGPU_RING_STATUS 0x18 /* RO: SIMTGPU_RING_STATUS_* */
#define SIMTGPU_RING_STATUS_IDLE 0 /* disabled or HEAD == TAIL */
#define SIMTGPU_RING_STATUS_BUSY 1
#define SIMTGPU_RING_STATUS_STALLED 2 /* waiting for an exception ack */
#define SIMTGPU_RING_STATUS_ERROR 3 /* bad ring setup; reset to clear */
#define SIMTGPU_RING_STATUS_PARKED 4 /* preempted: PREEMPT = 1 took effect */
#define SIMTGPU_RING_PRIORITY 0x1c /* RW: 0 low .. 3 high, see docs */
/*
 * PREEMPT (RW): writing 1 asks the ring to park: its grid places no more
 * CTAs, the resident ones run to their end, the grid is saved with its next
 * CTA, the ring fetches no packets, and STATUS becomes PARKED with
 * SIMTGPU_IRQ_PARKED. Writing 0 resumes where it stopped.
 */
#define SIMTGPU_RING_PREEMPT 0x20
/* PROGRESS (RO, 64-bit, read _LO first): packets and CTAs this ring has
 * completed since it was enabled, plus the device's samples at which the
 * state of its resident CTAs had changed (so a long CTA that computes moves
 * it, one that spins on an unchanging flag does not); monotonic. A driver's
 * hang check is "PROGRESS did not move". */
#define SIMTGPU_RING_PROGRESS_LO 0x24
#define SIMTGPU_RING_PROGRESS_HI 0x28
/* RESIDENT (RO): CTAs of this ring's grid on the SMs now. A ring holding
 * none while another ring holds some is waiting for SMs, not hung. */
#define SIMTGPU_RING_RESIDENT 0x2c

/*
 * SM masks (RW): which SMs the grids of ring n may use, one bit per SM, 32
 * SMs per register: SM s is bit s % 32 of SIMTGPU_REG_SM_MASK(n, s / 32).
 * Reset value all ones. A change applies to CTAs placed after it; CTAs
 * already resident finish where they are.
 */
#define SIMTGPU_SM_MASK_WORDS 32 /* up to 1024 SMs */
#define SIMTGPU_REG_SM_MASK(n, word) (0x0800 + (n) * 0x80 + (word) * 4)

/* Interrupts. STATUS bits are set by the device; writing 1s to ACK clears
 * them. An interrupt is signalled when (STATUS & MASK) becomes non-zero. */
#define SIMTGPU_REG_IRQ_STATUS 0x0200
#define SIMTGPU_REG_IRQ_MASK 0x0204
#define SIMTGPU_REG_IRQ_ACK 0x0208
#define SIMTGPU_IRQ_FENCE (1u << 0) /* a FENCE packet with IRQ ran */
#define SIMTGPU_IRQ_EXCEPTION (1u << 1) /* an exception record is valid */
#define SIMTGPU_IRQ_RING_ERROR (1u << 2) /* a ring entered ERROR state */
#define SIMTGPU_IRQ_PARKED (1u << 3) /* a ring's PREEMPT took effect */
#define SIMTGPU_IRQ_FAULT (1u << 4) /* the fault queue has entries (1.4) */

/*
 * Exception record. When a job faults, traps, deadlocks or sends a bad or
 * privileged packet, the command processor aborts the current indirect
 * buffer (or launch), fills this record, raises SIMTGPU_IRQ_EXCEPTION and
 * stalls that ring. Acknowledging the interrupt (IRQ_ACK bit 1) releases the
 * record; the ring then resumes with the packet after the aborted one.
 */
#define SIMTGPU_REG_EXC_KIND 0x0300 /* SIMTGPU_EXC_* */
#define SIMTGPU_REG_EXC_RING 0x0304 /* ring that was executing */
#define SIMTGPU_REG_EXC_CONTEXT 0x0308 /* context id of SET_CONTEXT */
#define SIMTGPU_REG_EXC_ACCESS 0x030c /* SIMTGPU_ACCESS_* for faults */
#define SIMTGPU_REG_EXC_ADDR_LO 0x0310 /* faulting virtual address */
#define SIMTGPU_REG_EXC_ADDR_HI 0x0314
#define SIMTGPU_REG_EXC_PC_LO 0x0318 /* PC of the faulting thread */
#define SIMTGPU_REG_EXC_PC_HI 0x031c
#define SIMTGPU_REG_EXC_SM 0x0320
#define SIMTGPU_REG_EXC_WARP 0x0324 /* warp slot within the SM */
#define SIMTGPU_REG_EXC_LANE 0x0328
#define SIMTGPU_REG_EXC_CTAID_X 0x032c
#define SIMTGPU_REG_EXC_CTAID_Y 0x0330
#define SIMTGPU_REG_EXC_CTAID_Z 0x0334
#define SIMTGPU_REG_EXC_TID_X 0x0338
#define SIMTGPU_REG_EXC_TID_Y 0x033c
#define SIMTGPU_REG_EXC_TID_Z 0x0340
#define SIMTGPU_REG_EXC_RING_OFFSET 0x0344 /* ring packet that was aborted */
#define SIMTGPU_REG_EXC_DETAIL 0x0348 /* kind-specific, see below */

#define SIMTGPU_EXC_NONE 0
#define SIMTGPU_EXC_PAGE_FAULT 1 /* DETAIL: SIMTGPU_FAULT_* */
#define SIMTGPU_EXC_MISALIGNED 2 /* misaligned atomic or LR/SC */
#define SIMTGPU_EXC_ILLEGAL_INSTRUCTION 3 /* DETAIL: the instruction bits */
#define SIMTGPU_EXC_TRAP 4 /* ebreak (device-side assert) */
#define SIMTGPU_EXC_DEADLOCK 5 /* DETAIL: SIMTGPU_DEADLOCK_* */
#define SIMTGPU_EXC_BAD_PACKET 6 /* DETAIL: the packet header */
#define SIMTGPU_EXC_PRIVILEGED_PACKET 7 /* DETAIL: the packet header */
#define SIMTGPU_EXC_BAD_LAUNCH 8 /* DETAIL: SIMTGPU_LAUNCH_ERR_* */
#define SIMTGPU_EXC_BAD_ECALL 9 /* DETAIL: a7 */
#define SIMTGPU_EXC_ARCH_MISMATCH 10 /* DETAIL: arch the launch needs */
#define SIMTGPU_EXC_PREEMPT_TIMEOUT 11 /* DETAIL: CTAs still resident */
#define SIMTGPU_EXC_BAD_BARRIER 12 /* DETAIL: SIMTGPU_BARRIER_DETAIL() */
#define SIMTGPU_EXC_BAD_L2_POLICY 13 /* DETAIL: SIMTGPU_L2_POLICY_ERR_* (1.5) */

/*
 * Why a bar.sync/bar.arrive operand is wrong (SIMTGPU_EXC_BAD_BARRIER):
 * DETAIL = reason << 24 | the offending value (barrier id or thread count,
 * saturated to 24 bits).
 */
#define SIMTGPU_BARRIER_ERR_ID 1 /* barrier id >= SIMTGPU_BARRIERS */
#define SIMTGPU_BARRIER_ERR_COUNT_ALIGN 2 /* count not a multiple of the warp size */
#define SIMTGPU_BARRIER_ERR_COUNT_RANGE 3 /* count above the CTA's threads (in warps) */
#define SIMTGPU_BARRIER_ERR_COUNT_MISMATCH 4 /* count differs from the waiting threads' */
#define SIMTGPU_BARRIER_ERR_ARRIVE_ALL 5 /* bar.arrive without a thread count */
#define SIMTGPU_BARRIER_DETAIL(reason, value) \
	((uint32_t)(reason) << 24 | ((value) > 0xffffffu ? 0xffffffu : (uint32_t)(value)))
#define SIMTGPU_BARRIER_DETAIL_REASON(detail) ((uint32_t)(detail) >> 24)
#define SIMTGPU_BARRIER_DETAIL_VALUE(detail) ((uint32_t)(detail)&0xffffffu)

/*
 * Replayable faults (CAPS.REPLAYABLE_FAULTS, 1.4). An access to a page
 * whose leaf PTE is SIMTGPU_PTE_REPLAY without V does not end the job: the
 * warp stops before the instruction (no lane of it takes effect), the fault
 * goes into the fault queue (one entry per context and page while queued)
 * and SIMTGPU_IRQ_FAULT is raised. The warp is held; other warps go on. The
 * driver pops each entry (the head entry's fields are the FAULT_* registers;
 * writing FAULT_POP drops it), makes the pages present, then writes
 * FAULT_REPLAY: RETRY lets every held warp execute its instruction again
 * (one that faults again is queued again), CANCEL ends the launches of the
 * held warps of context FAULT_CANCEL_CONTEXT with SIMTGPU_EXC_PAGE_FAULT
 * (SIMTGPU_FAULT_NOT_PRESENT) and retries the others. A full queue takes no
 * entry; its warps are held and fault again after the next replay. Replayed
 * warps resume no earlier than the fault's cycle plus the device's fault
 * service time (docs/hardware.md), as a GPU's replay waits for the driver.
 */
#define SIMTGPU_REG_FAULT_COUNT 0x0380 /* RO: entries queued */
#define SIMTGPU_REG_FAULT_ADDR_LO 0x0384 /* RO: the head entry's VA */
#define SIMTGPU_REG_FAULT_ADDR_HI 0x0388
#define SIMTGPU_REG_FAULT_ACCESS 0x038c /* RO: SIMTGPU_ACCESS_* */
#define SIMTGPU_REG_FAULT_CONTEXT 0x0390 /* RO: context id of SET_CONTEXT */
#define SIMTGPU_REG_FAULT_RING 0x0394 /* RO: ring of the faulting launch */
#define SIMTGPU_REG_FAULT_POP 0x0398 /* WO: drop the head entry */
#define SIMTGPU_REG_FAULT_REPLAY 0x039c /* WO: SIMTGPU_REPLAY_* */
#define SIMTGPU_REG_FAULT_CANCEL_CONTEXT 0x03a0 /* RW: for REPLAY_CANCEL */
/*
 * TLB_INVALIDATE (WO): writing any value returns once no SM holds a
 * translation of any context, so a driver that has just changed or removed
 * a PTE knows that no later access uses the old one.
 */
#define SIMTGPU_REG_TLB_INVALIDATE 0x03a4
#define SIMTGPU_FAULT_QUEUE_DEPTH 64
#define SIMTGPU_REPLAY_RETRY 1u
#define SIMTGPU_REPLAY_CANCEL 2u

/* Why a launch cannot go on (DETAIL of SIMTGPU_EXC_DEADLOCK). */
#define SIMTGPU_DEADLOCK_ALL_BLOCKED 0 /* every live thread of a CTA waits */
#define SIMTGPU_DEADLOCK_NO_PROGRESS 1 /* livelock: threads run, nothing changes */

#define SIMTGPU_ACCESS_READ 0
#define SIMTGPU_ACCESS_WRITE 1
#define SIMTGPU_ACCESS_EXEC 2
#define SIMTGPU_ACCESS_ATOMIC 3

#define SIMTGPU_FAULT_NOT_PRESENT 1 /* no valid PTE at some level */
#define SIMTGPU_FAULT_PROTECTION 2 /* PTE lacks R, W or X */
#define SIMTGPU_FAULT_BAD_PTE 3 /* reserved bits set or PA out of VRAM */
#define SIMTGPU_FAULT_OUT_OF_WINDOW 4 /* beyond shared/local window size */
#define SIMTGPU_FAULT_NO_CONTEXT 5 /* no SET_CONTEXT before this job */
#define SIMTGPU_FAULT_DMA 6 /* host memory access failed */

#define SIMTGPU_LAUNCH_ERR_GEOMETRY 1 /* zero or too large grid/block */
#define SIMTGPU_LAUNCH_ERR_SHARED 2 /* shared bytes exceed one SM */
#define SIMTGPU_LAUNCH_ERR_STACK 3 /* stack bytes exceed the maximum */
#define SIMTGPU_LAUNCH_ERR_FLAGS 4 /* reserved bits set */
#define SIMTGPU_LAUNCH_ERR_SM_MASK 5 /* the ring's SM mask has no SM */

/*
 * Counters (read-only, 64-bit, reset by SIMTGPU_REG_RESET): counter i of
 * include/simtgpu/counters.h (SIMTGPU_COUNTER_*) at SIMTGPU_REG_COUNTER(i)
 * (_LO, which latches _HI) and + 4 (_HI), for i below NUM_COUNTERS.
 */
#define SIMTGPU_REG_COUNTER_BASE 0x0400
#define SIMTGPU_REG_COUNTER(i) (SIMTGPU_REG_COUNTER_BASE + 8 * (i))
#define SIMTGPU_MAX_COUNTERS 128 /* the block ends below the SM masks */

/* --------------------------------------------------- command packets --- */
/*
 * A packet is a header dword followed by its body. Header:
 *   bits  7:0  opcode (SIMTGPU_PKT_*)
 *   bits 15:8  flags, opcode-specific (SIMTGPU_PKTF_*)
 *   bits 31:16 body length in dwords (must equal the opcode's size)
 * 64-bit body fields are two dwords, low first. Unknown opcodes, wrong
 * lengths and reserved flag bits are SIMTGPU_EXC_BAD_PACKET.
 */
#define SIMTGPU_PKT_HEADER(op, flags, body_dwords) \
	((uint32_t)(op) | ((uint32_t)(flags) << 8) | \
	 ((uint32_t)(body_dwords) << 16))
#define SIMTGPU_PKT_OPCODE(h) ((h) & 0xffu)
#define SIMTGPU_PKT_FLAGS(h) (((h) >> 8) & 0xffu)
#define SIMTGPU_PKT_BODY_DWORDS(h) ((h) >> 16)

#define SIMTGPU_PKT_NOP 0x00 /* body: any length, ignored */

/* Privileged (ring only): switch the address space for what follows. */
#define SIMTGPU_PKT_SET_CONTEXT 0x01
struct simtgpu_pkt_set_context {
	uint32_t context_id; /* reported in exception records */
	uint32_t reserved; /* must be 0 */
	uint64_t page_table; /* VRAM offset of the root table, 4 KiB aligned */
};

/* Privileged (ring only): run an indirect buffer at user privilege in the
 * current context. IBs may not nest. */
#define SIMTGPU_PKT_INDIRECT 0x02
struct simtgpu_pkt_indirect {
	uint64_t va; /* GPU VA of the first dword, 4-byte aligned */
	uint32_t dwords; /* length of the buffer */
	uint32_t reserved; /* must be 0 */
};

/* Launch a grid. The packet completes when every CTA has finished. */
#define SIMTGPU_PKT_LAUNCH 0x10
struct simtgpu_pkt_launch {
	uint64_t entry_pc; /* VA of the kernel entry */
	uint64_t param_va; /* VA of the parameter buffer (a0 at entry) */
	uint32_t grid[3]; /* CTAs in x, y, z: each >= 1 */
	uint32_t block[3]; /* threads per CTA in x, y, z: each >= 1 */
	uint32_t shared_bytes; /* static + dynamic shared memory per CTA */
	uint32_t stack_bytes; /* local memory per thread, 16-byte multiple */
	uint64_t env_va; /* read by the envptr CSR (printf buffer, ...) */
	uint64_t report_va; /* 0, or where to write a simtgpu_launch_report */
	uint32_t arch; /* SIMTGPU_ARCH_* the code was built for (0 = any) */
	uint32_t reserved; /* must be 0 */
};

/* Written at report_va when a launch completes or is aborted. */
struct simtgpu_launch_report {
	uint32_t exit_status; /* first non-zero exit status, else 0 */
	uint32_t nonzero_exits; /* threads that exited non-zero */
	uint32_t ctaid[3]; /* CTA of the first non-zero exit */
	uint32_t tid[3]; /* thread of the first non-zero exit */
	uint32_t exception; /* SIMTGPU_EXC_* that aborted it, else 0 */
	uint32_t reserved;
	uint64_t cycles; /* device cycles the launch took */
	uint64_t thread_instructions;
};

/* Copy bytes between two VAs of the current context. */
#define SIMTGPU_PKT_COPY 0x11
struct simtgpu_pkt_copy {
	uint64_t src_va;
	uint64_t dst_va;
	uint64_t bytes;
};

/* Fill bytes with a repeated 32-bit pattern (dst and bytes 4-aligned). */
#define SIMTGPU_PKT_FILL 0x12
struct simtgpu_pkt_fill {
	uint64_t dst_va;
	uint64_t bytes;
	uint32_t pattern;
	uint32_t reserved;
};

/* Write a 64-bit value once all earlier packets have completed. */
#define SIMTGPU_PKT_FENCE 0x20
#define SIMTGPU_PKTF_IRQ (1u << 0) /* then raise SIMTGPU_IRQ_FENCE */
#define SIMTGPU_PKTF_PHYSICAL (1u << 1) /* addr is a VRAM offset: privileged */
struct simtgpu_pkt_fence {
	uint64_t addr; /* 8-byte aligned */
	uint64_t value;
};

/* Write the global timer (ns) once earlier packets have completed. Flags as
 * for FENCE (PHYSICAL only). */
#define SIMTGPU_PKT_TIMESTAMP 0x21
struct simtgpu_pkt_timestamp {
	uint64_t addr; /* 8-byte aligned */
};

/*
 * L2 access management (1.5; docs/hardware.md, docs/timing.md). A device
 * whose L2_PERSISTING_MAX is non-zero keeps up to L2_SET_ASIDE bytes of L2
 * for persisting lines: a persisting line is replaced only by another
 * persisting line while the persisting lines fit in the set-aside. Flags
 * say what the packet does (any combination, at least one):
 *   WINDOW: the launches that follow in the same indirect buffer (or ring)
 *     use the access policy window base_va..base_va + bytes (bytes = 0: no
 *     window, the reset state at the start of every indirect buffer). Of
 *     the window's lines, a fraction hit_ratio / SIMTGPU_L2_HIT_RATIO_ONE
 *     chosen by a hash of the line address gets hit_prop, the others
 *     miss_prop (CUDA's cudaAccessPolicyWindow);
 *   SET_ASIDE: the set-aside becomes set_aside_bytes (device-wide);
 *   RESET: every persisting line becomes normal (cudaCtxResetPersistingL2Cache).
 * Bad values are SIMTGPU_EXC_BAD_L2_POLICY, DETAIL one of the reasons below.
 */
#define SIMTGPU_PKT_L2_POLICY 0x13
#define SIMTGPU_PKTF_L2_WINDOW (1u << 0)
#define SIMTGPU_PKTF_L2_SET_ASIDE (1u << 1)
#define SIMTGPU_PKTF_L2_RESET (1u << 2)
#define SIMTGPU_L2_PROP_NORMAL 0
#define SIMTGPU_L2_PROP_STREAMING 1 /* inserted as the first to replace */
#define SIMTGPU_L2_PROP_PERSISTING 2
#define SIMTGPU_L2_HIT_RATIO_ONE 0x10000u /* hit_ratio of 1.0 */
struct simtgpu_pkt_l2_policy {
	uint64_t base_va; /* WINDOW: first byte of the window */
	uint64_t bytes; /* WINDOW: 0..L2_WINDOW_MAX, 0 = no window */
	uint32_t hit_ratio; /* WINDOW: 0..SIMTGPU_L2_HIT_RATIO_ONE */
	uint32_t hit_prop; /* WINDOW: SIMTGPU_L2_PROP_* */
	uint32_t miss_prop; /* WINDOW: SIMTGPU_L2_PROP_* */
	uint32_t reserved; /* must be 0 */
	uint64_t set_aside_bytes; /* SET_ASIDE: 0..L2_PERSISTING_MAX */
};
#define SIMTGPU_L2_POLICY_ERR_UNSUPPORTED 1 /* L2_PERSISTING_MAX is 0 */
#define SIMTGPU_L2_POLICY_ERR_WINDOW 2 /* bytes above L2_WINDOW_MAX, or wraps */
#define SIMTGPU_L2_POLICY_ERR_HIT_RATIO 3 /* above SIMTGPU_L2_HIT_RATIO_ONE */
#define SIMTGPU_L2_POLICY_ERR_PROPERTY 4 /* not a SIMTGPU_L2_PROP_* */
#define SIMTGPU_L2_POLICY_ERR_SET_ASIDE 5 /* above L2_PERSISTING_MAX */
#define SIMTGPU_L2_POLICY_ERR_FLAGS 6 /* no flag, or reserved not 0 */

/* --------------------------------------------------- page tables (MMU) --- */
/*
 * 48-bit GPU virtual addresses, 4 KiB pages, four levels (Sv48-like):
 *   level 3 index: VA[47:39], level 2: VA[38:30], level 1: VA[29:21],
 *   level 0: VA[20:12], page offset: VA[11:0].
 * Each table is 4 KiB of 512 little-endian 64-bit PTEs in VRAM. Tables at
 * levels 3..1 hold pointer PTEs (V set, R/W/X clear); level 0 holds leaves.
 */
#define SIMTGPU_VA_BITS 48
#define SIMTGPU_PAGE_SHIFT 12
#define SIMTGPU_PAGE_SIZE (1u << SIMTGPU_PAGE_SHIFT)
#define SIMTGPU_PT_LEVELS 4
#define SIMTGPU_PT_ENTRIES 512
#define SIMTGPU_PT_INDEX(va, level) \
	(((va) >> (SIMTGPU_PAGE_SHIFT + 9 * (level))) & 0x1ff)

#define SIMTGPU_PTE_V (1ull << 0) /* valid */
#define SIMTGPU_PTE_R (1ull << 1) /* readable */
#define SIMTGPU_PTE_W (1ull << 2) /* writable (and atomics) */
#define SIMTGPU_PTE_X (1ull << 3) /* executable */
#define SIMTGPU_PTE_HOST (1ull << 4) /* address is a host bus address (DMA) */
/* In a leaf PTE without V (1.4): the page exists but is not here (in host
 * memory, say); an access is a replayable fault, not the end of the job.
 * With V (1.6): a write or atomic the PTE does not permit (no W) is a
 * replayable fault too (access WRITE or ATOMIC), as for a read-only
 * duplicate that the driver makes writable on demand; reads hit. */
#define SIMTGPU_PTE_REPLAY (1ull << 5)
#define SIMTGPU_PTE_RESERVED_MASK (0xffc00000000003c0ull) /* must be 0 */
#define SIMTGPU_PTE_ADDR_SHIFT 10 /* bits 53:10 hold address >> 12 */
#define SIMTGPU_PTE_ADDR_MASK (0x00000fffffffffffull << SIMTGPU_PTE_ADDR_SHIFT)
#define SIMTGPU_PTE_ADDR(pte) \
	((((pte) & SIMTGPU_PTE_ADDR_MASK) >> SIMTGPU_PTE_ADDR_SHIFT) \
	 << SIMTGPU_PAGE_SHIFT)
#define SIMTGPU_PTE_MAKE(addr, flags) \
	((((uint64_t)(addr) >> SIMTGPU_PAGE_SHIFT) << SIMTGPU_PTE_ADDR_SHIFT) | \
	 (flags))

/* --------------------------------------------- address-space windows --- */
/*
 * Two windows of every context's VA space do not go through the page
 * tables: shared memory (per CTA) and local memory (per thread). Addresses
 * in them are private to the CTA or thread; accesses beyond the launch's
 * shared_bytes or stack_bytes are SIMTGPU_FAULT_OUT_OF_WINDOW. The driver
 * must not map pages there. Both lie in the upper half of the 48-bit space,
 * above every address of a 47-bit (x86-64) host process, so that host memory
 * can be mapped at its own address (unified addressing).
 */
#define SIMTGPU_SHARED_BASE 0x0000ff0000000000ull
#define SIMTGPU_SHARED_WINDOW (1ull << 32)
#define SIMTGPU_LOCAL_BASE 0x0000fe0000000000ull
#define SIMTGPU_LOCAL_WINDOW (1ull << 32)
/* Initial sp of every thread: SIMTGPU_LOCAL_BASE + stack_bytes. */

/* ----------------------------------------------- the SIMT extension --- */
/* Read-only CSRs in the user custom range 0xCC0-0xCFF. */
#define SIMTGPU_CSR_TID_X 0xcc0
#define SIMTGPU_CSR_TID_Y 0xcc1
#define SIMTGPU_CSR_TID_Z 0xcc2
#define SIMTGPU_CSR_NTID_X 0xcc3 /* blockDim */
#define SIMTGPU_CSR_NTID_Y 0xcc4
#define SIMTGPU_CSR_NTID_Z 0xcc5
#define SIMTGPU_CSR_CTAID_X 0xcc6 /* blockIdx */
#define SIMTGPU_CSR_CTAID_Y 0xcc7
#define SIMTGPU_CSR_CTAID_Z 0xcc8
#define SIMTGPU_CSR_NCTAID_X 0xcc9 /* gridDim */
#define SIMTGPU_CSR_NCTAID_Y 0xcca
#define SIMTGPU_CSR_NCTAID_Z 0xccb
#define SIMTGPU_CSR_LANEID 0xccc
#define SIMTGPU_CSR_WARPID 0xccd /* warp index within the CTA */
#define SIMTGPU_CSR_SMID 0xcce
#define SIMTGPU_CSR_WARPSIZE 0xccf
#define SIMTGPU_CSR_NSMID 0xcd0 /* number of SMs */
#define SIMTGPU_CSR_CLOCK 0xcd1 /* SM cycle counter (also cycle 0xc00) */
#define SIMTGPU_CSR_GLOBALTIMER 0xcd2 /* ns (also time 0xc01) */
#define SIMTGPU_CSR_LANEMASK_LT 0xcd3 /* bits of lanes below this one */
#define SIMTGPU_CSR_ENVPTR 0xcd4 /* launch env_va (simt_2) */
#define SIMTGPU_CSR_DYNSHARED 0xcd5 /* shared_bytes of the launch */
#define SIMTGPU_CSR_GRIDID 0xcd6 /* launch sequence number */

/*
 * custom-0 instructions, opcode 0x0b. R-type: funct7 rs2 rs1 funct3 rd op;
 * R4-type (shuffle): rs3 funct2 rs2 rs1 funct3 rd op.
 */
#define SIMTGPU_OPCODE_CUSTOM0 0x0b
#define SIMTGPU_F3_BARRIER 0 /* funct7 selects SIMTGPU_BAR_* */
#define SIMTGPU_BAR_SYNC 0 /* bar.sync rs1=id, rs2=count (x0, x0: barrier 0, all threads) */
#define SIMTGPU_BAR_POPC 1 /* bar.popc rd, rs1: sync, count rs1 != 0 */
#define SIMTGPU_BAR_AND 2 /* bar.and  rd, rs1: sync, all rs1 != 0 */
#define SIMTGPU_BAR_OR 3 /* bar.or   rd, rs1: sync, any rs1 != 0 */
#define SIMTGPU_BAR_ARRIVE 4 /* bar.arrive rs1=id, rs2=count: count, do not wait */
#define SIMTGPU_BARRIERS 16 /* named barriers per CTA (ids 0..15) */
#define SIMTGPU_F3_VOTE 1 /* funct7 selects; rs2 = member mask */
#define SIMTGPU_VOTE_BALLOT 0 /* rd = mask of lanes with rs1 != 0 */
#define SIMTGPU_VOTE_ANY 1
#define SIMTGPU_VOTE_ALL 2
#define SIMTGPU_VOTE_UNI 3 /* all active lanes agree */
#define SIMTGPU_F3_SHUFFLE 2 /* R4: funct2 = SIMTGPU_SHFL_*; rd=value from
			      * lane chosen by rs2 and rs3 (clamp/segment
			      * mask as PTX's c operand) of rs1 */
#define SIMTGPU_SHFL_IDX 0
#define SIMTGPU_SHFL_UP 1
#define SIMTGPU_SHFL_DOWN 2
#define SIMTGPU_SHFL_BFLY 3
#define SIMTGPU_F3_WARP 3 /* funct7 selects */
#define SIMTGPU_WARP_ACTIVEMASK 0 /* rd = mask of lanes executing this */
#define SIMTGPU_WARP_SYNC 1 /* warp.sync rs1: wait for the lanes in rs1 */
#define SIMTGPU_WARP_NANOSLEEP 2 /* warp.nanosleep rs1: issue nothing for about
				  * rs1 ns, at most SIMTGPU_NANOSLEEP_MAX_NS (simt_2) */
#define SIMTGPU_NANOSLEEP_MAX_NS 1000000 /* 1 ms, as PTX's nanosleep */
#define SIMTGPU_F3_MATCH 4 /* funct7 selects; rs1 = value, rs2 = member mask */
#define SIMTGPU_MATCH_ANY 0 /* rd = member lanes whose rs1 equals this lane's */
#define SIMTGPU_MATCH_ALL 1 /* rd = the member lanes if all rs1 are equal, else 0 */
#define SIMTGPU_F3_REDUX 5 /* funct7 selects; rd = op over rs1 of the member lanes rs2 */
#define SIMTGPU_REDUX_ADD 0
#define SIMTGPU_REDUX_AND 1
#define SIMTGPU_REDUX_OR 2
#define SIMTGPU_REDUX_XOR 3
#define SIMTGPU_REDUX_MIN 4 /* signed, 64-bit */
#define SIMTGPU_REDUX_MAX 5
#define SIMTGPU_REDUX_MINU 6 /* unsigned, 64-bit */
#define SIMTGPU_REDUX_MAXU 7
#define SIMTGPU_F3_ATOMIC 6 /* funct7 selects SIMTGPU_ATOM_*: rd = the old value at
			     * address rs1, which becomes op(old, rs2) (simt_2) */
#define SIMTGPU_ATOM_FADD_S 0 /* binary32 add, rs2's low 32 bits; rd sign-extended */
#define SIMTGPU_ATOM_FADD_D 1 /* binary64 add */
#define SIMTGPU_ATOM_INC_W 2 /* old >= rs2 (unsigned 32-bit) ? 0 : old + 1 */
#define SIMTGPU_ATOM_DEC_W 3 /* old == 0 || old > rs2 (unsigned 32-bit) ? rs2 : old - 1 */

/* Environment calls (a7). */
#define SIMTGPU_ECALL_EXIT 93 /* end this thread, status in a0 */

/* ---------------------------------------------------- device modules --- */
/*
 * A device image is an ELF64 RISC-V (EM_RISCV, ET_DYN or ET_EXEC) whose
 * kernel table lives in section SIMTGPU_KERNEL_TABLE_SECTION: a
 * simtgpu_ktab_header followed by `count` simtgpu_ktab_entry records of
 * `entry_size` bytes, then their param records; names are offsets into the
 * string table that follows. All fields little-endian.
 */
#define SIMTGPU_KERNEL_TABLE_SECTION ".simt.kernels"
#define SIMTGPU_KTAB_MAGIC 0x42544b53u /* "SKTB" */
#define SIMTGPU_KTAB_VERSION 1
struct simtgpu_ktab_header {
	uint32_t magic;
	uint32_t version;
	uint32_t arch; /* SIMTGPU_ARCH_* the image needs */
	uint32_t count; /* kernels */
	uint32_t entry_size; /* sizeof(struct simtgpu_ktab_entry) */
	uint32_t param_size; /* sizeof(struct simtgpu_ktab_param) */
	uint32_t strtab_offset; /* from the start of the section */
	uint32_t strtab_size;
};
struct simtgpu_ktab_entry {
	uint32_t name; /* strtab offset of the (mangled) kernel name */
	uint32_t entry_symbol; /* strtab offset of the entry wrapper symbol */
	uint32_t param_count;
	uint32_t param_first; /* index of its first simtgpu_ktab_param */
	uint32_t param_bytes; /* size of the packed parameter buffer */
	uint32_t static_shared_bytes;
	uint32_t stack_bytes; /* per thread, including the entry wrapper */
	uint32_t max_threads_per_cta; /* 0 = device maximum */
};
struct simtgpu_ktab_param {
	uint32_t offset; /* in the parameter buffer */
	uint32_t size;
	uint32_t align;
	uint32_t reserved;
};

#endif /* SIMTGPU_HW_H */
