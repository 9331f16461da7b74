// SPDX-License-Identifier: MIT
// cuBLAS Level 3 and its extensions: gemm (and Hgemm), gemmBatched,
// gemmStridedBatched, GemmEx, GemmBatchedEx, GemmStridedBatchedEx, syrk,
// trsm and geam. Every GEMM-shaped routine (syrk too: C = op(A) op(A)^T on
// one triangle) runs one kernel template over the storage types of A, B and
// C, the compute type and the scale type.
#include "blas_internal.h"
#include "triangular_solve.h"

namespace simtblas {
namespace {

// ---- The GEMM kernel ----

enum class Triangle { full, lower, upper }; // which part of C is written

template <class TA, class TB, class TC, class TS> struct GemmParams {
    int m, n, k;
    Scalar<TS> alpha, beta;
    const TA *A;
    const TA *const *A_array; // batched: a pointer per matrix, else A + batch * stride_a
    long long stride_a;
    MatrixView a_view;
    const TB *B;
    const TB *const *B_array;
    long long stride_b;
    MatrixView b_view;
    TC *C;
    TC *const *C_array;
    long long stride_c;
    int ldc;
    int batch_count;
    Triangle triangle;
};

// acc + a b, fused where the type has a fused multiply-add.
__device__ inline float multiply_add(float acc, float a, float b) {
    return fmaf(a, b, acc);
}
__device__ inline double multiply_add(double acc, double a, double b) {
    return fma(a, b, acc);
}
__device__ inline cuComplex multiply_add(cuComplex acc, cuComplex a, cuComplex b) {
    return make_cuFloatComplex(fmaf(-a.y, b.y, fmaf(a.x, b.x, acc.x)),
                               fmaf(a.y, b.x, fmaf(a.x, b.y, acc.y)));
}
__device__ inline cuDoubleComplex multiply_add(cuDoubleComplex acc, cuDoubleComplex a,
                                               cuDoubleComplex b) {
    return make_cuDoubleComplex(fma(-a.y, b.y, fma(a.x, b.x, acc.x)),
                                fma(a.y, b.x, fma(a.x, b.y, acc.y)));
}

// Each thread computes kThreadTile x kThreadTile elements of a BM x BN tile
// of C, rows ti + r * (BM / kThreadTile) and columns tj + c * (BN /
// kThreadTile), so a warp reads consecutive shared words of A's tile and
// broadcasts B's. Tiles of A (BM x BK) and B (BK x BN) are staged in shared
// memory in the compute type, converted once on the way in; B's rows are
// padded by one element so that its column-wise stores hit distinct banks.
// The next tiles' elements are loaded into registers while the current ones
// are multiplied, so the global loads' latency hides behind the arithmetic.
constexpr int kThreadTile = 4;

template <int BM, int BN> constexpr int gemm_threads() {
    return (BM / kThreadTile) * (BN / kThreadTile);
}

// An element as raw bits while it waits in a register: integer registers
// for the real types, which leaves the floating-point ones to the
// accumulators. Conjugation waits until the element is staged.
template <class T> struct RawBits { using type = T; };
template <> struct RawBits<float> { using type = uint32_t; };
template <> struct RawBits<double> { using type = uint64_t; };
template <> struct RawBits<__half> { using type = uint16_t; };
template <> struct RawBits<__nv_bfloat16> { using type = uint16_t; };
template <> struct RawBits<cuComplex> { using type = uint64_t; };

template <class T>
__device__ inline typename RawBits<T>::type load_raw(const T *base, const MatrixView &v,
                                                     long long i, long long j) {
    using Raw = typename RawBits<T>::type;
    return reinterpret_cast<const Raw *>(base)[i * v.row_stride + j * v.col_stride];
}

template <class Tc, class T>
__device__ inline Tc from_raw(typename RawBits<T>::type raw, bool conjugate) {
    T x;
    __builtin_memcpy(&x, &raw, sizeof x);
    if constexpr (is_complex<T>)
        x = conjugate ? conj(x) : x;
    return convert<Tc>(x);
}

template <class TA, class TB, class TC, class Tc, class TS, int BM, int BN, int BK>
__global__ void __launch_bounds__(gemm_threads<BM, BN>())
    gemm_kernel(GemmParams<TA, TB, TC, TS> p) {
    constexpr int TX = BM / kThreadTile, NT = gemm_threads<BM, BN>();
    constexpr int TY = BN / kThreadTile;
    constexpr int kAPerThread = BM * BK / NT, kBPerThread = BK * BN / NT;
    static_assert(NT % BM == 0 && NT % BK == 0 && BM * BK % NT == 0 && BK * BN % NT == 0,
                  "each thread loads whole rows' shares of the tiles");
    __shared__ Tc a_tile[BK][BM];
    __shared__ Tc b_tile[BK][BN + 1];
    const int tid = threadIdx.x, ti = tid % TX, tj = tid / TX;
    const long long row0 = (long long)blockIdx.x * BM, col0 = (long long)blockIdx.y * BN;
    const Tc alpha = convert<Tc>(p.alpha.get()), beta = convert<Tc>(p.beta.get());
    // This thread's first element of each tile, through a volatile once per
    // kernel: otherwise the compiler sees the tiles' fixed shared addresses,
    // hoists all BK x 8 element addresses out of the loop and spills them
    // (a stack load before every shared load); from an opaque base each
    // access is one load with an immediate offset.
    volatile uintptr_t opaque_a = (uintptr_t)&a_tile[0][ti], opaque_b = (uintptr_t)&b_tile[0][tj];
    const Tc *a_column = (const Tc *)opaque_a, *b_row = (const Tc *)opaque_b;
    // The same for where this thread stages its share of each tile.
    const int i_a = tid % BM, k_a = tid / BM, k_b = tid % BK, j_b = tid / BK;
    volatile uintptr_t opaque_a_share = (uintptr_t)&a_tile[k_a][i_a];
    volatile uintptr_t opaque_b_share = (uintptr_t)&b_tile[k_b][j_b];
    Tc *a_share = (Tc *)opaque_a_share, *b_share = (Tc *)opaque_b_share;

    for (int batch = blockIdx.z; batch < p.batch_count; batch += gridDim.z) {
        const TA *A = p.A_array ? p.A_array[batch] : p.A + batch * p.stride_a;
        const TB *B = p.B_array ? p.B_array[batch] : p.B + batch * p.stride_b;
        TC *C = p.C_array ? p.C_array[batch] : p.C + batch * p.stride_c;
        // alpha = 0: A and B are not read (BLAS), C = beta C.
        const int k = is_zero(alpha) ? 0 : p.k;
        typename RawBits<TA>::type a_next[kAPerThread];
        typename RawBits<TB>::type b_next[kBPerThread];
        // This thread's share of a tile: A's in one row (i_a) at every
        // (NT / BM)-th column from k_a, B's in one row (k_b) at every
        // (NT / BK)-th column from j_b; coalesced for op N.
        const bool row_a_inside = row0 + i_a < p.m;
        const TA *a_row = A + (row0 + i_a) * p.a_view.row_stride;
        const TB *b_base = B + (col0 + j_b) * p.b_view.col_stride;
        auto fetch = [&](int k0) __attribute__((always_inline)) {
#pragma unroll
            for (int q = 0; q < kAPerThread; ++q) {
                const long long gk = k0 + k_a + q * (NT / BM);
                a_next[q] = row_a_inside && gk < k ? load_raw(a_row, p.a_view, 0, gk)
                                                   : typename RawBits<TA>::type{};
            }
            const long long gk = k0 + k_b;
#pragma unroll
            for (int q = 0; q < kBPerThread; ++q) {
                const long long gj = col0 + j_b + q * (NT / BK);
                b_next[q] = gk < k && gj < p.n ? load_raw(b_base, p.b_view, gk, q * (NT / BK))
                                               : typename RawBits<TB>::type{};
            }
        };
        auto stage = [&]() __attribute__((always_inline)) {
#pragma unroll
            for (int q = 0; q < kAPerThread; ++q)
                a_share[q * (NT / BM) * BM] = from_raw<Tc, TA>(a_next[q], p.a_view.conjugate);
#pragma unroll
            for (int q = 0; q < kBPerThread; ++q)
                b_share[q * (NT / BK)] = from_raw<Tc, TB>(b_next[q], p.b_view.conjugate);
        };

        Tc acc[kThreadTile][kThreadTile];
        for (int r = 0; r < kThreadTile; ++r)
            for (int c = 0; c < kThreadTile; ++c)
                acc[r][c] = zero<Tc>();
        if (k > 0)
            fetch(0);
        for (int k0 = 0; k0 < k; k0 += BK) {
            stage();
            __syncthreads();
            if (k0 + BK < k)
                fetch(k0 + BK);
#pragma unroll
            for (int kk = 0; kk < BK; ++kk) {
                Tc a[kThreadTile], b[kThreadTile];
#pragma unroll
                for (int r = 0; r < kThreadTile; ++r)
                    a[r] = a_column[kk * BM + r * TX];
#pragma unroll
                for (int c = 0; c < kThreadTile; ++c)
                    b[c] = b_row[kk * (BN + 1) + c * TY];
#pragma unroll
                for (int r = 0; r < kThreadTile; ++r)
#pragma unroll
                    for (int c = 0; c < kThreadTile; ++c)
                        acc[r][c] = multiply_add(acc[r][c], a[r], b[c]);
            }
            __syncthreads();
        }
        for (int c = 0; c < kThreadTile; ++c) {
            const long long j = col0 + tj + c * TY;
            for (int r = 0; r < kThreadTile; ++r) {
                const long long i = row0 + ti + r * TX;
                if (i >= p.m || j >= p.n || (p.triangle == Triangle::lower && i < j) ||
                    (p.triangle == Triangle::upper && i > j))
                    continue;
                TC &out = C[i + j * p.ldc];
                // beta = 0: C is not read, so NaNs in it do not propagate (BLAS).
                const Tc value = is_zero(beta)
                                     ? alpha * acc[r][c]
                                     : multiply_add(alpha * acc[r][c], beta, convert<Tc>(out));
                out = convert<TC>(value);
            }
        }
    }
}

// ---- Launch ----

// What a GEMM-shaped call asks for, with device pointers (or pointer arrays)
// of untyped storage; the typed launch reads them as its template says.
struct GemmCall {
    const char *function;
    cublasHandle_t handle;
    cublasOperation_t transa, transb;
    int m, n, k;
    const void *alpha, *beta;
    const void *A;
    const void *const *A_array;
    int lda;
    long long stride_a;
    const void *B;
    const void *const *B_array;
    int ldb;
    long long stride_b;
    void *C;
    void *const *C_array;
    int ldc;
    long long stride_c;
    int batch_count;
    Triangle triangle;
    bool b_is_a_transposed; // syrk: B = op(A)^T, read through A
};

template <class TA, class TB, class TC, class Tc, class TS, int BM, int BN, int BK>
cublasStatus_t launch_tiles(const GemmCall &call, const GemmParams<TA, TB, TC, TS> &params) {
    const dim3 grid((call.m + BM - 1) / BM, (call.n + BN - 1) / BN,
                    call.batch_count < 65535 ? call.batch_count : 65535);
    gemm_kernel<TA, TB, TC, Tc, TS, BM, BN, BK>
        <<<grid, gemm_threads<BM, BN>(), 0, call.handle->stream>>>(params);
    return launched(call.function);
}

template <class TA, class TB, class TC, class Tc, class TS>
cublasStatus_t launch_gemm(const GemmCall &call) {
    GemmParams<TA, TB, TC, TS> p;
    p.m = call.m;
    p.n = call.n;
    p.k = call.k;
    p.alpha = scalar_argument(call.handle, (const TS *)call.alpha);
    p.beta = scalar_argument(call.handle, (const TS *)call.beta);
    p.A = (const TA *)call.A;
    p.A_array = (const TA *const *)call.A_array;
    p.stride_a = call.stride_a;
    p.a_view = op_view(call.transa, call.lda);
    if (call.b_is_a_transposed) {
        p.B = (const TB *)call.A;
        p.B_array = (const TB *const *)call.A_array;
        p.stride_b = call.stride_a;
        p.b_view = p.a_view;
        p.b_view.row_stride = p.a_view.col_stride;
        p.b_view.col_stride = p.a_view.row_stride;
    } else {
        p.B = (const TB *)call.B;
        p.B_array = (const TB *const *)call.B_array;
        p.stride_b = call.stride_b;
        p.b_view = op_view(call.transb, call.ldb);
    }
    p.C = (TC *)call.C;
    p.C_array = (TC *const *)call.C_array;
    p.stride_c = call.stride_c;
    p.ldc = call.ldc;
    p.batch_count = call.batch_count;
    p.triangle = call.triangle;
    // 64 x 64 tiles while they give every SM a block; 64 x 32 otherwise, so
    // that a 512 x 512 product still spreads over an 80-SM device. k steps
    // of 8: with 16 the next tiles' registers spill (measured under volta,
    // docs/libraries.md: 64 x 64 x 16 reached 2.5% of peak at 1024^3, x 8
    // 28.8%; at 512^3 64 x 32 x 8 18.8%, 64 x 64 x 8 17.1%, 64 x 32 x 16 8.1%).
    const long long big_tiles =
        (long long)((call.m + 63) / 64) * ((call.n + 63) / 64) * call.batch_count;
    if (big_tiles >= call.handle->sm_count)
        return launch_tiles<TA, TB, TC, Tc, TS, 64, 64, 8>(call, p);
    return launch_tiles<TA, TB, TC, Tc, TS, 64, 32, 8>(call, p);
}

// cuBLAS's checks of a GEMM's arguments, in its order.
ArgCheck check_gemm(const GemmCall &call) {
    ArgCheck check(call.function, call.handle);
    check.op("transa", call.transa)
        .op("transb", call.transb)
        .nonnegative("m", call.m)
        .nonnegative("n", call.n)
        .nonnegative("k", call.k)
        .leading_dimension("lda", call.lda, call.transa == CUBLAS_OP_N ? "m" : "k",
                           call.transa == CUBLAS_OP_N ? call.m : call.k)
        .leading_dimension("ldb", call.ldb, call.transb == CUBLAS_OP_N ? "k" : "n",
                           call.transb == CUBLAS_OP_N ? call.k : call.n)
        .leading_dimension("ldc", call.ldc, "m", call.m)
        .nonnegative("batchCount", call.batch_count)
        .pointer("alpha", call.alpha)
        .pointer("beta", call.beta);
    if (!check.ok() || call.m == 0 || call.n == 0 || call.batch_count == 0)
        return check;
    const bool batched_pointers = call.C_array != nullptr;
    check
        .pointer(batched_pointers ? "Aarray" : "A", batched_pointers ? call.A_array : call.A,
                 call.k > 0)
        .pointer(batched_pointers ? "Barray" : "B", batched_pointers ? call.B_array : call.B,
                 call.k > 0)
        .pointer(batched_pointers ? "Carray" : "C",
                 batched_pointers ? (void *)call.C_array : call.C);
    return check;
}

template <class TA, class TB, class TC, class Tc, class TS> cublasStatus_t gemm(GemmCall call) {
    const ArgCheck check = check_gemm(call);
    if (!check.ok() || call.m == 0 || call.n == 0 || call.batch_count == 0)
        return check.status();
    return launch_gemm<TA, TB, TC, Tc, TS>(call);
}

template <class T>
cublasStatus_t gemm_plain(const char *function, cublasHandle_t handle, cublasOperation_t transa,
                          cublasOperation_t transb, int m, int n, int k, const T *alpha, const T *A,
                          int lda, const T *B, int ldb, const T *beta, T *C, int ldc) {
    return gemm<T, T, T, T, T>(
        {function, handle, transa,  transb, m, n, k,       alpha, beta, A, nullptr,        lda,
         0,        B,      nullptr, ldb,    0, C, nullptr, ldc,   0,    1, Triangle::full, false});
}

template <class T>
cublasStatus_t gemm_batched(const char *function, cublasHandle_t handle, cublasOperation_t transa,
                            cublasOperation_t transb, int m, int n, int k, const T *alpha,
                            const T *const A[], int lda, const T *const B[], int ldb, const T *beta,
                            T *const C[], int ldc, int batch_count) {
    return gemm<T, T, T, T, T>({function,
                                handle,
                                transa,
                                transb,
                                m,
                                n,
                                k,
                                alpha,
                                beta,
                                nullptr,
                                (const void *const *)A,
                                lda,
                                0,
                                nullptr,
                                (const void *const *)B,
                                ldb,
                                0,
                                nullptr,
                                (void *const *)C,
                                ldc,
                                0,
                                batch_count,
                                Triangle::full,
                                false});
}

template <class T>
cublasStatus_t gemm_strided(const char *function, cublasHandle_t handle, cublasOperation_t transa,
                            cublasOperation_t transb, int m, int n, int k, const T *alpha,
                            const T *A, int lda, long long stride_a, const T *B, int ldb,
                            long long stride_b, const T *beta, T *C, int ldc, long long stride_c,
                            int batch_count) {
    return gemm<T, T, T, T, T>(
        {function, handle,      transa,         transb, m,       n,   k,        alpha, beta,    A,
         nullptr,  lda,         stride_a,       B,      nullptr, ldb, stride_b, C,     nullptr, ldc,
         stride_c, batch_count, Triangle::full, false});
}

// Half precision (Hgemm): half storage and scalars, accumulated in float.
cublasStatus_t gemm_half(GemmCall call) {
    return gemm<__half, __half, __half, float, __half>(call);
}

// ---- GemmEx: the combinations of storage and compute types CUDA allows ----

using GemmLaunch = cublasStatus_t (*)(GemmCall);

struct GemmExCombination {
    cublasComputeType_t compute;
    cudaDataType ab, c;
    GemmLaunch launch;
};

// cuBLAS's table for cublasGemmEx (int8 inputs are not implemented: they
// return NOT_SUPPORTED). Fast and pedantic modes compute in full precision,
// and fp16 compute accumulates in float (more exact than a GPU's half).
const GemmExCombination kGemmExCombinations[] = {
    {CUBLAS_COMPUTE_16F, CUDA_R_16F, CUDA_R_16F, gemm<__half, __half, __half, float, __half>},
    {CUBLAS_COMPUTE_16F_PEDANTIC, CUDA_R_16F, CUDA_R_16F,
     gemm<__half, __half, __half, float, __half>},
    {CUBLAS_COMPUTE_32F, CUDA_R_16BF, CUDA_R_16BF,
     gemm<__nv_bfloat16, __nv_bfloat16, __nv_bfloat16, float, float>},
    {CUBLAS_COMPUTE_32F, CUDA_R_16F, CUDA_R_16F, gemm<__half, __half, __half, float, float>},
    {CUBLAS_COMPUTE_32F, CUDA_R_16BF, CUDA_R_32F,
     gemm<__nv_bfloat16, __nv_bfloat16, float, float, float>},
    {CUBLAS_COMPUTE_32F, CUDA_R_16F, CUDA_R_32F, gemm<__half, __half, float, float, float>},
    {CUBLAS_COMPUTE_32F, CUDA_R_32F, CUDA_R_32F, gemm<float, float, float, float, float>},
    {CUBLAS_COMPUTE_32F, CUDA_C_32F, CUDA_C_32F,
     gemm<cuComplex, cuComplex, cuComplex, cuComplex, cuComplex>},
    {CUBLAS_COMPUTE_64F, CUDA_R_64F, CUDA_R_64F, gemm<double, double, double, double, double>},
    {CUBLAS_COMPUTE_64F, CUDA_C_64F, CUDA_C_64F,
     gemm<cuDoubleComplex, cuDoubleComplex, cuDoubleComplex, cuDoubleComplex, cuDoubleComplex>},
};

// The compute types that behave as another here: pedantic and fast variants.
cublasComputeType_t table_compute_type(cublasComputeType_t compute, cudaDataType ab) {
    switch (compute) {
    case CUBLAS_COMPUTE_32F_PEDANTIC:
        return CUBLAS_COMPUTE_32F;
    case CUBLAS_COMPUTE_32F_FAST_16F:
    case CUBLAS_COMPUTE_32F_FAST_16BF:
    case CUBLAS_COMPUTE_32F_FAST_TF32:
        // Only for fp32 inputs and outputs, real or complex.
        return ab == CUDA_R_32F || ab == CUDA_C_32F ? CUBLAS_COMPUTE_32F : compute;
    case CUBLAS_COMPUTE_64F_PEDANTIC:
        return CUBLAS_COMPUTE_64F;
    default:
        return compute;
    }
}

cublasStatus_t gemm_ex(GemmCall call, cudaDataType a_type, cudaDataType b_type, cudaDataType c_type,
                       cublasComputeType_t compute, cublasGemmAlgo_t algo) {
    ArgCheck check(call.function, call.handle);
    if (check.ok() &&
        !(algo == CUBLAS_GEMM_DEFAULT ||
          (algo >= CUBLAS_GEMM_ALGO0 && algo <= CUBLAS_GEMM_ALGO23) ||
          (algo >= CUBLAS_GEMM_DEFAULT_TENSOR_OP && algo <= CUBLAS_GEMM_ALGO15_TENSOR_OP)))
        check.fail(CUBLAS_STATUS_INVALID_VALUE,
                   "algo = %d is invalid: use CUBLAS_GEMM_DEFAULT or a CUBLAS_GEMM_ALGO value",
                   (int)algo);
    if (check.ok() && a_type != b_type)
        check.fail(CUBLAS_STATUS_NOT_SUPPORTED,
                   "Atype = %d and Btype = %d differ: cuBLAS takes A and B of one type",
                   (int)a_type, (int)b_type);
    if (!check.ok())
        return check.status();
    const cublasComputeType_t table_compute = table_compute_type(compute, a_type);
    for (const GemmExCombination &entry : kGemmExCombinations)
        if (entry.compute == table_compute && entry.ab == a_type && entry.c == c_type)
            return entry.launch(call);
    return report(CUBLAS_STATUS_NOT_SUPPORTED, call.function,
                  "computeType = %d with Atype = Btype = %d and Ctype = %d is not a combination "
                  "this cuBLAS implements (docs/libraries.md lists them)",
                  (int)compute, (int)a_type, (int)c_type);
}

// ---- syrk, trsm, geam ----

template <class T>
cublasStatus_t syrk(const char *function, cublasHandle_t handle, cublasFillMode_t uplo,
                    cublasOperation_t trans, int n, int k, const T *alpha, const T *A, int lda,
                    const T *beta, T *C, int ldc) {
    ArgCheck check(function, handle);
    // Complex syrk is symmetric, not Hermitian: CUBLAS_OP_C is refused there.
    check.fill("uplo", uplo)
        .op("trans", trans, !is_complex<T>)
        .nonnegative("n", n)
        .nonnegative("k", k)
        .leading_dimension("lda", lda, trans == CUBLAS_OP_N ? "n" : "k",
                           trans == CUBLAS_OP_N ? n : k)
        .leading_dimension("ldc", ldc, "n", n)
        .pointer("alpha", alpha)
        .pointer("beta", beta);
    if (!check.ok() || n == 0)
        return check.status();
    check.pointer("A", A, k > 0).pointer("C", C);
    if (!check.ok())
        return check.status();
    const cublasOperation_t op = trans == CUBLAS_OP_N ? CUBLAS_OP_N : CUBLAS_OP_T;
    return launch_gemm<T, T, T, T, T>(
        {function,
         handle,
         op,
         op,
         n,
         n,
         k,
         alpha,
         beta,
         A,
         nullptr,
         lda,
         0,
         nullptr,
         nullptr,
         0,
         0,
         C,
         nullptr,
         ldc,
         0,
         1,
         uplo == CUBLAS_FILL_MODE_LOWER ? Triangle::lower : Triangle::upper,
         true});
}

// A block per right-hand side: a column of B (left) or a row (right).
template <class T>
__global__ void __launch_bounds__(kBlockThreads)
    trsm_kernel(const T *A, MatrixView m_view, bool lower, bool unit_diag, int size, int count,
                Scalar<T> alpha_arg, T *B, long long rhs_stride, long long element_stride) {
    const T alpha = alpha_arg.get();
    for (int rhs = blockIdx.x; rhs < count; rhs += gridDim.x)
        block_triangular_solve(A, m_view, lower, unit_diag, size, alpha, B + rhs * rhs_stride,
                               element_stride);
}

template <class T>
cublasStatus_t trsm(const char *function, cublasHandle_t handle, cublasSideMode_t side,
                    cublasFillMode_t uplo, cublasOperation_t trans, cublasDiagType_t diag, int m,
                    int n, const T *alpha, const T *A, int lda, T *B, int ldb) {
    ArgCheck check(function, handle);
    const bool left = side == CUBLAS_SIDE_LEFT;
    check.side("side", side)
        .fill("uplo", uplo)
        .op("trans", trans)
        .diag("diag", diag)
        .nonnegative("m", m)
        .nonnegative("n", n)
        .leading_dimension("lda", lda, left ? "m" : "n", left ? m : n)
        .leading_dimension("ldb", ldb, "m", m)
        .pointer("alpha", alpha);
    if (!check.ok() || m == 0 || n == 0)
        return check.status();
    check.pointer("A", A).pointer("B", B);
    if (!check.ok())
        return check.status();
    // Left: op(A) X = alpha B, each column of B on its own. Right: X op(A) =
    // alpha B, i.e. op(A)^T x = alpha b for each row of B.
    MatrixView view = op_view(trans, lda);
    bool lower = (uplo == CUBLAS_FILL_MODE_LOWER) == (trans == CUBLAS_OP_N);
    if (!left) {
        const long long row_stride = view.row_stride;
        view.row_stride = view.col_stride;
        view.col_stride = row_stride;
        lower = !lower;
    }
    const int count = left ? n : m;
    const unsigned blocks = count < 65535 ? count : 65535;
    trsm_kernel<<<blocks, kBlockThreads, 0, handle->stream>>>(
        A, view, lower, diag == CUBLAS_DIAG_UNIT, left ? m : n, count,
        scalar_argument(handle, alpha), B, left ? ldb : 1, left ? 1 : ldb);
    return launched(function);
}

// C = alpha op(A) + beta op(B): a thread per element of C.
template <class T>
__global__ void geam_kernel(int m, int n, Scalar<T> alpha_arg, const T *A, MatrixView a_view,
                            Scalar<T> beta_arg, const T *B, MatrixView b_view, T *C, int ldc) {
    const T alpha = alpha_arg.get(), beta = beta_arg.get();
    const long long total = (long long)m * n;
    for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < total;
         e += (long long)gridDim.x * blockDim.x) {
        const long long i = e % m, j = e / m;
        T value = zero<T>();
        if (!is_zero(alpha))
            value = alpha * element(A, a_view, i, j);
        if (!is_zero(beta))
            value = value + beta * element(B, b_view, i, j);
        C[i + j * ldc] = value;
    }
}

template <class T>
cublasStatus_t geam(const char *function, cublasHandle_t handle, cublasOperation_t transa,
                    cublasOperation_t transb, int m, int n, const T *alpha, const T *A, int lda,
                    const T *beta, const T *B, int ldb, T *C, int ldc) {
    ArgCheck check(function, handle);
    check.op("transa", transa)
        .op("transb", transb)
        .nonnegative("m", m)
        .nonnegative("n", n)
        .leading_dimension("lda", lda, transa == CUBLAS_OP_N ? "m" : "n",
                           transa == CUBLAS_OP_N ? m : n)
        .leading_dimension("ldb", ldb, transb == CUBLAS_OP_N ? "m" : "n",
                           transb == CUBLAS_OP_N ? m : n)
        .leading_dimension("ldc", ldc, "m", m)
        .pointer("alpha", alpha)
        .pointer("beta", beta);
    // In place only where each element of C reads its own: cuBLAS's rule.
    if (check.ok() && C == A && (transa != CUBLAS_OP_N || lda != ldc))
        check.fail(CUBLAS_STATUS_INVALID_VALUE,
                   "C == A needs transa = CUBLAS_OP_N and lda == ldc (lda = %d, ldc = %d)", lda,
                   ldc);
    if (check.ok() && C == B && (transb != CUBLAS_OP_N || ldb != ldc))
        check.fail(CUBLAS_STATUS_INVALID_VALUE,
                   "C == B needs transb = CUBLAS_OP_N and ldb == ldc (ldb = %d, ldc = %d)", ldb,
                   ldc);
    if (!check.ok() || m == 0 || n == 0)
        return check.status();
    // A scalar known to be 0 on the host lets its matrix be NULL, as BLAS does not read it.
    const bool host = handle->pointer_mode == CUBLAS_POINTER_MODE_HOST;
    check.pointer("A", A, !(host && is_zero(*alpha)))
        .pointer("B", B, !(host && is_zero(*beta)))
        .pointer("C", C);
    if (!check.ok())
        return check.status();
    geam_kernel<<<blocks_for((long long)m * n), kBlockThreads, 0, handle->stream>>>(
        m, n, scalar_argument(handle, alpha), A, op_view(transa, lda),
        scalar_argument(handle, beta), B, op_view(transb, ldb), C, ldc);
    return launched(function);
}

} // namespace
} // namespace simtblas

