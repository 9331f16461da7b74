// SPDX-License-Identifier: MIT
// cuBLAS Level 1 against Debian's reference BLAS (CBLAS), in S, D, C and Z,
// with positive, strided and negative increments and both pointer modes:
// axpy, scal, copy, swap, dot/dotu/dotc, nrm2, asum, i?amax/i?amin, rot.
// Reductions within n * eps times the sum of their terms' magnitudes
// (cublas_test.h); element-wise routines within a few eps of each element.
// simtcc-flags: -std=c++17 -lcublas -lblas
#include "cublas_test.h"

#include <type_traits>

// Where element i of an n-vector with increment inc lies (BLAS's rule for inc < 0).
static size_t at(int i, int n, int inc) { return inc >= 0 ? (size_t)i * inc : (size_t)(n - 1 - i) * -inc; }

struct Increments {
	int x, y;
};
static const Increments kIncrements[] = {{1, 1}, {2, 3}, {-1, 2}, {3, -2}};

// A scalar argument in the handle's pointer mode: the host value or a device copy.
template <class H> struct ScalarArg {
	H host;
	H *device = nullptr;
	ScalarArg(H value, bool on_device) : host(value)
	{
		if (on_device)
			device = to_device(std::vector<H>{value});
	}
	~ScalarArg() { cudaFree(device); }
	const H *get() const { return device ? device : &host; }
};

// A reduction's result in the handle's pointer mode, read back on the host.
template <class R> struct ResultArg {
	R host{};
	R *device = nullptr;
	explicit ResultArg(bool on_device)
	{
		if (on_device)
			CHECK_CUDA(cudaMalloc(&device, sizeof(R)));
	}
	~ResultArg() { cudaFree(device); }
	R *get() { return device ? device : &host; }
	R value()
	{
		if (device)
			CHECK_CUDA(cudaMemcpy(&host, device, sizeof(R), cudaMemcpyDeviceToHost));
		return host;
	}
};

