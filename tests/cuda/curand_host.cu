// SPDX-License-Identifier: MIT
// cuRAND's host API (curand.h, libcurand):
// - Sobol32 against SciPy 1.10.1's unscrambled Sobol' points
//   (scipy.stats.qmc.Sobol(d, scramble=False), times 2^32), an independent
//   implementation of Joe and Kuo's direction numbers: dimensions 1-4, 10000
//   and 20000; the device API's Sobol32 and Sobol64 with the library's
//   direction vectors;
// - the pseudorandom sequence against the device API: number n of a
//   generator is draw n / 4096 of curand_init(seed, n % 4096, 0)
//   (docs/libraries.md), for XORWOW, MRG32k3a and Philox;
// - device and host generators (curandCreateGeneratorHost) giving the same
//   numbers; calls continuing the stream; offsets;
// - the distributions' mean and variance within about 5 sigma, a Poisson
//   table and curand_poisson/curand_discrete on the device, pi from 2-D
//   Sobol points;
// - cuRAND's status codes for bad arguments.
// simtcc-flags: -lcurand
#include <curand.h>
#include <curand_kernel.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "test_util.h"
#include "vector_copies.h"

#define CHECK_CURAND(call)                                                                \
	do {                                                                              \
		curandStatus_t s_ = (call);                                               \
		if (s_ != CURAND_STATUS_SUCCESS) {                                        \
			fprintf(stderr, "%s:%d: %s: status %d\n", __FILE__, __LINE__, #call, \
				int(s_));                                                 \
			exit(1);                                                          \
		}                                                                         \
	} while (0)

namespace {

constexpr unsigned long long kSeed = 1234ULL;

template <typename State>
__global__ void stream_draws(unsigned long long seed, unsigned *out, int streams, int draws)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	if (t >= streams)
		return;
	State s;
	curand_init(seed, t, 0, &s);
	for (int j = 0; j < draws; ++j)
		out[j * streams + t] = curand(&s);
}

__global__ void device_poisson(unsigned long long seed, double lambda, unsigned *out, int n)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	curandStatePhilox4_32_10_t s;
	curand_init(seed, t, 0, &s);
	for (int i = t; i < n; i += gridDim.x * blockDim.x)
		out[i] = curand_poisson(&s, lambda);
}

__global__ void device_discrete(unsigned long long seed, curandDiscreteDistribution_t dist,
				unsigned *out, int n)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	curandState s;
	curand_init(seed, t, 0, &s);
	for (int i = t; i < n; i += gridDim.x * blockDim.x)
		out[i] = curand_discrete(&s, dist);
}

__global__ void device_sobol(curandDirectionVectors32_t *vectors, unsigned offset, unsigned *out,
			     int points, int dimensions)
{
	int d = threadIdx.x;
	if (d >= dimensions)
		return;
	curandStateSobol32_t s;
	curand_init(vectors[d], offset, &s);
	for (int i = 0; i < points; ++i)
		out[d * points + i] = curand(&s);
}

__global__ void device_sobol64(curandDirectionVectors64_t *vectors, unsigned long long *out,
			       int points, int dimensions)
{
	int d = threadIdx.x;
	if (d >= dimensions)
		return;
	curandStateSobol64_t s;
	curand_init(vectors[d], 0, &s);
	for (int i = 0; i < points; ++i)
		out[d * points + i] = curand(&s);
}

template <typename T>
std::vector<T> generate_with(curandGenerator_t g, size_t n,
			     curandStatus_t (*fill)(curandGenerator_t, T *, size_t), bool host)
{
	std::vector<T> v(n);
	if (host) {
		CHECK_CURAND(fill(g, v.data(), n));
		return v;
	}
	T *d = nullptr;
	CHECK_CUDA(cudaMalloc(&d, n * sizeof(T)));
	CHECK_CURAND(fill(g, d, n));
	v = to_host(d, n);
	CHECK_CUDA(cudaFree(d));
	return v;
}

curandGenerator_t make(curandRngType_t type, bool host)
{
	curandGenerator_t g;
	CHECK_CURAND(host ? curandCreateGeneratorHost(&g, type) : curandCreateGenerator(&g, type));
	if (type != CURAND_RNG_QUASI_SOBOL32)
		CHECK_CURAND(curandSetPseudoRandomGeneratorSeed(g, kSeed));
	return g;
}

