// SPDX-License-Identifier: MIT
// cuBLAS Level 3 against Debian's reference BLAS (CBLAS), in S, D, C and Z:
// gemm with every pair of transposes and padded leading dimensions (sizes
// that cross the kernel's tiles, both tile shapes), beta = 0 over a C full
// of NaN, gemmBatched and gemmStridedBatched, syrk (both triangles; the other
// left untouched), trsm on both sides with every uplo, transpose and diag
// (by its residual: op(A) X - alpha B within the backward-error bound of a
// triangular solve), geam (in place too), Hgemm and GemmEx /
// GemmStridedBatchedEx in each fp16/bf16/fp32/fp64 combination CUDA allows,
// and alpha, beta in device memory. Error bounds: see cublas_test.h.
// simtcc-flags: -std=c++17 -lcublas -lblas
#include "cublas_test.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

static const cublasOperation_t kOps[] = {CUBLAS_OP_N, CUBLAS_OP_T, CUBLAS_OP_C};

// C = alpha op(A) op(B) + beta C checked against cblas ?gemm, with the bound
// 4 (k + 2) eps (|alpha| (|op(A)| |op(B)|)_ij + |beta| |C_ij|).
template <class H>
static bool check_gemm_result(const char *what, cublasOperation_t ta, cublasOperation_t tb, int m, int n,
			      int k, H alpha, const std::vector<H> &A, int lda, const std::vector<H> &B,
			      int ldb, H beta, const std::vector<H> &C0, const std::vector<H> &got, int ldc)
{
	std::vector<H> want = C0;
	Blas<H>::gemm(cblas_op(ta), cblas_op(tb), m, n, k, alpha, A.data(), lda, B.data(), ldb, beta,
		      want.data(), ldc);
	Comparison cmp{what};
	for (int j = 0; j < n; ++j)
		for (int i = 0; i < m; ++i) {
			double size = 0;
			for (int p = 0; p < k; ++p)
				size += mag(op_element(A, lda, ta, i, p)) * mag(op_element(B, ldb, tb, p, j));
			const double c0 = std::isnan(std::real(C0[i + (size_t)j * ldc])) ? 0 : mag(C0[i + (size_t)j * ldc]);
			const double bound = 4 * (k + 2) * Blas<H>::eps * (mag(alpha) * size + mag(beta) * c0);
			cmp.element(got[i + (size_t)j * ldc], want[i + (size_t)j * ldc], bound, i + (long long)j * ldc);
		}
	// Rows between m and ldc are not C's: they must be as they were.
	for (int j = 0; j < n; ++j)
		for (int i = m; i < ldc; ++i)
			if (!std::isnan(std::real(C0[i + (size_t)j * ldc])))
				cmp.element(got[i + (size_t)j * ldc], C0[i + (size_t)j * ldc], 0, i + (long long)j * ldc);
	return cmp.ok();
}

template <class H> static bool test_gemm(cublasHandle_t handle, Rng &rng, int m, int n, int k)
{
	using B = Blas<H>;
	bool ok = true;
	for (cublasOperation_t ta : kOps)
		for (cublasOperation_t tb : kOps) {
			const int a_rows = ta == CUBLAS_OP_N ? m : k, a_cols = ta == CUBLAS_OP_N ? k : m;
			const int b_rows = tb == CUBLAS_OP_N ? k : n, b_cols = tb == CUBLAS_OP_N ? n : k;
			const int lda = a_rows + 3, ldb = b_rows + 1, ldc = m + 2;
			const std::vector<H> A = random_vector<H>(rng, (size_t)lda * a_cols);
			const std::vector<H> Bm = random_vector<H>(rng, (size_t)ldb * b_cols);
			const std::vector<H> C0 = random_vector<H>(rng, (size_t)ldc * n);
			const H alpha = B::random(rng), beta = B::random(rng);
			H *dA = to_device(A), *dB = to_device(Bm), *dC = to_device(C0);
			CHECK_CUBLAS(B::cu_gemm()(handle, ta, tb, m, n, k, B::dev(&alpha), B::dev(dA), lda,
						  B::dev(dB), ldb, B::dev(&beta), B::dev(dC), ldc));
			char what[96];
			std::snprintf(what, sizeof what, "%sgemm %s%s %dx%dx%d", B::name, op_name(ta), op_name(tb), m, n, k);
			ok &= check_gemm_result(what, ta, tb, m, n, k, alpha, A, lda, Bm, ldb, beta, C0,
						to_host(dC, C0.size()), ldc);
			cudaFree(dA);
			cudaFree(dB);
			cudaFree(dC);
		}
	return ok;
}

