/* SPDX-License-Identifier: MIT */
/*
 * What libcublas's routine families share (docs/libraries.md): the handle,
 * argument checks that name the bad argument on stderr as cuBLAS's logger
 * does, scalars read from host or device memory by the pointer mode, and
 * arithmetic written once for float, double, cuComplex and cuDoubleComplex
 * (and half, bfloat16 as storage types of GemmEx), so each routine is one
 * template over its element type.
 */
#ifndef SIMTGPU_LIBS_CUBLAS_INTERNAL_H
#define SIMTGPU_LIBS_CUBLAS_INTERNAL_H

#include <cublas_v2.h>

#include <stddef.h>
#include <stdint.h>

struct cublasContext {
    cudaStream_t stream = 0;
    cublasPointerMode_t pointer_mode = CUBLAS_POINTER_MODE_HOST;
    cublasAtomicsMode_t atomics_mode = CUBLAS_ATOMICS_NOT_ALLOWED;
    cublasMath_t math_mode = CUBLAS_DEFAULT_MATH;
    void *workspace = nullptr; // the user's (cublasSetWorkspace): no routine here needs one
    size_t workspace_bytes = 0;
    void *result_scratch = nullptr; // device memory for reductions returned to the host
    int sm_count = 1;               // the device's, for choosing GEMM tile sizes
};