using namespace simtblas;
using cxf = cuComplex;
using cxd = cuDoubleComplex;
using Op = cublasOperation_t;

extern "C" {

cublasStatus_t cublasSgemm_v2(cublasHandle_t h, Op ta, Op tb, int m, int n, int k, const float *a,
                              const float *A, int lda, const float *B, int ldb, const float *b,
                              float *C, int ldc) {
    return gemm_plain("cublasSgemm_v2", h, ta, tb, m, n, k, a, A, lda, B, ldb, b, C, ldc);
}
cublasStatus_t cublasDgemm_v2(cublasHandle_t h, Op ta, Op tb, int m, int n, int k, const double *a,
                              const double *A, int lda, const double *B, int ldb, const double *b,
                              double *C, int ldc) {
    return gemm_plain("cublasDgemm_v2", h, ta, tb, m, n, k, a, A, lda, B, ldb, b, C, ldc);
}
cublasStatus_t cublasCgemm_v2(cublasHandle_t h, Op ta, Op tb, int m, int n, int k, const cxf *a,
                              const cxf *A, int lda, const cxf *B, int ldb, const cxf *b, cxf *C,
                              int ldc) {
    return gemm_plain("cublasCgemm_v2", h, ta, tb, m, n, k, a, A, lda, B, ldb, b, C, ldc);
}
cublasStatus_t cublasZgemm_v2(cublasHandle_t h, Op ta, Op tb, int m, int n, int k, const cxd *a,
                              const cxd *A, int lda, const cxd *B, int ldb, const cxd *b, cxd *C,
                              int ldc) {
    return gemm_plain("cublasZgemm_v2", h, ta, tb, m, n, k, a, A, lda, B, ldb, b, C, ldc);
}
cublasStatus_t cublasHgemm(cublasHandle_t h, Op ta, Op tb, int m, int n, int k, const __half *a,
                           const __half *A, int lda, const __half *B, int ldb, const __half *b,
                           __half *C, int ldc) {
    return gemm_half({"cublasHgemm",
                      h,
                      ta,
                      tb,
                      m,
                      n,
                      k,
                      a,
                      b,
                      A,
                      nullptr,
                      lda,
                      0,
                      B,
                      nullptr,
                      ldb,
                      0,
                      C,
                      nullptr,
                      ldc,
                      0,
                      1,
                      Triangle::full,
                      false});
}

cublasStatus_t cublasSgemmBatched(cublasHandle_t h, Op ta, Op tb, int m, int n, int k,
                                  const float *a, const float *const A[], int lda,
                                  const float *const B[], int ldb, const float *b, float *const C[],
                                  int ldc, int count) {
    return gemm_batched("cublasSgemmBatched", h, ta, tb, m, n, k, a, A, lda, B, ldb, b, C, ldc,
                        count);
}
cublasStatus_t cublasDgemmBatched(cublasHandle_t h, Op ta, Op tb, int m, int n, int k,
                                  const double *a, const double *const A[], int lda,
                                  const double *const B[], int ldb, const double *b,
                                  double *const C[], int ldc, int count) {
    return gemm_batched("cublasDgemmBatched", h, ta, tb, m, n, k, a, A, lda, B, ldb, b, C, ldc,
                        count);
}
cublasStatus_t cublasCgemmBatched(cublasHandle_t h, Op ta, Op tb, int m, int n, int k, const cxf *a,
                                  const cxf *const A[], int lda, const cxf *const B[], int ldb,
                                  const cxf *b, cxf *const C[], int ldc, int count) {
    return gemm_batched("cublasCgemmBatched", h, ta, tb, m, n, k, a, A, lda, B, ldb, b, C, ldc,
                        count);
}
cublasStatus_t cublasZgemmBatched(cublasHandle_t h, Op ta, Op tb, int m, int n, int k, const cxd *a,
                                  const cxd *const A[], int lda, const cxd *const B[], int ldb,
                                  const cxd *b, cxd *const C[], int ldc, int count) {
    return gemm_batched("cublasZgemmBatched", h, ta, tb, m, n, k, a, A, lda, B, ldb, b, C, ldc,
                        count);
}
cublasStatus_t cublasHgemmBatched(cublasHandle_t h, Op ta, Op tb, int m, int n, int k,
                                  const __half *a, const __half *const A[], int lda,
                                  const __half *const B[], int ldb, const __half *b,
                                  __half *const C[], int ldc, int count) {
    return gemm_half({"cublasHgemmBatched",
                      h,
                      ta,
                      tb,
                      m,
                      n,
                      k,
                      a,
                      b,
                      nullptr,
                      (const void *const *)A,
                      lda,
                      0,
                      nullptr,
                      (const void *const *)B,
                      ldb,
                      0,
                      nullptr,
                      (void *const *)C,
                      ldc,
                      0,
                      count,
                      Triangle::full,
                      false});
}

cublasStatus_t cublasSgemmStridedBatched(cublasHandle_t h, Op ta, Op tb, int m, int n, int k,
                                         const float *a, const float *A, int lda, long long sa,
                                         const float *B, int ldb, long long sb, const float *b,
                                         float *C, int ldc, long long sc, int count) {
    return gemm_strided("cublasSgemmStridedBatched", h, ta, tb, m, n, k, a, A, lda, sa, B, ldb, sb,
                        b, C, ldc, sc, count);
}
cublasStatus_t cublasDgemmStridedBatched(cublasHandle_t h, Op ta, Op tb, int m, int n, int k,
                                         const double *a, const double *A, int lda, long long sa,
                                         const double *B, int ldb, long long sb, const double *b,
                                         double *C, int ldc, long long sc, int count) {
    return gemm_strided("cublasDgemmStridedBatched", h, ta, tb, m, n, k, a, A, lda, sa, B, ldb, sb,
                        b, C, ldc, sc, count);
}
cublasStatus_t cublasCgemmStridedBatched(cublasHandle_t h, Op ta, Op tb, int m, int n, int k,
                                         const cxf *a, const cxf *A, int lda, long long sa,
                                         const cxf *B, int ldb, long long sb, const cxf *b, cxf *C,
                                         int ldc, long long sc, int count) {
    return gemm_strided("cublasCgemmStridedBatched", h, ta, tb, m, n, k, a, A, lda, sa, B, ldb, sb,
                        b, C, ldc, sc, count);
}
cublasStatus_t cublasZgemmStridedBatched(cublasHandle_t h, Op ta, Op tb, int m, int n, int k,
                                         const cxd *a, const cxd *A, int lda, long long sa,
                                         const cxd *B, int ldb, long long sb, const cxd *b, cxd *C,
                                         int ldc, long long sc, int count) {
    return gemm_strided("cublasZgemmStridedBatched", h, ta, tb, m, n, k, a, A, lda, sa, B, ldb, sb,
                        b, C, ldc, sc, count);
}
cublasStatus_t cublasHgemmStridedBatched(cublasHandle_t h, Op ta, Op tb, int m, int n, int k,
                                         const __half *a, const __half *A, int lda, long long sa,
                                         const __half *B, int ldb, long long sb, const __half *b,
                                         __half *C, int ldc, long long sc, int count) {
    return gemm_half({"cublasHgemmStridedBatched",
                      h,
                      ta,
                      tb,
                      m,
                      n,
                      k,
                      a,
                      b,
                      A,
                      nullptr,
                      lda,
                      sa,
                      B,
                      nullptr,
                      ldb,
                      sb,
                      C,
                      nullptr,
                      ldc,
                      sc,
                      count,
                      Triangle::full,
                      false});
}

cublasStatus_t cublasGemmEx(cublasHandle_t h, Op ta, Op tb, int m, int n, int k, const void *a,
                            const void *A, cudaDataType at, int lda, const void *B, cudaDataType bt,
                            int ldb, const void *b, void *C, cudaDataType ct, int ldc,
                            cublasComputeType_t compute, cublasGemmAlgo_t algo) {
    return gemm_ex({"cublasGemmEx",
                    h,
                    ta,
                    tb,
                    m,
                    n,
                    k,
                    a,
                    b,
                    A,
                    nullptr,
                    lda,
                    0,
                    B,
                    nullptr,
                    ldb,
                    0,
                    C,
                    nullptr,
                    ldc,
                    0,
                    1,
                    Triangle::full,
                    false},
                   at, bt, ct, compute, algo);
}
cublasStatus_t cublasGemmBatchedEx(cublasHandle_t h, Op ta, Op tb, int m, int n, int k,
                                   const void *a, const void *const A[], cudaDataType at, int lda,
                                   const void *const B[], cudaDataType bt, int ldb, const void *b,
                                   void *const C[], cudaDataType ct, int ldc, int count,
                                   cublasComputeType_t compute, cublasGemmAlgo_t algo) {
    return gemm_ex({"cublasGemmBatchedEx",
                    h,
                    ta,
                    tb,
                    m,
                    n,
                    k,
                    a,
                    b,
                    nullptr,
                    A,
                    lda,
                    0,
                    nullptr,
                    B,
                    ldb,
                    0,
                    nullptr,
                    C,
                    ldc,
                    0,
                    count,
                    Triangle::full,
                    false},
                   at, bt, ct, compute, algo);
}
cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t h, Op ta, Op tb, int m, int n, int k,
                                          const void *a, const void *A, cudaDataType at, int lda,
                                          long long sa, const void *B, cudaDataType bt, int ldb,
                                          long long sb, const void *b, void *C, cudaDataType ct,
                                          int ldc, long long sc, int count,
                                          cublasComputeType_t compute, cublasGemmAlgo_t algo) {
    return gemm_ex({"cublasGemmStridedBatchedEx",
                    h,
                    ta,
                    tb,
                    m,
                    n,
                    k,
                    a,
                    b,
                    A,
                    nullptr,
                    lda,
                    sa,
                    B,
                    nullptr,
                    ldb,
                    sb,
                    C,
                    nullptr,
                    ldc,
                    sc,
                    count,
                    Triangle::full,
                    false},
                   at, bt, ct, compute, algo);
}