// beta = 0: C is not read (NaN stays out); alpha and beta from device memory.
template <class H> static bool test_gemm_beta_zero_device_scalars(cublasHandle_t handle, Rng &rng)
{
	using B = Blas<H>;
	const int m = 19, n = 23, k = 17;
	const std::vector<H> A = random_vector<H>(rng, (size_t)m * k), Bm = random_vector<H>(rng, (size_t)k * n);
	std::vector<H> C0((size_t)m * n, H(NAN));
	const std::vector<H> scalars = {B::random(rng), H(0)};
	H *dA = to_device(A), *dB = to_device(Bm), *dC = to_device(C0), *dS = to_device(scalars);
	CHECK_CUBLAS(cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_DEVICE));
	CHECK_CUBLAS(B::cu_gemm()(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, B::dev(dS), B::dev(dA), m,
				  B::dev(dB), k, B::dev(dS + 1), B::dev(dC), m));
	CHECK_CUBLAS(cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_HOST));
	char what[64];
	std::snprintf(what, sizeof what, "%sgemm beta = 0 over NaN, device scalars", B::name);
	const bool ok = check_gemm_result(what, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, scalars[0], A, m, Bm, k,
					  H(0), C0, to_host(dC, C0.size()), m);
	cudaFree(dA);
	cudaFree(dB);
	cudaFree(dC);
	cudaFree(dS);
	return ok;
}

template <class H> static bool test_gemm_batched(cublasHandle_t handle, Rng &rng)
{
	using B = Blas<H>;
	const int m = 21, n = 18, k = 13, batch = 3;
	const cublasOperation_t ta = CUBLAS_OP_T, tb = B::complex ? CUBLAS_OP_C : CUBLAS_OP_N;
	const int lda = k + 1, ldb = tb == CUBLAS_OP_N ? k : n, ldc = m;
	const long long sa = (long long)lda * m + 5, sb = (long long)ldb * (tb == CUBLAS_OP_N ? n : k) + 7,
			sc = (long long)ldc * n + 3;
	const std::vector<H> A = random_vector<H>(rng, sa * batch), Bm = random_vector<H>(rng, sb * batch);
	const std::vector<H> C0 = random_vector<H>(rng, sc * batch);
	const H alpha = B::random(rng), beta = B::random(rng);
	bool ok = true;
	for (int pass = 0; pass < 2; ++pass) {
		const bool strided = pass == 0;
		H *dA = to_device(A), *dB = to_device(Bm), *dC = to_device(C0);
		if (strided) {
			CHECK_CUBLAS(B::cu_gemm_strided()(handle, ta, tb, m, n, k, B::dev(&alpha), B::dev(dA), lda, sa,
							  B::dev(dB), ldb, sb, B::dev(&beta), B::dev(dC), ldc, sc,
							  batch));
		} else {
			std::vector<const typename B::Dev *> a_ptrs, b_ptrs;
			std::vector<typename B::Dev *> c_ptrs;
			for (int b = 0; b < batch; ++b) {
				a_ptrs.push_back(B::dev(dA + b * sa));
				b_ptrs.push_back(B::dev(dB + b * sb));
				c_ptrs.push_back(B::dev(dC + b * sc));
			}
			auto *da = to_device(a_ptrs);
			auto *db = to_device(b_ptrs);
			auto *dc = to_device(c_ptrs);
			CHECK_CUBLAS(B::cu_gemm_batched()(handle, ta, tb, m, n, k, B::dev(&alpha), da, lda, db, ldb,
							  B::dev(&beta), dc, ldc, batch));
			cudaFree(da);
			cudaFree(db);
			cudaFree(dc);
		}
		const std::vector<H> got = to_host(dC, C0.size());
		for (int b = 0; b < batch; ++b) {
			char what[96];
			std::snprintf(what, sizeof what, "%sgemm%s batch %d", B::name,
				      strided ? "StridedBatched" : "Batched", b);
			const std::vector<H> Ab(A.begin() + b * sa, A.begin() + (b + 1) * sa);
			const std::vector<H> Bb(Bm.begin() + b * sb, Bm.begin() + (b + 1) * sb);
			const std::vector<H> Cb(C0.begin() + b * sc, C0.begin() + b * sc + (long long)ldc * n);
			const std::vector<H> Gb(got.begin() + b * sc, got.begin() + b * sc + (long long)ldc * n);
			ok &= check_gemm_result(what, ta, tb, m, n, k, alpha, Ab, lda, Bb, ldb, beta, Cb, Gb, ldc);
		}
		cudaFree(dA);
		cudaFree(dB);
		cudaFree(dC);
	}
	return ok;
}

