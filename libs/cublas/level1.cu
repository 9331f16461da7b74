// SPDX-License-Identifier: MIT
// cuBLAS Level 1: vector-vector routines (axpy, scal, copy, swap, dot,
// nrm2, asum, i?amax/i?amin, rot), each one template over the element type.
// Reductions run in one block; their result goes to the user's device
// pointer (pointer mode device) or through the handle's scratch to the host.
#include "blas_internal.h"

namespace simtblas {
namespace {

// ---- Element-wise kernels ----

template <class T, class TS>
__global__ void axpy_kernel(int n, Scalar<TS> alpha, const T *x, int incx, T *y, int incy) {
    const TS a = alpha.get();
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        y[vector_offset(i, n, incy)] =
            y[vector_offset(i, n, incy)] + a * x[vector_offset(i, n, incx)];
}

template <class T, class TS> __global__ void scal_kernel(int n, Scalar<TS> alpha, T *x, int incx) {
    const TS a = alpha.get();
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        x[i * incx] = a * x[i * incx];
}

template <class T> __global__ void copy_kernel(int n, const T *x, int incx, T *y, int incy) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        y[vector_offset(i, n, incy)] = x[vector_offset(i, n, incx)];
}

template <class T> __global__ void swap_kernel(int n, T *x, int incx, T *y, int incy) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        const T t = x[vector_offset(i, n, incx)];
        x[vector_offset(i, n, incx)] = y[vector_offset(i, n, incy)];
        y[vector_offset(i, n, incy)] = t;
    }
}

// x' = c x + s y, y' = c y - conj(s) x (BLAS's ?rot; s real for the real types and csrot).
template <class T, class TC, class TS>
__global__ void rot_kernel(int n, T *x, int incx, T *y, int incy, Scalar<TC> c_arg,
                           Scalar<TS> s_arg) {
    const TC c = c_arg.get();
    const TS s = s_arg.get();
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        const T xi = x[vector_offset(i, n, incx)], yi = y[vector_offset(i, n, incy)];
        x[vector_offset(i, n, incx)] = c * xi + s * yi;
        y[vector_offset(i, n, incy)] = c * yi - conj(s) * xi;
    }
}

// ---- Reductions (one block of kBlockThreads) ----

template <class T, class Combine> __device__ T block_reduce(T value, T *shared, Combine combine) {
    shared[threadIdx.x] = value;
    __syncthreads();
    for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half)
            shared[threadIdx.x] = combine(shared[threadIdx.x], shared[threadIdx.x + half]);
        __syncthreads();
    }
    const T result = shared[0];
    __syncthreads();
    return result;
}

template <class T> struct Sum {
    __device__ T operator()(T a, T b) const { return a + b; }
};

template <class T>
__global__ void __launch_bounds__(kBlockThreads)
    dot_kernel(int n, const T *x, int incx, const T *y, int incy, bool conjugate, T *result) {
    __shared__ T partial[kBlockThreads];
    T sum = zero<T>();
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
        const T xi = x[vector_offset(i, n, incx)];
        sum = sum + (conjugate ? conj(xi) : xi) * y[vector_offset(i, n, incy)];
    }
    sum = block_reduce(sum, partial, Sum<T>());
    if (threadIdx.x == 0)
        *result = sum;
}

template <class T>
__global__ void __launch_bounds__(kBlockThreads)
    asum_kernel(int n, const T *x, int incx, real_t<T> *result) {
    using R = real_t<T>;
    __shared__ R partial[kBlockThreads];
    R sum = 0;
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        sum += abs1(x[(long long)i * incx]);
    sum = block_reduce(sum, partial, Sum<R>());
    if (threadIdx.x == 0)
        *result = sum;
}