namespace simtblas {

// Bytes of result_scratch: the largest result a reduction returns (a double complex).
constexpr size_t kResultScratchBytes = 64;
// Threads of a block of every kernel: within the smallest preset's SM (512).
constexpr int kBlockThreads = 256;

bool handle_is_live(cublasHandle_t handle);

// Prints "cuBLAS error: FUNCTION: MESSAGE" on stderr (one line) and returns status.
cublasStatus_t report(cublasStatus_t status, const char *function, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

// The checks each routine makes before it launches anything, in cuBLAS's
// order, each naming the argument; ok() is false after the first failure.
class ArgCheck {
public:
    ArgCheck(const char *function, cublasHandle_t handle);
    bool ok() const { return status_ == CUBLAS_STATUS_SUCCESS; }
    cublasStatus_t status() const { return status_; }
    const char *function() const { return function_; }

    ArgCheck &op(const char *name, cublasOperation_t value, bool conjugate_allowed = true);
    ArgCheck &fill(const char *name, cublasFillMode_t value);
    ArgCheck &diag(const char *name, cublasDiagType_t value);
    ArgCheck &side(const char *name, cublasSideMode_t value);
    ArgCheck &nonnegative(const char *name, long long value);
    ArgCheck &leading_dimension(const char *name, long long value, const char *rows_name,
                                long long rows);
    ArgCheck &increment(const char *name, int value);
    ArgCheck &pointer(const char *name, const void *value, bool needed = true);
    ArgCheck &fail(cublasStatus_t status, const char *format, ...)
        __attribute__((format(printf, 3, 4)));

private:
    const char *function_;
    cublasStatus_t status_ = CUBLAS_STATUS_SUCCESS;
};

// The status after a launch: EXECUTION_FAILED, naming the CUDA error, if the
// launch failed.
cublasStatus_t launched(const char *function);

// Copies a reduction's result from result_scratch to the user's host pointer
// (pointer mode host) once the handle's stream reaches it.
cublasStatus_t copy_result_to_host(const char *function, cublasHandle_t handle, void *result,
                                   size_t bytes);

// ---- Arithmetic over the element types ----

template <class T> struct RealOf { using type = T; };
template <> struct RealOf<cuComplex> { using type = float; };
template <> struct RealOf<cuDoubleComplex> { using type = double; };
template <class T> using real_t = typename RealOf<T>::type;

template <class T> inline constexpr bool is_complex = false;
template <> inline constexpr bool is_complex<cuComplex> = true;
template <> inline constexpr bool is_complex<cuDoubleComplex> = true;

__host__ __device__ inline cuComplex operator+(cuComplex a, cuComplex b) {
    return make_cuFloatComplex(a.x + b.x, a.y + b.y);
}
__host__ __device__ inline cuDoubleComplex operator+(cuDoubleComplex a, cuDoubleComplex b) {
    return make_cuDoubleComplex(a.x + b.x, a.y + b.y);
}
__host__ __device__ inline cuComplex operator-(cuComplex a, cuComplex b) {
    return make_cuFloatComplex(a.x - b.x, a.y - b.y);
}
__host__ __device__ inline cuDoubleComplex operator-(cuDoubleComplex a, cuDoubleComplex b) {
    return make_cuDoubleComplex(a.x - b.x, a.y - b.y);
}
__host__ __device__ inline cuComplex operator*(cuComplex a, cuComplex b) {
    return make_cuFloatComplex(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
__host__ __device__ inline cuDoubleComplex operator*(cuDoubleComplex a, cuDoubleComplex b) {
    return make_cuDoubleComplex(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
__host__ __device__ inline cuComplex operator*(float a, cuComplex b) {
    return make_cuFloatComplex(a * b.x, a * b.y);
}
__host__ __device__ inline cuDoubleComplex operator*(double a, cuDoubleComplex b) {
    return make_cuDoubleComplex(a * b.x, a * b.y);
}
__host__ __device__ inline cuComplex operator/(cuComplex a, cuComplex b) {
    return cuCdivf(a, b);
}
__host__ __device__ inline cuDoubleComplex operator/(cuDoubleComplex a, cuDoubleComplex b) {
    return cuCdiv(a, b);
}

template <class T> __host__ __device__ inline T zero() {
    return T(0);
}
template <> __host__ __device__ inline cuComplex zero<cuComplex>() {
    return make_cuFloatComplex(0, 0);
}
template <> __host__ __device__ inline cuDoubleComplex zero<cuDoubleComplex>() {
    return make_cuDoubleComplex(0, 0);
}
template <class T> __host__ __device__ inline T one() {
    return T(1);
}
template <> __host__ __device__ inline cuComplex one<cuComplex>() {
    return make_cuFloatComplex(1, 0);
}
template <> __host__ __device__ inline cuDoubleComplex one<cuDoubleComplex>() {
    return make_cuDoubleComplex(1, 0);
}

__host__ __device__ inline float conj(float x) {
    return x;
}
__host__ __device__ inline double conj(double x) {
    return x;
}
__host__ __device__ inline cuComplex conj(cuComplex x) {
    return cuConjf(x);
}
__host__ __device__ inline cuDoubleComplex conj(cuDoubleComplex x) {
    return cuConj(x);
}

__host__ __device__ inline bool is_zero(float x) {
    return x == 0.0f;
}
__host__ __device__ inline bool is_zero(double x) {
    return x == 0.0;
}
__host__ __device__ inline bool is_zero(cuComplex x) {
    return x.x == 0.0f && x.y == 0.0f;
}
__host__ __device__ inline bool is_zero(cuDoubleComplex x) {
    return x.x == 0.0 && x.y == 0.0;
}

// |Re x| + |Im x|: what BLAS's asum and i?amax measure.
__host__ __device__ inline float abs1(float x) {
    return fabsf(x);
}
__host__ __device__ inline double abs1(double x) {
    return fabs(x);
}
__host__ __device__ inline float abs1(cuComplex x) {
    return fabsf(x.x) + fabsf(x.y);
}
__host__ __device__ inline double abs1(cuDoubleComplex x) {
    return fabs(x.x) + fabs(x.y);
}

// Conversions between storage and compute types (GemmEx; the same type is a copy).
template <class To> struct Convert {
    template <class From> __host__ __device__ static To from(From x) { return To(x); }
};
template <> struct Convert<float> {
    __host__ __device__ static float from(float x) { return x; }
    __host__ __device__ static float from(__half x) { return __half2float(x); }
    __host__ __device__ static float from(__nv_bfloat16 x) { return __bfloat162float(x); }
};
template <> struct Convert<__half> {
    __host__ __device__ static __half from(float x) { return __float2half(x); }
    __host__ __device__ static __half from(__half x) { return x; }
};
template <> struct Convert<__nv_bfloat16> {
    __host__ __device__ static __nv_bfloat16 from(float x) { return __float2bfloat16(x); }
};
template <class To, class From> __host__ __device__ inline To convert(From x) {
    return Convert<To>::from(x);
}

// A scalar argument: its value (pointer mode host) or where it lies in
// device memory (pointer mode device), read by the kernel.
template <class T> struct Scalar {
    T value;
    const T *device;
    __device__ T get() const { return device ? *device : value; }
};
template <class T> Scalar<T> scalar_argument(cublasHandle_t handle, const T *pointer) {
    Scalar<T> s;
    if (handle->pointer_mode == CUBLAS_POINTER_MODE_DEVICE) {
        s.value = zero<T>();
        s.device = pointer;
    } else {
        s.value = *pointer;
        s.device = nullptr;
    }
    return s;
}

// op(A) of a column-major matrix as strides: element (i, j) of op(A) is
// base[i * row_stride + j * col_stride], conjugated if conjugate.
struct MatrixView {
    long long row_stride;
    long long col_stride;
    bool conjugate;
};
inline MatrixView op_view(cublasOperation_t op, int ld) {
    const bool transposed = op == CUBLAS_OP_T || op == CUBLAS_OP_C;
    MatrixView v;
    v.row_stride = transposed ? ld : 1;
    v.col_stride = transposed ? 1 : ld;
    v.conjugate = op == CUBLAS_OP_C || op == CUBLAS_OP_CONJG;
    return v;
}
template <class T>
__device__ inline T element(const T *base, const MatrixView &v, long long i, long long j) {
    const T x = base[i * v.row_stride + j * v.col_stride];
    if constexpr (is_complex<T>)
        return v.conjugate ? conj(x) : x;
    return x;
}

// Element i of an n-vector with increment inc (BLAS: a negative increment
// starts at the far end).
__host__ __device__ inline long long vector_offset(long long i, int n, int inc) {
    return inc >= 0 ? i * inc : (long long)(n - 1 - i) * -(long long)inc;
}

inline unsigned blocks_for(long long items, int threads = kBlockThreads) {
    const long long blocks = (items + threads - 1) / threads;
    return (unsigned)(blocks < 65535 ? (blocks > 0 ? blocks : 1) : 65535);
}

} // namespace simtblas

#endif