// syrk: the uplo triangle of C = alpha op(A) op(A)^T + beta C against cblas
// ?syrk, the other triangle exactly as it was.
template <class H> static bool test_syrk(cublasHandle_t handle, Rng &rng)
{
	using B = Blas<H>;
	const int n = 27, k = 19;
	bool ok = true;
	for (cublasFillMode_t uplo : {CUBLAS_FILL_MODE_LOWER, CUBLAS_FILL_MODE_UPPER})
		for (cublasOperation_t trans : {CUBLAS_OP_N, CUBLAS_OP_T}) {
			const int rows = trans == CUBLAS_OP_N ? n : k, cols = trans == CUBLAS_OP_N ? k : n;
			const int lda = rows + 2, ldc = n + 1;
			const std::vector<H> A = random_vector<H>(rng, (size_t)lda * cols);
			const std::vector<H> C0 = random_vector<H>(rng, (size_t)ldc * n);
			const H alpha = B::random(rng), beta = B::random(rng);
			H *dA = to_device(A), *dC = to_device(C0);
			CHECK_CUBLAS(B::cu_syrk()(handle, uplo, trans, n, k, B::dev(&alpha), B::dev(dA), lda,
						  B::dev(&beta), B::dev(dC), ldc));
			const std::vector<H> got = to_host(dC, C0.size());
			std::vector<H> want = C0;
			B::syrk(uplo == CUBLAS_FILL_MODE_LOWER ? CblasLower : CblasUpper, cblas_op(trans), n, k, alpha,
				A.data(), lda, beta, want.data(), ldc);
			char what[64];
			std::snprintf(what, sizeof what, "%ssyrk %s %s", B::name,
				      uplo == CUBLAS_FILL_MODE_LOWER ? "lower" : "upper", op_name(trans));
			Comparison cmp{what};
			const cublasOperation_t other = trans == CUBLAS_OP_N ? CUBLAS_OP_T : CUBLAS_OP_N;
			for (int j = 0; j < n; ++j)
				for (int i = 0; i < n; ++i) {
					const size_t at = i + (size_t)j * ldc;
					const bool in_triangle = uplo == CUBLAS_FILL_MODE_LOWER ? i >= j : i <= j;
					if (!in_triangle) {
						cmp.element(got[at], C0[at], 0, at);
						continue;
					}
					double size = 0;
					for (int p = 0; p < k; ++p)
						size += mag(op_element(A, lda, trans, i, p)) * mag(op_element(A, lda, other, p, j));
					cmp.element(got[at], want[at],
						    4 * (k + 2) * B::eps * (mag(alpha) * size + mag(beta) * mag(C0[at])), at);
				}
			ok &= cmp.ok();
			cudaFree(dA);
			cudaFree(dC);
		}
	return ok;
}

