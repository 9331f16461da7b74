// cuRAND's host API (curand.h): generators, their options and the calls
// that fill memory, each checking its arguments and returning cuRAND's
// status codes with a one-line message on stderr that names the problem.
// The numbers themselves are generator.h's sequence, made on the device
// (device_generate.cu) or, for curandCreateGeneratorHost, on the host.
#include "generator.h"
#include "sobol_direction_numbers.h"

#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <mutex>
#include <new>

struct curandGenerator_st {
    curandRngType_t type = CURAND_RNG_PSEUDO_XORWOW;
    bool host = false; // curandCreateGeneratorHost: fills host memory on the CPU
    unsigned long long seed = 0;
    unsigned long long offset = 0;   // curandSetGeneratorOffset
    unsigned long long position = 0; // where the next call starts: raw number or point
    curandOrdering_t ordering = CURAND_ORDERING_PSEUDO_DEFAULT;
    cudaStream_t stream = nullptr;
    uint32_t dimensions = 1;            // Sobol32
    std::vector<uint32_t> vectors;      // Sobol32: dimensions x 32
    uint32_t *device_vectors = nullptr; // ... their copy in device memory
    double table_lambda = -1;           // the Poisson table last made
    simtgpu::curandlib::PoissonTable table;
    double *device_table = nullptr;
};

