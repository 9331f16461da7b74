// SPDX-License-Identifier: MIT
// The single-precision CUDA math API on the device against the host's libm
// (glibc), within per-function ULP bounds. The device implementations come
// from picolibc, so the bounds are the sum of both libraries' errors
// (docs/simtcc.md, "Math library"); fast intrinsics use the same functions.
#include "test_util.h"

enum Fn { kSin, kCos, kTan, kExp, kExp2, kLog, kLog2, kLog10, kPow, kSqrt, kRsqrt, kErf, kErfc,
	  kAtan, kAtan2, kAsin, kAcos, kSinh, kCosh, kTanh, kCbrt, kFloor, kCeil, kTrunc, kRound,
	  kFma, kFabs, kFmin, kFmax, kFmod, kHypot, kExpm1, kLog1p, kFastExp, kFastLog, kFastSin,
	  kFastCos, kFdivide, kFastPow, kCount };

struct Spec {
	const char *name;
	float lo, hi; // input range of x (y is drawn from [lo2, hi2])
	float lo2, hi2;
	int64_t max_ulp;
};

const Spec kSpecs[kCount] = {
	{"sinf", -50, 50, 0, 0, 2},      {"cosf", -50, 50, 0, 0, 2},
	{"tanf", -1.5f, 1.5f, 0, 0, 4},  {"expf", -80, 80, 0, 0, 2},
	{"exp2f", -100, 100, 0, 0, 2},   {"logf", 1e-30f, 1e30f, 0, 0, 2},
	{"log2f", 1e-30f, 1e30f, 0, 0, 2}, {"log10f", 1e-30f, 1e30f, 0, 0, 2},
	{"powf", 0.01f, 10, -8, 8, 4},   {"sqrtf", 0, 1e6f, 0, 0, 0},
	{"rsqrtf", 1e-6f, 1e6f, 0, 0, 1}, {"erff", -4, 4, 0, 0, 2},
	{"erfcf", -2, 8, 0, 0, 4},       {"atanf", -100, 100, 0, 0, 2},
	{"atan2f", -10, 10, -10, 10, 4}, {"asinf", -1, 1, 0, 0, 2},
	{"acosf", -1, 1, 0, 0, 2},       {"sinhf", -20, 20, 0, 0, 4},
	{"coshf", -20, 20, 0, 0, 4},     {"tanhf", -10, 10, 0, 0, 2},
	{"cbrtf", -1000, 1000, 0, 0, 2}, {"floorf", -1000, 1000, 0, 0, 0},
	{"ceilf", -1000, 1000, 0, 0, 0}, {"truncf", -1000, 1000, 0, 0, 0},
	{"roundf", -1000, 1000, 0, 0, 0}, {"fmaf", -100, 100, -100, 100, 0},
	{"fabsf", -1000, 1000, 0, 0, 0}, {"fminf", -10, 10, -10, 10, 0},
	{"fmaxf", -10, 10, -10, 10, 0},  {"fmodf", -100, 100, 0.5f, 20, 0},
	{"hypotf", -1e3f, 1e3f, -1e3f, 1e3f, 2}, {"expm1f", -10, 10, 0, 0, 2},
	{"log1pf", -0.9f, 100, 0, 0, 2}, {"__expf", -80, 80, 0, 0, 2},
	{"__logf", 1e-30f, 1e30f, 0, 0, 2}, {"__sinf", -50, 50, 0, 0, 2},
	{"__cosf", -50, 50, 0, 0, 2},    {"__fdividef", -1e3f, 1e3f, 0.1f, 100, 0},
	{"__powf", 0.01f, 10, -8, 8, 4},
};

