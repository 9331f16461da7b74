// SPDX-License-Identifier: MIT
// CUDA's math functions that C's libm lacks are __host__ __device__ (rsqrtf,
// rcbrtf, sinpif, cospif, normcdff, normcdfinvf, erfinvf, erfcinvf, erfcxf,
// norm3df, rhypotf, cyl_bessel_i0f, ... and their double versions): host
// code calls them as it calls sinf. Each is evaluated in host code and in a
// kernel, in double and float, at points whose values were computed to 40
// digits with mpmath (a known answer independent of both implementations),
// within the maximum ULP errors CUDA documents for each.
#include "test_util.h"

enum Fn {
	kRsqrt, kRcbrt, kSinpi, kCospi, kSincospiSin, kSincospiCos, kNormcdf, kNormcdfinv, kErfinv,
	kErfcinv, kErfcx, kRhypot, kNorm3d, kRnorm3d, kNorm4d, kRnorm4d, kNorm, kRnorm, kBesselI0,
	kBesselI1, kFnCount
};

// CUDA's bounds in ulps (double, float), "Mathematical Functions".
const struct {
	const char *name;
	int double_ulp, float_ulp;
} kBounds[kFnCount] = {
	{"rsqrt", 1, 2},     {"rcbrt", 1, 1},      {"sinpi", 2, 1},     {"cospi", 2, 1},
	{"sincospi sin", 2, 1}, {"sincospi cos", 2, 1}, {"normcdf", 5, 5}, {"normcdfinv", 5, 5},
	{"erfinv", 5, 2},    {"erfcinv", 6, 4},    {"erfcx", 4, 4},     {"rhypot", 1, 2},
	{"norm3d", 2, 3},    {"rnorm3d", 1, 2},    {"norm4d", 2, 3},    {"rnorm4d", 1, 2},
	{"norm", 2, 4},      {"rnorm", 2, 3},      {"cyl_bessel_i0", 6, 6}, {"cyl_bessel_i1", 6, 6},
};

struct Case {
	Fn fn;
	double in[4];
	double want;     // mpmath, 40 digits, at the double inputs
	bool in_float;   // the inputs are floats too (and the result in range)
};