cublasStatus_t cublasSsyrk_v2(cublasHandle_t h, cublasFillMode_t u, Op t, int n, int k,
                              const float *a, const float *A, int lda, const float *b, float *C,
                              int ldc) {
    return syrk("cublasSsyrk_v2", h, u, t, n, k, a, A, lda, b, C, ldc);
}
cublasStatus_t cublasDsyrk_v2(cublasHandle_t h, cublasFillMode_t u, Op t, int n, int k,
                              const double *a, const double *A, int lda, const double *b, double *C,
                              int ldc) {
    return syrk("cublasDsyrk_v2", h, u, t, n, k, a, A, lda, b, C, ldc);
}
cublasStatus_t cublasCsyrk_v2(cublasHandle_t h, cublasFillMode_t u, Op t, int n, int k,
                              const cxf *a, const cxf *A, int lda, const cxf *b, cxf *C, int ldc) {
    return syrk("cublasCsyrk_v2", h, u, t, n, k, a, A, lda, b, C, ldc);
}
cublasStatus_t cublasZsyrk_v2(cublasHandle_t h, cublasFillMode_t u, Op t, int n, int k,
                              const cxd *a, const cxd *A, int lda, const cxd *b, cxd *C, int ldc) {
    return syrk("cublasZsyrk_v2", h, u, t, n, k, a, A, lda, b, C, ldc);
}

