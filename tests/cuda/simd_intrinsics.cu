// SPDX-License-Identifier: MIT
// CUDA's SIMD-in-a-word intrinsics (the Math API's "SIMD Intrinsics": two
// halfwords or four bytes per 32-bit word) on the device, every one of them,
// against a host model written lane by lane from CUDA's documentation: edge
// words (the most negative and positive lanes, all ones, zero) paired with
// each other, then random words.
#include "test_util.h"

// What one lane computes, on lanes of `bits` bits read as unsigned (u) and
// as two's complement (s).
enum class Lane {
	Abs, AbsSat, AbsDiffS, AbsDiffU, Add, AddSatS, AddSatU, AvgS, AvgU, HaddU, MaxS, MaxU,
	MinS, MinU, Neg, NegSat, Sub, SubSatS, SubSatU, EqMask, NeMask, GeSMask, GeUMask, GtSMask,
	GtUMask, LeSMask, LeUMask, LtSMask, LtUMask, EqSet, NeSet, GeSSet, GeUSet, GtSSet, GtUSet,
	LeSSet, LeUSet, LtSSet, LtUSet, SadS, SadU,
};

// name, lanes, what a lane does, the call's arguments.
#define SIMD_INTRINSICS(X)                                                                        \
	X(__vabs2, 2, Abs, (a)) X(__vabs4, 4, Abs, (a)) X(__vabsss2, 2, AbsSat, (a))                 \
	X(__vabsss4, 4, AbsSat, (a)) X(__vabsdiffs2, 2, AbsDiffS, (a, b))                           \
	X(__vabsdiffs4, 4, AbsDiffS, (a, b)) X(__vabsdiffu2, 2, AbsDiffU, (a, b))                   \
	X(__vabsdiffu4, 4, AbsDiffU, (a, b)) X(__vadd2, 2, Add, (a, b)) X(__vadd4, 4, Add, (a, b))  \
	X(__vaddss2, 2, AddSatS, (a, b)) X(__vaddss4, 4, AddSatS, (a, b))                           \
	X(__vaddus2, 2, AddSatU, (a, b)) X(__vaddus4, 4, AddSatU, (a, b))                           \
	X(__vavgs2, 2, AvgS, (a, b)) X(__vavgs4, 4, AvgS, (a, b)) X(__vavgu2, 2, AvgU, (a, b))      \
	X(__vavgu4, 4, AvgU, (a, b)) X(__vhaddu2, 2, HaddU, (a, b)) X(__vhaddu4, 4, HaddU, (a, b))  \
	X(__vmaxs2, 2, MaxS, (a, b)) X(__vmaxs4, 4, MaxS, (a, b)) X(__vmaxu2, 2, MaxU, (a, b))      \
	X(__vmaxu4, 4, MaxU, (a, b)) X(__vmins2, 2, MinS, (a, b)) X(__vmins4, 4, MinS, (a, b))      \
	X(__vminu2, 2, MinU, (a, b)) X(__vminu4, 4, MinU, (a, b)) X(__vneg2, 2, Neg, (a))           \
	X(__vneg4, 4, Neg, (a)) X(__vnegss2, 2, NegSat, (a)) X(__vnegss4, 4, NegSat, (a))           \
	X(__vsub2, 2, Sub, (a, b)) X(__vsub4, 4, Sub, (a, b)) X(__vsubss2, 2, SubSatS, (a, b))      \
	X(__vsubss4, 4, SubSatS, (a, b)) X(__vsubus2, 2, SubSatU, (a, b))                           \
	X(__vsubus4, 4, SubSatU, (a, b)) X(__vcmpeq2, 2, EqMask, (a, b))                            \
	X(__vcmpeq4, 4, EqMask, (a, b)) X(__vcmpne2, 2, NeMask, (a, b))                             \
	X(__vcmpne4, 4, NeMask, (a, b)) X(__vcmpges2, 2, GeSMask, (a, b))                           \
	X(__vcmpges4, 4, GeSMask, (a, b)) X(__vcmpgeu2, 2, GeUMask, (a, b))                         \
	X(__vcmpgeu4, 4, GeUMask, (a, b)) X(__vcmpgts2, 2, GtSMask, (a, b))                         \
	X(__vcmpgts4, 4, GtSMask, (a, b)) X(__vcmpgtu2, 2, GtUMask, (a, b))                         \
	X(__vcmpgtu4, 4, GtUMask, (a, b)) X(__vcmples2, 2, LeSMask, (a, b))                         \
	X(__vcmples4, 4, LeSMask, (a, b)) X(__vcmpleu2, 2, LeUMask, (a, b))                         \
	X(__vcmpleu4, 4, LeUMask, (a, b)) X(__vcmplts2, 2, LtSMask, (a, b))                         \
	X(__vcmplts4, 4, LtSMask, (a, b)) X(__vcmpltu2, 2, LtUMask, (a, b))                         \
	X(__vcmpltu4, 4, LtUMask, (a, b)) X(__vseteq2, 2, EqSet, (a, b))                            \
	X(__vseteq4, 4, EqSet, (a, b)) X(__vsetne2, 2, NeSet, (a, b)) X(__vsetne4, 4, NeSet, (a, b)) \
	X(__vsetges2, 2, GeSSet, (a, b)) X(__vsetges4, 4, GeSSet, (a, b))                           \
	X(__vsetgeu2, 2, GeUSet, (a, b)) X(__vsetgeu4, 4, GeUSet, (a, b))                           \
	X(__vsetgts2, 2, GtSSet, (a, b)) X(__vsetgts4, 4, GtSSet, (a, b))                           \
	X(__vsetgtu2, 2, GtUSet, (a, b)) X(__vsetgtu4, 4, GtUSet, (a, b))                           \
	X(__vsetles2, 2, LeSSet, (a, b)) X(__vsetles4, 4, LeSSet, (a, b))                           \
	X(__vsetleu2, 2, LeUSet, (a, b)) X(__vsetleu4, 4, LeUSet, (a, b))                           \
	X(__vsetlts2, 2, LtSSet, (a, b)) X(__vsetlts4, 4, LtSSet, (a, b))                           \
	X(__vsetltu2, 2, LtUSet, (a, b)) X(__vsetltu4, 4, LtUSet, (a, b))                           \
	X(__vsads2, 2, SadS, (a, b)) X(__vsads4, 4, SadS, (a, b)) X(__vsadu2, 2, SadU, (a, b))      \
	X(__vsadu4, 4, SadU, (a, b))

