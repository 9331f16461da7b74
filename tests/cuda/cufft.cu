// SPDX-License-Identifier: MIT
// cuFFT (cufft.h, libcufft) against FFTW 3 (Debian's libfftw3), the
// reference a host program would use: complex and real transforms in one
// to three dimensions, single and double precision, sizes of every kind
// (powers of two, mixed radices 2-7, radices up to 61, primes above that
// through Bluestein), batches, in place (real data padded as cuFFT pads
// it) and out of place, the advanced layout, a work area of the caller's,
// a stream; the error in the relative L2 norm within a bound that grows
// with log2(n), as an FFT's does. Then cuFFT's result codes for bad plans
// and calls.
// simtcc-flags: -lcufft -lfftw3 -lfftw3f
#include <cufft.h>
#include <cufftXt.h>
#include <fftw3.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <vector>

#include "test_util.h"
#include "vector_copies.h"

#define CHECK_CUFFT(call)                                                                    \
	do {                                                                                 \
		cufftResult r_ = (call);                                                     \
		if (r_ != CUFFT_SUCCESS) {                                                   \
			fprintf(stderr, "%s:%d: %s: result %d\n", __FILE__, __LINE__, #call, \
				int(r_));                                                    \
			exit(1);                                                             \
		}                                                                            \
	} while (0)

