// SPDX-License-Identifier: MIT
// cuBLAS Level 2: matrix-vector routines (gemv, ger/geru/gerc, symv, trsv),
// each one template over the element type.
#include "blas_internal.h"
#include "triangular_solve.h"

namespace simtblas {
namespace {

// y = alpha op(A) x + beta y, op(A) rows x cols: a thread per element of y.
template <class T>
__global__ void gemv_kernel(int rows, int cols, Scalar<T> alpha_arg, const T *A, MatrixView a_view,
                            const T *x, int incx, Scalar<T> beta_arg, T *y, int incy) {
    const T alpha = alpha_arg.get(), beta = beta_arg.get();
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < rows;
         i += (long long)gridDim.x * blockDim.x) {
        T sum = zero<T>();
        if (!is_zero(alpha))
            for (int j = 0; j < cols; ++j)
                sum = sum + element(A, a_view, i, j) * x[vector_offset(j, cols, incx)];
        T &yi = y[vector_offset(i, rows, incy)];
        yi = is_zero(beta) ? alpha * sum : alpha * sum + beta * yi;
    }
}

// A += alpha x y^T (y conjugated for gerc): a thread per element of A.
template <class T>
__global__ void ger_kernel(int m, int n, Scalar<T> alpha_arg, const T *x, int incx, const T *y,
                           int incy, bool conjugate, T *A, int lda) {
    const T alpha = alpha_arg.get();
    const long long total = (long long)m * n;
    for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < total;
         e += (long long)gridDim.x * blockDim.x) {
        const long long i = e % m, j = e / m;
        const T yj = y[vector_offset(j, n, incy)];
        A[i + j * lda] =
            A[i + j * lda] + alpha * x[vector_offset(i, m, incx)] * (conjugate ? conj(yj) : yj);
    }
}

// y = alpha A x + beta y with A symmetric, only its uplo triangle read.
template <class T>
__global__ void symv_kernel(bool upper, int n, Scalar<T> alpha_arg, const T *A, int lda, const T *x,
                            int incx, Scalar<T> beta_arg, T *y, int incy) {
    const T alpha = alpha_arg.get(), beta = beta_arg.get();
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        T sum = zero<T>();
        if (!is_zero(alpha))
            for (long long j = 0; j < n; ++j) {
                const bool stored = upper ? i <= j : i >= j;
                const T aij = stored ? A[i + j * lda] : A[j + i * lda];
                sum = sum + aij * x[vector_offset(j, n, incx)];
            }
        T &yi = y[vector_offset(i, n, incy)];
        yi = is_zero(beta) ? alpha * sum : alpha * sum + beta * yi;
    }
}

template <class T>
__global__ void __launch_bounds__(kBlockThreads)
    trsv_kernel(const T *A, MatrixView a_view, bool lower, bool unit_diag, int n, T *x, int incx) {
    T *first = x + (incx < 0 ? (long long)(n - 1) * -(long long)incx : 0);
    block_triangular_solve(A, a_view, lower, unit_diag, n, one<T>(), first, incx);
}

template <class T>
cublasStatus_t gemv(const char *function, cublasHandle_t handle, cublasOperation_t trans, int m,
                    int n, const T *alpha, const T *A, int lda, const T *x, int incx, const T *beta,
                    T *y, int incy) {
    ArgCheck check(function, handle);
    check.op("trans", trans)
        .nonnegative("m", m)
        .nonnegative("n", n)
        .leading_dimension("lda", lda, "m", m)
        .increment("incx", incx)
        .increment("incy", incy)
        .pointer("alpha", alpha)
        .pointer("beta", beta);
    if (!check.ok() || m == 0 || n == 0)
        return check.status();
    check.pointer("A", A).pointer("x", x).pointer("y", y);
    if (!check.ok())
        return check.status();
    const bool transposed = trans != CUBLAS_OP_N;
    const int rows = transposed ? n : m, cols = transposed ? m : n;
    gemv_kernel<<<blocks_for(rows), kBlockThreads, 0, handle->stream>>>(
        rows, cols, scalar_argument(handle, alpha), A, op_view(trans, lda), x, incx,
        scalar_argument(handle, beta), y, incy);
    return launched(function);
}

