// SPDX-License-Identifier: MIT
// Math functions at their domain and range errors: picolibc sets errno (a
// thread-local variable) on these paths, which the entry wrapper of every
// kernel gives a home in the thread's own stack. Results must be the IEEE
// special values, as on the host, and nothing may fault.
#include "test_util.h"

__global__ void errors(const float *x, const double *y, float *fout, double *dout)
{
	int t = threadIdx.x;
	fout[4 * t + 0] = logf(x[t]);    // x < 0: NaN (EDOM)
	fout[4 * t + 1] = acosf(x[t] - 3.0f); // |x| > 1: NaN
	fout[4 * t + 2] = expf(-x[t] * 200.0f); // overflow: +inf (ERANGE)
	fout[4 * t + 3] = powf(x[t], 0.5f); // negative base, fractional power: NaN
	dout[2 * t + 0] = log(y[t]);
	dout[2 * t + 1] = exp(-y[t] * 2000.0);
}

int main()
{
	const int threads = 32;
	float x[threads], fout[4 * threads];
	double y[threads], dout[2 * threads];
	for (int t = 0; t < threads; ++t) {
		x[t] = -1.0f - t;
		y[t] = -0.5 - t;
	}
	float *dx, *dfout;
	double *dy, *ddout;
	CHECK_CUDA(cudaMalloc(&dx, sizeof(x)));
	CHECK_CUDA(cudaMalloc(&dy, sizeof(y)));
	CHECK_CUDA(cudaMalloc(&dfout, sizeof(fout)));
	CHECK_CUDA(cudaMalloc(&ddout, sizeof(dout)));
	CHECK_CUDA(cudaMemcpy(dx, x, sizeof(x), cudaMemcpyHostToDevice));
	CHECK_CUDA(cudaMemcpy(dy, y, sizeof(y), cudaMemcpyHostToDevice));
	errors<<<1, threads>>>(dx, dy, dfout, ddout);
	CHECK_LAUNCH();
	CHECK_CUDA(cudaMemcpy(fout, dfout, sizeof(fout), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(dout, ddout, sizeof(dout), cudaMemcpyDeviceToHost));
	bool ok = true;
	for (int t = 0; t < threads; ++t) {
		ok &= std::isnan(fout[4 * t + 0]) == std::isnan(std::log(x[t]));
		ok &= std::isnan(fout[4 * t + 1]) && std::isnan(fout[4 * t + 3]);
		ok &= std::isinf(fout[4 * t + 2]) && fout[4 * t + 2] > 0;
		ok &= std::isnan(dout[2 * t + 0]);
		ok &= std::isinf(dout[2 * t + 1]) && dout[2 * t + 1] > 0;
	}
	return report("math_errors", ok);
}