// The Euclidean norm scaled by the largest component first, so that the
// squares neither overflow nor underflow (as reference BLAS's dnrm2).
template <class T> __device__ inline real_t<T> largest_component(T x) {
    if constexpr (is_complex<T>)
        return fabs(x.x) > fabs(x.y) ? fabs(x.x) : fabs(x.y);
    else
        return fabs(x);
}
template <class T> __device__ inline real_t<T> scaled_square(T x, real_t<T> inverse_scale) {
    if constexpr (is_complex<T>) {
        const real_t<T> re = x.x * inverse_scale, im = x.y * inverse_scale;
        return re * re + im * im;
    } else {
        const T v = x * inverse_scale;
        return v * v;
    }
}
template <class T> struct Max {
    __device__ T operator()(T a, T b) const { return a > b ? a : b; }
};

template <class T>
__global__ void __launch_bounds__(kBlockThreads)
    nrm2_kernel(int n, const T *x, int incx, real_t<T> *result) {
    using R = real_t<T>;
    __shared__ R partial[kBlockThreads];
    R scale = 0;
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        scale = Max<R>()(scale, largest_component(x[(long long)i * incx]));
    scale = block_reduce(scale, partial, Max<R>());
    if (scale == 0 || isinf(scale)) {
        if (threadIdx.x == 0)
            *result = scale;
        return;
    }
    const R inverse = R(1) / scale;
    R sum = 0;
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        sum += scaled_square(x[(long long)i * incx], inverse);
    sum = block_reduce(sum, partial, Sum<R>());
    if (threadIdx.x == 0)
        *result = scale * sqrt(sum);
}

// The first (1-based) index of the largest (smallest) |Re x| + |Im x|.
template <class R> struct Extremum {
    R value;
    int index;
};
template <class R> struct PickExtremum {
    bool largest;
    __device__ Extremum<R> operator()(Extremum<R> a, Extremum<R> b) const {
        if (a.index == 0)
            return b;
        if (b.index == 0)
            return a;
        const bool b_better = largest ? b.value > a.value : b.value < a.value;
        if (b_better || (b.value == a.value && b.index < a.index))
            return b;
        return a;
    }
};

template <class T>
__global__ void __launch_bounds__(kBlockThreads)
    iamax_kernel(int n, const T *x, int incx, bool largest, int *result) {
    using R = real_t<T>;
    __shared__ Extremum<R> partial[kBlockThreads];
    const PickExtremum<R> pick{largest};
    Extremum<R> best{0, 0};
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        best = pick(best, Extremum<R>{abs1(x[(long long)i * incx]), i + 1});
    best = block_reduce(best, partial, pick);
    if (threadIdx.x == 0)
        *result = best.index;
}

// ---- Host side: checks, then the launch ----

// Where a reduction writes: the user's pointer in device mode, else the scratch.
template <class R> R *result_target(cublasHandle_t handle, R *result) {
    return handle->pointer_mode == CUBLAS_POINTER_MODE_DEVICE ? result
                                                              : (R *)handle->result_scratch;
}

// A reduction over nothing: 0 written where the result goes.
template <class R>
cublasStatus_t empty_result(const char *function, cublasHandle_t handle, R *result) {
    if (handle->pointer_mode == CUBLAS_POINTER_MODE_HOST) {
        *result = zero<R>();
        return CUBLAS_STATUS_SUCCESS;
    }
    const R value = zero<R>();
    cudaError_t error =
        cudaMemcpyAsync(result, &value, sizeof value, cudaMemcpyHostToDevice, handle->stream);
    if (error == cudaSuccess) // the value on this stack must be copied before it goes
        error = cudaStreamSynchronize(handle->stream);
    if (error == cudaSuccess)
        return CUBLAS_STATUS_SUCCESS;
    return report(CUBLAS_STATUS_EXECUTION_FAILED, function, "writing the result failed: %s (%s)",
                  cudaGetErrorName(error), cudaGetErrorString(error));
}

template <class R>
cublasStatus_t finish_reduction(const char *function, cublasHandle_t handle, R *result) {
    const cublasStatus_t status = launched(function);
    if (status != CUBLAS_STATUS_SUCCESS || handle->pointer_mode == CUBLAS_POINTER_MODE_DEVICE)
        return status;
    return copy_result_to_host(function, handle, result, sizeof(R));
}

