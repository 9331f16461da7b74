// SPDX-License-Identifier: MIT
// CUDA's device math API overloads every double function for float, through
// the global names and std:: alike (fmax(float, float), std::hypot(float,
// float), round(float), ...): each overload called in a kernel, checked to
// return float, and compared with the host's double-precision result rounded
// to float within the maximum ULP error CUDA documents for the function
// (CUDA C++ Programming Guide, "Mathematical Functions", single precision).
// A double reference rounded once is within half an ulp of the exact value,
// so a device result within B ulps of the exact one is within B of it. Then
// the integer min and max overloads of every signedness and width.
#include <algorithm>
#include <climits>
#include <cmath>
#include <type_traits>

#include "test_util.h"

// name, CUDA's bound in ulps, x range, y range, the device call, the host
// reference in double.
#define FLOAT_OVERLOADS(X)                                                                        \
	X(acos, 2, -1, 1, 0, 0, acos(x), std::acos(dx))                                            \
	X(acosh, 4, 1, 1e4, 0, 0, acosh(x), std::acosh(dx))                                        \
	X(asin, 2, -1, 1, 0, 0, asin(x), std::asin(dx))                                            \
	X(asinh, 3, -1e4, 1e4, 0, 0, asinh(x), std::asinh(dx))                                     \
	X(atan, 2, -100, 100, 0, 0, atan(x), std::atan(dx))                                        \
	X(atan2, 3, -10, 10, -10, 10, atan2(x, y), std::atan2(dx, dy))                             \
	X(atanh, 2, -0.99, 0.99, 0, 0, atanh(x), std::atanh(dx))                                   \
	X(cbrt, 1, -1e3, 1e3, 0, 0, cbrt(x), std::cbrt(dx))                                        \
	X(ceil, 0, -1e3, 1e3, 0, 0, ceil(x), std::ceil(dx))                                        \
	X(copysign, 0, -10, 10, -10, 10, copysign(x, y), std::copysign(dx, dy))                    \
	X(cos, 2, -50, 50, 0, 0, cos(x), std::cos(dx))                                             \
	X(cosh, 2, -20, 20, 0, 0, cosh(x), std::cosh(dx))                                          \
	X(erf, 2, -4, 4, 0, 0, erf(x), std::erf(dx))                                               \
	X(erfc, 4, -2, 8, 0, 0, erfc(x), std::erfc(dx))                                            \
	X(exp, 2, -80, 80, 0, 0, exp(x), std::exp(dx))                                             \
	X(exp2, 2, -100, 100, 0, 0, exp2(x), std::exp2(dx))                                        \
	X(expm1, 1, -10, 10, 0, 0, expm1(x), std::expm1(dx))                                       \
	X(fabs, 0, -1e3, 1e3, 0, 0, fabs(x), std::fabs(dx))                                        \
	X(fdim, 0, -10, 10, -10, 10, fdim(x, y), std::fdim(dx, dy))                                \
	X(floor, 0, -1e3, 1e3, 0, 0, floor(x), std::floor(dx))                                     \
	X(fma, 0, -100, 100, -100, 100, fma(x, y, 0.75f), std::fma(dx, dy, 0.75))                  \
	X(fmax, 0, -10, 10, -10, 10, fmax(x, y), std::fmax(dx, dy))                                \
	X(fmin, 0, -10, 10, -10, 10, fmin(x, y), std::fmin(dx, dy))                                \
	X(fmod, 0, -100, 100, 0.5, 20, fmod(x, y), std::fmod(dx, dy))                              \
	X(hypot, 3, -1e3, 1e3, -1e3, 1e3, hypot(x, y), std::hypot(dx, dy))                         \
	X(ldexp, 0, -100, 100, -20, 20, ldexp(x, (int)y), std::ldexp(dx, (int)y))                  \
	X(lgamma, 6, 0.01, 30, 0, 0, lgamma(x), std::lgamma(dx))                                   \
	X(log, 1, 1e-30, 1e30, 0, 0, log(x), std::log(dx))                                         \
	X(log10, 2, 1e-30, 1e30, 0, 0, log10(x), std::log10(dx))                                   \
	X(log1p, 1, -0.9, 100, 0, 0, log1p(x), std::log1p(dx))                                     \
	X(log2, 1, 1e-30, 1e30, 0, 0, log2(x), std::log2(dx))                                      \
	X(logb, 0, 1e-30, 1e30, 0, 0, logb(x), std::logb(dx))                                      \
	X(nearbyint, 0, -1e3, 1e3, 0, 0, nearbyint(x), std::nearbyint(dx))                         \
	X(nextafter, 0, -10, 10, -10, 10, nextafter(x, y), (double)std::nextafter(x, y))           \
	X(pow, 4, 0.01, 10, -8, 8, pow(x, y), std::pow(dx, dy))                                    \
	X(remainder, 0, -100, 100, 0.5, 20, remainder(x, y), std::remainder(dx, dy))               \
	X(rint, 0, -1e3, 1e3, 0, 0, rint(x), std::rint(dx))                                        \
	X(round, 0, -1e3, 1e3, 0, 0, round(x), std::round(dx))                                     \
	X(scalbn, 0, -100, 100, -20, 20, scalbn(x, (int)y), std::scalbn(dx, (int)y))               \
	X(scalbln, 0, -100, 100, -20, 20, scalbln(x, (long)y), std::scalbln(dx, (long)y))          \
	X(sin, 2, -50, 50, 0, 0, sin(x), std::sin(dx))                                             \
	X(sinh, 3, -20, 20, 0, 0, sinh(x), std::sinh(dx))                                          \
	X(sqrt, 0, 0, 1e6, 0, 0, sqrt(x), std::sqrt(dx))                                           \
	X(tan, 4, -1.5, 1.5, 0, 0, tan(x), std::tan(dx))                                           \
	X(tanh, 2, -10, 10, 0, 0, tanh(x), std::tanh(dx))                                          \
	X(tgamma, 5, 0.05, 30, 0, 0, tgamma(x), std::tgamma(dx))                                   \
	X(trunc, 0, -1e3, 1e3, 0, 0, trunc(x), std::trunc(dx))

