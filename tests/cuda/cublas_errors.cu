// SPDX-License-Identifier: MIT
// cuBLAS's helper functions and its status codes for bad arguments: each bad
// call must return the documented status (and print one line naming the
// argument), never crash, and leave its outputs alone. Also the handle's
// stream, pointer, math and atomics modes, workspace, version, status names,
// and Set/GetVector/Matrix (+Async) with increments and leading dimensions
// against a host copy.
// simtcc-flags: -std=c++17 -lcublas -lblas
#include "cublas_test.h"

static bool expect_status(cublasStatus_t got, cublasStatus_t want, const char *what)
{
	if (got == want)
		return true;
	std::printf("failed: %s: got %s, want %s\n", what, cublasGetStatusName(got), cublasGetStatusName(want));
	return false;
}

#define EXPECT_STATUS(call, want) expect_status((call), (want), #call)

static bool test_handle(cublasHandle_t handle)
{
	bool ok = true;
	int version = 0, major = -1, minor = -1, patch = -1;
	ok &= EXPECT_STATUS(cublasGetVersion(handle, &version), CUBLAS_STATUS_SUCCESS);
	ok &= EXPECT_STATUS(cublasGetProperty(MAJOR_VERSION, &major), CUBLAS_STATUS_SUCCESS);
	ok &= EXPECT_STATUS(cublasGetProperty(MINOR_VERSION, &minor), CUBLAS_STATUS_SUCCESS);
	ok &= EXPECT_STATUS(cublasGetProperty(PATCH_LEVEL, &patch), CUBLAS_STATUS_SUCCESS);
	ok &= expect(version == CUBLAS_VERSION && version == major * 10000 + minor * 100 + patch,
		     "cublasGetVersion agrees with CUBLAS_VERSION and cublasGetProperty");
	ok &= expect(cublasGetCudartVersion() == CUDART_VERSION, "cublasGetCudartVersion");

	cudaStream_t stream, got_stream = nullptr;
	CHECK_CUDA(cudaStreamCreate(&stream));
	ok &= EXPECT_STATUS(cublasSetStream(handle, stream), CUBLAS_STATUS_SUCCESS);
	ok &= EXPECT_STATUS(cublasGetStream(handle, &got_stream), CUBLAS_STATUS_SUCCESS);
	ok &= expect(got_stream == stream, "cublasGetStream returns the stream set");

	cublasPointerMode_t pointer_mode;
	ok &= EXPECT_STATUS(cublasGetPointerMode(handle, &pointer_mode), CUBLAS_STATUS_SUCCESS);
	ok &= expect(pointer_mode == CUBLAS_POINTER_MODE_HOST, "pointer mode host by default");
	ok &= EXPECT_STATUS(cublasSetPointerMode(handle, (cublasPointerMode_t)7), CUBLAS_STATUS_INVALID_VALUE);
	cublasMath_t math;
	ok &= EXPECT_STATUS(cublasSetMathMode(handle, CUBLAS_TF32_TENSOR_OP_MATH), CUBLAS_STATUS_SUCCESS);
	ok &= EXPECT_STATUS(cublasGetMathMode(handle, &math), CUBLAS_STATUS_SUCCESS);
	ok &= expect(math == CUBLAS_TF32_TENSOR_OP_MATH, "cublasGetMathMode returns the mode set");
	ok &= EXPECT_STATUS(cublasSetMathMode(handle, (cublasMath_t)9), CUBLAS_STATUS_INVALID_VALUE);
	ok &= EXPECT_STATUS(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH), CUBLAS_STATUS_SUCCESS);
	cublasAtomicsMode_t atomics;
	ok &= EXPECT_STATUS(cublasSetAtomicsMode(handle, CUBLAS_ATOMICS_ALLOWED), CUBLAS_STATUS_SUCCESS);
	ok &= EXPECT_STATUS(cublasGetAtomicsMode(handle, &atomics), CUBLAS_STATUS_SUCCESS);
	ok &= expect(atomics == CUBLAS_ATOMICS_ALLOWED, "cublasGetAtomicsMode returns the mode set");

	void *workspace = nullptr;
	CHECK_CUDA(cudaMalloc(&workspace, 1 << 16));
	ok &= EXPECT_STATUS(cublasSetWorkspace(handle, workspace, 1 << 16), CUBLAS_STATUS_SUCCESS);
	ok &= EXPECT_STATUS(cublasSetWorkspace(handle, nullptr, 1024), CUBLAS_STATUS_INVALID_VALUE);
	ok &= EXPECT_STATUS(cublasSetWorkspace(handle, (char *)workspace + 4, 1024), CUBLAS_STATUS_INVALID_VALUE);

	// A routine on the handle's stream: the result is there after the stream.
	const std::vector<float> x = {1, -2, 3, -4};
	float *dx = to_device(x);
	const float two = 2;
	ok &= EXPECT_STATUS(cublasSscal(handle, 4, &two, dx, 1), CUBLAS_STATUS_SUCCESS);
	CHECK_CUDA(cudaStreamSynchronize(stream));
	const std::vector<float> scaled = to_host(dx, 4);
	ok &= expect(scaled[0] == 2 && scaled[3] == -8, "sscal on the handle's stream");
	ok &= EXPECT_STATUS(cublasSetStream(handle, 0), CUBLAS_STATUS_SUCCESS);
	cudaFree(dx);
	cudaFree(workspace);
	CHECK_CUDA(cudaStreamDestroy(stream));

	// A handle whose stream the program destroyed first still destroys cleanly.
	cublasHandle_t second;
	cudaStream_t short_lived;
	CHECK_CUBLAS(cublasCreate(&second));
	CHECK_CUDA(cudaStreamCreate(&short_lived));
	ok &= EXPECT_STATUS(cublasSetStream(second, short_lived), CUBLAS_STATUS_SUCCESS);
	CHECK_CUDA(cudaStreamDestroy(short_lived));
	ok &= EXPECT_STATUS(cublasDestroy(second), CUBLAS_STATUS_SUCCESS);

	ok &= expect(std::strcmp(cublasGetStatusName(CUBLAS_STATUS_INVALID_VALUE), "CUBLAS_STATUS_INVALID_VALUE") == 0,
		     "cublasGetStatusName");
	ok &= expect(std::strlen(cublasGetStatusString(CUBLAS_STATUS_NOT_SUPPORTED)) > 0, "cublasGetStatusString");
	return ok;
}

