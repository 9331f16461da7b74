/*
 * Kernels for the libsimtgpu tests, in bare-metal C with a hand-written
 * kernel table (what simtcc generates for CUDA code). Built -fPIE and linked
 * -pie, so the driver places the image and applies its relocations.
 */
#include "simtgpu/device/simt.h"
#include "simtgpu/device_abi.h"
#include "simtgpu/hw.h"

#include <stddef.h>
#include <stdint.h>

#define NORETURN __attribute__((noreturn, used))

static inline uint32_t global_x(void)
{
	return (uint32_t)(simt_ctaid_x() * simt_ntid_x() + simt_tid_x());
}

/* c[i] = a[i] + b[i] for i < n. */
struct vec_add_params {
	const float *a;
	const float *b;
	float *c;
	uint32_t n;
};
NORETURN void vec_add_entry(const struct vec_add_params *p)
{
	uint32_t i = global_x();
	if (i < p->n)
		p->c[i] = p->a[i] + p->b[i];
	simt_exit(0);
}

/* out[y * width + x] = x * 3 + y * 1000 + 1 over a 2D grid of 2D blocks. */
struct index_params {
	uint32_t *out;
	uint32_t width;
};
NORETURN void index2d_entry(const struct index_params *p)
{
	uint32_t x = (uint32_t)(simt_ctaid_x() * simt_ntid_x() + simt_tid_x());
	uint32_t y = (uint32_t)(simt_ctaid_y() * simt_ntid_y() + simt_tid_y());
	p->out[y * p->width + x] = x * 3 + y * 1000 + 1;
	simt_exit(0);
}

/* A global the host reads and writes by symbol, and a pointer to it that
 * needs an R_RISCV_RELATIVE relocation. */
int32_t device_table[8] = { 10, 20, 30, 40, 50, 60, 70, 80 };
int32_t *device_table_ptr = &device_table[2];

/* out[i] = device_table_ptr[i - 2] * 2 for i < 8: reads through the
 * relocated pointer. */
struct table_params {
	int32_t *out;
};
NORETURN void read_table_entry(const struct table_params *p)
{
	uint32_t i = (uint32_t)simt_tid_x();
	if (i < 8)
		p->out[i] = device_table_ptr[(int)i - 2] * 2;
	simt_exit(0);
}

/* Every thread stores to `address`: a fault when it is not mapped. */
struct store_params {
	uint64_t address;
};
NORETURN void store_entry(const struct store_params *p)
{
	*(volatile uint32_t *)(uintptr_t)p->address = 1;
	simt_exit(0);
}

/* Block sums through dynamic shared memory: out[block] = sum of in[] over
 * the block's threads. */
struct block_sum_params {
	const uint32_t *in;
	uint32_t *out;
};
NORETURN void block_sum_entry(const struct block_sum_params *p)
{
	volatile uint32_t *shared = SIMT_SHARED(volatile uint32_t);
	uint32_t t = (uint32_t)simt_tid_x();
	uint32_t n = (uint32_t)simt_ntid_x();
	shared[t] = p->in[global_x()];
	simt_bar_sync();
	if (t == 0) {
		uint32_t sum = 0;
		for (uint32_t i = 0; i < n; ++i)
			sum += shared[i];
		p->out[simt_ctaid_x()] = sum;
	}
	simt_exit(0);
}

/* Device printf as simtcc's runtime does it: reserve a record in the
 * launch environment's buffer, then fill in format and arguments. */
