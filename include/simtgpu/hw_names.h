/* SPDX-License-Identifier: MIT */
/*
 * Names of the exception record's codes (include/simtgpu/hw.h) in words,
 * for the messages every layer prints: simt-run, the kernel driver's log
 * line, the userspace driver's errors. One table, so a fault reads the same
 * wherever it is reported. Usable from C, C++ and kernel C.
 */
#ifndef SIMTGPU_HW_NAMES_H
#define SIMTGPU_HW_NAMES_H

#include "simtgpu/hw.h"

static inline const char *simtgpu_exception_name(uint32_t kind)
{
	switch (kind) {
	case SIMTGPU_EXC_NONE:
		return "no exception";
	case SIMTGPU_EXC_PAGE_FAULT:
		return "page fault";
	case SIMTGPU_EXC_MISALIGNED:
		return "misaligned atomic";
	case SIMTGPU_EXC_ILLEGAL_INSTRUCTION:
		return "illegal instruction";
	case SIMTGPU_EXC_TRAP:
		return "trap (device-side assert)";
	case SIMTGPU_EXC_DEADLOCK:
		return "deadlock (every live thread of a CTA is blocked)";
	case SIMTGPU_EXC_BAD_PACKET:
		return "bad packet";
	case SIMTGPU_EXC_PRIVILEGED_PACKET:
		return "privileged packet in an indirect buffer";
	case SIMTGPU_EXC_BAD_LAUNCH:
		return "bad launch";
	case SIMTGPU_EXC_BAD_ECALL:
		return "unknown ecall";
	case SIMTGPU_EXC_ARCH_MISMATCH:
		return "architecture mismatch";
	case SIMTGPU_EXC_PREEMPT_TIMEOUT:
		return "preemption timed out (CTAs still resident)";
	case SIMTGPU_EXC_BAD_BARRIER:
		return "bad barrier operand";
	case SIMTGPU_EXC_BAD_L2_POLICY:
		return "bad L2 access policy";
	}
	return "unknown exception";
}

/* What is wrong with a bar.sync/bar.arrive (SIMTGPU_EXC_BAD_BARRIER's
 * DETAIL); the value the detail carries follows it in messages. */
static inline const char *simtgpu_barrier_error_name(uint32_t detail)
{
	switch (SIMTGPU_BARRIER_DETAIL_REASON(detail)) {
	case SIMTGPU_BARRIER_ERR_ID:
		return "barrier id out of range (0..15)";
	case SIMTGPU_BARRIER_ERR_COUNT_ALIGN:
		return "thread count not a multiple of the warp size";
	case SIMTGPU_BARRIER_ERR_COUNT_RANGE:
		return "thread count larger than the block";
	case SIMTGPU_BARRIER_ERR_COUNT_MISMATCH:
		return "thread count differs from the one the barrier's other threads gave";
	case SIMTGPU_BARRIER_ERR_ARRIVE_ALL:
		return "bar.arrive without a thread count";
	}
	return "unknown barrier error";
}

static inline const char *simtgpu_fault_name(uint32_t fault)
{
	switch (fault) {
	case SIMTGPU_FAULT_NOT_PRESENT:
		return "not mapped";
	case SIMTGPU_FAULT_PROTECTION:
		return "not permitted by the page";
	case SIMTGPU_FAULT_BAD_PTE:
		return "malformed page table entry";
	case SIMTGPU_FAULT_OUT_OF_WINDOW:
		return "beyond the shared/local window";
	case SIMTGPU_FAULT_NO_CONTEXT:
		return "no address space";
	case SIMTGPU_FAULT_DMA:
		return "host memory access failed";
	}
	return "unknown fault";
}

static inline const char *simtgpu_access_name(uint32_t access)
{
	switch (access) {
	case SIMTGPU_ACCESS_READ:
		return "read";
	case SIMTGPU_ACCESS_WRITE:
		return "write";
	case SIMTGPU_ACCESS_EXEC:
		return "instruction fetch";
	case SIMTGPU_ACCESS_ATOMIC:
		return "atomic";
	}
	return "unknown access";
}

static inline const char *simtgpu_launch_error_name(uint32_t detail)
{
	switch (detail) {
	case SIMTGPU_LAUNCH_ERR_GEOMETRY:
		return "grid or block shape not supported";
	case SIMTGPU_LAUNCH_ERR_SHARED:
		return "shared memory exceeds one SM";
	case SIMTGPU_LAUNCH_ERR_STACK:
		return "stack size too large";
	case SIMTGPU_LAUNCH_ERR_FLAGS:
		return "reserved bits set";
	case SIMTGPU_LAUNCH_ERR_SM_MASK:
		return "the ring's SM mask enables no SM";
	}
	return "unknown reason";
}

#endif /* SIMTGPU_HW_NAMES_H */
