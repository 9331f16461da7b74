// The kernels of libcufft and the execution of a plan (plan.h): gather,
// radix stages or Bluestein's convolution per axis, scatter.
#include "plan.h"

#include <algorithm>

namespace simtgpu::cufftlib {
namespace {

constexpr unsigned kThreads = 128;

template <class R> struct Cx {
    R re, im;
};
template <class R> __device__ Cx<R> operator*(Cx<R> a, Cx<R> b)
{
    return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}
template <class R> __device__ Cx<R> operator+(Cx<R> a, Cx<R> b) { return {a.re + b.re, a.im + b.im}; }
template <class R> __device__ Cx<R> conj(Cx<R> a) { return {a.re, -a.im}; }

// exp(sign * 2 pi i * a / n), in double and then rounded: accurate twiddles
// for single precision too.
template <class R> __device__ Cx<R> twiddle(int sign, long long a, long long n)
{
    double s, c;
    sincospi(2.0 * double(a % n) / double(n), &s, &c);
    return {R(c), R(sign * s)};
}

// Bluestein's chirp exp(sign * pi i * k^2 / n), k^2 reduced mod 2n first.
template <class R> __device__ Cx<R> chirp(int sign, long long k, long long n)
{
    const long long k2 = (k % (2 * n)) * (k % (2 * n)) % (2 * n);
    double s, c;
    sincospi(double(k2) / double(n), &s, &c);
    return {R(c), R(sign * s)};
}

// Where element e of transform T lies in a buffer of transforms of length
// n along an axis whose elements are `stride` apart, `per_batch` elements
// to a batch.
struct AxisWalk {
    long long n, stride, per_batch;
    __device__ long long base(long long T) const
    {
        const long long per = per_batch / n; // transforms per batch
        const long long b = T / per, t = T % per;
        return b * per_batch + (t / stride) * (n * stride) + t % stride;
    }
};

// One Stockham stage of radix r after stages of product p: thread (T, i)
// takes elements i + t n/r, twiddles them, and writes their r-point DFT
// to (i - k) r + k + q p, k = i mod p.
template <class R>
__global__ void stage(const Cx<R> *x, Cx<R> *y, AxisWalk w, long long transforms, int r,
                      long long p, int sign)
{
    const long long m = w.n / r;
    const long long id = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (id >= transforms * m)
        return;
    const long long T = id / m, i = id % m, k = i % p;
    const long long base = w.base(T);
    Cx<R> u[kMaxRadix], roots[kMaxRadix];
    for (int t = 0; t < r; ++t) {
        u[t] = x[base + (i + t * m) * w.stride];
        if (k)
            u[t] = u[t] * twiddle<R>(sign, t * k, p * r);
        roots[t] = twiddle<R>(sign, t, r);
    }
    const long long j = (i - k) * r + k;
    for (int q = 0; q < r; ++q) {
        Cx<R> v = u[0];
        for (int t = 1; t < r; ++t)
            v = v + u[t] * roots[(t * q) % r];
        y[base + (j + q * p) * w.stride] = v;
    }
}

// Bluestein: a_j = x_j chirp_j, zero-padded to m.
template <class R>
__global__ void bluestein_load(const Cx<R> *x, Cx<R> *a, AxisWalk w, long long transforms,
                               long long m, int sign)
{
    const long long id = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (id >= transforms * m)
        return;
    const long long T = id / m, j = id % m;
    a[id] = j < w.n ? x[w.base(T) + j * w.stride] * chirp<R>(sign, j, w.n) : Cx<R>{0, 0};
}

template <class R>
__global__ void pointwise(Cx<R> *a, const Cx<R> *filter, long long transforms, long long m)
{
    const long long id = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (id < transforms * m)
        a[id] = a[id] * filter[id % m];
}

// X_k = chirp_k (a * b)_k, the inverse FFT's factor m taken out.
template <class R>
__global__ void bluestein_store(const Cx<R> *a, Cx<R> *x, AxisWalk w, long long transforms,
                                long long m, int sign)
{
    const long long id = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (id >= transforms * w.n)
        return;
    const long long T = id / w.n, k = id % w.n;
    Cx<R> v = a[T * m + k] * chirp<R>(sign, k, w.n);
    const R scale = R(1) / R(m);
    x[w.base(T) + k * w.stride] = {v.re * scale, v.im * scale};
}

// The filter's input: b_j = conj(chirp_j) for |j| < n (indices mod m).
template <class R> __global__ void bluestein_filter(Cx<R> *b, long long n, long long m, int sign)
{
    const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= m)
        return;
    const long long d = j < n ? j : (m - j < n ? m - j : -1);
    b[j] = d >= 0 ? conj(chirp<R>(sign, d, n)) : Cx<R>{0, 0};
}

// The offset of logical element `index` of `shape` in `layout`.
__device__ long long offset_of(long long index, const Shape &shape, const Layout &layout)
{
    long long c[kMaxRank];
    for (int d = shape.rank - 1; d >= 0; --d) {
        c[d] = index % shape.n[d];
        index /= shape.n[d];
    }
    long long o = c[0];
    for (int d = 1; d < shape.rank; ++d)
        o = o * layout.embed[d] + c[d];
    return o * layout.stride;
}

enum class Side { complex, real, half }; // the caller's data: complex, real, or Hermitian half

// This thread's element of the work buffer (id), its index in its batch's
// logical shape (e) and its batch's start in the caller's layout (at);
// false past the last element.
__device__ bool element_of(const Shape &full, const Layout &layout, long long batch,
                           long long &id, long long &e, long long &at)
{
    const long long total = full.count();
    id = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (id >= total * batch)
        return false;
    e = id % total;
    at = id / total * layout.dist;
    return true;
}

// Gathers the caller's input into the work buffer (logical full shape).
template <class R>
__global__ void gather(const void *in, Cx<R> *work, Shape full, Shape half, Layout layout,
                       Side side, long long batch)
{
    long long id, e, at;
    if (!element_of(full, layout, batch, id, e, at))
        return;
    if (side == Side::real) {
        work[id] = {static_cast<const R *>(in)[at + offset_of(e, full, layout)], R(0)};
        return;
    }
    const Cx<R> *c = static_cast<const Cx<R> *>(in);
    if (side == Side::complex) {
        work[id] = c[at + offset_of(e, full, layout)];
        return;
    }
    // Hermitian: the last axis beyond n/2 mirrors through every axis, conjugated.
    long long idx[kMaxRank], rest = e;
    for (int d = full.rank - 1; d >= 0; --d) {
        idx[d] = rest % full.n[d];
        rest /= full.n[d];
    }
    const int last = full.rank - 1;
    bool mirror = idx[last] >= half.n[last];
    long long h = 0;
    for (int d = 0; d < full.rank; ++d) {
        const long long i = mirror ? (full.n[d] - idx[d]) % full.n[d] : idx[d];
        h = h * half.n[d] + i;
    }
    const Cx<R> v = c[at + offset_of(h, half, layout)];
    work[id] = mirror ? conj(v) : v;
}

// Scatters the work buffer to the caller's output.
template <class R>
__global__ void scatter(const Cx<R> *work, void *out, Shape full, Shape half, Layout layout,
                        Side side, long long batch)
{
    long long id, e, at;
    if (!element_of(full, layout, batch, id, e, at))
        return;
    if (side == Side::real) {
        static_cast<R *>(out)[at + offset_of(e, full, layout)] = work[id].re;
        return;
    }
    Cx<R> *c = static_cast<Cx<R> *>(out);
    if (side == Side::complex) {
        c[at + offset_of(e, full, layout)] = work[id];
        return;
    }
    const int last = full.rank - 1;
    long long rest = e, h = 0, mult = 1;
    for (int d = last; d >= 0; --d) {
        const long long i = rest % full.n[d];
        rest /= full.n[d];
        if (i >= half.n[d])
            return; // beyond n/2 on the last axis: not stored
        h += i * mult;
        mult *= half.n[d];
    }
    c[at + offset_of(h, half, layout)] = work[id];
}

unsigned blocks(long long threads) { return unsigned((threads + kThreads - 1) / kThreads); }

// The radix stages of a transform along `w`, ping-ponging between a and b;
// returns where the result is.
template <class R>
Cx<R> *stages(Cx<R> *a, Cx<R> *b, AxisWalk w, long long transforms,
              const std::vector<int> &radices, int sign, cudaStream_t stream)
{
    long long p = 1;
    for (int r : radices) {
        stage<R><<<blocks(transforms * (w.n / r)), kThreads, 0, stream>>>(a, b, w, transforms, r,
                                                                          p, sign);
        std::swap(a, b);
        p *= r;
    }
    return a;
}

template <class R> cudaError_t make_filters_as(Plan &plan)
{
    for (Axis &axis : plan.axes) {
        if (!axis.bluestein_m)
            continue;
        const long long m = axis.bluestein_m;
        Cx<R> *scratch = nullptr;
        if (cudaError_t e = cudaMalloc(&scratch, 2 * m * sizeof(Cx<R>)))
            return e;
        for (int s = 0; s < 2; ++s) {
            const int sign = s == 0 ? CUFFT_FORWARD : CUFFT_INVERSE;
            bluestein_filter<R><<<blocks(m), kThreads>>>(scratch, axis.n, m, sign);
            Cx<R> *f = stages<R>(scratch, scratch + m, AxisWalk{m, 1, m}, 1, axis.radices,
                                 CUFFT_FORWARD, nullptr);
            if (cudaError_t e = cudaMalloc(&axis.filter[s], m * sizeof(Cx<R>)))
                return e;
            cudaMemcpy(axis.filter[s], f, m * sizeof(Cx<R>), cudaMemcpyDeviceToDevice);
        }
        cudaFree(scratch);
    }
    return cudaGetLastError();
}

Side side_of_input(cufftType t)
{
    return t == CUFFT_R2C || t == CUFFT_D2Z ? Side::real
           : t == CUFFT_C2R || t == CUFFT_Z2D ? Side::half
                                              : Side::complex;
}
Side side_of_output(cufftType t)
{
    return t == CUFFT_R2C || t == CUFFT_D2Z ? Side::half
           : t == CUFFT_C2R || t == CUFFT_Z2D ? Side::real
                                              : Side::complex;
}

template <class R>
cudaError_t execute_as(const Plan &plan, const void *input, void *output, int sign)
{
    const long long total = plan.shape.count();
    const long long elements = total * plan.batch;
    Cx<R> *a = static_cast<Cx<R> *>(plan.work), *b = a + elements;
    Cx<R> *t0 = b + elements, *t1 = t0 + plan.bluestein_elements;
    Shape half = plan.shape;
    half.n[half.rank - 1] = plan.shape.n[half.rank - 1] / 2 + 1;
    // In place, a real side is padded to 2 (n/2 + 1) on the last axis (cuFFT's rule).
    Layout in = plan.in, out = plan.out;
    const bool in_place = input == output;
    const int last = plan.shape.rank - 1;
    if (in_place && plan.in_default && side_of_input(plan.type) == Side::real) {
        in.embed[last] = 2 * half.n[last];
        in.dist = in.dist / plan.shape.n[last] * in.embed[last];
    }
    if (in_place && plan.out_default && side_of_output(plan.type) == Side::real) {
        out.embed[last] = 2 * half.n[last];
        out.dist = out.dist / plan.shape.n[last] * out.embed[last];
    }
    cudaStream_t s = plan.stream;
    gather<R><<<blocks(elements), kThreads, 0, s>>>(input, a, plan.shape, half, in,
                                                    side_of_input(plan.type), plan.batch);
    for (const Axis &axis : plan.axes) {
        const AxisWalk w{axis.n, axis.stride, total};
        const long long transforms = elements / axis.n;
        if (!axis.bluestein_m) {
            Cx<R> *result = stages<R>(a, b, w, transforms, axis.radices, sign, s);
            if (result != a)
                std::swap(a, b);
            continue;
        }
        const long long m = axis.bluestein_m;
        bluestein_load<R><<<blocks(transforms * m), kThreads, 0, s>>>(a, t0, w, transforms, m,
                                                                      sign);
        const AxisWalk conv{m, 1, m};
        Cx<R> *f = stages<R>(t0, t1, conv, transforms, axis.radices, CUFFT_FORWARD, s);
        pointwise<R><<<blocks(transforms * m), kThreads, 0, s>>>(
            f, static_cast<const Cx<R> *>(axis.filter[sign == CUFFT_FORWARD ? 0 : 1]),
            transforms, m);
        Cx<R> *g = stages<R>(f, f == t0 ? t1 : t0, conv, transforms, axis.radices, CUFFT_INVERSE,
                             s);
        bluestein_store<R><<<blocks(transforms * axis.n), kThreads, 0, s>>>(g, a, w, transforms,
                                                                            m, sign);
    }
    scatter<R><<<blocks(elements), kThreads, 0, s>>>(a, output, plan.shape, half, out,
                                                     side_of_output(plan.type), plan.batch);
    return cudaGetLastError();
}

} // namespace

std::vector<int> radices_of(long long n)
{
    std::vector<int> r;
    for (int f : {4, 2, 3, 5, 7})
        for (; n % f == 0; n /= f)
            r.push_back(f);
    for (int f = 11; n > 1 && f <= kMaxRadix; f += 2)
        for (; n % f == 0; n /= f)
            r.push_back(f);
    if (n > 1)
        r.clear();
    return r;
}

cudaError_t make_filters(Plan &plan)
{
    return plan.dbl ? make_filters_as<double>(plan) : make_filters_as<float>(plan);
}

void free_filters(Plan &plan)
{
    for (Axis &axis : plan.axes)
        for (void *&f : axis.filter) {
            cudaFree(f);
            f = nullptr;
        }
}

cudaError_t execute(const Plan &plan, const void *in, void *out, int sign)
{
    return plan.dbl ? execute_as<double>(plan, in, out, sign)
                    : execute_as<float>(plan, in, out, sign);
}

} // namespace simtgpu::cufftlib