static const char printf_format[] = "thread %d of block %u: %.2f %s|%5lld|%c\n";
static const char printf_word[] = "simt";
struct printf_args { /* clang's vprintf packing: natural alignment */
	int32_t tid;
	uint32_t block;
	double value;
	const char *word;
	int64_t wide;
	int32_t ch;
	int32_t pad;
};
struct printf_params {
	uint32_t unused;
};
NORETURN void printf_entry(const struct printf_params *p)
{
	(void)p;
	struct simtgpu_launch_env *env = (struct simtgpu_launch_env *)(uintptr_t)simt_envptr();
	uint64_t need = sizeof(struct simtgpu_printf_record) + sizeof(struct printf_args);
	uint64_t at = __atomic_fetch_add(&env->printf_used, need, __ATOMIC_RELAXED);
	if (at + need > env->printf_size) {
		__atomic_fetch_add(&env->printf_dropped, 1, __ATOMIC_RELAXED);
		simt_exit(0);
	}
	struct simtgpu_printf_record *rec =
		(struct simtgpu_printf_record *)(uintptr_t)(env->printf_va + at);
	struct printf_args *args = (struct printf_args *)(rec + 1);
	args->tid = (int32_t)simt_tid_x();
	args->block = (uint32_t)simt_ctaid_x();
	args->value = (double)simt_tid_x() * 0.5;
	args->word = printf_word;
	args->wide = -(int64_t)simt_tid_x();
	args->ch = 'A' + (int32_t)simt_tid_x();
	args->pad = 0;
	rec->args_bytes = sizeof(struct printf_args);
	rec->format_va = (uint64_t)(uintptr_t)printf_format;
	rec->ctaid[0] = (uint32_t)simt_ctaid_x();
	rec->ctaid[1] = rec->ctaid[2] = 0;
	rec->tid[0] = (uint32_t)simt_tid_x();
	rec->tid[1] = rec->tid[2] = 0;
	/* total_bytes last: the host reads a record once it is non-zero. */
	__atomic_store_n(&rec->total_bytes, (uint32_t)need, __ATOMIC_RELEASE);
	simt_exit(0);
}

