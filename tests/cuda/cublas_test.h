// SPDX-License-Identifier: MIT
// What the cuBLAS tests share: the reference (Debian's reference BLAS
// through CBLAS) for each precision behind one traits struct, so that a test
// is one template over S, D, C and Z; random inputs; device copies; and the
// error bounds, which scale with the problem: a sum of k products may be off
// by about k * eps * sum |a_i| |b_i| (Higham, Accuracy and Stability of
// Numerical Algorithms, 3.1), so each element is compared with that bound
// computed from the magnitudes of its own inputs, never a fixed epsilon.
#ifndef SIMTGPU_TESTS_CUDA_CUBLAS_TEST_H
#define SIMTGPU_TESTS_CUDA_CUBLAS_TEST_H

#include <cblas.h>
#include <cublas_v2.h>

#include <cfloat>
#include <complex>
#include <vector>

#include "test_util.h"
#include "vector_copies.h"

#define CHECK_CUBLAS(call)                                                           \
	do {                                                                         \
		cublasStatus_t check_status_ = (call);                               \
		if (check_status_ != CUBLAS_STATUS_SUCCESS) {                        \
			std::printf("FAIL: %s:%d: %s: %s\n", __FILE__, __LINE__, #call, \
				    cublasGetStatusName(check_status_));             \
			std::exit(1);                                                \
		}                                                                    \
	} while (0)

using cf = std::complex<float>;
using cd = std::complex<double>;

// |Re x| + |Im x|: bounds |x| within a factor sqrt(2), and what BLAS's
// complex asum and i?amax measure.
static inline double mag(float x) { return std::fabs(x); }
static inline double mag(double x) { return std::fabs(x); }
static inline double mag(cf x) { return std::fabs(x.real()) + std::fabs(x.imag()); }
static inline double mag(cd x) { return std::fabs(x.real()) + std::fabs(x.imag()); }

template <class H> struct Blas;

// The reference routines and the cuBLAS entry points of each precision, with
// host types (std::complex for C and Z, layout-compatible with cuComplex).
#define CUBLAS_TEST_COMMON(H, D, R, EPS, NAME)                                       \
	using Host = H;                                                              \
	using Dev = D;                                                               \
	using Real = R;                                                              \
	static constexpr double eps = EPS;                                           \
	static constexpr const char *name = NAME;                                    \
	static D *dev(H *p) { return reinterpret_cast<D *>(p); }                     \
	static const D *dev(const H *p) { return reinterpret_cast<const D *>(p); }

template <> struct Blas<float> {
	CUBLAS_TEST_COMMON(float, float, float, FLT_EPSILON, "S")
	static constexpr bool complex = false;
	static Host random(Rng &r) { return r.uniform(-1, 1); }
	static void gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n, int k, Host a,
			 const Host *A, int lda, const Host *B, int ldb, Host b, Host *C, int ldc)
	{
		cblas_sgemm(CblasColMajor, ta, tb, m, n, k, a, A, lda, B, ldb, b, C, ldc);
	}
	static auto cu_gemm() { return cublasSgemm; }
	static auto cu_gemm_batched() { return cublasSgemmBatched; }
	static auto cu_gemm_strided() { return cublasSgemmStridedBatched; }
	static auto cu_gemv() { return cublasSgemv; }
	static auto cu_symv() { return cublasSsymv; }
	static auto cu_trsv() { return cublasStrsv; }
	static auto cu_syrk() { return cublasSsyrk; }
	static auto cu_trsm() { return cublasStrsm; }
	static auto cu_geam() { return cublasSgeam; }
	static auto cu_axpy() { return cublasSaxpy; }
	static auto cu_scal() { return cublasSscal; }
	static auto cu_copy() { return cublasScopy; }
	static auto cu_swap() { return cublasSswap; }
	static auto cu_nrm2() { return cublasSnrm2; }
	static auto cu_asum() { return cublasSasum; }
	static auto cu_amax() { return cublasIsamax; }
	static auto cu_amin() { return cublasIsamin; }
	static auto cu_dotu() { return cublasSdot; }
	static auto cu_dotc() { return cublasSdot; }
	static auto cu_geru() { return cublasSger; }
	static auto cu_gerc() { return cublasSger; }
	static void gemv(CBLAS_TRANSPOSE t, int m, int n, Host a, const Host *A, int lda,
			 const Host *x, int incx, Host b, Host *y, int incy)
	{
		cblas_sgemv(CblasColMajor, t, m, n, a, A, lda, x, incx, b, y, incy);
	}
	static void syrk(CBLAS_UPLO u, CBLAS_TRANSPOSE t, int n, int k, Host a, const Host *A, int lda,
			 Host b, Host *C, int ldc)
	{
		cblas_ssyrk(CblasColMajor, u, t, n, k, a, A, lda, b, C, ldc);
	}
	static Host dotu(int n, const Host *x, int ix, const Host *y, int iy) { return cblas_sdot(n, x, ix, y, iy); }
	static Host dotc(int n, const Host *x, int ix, const Host *y, int iy) { return cblas_sdot(n, x, ix, y, iy); }
	static Real nrm2(int n, const Host *x, int ix) { return cblas_snrm2(n, x, ix); }
	static Real asum(int n, const Host *x, int ix) { return cblas_sasum(n, x, ix); }
	static int amax(int n, const Host *x, int ix) { return (int)cblas_isamax(n, x, ix) + 1; }
	static void axpy(int n, Host a, const Host *x, int ix, Host *y, int iy) { cblas_saxpy(n, a, x, ix, y, iy); }
	static void geru(int m, int n, Host a, const Host *x, int ix, const Host *y, int iy, Host *A, int lda)
	{
		cblas_sger(CblasColMajor, m, n, a, x, ix, y, iy, A, lda);
	}
	static void gerc(int m, int n, Host a, const Host *x, int ix, const Host *y, int iy, Host *A, int lda)
	{
		cblas_sger(CblasColMajor, m, n, a, x, ix, y, iy, A, lda);
	}
};