template <class T, class TS>
cublasStatus_t axpy(const char *function, cublasHandle_t handle, int n, const TS *alpha, const T *x,
                    int incx, T *y, int incy) {
    ArgCheck check(function, handle);
    check.pointer("alpha", alpha).increment("incx", incx).increment("incy", incy);
    if (!check.ok())
        return check.status();
    if (n <= 0)
        return CUBLAS_STATUS_SUCCESS;
    check.pointer("x", x).pointer("y", y);
    if (!check.ok())
        return check.status();
    axpy_kernel<<<blocks_for(n), kBlockThreads, 0, handle->stream>>>(
        n, scalar_argument(handle, alpha), x, incx, y, incy);
    return launched(function);
}

template <class T, class TS>
cublasStatus_t scal(const char *function, cublasHandle_t handle, int n, const TS *alpha, T *x,
                    int incx) {
    ArgCheck check(function, handle);
    check.pointer("alpha", alpha);
    if (!check.ok())
        return check.status();
    if (n <= 0 || incx <= 0) // BLAS: nothing to do
        return CUBLAS_STATUS_SUCCESS;
    check.pointer("x", x);
    if (!check.ok())
        return check.status();
    scal_kernel<<<blocks_for(n), kBlockThreads, 0, handle->stream>>>(
        n, scalar_argument(handle, alpha), x, incx);
    return launched(function);
}

template <class T>
cublasStatus_t copy(const char *function, cublasHandle_t handle, int n, const T *x, int incx, T *y,
                    int incy) {
    ArgCheck check(function, handle);
    check.increment("incx", incx).increment("incy", incy);
    if (!check.ok() || n <= 0)
        return check.status();
    check.pointer("x", x).pointer("y", y);
    if (!check.ok())
        return check.status();
    copy_kernel<<<blocks_for(n), kBlockThreads, 0, handle->stream>>>(n, x, incx, y, incy);
    return launched(function);
}

template <class T>
cublasStatus_t swap(const char *function, cublasHandle_t handle, int n, T *x, int incx, T *y,
                    int incy) {
    ArgCheck check(function, handle);
    check.increment("incx", incx).increment("incy", incy);
    if (!check.ok() || n <= 0)
        return check.status();
    check.pointer("x", x).pointer("y", y);
    if (!check.ok())
        return check.status();
    swap_kernel<<<blocks_for(n), kBlockThreads, 0, handle->stream>>>(n, x, incx, y, incy);
    return launched(function);
}

template <class T, class TC, class TS>
cublasStatus_t rot(const char *function, cublasHandle_t handle, int n, T *x, int incx, T *y,
                   int incy, const TC *c, const TS *s) {
    ArgCheck check(function, handle);
    check.pointer("c", c).pointer("s", s).increment("incx", incx).increment("incy", incy);
    if (!check.ok() || n <= 0)
        return check.status();
    check.pointer("x", x).pointer("y", y);
    if (!check.ok())
        return check.status();
    rot_kernel<<<blocks_for(n), kBlockThreads, 0, handle->stream>>>(
        n, x, incx, y, incy, scalar_argument(handle, c), scalar_argument(handle, s));
    return launched(function);
}

template <class T>
cublasStatus_t dot(const char *function, cublasHandle_t handle, int n, const T *x, int incx,
                   const T *y, int incy, T *result, bool conjugate) {
    ArgCheck check(function, handle);
    check.pointer("result", result).increment("incx", incx).increment("incy", incy);
    if (!check.ok())
        return check.status();
    if (n <= 0)
        return empty_result(function, handle, result);
    check.pointer("x", x).pointer("y", y);
    if (!check.ok())
        return check.status();
    dot_kernel<<<1, kBlockThreads, 0, handle->stream>>>(n, x, incx, y, incy, conjugate,
                                                        result_target(handle, result));
    return finish_reduction(function, handle, result);
}