/* assert(value != 7) in thread 3 of block 1, as simtcc lowers it. */
static const char assert_file[] = "umd_kernels.c";
static const char assert_function[] = "assert_entry";
static const char assert_message[] = "value != 7";
struct assert_params {
	int32_t value;
};
NORETURN void assert_entry(const struct assert_params *p)
{
	if (simt_ctaid_x() == 1 && simt_tid_x() == 3 && p->value == 7) {
		struct simtgpu_launch_env *env =
			(struct simtgpu_launch_env *)(uintptr_t)simt_envptr();
		uint64_t expected = 0;
		if (__atomic_compare_exchange_n(&env->assert_taken, &expected, 1, 0,
						__ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
			env->assert_file_va = (uint64_t)(uintptr_t)assert_file;
			env->assert_function_va = (uint64_t)(uintptr_t)assert_function;
			env->assert_message_va = (uint64_t)(uintptr_t)assert_message;
			env->assert_line = 123;
			env->assert_ctaid[0] = 1;
			env->assert_ctaid[1] = env->assert_ctaid[2] = 0;
			env->assert_tid[0] = 3;
			env->assert_tid[1] = env->assert_tid[2] = 0;
		}
		simt_trap();
	}
	simt_exit(0);
}

/* Never ends: for the job timeout. */
struct spin_params {
	uint32_t unused;
};
NORETURN void spin_entry(const struct spin_params *p)
{
	(void)p;
	for (;;)
		__asm__ volatile("" ::: "memory");
}

/* Computes for as long as it is asked: longer than the job timeout, yet
 * not a hang, since its registers keep changing. */
struct compute_params {
	uint64_t *out;
	uint64_t iterations;
};
NORETURN void compute_entry(const struct compute_params *p)
{
	uint64_t v = simt_tid_x();

	for (uint64_t i = 0; i < p->iterations; ++i)
		v = v * 6364136223846793005ull + 1442695040888963407ull;
	p->out[simt_tid_x()] = v;
	simt_exit(0);
}

/* Waits until the host sets *flag (pinned memory it writes): work that
 * ends when a test says so. */
struct wait_flag_params {
	const volatile uint32_t *flag;
};
NORETURN void wait_flag_entry(const struct wait_flag_params *p)
{
	while (!*p->flag)
		simt_nanosleep(1000);
	simt_exit(0);
}

/* The linker wants an entry symbol; kernels have their own. */
NORETURN void _start(void)
{
	simt_exit(0);
}

/* ------------------------------------------------------ kernel table --- */

#define NAME(s) char s[sizeof(#s)]
struct strings {
	NAME(vec_add);
	NAME(vec_add_entry);
	NAME(index2d);
	NAME(index2d_entry);
	NAME(read_table);
	NAME(read_table_entry);
	NAME(store);
	NAME(store_entry);
	NAME(block_sum);
	NAME(block_sum_entry);
	NAME(printf_kernel);
	NAME(printf_entry);
	NAME(assert_kernel);
	NAME(assert_entry);
	NAME(spin);
	NAME(spin_entry);
	NAME(compute);
	NAME(compute_entry);
	NAME(wait_flag);
	NAME(wait_flag_entry);
};
#define KERNELS 10
#define PARAMS 16
struct kernel_table {
	struct simtgpu_ktab_header header;
	struct simtgpu_ktab_entry entries[KERNELS];
	struct simtgpu_ktab_param params[PARAMS];
	struct strings strtab;
};
#define S(x) offsetof(struct strings, x)
#define P(off, size) { (off), (size), (size), 0 }

__attribute__((section(SIMTGPU_KERNEL_TABLE_SECTION), used))
const struct kernel_table simt_kernel_table = {
	.header = {
		.magic = SIMTGPU_KTAB_MAGIC,
		.version = SIMTGPU_KTAB_VERSION,
		.arch = SIMTGPU_ARCH_SIMT2,
		.count = KERNELS,
		.entry_size = sizeof(struct simtgpu_ktab_entry),
		.param_size = sizeof(struct simtgpu_ktab_param),
		.strtab_offset = offsetof(struct kernel_table, strtab),
		.strtab_size = sizeof(struct strings),
	},
	.entries = {
		/* name, entry, count, first, bytes, shared, stack, max threads */
		{ S(vec_add), S(vec_add_entry), 4, 0, 32, 0, 256, 0 },
		{ S(index2d), S(index2d_entry), 2, 4, 16, 0, 256, 0 },
		{ S(read_table), S(read_table_entry), 1, 6, 8, 0, 256, 0 },
		{ S(store), S(store_entry), 1, 7, 8, 0, 256, 0 },
		{ S(block_sum), S(block_sum_entry), 2, 8, 16, 0, 256, 256 },
		{ S(printf_kernel), S(printf_entry), 1, 10, 4, 0, 256, 0 },
		{ S(assert_kernel), S(assert_entry), 1, 11, 4, 0, 256, 0 },
		{ S(spin), S(spin_entry), 1, 12, 4, 0, 256, 0 },
		{ S(compute), S(compute_entry), 2, 13, 16, 0, 256, 0 },
		{ S(wait_flag), S(wait_flag_entry), 1, 15, 8, 0, 256, 0 },
	},
	.params = {
		P(0, 8), P(8, 8), P(16, 8), P(24, 4), /* vec_add */
		P(0, 8), P(8, 4),                     /* index2d */
		P(0, 8),                              /* read_table */
		P(0, 8),                              /* store */
		P(0, 8), P(8, 8),                     /* block_sum */
		P(0, 4),                              /* printf_kernel */
		P(0, 4),                              /* assert_kernel */
		P(0, 4),                              /* spin */
		P(0, 8), P(8, 8),                     /* compute */
		P(0, 8),                              /* wait_flag */
	},
	.strtab = {
		"vec_add", "vec_add_entry", "index2d", "index2d_entry",
		"read_table", "read_table_entry", "store", "store_entry",
		"block_sum", "block_sum_entry", "printf_kernel", "printf_entry",
		"assert_kernel", "assert_entry", "spin", "spin_entry",
		"compute", "compute_entry", "wait_flag", "wait_flag_entry",
	},
};