template <> struct Blas<double> {
	CUBLAS_TEST_COMMON(double, double, double, DBL_EPSILON, "D")
	static constexpr bool complex = false;
	static Host random(Rng &r) { return r.uniform(-1, 1) + r.uniform(-1, 1) * 1e-7; }
	static void gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n, int k, Host a,
			 const Host *A, int lda, const Host *B, int ldb, Host b, Host *C, int ldc)
	{
		cblas_dgemm(CblasColMajor, ta, tb, m, n, k, a, A, lda, B, ldb, b, C, ldc);
	}
	static auto cu_gemm() { return cublasDgemm; }
	static auto cu_gemm_batched() { return cublasDgemmBatched; }
	static auto cu_gemm_strided() { return cublasDgemmStridedBatched; }
	static auto cu_gemv() { return cublasDgemv; }
	static auto cu_symv() { return cublasDsymv; }
	static auto cu_trsv() { return cublasDtrsv; }
	static auto cu_syrk() { return cublasDsyrk; }
	static auto cu_trsm() { return cublasDtrsm; }
	static auto cu_geam() { return cublasDgeam; }
	static auto cu_axpy() { return cublasDaxpy; }
	static auto cu_scal() { return cublasDscal; }
	static auto cu_copy() { return cublasDcopy; }
	static auto cu_swap() { return cublasDswap; }
	static auto cu_nrm2() { return cublasDnrm2; }
	static auto cu_asum() { return cublasDasum; }
	static auto cu_amax() { return cublasIdamax; }
	static auto cu_amin() { return cublasIdamin; }
	static auto cu_dotu() { return cublasDdot; }
	static auto cu_dotc() { return cublasDdot; }
	static auto cu_geru() { return cublasDger; }
	static auto cu_gerc() { return cublasDger; }
	static void gemv(CBLAS_TRANSPOSE t, int m, int n, Host a, const Host *A, int lda,
			 const Host *x, int incx, Host b, Host *y, int incy)
	{
		cblas_dgemv(CblasColMajor, t, m, n, a, A, lda, x, incx, b, y, incy);
	}
	static void syrk(CBLAS_UPLO u, CBLAS_TRANSPOSE t, int n, int k, Host a, const Host *A, int lda,
			 Host b, Host *C, int ldc)
	{
		cblas_dsyrk(CblasColMajor, u, t, n, k, a, A, lda, b, C, ldc);
	}
	static Host dotu(int n, const Host *x, int ix, const Host *y, int iy) { return cblas_ddot(n, x, ix, y, iy); }
	static Host dotc(int n, const Host *x, int ix, const Host *y, int iy) { return cblas_ddot(n, x, ix, y, iy); }
	static Real nrm2(int n, const Host *x, int ix) { return cblas_dnrm2(n, x, ix); }
	static Real asum(int n, const Host *x, int ix) { return cblas_dasum(n, x, ix); }
	static int amax(int n, const Host *x, int ix) { return (int)cblas_idamax(n, x, ix) + 1; }
	static void axpy(int n, Host a, const Host *x, int ix, Host *y, int iy) { cblas_daxpy(n, a, x, ix, y, iy); }
	static void geru(int m, int n, Host a, const Host *x, int ix, const Host *y, int iy, Host *A, int lda)
	{
		cblas_dger(CblasColMajor, m, n, a, x, ix, y, iy, A, lda);
	}
	static void gerc(int m, int n, Host a, const Host *x, int ix, const Host *y, int iy, Host *A, int lda)
	{
		cblas_dger(CblasColMajor, m, n, a, x, ix, y, iy, A, lda);
	}
};

