// SPDX-License-Identifier: MIT
// cuda_fp16.h and cuda_bf16.h on the device, bit for bit against a CPU
// reference that shares no code with the headers: the reference rounds by
// binary search over a table of every value of the format (decoded with
// ldexp), deciding ties with exact comparisons (int128 or exact double
// products), so it checks round-to-nearest-even, the directed modes,
// subnormals, overflow to inf, and NaN (canonical 0x7fff) independently.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <vector>

#include "test_util.h"

namespace {

// A 16-bit format: the table of its non-negative values, index = bits.
struct Format {
	const char *name;
	int exp_bits, mant_bits;
	uint16_t inf_bits;
	std::vector<double> values; // [0, inf_bits]: inf stands as 2^(emax+1)

	Format(const char *n, int e, int m) : name(n), exp_bits(e), mant_bits(m)
	{
		inf_bits = static_cast<uint16_t>(((1 << e) - 1) << m);
		const int bias = (1 << (e - 1)) - 1;
		for (uint32_t bits = 0; bits <= inf_bits; ++bits) {
			const int field = static_cast<int>(bits >> m);
			const double mantissa = bits & ((1u << m) - 1);
			values.push_back(field == 0 ? std::ldexp(mantissa, 1 - bias - m)
						    : std::ldexp(mantissa + (1u << m), field - bias - m));
		}
	}
	bool is_nan(uint16_t bits) const { return (bits & 0x7fff) > inf_bits; }
	double value(uint16_t bits) const
	{
		if (is_nan(bits))
			return NAN;
		const double magnitude = (bits & 0x7fff) == inf_bits ? INFINITY : values[bits & 0x7fff];
		return bits & 0x8000 ? -magnitude : magnitude;
	}

	// The rounded bits of a value known only through compare(v), the sign of
	// (|exact| - v) for a table value or a midpoint of two.
	template <class Compare>
	uint16_t round(bool negative, Compare compare, int mode) const
	{
		size_t lo = 0, hi = inf_bits; // invariant: values[lo] <= |exact|
		if (compare(values[inf_bits]) >= 0) {
			lo = inf_bits;
		} else {
			while (hi - lo > 1) {
				const size_t mid = (lo + hi) / 2;
				(compare(values[mid]) >= 0 ? lo : hi) = mid;
			}
		}
		const uint16_t sign = negative ? 0x8000 : 0;
		const bool exact = compare(values[lo]) == 0;
		size_t bits = lo;
		if (mode == 0) {
			if (!exact && lo < inf_bits) {
				const int c = compare((values[lo] + values[lo + 1]) / 2);
				if (c > 0 || (c == 0 && (lo & 1)))
					bits = lo + 1;
			}
		} else {
			const bool outward = (mode == 3 && !negative) || (mode == 2 && negative);
			if (lo == inf_bits) // beyond the largest finite value
				bits = outward ? inf_bits : inf_bits - 1;
			else if (!exact && outward)
				bits = lo + 1;
		}
		return static_cast<uint16_t>(sign | bits);
	}
	uint16_t round_double(double d, int mode = 0) const
	{
		if (std::isnan(d))
			return 0x7fff;
		if (std::isinf(d))
			return static_cast<uint16_t>((d < 0 ? 0x8000 : 0) | inf_bits);
		const double magnitude = std::fabs(d);
		return round(std::signbit(d),
			     [&](double v) { return magnitude < v ? -1 : magnitude > v ? 1 : 0; }, mode);
	}
};

const Format kHalf("half", 5, 10);
const Format kBf16("bfloat16", 8, 7);

enum Op { kAdd, kSub, kMul, kDiv, kFma, kSqrt, kOps };
const char *const kOpNames[kOps] = {"add", "sub", "mul", "div", "fma", "sqrt"};

template <class T> struct Traits;
template <> struct Traits<__half> {
	__host__ __device__ static __half from_bits(unsigned short u) { return __ushort_as_half(u); }
	__host__ __device__ static unsigned short bits(__half h) { return __half_as_ushort(h); }
	__device__ static __half from_float(float f, int mode)
	{
		switch (mode) {
		case 0: return __float2half_rn(f);
		case 1: return __float2half_rz(f);
		case 2: return __float2half_rd(f);
		default: return __float2half_ru(f);
		}
	}
	__device__ static float to_float(__half h) { return __half2float(h); }
	__device__ static __half from_double(double d) { return __double2half(d); }
	__device__ static __half from_ll(long long i) { return __ll2half_rn(i); }
};
template <> struct Traits<__nv_bfloat16> {
	__host__ __device__ static __nv_bfloat16 from_bits(unsigned short u) { return __ushort_as_bfloat16(u); }
	__host__ __device__ static unsigned short bits(__nv_bfloat16 h) { return __bfloat16_as_ushort(h); }
	__device__ static __nv_bfloat16 from_float(float f, int mode)
	{
		switch (mode) {
		case 0: return __float2bfloat16_rn(f);
		case 1: return __float2bfloat16_rz(f);
		case 2: return __float2bfloat16_rd(f);
		default: return __float2bfloat16_ru(f);
		}
	}
	__device__ static float to_float(__nv_bfloat16 h) { return __bfloat162float(h); }
	__device__ static __nv_bfloat16 from_double(double d) { return __double2bfloat16(d); }
	__device__ static __nv_bfloat16 from_ll(long long i) { return __ll2bfloat16_rn(i); }
};

template <class T>
__global__ void to_float_kernel(const unsigned short *in, float *out, int n)
{
	const int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = Traits<T>::to_float(Traits<T>::from_bits(in[i]));
}

template <class T>
__global__ void from_float_kernel(const float *in, unsigned short *out, int n)
{
	const int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		for (int mode = 0; mode < 4; ++mode)
			out[4 * i + mode] = Traits<T>::bits(Traits<T>::from_float(in[i], mode));
}

template <class T>
__global__ void from_wide_kernel(const double *d, const long long *ll, unsigned short *out, int n)
{
	const int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		out[2 * i] = Traits<T>::bits(Traits<T>::from_double(d[i]));
		out[2 * i + 1] = Traits<T>::bits(Traits<T>::from_ll(ll[i]));
	}
}