static bool test_copies()
{
	bool ok = true;
	// A 5 x 3 submatrix of a host matrix with lda 7 into a device one with ldb 6, and back.
	const int rows = 5, cols = 3, lda = 7, ldb = 6;
	std::vector<double> A(lda * cols), back(lda * cols, -1);
	for (size_t i = 0; i < A.size(); ++i)
		A[i] = (double)i;
	double *dB = nullptr;
	CHECK_CUDA(cudaMalloc(&dB, sizeof(double) * ldb * cols));
	ok &= EXPECT_STATUS(cublasSetMatrix(rows, cols, sizeof(double), A.data(), lda, dB, ldb), CUBLAS_STATUS_SUCCESS);
	ok &= EXPECT_STATUS(cublasGetMatrix(rows, cols, sizeof(double), dB, ldb, back.data(), lda),
			    CUBLAS_STATUS_SUCCESS);
	bool same = true;
	for (int j = 0; j < cols; ++j)
		for (int i = 0; i < lda; ++i)
			same &= back[i + j * lda] == (i < rows ? A[i + j * lda] : -1);
	ok &= expect(same, "SetMatrix/GetMatrix copy the submatrix and nothing else");

	// Every other element of x into every third of y (Async on a stream).
	cudaStream_t stream;
	CHECK_CUDA(cudaStreamCreate(&stream));
	const std::vector<float> x = {1, 9, 2, 9, 3, 9, 4};
	std::vector<float> y(10, 0);
	float *dv = nullptr;
	CHECK_CUDA(cudaMalloc(&dv, sizeof(float) * 4));
	ok &= EXPECT_STATUS(cublasSetVectorAsync(4, sizeof(float), x.data(), 2, dv, 1, stream), CUBLAS_STATUS_SUCCESS);
	ok &= EXPECT_STATUS(cublasGetVectorAsync(4, sizeof(float), dv, 1, y.data(), 3, stream), CUBLAS_STATUS_SUCCESS);
	CHECK_CUDA(cudaStreamSynchronize(stream));
	ok &= expect(y[0] == 1 && y[3] == 2 && y[6] == 3 && y[9] == 4 && y[1] == 0, "Set/GetVectorAsync with increments");
	ok &= EXPECT_STATUS(cublasSetMatrixAsync(rows, cols, sizeof(double), A.data(), lda, dB, ldb, stream),
			    CUBLAS_STATUS_SUCCESS);
	std::vector<double> back2(lda * cols, -1);
	ok &= EXPECT_STATUS(cublasGetMatrixAsync(rows, cols, sizeof(double), dB, ldb, back2.data(), lda, stream),
			    CUBLAS_STATUS_SUCCESS);
	CHECK_CUDA(cudaStreamSynchronize(stream));
	ok &= expect(back2 == back, "Set/GetMatrixAsync");

	// Bad arguments.
	ok &= EXPECT_STATUS(cublasSetVector(4, sizeof(float), x.data(), 0, dv, 1), CUBLAS_STATUS_INVALID_VALUE);
	ok &= EXPECT_STATUS(cublasSetVector(-1, sizeof(float), x.data(), 1, dv, 1), CUBLAS_STATUS_INVALID_VALUE);
	ok &= EXPECT_STATUS(cublasSetVector(4, 0, x.data(), 1, dv, 1), CUBLAS_STATUS_INVALID_VALUE);
	ok &= EXPECT_STATUS(cublasSetMatrix(rows, cols, sizeof(double), A.data(), 4, dB, ldb), CUBLAS_STATUS_INVALID_VALUE);
	ok &= EXPECT_STATUS(cublasGetMatrix(rows, cols, sizeof(double), dB, 4, back.data(), lda),
			    CUBLAS_STATUS_INVALID_VALUE);
	cudaFree(dB);
	cudaFree(dv);
	CHECK_CUDA(cudaStreamDestroy(stream));
	return ok;
}