cublasStatus_t cublasStrsm_v2(cublasHandle_t h, cublasSideMode_t s, cublasFillMode_t u, Op t,
                              cublasDiagType_t d, int m, int n, const float *a, const float *A,
                              int lda, float *B, int ldb) {
    return trsm("cublasStrsm_v2", h, s, u, t, d, m, n, a, A, lda, B, ldb);
}
cublasStatus_t cublasDtrsm_v2(cublasHandle_t h, cublasSideMode_t s, cublasFillMode_t u, Op t,
                              cublasDiagType_t d, int m, int n, const double *a, const double *A,
                              int lda, double *B, int ldb) {
    return trsm("cublasDtrsm_v2", h, s, u, t, d, m, n, a, A, lda, B, ldb);
}
cublasStatus_t cublasCtrsm_v2(cublasHandle_t h, cublasSideMode_t s, cublasFillMode_t u, Op t,
                              cublasDiagType_t d, int m, int n, const cxf *a, const cxf *A, int lda,
                              cxf *B, int ldb) {
    return trsm("cublasCtrsm_v2", h, s, u, t, d, m, n, a, A, lda, B, ldb);
}
cublasStatus_t cublasZtrsm_v2(cublasHandle_t h, cublasSideMode_t s, cublasFillMode_t u, Op t,
                              cublasDiagType_t d, int m, int n, const cxd *a, const cxd *A, int lda,
                              cxd *B, int ldb) {
    return trsm("cublasZtrsm_v2", h, s, u, t, d, m, n, a, A, lda, B, ldb);
}