bool sobol_known_answers()
{
	// SciPy's first points of dimensions 1-4, and 16 of dimensions 10000 and 20000.
	static const unsigned kFirst4[4][8] = {
		{0, 2147483648u, 3221225472u, 1073741824u, 1610612736u, 3758096384u, 2684354560u, 536870912u},
		{0, 2147483648u, 1073741824u, 3221225472u, 1610612736u, 3758096384u, 536870912u, 2684354560u},
		{0, 2147483648u, 1073741824u, 3221225472u, 2684354560u, 536870912u, 3758096384u, 1610612736u},
		{0, 2147483648u, 1073741824u, 3221225472u, 3758096384u, 1610612736u, 2684354560u, 536870912u}};
	static const unsigned kDim10000[16] = {
		0, 2147483648u, 1073741824u, 3221225472u, 536870912u, 2684354560u, 1610612736u, 3758096384u,
		2952790016u, 805306368u, 4026531840u, 1879048192u, 2415919104u, 268435456u, 3489660928u,
		1342177280u};
	static const unsigned kDim20000[16] = {
		0, 2147483648u, 1073741824u, 3221225472u, 3758096384u, 1610612736u, 2684354560u, 536870912u,
		3489660928u, 1342177280u, 2415919104u, 268435456u, 805306368u, 2952790016u, 1879048192u,
		4026531840u};
	bool ok = true;
	for (bool host : {false, true}) {
		curandGenerator_t g = make(CURAND_RNG_QUASI_SOBOL32, host);
		CHECK_CURAND(curandSetQuasiRandomGeneratorDimensions(g, 4));
		std::vector<unsigned> v = generate_with<unsigned>(g, 32, curandGenerate, host);
		for (int d = 0; d < 4; ++d)
			for (int i = 0; i < 8; ++i)
				ok &= expect(v[d * 8 + i] == kFirst4[d][i], "Sobol32 dimensions 1-4");
		CHECK_CURAND(curandDestroyGenerator(g));
		g = make(CURAND_RNG_QUASI_SOBOL32, host);
		CHECK_CURAND(curandSetQuasiRandomGeneratorDimensions(g, 20000));
		v = generate_with<unsigned>(g, 16 * 20000, curandGenerate, host);
		for (int i = 0; i < 16; ++i) {
			ok &= expect(v[9999 * 16 + i] == kDim10000[i], "Sobol32 dimension 10000");
			ok &= expect(v[19999 * 16 + i] == kDim20000[i], "Sobol32 dimension 20000");
		}
		CHECK_CURAND(curandDestroyGenerator(g));
	}
	// The device API with the library's direction vectors: the same points.
	curandDirectionVectors32_t *vectors;
	CHECK_CURAND(curandGetDirectionVectors32(&vectors, CURAND_DIRECTION_VECTORS_32_JOEKUO6));
	std::vector<unsigned> flat(4 * 32);
	std::memcpy(flat.data(), vectors, flat.size() * sizeof(unsigned));
	unsigned *d_vectors = to_device(flat), *d_out;
	CHECK_CUDA(cudaMalloc(&d_out, 4 * 8 * sizeof(unsigned)));
	device_sobol<<<1, 4>>>(reinterpret_cast<curandDirectionVectors32_t *>(d_vectors), 0, d_out, 8, 4);
	CHECK_LAUNCH();
	std::vector<unsigned> v = to_host(d_out, 32);
	for (int d = 0; d < 4; ++d)
		for (int i = 0; i < 8; ++i)
			ok &= expect(v[d * 8 + i] == kFirst4[d][i], "device API Sobol32");
	CHECK_CUDA(cudaFree(d_vectors));
	CHECK_CUDA(cudaFree(d_out));
	// Sobol64 (MC_EstimatePiInlineQ): SciPy's points in 64 bits; the first
	// ones have only their top bits set, so they are the 32-bit ones shifted.
	curandDirectionVectors64_t *vectors64;
	CHECK_CURAND(curandGetDirectionVectors64(&vectors64, CURAND_DIRECTION_VECTORS_64_JOEKUO6));
	std::vector<unsigned long long> flat64(4 * 64);
	std::memcpy(flat64.data(), vectors64, flat64.size() * sizeof(unsigned long long));
	unsigned long long *d_vectors64 = to_device(flat64), *d_out64;
	CHECK_CUDA(cudaMalloc(&d_out64, 4 * 8 * sizeof(unsigned long long)));
	device_sobol64<<<1, 4>>>(reinterpret_cast<curandDirectionVectors64_t *>(d_vectors64), d_out64,
				 8, 4);
	CHECK_LAUNCH();
	std::vector<unsigned long long> v64 = to_host(d_out64, 32);
	for (int d = 0; d < 4; ++d)
		for (int i = 0; i < 8; ++i)
			ok &= expect(v64[d * 8 + i] == (unsigned long long)kFirst4[d][i] << 32,
				     "device API Sobol64");
	CHECK_CUDA(cudaFree(d_vectors64));
	CHECK_CUDA(cudaFree(d_out64));
	return ok;
}