__device__ __host__ float evaluate(int fn, float x, float y)
{
	switch (fn) {
	case kSin: return sinf(x);
	case kCos: return cosf(x);
	case kTan: return tanf(x);
	case kExp: return expf(x);
	case kExp2: return exp2f(x);
	case kLog: return logf(x);
	case kLog2: return log2f(x);
	case kLog10: return log10f(x);
	case kPow: return powf(x, y);
	case kSqrt: return sqrtf(x);
	case kRsqrt:
#ifdef __CUDA_ARCH__
		return rsqrtf(x);
#else
		return 1.0f / sqrtf(x);
#endif
	case kErf: return erff(x);
	case kErfc: return erfcf(x);
	case kAtan: return atanf(x);
	case kAtan2: return atan2f(y, x);
	case kAsin: return asinf(x);
	case kAcos: return acosf(x);
	case kSinh: return sinhf(x);
	case kCosh: return coshf(x);
	case kTanh: return tanhf(x);
	case kCbrt: return cbrtf(x);
	case kFloor: return floorf(x);
	case kCeil: return ceilf(x);
	case kTrunc: return truncf(x);
	case kRound: return roundf(x);
	case kFma: return fmaf(x, y, 0.75f);
	case kFabs: return fabsf(x);
	case kFmin: return fminf(x, y);
	case kFmax: return fmaxf(x, y);
	case kFmod: return fmodf(x, y);
	case kHypot: return hypotf(x, y);
	case kExpm1: return expm1f(x);
	case kLog1p: return log1pf(x);
	default: break;
	}
#ifdef __CUDA_ARCH__
	switch (fn) {
	case kFastExp: return __expf(x);
	case kFastLog: return __logf(x);
	case kFastSin: return __sinf(x);
	case kFastCos: return __cosf(x);
	case kFdivide: return __fdividef(x, y);
	case kFastPow: return __powf(x, y);
	}
#else
	switch (fn) {
	case kFastExp: return expf(x);
	case kFastLog: return logf(x);
	case kFastSin: return sinf(x);
	case kFastCos: return cosf(x);
	case kFdivide: return x / y;
	case kFastPow: return powf(x, y);
	}
#endif
	return 0.0f;
}

__global__ void run(const float *x, const float *y, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	int fn = blockIdx.y;
	if (i < n)
		out[fn * n + i] = evaluate(fn, x[fn * n + i], y[fn * n + i]);
}

int main()
{
	const int n = 256, total = n * kCount;
	float *x = new float[total], *y = new float[total], *out = new float[total];
	Rng rng(12);
	for (int f = 0; f < kCount; ++f)
		for (int i = 0; i < n; ++i) {
			const Spec &s = kSpecs[f];
			x[f * n + i] = rng.spread(s.lo, s.hi);
			y[f * n + i] = rng.uniform(s.lo2, s.hi2);
		}
	float *dx, *dy, *dout;
	CHECK_CUDA(cudaMalloc(&dx, total * sizeof(float)));
	CHECK_CUDA(cudaMalloc(&dy, total * sizeof(float)));
	CHECK_CUDA(cudaMalloc(&dout, total * sizeof(float)));
	CHECK_CUDA(cudaMemcpy(dx, x, total * sizeof(float), cudaMemcpyHostToDevice));
	CHECK_CUDA(cudaMemcpy(dy, y, total * sizeof(float), cudaMemcpyHostToDevice));
	run<<<dim3((n + 127) / 128, kCount), 128>>>(dx, dy, dout, n);
	CHECK_LAUNCH();
	CHECK_CUDA(cudaMemcpy(out, dout, total * sizeof(float), cudaMemcpyDeviceToHost));
	bool ok = true;
	for (int f = 0; f < kCount; ++f) {
		int64_t worst = 0;
		int worst_i = 0;
		for (int i = 0; i < n; ++i) {
			float ref = evaluate(f, x[f * n + i], y[f * n + i]);
			int64_t d = ulp_distance(out[f * n + i], ref);
			if (d > worst) {
				worst = d;
				worst_i = i;
			}
		}
		bool f_ok = worst <= kSpecs[f].max_ulp;
		std::printf("  %-10s max %lld ulp (bound %lld)%s", kSpecs[f].name, static_cast<long long>(worst),
			    static_cast<long long>(kSpecs[f].max_ulp), f_ok ? "\n" : "");
		if (!f_ok)
			std::printf(" at x=%a y=%a: device %a host %a\n", x[f * n + worst_i], y[f * n + worst_i],
				    out[f * n + worst_i], evaluate(f, x[f * n + worst_i], y[f * n + worst_i]));
		ok &= f_ok;
	}
	return report("math_float", ok);
}