// Each op through its function name, and add/mul/fma again through the
// operators and the two-lane type (which must agree with the scalar ones).
template <class T, class T2>
__global__ void arith_kernel(const unsigned short *a, const unsigned short *b, const unsigned short *c,
			     unsigned short *out, unsigned short *pair_out, int n)
{
	const int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	const T x = Traits<T>::from_bits(a[i]), y = Traits<T>::from_bits(b[i]), z = Traits<T>::from_bits(c[i]);
	unsigned short *o = out + kOps * i;
	o[kAdd] = Traits<T>::bits(__hadd(x, y));
	o[kSub] = Traits<T>::bits(__hsub(x, y));
	o[kMul] = Traits<T>::bits(__hmul(x, y));
	o[kDiv] = Traits<T>::bits(__hdiv(x, y));
	o[kFma] = Traits<T>::bits(__hfma(x, y, z));
	o[kSqrt] = Traits<T>::bits(hsqrt(x));
	const T2 xy(x, y), yx(y, x), zz(z, z);
	const T2 sum = xy + yx, fma = __hfma2(xy, yx, zz);
	T prod = x;
	prod *= y;
	unsigned short *p = pair_out + 5 * i;
	p[0] = Traits<T>::bits(sum.x);
	p[1] = Traits<T>::bits(sum.y);
	p[2] = Traits<T>::bits(fma.x);
	p[3] = Traits<T>::bits(fma.y);
	p[4] = Traits<T>::bits(prod);
}

// Fixed point for the exact fma reference: operands in units of
// 2^-operand_frac_bits (half: all of them; bfloat16: magnitudes in
// 2^-20 .. 2^20, see operand()), the product and sum in 2^-(2 * that).
using Fixed = __int128;
int operand_frac_bits(const Format &f) { return f.exp_bits == 5 ? 24 : 31; }

Fixed to_fixed(double v, int frac_bits) { return static_cast<Fixed>(std::ldexp(v, frac_bits)); }

// sign(|E| - v) for E an exact multiple of 2^-frac_bits.
int compare_fixed(Fixed magnitude, int frac_bits, double v)
{
	const double scaled = std::ldexp(v, frac_bits);
	if (scaled >= std::ldexp(1.0, 120))
		return -1;
	const Fixed floor_v = static_cast<Fixed>(std::floor(scaled));
	if (magnitude < floor_v)
		return -1;
	if (magnitude > floor_v)
		return 1;
	return static_cast<double>(floor_v) == scaled ? 0 : -1;
}