#define SIMD_INDEX(name, lanes, lane, args) k_##name,
enum { SIMD_INTRINSICS(SIMD_INDEX) kCount };

struct Spec {
	const char *name;
	int lanes;
	Lane lane;
};
#define SIMD_SPEC(name, lanes, lane, args) {#name, lanes, Lane::lane},
const Spec kSpecs[kCount] = {SIMD_INTRINSICS(SIMD_SPEC)};

__device__ unsigned int evaluate(int fn, unsigned int a, unsigned int b)
{
	switch (fn) {
#define SIMD_CASE(name, lanes, lane, args) \
	case k_##name:                     \
		return name args;
		SIMD_INTRINSICS(SIMD_CASE)
	}
	return 0xdeadbeef;
}

__global__ void run(const unsigned int *a, const unsigned int *b, unsigned int *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	int fn = blockIdx.y;
	if (i < n)
		out[fn * n + i] = evaluate(fn, a[i], b[i]);
}

// The host model: one lane at a time, in 64-bit arithmetic where nothing
// overflows.
int64_t clamp(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

int64_t laneResult(Lane op, int64_t u, int64_t v, int64_t s, int64_t t, int bits)
{
	const int64_t umax = (int64_t(1) << bits) - 1, smax = umax >> 1, smin = -smax - 1;
	const int64_t ones = umax;
	switch (op) {
	case Lane::Abs: return s < 0 ? -s : s;
	case Lane::AbsSat: return clamp(s < 0 ? -s : s, smin, smax);
	case Lane::AbsDiffS: return s > t ? s - t : t - s;
	case Lane::AbsDiffU: return u > v ? u - v : v - u;
	case Lane::Add: return u + v;
	case Lane::AddSatS: return clamp(s + t, smin, smax);
	case Lane::AddSatU: return clamp(u + v, 0, umax);
	case Lane::AvgS: { // rounded half away from zero
		const int64_t sum = s + t;
		return sum >= 0 ? (sum + 1) / 2 : -((-sum + 1) / 2);
	}
	case Lane::AvgU: return (u + v + 1) / 2;
	case Lane::HaddU: return (u + v) / 2;
	case Lane::MaxS: return s > t ? s : t;
	case Lane::MaxU: return u > v ? u : v;
	case Lane::MinS: return s < t ? s : t;
	case Lane::MinU: return u < v ? u : v;
	case Lane::Neg: return -s;
	case Lane::NegSat: return clamp(-s, smin, smax);
	case Lane::Sub: return u - v;
	case Lane::SubSatS: return clamp(s - t, smin, smax);
	case Lane::SubSatU: return clamp(u - v, 0, umax);
	case Lane::EqMask: return u == v ? ones : 0;
	case Lane::NeMask: return u != v ? ones : 0;
	case Lane::GeSMask: return s >= t ? ones : 0;
	case Lane::GeUMask: return u >= v ? ones : 0;
	case Lane::GtSMask: return s > t ? ones : 0;
	case Lane::GtUMask: return u > v ? ones : 0;
	case Lane::LeSMask: return s <= t ? ones : 0;
	case Lane::LeUMask: return u <= v ? ones : 0;
	case Lane::LtSMask: return s < t ? ones : 0;
	case Lane::LtUMask: return u < v ? ones : 0;
	case Lane::EqSet: return u == v;
	case Lane::NeSet: return u != v;
	case Lane::GeSSet: return s >= t;
	case Lane::GeUSet: return u >= v;
	case Lane::GtSSet: return s > t;
	case Lane::GtUSet: return u > v;
	case Lane::LeSSet: return s <= t;
	case Lane::LeUSet: return u <= v;
	case Lane::LtSSet: return s < t;
	case Lane::LtUSet: return u < v;
	case Lane::SadS: return s > t ? s - t : t - s;
	case Lane::SadU: return u > v ? u - v : v - u;
	}
	return 0;
}

uint32_t reference(const Spec &spec, uint32_t a, uint32_t b)
{
	const int bits = 32 / spec.lanes;
	const uint32_t mask = (uint32_t(1) << bits) - 1;
	const bool sum = spec.lane == Lane::SadS || spec.lane == Lane::SadU;
	uint32_t word = 0;
	for (int i = 0; i < spec.lanes; ++i) {
		const int shift = i * bits;
		const int64_t u = (a >> shift) & mask, v = (b >> shift) & mask;
		const int64_t s = u > (mask >> 1) ? u - (int64_t(mask) + 1) : u;
		const int64_t t = v > (mask >> 1) ? v - (int64_t(mask) + 1) : v;
		const int64_t r = laneResult(spec.lane, u, v, s, t, bits);
		if (sum)
			word += static_cast<uint32_t>(r);
		else
			word |= (static_cast<uint32_t>(r) & mask) << shift;
	}
	return word;
}

int main()
{
	const uint32_t edges[] = {0u,          0xffffffffu, 0x80008000u, 0x7fff7fffu, 0x80808080u,
				  0x7f7f7f7fu, 0x00010001u, 0x01010101u, 0xfffe0002u, 0x81ff017fu};
	const int n_edges = sizeof(edges) / sizeof(edges[0]);
	const int n = 256;
	unsigned int a[n], b[n];
	Rng rng(39);
	for (int i = 0; i < n; ++i) {
		a[i] = i < n_edges * n_edges ? edges[i / n_edges] : rng.next();
		b[i] = i < n_edges * n_edges ? edges[i % n_edges] : rng.next();
	}
	unsigned int *da, *db, *dout;
	CHECK_CUDA(cudaMalloc(&da, sizeof(a)));
	CHECK_CUDA(cudaMalloc(&db, sizeof(b)));
	CHECK_CUDA(cudaMalloc(&dout, sizeof(unsigned int) * n * kCount));
	CHECK_CUDA(cudaMemcpy(da, a, sizeof(a), cudaMemcpyHostToDevice));
	CHECK_CUDA(cudaMemcpy(db, b, sizeof(b), cudaMemcpyHostToDevice));
	run<<<dim3(n / 128, kCount), 128>>>(da, db, dout, n);
	CHECK_LAUNCH();
	static unsigned int out[n * kCount];
	CHECK_CUDA(cudaMemcpy(out, dout, sizeof(out), cudaMemcpyDeviceToHost));
	int wrong_functions = 0;
	for (int f = 0; f < kCount; ++f) {
		int wrong = 0;
		for (int i = 0; i < n; ++i) {
			const uint32_t want = reference(kSpecs[f], a[i], b[i]);
			if (out[f * n + i] != want && wrong++ == 0)
				std::printf("failed: %s(0x%08x, 0x%08x) = 0x%08x, CUDA defines 0x%08x\n",
					    kSpecs[f].name, a[i], b[i], out[f * n + i], want);
		}
		wrong_functions += wrong != 0;
	}
	std::printf("%d SIMD intrinsics, %d inputs each, %d wrong\n", kCount, n, wrong_functions);
	return report("simd_intrinsics", wrong_functions == 0);
}
