// SPDX-License-Identifier: MIT
// cuBLAS Level 2 against Debian's reference BLAS (CBLAS), in S, D, C and Z:
// gemv with every transpose, a padded lda and strided and negative
// increments; ger (geru and gerc); symv with either triangle (against BLAS's gemv
// of the full symmetric matrix: BLAS has no complex symv); trsv with
// every uplo, transpose and diag, checked by its residual. Error bounds:
// see cublas_test.h.
// simtcc-flags: -std=c++17 -lcublas -lblas
#include "cublas_test.h"

static size_t at(int i, int n, int inc) { return inc >= 0 ? (size_t)i * inc : (size_t)(n - 1 - i) * -inc; }

template <class H> static bool test_gemv(cublasHandle_t handle, Rng &rng)
{
	using B = Blas<H>;
	const int m = 45, n = 38, lda = m + 3;
	bool ok = true;
	for (cublasOperation_t trans : {CUBLAS_OP_N, CUBLAS_OP_T, CUBLAS_OP_C})
		for (int incx : {1, -2})
			for (int incy : {1, 3, -1}) {
				const int lx = trans == CUBLAS_OP_N ? n : m, ly = trans == CUBLAS_OP_N ? m : n;
				const std::vector<H> A = random_vector<H>(rng, (size_t)lda * n);
				const std::vector<H> x = random_vector<H>(rng, (size_t)lx * std::abs(incx));
				const std::vector<H> y = random_vector<H>(rng, (size_t)ly * std::abs(incy));
				const H alpha = B::random(rng), beta = B::random(rng);
				H *dA = to_device(A), *dx = to_device(x), *dy = to_device(y);
				CHECK_CUBLAS(B::cu_gemv()(handle, trans, m, n, B::dev(&alpha), B::dev(dA), lda, B::dev(dx), incx,
							  B::dev(&beta), B::dev(dy), incy));
				const std::vector<H> got = to_host(dy, y.size());
				std::vector<H> want = y;
				B::gemv(cblas_op(trans), m, n, alpha, A.data(), lda, x.data(), incx, beta, want.data(), incy);
				char what[64];
				std::snprintf(what, sizeof what, "%sgemv %s incx %d incy %d", B::name, op_name(trans), incx, incy);
				Comparison cmp{what};
				for (int i = 0; i < ly; ++i) {
					double size = 0;
					for (int j = 0; j < lx; ++j)
						size += mag(op_element(A, lda, trans, i, j)) * mag(x[at(j, lx, incx)]);
					const size_t e = at(i, ly, incy);
					cmp.element(got[e], want[e], 4 * (lx + 2) * B::eps * (mag(alpha) * size + mag(beta) * mag(y[e])),
						    (long long)e);
				}
				ok &= cmp.ok();
				cudaFree(dA);
				cudaFree(dx);
				cudaFree(dy);
			}
	return ok;
}

template <class H> static bool test_ger(cublasHandle_t handle, Rng &rng)
{
	using B = Blas<H>;
	const int m = 33, n = 21, lda = m + 2;
	bool ok = true;
	for (int conjugate = 0; conjugate < 1 + B::complex; ++conjugate)
		for (int incy : {1, -2}) {
			const std::vector<H> A = random_vector<H>(rng, (size_t)lda * n);
			const std::vector<H> x = random_vector<H>(rng, m), y = random_vector<H>(rng, (size_t)n * 2);
			const H alpha = B::random(rng);
			H *dA = to_device(A), *dx = to_device(x), *dy = to_device(y);
			CHECK_CUBLAS((conjugate ? B::cu_gerc() : B::cu_geru())(handle, m, n, B::dev(&alpha), B::dev(dx), 1,
									       B::dev(dy), incy, B::dev(dA), lda));
			const std::vector<H> got = to_host(dA, A.size());
			std::vector<H> want = A;
			(conjugate ? B::gerc : B::geru)(m, n, alpha, x.data(), 1, y.data(), incy, want.data(), lda);
			char what[64];
			std::snprintf(what, sizeof what, "%sger%s incy %d", B::name, B::complex ? (conjugate ? "c" : "u") : "",
				      incy);
			Comparison cmp{what};
			for (size_t e = 0; e < A.size(); ++e)
				cmp.element(got[e], want[e], 4 * B::eps * (mag(A[e]) + mag(alpha) * 4), (long long)e);
			ok &= cmp.ok();
			cudaFree(dA);
			cudaFree(dx);
			cudaFree(dy);
		}
	return ok;
}