template <class T>
cublasStatus_t ger(const char *function, cublasHandle_t handle, int m, int n, const T *alpha,
                   const T *x, int incx, const T *y, int incy, T *A, int lda, bool conjugate) {
    ArgCheck check(function, handle);
    check.nonnegative("m", m)
        .nonnegative("n", n)
        .increment("incx", incx)
        .increment("incy", incy)
        .leading_dimension("lda", lda, "m", m)
        .pointer("alpha", alpha);
    if (!check.ok() || m == 0 || n == 0)
        return check.status();
    check.pointer("x", x).pointer("y", y).pointer("A", A);
    if (!check.ok())
        return check.status();
    ger_kernel<<<blocks_for((long long)m * n), kBlockThreads, 0, handle->stream>>>(
        m, n, scalar_argument(handle, alpha), x, incx, y, incy, conjugate, A, lda);
    return launched(function);
}

template <class T>
cublasStatus_t symv(const char *function, cublasHandle_t handle, cublasFillMode_t uplo, int n,
                    const T *alpha, const T *A, int lda, const T *x, int incx, const T *beta, T *y,
                    int incy) {
    ArgCheck check(function, handle);
    check.fill("uplo", uplo)
        .nonnegative("n", n)
        .leading_dimension("lda", lda, "n", n)
        .increment("incx", incx)
        .increment("incy", incy)
        .pointer("alpha", alpha)
        .pointer("beta", beta);
    if (!check.ok() || n == 0)
        return check.status();
    check.pointer("A", A).pointer("x", x).pointer("y", y);
    if (!check.ok())
        return check.status();
    symv_kernel<<<blocks_for(n), kBlockThreads, 0, handle->stream>>>(
        uplo == CUBLAS_FILL_MODE_UPPER, n, scalar_argument(handle, alpha), A, lda, x, incx,
        scalar_argument(handle, beta), y, incy);
    return launched(function);
}

template <class T>
cublasStatus_t trsv(const char *function, cublasHandle_t handle, cublasFillMode_t uplo,
                    cublasOperation_t trans, cublasDiagType_t diag, int n, const T *A, int lda,
                    T *x, int incx) {
    ArgCheck check(function, handle);
    check.fill("uplo", uplo)
        .op("trans", trans)
        .diag("diag", diag)
        .nonnegative("n", n)
        .leading_dimension("lda", lda, "n", n)
        .increment("incx", incx);
    if (!check.ok() || n == 0)
        return check.status();
    check.pointer("A", A).pointer("x", x);
    if (!check.ok())
        return check.status();
    // op(A) is lower triangular when A is and op keeps it in place, or A is upper and op
    // transposes.
    const bool lower = (uplo == CUBLAS_FILL_MODE_LOWER) == (trans == CUBLAS_OP_N);
    trsv_kernel<<<1, kBlockThreads, 0, handle->stream>>>(A, op_view(trans, lda), lower,
                                                         diag == CUBLAS_DIAG_UNIT, n, x, incx);
    return launched(function);
}

} // namespace
} // namespace simtblas

using namespace simtblas;
using cxf = cuComplex;
using cxd = cuDoubleComplex;