// Number n is draw n / 4096 of stream n % 4096, for each pseudorandom type.
template <typename State>
bool pseudo_sequence(curandRngType_t type)
{
	const int streams = 4096, draws = 3;
	unsigned *d_out;
	CHECK_CUDA(cudaMalloc(&d_out, streams * draws * sizeof(unsigned)));
	stream_draws<State><<<streams / 128, 128>>>(kSeed, d_out, streams, draws);
	CHECK_LAUNCH();
	std::vector<unsigned> expected = to_host(d_out, streams * draws);
	CHECK_CUDA(cudaFree(d_out));
	bool ok = true;
	for (bool host : {false, true}) {
		curandGenerator_t g = make(type, host);
		// Two calls continue one stream: 5000 + the rest.
		std::vector<unsigned> a = generate_with<unsigned>(g, 5000, curandGenerate, host);
		std::vector<unsigned> b =
			generate_with<unsigned>(g, streams * draws - 5000, curandGenerate, host);
		a.insert(a.end(), b.begin(), b.end());
		ok &= expect(a == expected, host ? "host generator's stream" : "device generator's stream");
		// An offset starts the stream there.
		CHECK_CURAND(curandSetGeneratorOffset(g, 4099));
		std::vector<unsigned> c = generate_with<unsigned>(g, 100, curandGenerate, host);
		ok &= expect(std::equal(c.begin(), c.end(), expected.begin() + 4099), "offset");
		CHECK_CURAND(curandDestroyGenerator(g));
	}
	return ok;
}

struct Moments {
	double mean = 0, variance = 0;
};
template <typename T>
Moments moments(const std::vector<T> &v)
{
	Moments m;
	for (T x : v)
		m.mean += double(x);
	m.mean /= double(v.size());
	for (T x : v)
		m.variance += (double(x) - m.mean) * (double(x) - m.mean);
	m.variance /= double(v.size() - 1);
	return m;
}

// Mean and variance within 5 standard errors (the variance's for a
// distribution with kurtosis about that of the normal: sqrt(2/n) * var).
bool near(Moments m, double mean, double variance, size_t n, const char *what)
{
	const double se_mean = std::sqrt(variance / double(n));
	const double se_var = variance * std::sqrt(2.0 / double(n)) * 1.5;
	bool ok = expect(std::fabs(m.mean - mean) < 5 * se_mean, what);
	ok &= expect(std::fabs(m.variance - variance) < 5 * se_var, what);
	if (!ok)
		fprintf(stderr, "  %s: mean %.6f (want %.6f), variance %.6f (want %.6f)\n", what,
			m.mean, mean, m.variance, variance);
	return ok;
}

curandStatus_t normal_2_3(curandGenerator_t g, float *out, size_t n)
{
	return curandGenerateNormal(g, out, n, 2.0f, 3.0f);
}
curandStatus_t normal_double_2_3(curandGenerator_t g, double *out, size_t n)
{
	return curandGenerateNormalDouble(g, out, n, 2.0, 3.0);
}
curandStatus_t log_normal(curandGenerator_t g, float *out, size_t n)
{
	return curandGenerateLogNormal(g, out, n, 0.5f, 0.25f);
}
curandStatus_t poisson_4_5(curandGenerator_t g, unsigned *out, size_t n)
{
	return curandGeneratePoisson(g, out, n, 4.5);
}
curandStatus_t poisson_10000(curandGenerator_t g, unsigned *out, size_t n)
{
	return curandGeneratePoisson(g, out, n, 10000.0);
}