template <class H> static bool test_symv(cublasHandle_t handle, Rng &rng)
{
	using B = Blas<H>;
	const int n = 40, lda = n + 1;
	bool ok = true;
	for (cublasFillMode_t uplo : {CUBLAS_FILL_MODE_LOWER, CUBLAS_FILL_MODE_UPPER})
		for (int incx : {1, -3}) {
			const bool lower = uplo == CUBLAS_FILL_MODE_LOWER;
			std::vector<H> A = random_vector<H>(rng, (size_t)lda * n);
			const std::vector<H> x = random_vector<H>(rng, (size_t)n * 3), y = random_vector<H>(rng, n);
			const H alpha = B::random(rng), beta = B::random(rng);
			// The symmetric matrix the stored triangle means, in full, for the reference.
			std::vector<H> full((size_t)n * n);
			for (int j = 0; j < n; ++j)
				for (int i = 0; i < n; ++i)
					full[i + (size_t)j * n] = (lower ? i >= j : i <= j) ? A[i + (size_t)j * lda]
											 : A[j + (size_t)i * lda];
			H *dA = to_device(A), *dx = to_device(x), *dy = to_device(y);
			CHECK_CUBLAS(B::cu_symv()(handle, uplo, n, B::dev(&alpha), B::dev(dA), lda, B::dev(dx), incx,
						  B::dev(&beta), B::dev(dy), 1));
			const std::vector<H> got = to_host(dy, y.size());
			std::vector<H> want = y;
			B::gemv(CblasNoTrans, n, n, alpha, full.data(), n, x.data(), incx, beta, want.data(), 1);
			char what[64];
			std::snprintf(what, sizeof what, "%ssymv %s incx %d", B::name, lower ? "lower" : "upper", incx);
			Comparison cmp{what};
			for (int i = 0; i < n; ++i) {
				double size = 0;
				for (int j = 0; j < n; ++j)
					size += mag(full[i + (size_t)j * n]) * mag(x[at(j, n, incx)]);
				cmp.element(got[i], want[i], 4 * (n + 2) * B::eps * (mag(alpha) * size + mag(beta) * mag(y[i])), i);
			}
			ok &= cmp.ok();
			cudaFree(dA);
			cudaFree(dx);
			cudaFree(dy);
		}
	return ok;
}

// trsv: op(T) x = b, the residual within 4 (n + 2) eps (|op(T)| |x| + |b|).
// T is well conditioned; the triangle not stored (and a unit diagonal) holds
// 1e3, which the solve must not read.
template <class H> static bool test_trsv(cublasHandle_t handle, Rng &rng)
{
	using B = Blas<H>;
	const int n = 50, lda = n + 2;
	bool ok = true;
	for (cublasFillMode_t uplo : {CUBLAS_FILL_MODE_LOWER, CUBLAS_FILL_MODE_UPPER})
		for (cublasOperation_t trans : {CUBLAS_OP_N, CUBLAS_OP_T, CUBLAS_OP_C})
			for (cublasDiagType_t diag : {CUBLAS_DIAG_NON_UNIT, CUBLAS_DIAG_UNIT})
				for (int incx : {1, -2}) {
					const bool lower = uplo == CUBLAS_FILL_MODE_LOWER;
					std::vector<H> A((size_t)lda * n, H(1e3));
					for (int j = 0; j < n; ++j)
						for (int i = 0; i < n; ++i)
							if (lower ? i > j : i < j)
								A[i + (size_t)j * lda] = B::random(rng) * (typename B::Real)(1.0 / n);
							else if (i == j && diag == CUBLAS_DIAG_NON_UNIT)
								A[i + (size_t)j * lda] = H(1 + std::fabs(rng.uniform(-1, 1)));
					const std::vector<H> b = random_vector<H>(rng, (size_t)n * std::abs(incx));
					H *dA = to_device(A), *dx = to_device(b);
					CHECK_CUBLAS(B::cu_trsv()(handle, uplo, trans, diag, n, B::dev(dA), lda, B::dev(dx), incx));
					const std::vector<H> x = to_host(dx, b.size());
					char what[64];
					std::snprintf(what, sizeof what, "%strsv %s %s %s incx %d", B::name, lower ? "lower" : "upper",
						      op_name(trans), diag == CUBLAS_DIAG_UNIT ? "unit" : "non-unit", incx);
					Comparison cmp{what};
					for (int i = 0; i < n; ++i) {
						H product = H(0);
						double size = 0;
						for (int j = 0; j < n; ++j) {
							const int r = trans == CUBLAS_OP_N ? i : j, c = trans == CUBLAS_OP_N ? j : i;
							H t = H(0);
							if (r == c && diag == CUBLAS_DIAG_UNIT)
								t = H(1);
							else if (lower ? r >= c : r <= c)
								t = op_element(A, lda, trans, i, j);
							const H xj = x[at(j, n, incx)];
							product += t * xj;
							size += mag(t) * mag(xj);
						}
						const H bi = b[at(i, n, incx)];
						cmp.element(product, bi, 4 * (n + 2) * B::eps * (size + mag(bi)), i);
					}
					ok &= cmp.ok();
					cudaFree(dA);
					cudaFree(dx);
				}
	return ok;
}

template <class H> static bool test_precision(cublasHandle_t handle, Rng &rng)
{
	bool ok = test_gemv<H>(handle, rng);
	ok &= test_ger<H>(handle, rng);
	ok &= test_symv<H>(handle, rng);
	ok &= test_trsv<H>(handle, rng);
	return ok;
}

int main()
{
	cublasHandle_t handle;
	CHECK_CUBLAS(cublasCreate(&handle));
	Rng rng(11);
	bool ok = test_precision<float>(handle, rng);
	ok &= test_precision<double>(handle, rng);
	ok &= test_precision<cf>(handle, rng);
	ok &= test_precision<cd>(handle, rng);
	CHECK_CUBLAS(cublasDestroy(handle));
	return report("cublas_level2", ok);
}
