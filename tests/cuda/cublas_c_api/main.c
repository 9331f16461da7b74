/* SPDX-License-Identifier: MIT */
/*
 * cuBLAS from C: cublas_v2.h compiles as C, as NVIDIA's does, and a C
 * program links -lcublas. y = 2 x + y on four floats, exact in float,
 * checked against the same sum on the host.
 */
#include <cublas_v2.h>
#include <stdio.h>

int main(void)
{
	const float x[4] = {1, -2, 3.5f, 4}, y[4] = {10, 20, -30, 40}, alpha = 2;
	float result[4];
	float *dx = NULL, *dy = NULL;
	cublasHandle_t handle;
	int ok = cublasCreate(&handle) == CUBLAS_STATUS_SUCCESS;
	ok = ok && cudaMalloc((void **)&dx, sizeof x) == cudaSuccess;
	ok = ok && cudaMalloc((void **)&dy, sizeof y) == cudaSuccess;
	ok = ok && cublasSetVector(4, sizeof(float), x, 1, dx, 1) == CUBLAS_STATUS_SUCCESS;
	ok = ok && cublasSetVector(4, sizeof(float), y, 1, dy, 1) == CUBLAS_STATUS_SUCCESS;
	ok = ok && cublasSaxpy(handle, 4, &alpha, dx, 1, dy, 1) == CUBLAS_STATUS_SUCCESS;
	ok = ok && cublasGetVector(4, sizeof(float), dy, 1, result, 1) == CUBLAS_STATUS_SUCCESS;
	for (int i = 0; ok && i < 4; ++i)
		if (result[i] != y[i] + alpha * x[i]) {
			printf("failed: y[%d] = %g, want %g\n", i, result[i], y[i] + alpha * x[i]);
			ok = 0;
		}
	cudaFree(dx);
	cudaFree(dy);
	ok = cublasDestroy(handle) == CUBLAS_STATUS_SUCCESS && ok;
	printf("cublas_c_api: %s\n", ok ? "PASS" : "FAIL");
	return ok ? 0 : 1;
}