// A triangular matrix that is well conditioned: off-diagonal entries in
// (-1, 1) / size, the diagonal 1 + |u|. The unused triangle (and, for a unit
// diagonal, the diagonal) holds 1e3, which a solve must not read.
template <class H>
static std::vector<H> triangular_matrix(Rng &rng, int size, int lda, cublasFillMode_t uplo, cublasDiagType_t diag)
{
	std::vector<H> A((size_t)lda * size, H(1e3));
	for (int j = 0; j < size; ++j)
		for (int i = 0; i < size; ++i) {
			const bool stored = uplo == CUBLAS_FILL_MODE_LOWER ? i > j : i < j;
			if (stored)
				A[i + (size_t)j * lda] = Blas<H>::random(rng) * (typename Blas<H>::Real)(1.0 / size);
			else if (i == j && diag == CUBLAS_DIAG_NON_UNIT)
				A[i + (size_t)j * lda] = H(1 + std::fabs(rng.uniform(-1, 1)));
		}
	return A;
}

// Element (i, j) of op(T) where T is A's uplo triangle (unit diagonal if asked).
template <class H>
static H triangle_op(const std::vector<H> &A, int lda, cublasFillMode_t uplo, cublasDiagType_t diag,
		     cublasOperation_t op, int i, int j)
{
	const int r = op == CUBLAS_OP_N ? i : j, c = op == CUBLAS_OP_N ? j : i;
	if (r == c && diag == CUBLAS_DIAG_UNIT)
		return H(1);
	const bool stored = uplo == CUBLAS_FILL_MODE_LOWER ? r >= c : r <= c;
	return stored ? op_element(A, lda, op, i, j) : H(0);
}

// trsm: X with op(A) X = alpha B (left) or X op(A) = alpha B (right); the
// residual of each element within 4 (size + 2) eps (|op(A)| |X| + |alpha B|).
template <class H> static bool test_trsm(cublasHandle_t handle, Rng &rng)
{
	using B = Blas<H>;
	const int m = 23, n = 17;
	bool ok = true;
	for (cublasSideMode_t side : {CUBLAS_SIDE_LEFT, CUBLAS_SIDE_RIGHT})
		for (cublasFillMode_t uplo : {CUBLAS_FILL_MODE_LOWER, CUBLAS_FILL_MODE_UPPER})
			for (cublasOperation_t trans : kOps)
				for (cublasDiagType_t diag : {CUBLAS_DIAG_NON_UNIT, CUBLAS_DIAG_UNIT}) {
					const bool left = side == CUBLAS_SIDE_LEFT;
					const int size = left ? m : n, lda = size + 1, ldb = m + 2;
					const std::vector<H> A = triangular_matrix<H>(rng, size, lda, uplo, diag);
					const std::vector<H> B0 = random_vector<H>(rng, (size_t)ldb * n);
					const H alpha = B::random(rng);
					H *dA = to_device(A), *dB = to_device(B0);
					CHECK_CUBLAS(B::cu_trsm()(handle, side, uplo, trans, diag, m, n, B::dev(&alpha),
								  B::dev(dA), lda, B::dev(dB), ldb));
					const std::vector<H> X = to_host(dB, B0.size());
					char what[64];
					std::snprintf(what, sizeof what, "%strsm %s %s %s %s", B::name, left ? "left" : "right",
						      uplo == CUBLAS_FILL_MODE_LOWER ? "lower" : "upper", op_name(trans),
						      diag == CUBLAS_DIAG_UNIT ? "unit" : "non-unit");
					Comparison cmp{what};
					for (int j = 0; j < n; ++j)
						for (int i = 0; i < m; ++i) {
							H product = H(0);
							double size_sum = 0;
							for (int p = 0; p < size; ++p) {
								const H t = left ? triangle_op(A, lda, uplo, diag, trans, i, p)
										 : triangle_op(A, lda, uplo, diag, trans, p, j);
								const H x = left ? X[p + (size_t)j * ldb] : X[i + (size_t)p * ldb];
								product += t * x;
								size_sum += mag(t) * mag(x);
							}
							const H rhs = alpha * B0[i + (size_t)j * ldb];
							cmp.element(product, rhs, 4 * (size + 2) * B::eps * (size_sum + mag(rhs)),
								    i + (long long)j * ldb);
						}
					ok &= cmp.ok();
					cudaFree(dA);
					cudaFree(dB);
				}
	return ok;
}