template <> struct Blas<cf> {
	CUBLAS_TEST_COMMON(cf, cuComplex, float, FLT_EPSILON, "C")
	static constexpr bool complex = true;
	static Host random(Rng &r) { return Host(r.uniform(-1, 1), r.uniform(-1, 1)); }
	static void gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n, int k, Host a,
			 const Host *A, int lda, const Host *B, int ldb, Host b, Host *C, int ldc)
	{
		cblas_cgemm(CblasColMajor, ta, tb, m, n, k, &a, A, lda, B, ldb, &b, C, ldc);
	}
	static auto cu_gemm() { return cublasCgemm; }
	static auto cu_gemm_batched() { return cublasCgemmBatched; }
	static auto cu_gemm_strided() { return cublasCgemmStridedBatched; }
	static auto cu_gemv() { return cublasCgemv; }
	static auto cu_symv() { return cublasCsymv; }
	static auto cu_trsv() { return cublasCtrsv; }
	static auto cu_syrk() { return cublasCsyrk; }
	static auto cu_trsm() { return cublasCtrsm; }
	static auto cu_geam() { return cublasCgeam; }
	static auto cu_axpy() { return cublasCaxpy; }
	static auto cu_scal() { return cublasCscal; }
	static auto cu_copy() { return cublasCcopy; }
	static auto cu_swap() { return cublasCswap; }
	static auto cu_nrm2() { return cublasScnrm2; }
	static auto cu_asum() { return cublasScasum; }
	static auto cu_amax() { return cublasIcamax; }
	static auto cu_amin() { return cublasIcamin; }
	static auto cu_dotu() { return cublasCdotu; }
	static auto cu_dotc() { return cublasCdotc; }
	static auto cu_geru() { return cublasCgeru; }
	static auto cu_gerc() { return cublasCgerc; }
	static void gemv(CBLAS_TRANSPOSE t, int m, int n, Host a, const Host *A, int lda,
			 const Host *x, int incx, Host b, Host *y, int incy)
	{
		cblas_cgemv(CblasColMajor, t, m, n, &a, A, lda, x, incx, &b, y, incy);
	}
	static void syrk(CBLAS_UPLO u, CBLAS_TRANSPOSE t, int n, int k, Host a, const Host *A, int lda,
			 Host b, Host *C, int ldc)
	{
		cblas_csyrk(CblasColMajor, u, t, n, k, &a, A, lda, &b, C, ldc);
	}
	static Host dotu(int n, const Host *x, int ix, const Host *y, int iy)
	{
		Host r;
		cblas_cdotu_sub(n, x, ix, y, iy, &r);
		return r;
	}
	static Host dotc(int n, const Host *x, int ix, const Host *y, int iy)
	{
		Host r;
		cblas_cdotc_sub(n, x, ix, y, iy, &r);
		return r;
	}
	static Real nrm2(int n, const Host *x, int ix) { return cblas_scnrm2(n, x, ix); }
	static Real asum(int n, const Host *x, int ix) { return cblas_scasum(n, x, ix); }
	static int amax(int n, const Host *x, int ix) { return (int)cblas_icamax(n, x, ix) + 1; }
	static void axpy(int n, Host a, const Host *x, int ix, Host *y, int iy) { cblas_caxpy(n, &a, x, ix, y, iy); }
	static void geru(int m, int n, Host a, const Host *x, int ix, const Host *y, int iy, Host *A, int lda)
	{
		cblas_cgeru(CblasColMajor, m, n, &a, x, ix, y, iy, A, lda);
	}
	static void gerc(int m, int n, Host a, const Host *x, int ix, const Host *y, int iy, Host *A, int lda)
	{
		cblas_cgerc(CblasColMajor, m, n, &a, x, ix, y, iy, A, lda);
	}
};