// Functions of float returning an integer, or writing through a pointer:
// compared exactly with the host's float functions.
#define EXACT_OVERLOADS(X)                                                                        \
	X(ilogb, (float)ilogb(x), (float)std::ilogb(x))                                            \
	X(llrint, (float)llrint(x), (float)std::llrint(x))                                         \
	X(llround, (float)llround(x), (float)std::llround(x))                                      \
	X(lrint, (float)lrint(x), (float)std::lrint(x))                                            \
	X(lround, (float)lround(x), (float)std::lround(x))                                         \
	X(frexp_mantissa, frexp(x, &i), std::frexp(x, &i))                                         \
	X(frexp_exponent, (frexp(x, &i), (float)i), (std::frexp(x, &i), (float)i))                 \
	X(modf_fraction, modf(x, &f), std::modf(x, &f))                                            \
	X(modf_integer, (modf(x, &f), f), (std::modf(x, &f), f))                                   \
	X(remquo_quotient, (remquo(x, 3.5f, &i), (float)(i & 7)),                                  \
	  (std::remquo(x, 3.5f, &i), (float)(i & 7)))

#define INDEX(name, ...) k_##name,
enum { FLOAT_OVERLOADS(INDEX) kFloatCount };
enum { EXACT_OVERLOADS(INDEX) kExactCount };
constexpr int kCount = kFloatCount + kExactCount;

struct Spec {
	const char *name;
	int max_ulp;
	float lo, hi, lo2, hi2;
};
#define FLOAT_SPEC(name, ulp, lo, hi, lo2, hi2, ...) {#name, ulp, lo, hi, lo2, hi2},
#define EXACT_SPEC(name, ...) {#name, 0, -1e3, 1e3, 0, 0},
const Spec kSpecs[kCount] = {FLOAT_OVERLOADS(FLOAT_SPEC) EXACT_OVERLOADS(EXACT_SPEC)};