struct Counter {
	const char *what;
	int checked = 0, wrong = 0;
	void check(bool ok, const char *format_name, const char *detail, unsigned in1, unsigned in2,
		   unsigned got, unsigned want)
	{
		++checked;
		if (!ok && wrong++ < 8)
			std::printf("  %s %s %s: inputs 0x%x 0x%x: got 0x%x, want 0x%x\n", format_name, what,
				    detail, in1, in2, got, want);
	}
};

// Reference bits of one op; nullopt-like: returns false where the exact
// fixed-point reference does not apply.
uint16_t reference_op(const Format &f, Op op, uint16_t a, uint16_t b, uint16_t c)
{
	const double x = f.value(a), y = f.value(b), z = f.value(c);
	switch (op) {
	case kAdd:
	case kSub:
	case kMul: {
		// In double: exact for half and for bfloat16 products; a bfloat16 sum
		// rounds twice, which is innocuous (53 >= 2 * 8 + 2).
		const double r = op == kAdd ? x + y : op == kSub ? x - y : x * y;
		return f.round_double(r);
	}
	case kDiv: {
		const double q = x / y;
		if (std::isnan(q) || std::isinf(q) || q == 0)
			return f.round_double(q);
		// |x| vs v * |y|: exact, v has at most mant_bits + 2 significant bits.
		const double ax = std::fabs(x), ay = std::fabs(y);
		return f.round(std::signbit(q), [&](double v) {
			const double vy = v * ay;
			return ax < vy ? -1 : ax > vy ? 1 : 0;
		}, 0);
	}
	case kSqrt: {
		if (!(x > 0) || std::isinf(x))
			return f.round_double(std::sqrt(x)); // NaN, -x, +-0, inf
		return f.round(false, [&](double v) {
			const double vv = v * v;
			return x < vv ? -1 : x > vv ? 1 : 0;
		}, 0);
	}
	case kFma: {
		const double approx = x * y + z;
		if (std::isnan(approx) || std::isinf(approx) || std::isinf(x * y))
			return f.round_double(approx);
		const int frac = operand_frac_bits(f);
		const Fixed exact = to_fixed(x, frac) * to_fixed(y, frac) + to_fixed(z, 2 * frac);
		if (exact == 0) // +0 unless both parts are -0 (or round to -0)
			return f.round_double(x * y + z);
		const bool negative = exact < 0;
		const Fixed magnitude = negative ? -exact : exact;
		return f.round(negative, [&](double v) { return compare_fixed(magnitude, 2 * frac, v); }, 0);
	}
	default:
		return 0;
	}
}

// An operand: a random bit pattern or (one in 16) a special value; for the
// fma inputs of bfloat16 finite magnitudes stay within 2^-20 .. 2^20 so that
// the fixed-point reference is exact.
uint16_t operand(const Format &f, Rng &rng, bool fma_range)
{
	const uint16_t specials[] = {0x0000, 0x8000, 0x0001, 0x8001, static_cast<uint16_t>(f.inf_bits | 1),
				     f.inf_bits, static_cast<uint16_t>(f.inf_bits - 1)};
	const bool limited = fma_range && f.exp_bits != 5;
	for (;;) {
		const uint16_t bits = rng.next() % 16 == 0 ? specials[rng.next() % 7]
							   : static_cast<uint16_t>(rng.next());
		const double v = std::fabs(f.value(bits));
		if (f.is_nan(bits) && bits != specials[4])
			continue;
		if (limited && !std::isnan(v) && v != 0 &&
		    (std::isinf(v) || v < std::ldexp(1.0, -20) || v > std::ldexp(1.0, 20)))
			continue;
		return bits;
	}
}

