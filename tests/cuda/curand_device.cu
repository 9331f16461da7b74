// SPDX-License-Identifier: MIT
// cuRAND's device API (curand_kernel.h): XORWOW, Philox4_32_10, MRG32k3a.
// - Philox4x32-10 against Random123's published known-answer vectors
//   (kat_vectors: counter, key -> output), and curand_init(seed, subsequence,
//   offset) against the counter layout CUDA defines;
// - XORWOW against Marsaglia's xorwow stepped on the CPU, offsets by
//   stepping, subsequences (2^67 apart) by a GF(2) matrix power computed
//   here independently of the library's tables;
// - MRG32k3a against L'Ecuyer's recurrence on the CPU, subsequences (2^76
//   apart) by L'Ecuyer's published jump matrices A1^(2^76), A2^(2^76);
// - the distributions' mean, variance and Kolmogorov-Smirnov distance at
//   fixed seeds, within bounds a correct generator meets (about 5 sigma).
#include <curand_kernel.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "test_util.h"
#include "vector_copies.h"

// ----------------------------------------------------------------- device

__global__ void philox_kat(const uint4 *ctr, const uint2 *key, uint4 *out, int n)
{
	int i = threadIdx.x;
	if (i < n)
		out[i] = curand_Philox4x32_10(ctr[i], key[i]);
}

struct Config {
	unsigned long long seed, subsequence, offset;
};

constexpr int kDraws = 8;

template <typename State>
__global__ void first_draws(const Config *configs, unsigned *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	State s;
	curand_init(configs[i].seed, configs[i].subsequence, configs[i].offset, &s);
	for (int j = 0; j < kDraws; ++j)
		out[i * kDraws + j] = curand(&s);
}

enum Distribution { kUniform, kNormal, kUniformDouble, kNormalDouble, kLogNormal, kCount };

template <typename State>
__global__ void samples(unsigned long long seed, int per_thread, double *out)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	int threads = gridDim.x * blockDim.x;
	State s;
	curand_init(seed, t, 0, &s);
	for (int j = 0; j < per_thread; ++j) {
		size_t at = size_t(j) * threads + t;
		size_t n = size_t(per_thread) * threads;
		out[kUniform * n + at] = curand_uniform(&s);
		out[kNormal * n + at] = curand_normal(&s);
		out[kUniformDouble * n + at] = curand_uniform_double(&s);
		out[kNormalDouble * n + at] = curand_normal_double(&s);
		out[kLogNormal * n + at] = curand_log_normal(&s, 0.5f, 0.25f);
	}
}

// curand_uniform4 and curand_normal4 take the numbers curand would.
__global__ void philox_vectors(unsigned long long seed, float *out)
{
	curandStatePhilox4_32_10_t a, b;
	curand_init(seed, 3, 0, &a);
	curand_init(seed, 3, 0, &b);
	float4 u = curand_uniform4(&a);
	out[0] = u.x, out[1] = u.y, out[2] = u.z, out[3] = u.w;
	for (int i = 0; i < 4; ++i)
		out[4 + i] = curand_uniform(&b);
	float4 g = curand_normal4(&a);
	out[8] = g.x, out[9] = g.y, out[10] = g.z, out[11] = g.w;
	float2 g0 = curand_normal2(&b), g1 = curand_normal2(&b);
	out[12] = g0.x, out[13] = g0.y, out[14] = g1.x, out[15] = g1.y;
}

// -------------------------------------------------------- CPU references

static std::array<uint32_t, 4> philox_cpu(std::array<uint32_t, 4> c, std::array<uint32_t, 2> k)
{
	for (int round = 0; round < 10; ++round) {
		if (round) {
			k[0] += 0x9E3779B9u;
			k[1] += 0xBB67AE85u;
		}
		uint64_t p0 = uint64_t(0xD2511F53u) * c[0], p1 = uint64_t(0xCD9E8D57u) * c[2];
		c = {uint32_t(p1 >> 32) ^ c[1] ^ k[0], uint32_t(p1), uint32_t(p0 >> 32) ^ c[3] ^ k[1],
		     uint32_t(p0)};
	}
	return c;
}