namespace simtgpu::curandlib {
namespace {

curandStatus_t fail(curandStatus_t status, const char *call, const char *format, ...)
{
    std::fprintf(stderr, "curand: %s: ", call);
    va_list args;
    va_start(args, format);
    std::vfprintf(stderr, format, args);
    va_end(args);
    std::fputc('\n', stderr);
    return status;
}

bool is_quasi(curandRngType_t type) { return type == CURAND_RNG_QUASI_SOBOL32; }

curandStatus_t cuda_status(cudaError_t e, const char *call)
{
    if (e == cudaSuccess)
        return CURAND_STATUS_SUCCESS;
    return fail(e == cudaErrorMemoryAllocation ? CURAND_STATUS_ALLOCATION_FAILED
                                               : CURAND_STATUS_LAUNCH_FAILURE,
                call, "the CUDA runtime failed: %s", cudaGetErrorString(e));
}

curandStatus_t create(curandGenerator_t *generator, curandRngType_t type, bool host,
                      const char *call)
{
    if (!generator)
        return fail(CURAND_STATUS_OUT_OF_RANGE, call, "generator is NULL");
    *generator = nullptr;
    switch (type) {
    case CURAND_RNG_PSEUDO_DEFAULT:
        type = CURAND_RNG_PSEUDO_XORWOW;
        break;
    case CURAND_RNG_QUASI_DEFAULT:
        type = CURAND_RNG_QUASI_SOBOL32;
        break;
    case CURAND_RNG_PSEUDO_XORWOW:
    case CURAND_RNG_PSEUDO_MRG32K3A:
    case CURAND_RNG_PSEUDO_PHILOX4_32_10:
    case CURAND_RNG_QUASI_SOBOL32:
        break;
    case CURAND_RNG_PSEUDO_MTGP32:
    case CURAND_RNG_PSEUDO_MT19937:
    case CURAND_RNG_QUASI_SCRAMBLED_SOBOL32:
    case CURAND_RNG_QUASI_SOBOL64:
    case CURAND_RNG_QUASI_SCRAMBLED_SOBOL64:
        return fail(CURAND_STATUS_TYPE_ERROR, call,
                    "generator type %d is not in simtgpu's cuRAND (XORWOW, MRG32k3a, Philox4_32_10 "
                    "and Sobol32 are; docs/libraries.md)",
                    int(type));
    default:
        return fail(CURAND_STATUS_TYPE_ERROR, call, "rng_type %d is not a curandRngType_t",
                    int(type));
    }
    auto *g = new (std::nothrow) curandGenerator_st;
    if (!g)
        return fail(CURAND_STATUS_ALLOCATION_FAILED, call, "out of host memory");
    g->type = type;
    g->host = host;
    if (is_quasi(type)) {
        g->ordering = CURAND_ORDERING_QUASI_DEFAULT;
        g->vectors.resize(32);
        sobol_direction_vectors(0, g->vectors.data());
    }
    *generator = g;
    return CURAND_STATUS_SUCCESS;
}

// Sobol32's direction vectors on the device, made again when the dimensions change.
curandStatus_t upload_vectors(curandGenerator_t g, const char *call)
{
    if (g->device_vectors)
        return CURAND_STATUS_SUCCESS;
    const size_t bytes = g->vectors.size() * sizeof(uint32_t);
    if (cudaError_t e = cudaMalloc(reinterpret_cast<void **>(&g->device_vectors), bytes))
        return cuda_status(e, call);
    return cuda_status(cudaMemcpy(g->device_vectors, g->vectors.data(), bytes,
                                  cudaMemcpyHostToDevice),
                       call);
}

curandStatus_t check_output(curandGenerator_t g, const void *out, size_t n, const char *call)
{
    if (!g)
        return fail(CURAND_STATUS_NOT_INITIALIZED, call, "generator is NULL or destroyed");
    if (!out && n)
        return fail(CURAND_STATUS_OUT_OF_RANGE, call, "outputPtr is NULL");
    if (g->host || !n)
        return CURAND_STATUS_SUCCESS;
    cudaPointerAttributes attributes{};
    if (cudaPointerGetAttributes(&attributes, out) != cudaSuccess ||
        (attributes.type != cudaMemoryTypeDevice && attributes.type != cudaMemoryTypeManaged)) {
        cudaGetLastError();
        return fail(CURAND_STATUS_LAUNCH_FAILURE, call,
                    "outputPtr %p is not device memory: a generator of curandCreateGenerator "
                    "writes device memory (curandCreateGeneratorHost's writes host memory)",
                    out);
    }
    return CURAND_STATUS_SUCCESS;
}

// Fills `out` with `n` outputs of `kind`.
curandStatus_t generate(curandGenerator_t g, void *out, size_t n, Output kind, TransformArgs args,
                        const char *call)
{
    if (curandStatus_t s = check_output(g, out, n, call))
        return s;
    if (n == 0)
        return CURAND_STATUS_SUCCESS;
    uint32_t *raw = static_cast<uint32_t *>(out);
    args.quasi = is_quasi(g->type);
    const bool pairs = !args.quasi && (kind == Output::normal || kind == Output::log_normal ||
                                       kind == Output::normal_double ||
                                       kind == Output::log_normal_double);
    if (pairs && n % 2)
        return fail(CURAND_STATUS_LENGTH_NOT_MULTIPLE, call,
                    "n (%zu) must be even: a pseudorandom generator makes normals in pairs", n);
    if (args.quasi) {
        if (n % g->dimensions)
            return fail(CURAND_STATUS_LENGTH_NOT_MULTIPLE, call,
                        "n (%zu) must be a multiple of the generator's %u dimensions", n,
                        g->dimensions);
        const size_t points = n / g->dimensions;
        if (g->position + points > UINT32_MAX)
            return fail(CURAND_STATUS_OUT_OF_RANGE, call,
                        "Sobol32 has 2^32 points per dimension; this call would pass them");
        const bool wide = kind == Output::uniform_double || kind == Output::normal_double ||
                          kind == Output::log_normal_double;
        const uint32_t stride = wide ? 2 : 1;
        if (g->host) {
            host_raw_sobol(g->vectors.data(), g->dimensions, g->position, points, raw, stride);
        } else {
            if (curandStatus_t s = upload_vectors(g, call))
                return s;
            if (curandStatus_t s = cuda_status(device_raw_sobol(g->device_vectors, g->dimensions,
                                                                g->position, points, raw, stride,
                                                                g->stream),
                                               call))
                return s;
        }
        g->position += points;
    } else {
        const size_t count = n * raw_per_output(kind);
        if (g->host) {
            host_raw_pseudo(g->type, g->seed, g->position, raw, count);
        } else if (curandStatus_t s = cuda_status(
                       device_raw_pseudo(g->type, g->seed, g->position, raw, count, g->stream),
                       call)) {
            return s;
        }
        g->position += count;
    }
    const size_t outputs = pairs ? n / 2 : n;
    if (g->host) {
        host_transform(kind, out, outputs, args);
        return CURAND_STATUS_SUCCESS;
    }
    return cuda_status(device_transform(kind, out, outputs, args, g->stream), call);
}

curandStatus_t check_distribution(float stddev_or_lambda, const char *call, const char *what)
{
    if (!(stddev_or_lambda > 0) || !std::isfinite(stddev_or_lambda))
        return fail(CURAND_STATUS_OUT_OF_RANGE, call, "%s (%g) must be positive and finite", what,
                    double(stddev_or_lambda));
    return CURAND_STATUS_SUCCESS;
}

} // namespace

namespace {

// Joe and Kuo's construction in `Bits` bits: dimension 0 is van der
// Corput's; dimension d's first s vectors are its initial numbers m_k
// shifted to the top, the rest Bratley and Fox's recurrence over its
// primitive polynomial of degree s.
template <class Word, unsigned Bits>
void direction_vectors(uint32_t d, Word *v)
{
    if (d == 0) {
        for (unsigned k = 0; k < Bits; ++k)
            v[k] = Word(1) << (Bits - 1 - k);
        return;
    }
    const uint32_t poly = kSobolPoly[d];
    const uint32_t s = 31 - uint32_t(__builtin_clz(poly)); // the degree
    const unsigned *m = kSobolM + kSobolMStart[d];
    for (unsigned k = 0; k < Bits; ++k) {
        if (k < s) {
            v[k] = Word(m[k]) << (Bits - 1 - k);
            continue;
        }
        Word x = v[k - s] ^ (v[k - s] >> s);
        for (uint32_t j = 1; j < s; ++j)
            if ((poly >> (s - j)) & 1)
                x ^= v[k - j];
        v[k] = x;
    }
}

} // namespace

void sobol_direction_vectors(uint32_t d, uint32_t v[32])
{
    direction_vectors<uint32_t, 32>(d, v);
}

void sobol_direction_vectors(uint32_t d, unsigned long long v[64])
{
    direction_vectors<unsigned long long, 64>(d, v);
}

PoissonTable poisson_table(double lambda)
{
    // The values with any weight in double precision: 12 standard deviations.
    const double spread = 12 * std::sqrt(lambda) + 12;
    const double low = std::max(0.0, std::floor(lambda - spread));
    const double high = std::ceil(lambda + spread);
    PoissonTable t;
    t.shift = uint32_t(low);
    double sum = 0;
    for (double k = low; k <= high; ++k) {
        sum += std::exp(k * std::log(lambda) - lambda - std::lgamma(k + 1));
        t.cdf.push_back(sum);
    }
    for (double &c : t.cdf)
        c /= sum;
    t.cdf.back() = 1.0;
    return t;
}

namespace {

// All of a set's vectors, made on first use (20,000 dimensions: 2.5 MiB in
// 32 bits, 10 MiB in 64).
template <class Vectors>
curandStatus_t get_direction_vectors(Vectors *vectors[], curandDirectionVectorSet_t set,
                                     curandDirectionVectorSet_t wanted, const char *call)
{
    if (!vectors)
        return fail(CURAND_STATUS_OUT_OF_RANGE, call, "vectors is NULL");
    if (set != wanted)
        return fail(CURAND_STATUS_OUT_OF_RANGE, call,
                    "set %d: simtgpu's cuRAND has the unscrambled Joe-Kuo set (%d) only",
                    int(set), int(wanted));
    static std::vector<Vectors> all(kSobolDimensions);
    static std::once_flag made;
    std::call_once(made, [] {
        for (uint32_t d = 0; d < kSobolDimensions; ++d)
            sobol_direction_vectors(d, all[d]);
    });
    *vectors = all.data();
    return CURAND_STATUS_SUCCESS;
}

} // namespace

} // namespace simtgpu::curandlib

