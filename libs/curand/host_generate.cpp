// The host generators of curandCreateGeneratorHost: the device API's
// generators (curand_kernel.h, compiled here as host C++) and the
// transforms of transforms.h, making generator.h's sequence on the CPU.
#include "math_functions.h" // normcdfinv on the host: cuda_runtime.h adds it only in a .cu
#include "curand_kernel.h"
#include "transforms.h"

namespace simtgpu::curandlib {
namespace {

// Stream t's draws at positions n with n % kStreams == t, from `position` on.
template <class State>
void raw_stream(unsigned long long seed, unsigned long long position, uint32_t *out, size_t count,
                uint32_t t)
{
    const unsigned long long first = position + (t + kStreams - position % kStreams) % kStreams;
    if (first >= position + count)
        return;
    State state;
    curand_init(seed, t, first / kStreams, &state);
    for (unsigned long long n = first; n < position + count; n += kStreams)
        out[n - position] = curand(&state);
}

template <class State>
void raw_all(unsigned long long seed, unsigned long long position, uint32_t *out, size_t count)
{
    for (uint32_t t = 0; t < kStreams; ++t)
        raw_stream<State>(seed, position, out, count, t);
}

} // namespace

void host_raw_pseudo(curandRngType_t type, unsigned long long seed, unsigned long long position,
                     uint32_t *out, size_t count)
{
    switch (type) {
    case CURAND_RNG_PSEUDO_PHILOX4_32_10:
        raw_all<curandStatePhilox4_32_10_t>(seed, position, out, count);
        break;
    case CURAND_RNG_PSEUDO_MRG32K3A:
        raw_all<curandStateMRG32k3a_t>(seed, position, out, count);
        break;
    default: // XORWOW, the default
        raw_all<curandStateXORWOW_t>(seed, position, out, count);
        break;
    }
}

void host_raw_sobol(const uint32_t *vectors, uint32_t dimensions, unsigned long long position,
                    size_t points, uint32_t *out, uint32_t stride)
{
    for (uint32_t d = 0; d < dimensions; ++d) {
        curandStateSobol32_t state;
        curand_init(const_cast<uint32_t *>(vectors + 32 * d), uint32_t(position), &state);
        for (size_t i = 0; i < points; ++i)
            out[(d * points + i) * stride] = curand(&state);
    }
}

void host_transform(Output kind, void *out, size_t outputs, const TransformArgs &args)
{
    for (size_t i = 0; i < outputs; ++i)
        transform_one(kind, out, i, args);
}

} // namespace simtgpu::curandlib