static std::vector<unsigned> philox_expected(const Config &c)
{
	std::vector<unsigned> out;
	std::array<uint32_t, 2> key = {uint32_t(c.seed), uint32_t(c.seed >> 32)};
	for (int j = 0; j < kDraws; ++j) {
		uint64_t p = c.offset + j, block = p / 4;
		std::array<uint32_t, 4> ctr = {uint32_t(block), uint32_t(block >> 32), uint32_t(c.subsequence),
					       uint32_t(c.subsequence >> 32)};
		out.push_back(philox_cpu(ctr, key)[p % 4]);
	}
	return out;
}

// Marsaglia's xorwow: five xorshift words and a Weyl sequence.
struct Xorwow {
	uint32_t v[5], d;
	void step()
	{
		uint32_t t = v[0] ^ (v[0] >> 2);
		v[0] = v[1], v[1] = v[2], v[2] = v[3], v[3] = v[4];
		v[4] = (v[4] ^ (v[4] << 4)) ^ (t ^ (t << 1));
		d += 362437u;
	}
	uint32_t next()
	{
		step();
		return v[4] + d;
	}
};

using Bits = std::array<uint32_t, 5>;
using GF2Matrix = std::vector<Bits>; // 160 columns

static Bits gf2_apply(const GF2Matrix &m, const Bits &v)
{
	Bits r{};
	for (int i = 0; i < 160; ++i)
		if ((v[i / 32] >> (i % 32)) & 1)
			for (int w = 0; w < 5; ++w)
				r[w] ^= m[i][w];
	return r;
}

static GF2Matrix gf2_square(const GF2Matrix &m)
{
	GF2Matrix r(160);
	for (int i = 0; i < 160; ++i)
		r[i] = gf2_apply(m, m[i]);
	return r;
}

// v <- M^(2^shift * n) v, M the xorwow step.
static void xorwow_jump(uint32_t *v, unsigned shift, unsigned long long n)
{
	GF2Matrix m(160);
	for (int i = 0; i < 160; ++i) {
		Xorwow x{};
		x.v[i / 32] = 1u << (i % 32);
		x.step();
		for (int w = 0; w < 5; ++w)
			m[i][w] = x.v[w];
	}
	for (unsigned i = 0; i < shift; ++i)
		m = gf2_square(m);
	Bits state = {v[0], v[1], v[2], v[3], v[4]};
	for (; n; n >>= 1, m = n ? gf2_square(m) : m)
		if (n & 1)
			state = gf2_apply(m, state);
	for (int w = 0; w < 5; ++w)
		v[w] = state[w];
}

static std::vector<unsigned> xorwow_expected(const Config &c)
{
	uint32_t s0 = uint32_t(c.seed) ^ 0xaad26b49u, s1 = uint32_t(c.seed >> 32) ^ 0xf7dcefddu;
	uint32_t t0 = 1099087573u * s0, t1 = 2591861531u * s1;
	Xorwow x = {{123456789u + t0, 362436069u ^ t0, 521288629u + t1, 88675123u ^ t1, 5783321u + t0},
		    6615241u + t1 + t0};
	if (c.subsequence)
		xorwow_jump(x.v, 67, c.subsequence);
	if (c.offset < 100000) {
		for (unsigned long long i = 0; i < c.offset; ++i)
			x.step();
	} else {
		xorwow_jump(x.v, 0, c.offset);
		x.d += 362437u * uint32_t(c.offset);
	}
	std::vector<unsigned> out;
	for (int j = 0; j < kDraws; ++j)
		out.push_back(x.next());
	return out;
}