cublasStatus_t cublasSgeam(cublasHandle_t h, Op ta, Op tb, int m, int n, const float *a,
                           const float *A, int lda, const float *b, const float *B, int ldb,
                           float *C, int ldc) {
    return geam("cublasSgeam", h, ta, tb, m, n, a, A, lda, b, B, ldb, C, ldc);
}
cublasStatus_t cublasDgeam(cublasHandle_t h, Op ta, Op tb, int m, int n, const double *a,
                           const double *A, int lda, const double *b, const double *B, int ldb,
                           double *C, int ldc) {
    return geam("cublasDgeam", h, ta, tb, m, n, a, A, lda, b, B, ldb, C, ldc);
}
cublasStatus_t cublasCgeam(cublasHandle_t h, Op ta, Op tb, int m, int n, const cxf *a, const cxf *A,
                           int lda, const cxf *b, const cxf *B, int ldb, cxf *C, int ldc) {
    return geam("cublasCgeam", h, ta, tb, m, n, a, A, lda, b, B, ldb, C, ldc);
}
cublasStatus_t cublasZgeam(cublasHandle_t h, Op ta, Op tb, int m, int n, const cxd *a, const cxd *A,
                           int lda, const cxd *b, const cxd *B, int ldb, cxd *C, int ldc) {
    return geam("cublasZgeam", h, ta, tb, m, n, a, A, lda, b, B, ldb, C, ldc);
}

} // extern "C"
