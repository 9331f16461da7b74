/* Per-lane instruction tests (sim/tests/core_isa_test.cpp): every thread
 * takes its own operands from p->in, so the lanes of a warp execute each
 * instruction with different values (and, for floating point, different
 * dynamic rounding modes). */
#include "simtgpu/device/simt.h"

struct params {
	uint64_t *out;
	const uint64_t *in;
};

#define IOP(k, insn)                                                         \
	do {                                                                 \
		uint64_t r;                                                  \
		__asm__ volatile(insn " %0, %1, %2" : "=r"(r) : "r"(a), "r"(b)); \
		o[k] = r;                                                    \
	} while (0)

/* 28 results per thread: out[28 t + k]. */
__attribute__((noreturn)) void k_intops(const struct params *p)
{
	uint32_t t = (uint32_t)simt_tid_x();
	uint64_t a = p->in[2 * t], b = p->in[2 * t + 1];
	uint64_t *o = p->out + 28 * t;
	IOP(0, "add"); IOP(1, "sub"); IOP(2, "sll"); IOP(3, "srl"); IOP(4, "sra");
	IOP(5, "slt"); IOP(6, "sltu"); IOP(7, "xor"); IOP(8, "or"); IOP(9, "and");
	IOP(10, "addw"); IOP(11, "subw"); IOP(12, "sllw"); IOP(13, "srlw"); IOP(14, "sraw");
	IOP(15, "mul"); IOP(16, "mulh"); IOP(17, "mulhsu"); IOP(18, "mulhu");
	IOP(19, "div"); IOP(20, "divu"); IOP(21, "rem"); IOP(22, "remu");
	IOP(23, "mulw"); IOP(24, "divw"); IOP(25, "divuw"); IOP(26, "remw"); IOP(27, "remuw");
	simt_exit(0);
}

#define FOP(k, insn, ...)                                                    \
	do {                                                                 \
		double r;                                                    \
		uint64_t fl;                                                 \
		__asm__ volatile(insn "\n\tfsflags %1, zero"                 \
				 : "=&f"(r), "=r"(fl)                        \
				 : __VA_ARGS__);                             \
		union { double d; uint64_t u; } x = { .d = r };              \
		o[2 * (k)] = x.u;                                            \
		o[2 * (k) + 1] = fl;                                         \
	} while (0)

/* Thread t: doubles a, b, c and rounding mode rm from in[4t..4t+3]; six
 * operations in that dynamic mode, each with its fflags: out[12 t + ...]. */
__attribute__((noreturn)) void k_fpops(const struct params *p)
{
	uint32_t t = (uint32_t)simt_tid_x();
	const uint64_t *in = p->in + 4 * t;
	union { uint64_t u; double d; } ua = { .u = in[0] }, ub = { .u = in[1] }, uc = { .u = in[2] };
	double a = ua.d, b = ub.d, c = uc.d;
	uint64_t *o = p->out + 12 * t;
	__asm__ volatile("fsrm %0\n\tfsflags zero" ::"r"(in[3]));
	FOP(0, "fadd.d %0, %2, %3", "f"(a), "f"(b));
	FOP(1, "fsub.d %0, %2, %3", "f"(a), "f"(b));
	FOP(2, "fmul.d %0, %2, %3", "f"(a), "f"(b));
	FOP(3, "fdiv.d %0, %2, %3", "f"(a), "f"(b));
	FOP(4, "fsqrt.d %0, %2", "f"(a));
	FOP(5, "fmadd.d %0, %2, %3, %4", "f"(a), "f"(b), "f"(c));
	simt_exit(0);
}

/* The ELF entry: tests name their kernel symbol instead. */
__attribute__((noreturn)) void _start(void)
{
	simt_trap();
}

/* A dynamic rounding mode with frm = 5 (reserved): illegal instruction. */
__attribute__((noreturn)) void k_bad_frm(const struct params *p)
{
	double r, one = 1.0;
	__asm__ volatile("fsrm %1\n\tfadd.d %0, %2, %2" : "=f"(r) : "r"(5ull), "f"(one));
	p->out[0] = (uint64_t)r;
	simt_exit(0);
}