namespace {

Rng rng(2024);

template <typename R> std::vector<R> random_reals(size_t n)
{
	std::vector<R> v(n);
	for (R &x : v)
		x = R(rng.spread(-1.0, 1.0));
	return v;
}

// ||got - want|| / ||want|| over complex or real arrays of doubles.
double relative_error(const double *got, const double *want, size_t count)
{
	double num = 0, den = 0;
	for (size_t i = 0; i < count; ++i) {
		num += (got[i] - want[i]) * (got[i] - want[i]);
		den += want[i] * want[i];
	}
	return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

// An FFT's error grows as log2(n) epsilon; Bluestein's convolution (a
// prime factor above 61) is three FFTs of twice the length deep.
template <typename R> double bound(long long n, bool bluestein)
{
	const double eps = sizeof(R) == 4 ? 1.19e-7 : 2.22e-16;
	return 3 * eps * (std::log2(double(std::max(2LL, n))) + 2) * (bluestein ? 4 : 1);
}

bool has_large_prime(long long n)
{
	for (long long f = 2; f * f <= n; ++f)
		while (n % f == 0)
			n /= f;
	return n > 61;
}

bool check(const char *what, double err, double tol)
{
	if (!(err <= tol))
		printf("  %s: relative error %.3g, bound %.3g\n", what, err, tol);
	return expect(err <= tol, what);
}

// FFTW's answer for a batch of rank-d complex transforms (contiguous).
template <typename R>
std::vector<std::complex<double>> fftw_c2c(const std::vector<std::complex<R>> &in,
					   const std::vector<int> &n, int batch, int sign)
{
	size_t total = 1;
	for (int d : n)
		total *= d;
	std::vector<std::complex<double>> out(total * batch), buf(total);
	for (int b = 0; b < batch; ++b) {
		for (size_t i = 0; i < total; ++i)
			buf[i] = std::complex<double>(in[b * total + i]);
		fftw_plan p = fftw_plan_dft(int(n.size()), n.data(),
					    reinterpret_cast<fftw_complex *>(buf.data()),
					    reinterpret_cast<fftw_complex *>(out.data() + b * total), sign,
					    FFTW_ESTIMATE);
		fftw_execute(p);
		fftw_destroy_plan(p);
	}
	return out;
}

template <typename R> cufftType c2c_type() { return sizeof(R) == 4 ? CUFFT_C2C : CUFFT_Z2Z; }
template <typename R> cufftType r2c_type() { return sizeof(R) == 4 ? CUFFT_R2C : CUFFT_D2Z; }
template <typename R> cufftType c2r_type() { return sizeof(R) == 4 ? CUFFT_C2R : CUFFT_Z2D; }

template <typename R> cufftResult exec_c2c(cufftHandle p, void *in, void *out, int dir)
{
	if (sizeof(R) == 4)
		return cufftExecC2C(p, (cufftComplex *)in, (cufftComplex *)out, dir);
	return cufftExecZ2Z(p, (cufftDoubleComplex *)in, (cufftDoubleComplex *)out, dir);
}
template <typename R> cufftResult exec_r2c(cufftHandle p, void *in, void *out)
{
	if (sizeof(R) == 4)
		return cufftExecR2C(p, (cufftReal *)in, (cufftComplex *)out);
	return cufftExecD2Z(p, (cufftDoubleReal *)in, (cufftDoubleComplex *)out);
}
template <typename R> cufftResult exec_c2r(cufftHandle p, void *in, void *out)
{
	if (sizeof(R) == 4)
		return cufftExecC2R(p, (cufftComplex *)in, (cufftReal *)out);
	return cufftExecZ2D(p, (cufftDoubleComplex *)in, (cufftDoubleReal *)out);
}

cufftHandle plan_of(const std::vector<int> &n, cufftType type, int batch)
{
	cufftHandle p;
	std::vector<int> dims = n;
	CHECK_CUFFT(cufftPlanMany(&p, int(dims.size()), dims.data(), nullptr, 1, 0, nullptr, 1, 0,
				  type, batch));
	return p;
}

// Complex transforms, both directions, out of place and in place.
template <typename R> bool complex_case(const std::vector<int> &n, int batch)
{
	size_t total = 1;
	bool large_prime = false;
	long long longest = 1;
	for (int d : n) {
		total *= d;
		large_prime |= has_large_prime(d);
		longest = std::max<long long>(longest, d);
	}
	const size_t count = total * batch;
	std::vector<R> flat = random_reals<R>(2 * count);
	std::vector<std::complex<R>> in(count);
	std::memcpy(in.data(), flat.data(), count * sizeof(in[0]));
	cufftHandle p = plan_of(n, c2c_type<R>(), batch);
	bool ok = true;
	char what[96];
	for (int sign : {CUFFT_FORWARD, CUFFT_INVERSE}) {
		std::vector<std::complex<double>> want = fftw_c2c(in, n, batch, sign);
		for (bool in_place : {false, true}) {
			std::complex<R> *d_in = to_device(in), *d_out = d_in;
			if (!in_place)
				CHECK_CUDA(cudaMalloc(&d_out, count * sizeof(in[0])));
			CHECK_CUFFT(exec_c2c<R>(p, d_in, d_out, sign));
			std::vector<std::complex<R>> got = to_host(d_out, count);
			std::vector<std::complex<double>> g(got.begin(), got.end());
			snprintf(what, sizeof what, "%s %zu-D n[0]=%d%s batch %d %s %s",
				 sizeof(R) == 4 ? "C2C" : "Z2Z", n.size(), n[0], n.size() > 1 ? "..." : "",
				 batch, sign < 0 ? "forward" : "inverse", in_place ? "in place" : "out of place");
			ok &= check(what,
				    relative_error(reinterpret_cast<double *>(g.data()),
						   reinterpret_cast<double *>(want.data()), 2 * count),
				    bound<R>(longest, large_prime) * std::sqrt(double(n.size())));
			CHECK_CUDA(cudaFree(d_in));
			if (!in_place)
				CHECK_CUDA(cudaFree(d_out));
		}
	}
	CHECK_CUFFT(cufftDestroy(p));
	return ok;
}

// Real to complex and back: R2C against FFTW's r2c (the Hermitian half),
// C2R of that half back to n times the input.
template <typename R> bool real_case(const std::vector<int> &n, int batch, bool in_place)
{
	size_t total = 1, half_total = 1;
	bool large_prime = false;
	long long longest = 1;
	for (size_t d = 0; d < n.size(); ++d) {
		total *= n[d];
		half_total *= d + 1 == n.size() ? n[d] / 2 + 1 : n[d];
		large_prime |= has_large_prime(n[d]);
		longest = std::max<long long>(longest, n[d]);
	}
	const int last = n.back(), padded = 2 * (last / 2 + 1);
	const size_t rows = total / last;
	std::vector<R> in = random_reals<R>(total * batch);
	// FFTW's half spectrum.
	std::vector<std::complex<double>> want(half_total * batch);
	std::vector<double> buf(total);
	for (int b = 0; b < batch; ++b) {
		for (size_t i = 0; i < total; ++i)
			buf[i] = in[b * total + i];
		fftw_plan p = fftw_plan_dft_r2c(int(n.size()), n.data(), buf.data(),
						reinterpret_cast<fftw_complex *>(want.data() + b * half_total),
						FFTW_ESTIMATE);
		fftw_execute(p);
		fftw_destroy_plan(p);
	}
	// The device's real array: padded to 2 (n/2 + 1) per row in place.
	const int row = in_place ? padded : last;
	std::vector<R> dev_in(rows * row * batch, R(0));
	for (size_t r = 0; r < rows * batch; ++r)
		std::memcpy(&dev_in[r * row], &in[r * last], last * sizeof(R));
	R *d_real = to_device(dev_in);
	std::complex<R> *d_half = reinterpret_cast<std::complex<R> *>(d_real);
	if (!in_place)
		CHECK_CUDA(cudaMalloc(&d_half, half_total * batch * sizeof(std::complex<R>)));
	cufftHandle fwd = plan_of(n, r2c_type<R>(), batch), inv = plan_of(n, c2r_type<R>(), batch);
	CHECK_CUFFT(exec_r2c<R>(fwd, d_real, d_half));
	std::vector<std::complex<R>> got = to_host(d_half, half_total * batch);
	std::vector<std::complex<double>> g(got.begin(), got.end());
	char what[96];
	snprintf(what, sizeof what, "%s %zu-D last %d batch %d %s", sizeof(R) == 4 ? "R2C" : "D2Z",
		 n.size(), last, batch, in_place ? "in place" : "out of place");
	const double tol = bound<R>(longest, large_prime) * std::sqrt(double(n.size()));
	bool ok = check(what,
			relative_error(reinterpret_cast<double *>(g.data()),
				       reinterpret_cast<double *>(want.data()), 2 * g.size()),
			tol);
	// Back: C2R of the half gives total times the input.
	R *d_back = in_place ? d_real : nullptr;
	if (!in_place)
		CHECK_CUDA(cudaMalloc(&d_back, rows * row * batch * sizeof(R)));
	CHECK_CUFFT(exec_c2r<R>(inv, d_half, d_back));
	std::vector<R> back = to_host(d_back, rows * row * batch);
	std::vector<double> got_back, want_back;
	for (size_t r = 0; r < rows * batch; ++r)
		for (int i = 0; i < last; ++i) {
			got_back.push_back(double(back[r * row + i]) / double(total));
			want_back.push_back(double(in[r * last + i]));
		}
	snprintf(what, sizeof what, "%s %zu-D last %d batch %d %s", sizeof(R) == 4 ? "C2R" : "Z2D",
		 n.size(), last, batch, in_place ? "in place" : "out of place");
	ok &= check(what, relative_error(got_back.data(), want_back.data(), got_back.size()), 2 * tol);
	CHECK_CUFFT(cufftDestroy(fwd));
	CHECK_CUFFT(cufftDestroy(inv));
	CHECK_CUDA(cudaFree(d_real));
	if (!in_place) {
		CHECK_CUDA(cudaFree(d_half));
		CHECK_CUDA(cudaFree(d_back));
	}
	return ok;
}

// The advanced layout: four signals of 32 interleaved (istride 4, idist 1)
// into contiguous rows (ostride 1, odist 32), with a work area of the
// caller's and a stream.
bool advanced_layout()
{
	const int n = 32, batch = 4;
	std::vector<float> flat = random_reals<float>(2 * n * batch);
	std::vector<std::complex<float>> in(n * batch), rows(n * batch);
	std::memcpy(in.data(), flat.data(), in.size() * sizeof(in[0]));
	for (int b = 0; b < batch; ++b)
		for (int i = 0; i < n; ++i)
			rows[b * n + i] = in[i * batch + b];
	std::vector<std::complex<double>> want = fftw_c2c(rows, {n}, batch, FFTW_FORWARD);
	cufftHandle p;
	CHECK_CUFFT(cufftCreate(&p));
	CHECK_CUFFT(cufftSetAutoAllocation(p, 0));
	int dims[1] = {n}, inembed[1] = {n}, onembed[1] = {n};
	size_t work_size = 0;
	CHECK_CUFFT(cufftMakePlanMany(p, 1, dims, inembed, batch, 1, onembed, 1, n, CUFFT_C2C, batch,
				      &work_size));
	void *work;
	CHECK_CUDA(cudaMalloc(&work, work_size));
	CHECK_CUFFT(cufftSetWorkArea(p, work));
	cudaStream_t stream;
	CHECK_CUDA(cudaStreamCreate(&stream));
	CHECK_CUFFT(cufftSetStream(p, stream));
	std::complex<float> *d_in = to_device(in), *d_out;
	CHECK_CUDA(cudaMalloc(&d_out, in.size() * sizeof(in[0])));
	CHECK_CUFFT(cufftExecC2C(p, (cufftComplex *)d_in, (cufftComplex *)d_out, CUFFT_FORWARD));
	CHECK_CUDA(cudaStreamSynchronize(stream));
	std::vector<std::complex<float>> got = to_host(d_out, in.size());
	std::vector<std::complex<double>> g(got.begin(), got.end());
	bool ok = check("advanced layout, caller's work area, a stream",
			relative_error(reinterpret_cast<double *>(g.data()),
				       reinterpret_cast<double *>(want.data()), 2 * g.size()),
			bound<float>(n, false));
	CHECK_CUFFT(cufftDestroy(p));
	CHECK_CUDA(cudaStreamDestroy(stream));
	CHECK_CUDA(cudaFree(work));
	CHECK_CUDA(cudaFree(d_in));
	CHECK_CUDA(cudaFree(d_out));
	return ok;
}

// cufftXt: a plan of cudaDataTypes (what simpleCUFFT makes), run by cufftXtExec.
bool xt_plan()
{
	const int n = 60;
	std::vector<float> flat = random_reals<float>(2 * n);
	std::vector<std::complex<float>> in(n);
	std::memcpy(in.data(), flat.data(), n * sizeof(in[0]));
	std::vector<std::complex<double>> want = fftw_c2c(in, {n}, 1, FFTW_BACKWARD);
	cufftHandle p;
	CHECK_CUFFT(cufftCreate(&p));
	long long dims[1] = {n};
	size_t work = 0;
	CHECK_CUFFT(cufftXtMakePlanMany(p, 1, dims, nullptr, 1, 1, CUDA_C_32F, nullptr, 1, 1,
					CUDA_C_32F, 1, &work, CUDA_C_32F));
	std::complex<float> *d = to_device(in);
	CHECK_CUFFT(cufftXtExec(p, d, d, CUFFT_INVERSE));
	std::vector<std::complex<float>> got = to_host(d, n);
	std::vector<std::complex<double>> g(got.begin(), got.end());
	bool ok = check("cufftXtMakePlanMany C2C, cufftXtExec inverse",
			relative_error(reinterpret_cast<double *>(g.data()),
				       reinterpret_cast<double *>(want.data()), 2 * n),
			bound<float>(n, false));
	CHECK_CUFFT(cufftDestroy(p));
	CHECK_CUDA(cudaFree(d));
	CHECK_CUFFT(cufftCreate(&p));
	ok &= expect(cufftXtMakePlanMany(p, 1, dims, nullptr, 1, 1, CUDA_C_16F, nullptr, 1, 1,
					 CUDA_C_16F, 1, &work, CUDA_C_16F) == CUFFT_NOT_SUPPORTED,
		     "half precision is refused");
	CHECK_CUFFT(cufftDestroy(p));
	return ok;
}

bool errors()
{
	bool ok = true;
	cufftHandle p;
	ok &= expect(cufftPlan1d(&p, 0, CUFFT_C2C, 1) == CUFFT_INVALID_SIZE, "a length of 0");
	ok &= expect(cufftPlan1d(&p, 16, cufftType(7), 1) == CUFFT_INVALID_TYPE, "a bad type");
	ok &= expect(cufftPlan1d(&p, 16, CUFFT_C2C, 0) == CUFFT_INVALID_SIZE, "a batch of 0");
	int n4[4] = {2, 2, 2, 2};
	ok &= expect(cufftPlanMany(&p, 4, n4, nullptr, 1, 0, nullptr, 1, 0, CUFFT_C2C, 1) ==
			     CUFFT_INVALID_SIZE,
		     "rank 4");
	CHECK_CUFFT(cufftPlan1d(&p, 16, CUFFT_R2C, 1));
	cufftComplex *d;
	CHECK_CUDA(cudaMalloc(&d, 16 * sizeof(cufftComplex)));
	ok &= expect(cufftExecC2C(p, d, d, CUFFT_FORWARD) == CUFFT_INVALID_VALUE,
		     "ExecC2C on an R2C plan");
	CHECK_CUFFT(cufftDestroy(p));
	ok &= expect(cufftExecR2C(p, (cufftReal *)d, d) == CUFFT_INVALID_PLAN, "a destroyed plan");
	CHECK_CUFFT(cufftPlan1d(&p, 16, CUFFT_C2C, 1));
	ok &= expect(cufftExecC2C(p, d, d, 0) == CUFFT_INVALID_VALUE, "direction 0");
	CHECK_CUFFT(cufftDestroy(p));
	CHECK_CUFFT(cufftCreate(&p));
	CHECK_CUFFT(cufftSetAutoAllocation(p, 0));
	size_t size;
	CHECK_CUFFT(cufftMakePlan1d(p, 16, CUFFT_C2C, 1, &size));
	ok &= expect(cufftExecC2C(p, d, d, CUFFT_FORWARD) == CUFFT_NO_WORKSPACE, "no work area");
	CHECK_CUFFT(cufftDestroy(p));
	int version = 0;
	CHECK_CUFFT(cufftGetVersion(&version));
	ok &= expect(version == CUFFT_VERSION, "cufftGetVersion");
	CHECK_CUDA(cudaFree(d));
	return ok;
}

} // namespace

int main()
{
	bool ok = true;
	// 1-D: powers of two, mixed radices, radices 11-61, Bluestein (97, 254 = 2 x 127).
	for (int n : {1, 2, 8, 12, 30, 49, 64, 77, 97, 210, 254, 1000})
		ok &= complex_case<float>({n}, 2);
	ok &= complex_case<float>({4096}, 3);
	for (int n : {16, 97, 1000})
		ok &= complex_case<double>({n}, 2);
	ok &= complex_case<float>({12, 30}, 1);
	ok &= complex_case<float>({4, 6, 10}, 2);
	ok &= complex_case<double>({5, 97}, 1);
	for (bool in_place : {false, true}) {
		for (int n : {16, 30, 97})
			ok &= real_case<float>({n}, 2, in_place);
		ok &= real_case<double>({64}, 3, in_place);
		ok &= real_case<float>({16, 18}, 1, in_place);
		ok &= real_case<double>({4, 5, 6}, 2, in_place);
	}
	ok &= advanced_layout();
	ok &= xt_plan();
	ok &= errors();
	return report("cufft", ok);
}