// L'Ecuyer's MRG32k3a on (s_{n-3}, s_{n-2}, s_{n-1}) of each component.
using Mat3 = std::array<std::array<uint64_t, 3>, 3>;
constexpr uint64_t kM1 = 4294967087u, kM2 = 4294944443u;
// RngStreams (L'Ecuyer, Simard, Chen, Kelton 2002): A1^(2^76), A2^(2^76).
constexpr Mat3 kA1p76 = {{{82758667u, 1871391091u, 4127413238u},
			  {3672831523u, 69195019u, 1871391091u},
			  {3672091415u, 3528743235u, 69195019u}}};
constexpr Mat3 kA2p76 = {{{1511326704u, 3759209742u, 1610795712u},
			  {4292754251u, 1511326704u, 3889917532u},
			  {3859662829u, 4292754251u, 3708466080u}}};

static void mat3_apply(const Mat3 &a, uint64_t *s, uint64_t m)
{
	uint64_t r[3];
	for (int i = 0; i < 3; ++i)
		r[i] = (unsigned __int128)(a[i][0] * (unsigned __int128)s[0] + a[i][1] * (unsigned __int128)s[1] +
					   a[i][2] * (unsigned __int128)s[2]) %
		       m;
	for (int i = 0; i < 3; ++i)
		s[i] = r[i];
}

static Mat3 mat3_square(const Mat3 &a, uint64_t m)
{
	Mat3 r{};
	for (int i = 0; i < 3; ++i)
		for (int j = 0; j < 3; ++j) {
			unsigned __int128 sum = 0;
			for (int k = 0; k < 3; ++k)
				sum += (unsigned __int128)a[i][k] * a[k][j];
			r[i][j] = uint64_t(sum % m);
		}
	return r;
}

static std::vector<unsigned> mrg_expected(const Config &c)
{
	uint64_t s1[3] = {12345, 12345, 12345}, s2[3] = {12345, 12345, 12345};
	if (c.seed) {
		uint64_t x1 = uint32_t(c.seed) ^ 0x55555555u, x2 = uint32_t((c.seed >> 32) ^ 0xAAAAAAAAu);
		s1[0] = x1 * s1[0] % kM1, s1[1] = x2 * s1[1] % kM1, s1[2] = x1 * s1[2] % kM1;
		s2[0] = x2 * s2[0] % kM2, s2[1] = x1 * s2[1] % kM2, s2[2] = x2 * s2[2] % kM2;
	}
	Mat3 a1 = kA1p76, a2 = kA2p76;
	for (unsigned long long n = c.subsequence; n; n >>= 1) {
		if (n & 1) {
			mat3_apply(a1, s1, kM1);
			mat3_apply(a2, s2, kM2);
		}
		a1 = mat3_square(a1, kM1);
		a2 = mat3_square(a2, kM2);
	}
	std::vector<unsigned> out;
	for (unsigned long long i = 0; i < c.offset + kDraws; ++i) {
		uint64_t p1 = (1403580u * s1[1] + 810728u * (kM1 - s1[0])) % kM1;
		uint64_t p2 = (527612u * s2[2] + 1370589u * (kM2 - s2[0])) % kM2;
		s1[0] = s1[1], s1[1] = s1[2], s1[2] = p1;
		s2[0] = s2[1], s2[1] = s2[2], s2[2] = p2;
		double z = p1 <= p2 ? double(p1 + kM1 - p2) : double(p1 - p2);
		if (i >= c.offset)
			out.push_back(unsigned(z * 1.000000048662));
	}
	return out;
}

// ------------------------------------------------------------------ checks


template <typename State, typename Expected>
static bool check_draws(const char *name, const std::vector<Config> &configs, Expected expected)
{
	Config *d_configs = to_device(configs);
	unsigned *d_out = nullptr;
	CHECK_CUDA(cudaMalloc(&d_out, configs.size() * kDraws * sizeof(unsigned)));
	first_draws<State><<<1, int(configs.size())>>>(d_configs, d_out, int(configs.size()));
	CHECK_LAUNCH();
	std::vector<unsigned> got = to_host(d_out, configs.size() * kDraws);
	bool ok = true;
	for (size_t i = 0; i < configs.size(); ++i) {
		std::vector<unsigned> want = expected(configs[i]);
		for (int j = 0; j < kDraws; ++j)
			if (got[i * kDraws + j] != want[j]) {
				std::printf("%s: seed %llu subsequence %llu offset %llu: draw %d is 0x%08x, "
					    "expected 0x%08x\n",
					    name, configs[i].seed, configs[i].subsequence, configs[i].offset, j,
					    got[i * kDraws + j], want[j]);
				ok = false;
				break;
			}
	}
	CHECK_CUDA(cudaFree(d_configs));
	CHECK_CUDA(cudaFree(d_out));
	return expect(ok, name);
}

