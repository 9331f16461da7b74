/* Differential test: RV64IM integer results on edge values. */
#include "device_diff.h"

static volatile uint64_t values[] = {
	0, 1, 2, 3, 7, 0xffffffffffffffffull, 0xfffffffffffffffeull, 0x8000000000000000ull,
	0x7fffffffffffffffull, 0x80000000ull, 0x7fffffffull, 0xffffffff80000000ull,
	0x123456789abcdef0ull, 0xdeadbeefull, 63, 64, 31, 32,
};
#define N (sizeof values / sizeof values[0])

__attribute__((noreturn)) void _start(void)
{
	for (unsigned i = 0; i < N; ++i) {
		for (unsigned j = 0; j < N; ++j) {
			const uint64_t a = values[i], b = values[j];
			mix(OP2("mul", a, b));
			mix(OP2("mulh", a, b));
			mix(OP2("mulhu", a, b));
			mix(OP2("mulhsu", a, b));
			mix(OP2("mulw", a, b));
			mix(OP2("div", a, b));
			mix(OP2("divu", a, b));
			mix(OP2("rem", a, b));
			mix(OP2("remu", a, b));
			mix(OP2("divw", a, b));
			mix(OP2("divuw", a, b));
			mix(OP2("remw", a, b));
			mix(OP2("remuw", a, b));
			mix(OP2("sll", a, b));
			mix(OP2("srl", a, b));
			mix(OP2("sra", a, b));
			mix(OP2("sllw", a, b));
			mix(OP2("srlw", a, b));
			mix(OP2("sraw", a, b));
			mix(OP2("slt", a, b));
			mix(OP2("sltu", a, b));
			mix(OP2("addw", a, b));
			mix(OP2("subw", a, b));
		}
	}
	diff_exit();
}
