// SPDX-License-Identifier: MIT
// cuComplex.h, as CUDA ships it: cuFloatComplex and cuDoubleComplex with
// their arithmetic, conjugate, absolute value, fused multiply-add and
// conversions, in a kernel and in host code, against std::complex<long
// double>; then division and absolute values whose squares would overflow
// (NVIDIA's functions scale first, and so must these).
#include <complex>

#include <cuComplex.h>

#include "test_util.h"

enum Op { kAdd, kSub, kMul, kDiv, kConj, kAbs, kFma, kRoundTrip, kOpCount };
const char *const kOpNames[kOpCount] = {"cuCadd", "cuCsub", "cuCmul", "cuCdiv",
					"cuConj", "cuCabs", "cuCfma", "conversions"};

__host__ __device__ cuFloatComplex applyf(int op, cuFloatComplex x, cuFloatComplex y,
					  cuFloatComplex d)
{
	switch (op) {
	case kAdd: return cuCaddf(x, y);
	case kSub: return cuCsubf(x, y);
	case kMul: return cuCmulf(x, y);
	case kDiv: return cuCdivf(x, y);
	case kConj: return cuConjf(x);
	case kAbs: return make_cuFloatComplex(cuCabsf(x), 0.0f);
	case kFma: return cuCfmaf(x, y, d);
	case kRoundTrip: return cuComplexDoubleToFloat(cuComplexFloatToDouble(x));
	}
	return make_cuComplex(0.0f, 0.0f);
}

__host__ __device__ cuDoubleComplex apply(int op, cuDoubleComplex x, cuDoubleComplex y,
					  cuDoubleComplex d)
{
	switch (op) {
	case kAdd: return cuCadd(x, y);
	case kSub: return cuCsub(x, y);
	case kMul: return cuCmul(x, y);
	case kDiv: return cuCdiv(x, y);
	case kConj: return cuConj(x);
	case kAbs: return make_cuDoubleComplex(cuCabs(x), 0.0);
	case kFma: return cuCfma(x, y, d);
	case kRoundTrip: return x;
	}
	return make_cuDoubleComplex(0.0, 0.0);
}

__global__ void run(const cuDoubleComplex *in, cuFloatComplex *outf, cuDoubleComplex *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	int op = blockIdx.y;
	if (i >= n)
		return;
	cuDoubleComplex x = in[3 * i], y = in[3 * i + 1], d = in[3 * i + 2];
	outf[op * n + i] = applyf(op, cuComplexDoubleToFloat(x), cuComplexDoubleToFloat(y),
				  cuComplexDoubleToFloat(d));
	out[op * n + i] = apply(op, x, y, d);
}

using Ref = std::complex<long double>;

Ref reference(int op, Ref x, Ref y, Ref d)
{
	switch (op) {
	case kAdd: return x + y;
	case kSub: return x - y;
	case kMul: return x * y;
	case kDiv: return x / y;
	case kConj: return std::conj(x);
	case kAbs: return std::abs(x);
	case kFma: return x * y + d;
	case kRoundTrip: return x;
	}
	return 0;
}

// |got - want| within `eps` of the size of the operation's operands and
// result (the scale at which each component's rounding happens).
bool close(Ref got, Ref want, long double scale, long double eps)
{
	return std::abs(got - want) <= eps * scale;
}

int main()
{
	const int n = 64;
	cuDoubleComplex in[3 * n];
	Rng rng(41);
	for (int i = 0; i < 3 * n; ++i)
		in[i] = make_cuDoubleComplex(rng.uniform(-100, 100), rng.uniform(-100, 100));
	// Operands whose naive squares overflow float: cuCdivf and cuCabsf scale.
	in[0] = make_cuDoubleComplex(3e37, 4e37);
	in[1] = make_cuDoubleComplex(2e37, -1e37);
	cuDoubleComplex *din, *dout;
	cuFloatComplex *doutf;
	CHECK_CUDA(cudaMalloc(&din, sizeof(in)));
	CHECK_CUDA(cudaMalloc(&dout, sizeof(cuDoubleComplex) * n * kOpCount));
	CHECK_CUDA(cudaMalloc(&doutf, sizeof(cuFloatComplex) * n * kOpCount));
	CHECK_CUDA(cudaMemcpy(din, in, sizeof(in), cudaMemcpyHostToDevice));
	run<<<dim3(1, kOpCount), n>>>(din, doutf, dout, n);
	CHECK_LAUNCH();
	static cuDoubleComplex out[n * kOpCount];
	static cuFloatComplex outf[n * kOpCount];
	CHECK_CUDA(cudaMemcpy(out, dout, sizeof(out), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(outf, doutf, sizeof(outf), cudaMemcpyDeviceToHost));

	bool ok = true;
	for (int op = 0; op < kOpCount; ++op) {
		int wrong = 0;
		for (int i = 0; i < n; ++i) {
			const cuDoubleComplex xd = in[3 * i], yd = in[3 * i + 1], dd = in[3 * i + 2];
			const cuFloatComplex xf = cuComplexDoubleToFloat(xd),
					     yf = cuComplexDoubleToFloat(yd),
					     df = cuComplexDoubleToFloat(dd);
			// The references take the float operands as the float functions saw them.
			const Ref x(cuCreal(xd), cuCimag(xd)), y(cuCreal(yd), cuCimag(yd)),
				d(cuCreal(dd), cuCimag(dd));
			const Ref xs(cuCrealf(xf), cuCimagf(xf)), ys(cuCrealf(yf), cuCimagf(yf)),
				ds(cuCrealf(df), cuCimagf(df));
			const Ref want = reference(op, x, y, d), wants = reference(op, xs, ys, ds);
			const long double scale = std::abs(x) * std::abs(y) + std::abs(x) + std::abs(y) +
						  std::abs(d) + std::abs(want);
			const long double scales = std::abs(xs) * std::abs(ys) + std::abs(xs) +
						   std::abs(ys) + std::abs(ds) + std::abs(wants);
			const cuDoubleComplex host = apply(op, xd, yd, dd);
			const cuFloatComplex hostf = applyf(op, xf, yf, df);
			const Ref results[] = {{cuCreal(out[op * n + i]), cuCimag(out[op * n + i])},
					       {cuCreal(host), cuCimag(host)}};
			const Ref resultsf[] = {{cuCrealf(outf[op * n + i]), cuCimagf(outf[op * n + i])},
						{cuCrealf(hostf), cuCimagf(hostf)}};
			bool good = true;
			for (const Ref &r : results)
				good &= close(r, want, scale, 8 * 1.1102230246251565e-16L);
			// A float result beyond float's range (the product of the two
			// large operands) has no float answer to compare.
			if (std::abs(wants) < 3e38L)
				for (const Ref &r : resultsf)
					good &= std::isfinite((double)r.real()) &&
						std::isfinite((double)r.imag()) &&
						close(r, wants, scales, 8 * 5.9604645e-8L);
			if (!good && wrong++ == 0)
				std::printf("failed: %s of (%g%+gi, %g%+gi): device %g%+gi host %g%+gi "
					    "(float), want %Lg%+Lgi\n",
					    kOpNames[op], cuCreal(xd), cuCimag(xd), cuCreal(yd), cuCimag(yd),
					    cuCrealf(outf[op * n + i]), cuCimagf(outf[op * n + i]),
					    cuCrealf(hostf), cuCimagf(hostf), wants.real(), wants.imag());
		}
		ok &= wrong == 0;
	}
	return report("cucomplex", ok);
}