template <class T, class T2>
bool test_format(const Format &f)
{
	const int threads = 128;
	bool ok = true;

	// 1. Every 16-bit pattern to float.
	{
		const int n = 65536;
		std::vector<unsigned short> in(n);
		for (int i = 0; i < n; ++i)
			in[i] = static_cast<unsigned short>(i);
		unsigned short *d_in;
		float *d_out;
		CHECK_CUDA(cudaMalloc(&d_in, n * sizeof(unsigned short)));
		CHECK_CUDA(cudaMalloc(&d_out, n * sizeof(float)));
		CHECK_CUDA(cudaMemcpy(d_in, in.data(), n * sizeof(unsigned short), cudaMemcpyHostToDevice));
		to_float_kernel<T><<<n / threads, threads>>>(d_in, d_out, n);
		CHECK_LAUNCH();
		std::vector<float> out(n);
		CHECK_CUDA(cudaMemcpy(out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
		Counter counter{"to float"};
		for (int i = 0; i < n; ++i) {
			const double want = f.value(static_cast<uint16_t>(i));
			const bool good = std::isnan(want) ? std::isnan(out[i])
							   : (out[i] == want && std::signbit(out[i]) == std::signbit(want));
			uint32_t got_bits;
			std::memcpy(&got_bits, &out[i], 4);
			counter.check(good, f.name, "", i, 0, got_bits, 0);
		}
		std::printf("%s to float: %d of %d right\n", f.name, counter.checked - counter.wrong, counter.checked);
		ok = ok && counter.wrong == 0;
		CHECK_CUDA(cudaFree(d_in));
		CHECK_CUDA(cudaFree(d_out));
	}

	// 2. Floats to the format in the four rounding modes: every value of the
	// format, the midpoints to the next value and one float ulp either side
	// of them (ties and near-ties), random floats of every magnitude
	// (float subnormals included), the overflow boundary, inf, NaN.
	{
		std::vector<float> in;
		for (uint32_t bits = 0; bits < f.inf_bits; bits += 1) {
			const float sign = (bits & 1) ? -1.0f : 1.0f;
			const double mid = (f.values[bits] + f.values[bits + 1]) / 2;
			const float m = static_cast<float>(mid); // exact: mant_bits + 2 bits
			in.push_back(sign * static_cast<float>(f.values[bits]));
			in.push_back(sign * m);
			in.push_back(sign * std::nextafter(m, 0.0f));
			in.push_back(sign * std::nextafter(m, INFINITY));
		}
		Rng rng(0x5eed + f.exp_bits);
		for (int i = 0; i < 8192; ++i) {
			uint32_t u = rng.next();
			float v;
			std::memcpy(&v, &u, 4);
			if (!std::isnan(v))
				in.push_back(v);
		}
		for (float v : {0.0f, -0.0f, INFINITY, -INFINITY, NAN, -NAN, 1e-45f, -1e-45f, 65504.0f,
				65519.99f, 65520.0f, -65520.0f, 3.4028235e38f, 1.0e-40f})
			in.push_back(v);
		const int n = static_cast<int>(in.size());
		float *d_in;
		unsigned short *d_out;
		CHECK_CUDA(cudaMalloc(&d_in, n * sizeof(float)));
		CHECK_CUDA(cudaMalloc(&d_out, 4 * n * sizeof(unsigned short)));
		CHECK_CUDA(cudaMemcpy(d_in, in.data(), n * sizeof(float), cudaMemcpyHostToDevice));
		from_float_kernel<T><<<(n + threads - 1) / threads, threads>>>(d_in, d_out, n);
		CHECK_LAUNCH();
		std::vector<unsigned short> out(4 * n);
		CHECK_CUDA(cudaMemcpy(out.data(), d_out, out.size() * sizeof(unsigned short), cudaMemcpyDeviceToHost));
		Counter counter{"from float"};
		static const char *const kModes[] = {"rn", "rz", "rd", "ru"};
		for (int i = 0; i < n; ++i)
			for (int mode = 0; mode < 4; ++mode) {
				const uint16_t want = f.round_double(in[i], mode);
				uint32_t in_bits;
				std::memcpy(&in_bits, &in[i], 4);
				counter.check(out[4 * i + mode] == want, f.name, kModes[mode], in_bits, 0,
					      out[4 * i + mode], want);
			}
		std::printf("%s from float (rn/rz/rd/ru): %d of %d right\n", f.name,
			    counter.checked - counter.wrong, counter.checked);
		ok = ok && counter.wrong == 0;
		CHECK_CUDA(cudaFree(d_in));
		CHECK_CUDA(cudaFree(d_out));
	}

	// 3. Doubles and 64-bit integers just off a midpoint, where rounding
	// twice (through float, or through a double for integers above 2^53)
	// would land on the wrong side.
	{
		std::vector<double> d;
		std::vector<long long> ll;
		Rng rng(0xd0b1e + f.exp_bits);
		for (int i = 0; i < 4096; ++i) {
			const uint32_t bits = rng.next() % (f.inf_bits - 1u);
			const double mid = (f.values[bits] + f.values[bits + 1]) / 2;
			const double offset = std::ldexp(mid, -40) * ((i & 2) ? 1 : -1) * ((i & 4) ? 1 : 0);
			d.push_back(((i & 1) ? -1 : 1) * (mid + offset));
			// Integers: a value of the format (above 2^53 where the format
			// reaches that far), its midpoint to the next, and that +- 1.
			const int bias = (1 << (f.exp_bits - 1)) - 1;
			const int hi_exponent = std::min(61, bias), lo_exponent = std::min(54, hi_exponent - 4);
			const int exponent = lo_exponent + static_cast<int>(rng.next() % static_cast<uint32_t>(hi_exponent - lo_exponent + 1));
			const long long base = (1ll << exponent) + static_cast<long long>(rng.next() % (1u << f.mant_bits))
								   * (1ll << (exponent - f.mant_bits));
			const long long half_ulp = 1ll << (exponent - f.mant_bits - 1);
			const long long v = base + half_ulp + static_cast<long long>(i % 3) - 1;
			ll.push_back((i & 8) ? -v : v);
		}
		const int n = static_cast<int>(d.size());
		double *d_d;
		long long *d_ll;
		unsigned short *d_out;
		CHECK_CUDA(cudaMalloc(&d_d, n * sizeof(double)));
		CHECK_CUDA(cudaMalloc(&d_ll, n * sizeof(long long)));
		CHECK_CUDA(cudaMalloc(&d_out, 2 * n * sizeof(unsigned short)));
		CHECK_CUDA(cudaMemcpy(d_d, d.data(), n * sizeof(double), cudaMemcpyHostToDevice));
		CHECK_CUDA(cudaMemcpy(d_ll, ll.data(), n * sizeof(long long), cudaMemcpyHostToDevice));
		from_wide_kernel<T><<<(n + threads - 1) / threads, threads>>>(d_d, d_ll, d_out, n);
		CHECK_LAUNCH();
		std::vector<unsigned short> out(2 * n);
		CHECK_CUDA(cudaMemcpy(out.data(), d_out, out.size() * sizeof(unsigned short), cudaMemcpyDeviceToHost));
		Counter counter{"from double/long long"};
		for (int i = 0; i < n; ++i) {
			const uint16_t want_d = f.round_double(d[i]);
			counter.check(out[2 * i] == want_d, f.name, "double", 0, 0, out[2 * i], want_d);
			const bool negative = ll[i] < 0;
			const Fixed magnitude = negative ? -static_cast<Fixed>(ll[i]) : static_cast<Fixed>(ll[i]);
			const uint16_t want_ll =
				f.round(negative, [&](double v) { return compare_fixed(magnitude, 0, v); }, 0);
			counter.check(out[2 * i + 1] == want_ll, f.name, "long long", 0, 0, out[2 * i + 1], want_ll);
		}
		std::printf("%s from double and long long: %d of %d right\n", f.name,
			    counter.checked - counter.wrong, counter.checked);
		ok = ok && counter.wrong == 0;
		CHECK_CUDA(cudaFree(d_d));
		CHECK_CUDA(cudaFree(d_ll));
		CHECK_CUDA(cudaFree(d_out));
	}

	// 4. Arithmetic on random operands and special values.
	{
		const int n = 8192;
		std::vector<unsigned short> a(n), b(n), c(n);
		Rng rng(0xa11 + f.exp_bits);
		for (int i = 0; i < n; ++i) {
			a[i] = operand(f, rng, true);
			b[i] = operand(f, rng, true);
			c[i] = operand(f, rng, true);
		}
		// A quarter of the inputs across the whole range (fma not checked).
		for (int i = 0; i < n / 4; ++i) {
			a[i] = operand(f, rng, false);
			b[i] = operand(f, rng, false);
		}
		unsigned short *d_a, *d_b, *d_c, *d_out, *d_pair;
		CHECK_CUDA(cudaMalloc(&d_a, n * 2));
		CHECK_CUDA(cudaMalloc(&d_b, n * 2));
		CHECK_CUDA(cudaMalloc(&d_c, n * 2));
		CHECK_CUDA(cudaMalloc(&d_out, kOps * n * 2));
		CHECK_CUDA(cudaMalloc(&d_pair, 5 * n * 2));
		CHECK_CUDA(cudaMemcpy(d_a, a.data(), n * 2, cudaMemcpyHostToDevice));
		CHECK_CUDA(cudaMemcpy(d_b, b.data(), n * 2, cudaMemcpyHostToDevice));
		CHECK_CUDA(cudaMemcpy(d_c, c.data(), n * 2, cudaMemcpyHostToDevice));
		arith_kernel<T, T2><<<n / threads, threads>>>(d_a, d_b, d_c, d_out, d_pair, n);
		CHECK_LAUNCH();
		std::vector<unsigned short> out(kOps * n), pair(5 * n);
		CHECK_CUDA(cudaMemcpy(out.data(), d_out, out.size() * 2, cudaMemcpyDeviceToHost));
		CHECK_CUDA(cudaMemcpy(pair.data(), d_pair, pair.size() * 2, cudaMemcpyDeviceToHost));
		for (int op = 0; op < kOps; ++op) {
			Counter counter{kOpNames[op]};
			for (int i = op == kFma ? n / 4 : 0; i < n; ++i) {
				const uint16_t want = reference_op(f, static_cast<Op>(op), a[i], b[i], c[i]);
				const uint16_t got = out[kOps * i + op];
				const bool good = f.is_nan(want) ? got == 0x7fff : got == want;
				counter.check(good, f.name, "", a[i], b[i], got, want);
			}
			std::printf("%s %s: %d of %d right\n", f.name, kOpNames[op], counter.checked - counter.wrong,
				    counter.checked);
			ok = ok && counter.wrong == 0;
		}
		Counter counter{"two-lane and operator forms"};
		for (int i = 0; i < n; ++i) {
			const unsigned short *o = &out[kOps * i], *p = &pair[5 * i];
			const uint16_t fma_yx = reference_op(f, kFma, b[i], a[i], c[i]);
			counter.check(p[0] == o[kAdd] && p[1] == reference_op(f, kAdd, b[i], a[i], 0) &&
					      p[4] == o[kMul] &&
					      (i < n / 4 || (p[2] == o[kFma] && p[3] == fma_yx)),
				      f.name, "", a[i], b[i], p[0], o[kAdd]);
		}
		std::printf("%s __hadd2/__hfma2/operators: %d of %d agree\n", f.name,
			    counter.checked - counter.wrong, counter.checked);
		ok = ok && counter.wrong == 0;
		for (unsigned short *p : {d_a, d_b, d_c, d_out, d_pair})
			CHECK_CUDA(cudaFree(p));
	}
	return ok;
}

// A few semantics the table does not cover, on the host path (the same
// inline code as the device's): comparisons and max/min with NaN, integer
// conversions, and the math functions within one ulp of double's.
bool test_semantics()
{
	bool ok = true;
	const __half nan = __ushort_as_half(0x7e00), one = __float2half(1.0f), two = __float2half(2.0f);
	ok = ok && !__heq(nan, nan) && __hneu(nan, nan) && !__hne(nan, one) && __hlt(one, two);
	ok = ok && __half_as_ushort(__hmax(nan, two)) == __half_as_ushort(two);
	ok = ok && __half_as_ushort(__hmax_nan(nan, two)) == 0x7fff;
	ok = ok && __half2int_rn(__float2half(2.5f)) == 2 && __half2int_rn(__float2half(3.5f)) == 4;
	ok = ok && __half2int_rd(__float2half(-2.5f)) == -3 && __half2int_ru(__float2half(2.25f)) == 3;
	ok = ok && __half2int_rz(nan) == 0 && __half2short_rn(__float2half(65504.0f)) == 32767;
	ok = ok && __half2uint_rn(__float2half(-3.0f)) == 0u;
	ok = ok && __bfloat162int_rn(__float2bfloat16(1e30f)) == 2147483647;
	for (float x = -6.0f; x <= 6.0f; x += 0.375f) {
		const __half h = __float2half(x);
		const double want = std::exp(static_cast<double>(__half2float(h)));
		const double got = __half2float(hexp(h));
		const double ulp = std::ldexp(1.0, std::ilogb(want) - 10);
		ok = ok && std::fabs(got - want) <= ulp;
	}
	if (!ok)
		std::printf("  comparison/conversion/math semantics differ from CUDA's\n");
	return ok;
}

} // namespace

int main()
{
	bool ok = test_format<__half, __half2>(kHalf);
	ok = test_format<__nv_bfloat16, __nv_bfloat162>(kBf16) && ok;
	ok = test_semantics() && ok;
	return report("half_precision", ok);
}
