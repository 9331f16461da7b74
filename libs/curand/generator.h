// cuRAND's host API (curand.h) inside libcurand: a generator and the one
// definition of the numbers it makes, shared by the device generators
// (device_generate.cu, kernels built by simtcc) and the host ones
// (host_generate.cpp, curandCreateGeneratorHost), so that both give the
// same sequence (docs/libraries.md, "cuRAND host API").
//
// The sequence. A pseudorandom generator's raw output is a stream of 32-bit
// numbers u(0), u(1), ...: u(n) is draw n / kStreams of the device API's
// generator initialised with curand_init(seed, n % kStreams, 0), so that
// kStreams threads make it at once. A call continues the stream where the
// last one stopped (the offset sets where the first call starts), and every
// distribution is a transform of consecutive raw numbers: a uniform float
// of one, a uniform double of two, a pair of normals of two (floats) or
// four (doubles), a Poisson draw of one (through the CDF table). A Sobol32
// generator with D dimensions makes points 0, 1, ...; a call of n numbers
// takes the next n / D points and writes dimension d's coordinates as the
// d-th run of n / D numbers (CURAND_ORDERING_QUASI_DEFAULT).
#pragma once

#include "curand.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace simtgpu::curandlib {

inline constexpr uint32_t kStreams = 4096;

enum class Output { raw, uniform, uniform_double, normal, normal_double, log_normal,
                    log_normal_double, poisson };

// Raw 32-bit numbers a call consumes per output (pairs for the normals).
inline size_t raw_per_output(Output kind)
{
    switch (kind) {
    case Output::uniform_double: return 2;
    case Output::normal_double:
    case Output::log_normal_double: return 2; // four per pair of doubles
    default: return 1;
    }
}

// What a transform needs besides the raw numbers.
struct TransformArgs {
    double mean = 0, stddev = 1;
    const double *cdf = nullptr; // Poisson: the CDF table (device memory on the device)
    uint32_t cdf_length = 0, cdf_shift = 0;
    bool quasi = false; // normals by the inverse CDF, one number each
};

// A Poisson distribution's CDF table: values shift .. shift + cdf.size() - 1.
struct PoissonTable {
    std::vector<double> cdf;
    uint32_t shift = 0;
};
PoissonTable poisson_table(double lambda);

// The direction vectors of Sobol dimension d (d < kSobolDimensions), in 32
// and in 64 bits.
void sobol_direction_vectors(uint32_t d, uint32_t vectors[32]);
void sobol_direction_vectors(uint32_t d, unsigned long long vectors[64]);

// The generators, on the device (device_generate.cu) and on the host
// (host_generate.cpp): `count` raw numbers from stream position `position`
// (pseudo) or `points` points of `dimensions` from point `position` with
// the direction vectors `vectors` (dimensions x 32; device memory on the
// device), written to `out` (every `stride`-th 32-bit word: 2 leaves room
// for a double made of each); then the transform of `outputs` outputs in
// place (transforms.h).
cudaError_t device_raw_pseudo(curandRngType_t type, unsigned long long seed,
                              unsigned long long position, uint32_t *out, size_t count,
                              cudaStream_t stream);
cudaError_t device_raw_sobol(const uint32_t *vectors, uint32_t dimensions,
                             unsigned long long position, size_t points, uint32_t *out,
                             uint32_t stride, cudaStream_t stream);
cudaError_t device_transform(Output kind, void *out, size_t outputs, const TransformArgs &args,
                             cudaStream_t stream);
void host_raw_pseudo(curandRngType_t type, unsigned long long seed, unsigned long long position,
                     uint32_t *out, size_t count);
void host_raw_sobol(const uint32_t *vectors, uint32_t dimensions, unsigned long long position,
                    size_t points, uint32_t *out, uint32_t stride);
void host_transform(Output kind, void *out, size_t outputs, const TransformArgs &args);

} // namespace simtgpu::curandlib
