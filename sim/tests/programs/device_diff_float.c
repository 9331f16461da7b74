/* Differential test: RV64FD arithmetic in every rounding mode, NaN
 * boxing and canonical NaNs, saturating conversions and fflags. */
#include "device_diff.h"

static volatile uint64_t doubles[] = {
	0x0000000000000000ull, 0x8000000000000000ull, 0x3ff0000000000000ull, /* 0 -0 1 */
	0xbff8000000000000ull, 0x7ff0000000000000ull, 0xfff0000000000000ull, /* -1.5 inf -inf */
	0x7ff8000000000000ull, 0x7ff4000000000000ull, 0x0000000000000001ull, /* qNaN sNaN denorm */
	0x43e0000000000000ull, 0xc3e0000000000001ull, 0x4005bf0a8b145769ull, /* 2^63 ... e */
	0x3fb999999999999aull, 0x41dfffffffc00000ull,                         /* 0.1, 2^31-1 */
};
static volatile uint32_t singles[] = {
	0x00000000, 0x80000000, 0x3f800000, 0xbfc00000, 0x7f800000, 0xff800000, 0x7fc00000,
	0x7fa00000, 0x00000001, 0x4f000000, 0xcf000001, 0x402df854, 0x3dcccccd, 0x7f7fffff,
};
#define ND (sizeof doubles / sizeof doubles[0])
#define NS (sizeof singles / sizeof singles[0])

static uint64_t fflags_take(void)
{
	uint64_t f;
	__asm__ volatile("csrrw %0, fflags, zero" : "=r"(f));
	return f;
}

#define FOP_D(insn, rm)                                                                   \
	({                                                                                \
		uint64_t r_;                                                              \
		__asm__ volatile("fmv.d.x ft0, %1\n fmv.d.x ft1, %2\n" insn " ft2, ft0, ft1, " rm \
				 "\n fmv.x.d %0, ft2"                                     \
				 : "=r"(r_)                                               \
				 : "r"(a), "r"(b)                                         \
				 : "ft0", "ft1", "ft2");                                  \
		r_;                                                                       \
	})
#define FOP_S(insn, rm)                                                                   \
	({                                                                                \
		uint64_t r_;                                                              \
		__asm__ volatile("fmv.w.x ft0, %1\n fmv.w.x ft1, %2\n" insn " ft2, ft0, ft1, " rm \
				 "\n fmv.x.d %0, ft2"                                     \
				 : "=r"(r_)                                               \
				 : "r"(sa), "r"(sb)                                       \
				 : "ft0", "ft1", "ft2");                                  \
		r_;                                                                       \
	})
#define FUN(insn, mv_in, mv_out, x)                                                     \
	({                                                                              \
		uint64_t r_;                                                            \
		__asm__ volatile(mv_in " ft0, %1\n" insn "\n" mv_out " %0, ft2"         \
				 : "=r"(r_)                                             \
				 : "r"(x)                                               \
				 : "ft0", "ft2");                                       \
		r_;                                                                     \
	})
#define CVT(insn, mv_in, x)                                                             \
	({                                                                              \
		uint64_t r_;                                                            \
		__asm__ volatile(mv_in " ft0, %1\n" insn : "=r"(r_) : "r"(x) : "ft0");  \
		r_;                                                                     \
	})

#define ICVT(insn, x)                                                                   \
	({                                                                              \
		uint64_t r_;                                                            \
		__asm__ volatile(insn "\n fmv.x.d %0, ft2" : "=r"(r_) : "r"(x) : "ft2"); \
		r_;                                                                     \
	})

#define ALL_RM(M) M("rne") M("rtz") M("rdn") M("rup") M("rmm")