extern "C" {

cublasStatus_t cublasSgemv_v2(cublasHandle_t h, cublasOperation_t t, int m, int n, const float *a,
                              const float *A, int lda, const float *x, int incx, const float *b,
                              float *y, int incy) {
    return gemv("cublasSgemv_v2", h, t, m, n, a, A, lda, x, incx, b, y, incy);
}
cublasStatus_t cublasDgemv_v2(cublasHandle_t h, cublasOperation_t t, int m, int n, const double *a,
                              const double *A, int lda, const double *x, int incx, const double *b,
                              double *y, int incy) {
    return gemv("cublasDgemv_v2", h, t, m, n, a, A, lda, x, incx, b, y, incy);
}
cublasStatus_t cublasCgemv_v2(cublasHandle_t h, cublasOperation_t t, int m, int n, const cxf *a,
                              const cxf *A, int lda, const cxf *x, int incx, const cxf *b, cxf *y,
                              int incy) {
    return gemv("cublasCgemv_v2", h, t, m, n, a, A, lda, x, incx, b, y, incy);
}
cublasStatus_t cublasZgemv_v2(cublasHandle_t h, cublasOperation_t t, int m, int n, const cxd *a,
                              const cxd *A, int lda, const cxd *x, int incx, const cxd *b, cxd *y,
                              int incy) {
    return gemv("cublasZgemv_v2", h, t, m, n, a, A, lda, x, incx, b, y, incy);
}

cublasStatus_t cublasSger_v2(cublasHandle_t h, int m, int n, const float *a, const float *x,
                             int incx, const float *y, int incy, float *A, int lda) {
    return ger("cublasSger_v2", h, m, n, a, x, incx, y, incy, A, lda, false);
}
cublasStatus_t cublasDger_v2(cublasHandle_t h, int m, int n, const double *a, const double *x,
                             int incx, const double *y, int incy, double *A, int lda) {
    return ger("cublasDger_v2", h, m, n, a, x, incx, y, incy, A, lda, false);
}
cublasStatus_t cublasCgeru_v2(cublasHandle_t h, int m, int n, const cxf *a, const cxf *x, int incx,
                              const cxf *y, int incy, cxf *A, int lda) {
    return ger("cublasCgeru_v2", h, m, n, a, x, incx, y, incy, A, lda, false);
}
cublasStatus_t cublasCgerc_v2(cublasHandle_t h, int m, int n, const cxf *a, const cxf *x, int incx,
                              const cxf *y, int incy, cxf *A, int lda) {
    return ger("cublasCgerc_v2", h, m, n, a, x, incx, y, incy, A, lda, true);
}
cublasStatus_t cublasZgeru_v2(cublasHandle_t h, int m, int n, const cxd *a, const cxd *x, int incx,
                              const cxd *y, int incy, cxd *A, int lda) {
    return ger("cublasZgeru_v2", h, m, n, a, x, incx, y, incy, A, lda, false);
}
cublasStatus_t cublasZgerc_v2(cublasHandle_t h, int m, int n, const cxd *a, const cxd *x, int incx,
                              const cxd *y, int incy, cxd *A, int lda) {
    return ger("cublasZgerc_v2", h, m, n, a, x, incx, y, incy, A, lda, true);
}

cublasStatus_t cublasSsymv_v2(cublasHandle_t h, cublasFillMode_t u, int n, const float *a,
                              const float *A, int lda, const float *x, int incx, const float *b,
                              float *y, int incy) {
    return symv("cublasSsymv_v2", h, u, n, a, A, lda, x, incx, b, y, incy);
}
cublasStatus_t cublasDsymv_v2(cublasHandle_t h, cublasFillMode_t u, int n, const double *a,
                              const double *A, int lda, const double *x, int incx, const double *b,
                              double *y, int incy) {
    return symv("cublasDsymv_v2", h, u, n, a, A, lda, x, incx, b, y, incy);
}
cublasStatus_t cublasCsymv_v2(cublasHandle_t h, cublasFillMode_t u, int n, const cxf *a,
                              const cxf *A, int lda, const cxf *x, int incx, const cxf *b, cxf *y,
                              int incy) {
    return symv("cublasCsymv_v2", h, u, n, a, A, lda, x, incx, b, y, incy);
}
cublasStatus_t cublasZsymv_v2(cublasHandle_t h, cublasFillMode_t u, int n, const cxd *a,
                              const cxd *A, int lda, const cxd *x, int incx, const cxd *b, cxd *y,
                              int incy) {
    return symv("cublasZsymv_v2", h, u, n, a, A, lda, x, incx, b, y, incy);
}

cublasStatus_t cublasStrsv_v2(cublasHandle_t h, cublasFillMode_t u, cublasOperation_t t,
                              cublasDiagType_t d, int n, const float *A, int lda, float *x,
                              int incx) {
    return trsv("cublasStrsv_v2", h, u, t, d, n, A, lda, x, incx);
}
cublasStatus_t cublasDtrsv_v2(cublasHandle_t h, cublasFillMode_t u, cublasOperation_t t,
                              cublasDiagType_t d, int n, const double *A, int lda, double *x,
                              int incx) {
    return trsv("cublasDtrsv_v2", h, u, t, d, n, A, lda, x, incx);
}
cublasStatus_t cublasCtrsv_v2(cublasHandle_t h, cublasFillMode_t u, cublasOperation_t t,
                              cublasDiagType_t d, int n, const cxf *A, int lda, cxf *x, int incx) {
    return trsv("cublasCtrsv_v2", h, u, t, d, n, A, lda, x, incx);
}
cublasStatus_t cublasZtrsv_v2(cublasHandle_t h, cublasFillMode_t u, cublasOperation_t t,
                              cublasDiagType_t d, int n, const cxd *A, int lda, cxd *x, int incx) {
    return trsv("cublasZtrsv_v2", h, u, t, d, n, A, lda, x, incx);
}

} // extern "C"
