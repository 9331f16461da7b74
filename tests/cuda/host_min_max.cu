// SPDX-License-Identifier: MIT
// min and max in host code of a .cu, as NVIDIA's headers give them (transpose,
// threadFenceReduction, alignedTypes, shfl_scan call them), next to the device
// ones: both sides agree with std::min/std::max.
#include <algorithm>

#include "test_util.h"

__global__ void device_minmax(const int *a, const int *b, int *lo, int *hi, float *flo)
{
	int i = threadIdx.x;
	lo[i] = min(a[i], b[i]);
	hi[i] = max(a[i], b[i]);
	flo[i] = min(float(a[i]) * 0.5f, float(b[i]));
}

int main()
{
	const int n = 64;
	int a[n], b[n], lo[n], hi[n];
	float flo[n];
	Rng rng(3);
	for (int i = 0; i < n; ++i) {
		a[i] = rng.range(-100, 100);
		b[i] = rng.range(-100, 100);
	}
	int *da, *db, *dlo, *dhi;
	float *dflo;
	CHECK_CUDA(cudaMalloc(&da, sizeof(a)));
	CHECK_CUDA(cudaMalloc(&db, sizeof(b)));
	CHECK_CUDA(cudaMalloc(&dlo, sizeof(lo)));
	CHECK_CUDA(cudaMalloc(&dhi, sizeof(hi)));
	CHECK_CUDA(cudaMalloc(&dflo, sizeof(flo)));
	CHECK_CUDA(cudaMemcpy(da, a, sizeof(a), cudaMemcpyHostToDevice));
	CHECK_CUDA(cudaMemcpy(db, b, sizeof(b), cudaMemcpyHostToDevice));
	device_minmax<<<1, n>>>(da, db, dlo, dhi, dflo);
	CHECK_LAUNCH();
	CHECK_CUDA(cudaMemcpy(lo, dlo, sizeof(lo), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(hi, dhi, sizeof(hi), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(flo, dflo, sizeof(flo), cudaMemcpyDeviceToHost));
	bool ok = true;
	for (int i = 0; i < n; ++i) {
		ok &= lo[i] == std::min(a[i], b[i]) && min(a[i], b[i]) == lo[i];
		ok &= hi[i] == std::max(a[i], b[i]) && max(a[i], b[i]) == hi[i];
		ok &= flo[i] == min(float(a[i]) * 0.5f, float(b[i]));
		ok &= max(unsigned(i), i) == unsigned(i) && max(2.5, 1.0f) == 2.5;
		if (!ok) {
			std::printf("%d: %d %d lo %d hi %d flo %g\n", i, a[i], b[i], lo[i], hi[i], flo[i]);
			break;
		}
	}
	return report("host_min_max", ok);
}