// geam: C = alpha op(A) + beta op(B), each element within 4 eps (|alpha a| +
// |beta b|), and in place (C == A).
template <class H> static bool test_geam(cublasHandle_t handle, Rng &rng)
{
	using B = Blas<H>;
	const int m = 31, n = 14;
	bool ok = true;
	for (cublasOperation_t ta : kOps)
		for (cublasOperation_t tb : kOps) {
			const int lda = (ta == CUBLAS_OP_N ? m : n) + 1, ldb = (tb == CUBLAS_OP_N ? m : n) + 2, ldc = m;
			const std::vector<H> A = random_vector<H>(rng, (size_t)lda * (ta == CUBLAS_OP_N ? n : m));
			const std::vector<H> Bm = random_vector<H>(rng, (size_t)ldb * (tb == CUBLAS_OP_N ? n : m));
			const H alpha = B::random(rng), beta = B::random(rng);
			H *dA = to_device(A), *dB = to_device(Bm), *dC = nullptr;
			CHECK_CUDA(cudaMalloc(&dC, sizeof(H) * ldc * n));
			CHECK_CUBLAS(B::cu_geam()(handle, ta, tb, m, n, B::dev(&alpha), B::dev(dA), lda, B::dev(&beta),
						  B::dev(dB), ldb, B::dev(dC), ldc));
			const std::vector<H> got = to_host(dC, (size_t)ldc * n);
			char what[64];
			std::snprintf(what, sizeof what, "%sgeam %s%s", B::name, op_name(ta), op_name(tb));
			Comparison cmp{what};
			for (int j = 0; j < n; ++j)
				for (int i = 0; i < m; ++i) {
					const H a = alpha * op_element(A, lda, ta, i, j), b = beta * op_element(Bm, ldb, tb, i, j);
					cmp.element(got[i + (size_t)j * ldc], a + b, 4 * B::eps * (mag(a) + mag(b)),
						    i + (long long)j * ldc);
				}
			ok &= cmp.ok();
			cudaFree(dA);
			cudaFree(dB);
			cudaFree(dC);
		}
	// In place: C = alpha C + beta B.
	const std::vector<H> C0 = random_vector<H>(rng, (size_t)m * n), Bm = random_vector<H>(rng, (size_t)m * n);
	const H alpha = B::random(rng), beta = B::random(rng);
	H *dC = to_device(C0), *dB = to_device(Bm);
	CHECK_CUBLAS(B::cu_geam()(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, B::dev(&alpha), B::dev(dC), m,
				  B::dev(&beta), B::dev(dB), m, B::dev(dC), m));
	const std::vector<H> got = to_host(dC, C0.size());
	char what[64];
	std::snprintf(what, sizeof what, "%sgeam in place", B::name);
	Comparison cmp{what};
	for (size_t e = 0; e < C0.size(); ++e)
		cmp.element(got[e], alpha * C0[e] + beta * Bm[e], 4 * B::eps * (mag(alpha * C0[e]) + mag(beta * Bm[e])),
			    (long long)e);
	cudaFree(dC);
	cudaFree(dB);
	return ok && cmp.ok();
}

template <class H> static bool test_precision(cublasHandle_t handle, Rng &rng)
{
	bool ok = test_gemm<H>(handle, rng, 37, 29, 41);
	ok &= test_gemm<H>(handle, rng, 130, 72, 33); // enough tiles for the 64 x 64 kernel
	ok &= test_gemm<H>(handle, rng, 5, 3, 0);     // k = 0: C = beta C
	ok &= test_gemm_beta_zero_device_scalars<H>(handle, rng);
	ok &= test_gemm_batched<H>(handle, rng);
	ok &= test_syrk<H>(handle, rng);
	ok &= test_trsm<H>(handle, rng);
	ok &= test_geam<H>(handle, rng);
	return ok;
}