const Case kCases[] = {
	{kRsqrt, {2.0}, 0.707106781186547524401, true},
	{kRsqrt, {7.5}, 0.365148371670110742305, true},
	{kRsqrt, {1e-300}, 9.9999999999999998747e+149, false},
	{kRcbrt, {3.0}, 0.693361274350634704843, true},
	{kRcbrt, {-1000.5}, -0.0999833388867292948776, true},
	{kSinpi, {1000000.25}, 0.707106781186547524401, true},
	{kSinpi, {-2.75}, -0.707106781186547524401, true},
	{kSinpi, {0.3125}, 0.831469612302545237079, true},
	{kCospi, {0.3125}, 0.555570233019602224743, true},
	{kCospi, {1000000.25}, 0.707106781186547524401, true},
	{kCospi, {123.375}, -0.382683432365089771728, true},
	{kSincospiSin, {0.3125}, 0.831469612302545237079, true},
	{kSincospiCos, {123.375}, -0.382683432365089771728, true},
	{kNormcdf, {-1.5}, 0.0668072012688580660045, true},
	{kNormcdf, {2.5}, 0.993790334674223864833, true},
	{kNormcdf, {-30.0}, 4.90671392714818705953e-198, false},
	{kNormcdfinv, {0.96875}, 1.86273186742165145549, true},
	{kNormcdfinv, {1.1641532182693481e-10}, -6.33795775455378925249, true},
	{kNormcdfinv, {0.3125}, -0.488776411114669498911, true},
	{kErfinv, {0.5}, 0.476936276204469873381, true},
	{kErfinv, {-0.998046875}, -2.19009996835376763824, true},
	{kErfinv, {7.62939453125e-06}, 6.76137485859880818541e-06, true},
	{kErfcinv, {1.3552527156068805e-20}, 6.57877375050509484587, true},
	{kErfcinv, {0.3125}, 0.714170897608128346814, true},
	{kErfcinv, {1.6875}, -0.714170897608128346814, true},
	{kErfcx, {1.0}, 0.427583576155807004411, true},
	{kErfcx, {10.0}, 0.0561409927438225858575, true},
	{kErfcx, {30.0}, 0.0187958888614167514971, true},
	{kErfcx, {-2.0}, 108.940904389977972412, true},
	{kRhypot, {3.0, 4.0}, 0.2, true},
	{kRhypot, {1.5, 2.25}, 0.369800130816819414679, true},
	{kRhypot, {1e200, 1e200}, 7.07106781186547545803e-201, false},
	{kNorm3d, {3.0, 4.0, 12.0}, 13.0, true},
	{kNorm3d, {1.5, -2.25, 0.125}, 2.70705097846346440022, true},
	{kNorm3d, {1e200, 1e200, 1e200}, 1.7320508075688772411e+200, false},
	{kNorm3d, {1e-200, 2e-200, 2e-200}, 2.9999999999999999463e-200, false},
	{kRnorm3d, {3.0, 4.0, 12.0}, 0.0769230769230769230769, true},
	{kNorm4d, {1.0, 2.0, 3.0, 4.0}, 5.47722557505166113457, true},
	{kNorm4d, {1e300, -1e300, 1e300, 1e300}, 2.00000000000000010501e+300, false},
	{kRnorm4d, {1.0, 2.0, 3.0, 4.0}, 0.182574185835055371152, true},
	{kNorm, {1.0, 2.0, 3.0, 4.0}, 5.47722557505166113457, true},
	{kRnorm, {1.0, 2.0, 3.0, 4.0}, 0.182574185835055371152, true},
	{kBesselI0, {1.0}, 1.2660658777520083356, true},
	{kBesselI0, {10.0}, 2815.71662846625447147, true},
	{kBesselI0, {50.0}, 293255378384933632665.0, true},
	{kBesselI0, {-3.5}, 7.37820343222547966034, true},
	{kBesselI0, {700.0}, 1.52959334767187373632e+302, false},
	{kBesselI1, {1.0}, 0.565159103992485027208, true},
	{kBesselI1, {10.0}, 2670.98830370125465434, true},
	{kBesselI1, {50.0}, 290307859010355679675.0, true},
	{kBesselI1, {-3.5}, -6.20583492225836547362, true},
	{kBesselI1, {700.0}, 1.52850039023390068815e+302, false},
};
constexpr int kCaseCount = sizeof(kCases) / sizeof(kCases[0]);

// The same source on both sides: host code gets the host functions, device
// code clang's device ones.
__host__ __device__ double evaluate(int fn, const double *v)
{
	double s, c;
	switch (fn) {
	case kRsqrt: return rsqrt(v[0]);
	case kRcbrt: return rcbrt(v[0]);
	case kSinpi: return sinpi(v[0]);
	case kCospi: return cospi(v[0]);
	case kSincospiSin: sincospi(v[0], &s, &c); return s;
	case kSincospiCos: sincospi(v[0], &s, &c); return c;
	case kNormcdf: return normcdf(v[0]);
	case kNormcdfinv: return normcdfinv(v[0]);
	case kErfinv: return erfinv(v[0]);
	case kErfcinv: return erfcinv(v[0]);
	case kErfcx: return erfcx(v[0]);
	case kRhypot: return rhypot(v[0], v[1]);
	case kNorm3d: return norm3d(v[0], v[1], v[2]);
	case kRnorm3d: return rnorm3d(v[0], v[1], v[2]);
	case kNorm4d: return norm4d(v[0], v[1], v[2], v[3]);
	case kRnorm4d: return rnorm4d(v[0], v[1], v[2], v[3]);
	case kNorm: return norm(4, v);
	case kRnorm: return rnorm(4, v);
	case kBesselI0: return cyl_bessel_i0(v[0]);
	case kBesselI1: return cyl_bessel_i1(v[0]);
	}
	return 0;
}