template <class H> static bool test_precision(cublasHandle_t handle, Rng &rng, bool device_scalars)
{
	using B = Blas<H>;
	using R = typename B::Real;
	CHECK_CUBLAS(cublasSetPointerMode(handle, device_scalars ? CUBLAS_POINTER_MODE_DEVICE : CUBLAS_POINTER_MODE_HOST));
	const int n = 1000;
	bool ok = true;
	for (const Increments inc : kIncrements) {
		const size_t nx = (size_t)n * std::abs(inc.x), ny = (size_t)n * std::abs(inc.y);
		const std::vector<H> x = random_vector<H>(rng, nx), y = random_vector<H>(rng, ny);
		H *dx = to_device(x), *dy = to_device(y);
		char what[96];
		auto name = [&](const char *routine) {
			std::snprintf(what, sizeof what, "%s%s incx %d incy %d%s", B::name, routine, inc.x, inc.y,
				      device_scalars ? " (device pointers)" : "");
			return what;
		};

		// axpy: y + alpha x.
		{
			const ScalarArg<H> alpha(B::random(rng), device_scalars);
			CHECK_CUBLAS(B::cu_axpy()(handle, n, B::dev(alpha.get()), B::dev(dx), inc.x, B::dev(dy), inc.y));
			std::vector<H> want = y;
			B::axpy(n, alpha.host, x.data(), inc.x, want.data(), inc.y);
			const std::vector<H> got = to_host(dy, ny);
			Comparison cmp{name("axpy")};
			for (size_t e = 0; e < ny; ++e)
				cmp.element(got[e], want[e], 4 * B::eps * (mag(y[e]) + mag(alpha.host) * 2), (long long)e);
			ok &= cmp.ok();
			CHECK_CUDA(cudaMemcpy(dy, y.data(), ny * sizeof(H), cudaMemcpyHostToDevice));
		}
		// dot (dotu) and dotc: |error| <= 4 n eps sum |x_i y_i|.
		for (int conjugate = 0; conjugate < 1 + B::complex; ++conjugate) {
			ResultArg<typename B::Dev> result(device_scalars);
			CHECK_CUBLAS((conjugate ? B::cu_dotc() : B::cu_dotu())(handle, n, B::dev(dx), inc.x, B::dev(dy), inc.y,
										result.get()));
			const typename B::Dev value = result.value();
			const H got = *reinterpret_cast<const H *>(&value);
			const H want = conjugate ? B::dotc(n, x.data(), inc.x, y.data(), inc.y)
						 : B::dotu(n, x.data(), inc.x, y.data(), inc.y);
			double size = 0;
			for (int i = 0; i < n; ++i)
				size += mag(x[at(i, n, inc.x)]) * mag(y[at(i, n, inc.y)]);
			Comparison cmp{name(conjugate ? "dotc" : "dot")};
			cmp.element(got, want, 4 * n * B::eps * size, 0);
			ok &= cmp.ok();
		}
		// copy and swap: exact.
		{
			CHECK_CUBLAS(B::cu_copy()(handle, n, B::dev(dx), inc.x, B::dev(dy), inc.y));
			std::vector<H> got = to_host(dy, ny);
			Comparison copy_cmp{name("copy")};
			for (int i = 0; i < n; ++i)
				copy_cmp.element(got[at(i, n, inc.y)], x[at(i, n, inc.x)], 0, i);
			ok &= copy_cmp.ok();
			CHECK_CUDA(cudaMemcpy(dy, y.data(), ny * sizeof(H), cudaMemcpyHostToDevice));
			CHECK_CUBLAS(B::cu_swap()(handle, n, B::dev(dx), inc.x, B::dev(dy), inc.y));
			const std::vector<H> gx = to_host(dx, nx), gy = to_host(dy, ny);
			Comparison swap_cmp{name("swap")};
			for (int i = 0; i < n; ++i) {
				swap_cmp.element(gx[at(i, n, inc.x)], y[at(i, n, inc.y)], 0, i);
				swap_cmp.element(gy[at(i, n, inc.y)], x[at(i, n, inc.x)], 0, i);
			}
			ok &= swap_cmp.ok();
			CHECK_CUDA(cudaMemcpy(dx, x.data(), nx * sizeof(H), cudaMemcpyHostToDevice));
			CHECK_CUDA(cudaMemcpy(dy, y.data(), ny * sizeof(H), cudaMemcpyHostToDevice));
		}
		if (inc.x > 0) { // nrm2, asum, i?amax, i?amin and scal do nothing for incx <= 0
			ResultArg<R> norm(device_scalars), sum(device_scalars);
			CHECK_CUBLAS(B::cu_nrm2()(handle, n, B::dev(dx), inc.x, norm.get()));
			CHECK_CUBLAS(B::cu_asum()(handle, n, B::dev(dx), inc.x, sum.get()));
			const R want_norm = B::nrm2(n, x.data(), inc.x), want_sum = B::asum(n, x.data(), inc.x);
			Comparison cmp{name("nrm2/asum")};
			cmp.element(norm.value(), want_norm, 4 * n * B::eps * want_norm, 0);
			cmp.element(sum.value(), want_sum, 4 * n * B::eps * want_sum, 1);
			ok &= cmp.ok();

			ResultArg<int> largest(device_scalars), smallest(device_scalars);
			CHECK_CUBLAS(B::cu_amax()(handle, n, B::dev(dx), inc.x, largest.get()));
			CHECK_CUBLAS(B::cu_amin()(handle, n, B::dev(dx), inc.x, smallest.get()));
			int want_min = 1; // BLAS has no i?amin: the first smallest |Re| + |Im|
			for (int i = 1; i < n; ++i)
				if (mag(x[(size_t)i * inc.x]) < mag(x[(size_t)(want_min - 1) * inc.x]))
					want_min = i + 1;
			ok &= expect(largest.value() == B::amax(n, x.data(), inc.x), name("i?amax"));
			ok &= expect(smallest.value() == want_min, name("i?amin"));

			const ScalarArg<H> alpha(B::random(rng), device_scalars);
			CHECK_CUBLAS(B::cu_scal()(handle, n, B::dev(alpha.get()), B::dev(dx), inc.x));
			const std::vector<H> got = to_host(dx, nx);
			Comparison scal_cmp{name("scal")};
			for (size_t e = 0; e < nx; ++e) {
				const H want = e % inc.x == 0 ? alpha.host * x[e] : x[e];
				scal_cmp.element(got[e], want, 2 * B::eps * mag(want), (long long)e);
			}
			ok &= scal_cmp.ok();
			CHECK_CUDA(cudaMemcpy(dx, x.data(), nx * sizeof(H), cudaMemcpyHostToDevice));
		}
		// rot with a real cosine and a sine of the element type: x' = c x + s y,
		// y' = c y - conj(s) x (cublas?rot's definition).
		{
			const double angle = rng.uniform(0, 6.28f);
			const ScalarArg<R> c((R)std::cos(angle), device_scalars);
			H phase = H(1);
			if constexpr (B::complex)
				phase = H((R)std::cos(0.7), (R)std::sin(0.7));
			const ScalarArg<H> s(H((R)std::sin(angle)) * phase, device_scalars);
			using Rot = cublasStatus_t (*)(cublasHandle_t, int, typename B::Dev *, int, typename B::Dev *, int,
						       const R *, const typename B::Dev *);
			Rot rot;
			if constexpr (std::is_same_v<H, float>)
				rot = cublasSrot;
			else if constexpr (std::is_same_v<H, double>)
				rot = cublasDrot;
			else if constexpr (std::is_same_v<H, cf>)
				rot = cublasCrot;
			else
				rot = cublasZrot;
			CHECK_CUBLAS(rot(handle, n, B::dev(dx), inc.x, B::dev(dy), inc.y, c.get(), B::dev(s.get())));
			const std::vector<H> gx = to_host(dx, nx), gy = to_host(dy, ny);
			Comparison cmp{name("rot")};
			for (int i = 0; i < n; ++i) {
				const H xi = x[at(i, n, inc.x)], yi = y[at(i, n, inc.y)];
				H sc = s.host;
				if constexpr (B::complex)
					sc = std::conj(sc);
				const H wx = c.host * xi + s.host * yi, wy = c.host * yi - sc * xi;
				const double bound = 4 * B::eps * (mag(xi) + mag(yi));
				cmp.element(gx[at(i, n, inc.x)], wx, bound, i);
				cmp.element(gy[at(i, n, inc.y)], wy, bound, i);
			}
			ok &= cmp.ok();
		}
		cudaFree(dx);
		cudaFree(dy);
	}
	CHECK_CUBLAS(cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_HOST));
	return ok;
}

int main()
{
	cublasHandle_t handle;
	CHECK_CUBLAS(cublasCreate(&handle));
	Rng rng(7);
	bool ok = true;
	for (bool device_scalars : {false, true}) {
		ok &= test_precision<float>(handle, rng, device_scalars);
		ok &= test_precision<double>(handle, rng, device_scalars);
		ok &= test_precision<cf>(handle, rng, device_scalars);
		ok &= test_precision<cd>(handle, rng, device_scalars);
	}
	CHECK_CUBLAS(cublasDestroy(handle));
	return report("cublas_level1", ok);
}