// Mean, variance and the Kolmogorov-Smirnov distance to `cdf`.
template <typename Cdf>
static bool check_distribution(const char *what, std::vector<double> x, double mean, double variance,
			       Cdf cdf, double lo, double hi)
{
	size_t n = x.size();
	double m = 0, v = 0;
	bool in_range = true;
	for (double d : x) {
		m += d;
		in_range &= d > lo && d <= hi;
	}
	m /= n;
	for (double d : x)
		v += (d - m) * (d - m);
	v /= n - 1;
	std::sort(x.begin(), x.end());
	double ks = 0;
	for (size_t i = 0; i < n; ++i) {
		double f = cdf(x[i]);
		ks = std::max({ks, f - double(i) / n, double(i + 1) / n - f});
	}
	// 5 standard errors for the mean; the variance's error for a
	// distribution of kurtosis up to 9 (the log-normal's is lower here);
	// KS at p = 0.001 is 1.95 / sqrt(n).
	double mean_bound = 5 * std::sqrt(variance / n);
	double var_bound = 5 * variance * std::sqrt(8.0 / n);
	double ks_bound = 1.95 / std::sqrt(double(n));
	bool ok = in_range && std::fabs(m - mean) < mean_bound && std::fabs(v - variance) < var_bound &&
		  ks < ks_bound;
	if (!ok)
		std::printf("%s: mean %.5f (want %.5f +- %.5f), variance %.5f (want %.5f +- %.5f), "
			    "KS %.5f (bound %.5f)%s\n",
			    what, m, mean, mean_bound, v, variance, var_bound, ks, ks_bound,
			    in_range ? "" : ", a value out of range");
	return ok;
}

template <typename State>
static bool check_statistics(const char *name, unsigned long long seed)
{
	const int blocks = 4, threads = 64, per_thread = 64;
	const size_t n = size_t(blocks) * threads * per_thread;
	double *d_out = nullptr;
	CHECK_CUDA(cudaMalloc(&d_out, kCount * n * sizeof(double)));
	samples<State><<<blocks, threads>>>(seed, per_thread, d_out);
	CHECK_LAUNCH();
	std::vector<double> all = to_host(d_out, kCount * n);
	CHECK_CUDA(cudaFree(d_out));
	auto part = [&](Distribution d) { return std::vector<double>(all.begin() + d * n, all.begin() + (d + 1) * n); };
	auto uniform = [](double x) { return x; };
	auto normal = [](double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); };
	const double mu = 0.5, sigma = 0.25;
	auto log_normal = [&](double x) { return 0.5 * std::erfc(-(std::log(x) - mu) / (sigma * std::sqrt(2.0))); };
	double ln_mean = std::exp(mu + sigma * sigma / 2);
	double ln_var = (std::exp(sigma * sigma) - 1) * std::exp(2 * mu + sigma * sigma);
	char what[5][96];
	const char *names[] = {"curand_uniform", "curand_normal", "curand_uniform_double",
			       "curand_normal_double", "curand_log_normal"};
	for (int i = 0; i < 5; ++i)
		std::snprintf(what[i], sizeof what[i], "%s: %s", name, names[i]);
	bool ok = true;
	ok &= check_distribution(what[0], part(kUniform), 0.5, 1.0 / 12, uniform, 0.0, 1.0);
	ok &= check_distribution(what[1], part(kNormal), 0.0, 1.0, normal, -HUGE_VAL, HUGE_VAL);
	ok &= check_distribution(what[2], part(kUniformDouble), 0.5, 1.0 / 12, uniform, 0.0, 1.0);
	ok &= check_distribution(what[3], part(kNormalDouble), 0.0, 1.0, normal, -HUGE_VAL, HUGE_VAL);
	ok &= check_distribution(what[4], part(kLogNormal), ln_mean, ln_var, log_normal, 0.0, HUGE_VAL);
	return expect(ok, name);
}

