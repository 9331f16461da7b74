/* SPDX-License-Identifier: MIT */
/*
 * The software ABI between device code built by simtcc (its device runtime)
 * and the userspace driver: the launch environment block that the envptr
 * CSR points at, and the records device printf and assert leave in it.
 * Hardware knows nothing of this; see docs/isa.md "Launch environment".
 */
#ifndef SIMTGPU_DEVICE_ABI_H
#define SIMTGPU_DEVICE_ABI_H

#include <stdint.h>

#define SIMTGPU_ENV_MAGIC 0x564e4553u /* "SENV" */
#define SIMTGPU_ENV_VERSION 1

/*
 * At env_va of every launch the UMD places one simtgpu_launch_env. Device
 * code reserves space in the printf buffer with an atomic add on
 * printf_used; a record that does not fit is dropped and counted in
 * printf_dropped (never written past printf_size).
 */
struct simtgpu_launch_env {
	uint32_t magic; /* SIMTGPU_ENV_MAGIC */
	uint32_t version; /* SIMTGPU_ENV_VERSION */
	uint64_t printf_va; /* buffer of simtgpu_printf_record */
	uint64_t printf_size; /* bytes */
	uint64_t printf_used; /* bytes reserved so far (atomic add) */
	uint64_t printf_dropped; /* records that did not fit */
	uint64_t assert_taken; /* 0 -> 1 by the first failing assert (CAS) */
	uint64_t assert_file_va; /* NUL-terminated strings in the image */
	uint64_t assert_message_va;
	uint64_t assert_function_va;
	uint32_t assert_line;
	uint32_t assert_ctaid[3];
	uint32_t assert_tid[3];
	/* grid_group::sync()'s arrival counter (atomic add; bit 31 flips at
	 * each completed barrier); 0 when the UMD creates the environment. */
	uint32_t grid_barrier;
};

/*
 * One printf call: header, then the argument buffer exactly as clang's CUDA
 * lowering builds it for vprintf(format, args) (each argument at its natural
 * alignment, floats promoted to double), padded to 8 bytes.
 */
struct simtgpu_printf_record {
	uint32_t total_bytes; /* header + args, multiple of 8 */
	uint32_t args_bytes;
	uint64_t format_va; /* the format string, in the module image */
	uint32_t ctaid[3]; /* who printed (for debugging) */
	uint32_t tid[3];
	/* uint8_t args[args_bytes] follows */
};

#endif /* SIMTGPU_DEVICE_ABI_H */