bool distributions(curandRngType_t type)
{
	const size_t n = 1 << 18;
	bool ok = true;
	curandGenerator_t gd = make(type, false), gh = make(type, true);
	auto both = [&](auto fill, auto tag) {
		using T = decltype(tag);
		std::vector<T> d = generate_with<T>(gd, n, fill, false);
		std::vector<T> h = generate_with<T>(gh, n, fill, true);
		return std::make_pair(d, h);
	};
	const auto uf_pair = both(curandGenerateUniform, float());
	const auto &uf = uf_pair.first, &uf_h = uf_pair.second;
	ok &= expect(uf == uf_h, "uniform: device and host generators agree");
	ok &= near(moments(uf), 0.5, 1.0 / 12, n, "uniform");
	const auto ud_pair = both(curandGenerateUniformDouble, double());
	const auto &ud = ud_pair.first, &ud_h = ud_pair.second;
	ok &= expect(ud == ud_h, "uniform double: device and host generators agree");
	ok &= near(moments(ud), 0.5, 1.0 / 12, n, "uniform double");
	const auto nf_pair = both(normal_2_3, float());
	const auto &nf = nf_pair.first, &nf_h = nf_pair.second;
	bool close = true;
	for (size_t i = 0; i < n; ++i)
		close &= std::fabs(nf[i] - nf_h[i]) <= 1e-5f * (1 + std::fabs(nf[i]));
	ok &= expect(close, "normal: device and host generators agree (to float rounding)");
	ok &= near(moments(nf), 2.0, 9.0, n, "normal(2, 3)");
	const auto nd_pair = both(normal_double_2_3, double());
	const auto &nd = nd_pair.first, &nd_h = nd_pair.second;
	ok &= near(moments(nd), 2.0, 9.0, n, "normal double(2, 3)");
	const auto ln_pair = both(log_normal, float());
	const auto &ln = ln_pair.first, &ln_h = ln_pair.second;
	const double s2 = 0.25 * 0.25;
	ok &= near(moments(ln), std::exp(0.5 + s2 / 2), (std::exp(s2) - 1) * std::exp(1.0 + s2), n,
		   "log-normal(0.5, 0.25)");
	const auto p_pair = both(poisson_4_5, unsigned());
	const auto &p = p_pair.first, &p_h = p_pair.second;
	ok &= expect(p == p_h, "Poisson: device and host generators agree");
	ok &= near(moments(p), 4.5, 4.5, n, "Poisson(4.5)");
	const auto q_pair = both(poisson_10000, unsigned());
	const auto &q = q_pair.first, &q_h = q_pair.second;
	ok &= near(moments(q), 10000.0, 10000.0, n, "Poisson(10000)");
	CHECK_CURAND(curandDestroyGenerator(gd));
	CHECK_CURAND(curandDestroyGenerator(gh));
	return ok;
}

bool device_api_poisson()
{
	const int n = 1 << 18;
	unsigned *d_out;
	CHECK_CUDA(cudaMalloc(&d_out, n * sizeof(unsigned)));
	bool ok = true;
	for (double lambda : {3.7, 1200.0}) {
		device_poisson<<<64, 128>>>(kSeed, lambda, d_out, n);
		CHECK_LAUNCH();
		ok &= near(moments(to_host(d_out, n)), lambda, lambda, n, "curand_poisson");
	}
	curandDiscreteDistribution_t dist;
	CHECK_CURAND(curandCreatePoissonDistribution(42.0, &dist));
	device_discrete<<<64, 128>>>(kSeed, dist, d_out, n);
	CHECK_LAUNCH();
	ok &= near(moments(to_host(d_out, n)), 42.0, 42.0, n, "curand_discrete(Poisson 42)");
	CHECK_CURAND(curandDestroyDistribution(dist));
	CHECK_CUDA(cudaFree(d_out));
	return ok;
}

