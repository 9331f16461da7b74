/* Differential test: every AMO (.w and .d) and LR/SC on one thread. */
#include "device_diff.h"

static volatile uint64_t cell64;
static volatile uint32_t cell32[2];
static volatile uint64_t operands[] = {
	0, 1, 0xffffffffffffffffull, 0x8000000000000000ull, 0x7fffffff, 0x80000000,
	0x123456789abcdef0ull, 42,
};
#define N (sizeof operands / sizeof operands[0])

#define AMO(insn, addr, v)                                                   \
	({                                                                   \
		uint64_t r_;                                                 \
		__asm__ volatile(insn " %0, %2, (%1)" : "=r"(r_) : "r"(addr), "r"(v) : "memory"); \
		r_;                                                          \
	})
#define BOTH(name)                                                           \
	mix(AMO("amo" name ".d", &cell64, v));                               \
	mix(cell64);                                                         \
	mix(AMO("amo" name ".w", &cell32[1], v));                            \
	mix(cell32[1]);

__attribute__((noreturn)) void _start(void)
{
	for (unsigned i = 0; i < N; ++i) {
		for (unsigned j = 0; j < N; ++j) {
			const uint64_t v = operands[j];
			cell64 = operands[i];
			cell32[1] = (uint32_t)operands[i];
			BOTH("swap") BOTH("add") BOTH("xor") BOTH("and") BOTH("or")
			BOTH("min") BOTH("max") BOTH("minu") BOTH("maxu")
		}
	}
	/* LR/SC: a pair succeeds; an SC without a reservation fails. */
	uint64_t old, fail;
	cell64 = 5;
	__asm__ volatile("lr.d %0, (%2)\n sc.d %1, %3, (%2)" : "=&r"(old), "=&r"(fail)
			 : "r"(&cell64), "r"(9ull) : "memory");
	mix(old), mix(fail), mix(cell64);
	__asm__ volatile("sc.d %0, %2, (%1)" : "=&r"(fail) : "r"(&cell64), "r"(11ull) : "memory");
	mix(fail), mix(cell64);
	__asm__ volatile("lr.w %0, (%2)\n sc.w %1, %3, (%2)" : "=&r"(old), "=&r"(fail)
			 : "r"(&cell32[0]), "r"(0x80000001ull) : "memory");
	mix(old), mix(fail), mix(cell32[0]);
	diff_exit();
}
