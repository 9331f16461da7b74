// SPDX-License-Identifier: MIT
// rdc: relocatable device code. The kernels here call __device__ functions
// and use __device__ and __constant__ variables defined in device_lib.cu,
// and device_lib.cu calls back into this unit; the host sets those
// variables by symbol from this unit, which only declares them. Built three
// ways (tests/cuda/CMakeLists.txt): -dc then a link, -rdc=true in one
// command, and -dc, -dlink and a plain host link. Checked against the CPU.
#include <cuda_runtime.h>

#include "../test_util.h"
#include "device_lib.h"

#ifndef RDC_NAME
#define RDC_NAME "rdc"
#endif

static __device__ int calls_here = 0; // not device_lib.cu's calls_here

__device__ int clamp_depth(long long n, int depth)
{
	return depth > 1000 ? 0 : collatz_steps(n, depth);
}

__global__ void evaluate(const int *x, int *poly_out, int *steps_out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	atomicAdd(&calls_here, 2);
	poly_out[i] = poly(x[i]);
	steps_out[i] = collatz_steps(x[i] + 1000, 0);
}

__global__ void counts(int *out)
{
	out[0] = calls_here;
	out[1] = lib_calls();
}

static int cpu_steps(long long n)
{
	int steps = 0;
	for (; n != 1; ++steps)
		n = n % 2 ? 3 * n + 1 : n / 2;
	return steps;
}

int main()
{
	const int n = 300;
	const int coefficients[kPolyTerms] = {7, -3, 2, 1};
	const int offset = 11;
	int x[n];
	Rng rng(16);
	for (int i = 0; i < n; ++i)
		x[i] = static_cast<int>(rng.next() % 41) - 20;
	CHECK_CUDA(cudaMemcpyToSymbol(poly_coefficients, coefficients, sizeof(coefficients)));
	CHECK_CUDA(cudaMemcpyToSymbol(poly_offset, &offset, sizeof(offset)));
	int *dx, *dpoly, *dsteps, *dcounts;
	CHECK_CUDA(cudaMalloc(&dx, sizeof(x)));
	CHECK_CUDA(cudaMalloc(&dpoly, sizeof(x)));
	CHECK_CUDA(cudaMalloc(&dsteps, sizeof(x)));
	CHECK_CUDA(cudaMalloc(&dcounts, 2 * sizeof(int)));
	CHECK_CUDA(cudaMemcpy(dx, x, sizeof(x), cudaMemcpyHostToDevice));
	evaluate<<<(n + 63) / 64, 64>>>(dx, dpoly, dsteps, n);
	CHECK_LAUNCH();
	counts<<<1, 1>>>(dcounts);
	CHECK_LAUNCH();
	int got_poly[n], got_steps[n], got_counts[2], got_offset = 0;
	CHECK_CUDA(cudaMemcpy(got_poly, dpoly, sizeof(x), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(got_steps, dsteps, sizeof(x), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(got_counts, dcounts, sizeof(got_counts), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpyFromSymbol(&got_offset, poly_offset, sizeof(got_offset)));
	// A static __device__ variable read by the host: clang renames it per
	// translation unit, the same way in both passes.
	int got_calls_here = 0;
	CHECK_CUDA(cudaMemcpyFromSymbol(&got_calls_here, calls_here, sizeof(got_calls_here)));
	bool ok = got_offset == offset && got_calls_here == got_counts[0];
	for (int i = 0; i < n; ++i) {
		int want = 0;
		for (int t = kPolyTerms - 1; t >= 0; --t)
			want = want * x[i] + coefficients[t];
		ok &= got_poly[i] == want + offset;
		ok &= got_steps[i] == cpu_steps(x[i] + 1000);
	}
	ok &= got_counts[0] == 2 * n && got_counts[1] == n;
	if (!ok)
		std::printf("counts %d %d (want %d %d), offset %d\n", got_counts[0], got_counts[1],
			    2 * n, n, got_offset);
	CHECK_CUDA(cudaFree(dx));
	CHECK_CUDA(cudaFree(dpoly));
	CHECK_CUDA(cudaFree(dsteps));
	CHECK_CUDA(cudaFree(dcounts));
	return report(RDC_NAME, ok);
}