// The device calls, by their overloaded names: each must be the float one.
__device__ float overload(int fn, float x, float y)
{
	int i = 0;
	float f = 0;
	switch (fn) {
#define FLOAT_CASE(name, ulp, lo, hi, lo2, hi2, call, ...)                                        \
	case k_##name:                                                                            \
		static_assert(std::is_same<decltype(call), float>::value, #call " is not float");  \
		return call;
		FLOAT_OVERLOADS(FLOAT_CASE)
#define EXACT_CASE(name, call, ...)       \
	case kFloatCount + k_##name:      \
		return call;
		EXACT_OVERLOADS(EXACT_CASE)
	}
	(void)i;
	(void)f;
	return 0;
}

// The same through std:: (<cmath>), as C++ code spells them.
__device__ float through_std(int fn, float x, float y)
{
	switch (fn) {
	case k_fmax: return std::fmax(x, y);
	case k_fmin: return std::fmin(x, y);
	case k_hypot: return std::hypot(x, y);
	case k_copysign: return std::copysign(x, y);
	case k_round: return std::round(x);
	case k_log2: return std::log2(x);
	case k_cbrt: return std::cbrt(x);
	case k_trunc: return std::trunc(x);
	}
	return overload(fn, x, y);
}

__global__ void run(const float *x, const float *y, float *out, float *out_std, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	int fn = blockIdx.y;
	if (i < n) {
		out[fn * n + i] = overload(fn, x[fn * n + i], y[fn * n + i]);
		out_std[fn * n + i] = through_std(fn, x[fn * n + i], y[fn * n + i]);
	}
}

float reference(int fn, float x, float y)
{
	const double dx = x, dy = y;
	int i = 0;
	float f = 0;
	switch (fn) {
#define FLOAT_REF(name, ulp, lo, hi, lo2, hi2, call, ref) \
	case k_##name:                                    \
		return (float)(ref);
		FLOAT_OVERLOADS(FLOAT_REF)
#define EXACT_REF(name, call, ref)   \
	case kFloatCount + k_##name: \
		return ref;
		EXACT_OVERLOADS(EXACT_REF)
	}
	(void)dx;
	(void)dy;
	return 0;
}

// Integer min and max: every pairing CUDA declares, on the device.
__global__ void min_max(long long *out)
{
	int k = 0;
	const int si = -5;
	const unsigned ui = 7u;
	const long sl = -5000000000L;
	const unsigned long ul = 9000000000UL;
	const long long sll = -3LL;
	const unsigned long long ull = 4ULL;
	out[k++] = min(si, ui); // in unsigned, -5 is the largest
	out[k++] = max(ui, si);
	out[k++] = min(ui, 3u);
	out[k++] = max(sl, -7L);
	out[k++] = min(sl, -7L);
	out[k++] = max(ul, 5UL);
	out[k++] = min(sl, ul);
	out[k++] = max(sll, -9LL);
	out[k++] = min(ull, sll);
	out[k++] = max(ull, 2ULL);
	static_assert(std::is_same<decltype(min(si, ui)), unsigned int>::value, "min(int, unsigned)");
	static_assert(std::is_same<decltype(max(sl, ul)), unsigned long>::value, "max(long, unsigned long)");
}

int main()
{
	const int n = 128, total = n * kCount;
	float *x = new float[total], *y = new float[total];
	float *out = new float[total], *out_std = new float[total];
	Rng rng(39);
	for (int f = 0; f < kCount; ++f)
		for (int i = 0; i < n; ++i) {
			const Spec &s = kSpecs[f];
			x[f * n + i] = rng.spread(s.lo, s.hi);
			y[f * n + i] = rng.uniform(s.lo2, s.hi2);
		}
	float *dx, *dy, *dout, *dout_std;
	long long *dmm;
	CHECK_CUDA(cudaMalloc(&dx, total * sizeof(float)));
	CHECK_CUDA(cudaMalloc(&dy, total * sizeof(float)));
	CHECK_CUDA(cudaMalloc(&dout, total * sizeof(float)));
	CHECK_CUDA(cudaMalloc(&dout_std, total * sizeof(float)));
	CHECK_CUDA(cudaMalloc(&dmm, 16 * sizeof(long long)));
	CHECK_CUDA(cudaMemcpy(dx, x, total * sizeof(float), cudaMemcpyHostToDevice));
	CHECK_CUDA(cudaMemcpy(dy, y, total * sizeof(float), cudaMemcpyHostToDevice));
	run<<<dim3(n / 64, kCount), 64>>>(dx, dy, dout, dout_std, n);
	CHECK_LAUNCH();
	min_max<<<1, 1>>>(dmm);
	CHECK_LAUNCH();
	CHECK_CUDA(cudaMemcpy(out, dout, total * sizeof(float), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(out_std, dout_std, total * sizeof(float), cudaMemcpyDeviceToHost));
	long long mm[16];
	CHECK_CUDA(cudaMemcpy(mm, dmm, sizeof(mm), cudaMemcpyDeviceToHost));

	bool ok = true;
	for (int f = 0; f < kCount; ++f) {
		int64_t worst = 0;
		int worst_i = 0;
		for (int i = 0; i < n; ++i) {
			const float ref = reference(f, x[f * n + i], y[f * n + i]);
			const int64_t d = std::max(ulp_distance(out[f * n + i], ref),
						   ulp_distance(out_std[f * n + i], ref));
			if (d > worst) {
				worst = d;
				worst_i = i;
			}
		}
		const bool f_ok = worst <= kSpecs[f].max_ulp;
		if (!f_ok)
			std::printf("failed: %s(%a, %a): device %a (std:: %a), reference %a: %lld ulp, "
				    "CUDA's bound %d\n",
				    kSpecs[f].name, x[f * n + worst_i], y[f * n + worst_i],
				    out[f * n + worst_i], out_std[f * n + worst_i],
				    reference(f, x[f * n + worst_i], y[f * n + worst_i]),
				    static_cast<long long>(worst), kSpecs[f].max_ulp);
		ok &= f_ok;
	}
	// C's conversions: a mixed pair compares in the unsigned type.
	const long long want[] = {7, (long long)(unsigned)-5, 3, -7, -5000000000LL,
				  9000000000LL, 9000000000LL, -3, 4, 4};
	for (int k = 0; k < 10; ++k)
		ok &= expect(mm[k] == want[k], "integer min/max overload");
	std::printf("%d float overloads, %d exact ones, %d inputs each\n", kFloatCount, kExactCount, n);
	return report("math_overloads", ok);
}
