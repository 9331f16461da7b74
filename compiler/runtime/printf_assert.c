// SPDX-License-Identifier: MIT
// Device printf and assert: write the records of include/simtgpu/device_abi.h
// into the launch environment the envptr CSR points at (simt_2 and newer;
// simtcc refuses printf and assert for older architectures).
#include <stdint.h>

#include "simtgpu/device/simt.h"
#include "simtgpu/device_abi.h"

static struct simtgpu_launch_env *launch_env(void)
{
	struct simtgpu_launch_env *env = (struct simtgpu_launch_env *)(uintptr_t)simt_envptr();
	if (!env || env->magic != SIMTGPU_ENV_MAGIC || env->version != SIMTGPU_ENV_VERSION)
		return 0;
	return env;
}

static void who(uint32_t ctaid[3], uint32_t tid[3])
{
	ctaid[0] = (uint32_t)simt_ctaid_x();
	ctaid[1] = (uint32_t)simt_ctaid_y();
	ctaid[2] = (uint32_t)simt_ctaid_z();
	tid[0] = (uint32_t)simt_tid_x();
	tid[1] = (uint32_t)simt_tid_y();
	tid[2] = (uint32_t)simt_tid_z();
}

// simtcc turns vprintf(format, args) into this call with the size of the
// argument buffer clang built. Returns the bytes recorded, or -1 when the
// record did not fit (it is counted in printf_dropped).
int __simt_vprintf(const char *format, const void *args, uint64_t args_bytes)
{
	struct simtgpu_launch_env *env = launch_env();
	if (!env)
		return -1;
	uint64_t header = sizeof(struct simtgpu_printf_record);
	uint64_t total = (header + args_bytes + 7) & ~(uint64_t)7;
	uint64_t at = __atomic_fetch_add(&env->printf_used, total, __ATOMIC_RELAXED);
	if (at > env->printf_size || env->printf_size - at < total) {
		__atomic_fetch_add(&env->printf_dropped, 1, __ATOMIC_RELAXED);
		return -1;
	}
	uint8_t *base = (uint8_t *)(uintptr_t)env->printf_va + at;
	struct simtgpu_printf_record *record = (struct simtgpu_printf_record *)base;
	record->total_bytes = (uint32_t)total;
	record->args_bytes = (uint32_t)args_bytes;
	record->format_va = (uint64_t)(uintptr_t)format;
	who(record->ctaid, record->tid);
	const uint8_t *from = (const uint8_t *)args;
	uint8_t *to = base + header;
	for (uint64_t i = 0; i < args_bytes; ++i)
		to[i] = from[i];
	for (uint64_t i = header + args_bytes; i < total; ++i)
		base[i] = 0;
	return (int)args_bytes;
}

// assert(): the first failing thread of the launch fills in the assert
// record; every failing thread then traps (SIMTGPU_EXC_TRAP).
void __simt_assertfail(const char *message, const char *file, unsigned line,
		       const char *function, uint64_t char_size)
{
	(void)char_size;
	struct simtgpu_launch_env *env = launch_env();
	uint64_t expected = 0;
	if (env && __atomic_compare_exchange_n(&env->assert_taken, &expected, 1, 0,
					       __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
		env->assert_file_va = (uint64_t)(uintptr_t)file;
		env->assert_message_va = (uint64_t)(uintptr_t)message;
		env->assert_function_va = (uint64_t)(uintptr_t)function;
		env->assert_line = line;
		who(env->assert_ctaid, env->assert_tid);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
	}
	simt_trap();
}

// A pure virtual function called (an object used during its construction or
// destruction): the C++ ABI's hook, a trap as in CUDA.
void __cxa_pure_virtual(void);
void __cxa_pure_virtual(void)
{
	simt_trap();
}