// nrm2 and asum: n <= 0 or incx <= 0 give 0, as BLAS.
template <class T>
cublasStatus_t norm(const char *function, cublasHandle_t handle, int n, const T *x, int incx,
                    real_t<T> *result, bool euclidean) {
    ArgCheck check(function, handle);
    check.pointer("result", result);
    if (!check.ok())
        return check.status();
    if (n <= 0 || incx <= 0)
        return empty_result(function, handle, result);
    check.pointer("x", x);
    if (!check.ok())
        return check.status();
    if (euclidean)
        nrm2_kernel<<<1, kBlockThreads, 0, handle->stream>>>(n, x, incx,
                                                             result_target(handle, result));
    else
        asum_kernel<<<1, kBlockThreads, 0, handle->stream>>>(n, x, incx,
                                                             result_target(handle, result));
    return finish_reduction(function, handle, result);
}

template <class T>
cublasStatus_t iamax(const char *function, cublasHandle_t handle, int n, const T *x, int incx,
                     int *result, bool largest) {
    ArgCheck check(function, handle);
    check.pointer("result", result);
    if (!check.ok())
        return check.status();
    if (n <= 0 || incx <= 0)
        return empty_result(function, handle, result);
    check.pointer("x", x);
    if (!check.ok())
        return check.status();
    iamax_kernel<<<1, kBlockThreads, 0, handle->stream>>>(n, x, incx, largest,
                                                          result_target(handle, result));
    return finish_reduction(function, handle, result);
}

} // namespace
} // namespace simtblas

using namespace simtblas;
using cxf = cuComplex;
using cxd = cuDoubleComplex;

