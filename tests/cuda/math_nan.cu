// SPDX-License-Identifier: MIT
// nan(), nanf() and std::nan in device code, the host side of the same
// __host__ __device__ function, and isnan on both (cuda-samples' interval
// calls ::nan("") in a __host__ __device__ member). Checked with the CPU's
// isnan and by the NaN's defining property, x != x.
#include <cmath>
#include <cuda_runtime.h>

#include "test_util.h"

struct Rounding {
	__host__ __device__ double nan_double() { return ::nan(""); }
	__host__ __device__ float nan_float() { return nanf(""); }
};

__global__ void nans(double *d, float *f, int *flags)
{
	Rounding r;
	d[0] = r.nan_double();
	d[1] = std::nan("");
	d[2] = nan("0x7");
	f[0] = r.nan_float();
	f[1] = std::nanf("");
	flags[0] = isnan(d[0]) && isnan(d[1]) && isnan(d[2]) && isnan(f[0]) && isnan(f[1]);
	flags[1] = d[0] != d[0] && f[0] != f[0];
	flags[2] = isnan(1.0 / 3.0) || isnan(2.5f);
}

int main()
{
	double *dd, hd[3];
	float *df, hf[2];
	int *dflags, flags[3];
	CHECK_CUDA(cudaMalloc(&dd, sizeof(hd)));
	CHECK_CUDA(cudaMalloc(&df, sizeof(hf)));
	CHECK_CUDA(cudaMalloc(&dflags, sizeof(flags)));
	nans<<<1, 1>>>(dd, df, dflags);
	CHECK_LAUNCH();
	CHECK_CUDA(cudaMemcpy(hd, dd, sizeof(hd), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(hf, df, sizeof(hf), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(flags, dflags, sizeof(flags), cudaMemcpyDeviceToHost));
	Rounding r;
	bool ok = std::isnan(r.nan_double()) && std::isnan(r.nan_float());
	for (double v : hd)
		ok &= std::isnan(v);
	for (float v : hf)
		ok &= std::isnan(v);
	ok &= flags[0] == 1 && flags[1] == 1 && flags[2] == 0;
	CHECK_CUDA(cudaFree(dd));
	CHECK_CUDA(cudaFree(df));
	CHECK_CUDA(cudaFree(dflags));
	return report("math_nan", ok);
}