// MC_EstimatePiQ's method: the share of 2-D Sobol points inside the unit
// quarter circle. Quasirandom error falls about as 1/n: 2^16 points give
// pi within 1e-3 (pseudorandom points would need about 5e-3).
bool sobol_pi()
{
	const size_t points = 1 << 16;
	curandGenerator_t g = make(CURAND_RNG_QUASI_SOBOL32, false);
	CHECK_CURAND(curandSetQuasiRandomGeneratorDimensions(g, 2));
	std::vector<float> v = generate_with<float>(g, 2 * points, curandGenerateUniform, false);
	size_t inside = 0;
	for (size_t i = 0; i < points; ++i)
		inside += v[i] * v[i] + v[points + i] * v[points + i] <= 1.0f;
	const double pi = 4.0 * double(inside) / double(points);
	CHECK_CURAND(curandDestroyGenerator(g));
	if (std::fabs(pi - M_PI) >= 1e-3)
		fprintf(stderr, "  pi from Sobol points: %.6f\n", pi);
	return expect(std::fabs(pi - M_PI) < 1e-3, "pi from 2-D Sobol points");
}

bool errors()
{
	bool ok = true;
	curandGenerator_t g = make(CURAND_RNG_PSEUDO_DEFAULT, false), h;
	float *d;
	CHECK_CUDA(cudaMalloc(&d, 16 * sizeof(float)));
	ok &= expect(curandGenerateNormal(g, d, 7, 0, 1) == CURAND_STATUS_LENGTH_NOT_MULTIPLE,
		     "an odd count of pseudorandom normals");
	ok &= expect(curandGenerateNormal(g, d, 8, 0, -1) == CURAND_STATUS_OUT_OF_RANGE,
		     "a negative stddev");
	std::vector<float> host_memory(16);
	ok &= expect(curandGenerateUniform(g, host_memory.data(), 16) == CURAND_STATUS_LAUNCH_FAILURE,
		     "host memory for a device generator");
	ok &= expect(curandSetQuasiRandomGeneratorDimensions(g, 2) == CURAND_STATUS_TYPE_ERROR,
		     "dimensions of a pseudorandom generator");
	ok &= expect(curandCreateGenerator(&h, CURAND_RNG_PSEUDO_MTGP32) == CURAND_STATUS_TYPE_ERROR,
		     "a generator type simtgpu lacks");
	ok &= expect(curandGenerateUniform(nullptr, d, 16) == CURAND_STATUS_NOT_INITIALIZED,
		     "no generator");
	curandGenerator_t q = make(CURAND_RNG_QUASI_SOBOL32, false);
	ok &= expect(curandSetQuasiRandomGeneratorDimensions(q, 0) == CURAND_STATUS_OUT_OF_RANGE,
		     "zero dimensions");
	ok &= expect(curandSetQuasiRandomGeneratorDimensions(q, 20001) == CURAND_STATUS_OUT_OF_RANGE,
		     "20001 dimensions");
	CHECK_CURAND(curandSetQuasiRandomGeneratorDimensions(q, 3));
	ok &= expect(curandGenerateUniform(q, d, 16) == CURAND_STATUS_LENGTH_NOT_MULTIPLE,
		     "a count that is not a multiple of the dimensions");
	int version = 0;
	CHECK_CURAND(curandGetVersion(&version));
	ok &= expect(version == CURAND_VERSION, "curandGetVersion");
	CHECK_CURAND(curandDestroyGenerator(q));
	CHECK_CURAND(curandDestroyGenerator(g));
	CHECK_CUDA(cudaFree(d));
	return ok;
}

} // namespace

int main()
{
	bool ok = sobol_known_answers();
	ok &= pseudo_sequence<curandStateXORWOW_t>(CURAND_RNG_PSEUDO_XORWOW);
	ok &= pseudo_sequence<curandStateMRG32k3a_t>(CURAND_RNG_PSEUDO_MRG32K3A);
	ok &= pseudo_sequence<curandStatePhilox4_32_10_t>(CURAND_RNG_PSEUDO_PHILOX4_32_10);
	for (curandRngType_t type : {CURAND_RNG_PSEUDO_XORWOW, CURAND_RNG_PSEUDO_PHILOX4_32_10,
				     CURAND_RNG_PSEUDO_MRG32K3A})
		ok &= distributions(type);
	ok &= device_api_poisson();
	ok &= sobol_pi();
	ok &= errors();
	return report("curand_host", ok);
}
