// SPDX-License-Identifier: MIT
// A 512 x 512 x 512 SGEMM by cublasSgemm (libs/cublas: shared-memory tiles,
// a 4 x 4 register tile a thread) beside a naive kernel (a thread per
// element of C, every operand from global memory). Both results are
// checked against each other within the GEMM error bound; the device cycles
// of each kernel come from SIMTGPU_STATS, read by bench/cublas/sgemm_bench.py.
#include <cublas_v2.h>

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void naive_sgemm(int n, const float *A, const float *B, float *C)
{
	const int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
	if (i >= n || j >= n)
		return;
	float sum = 0;
	for (int p = 0; p < n; ++p)
		sum += A[i + p * n] * B[p + j * n];
	C[i + j * n] = sum;
}

int main(int argc, char **argv)
{
	const int n = argc > 1 ? std::atoi(argv[1]) : 512;
	std::vector<float> A((size_t)n * n), B((size_t)n * n);
	unsigned state = 12345;
	for (float *v : {A.data(), B.data()})
		for (size_t e = 0; e < (size_t)n * n; ++e) {
			state = state * 1664525u + 1013904223u;
			v[e] = (state >> 8) * (2.0f / 16777216.0f) - 1.0f;
		}
	float *dA, *dB, *dC, *dN;
	const size_t bytes = sizeof(float) * n * n;
	if (cudaMalloc(&dA, bytes) || cudaMalloc(&dB, bytes) || cudaMalloc(&dC, bytes) || cudaMalloc(&dN, bytes)) {
		std::printf("sgemm_bench: cudaMalloc failed\n");
		return 1;
	}
	cudaMemcpy(dA, A.data(), bytes, cudaMemcpyHostToDevice);
	cudaMemcpy(dB, B.data(), bytes, cudaMemcpyHostToDevice);
	cublasHandle_t handle;
	if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS)
		return 1;
	const float one = 1, zero = 0;
	if (cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, dA, n, dB, n, &zero, dC, n) !=
	    CUBLAS_STATUS_SUCCESS)
		return 1;
	naive_sgemm<<<dim3((n + 15) / 16, (n + 15) / 16), dim3(16, 16)>>>(n, dA, dB, dN);
	if (cudaDeviceSynchronize() != cudaSuccess) {
		std::printf("sgemm_bench: a kernel failed\n");
		return 1;
	}
	std::vector<float> C((size_t)n * n), N((size_t)n * n);
	cudaMemcpy(C.data(), dC, bytes, cudaMemcpyDeviceToHost);
	cudaMemcpy(N.data(), dN, bytes, cudaMemcpyDeviceToHost);
	// Both within 2 n eps sum |a||b| of each other (each is within n eps of the truth).
	int misses = 0;
	for (int j = 0; j < n; ++j)
		for (int i = 0; i < n; ++i) {
			double size = 0;
			if (std::fabs(C[i + (size_t)j * n] - N[i + (size_t)j * n]) > 1e-30)
				for (int p = 0; p < n; ++p)
					size += std::fabs(A[i + (size_t)p * n] * B[p + (size_t)j * n]);
			misses += std::fabs(C[i + (size_t)j * n] - N[i + (size_t)j * n]) > 2 * n * FLT_EPSILON * size;
		}
	cublasDestroy(handle);
	std::printf("sgemm_bench: %dx%dx%d: %s\n", n, n, n, misses ? "FAIL" : "PASS");
	return misses ? 1 : 0;
}