// ---- Mixed precision: GemmEx, GemmStridedBatchedEx, Hgemm ----

static float to_float(float x) { return x; }
static float to_float(__half x) { return __half2float(x); }
static float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }
template <class T> static T from_float(float x);
template <> float from_float<float>(float x) { return x; }
template <> __half from_float<__half>(float x) { return __float2half(x); }
template <> __nv_bfloat16 from_float<__nv_bfloat16>(float x) { return __float2bfloat16(x); }

// Inputs stored as TAB, C as TC, reference in double from the stored values;
// bound 4 (k + 2) eps_float (|alpha| |A||B| + |beta C|) for the float
// accumulation plus the output's rounding, eps_out |C|.
template <class TAB, class TC>
static bool test_gemm_ex(cublasHandle_t handle, Rng &rng, const char *what, cudaDataType ab_type,
			 cudaDataType c_type, cublasComputeType_t compute, double eps_out, int batch)
{
	const int m = 33, n = 20, k = 24, lda = k, ldb = k, ldc = m; // A transposed, B not
	const long long sa = (long long)lda * m, sb = (long long)ldb * n, sc = (long long)ldc * n;
	std::vector<TAB> A(sa * batch), B(sb * batch);
	std::vector<TC> C(sc * batch);
	for (TAB &x : A)
		x = from_float<TAB>(rng.uniform(-1, 1));
	for (TAB &x : B)
		x = from_float<TAB>(rng.uniform(-1, 1));
	for (TC &x : C)
		x = from_float<TC>(rng.uniform(-1, 1));
	const float alpha = 1.5f, beta = -0.5f; // exact in every format
	const __half alpha_h = __float2half(alpha), beta_h = __float2half(beta);
	const bool half_scale = compute == CUBLAS_COMPUTE_16F;
	const void *pa = half_scale ? (const void *)&alpha_h : &alpha, *pb = half_scale ? (const void *)&beta_h : &beta;
	TAB *dA = to_device(A), *dB = to_device(B);
	TC *dC = to_device(C);
	if (batch == 1)
		CHECK_CUBLAS(cublasGemmEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, pa, dA, ab_type, lda, dB, ab_type,
					  ldb, pb, dC, c_type, ldc, compute, CUBLAS_GEMM_DEFAULT));
	else
		CHECK_CUBLAS(cublasGemmStridedBatchedEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, pa, dA, ab_type, lda,
							sa, dB, ab_type, ldb, sb, pb, dC, c_type, ldc, sc, batch,
							compute, CUBLAS_GEMM_DEFAULT));
	const std::vector<TC> got = to_host(dC, C.size());
	Comparison cmp{what};
	for (int b = 0; b < batch; ++b)
		for (int j = 0; j < n; ++j)
			for (int i = 0; i < m; ++i) {
				double sum = 0, size = 0;
				for (int p = 0; p < k; ++p) {
					const double a = to_float(A[b * sa + p + (long long)i * lda]);
					const double bv = to_float(B[b * sb + p + (long long)j * ldb]);
					sum += a * bv;
					size += std::fabs(a * bv);
				}
				const long long at = b * sc + i + (long long)j * ldc;
				const double c0 = to_float(C[at]);
				const double want = alpha * sum + beta * c0;
				const double bound = 4 * (k + 2) * FLT_EPSILON * (std::fabs(alpha) * size + std::fabs(beta * c0)) +
						     eps_out * std::fabs(want);
				cmp.element((double)to_float(got[at]), want, bound, at);
			}
	cudaFree(dA);
	cudaFree(dB);
	cudaFree(dC);
	return cmp.ok();
}