using namespace simtgpu::curandlib;

extern "C" {

curandStatus_t curandCreateGenerator(curandGenerator_t *generator, curandRngType_t rng_type)
{
    return create(generator, rng_type, false, "curandCreateGenerator");
}

curandStatus_t curandCreateGeneratorHost(curandGenerator_t *generator, curandRngType_t rng_type)
{
    return create(generator, rng_type, true, "curandCreateGeneratorHost");
}

curandStatus_t curandDestroyGenerator(curandGenerator_t g)
{
    if (!g)
        return fail(CURAND_STATUS_NOT_INITIALIZED, "curandDestroyGenerator", "generator is NULL");
    cudaFree(g->device_vectors);
    cudaFree(g->device_table);
    delete g;
    return CURAND_STATUS_SUCCESS;
}

curandStatus_t curandGetVersion(int *version)
{
    if (!version)
        return fail(CURAND_STATUS_OUT_OF_RANGE, "curandGetVersion", "version is NULL");
    *version = CURAND_VERSION;
    return CURAND_STATUS_SUCCESS;
}

curandStatus_t curandSetStream(curandGenerator_t g, cudaStream_t stream)
{
    if (!g)
        return fail(CURAND_STATUS_NOT_INITIALIZED, "curandSetStream", "generator is NULL");
    g->stream = stream;
    return CURAND_STATUS_SUCCESS;
}

curandStatus_t curandSetPseudoRandomGeneratorSeed(curandGenerator_t g, unsigned long long seed)
{
    const char *call = "curandSetPseudoRandomGeneratorSeed";
    if (!g)
        return fail(CURAND_STATUS_NOT_INITIALIZED, call, "generator is NULL");
    if (is_quasi(g->type))
        return fail(CURAND_STATUS_TYPE_ERROR, call, "a quasirandom generator has no seed");
    g->seed = seed;
    g->position = g->offset; // the stream starts again
    return CURAND_STATUS_SUCCESS;
}

curandStatus_t curandSetGeneratorOffset(curandGenerator_t g, unsigned long long offset)
{
    if (!g)
        return fail(CURAND_STATUS_NOT_INITIALIZED, "curandSetGeneratorOffset", "generator is NULL");
    g->offset = g->position = offset;
    return CURAND_STATUS_SUCCESS;
}

curandStatus_t curandSetGeneratorOrdering(curandGenerator_t g, curandOrdering_t order)
{
    const char *call = "curandSetGeneratorOrdering";
    if (!g)
        return fail(CURAND_STATUS_NOT_INITIALIZED, call, "generator is NULL");
    const bool pseudo_order = order >= CURAND_ORDERING_PSEUDO_BEST &&
                              order <= CURAND_ORDERING_PSEUDO_DYNAMIC;
    if (is_quasi(g->type) ? order != CURAND_ORDERING_QUASI_DEFAULT : !pseudo_order)
        return fail(CURAND_STATUS_OUT_OF_RANGE, call, "ordering %d is not one for a %s generator",
                    int(order), is_quasi(g->type) ? "quasirandom" : "pseudorandom");
    // Every pseudorandom ordering gives generator.h's one sequence here.
    g->ordering = order;
    g->position = g->offset;
    return CURAND_STATUS_SUCCESS;
}

curandStatus_t curandSetQuasiRandomGeneratorDimensions(curandGenerator_t g,
                                                       unsigned int num_dimensions)
{
    const char *call = "curandSetQuasiRandomGeneratorDimensions";
    if (!g)
        return fail(CURAND_STATUS_NOT_INITIALIZED, call, "generator is NULL");
    if (!is_quasi(g->type))
        return fail(CURAND_STATUS_TYPE_ERROR, call, "a pseudorandom generator has no dimensions");
    if (num_dimensions < 1 || num_dimensions > kSobolDimensions)
        return fail(CURAND_STATUS_OUT_OF_RANGE, call, "num_dimensions (%u) must be 1 to %u",
                    num_dimensions, kSobolDimensions);
    g->dimensions = num_dimensions;
    g->vectors.resize(size_t(num_dimensions) * 32);
    for (uint32_t d = 0; d < num_dimensions; ++d)
        sobol_direction_vectors(d, g->vectors.data() + 32 * d);
    cudaFree(g->device_vectors);
    g->device_vectors = nullptr;
    g->position = g->offset;
    return CURAND_STATUS_SUCCESS;
}

curandStatus_t curandGenerate(curandGenerator_t g, unsigned int *out, size_t num)
{
    return generate(g, out, num, Output::raw, {}, "curandGenerate");
}

curandStatus_t curandGenerateLongLong(curandGenerator_t g, unsigned long long *, size_t)
{
    if (!g)
        return fail(CURAND_STATUS_NOT_INITIALIZED, "curandGenerateLongLong", "generator is NULL");
    return fail(CURAND_STATUS_TYPE_ERROR, "curandGenerateLongLong",
                "64-bit numbers come from 64-bit quasirandom generators (Sobol64), which "
                "simtgpu's cuRAND does not have");
}

curandStatus_t curandGenerateUniform(curandGenerator_t g, float *out, size_t num)
{
    return generate(g, out, num, Output::uniform, {}, "curandGenerateUniform");
}

curandStatus_t curandGenerateUniformDouble(curandGenerator_t g, double *out, size_t num)
{
    return generate(g, out, num, Output::uniform_double, {}, "curandGenerateUniformDouble");
}

curandStatus_t curandGenerateNormal(curandGenerator_t g, float *out, size_t n, float mean,
                                    float stddev)
{
    if (curandStatus_t s = check_distribution(stddev, "curandGenerateNormal", "stddev"))
        return s;
    return generate(g, out, n, Output::normal, {mean, stddev}, "curandGenerateNormal");
}

curandStatus_t curandGenerateNormalDouble(curandGenerator_t g, double *out, size_t n, double mean,
                                          double stddev)
{
    if (curandStatus_t s = check_distribution(float(stddev), "curandGenerateNormalDouble", "stddev"))
        return s;
    return generate(g, out, n, Output::normal_double, {mean, stddev}, "curandGenerateNormalDouble");
}

curandStatus_t curandGenerateLogNormal(curandGenerator_t g, float *out, size_t n, float mean,
                                       float stddev)
{
    if (curandStatus_t s = check_distribution(stddev, "curandGenerateLogNormal", "stddev"))
        return s;
    return generate(g, out, n, Output::log_normal, {mean, stddev}, "curandGenerateLogNormal");
}

curandStatus_t curandGenerateLogNormalDouble(curandGenerator_t g, double *out, size_t n,
                                             double mean, double stddev)
{
    if (curandStatus_t s =
            check_distribution(float(stddev), "curandGenerateLogNormalDouble", "stddev"))
        return s;
    return generate(g, out, n, Output::log_normal_double, {mean, stddev},
                    "curandGenerateLogNormalDouble");
}

curandStatus_t curandGeneratePoisson(curandGenerator_t g, unsigned int *out, size_t n,
                                     double lambda)
{
    const char *call = "curandGeneratePoisson";
    if (curandStatus_t s = check_distribution(float(lambda), call, "lambda"))
        return s;
    if (!g)
        return fail(CURAND_STATUS_NOT_INITIALIZED, call, "generator is NULL");
    if (g->table_lambda != lambda) {
        g->table = poisson_table(lambda);
        g->table_lambda = lambda;
        cudaFree(g->device_table);
        g->device_table = nullptr;
    }
    TransformArgs args;
    args.cdf_length = uint32_t(g->table.cdf.size());
    args.cdf_shift = g->table.shift;
    args.cdf = g->table.cdf.data();
    if (!g->host && n) {
        const size_t bytes = g->table.cdf.size() * sizeof(double);
        if (!g->device_table) {
            if (curandStatus_t s = cuda_status(
                    cudaMalloc(reinterpret_cast<void **>(&g->device_table), bytes), call))
                return s;
            if (curandStatus_t s = cuda_status(cudaMemcpy(g->device_table, g->table.cdf.data(),
                                                          bytes, cudaMemcpyHostToDevice),
                                               call))
                return s;
        }
        args.cdf = g->device_table;
    }
    return generate(g, out, n, Output::poisson, args, call);
}

curandStatus_t curandGenerateSeeds(curandGenerator_t g)
{
    // Streams are initialised by the calls that generate (generator.h).
    if (!g)
        return fail(CURAND_STATUS_NOT_INITIALIZED, "curandGenerateSeeds", "generator is NULL");
    return CURAND_STATUS_SUCCESS;
}

curandStatus_t curandCreatePoissonDistribution(double lambda,
                                               curandDiscreteDistribution_t *distribution)
{
    const char *call = "curandCreatePoissonDistribution";
    if (!distribution)
        return fail(CURAND_STATUS_OUT_OF_RANGE, call, "discrete_distribution is NULL");
    if (curandStatus_t s = check_distribution(float(lambda), call, "lambda"))
        return s;
    const PoissonTable table = poisson_table(lambda);
    auto *d = new (std::nothrow) curandDiscreteDistribution_st{};
    if (!d)
        return fail(CURAND_STATUS_ALLOCATION_FAILED, call, "out of host memory");
    const size_t bytes = table.cdf.size() * sizeof(double);
    cudaError_t e = cudaMalloc(reinterpret_cast<void **>(&d->cdf), bytes);
    if (e == cudaSuccess)
        e = cudaMemcpy(d->cdf, table.cdf.data(), bytes, cudaMemcpyHostToDevice);
    if (e != cudaSuccess) {
        cudaFree(d->cdf);
        delete d;
        return cuda_status(e, call);
    }
    d->self_host_ptr = d;
    d->shift = table.shift;
    d->length = uint32_t(table.cdf.size());
    d->mean = lambda;
    d->stddev = std::sqrt(lambda);
    // The struct itself must be readable by kernels (curand_discrete reads it):
    // a managed copy, whose host address is what the caller keeps.
    curandDiscreteDistribution_st *shared = nullptr;
    e = cudaMallocManaged(reinterpret_cast<void **>(&shared), sizeof *shared);
    if (e != cudaSuccess) {
        cudaFree(d->cdf);
        delete d;
        return cuda_status(e, call);
    }
    *shared = *d;
    shared->self_host_ptr = shared;
    delete d;
    *distribution = shared;
    return CURAND_STATUS_SUCCESS;
}

curandStatus_t curandDestroyDistribution(curandDiscreteDistribution_t distribution)
{
    if (!distribution)
        return fail(CURAND_STATUS_OUT_OF_RANGE, "curandDestroyDistribution",
                    "discrete_distribution is NULL");
    cudaFree(distribution->cdf);
    cudaFree(distribution);
    return CURAND_STATUS_SUCCESS;
}

curandStatus_t curandGetDirectionVectors32(curandDirectionVectors32_t *vectors[],
                                           curandDirectionVectorSet_t set)
{
    return get_direction_vectors(vectors, set, CURAND_DIRECTION_VECTORS_32_JOEKUO6,
                                 "curandGetDirectionVectors32");
}

curandStatus_t curandGetDirectionVectors64(curandDirectionVectors64_t *vectors[],
                                           curandDirectionVectorSet_t set)
{
    return get_direction_vectors(vectors, set, CURAND_DIRECTION_VECTORS_64_JOEKUO6,
                                 "curandGetDirectionVectors64");
}

} // extern "C"