__attribute__((noreturn)) void _start(void)
{
	for (unsigned i = 0; i < ND; ++i) {
		const uint64_t a = doubles[i];
		const uint64_t sa = singles[i];
#define UNARY_RM(rm)                                                                   \
	mix(FUN("fsqrt.d ft2, ft0, " rm, "fmv.d.x", "fmv.x.d", a));                     \
	mix(FUN("fsqrt.s ft2, ft0, " rm, "fmv.w.x", "fmv.x.d", sa));                    \
	mix(CVT("fcvt.w.d %0, ft0, " rm, "fmv.d.x", a));                                \
	mix(CVT("fcvt.wu.d %0, ft0, " rm, "fmv.d.x", a));                               \
	mix(CVT("fcvt.l.d %0, ft0, " rm, "fmv.d.x", a));                                \
	mix(CVT("fcvt.lu.d %0, ft0, " rm, "fmv.d.x", a));                               \
	mix(CVT("fcvt.w.s %0, ft0, " rm, "fmv.w.x", sa));                               \
	mix(CVT("fcvt.lu.s %0, ft0, " rm, "fmv.w.x", sa));                              \
	mix(FUN("fcvt.s.d ft2, ft0, " rm, "fmv.d.x", "fmv.x.d", a));                    \
	mix(ICVT("fcvt.d.l ft2, %1, " rm, a));                                          \
	mix(ICVT("fcvt.s.lu ft2, %1, " rm, a));                                         \
	mix(fflags_take());
		ALL_RM(UNARY_RM)
		mix(FUN("fcvt.d.s ft2, ft0", "fmv.w.x", "fmv.x.d", sa));
		mix(CVT("fclass.d %0, ft0", "fmv.d.x", a));
		mix(CVT("fclass.s %0, ft0", "fmv.w.x", sa));
		/* A single not NaN-boxed reads as the canonical NaN. */
		mix(CVT("fclass.s %0, ft0", "fmv.d.x", a));
		mix(fflags_take());
		for (unsigned j = 0; j < ND; ++j) {
			const uint64_t b = doubles[j];
			const uint64_t sb = singles[j];
#define BINARY_RM(rm)                                                                  \
	mix(FOP_D("fadd.d", rm));                                                      \
	mix(FOP_D("fsub.d", rm));                                                      \
	mix(FOP_D("fmul.d", rm));                                                      \
	mix(FOP_D("fdiv.d", rm));                                                      \
	mix(FOP_S("fadd.s", rm));                                                      \
	mix(FOP_S("fmul.s", rm));                                                      \
	mix(FOP_S("fdiv.s", rm));                                                      \
	mix(fflags_take());
			ALL_RM(BINARY_RM)
			uint64_t r;
			__asm__ volatile("fmv.d.x ft0, %1\n fmv.d.x ft1, %2\n fmin.d ft2, ft0, ft1\n"
					 "fmax.d ft3, ft0, ft1\n fmv.x.d %0, ft2\n fmv.x.d t0, ft3\n"
					 "xor %0, %0, t0\n flt.d t0, ft0, ft1\n add %0, %0, t0\n"
					 "feq.d t0, ft0, ft1\n slli t0, t0, 1\n add %0, %0, t0\n"
					 "fle.d t0, ft0, ft1\n slli t0, t0, 2\n add %0, %0, t0\n"
					 "fmadd.d ft2, ft0, ft1, ft0\n fmv.x.d t0, ft2\n xor %0, %0, t0\n"
					 "fsgnjn.d ft2, ft0, ft1\n fmv.x.d t0, ft2\n add %0, %0, t0"
					 : "=&r"(r)
					 : "r"(a), "r"(b)
					 : "t0", "ft0", "ft1", "ft2", "ft3");
			mix(r);
			__asm__ volatile("fmv.w.x ft0, %1\n fmv.w.x ft1, %2\n fmin.s ft2, ft0, ft1\n"
					 "fmax.s ft3, ft0, ft1\n fmv.x.w %0, ft2\n fmv.x.w t0, ft3\n"
					 "xor %0, %0, t0\n flt.s t0, ft0, ft1\n add %0, %0, t0\n"
					 "fmsub.s ft2, ft0, ft1, ft1\n fmv.x.w t0, ft2\n xor %0, %0, t0"
					 : "=&r"(r)
					 : "r"(sa), "r"(sb)
					 : "t0", "ft0", "ft1", "ft2", "ft3");
			mix(r);
			mix(fflags_take());
		}
	}
	/* The dynamic rounding mode. */
	for (uint64_t frm = 0; frm < 5; ++frm) {
		uint64_t r, a = doubles[12], b = doubles[11];
		__asm__ volatile("fsrm %1\n fmv.d.x ft0, %2\n fmv.d.x ft1, %3\n fdiv.d ft2, ft0, ft1\n"
				 "fmv.x.d %0, ft2"
				 : "=r"(r)
				 : "r"(frm), "r"(a), "r"(b)
				 : "ft0", "ft1", "ft2");
		mix(r);
	}
	diff_exit();
}