__host__ __device__ float evaluatef(int fn, const float *v)
{
	float s, c;
	switch (fn) {
	case kRsqrt: return rsqrtf(v[0]);
	case kRcbrt: return rcbrtf(v[0]);
	case kSinpi: return sinpif(v[0]);
	case kCospi: return cospif(v[0]);
	case kSincospiSin: sincospif(v[0], &s, &c); return s;
	case kSincospiCos: sincospif(v[0], &s, &c); return c;
	case kNormcdf: return normcdff(v[0]);
	case kNormcdfinv: return normcdfinvf(v[0]);
	case kErfinv: return erfinvf(v[0]);
	case kErfcinv: return erfcinvf(v[0]);
	case kErfcx: return erfcxf(v[0]);
	case kRhypot: return rhypotf(v[0], v[1]);
	case kNorm3d: return norm3df(v[0], v[1], v[2]);
	case kRnorm3d: return rnorm3df(v[0], v[1], v[2]);
	case kNorm4d: return norm4df(v[0], v[1], v[2], v[3]);
	case kRnorm4d: return rnorm4df(v[0], v[1], v[2], v[3]);
	case kNorm: return normf(4, v);
	case kRnorm: return rnormf(4, v);
	case kBesselI0: return cyl_bessel_i0f(v[0]);
	case kBesselI1: return cyl_bessel_i1f(v[0]);
	}
	return 0;
}

struct Inputs {
	double d[4];
	float f[4];
};

__global__ void run(const int *fns, const Inputs *in, double *out, float *outf, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		out[i] = evaluate(fns[i], in[i].d);
		outf[i] = evaluatef(fns[i], in[i].f);
	}
}

int main()
{
	int fns[kCaseCount];
	Inputs in[kCaseCount];
	for (int i = 0; i < kCaseCount; ++i) {
		fns[i] = kCases[i].fn;
		for (int k = 0; k < 4; ++k) {
			in[i].d[k] = kCases[i].in[k];
			in[i].f[k] = static_cast<float>(kCases[i].in[k]);
		}
	}
	int *dfns;
	Inputs *din;
	double *dout;
	float *doutf;
	CHECK_CUDA(cudaMalloc(&dfns, sizeof(fns)));
	CHECK_CUDA(cudaMalloc(&din, sizeof(in)));
	CHECK_CUDA(cudaMalloc(&dout, sizeof(double) * kCaseCount));
	CHECK_CUDA(cudaMalloc(&doutf, sizeof(float) * kCaseCount));
	CHECK_CUDA(cudaMemcpy(dfns, fns, sizeof(fns), cudaMemcpyHostToDevice));
	CHECK_CUDA(cudaMemcpy(din, in, sizeof(in), cudaMemcpyHostToDevice));
	run<<<1, 64>>>(dfns, din, dout, doutf, kCaseCount);
	CHECK_LAUNCH();
	double device[kCaseCount];
	float devicef[kCaseCount];
	CHECK_CUDA(cudaMemcpy(device, dout, sizeof(device), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(devicef, doutf, sizeof(devicef), cudaMemcpyDeviceToHost));

	bool ok = true;
	for (int i = 0; i < kCaseCount; ++i) {
		const Case &c = kCases[i];
		const auto &bound = kBounds[c.fn];
		const double host = evaluate(c.fn, in[i].d);
		const struct {
			const char *side;
			double got;
		} doubles[] = {{"host", host}, {"device", device[i]}};
		for (const auto &d : doubles) {
			const int64_t ulps = ulp_distance(d.got, c.want);
			if (ulps > bound.double_ulp) {
				std::printf("failed: %s %s(%g): %.17g, want %.17g (%lld ulp, CUDA's bound %d)\n",
					    d.side, bound.name, c.in[0], d.got, c.want,
					    static_cast<long long>(ulps), bound.double_ulp);
				ok = false;
			}
		}
		if (!c.in_float)
			continue;
		const float wantf = static_cast<float>(c.want);
		const struct {
			const char *side;
			float got;
		} floats[] = {{"host", evaluatef(c.fn, in[i].f)}, {"device", devicef[i]}};
		for (const auto &f : floats) {
			const int64_t ulps = ulp_distance(f.got, wantf);
			if (ulps > bound.float_ulp) {
				std::printf("failed: %s %sf(%g): %.9g, want %.9g (%lld ulp, CUDA's bound %d)\n",
					    f.side, bound.name, c.in[0], f.got, wantf,
					    static_cast<long long>(ulps), bound.float_ulp);
				ok = false;
			}
		}
	}
	std::printf("%d known answers of %d functions, host and device, double and float\n",
		    kCaseCount, kFnCount);
	return report("math_host", ok);
}