template <> struct Blas<cd> {
	CUBLAS_TEST_COMMON(cd, cuDoubleComplex, double, DBL_EPSILON, "Z")
	static constexpr bool complex = true;
	static Host random(Rng &r) { return Host(r.uniform(-1, 1), r.uniform(-1, 1)); }
	static void gemm(CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb, int m, int n, int k, Host a,
			 const Host *A, int lda, const Host *B, int ldb, Host b, Host *C, int ldc)
	{
		cblas_zgemm(CblasColMajor, ta, tb, m, n, k, &a, A, lda, B, ldb, &b, C, ldc);
	}
	static auto cu_gemm() { return cublasZgemm; }
	static auto cu_gemm_batched() { return cublasZgemmBatched; }
	static auto cu_gemm_strided() { return cublasZgemmStridedBatched; }
	static auto cu_gemv() { return cublasZgemv; }
	static auto cu_symv() { return cublasZsymv; }
	static auto cu_trsv() { return cublasZtrsv; }
	static auto cu_syrk() { return cublasZsyrk; }
	static auto cu_trsm() { return cublasZtrsm; }
	static auto cu_geam() { return cublasZgeam; }
	static auto cu_axpy() { return cublasZaxpy; }
	static auto cu_scal() { return cublasZscal; }
	static auto cu_copy() { return cublasZcopy; }
	static auto cu_swap() { return cublasZswap; }
	static auto cu_nrm2() { return cublasDznrm2; }
	static auto cu_asum() { return cublasDzasum; }
	static auto cu_amax() { return cublasIzamax; }
	static auto cu_amin() { return cublasIzamin; }
	static auto cu_dotu() { return cublasZdotu; }
	static auto cu_dotc() { return cublasZdotc; }
	static auto cu_geru() { return cublasZgeru; }
	static auto cu_gerc() { return cublasZgerc; }
	static void gemv(CBLAS_TRANSPOSE t, int m, int n, Host a, const Host *A, int lda,
			 const Host *x, int incx, Host b, Host *y, int incy)
	{
		cblas_zgemv(CblasColMajor, t, m, n, &a, A, lda, x, incx, &b, y, incy);
	}
	static void syrk(CBLAS_UPLO u, CBLAS_TRANSPOSE t, int n, int k, Host a, const Host *A, int lda,
			 Host b, Host *C, int ldc)
	{
		cblas_zsyrk(CblasColMajor, u, t, n, k, &a, A, lda, &b, C, ldc);
	}
	static Host dotu(int n, const Host *x, int ix, const Host *y, int iy)
	{
		Host r;
		cblas_zdotu_sub(n, x, ix, y, iy, &r);
		return r;
	}
	static Host dotc(int n, const Host *x, int ix, const Host *y, int iy)
	{
		Host r;
		cblas_zdotc_sub(n, x, ix, y, iy, &r);
		return r;
	}
	static Real nrm2(int n, const Host *x, int ix) { return cblas_dznrm2(n, x, ix); }
	static Real asum(int n, const Host *x, int ix) { return cblas_dzasum(n, x, ix); }
	static int amax(int n, const Host *x, int ix) { return (int)cblas_izamax(n, x, ix) + 1; }
	static void axpy(int n, Host a, const Host *x, int ix, Host *y, int iy) { cblas_zaxpy(n, &a, x, ix, y, iy); }
	static void geru(int m, int n, Host a, const Host *x, int ix, const Host *y, int iy, Host *A, int lda)
	{
		cblas_zgeru(CblasColMajor, m, n, &a, x, ix, y, iy, A, lda);
	}
	static void gerc(int m, int n, Host a, const Host *x, int ix, const Host *y, int iy, Host *A, int lda)
	{
		cblas_zgerc(CblasColMajor, m, n, &a, x, ix, y, iy, A, lda);
	}
};

template <class H> static std::vector<H> random_vector(Rng &rng, size_t n)
{
	std::vector<H> v(n);
	for (H &x : v)
		x = Blas<H>::random(rng);
	return v;
}

static inline CBLAS_TRANSPOSE cblas_op(cublasOperation_t op)
{
	return op == CUBLAS_OP_N ? CblasNoTrans : op == CUBLAS_OP_T ? CblasTrans : CblasConjTrans;
}

static inline const char *op_name(cublasOperation_t op)
{
	return op == CUBLAS_OP_N ? "N" : op == CUBLAS_OP_T ? "T" : "C";
}

// Element (i, j) of op(A) for a column-major A, on the host.
template <class H> static H op_element(const std::vector<H> &A, int lda, cublasOperation_t op, int i, int j)
{
	if (op == CUBLAS_OP_N)
		return A[i + (size_t)j * lda];
	const H x = A[j + (size_t)i * lda];
	if constexpr (Blas<H>::complex)
		return op == CUBLAS_OP_C ? std::conj(x) : x;
	return x;
}

// got within bound of want; prints the first few misses of a check.
struct Comparison {
	const char *what;
	int misses = 0;
	template <class H> void element(H got, H want, double bound, long long index)
	{
		const double error = mag(H(got - want));
		if (error <= bound && !std::isnan(error))
			return;
		if (++misses <= 3)
			std::printf("failed: %s: element %lld: got (%g, %g), want (%g, %g), error %g > bound %g\n",
				    what, index, (double)std::real(got), (double)std::imag(got),
				    (double)std::real(want), (double)std::imag(want), error, bound);
	}
	bool ok() const { return misses == 0; }
};

#endif