int main()
{
	bool ok = true;

	// Random123 1.14, examples/kat_vectors: philox4x32 10.
	const std::vector<uint4> ctr = {make_uint4(0, 0, 0, 0),
					make_uint4(0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu),
					make_uint4(0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u)};
	const std::vector<uint2> key = {make_uint2(0, 0), make_uint2(0xffffffffu, 0xffffffffu),
					make_uint2(0xa4093822u, 0x299f31d0u)};
	const unsigned kat[3][4] = {{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u},
				    {0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu},
				    {0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}};
	uint4 *d_ctr = to_device(ctr), *d_kat = nullptr;
	uint2 *d_key = to_device(key);
	CHECK_CUDA(cudaMalloc(&d_kat, 3 * sizeof(uint4)));
	philox_kat<<<1, 32>>>(d_ctr, d_key, d_kat, 3);
	CHECK_LAUNCH();
	std::vector<uint4> got = to_host(d_kat, 3);
	bool kat_ok = true;
	for (int i = 0; i < 3; ++i)
		kat_ok &= got[i].x == kat[i][0] && got[i].y == kat[i][1] && got[i].z == kat[i][2] &&
			  got[i].w == kat[i][3];
	ok &= expect(kat_ok, "Philox4x32-10 known-answer vectors (Random123)");
	// The CPU reference is right too, so the counter layout checks below rest on it.
	for (int i = 0; i < 3; ++i) {
		auto c = philox_cpu({ctr[i].x, ctr[i].y, ctr[i].z, ctr[i].w}, {key[i].x, key[i].y});
		kat_ok &= c[0] == kat[i][0] && c[1] == kat[i][1] && c[2] == kat[i][2] && c[3] == kat[i][3];
	}
	ok &= expect(kat_ok, "CPU Philox reference meets the known answers");

	const std::vector<Config> configs = {{0, 0, 0},	    {1234, 0, 0},	 {1234, 1, 0},
					     {1234, 0, 3},	    {1234, 0, 1001},	 {1234, 77, 5},
					     {~0ull, 0, 0},	    {0x123456789abcdefull, 1000003, 6},
					     {42, (1ull << 33) + 3, 2}, {42, 0, (1ull << 33) + 5}};
	ok &= check_draws<curandStatePhilox4_32_10_t>("Philox4_32_10 curand_init/curand", configs,
						      philox_expected);
	ok &= check_draws<curandStateXORWOW_t>("XORWOW curand_init/curand", configs, xorwow_expected);
	std::vector<Config> mrg_configs(configs.begin(), configs.end() - 1);
	ok &= check_draws<curandStateMRG32k3a_t>("MRG32k3a curand_init/curand", mrg_configs, mrg_expected);

	float *d_vec = nullptr;
	CHECK_CUDA(cudaMalloc(&d_vec, 16 * sizeof(float)));
	philox_vectors<<<1, 1>>>(99, d_vec);
	CHECK_LAUNCH();
	std::vector<float> vec = to_host(d_vec, 16);
	ok &= expect(std::equal(vec.begin(), vec.begin() + 4, vec.begin() + 4) &&
			     std::equal(vec.begin() + 8, vec.begin() + 12, vec.begin() + 12),
		     "curand_uniform4/curand_normal4 take curand's numbers");

	ok &= check_statistics<curandStateXORWOW_t>("XORWOW", 2024);
	ok &= check_statistics<curandStatePhilox4_32_10_t>("Philox4_32_10", 2024);
	ok &= check_statistics<curandStateMRG32k3a_t>("MRG32k3a", 2024);
	return report("curand_device", ok);
}