extern "C" {

cublasStatus_t cublasSnrm2_v2(cublasHandle_t h, int n, const float *x, int incx, float *r) {
    return norm("cublasSnrm2_v2", h, n, x, incx, r, true);
}
cublasStatus_t cublasDnrm2_v2(cublasHandle_t h, int n, const double *x, int incx, double *r) {
    return norm("cublasDnrm2_v2", h, n, x, incx, r, true);
}
cublasStatus_t cublasScnrm2_v2(cublasHandle_t h, int n, const cxf *x, int incx, float *r) {
    return norm("cublasScnrm2_v2", h, n, x, incx, r, true);
}
cublasStatus_t cublasDznrm2_v2(cublasHandle_t h, int n, const cxd *x, int incx, double *r) {
    return norm("cublasDznrm2_v2", h, n, x, incx, r, true);
}

cublasStatus_t cublasSasum_v2(cublasHandle_t h, int n, const float *x, int incx, float *r) {
    return norm("cublasSasum_v2", h, n, x, incx, r, false);
}
cublasStatus_t cublasDasum_v2(cublasHandle_t h, int n, const double *x, int incx, double *r) {
    return norm("cublasDasum_v2", h, n, x, incx, r, false);
}
cublasStatus_t cublasScasum_v2(cublasHandle_t h, int n, const cxf *x, int incx, float *r) {
    return norm("cublasScasum_v2", h, n, x, incx, r, false);
}
cublasStatus_t cublasDzasum_v2(cublasHandle_t h, int n, const cxd *x, int incx, double *r) {
    return norm("cublasDzasum_v2", h, n, x, incx, r, false);
}

cublasStatus_t cublasSdot_v2(cublasHandle_t h, int n, const float *x, int incx, const float *y,
                             int incy, float *r) {
    return dot("cublasSdot_v2", h, n, x, incx, y, incy, r, false);
}
cublasStatus_t cublasDdot_v2(cublasHandle_t h, int n, const double *x, int incx, const double *y,
                             int incy, double *r) {
    return dot("cublasDdot_v2", h, n, x, incx, y, incy, r, false);
}
cublasStatus_t cublasCdotu_v2(cublasHandle_t h, int n, const cxf *x, int incx, const cxf *y,
                              int incy, cxf *r) {
    return dot("cublasCdotu_v2", h, n, x, incx, y, incy, r, false);
}
cublasStatus_t cublasCdotc_v2(cublasHandle_t h, int n, const cxf *x, int incx, const cxf *y,
                              int incy, cxf *r) {
    return dot("cublasCdotc_v2", h, n, x, incx, y, incy, r, true);
}
cublasStatus_t cublasZdotu_v2(cublasHandle_t h, int n, const cxd *x, int incx, const cxd *y,
                              int incy, cxd *r) {
    return dot("cublasZdotu_v2", h, n, x, incx, y, incy, r, false);
}
cublasStatus_t cublasZdotc_v2(cublasHandle_t h, int n, const cxd *x, int incx, const cxd *y,
                              int incy, cxd *r) {
    return dot("cublasZdotc_v2", h, n, x, incx, y, incy, r, true);
}

cublasStatus_t cublasSscal_v2(cublasHandle_t h, int n, const float *a, float *x, int incx) {
    return scal("cublasSscal_v2", h, n, a, x, incx);
}
cublasStatus_t cublasDscal_v2(cublasHandle_t h, int n, const double *a, double *x, int incx) {
    return scal("cublasDscal_v2", h, n, a, x, incx);
}
cublasStatus_t cublasCscal_v2(cublasHandle_t h, int n, const cxf *a, cxf *x, int incx) {
    return scal("cublasCscal_v2", h, n, a, x, incx);
}
cublasStatus_t cublasCsscal_v2(cublasHandle_t h, int n, const float *a, cxf *x, int incx) {
    return scal("cublasCsscal_v2", h, n, a, x, incx);
}
cublasStatus_t cublasZscal_v2(cublasHandle_t h, int n, const cxd *a, cxd *x, int incx) {
    return scal("cublasZscal_v2", h, n, a, x, incx);
}
cublasStatus_t cublasZdscal_v2(cublasHandle_t h, int n, const double *a, cxd *x, int incx) {
    return scal("cublasZdscal_v2", h, n, a, x, incx);
}

cublasStatus_t cublasSaxpy_v2(cublasHandle_t h, int n, const float *a, const float *x, int incx,
                              float *y, int incy) {
    return axpy("cublasSaxpy_v2", h, n, a, x, incx, y, incy);
}
cublasStatus_t cublasDaxpy_v2(cublasHandle_t h, int n, const double *a, const double *x, int incx,
                              double *y, int incy) {
    return axpy("cublasDaxpy_v2", h, n, a, x, incx, y, incy);
}
cublasStatus_t cublasCaxpy_v2(cublasHandle_t h, int n, const cxf *a, const cxf *x, int incx, cxf *y,
                              int incy) {
    return axpy("cublasCaxpy_v2", h, n, a, x, incx, y, incy);
}
cublasStatus_t cublasZaxpy_v2(cublasHandle_t h, int n, const cxd *a, const cxd *x, int incx, cxd *y,
                              int incy) {
    return axpy("cublasZaxpy_v2", h, n, a, x, incx, y, incy);
}

cublasStatus_t cublasScopy_v2(cublasHandle_t h, int n, const float *x, int incx, float *y,
                              int incy) {
    return copy("cublasScopy_v2", h, n, x, incx, y, incy);
}
cublasStatus_t cublasDcopy_v2(cublasHandle_t h, int n, const double *x, int incx, double *y,
                              int incy) {
    return copy("cublasDcopy_v2", h, n, x, incx, y, incy);
}
cublasStatus_t cublasCcopy_v2(cublasHandle_t h, int n, const cxf *x, int incx, cxf *y, int incy) {
    return copy("cublasCcopy_v2", h, n, x, incx, y, incy);
}
cublasStatus_t cublasZcopy_v2(cublasHandle_t h, int n, const cxd *x, int incx, cxd *y, int incy) {
    return copy("cublasZcopy_v2", h, n, x, incx, y, incy);
}

cublasStatus_t cublasSswap_v2(cublasHandle_t h, int n, float *x, int incx, float *y, int incy) {
    return swap("cublasSswap_v2", h, n, x, incx, y, incy);
}
cublasStatus_t cublasDswap_v2(cublasHandle_t h, int n, double *x, int incx, double *y, int incy) {
    return swap("cublasDswap_v2", h, n, x, incx, y, incy);
}
cublasStatus_t cublasCswap_v2(cublasHandle_t h, int n, cxf *x, int incx, cxf *y, int incy) {
    return swap("cublasCswap_v2", h, n, x, incx, y, incy);
}
cublasStatus_t cublasZswap_v2(cublasHandle_t h, int n, cxd *x, int incx, cxd *y, int incy) {
    return swap("cublasZswap_v2", h, n, x, incx, y, incy);
}

cublasStatus_t cublasIsamax_v2(cublasHandle_t h, int n, const float *x, int incx, int *r) {
    return iamax("cublasIsamax_v2", h, n, x, incx, r, true);
}
cublasStatus_t cublasIdamax_v2(cublasHandle_t h, int n, const double *x, int incx, int *r) {
    return iamax("cublasIdamax_v2", h, n, x, incx, r, true);
}
cublasStatus_t cublasIcamax_v2(cublasHandle_t h, int n, const cxf *x, int incx, int *r) {
    return iamax("cublasIcamax_v2", h, n, x, incx, r, true);
}
cublasStatus_t cublasIzamax_v2(cublasHandle_t h, int n, const cxd *x, int incx, int *r) {
    return iamax("cublasIzamax_v2", h, n, x, incx, r, true);
}
cublasStatus_t cublasIsamin_v2(cublasHandle_t h, int n, const float *x, int incx, int *r) {
    return iamax("cublasIsamin_v2", h, n, x, incx, r, false);
}
cublasStatus_t cublasIdamin_v2(cublasHandle_t h, int n, const double *x, int incx, int *r) {
    return iamax("cublasIdamin_v2", h, n, x, incx, r, false);
}
cublasStatus_t cublasIcamin_v2(cublasHandle_t h, int n, const cxf *x, int incx, int *r) {
    return iamax("cublasIcamin_v2", h, n, x, incx, r, false);
}
cublasStatus_t cublasIzamin_v2(cublasHandle_t h, int n, const cxd *x, int incx, int *r) {
    return iamax("cublasIzamin_v2", h, n, x, incx, r, false);
}

cublasStatus_t cublasSrot_v2(cublasHandle_t h, int n, float *x, int incx, float *y, int incy,
                             const float *c, const float *s) {
    return rot("cublasSrot_v2", h, n, x, incx, y, incy, c, s);
}
cublasStatus_t cublasDrot_v2(cublasHandle_t h, int n, double *x, int incx, double *y, int incy,
                             const double *c, const double *s) {
    return rot("cublasDrot_v2", h, n, x, incx, y, incy, c, s);
}
cublasStatus_t cublasCrot_v2(cublasHandle_t h, int n, cxf *x, int incx, cxf *y, int incy,
                             const float *c, const cxf *s) {
    return rot("cublasCrot_v2", h, n, x, incx, y, incy, c, s);
}
cublasStatus_t cublasCsrot_v2(cublasHandle_t h, int n, cxf *x, int incx, cxf *y, int incy,
                              const float *c, const float *s) {
    return rot("cublasCsrot_v2", h, n, x, incx, y, incy, c, s);
}
cublasStatus_t cublasZrot_v2(cublasHandle_t h, int n, cxd *x, int incx, cxd *y, int incy,
                             const double *c, const cxd *s) {
    return rot("cublasZrot_v2", h, n, x, incx, y, incy, c, s);
}
cublasStatus_t cublasZdrot_v2(cublasHandle_t h, int n, cxd *x, int incx, cxd *y, int incy,
                              const double *c, const double *s) {
    return rot("cublasZdrot_v2", h, n, x, incx, y, incy, c, s);
}

} // extern "C"