static bool test_bad_arguments(cublasHandle_t handle)
{
	bool ok = true;
	float *d = nullptr;
	CHECK_CUDA(cudaMalloc(&d, sizeof(float) * 1024));
	CHECK_CUDA(cudaMemset(d, 0, sizeof(float) * 1024));
	const float one = 1;
	float result = 7;
	int index = 7;
	const auto N = CUBLAS_OP_N, T = CUBLAS_OP_T;
	const auto V = CUBLAS_STATUS_INVALID_VALUE;

	// No handle, a destroyed handle.
	ok &= EXPECT_STATUS(cublasCreate(nullptr), V);
	ok &= EXPECT_STATUS(cublasSgemm(nullptr, N, N, 2, 2, 2, &one, d, 2, d, 2, &one, d, 2),
			    CUBLAS_STATUS_NOT_INITIALIZED);
	cublasHandle_t dead;
	CHECK_CUBLAS(cublasCreate(&dead));
	CHECK_CUBLAS(cublasDestroy(dead));
	ok &= EXPECT_STATUS(cublasSaxpy(dead, 4, &one, d, 1, d, 1), CUBLAS_STATUS_NOT_INITIALIZED);
	ok &= EXPECT_STATUS(cublasDestroy(dead), CUBLAS_STATUS_NOT_INITIALIZED);

	// Level 3.
	ok &= EXPECT_STATUS(cublasSgemm(handle, (cublasOperation_t)5, N, 2, 2, 2, &one, d, 2, d, 2, &one, d, 2), V);
	ok &= EXPECT_STATUS(cublasSgemm(handle, N, N, -1, 2, 2, &one, d, 2, d, 2, &one, d, 2), V);
	ok &= EXPECT_STATUS(cublasSgemm(handle, N, N, 4, 2, 3, &one, d, 3, d, 3, &one, d, 4), V);  // lda < m
	ok &= EXPECT_STATUS(cublasSgemm(handle, T, N, 4, 2, 3, &one, d, 2, d, 3, &one, d, 4), V);  // lda < k
	ok &= EXPECT_STATUS(cublasSgemm(handle, N, T, 4, 2, 3, &one, d, 4, d, 1, &one, d, 4), V);  // ldb < n
	ok &= EXPECT_STATUS(cublasSgemm(handle, N, N, 4, 2, 3, &one, d, 4, d, 3, &one, d, 3), V);  // ldc < m
	ok &= EXPECT_STATUS(cublasSgemm(handle, N, N, 4, 2, 3, nullptr, d, 4, d, 3, &one, d, 4), V);
	ok &= EXPECT_STATUS(cublasSgemm(handle, N, N, 4, 2, 3, &one, nullptr, 4, d, 3, &one, d, 4), V);
	ok &= EXPECT_STATUS(cublasSgemmStridedBatched(handle, N, N, 2, 2, 2, &one, d, 2, 4, d, 2, 4, &one, d, 2, 4, -1), V);
	ok &= EXPECT_STATUS(cublasGemmEx(handle, N, N, 2, 2, 2, &one, d, CUDA_R_8I, 2, d, CUDA_R_8I, 2, &one, d,
					 CUDA_R_32I, 2, CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT),
			    CUBLAS_STATUS_NOT_SUPPORTED);
	ok &= EXPECT_STATUS(cublasGemmEx(handle, N, N, 2, 2, 2, &one, d, CUDA_R_16F, 2, d, CUDA_R_16F, 2, &one, d,
					 CUDA_R_16F, 2, CUBLAS_COMPUTE_64F, CUBLAS_GEMM_DEFAULT),
			    CUBLAS_STATUS_NOT_SUPPORTED);
	ok &= EXPECT_STATUS(cublasGemmEx(handle, N, N, 2, 2, 2, &one, d, CUDA_R_32F, 2, d, CUDA_R_32F, 2, &one, d,
					 CUDA_R_32F, 2, CUBLAS_COMPUTE_32F, (cublasGemmAlgo_t)42),
			    V);
	ok &= EXPECT_STATUS(cublasSsyrk(handle, CUBLAS_FILL_MODE_FULL, N, 2, 2, &one, d, 2, &one, d, 2), V);
	cuComplex cone = make_cuComplex(1, 0);
	ok &= EXPECT_STATUS(cublasCsyrk(handle, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_C, 2, 2, &cone, (cuComplex *)d, 2,
					&cone, (cuComplex *)d, 2),
			    V);
	ok &= EXPECT_STATUS(cublasStrsm(handle, (cublasSideMode_t)3, CUBLAS_FILL_MODE_LOWER, N, CUBLAS_DIAG_UNIT, 2, 2,
					&one, d, 2, d, 2),
			    V);
	ok &= EXPECT_STATUS(cublasStrsm(handle, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER, N, CUBLAS_DIAG_UNIT, 4, 3,
					&one, d, 2, d, 4),
			    V); // lda < n on the right
	ok &= EXPECT_STATUS(cublasStrsm(handle, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, N, (cublasDiagType_t)2, 2,
					2, &one, d, 2, d, 2),
			    V);
	ok &= EXPECT_STATUS(cublasSgeam(handle, T, N, 3, 3, &one, d, 3, &one, d + 64, 3, d, 3), V); // in place, transposed

	// Level 2.
	ok &= EXPECT_STATUS(cublasSgemv(handle, N, 4, 2, &one, d, 3, d, 1, &one, d, 1), V);
	ok &= EXPECT_STATUS(cublasSgemv(handle, N, 4, 2, &one, d, 4, d, 0, &one, d, 1), V);
	ok &= EXPECT_STATUS(cublasSger(handle, 4, 2, &one, d, 1, d, 0, d, 4), V);
	ok &= EXPECT_STATUS(cublasSsymv(handle, (cublasFillMode_t)4, 2, &one, d, 2, d, 1, &one, d, 1), V);
	ok &= EXPECT_STATUS(cublasStrsv(handle, CUBLAS_FILL_MODE_UPPER, (cublasOperation_t)9, CUBLAS_DIAG_UNIT, 2, d, 2,
					d, 1),
			    V);
	ok &= EXPECT_STATUS(cublasStrsv(handle, CUBLAS_FILL_MODE_UPPER, N, CUBLAS_DIAG_UNIT, -2, d, 2, d, 1), V);

	// Level 1.
	ok &= EXPECT_STATUS(cublasSaxpy(handle, 4, &one, d, 0, d, 1), V);
	ok &= EXPECT_STATUS(cublasSaxpy(handle, 4, nullptr, d, 1, d, 1), V);
	ok &= EXPECT_STATUS(cublasSdot(handle, 4, d, 1, d, 1, nullptr), V);
	ok &= EXPECT_STATUS(cublasScopy(handle, 4, d, 1, d, 0), V);
	ok &= EXPECT_STATUS(cublasIsamax(handle, 4, d, 1, nullptr), V);
	ok &= EXPECT_STATUS(cublasSrot(handle, 4, d, 1, d, 1, nullptr, &one), V);
	// Quick returns are successes that write 0: n <= 0, or incx <= 0 for nrm2, asum, i?amax.
	ok &= EXPECT_STATUS(cublasSnrm2(handle, 4, d, -1, &result), CUBLAS_STATUS_SUCCESS);
	ok &= expect(result == 0, "snrm2 with incx < 0 returns 0");
	ok &= EXPECT_STATUS(cublasIsamax(handle, 0, d, 1, &index), CUBLAS_STATUS_SUCCESS);
	ok &= expect(index == 0, "isamax with n = 0 returns 0");

	// The device is still fine: nothing above launched a bad kernel.
	CHECK_CUDA(cudaDeviceSynchronize());
	CHECK_CUDA(cudaGetLastError());
	cudaFree(d);
	return ok;
}

int main()
{
	cublasHandle_t handle;
	CHECK_CUBLAS(cublasCreate(&handle));
	bool ok = test_handle(handle);
	ok &= test_copies();
	ok &= test_bad_arguments(handle);
	CHECK_CUBLAS(cublasDestroy(handle));
	return report("cublas_errors", ok);
}