static bool test_mixed_precision(cublasHandle_t handle, Rng &rng)
{
	const double eps_half = 1.0 / 1024, eps_bf16 = 1.0 / 128;
	bool ok = test_gemm_ex<__half, __half>(handle, rng, "GemmEx 16F/16F compute 16F", CUDA_R_16F, CUDA_R_16F,
					       CUBLAS_COMPUTE_16F, eps_half, 1);
	ok &= test_gemm_ex<__half, __half>(handle, rng, "GemmEx 16F/16F compute 32F", CUDA_R_16F, CUDA_R_16F,
					   CUBLAS_COMPUTE_32F, eps_half, 1);
	ok &= test_gemm_ex<__half, float>(handle, rng, "GemmEx 16F/32F compute 32F", CUDA_R_16F, CUDA_R_32F,
					  CUBLAS_COMPUTE_32F, 0, 1);
	ok &= test_gemm_ex<__nv_bfloat16, __nv_bfloat16>(handle, rng, "GemmEx 16BF/16BF compute 32F", CUDA_R_16BF,
							 CUDA_R_16BF, CUBLAS_COMPUTE_32F, eps_bf16, 1);
	ok &= test_gemm_ex<__nv_bfloat16, float>(handle, rng, "GemmEx 16BF/32F compute 32F pedantic", CUDA_R_16BF,
						 CUDA_R_32F, CUBLAS_COMPUTE_32F_PEDANTIC, 0, 1);
	ok &= test_gemm_ex<float, float>(handle, rng, "GemmEx 32F compute 32F fast TF32", CUDA_R_32F, CUDA_R_32F,
					 CUBLAS_COMPUTE_32F_FAST_TF32, 0, 1);
	ok &= test_gemm_ex<__half, float>(handle, rng, "GemmStridedBatchedEx 16F/32F compute 32F", CUDA_R_16F,
					  CUDA_R_32F, CUBLAS_COMPUTE_32F, 0, 3);
	ok &= test_gemm_ex<__nv_bfloat16, __nv_bfloat16>(handle, rng, "GemmStridedBatchedEx 16BF compute 32F",
							 CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F, eps_bf16, 2);

	// Hgemm: half in, half out, half scalars.
	{
		const int m = 16, n = 12, k = 20;
		std::vector<__half> A(m * k), B(k * n), C(m * n);
		for (auto &x : A)
			x = __float2half(rng.uniform(-1, 1));
		for (auto &x : B)
			x = __float2half(rng.uniform(-1, 1));
		for (auto &x : C)
			x = __float2half(rng.uniform(-1, 1));
		const __half alpha = __float2half(2.0f), beta = __float2half(0.25f);
		__half *dA = to_device(A), *dB = to_device(B), *dC = to_device(C);
		CHECK_CUBLAS(cublasHgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, dA, m, dB, k, &beta, dC, m));
		const std::vector<__half> got = to_host(dC, C.size());
		Comparison cmp{"Hgemm NN"};
		for (int j = 0; j < n; ++j)
			for (int i = 0; i < m; ++i) {
				double sum = 0, size = 0;
				for (int p = 0; p < k; ++p) {
					const double prod = (double)__half2float(A[i + p * m]) * __half2float(B[p + j * k]);
					sum += prod;
					size += std::fabs(prod);
				}
				const double c0 = __half2float(C[i + j * m]), want = 2.0 * sum + 0.25 * c0;
				cmp.element((double)__half2float(got[i + j * m]), want,
					    4 * (k + 2) * FLT_EPSILON * (2 * size + std::fabs(0.25 * c0)) + eps_half * std::fabs(want),
					    i + j * m);
			}
		ok &= cmp.ok();
		cudaFree(dA);
		cudaFree(dB);
		cudaFree(dC);
	}
	return ok;
}

int main()
{
	cublasHandle_t handle;
	CHECK_CUBLAS(cublasCreate(&handle));
	Rng rng(42);
	bool ok = test_precision<float>(handle, rng);
	ok &= test_precision<double>(handle, rng);
	ok &= test_precision<cf>(handle, rng);
	ok &= test_precision<cd>(handle, rng);
	ok &= test_mixed_precision(handle, rng);
	CHECK_CUBLAS(cublasDestroy(handle));
	return report("cublas_level3", ok);
}
