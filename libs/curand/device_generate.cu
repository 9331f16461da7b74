// The device generators of curandCreateGenerator: kStreams threads each make
// one stream of generator.h's sequence with the device API (curand_kernel.h),
// then a kernel applies transforms.h in place. Built by simtcc into libcurand.
#include "curand_kernel.h"
#include "transforms.h"

namespace simtgpu::curandlib {
namespace {

constexpr uint32_t kThreadsPerBlock = 128;

template <class State>
__global__ void raw_kernel(unsigned long long seed, unsigned long long position, uint32_t *out,
                           size_t count)
{
    const uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned long long first = position + (t + kStreams - position % kStreams) % kStreams;
    if (t >= kStreams || first >= position + count)
        return;
    State state;
    curand_init(seed, t, first / kStreams, &state);
    for (unsigned long long n = first; n < position + count; n += kStreams)
        out[n - position] = curand(&state);
}

// One thread per point of each dimension.
__global__ void sobol_kernel(const uint32_t *vectors, uint32_t dimensions,
                             unsigned long long position, size_t points, uint32_t *out,
                             uint32_t stride)
{
    const size_t k = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (k >= points * dimensions)
        return;
    const size_t d = k / points, i = k % points;
    out[k * stride] = _simt_sobol32_point(vectors + 32 * d, uint32_t(position + i));
}

__global__ void transform_kernel(Output kind, void *out, size_t outputs, TransformArgs args)
{
    const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < outputs)
        transform_one(kind, out, i, args);
}

uint32_t blocks_for(size_t threads)
{
    return uint32_t((threads + kThreadsPerBlock - 1) / kThreadsPerBlock);
}

} // namespace

cudaError_t device_raw_pseudo(curandRngType_t type, unsigned long long seed,
                              unsigned long long position, uint32_t *out, size_t count,
                              cudaStream_t stream)
{
    const uint32_t blocks = blocks_for(kStreams);
    switch (type) {
    case CURAND_RNG_PSEUDO_PHILOX4_32_10:
        raw_kernel<curandStatePhilox4_32_10_t>
            <<<blocks, kThreadsPerBlock, 0, stream>>>(seed, position, out, count);
        break;
    case CURAND_RNG_PSEUDO_MRG32K3A:
        raw_kernel<curandStateMRG32k3a_t>
            <<<blocks, kThreadsPerBlock, 0, stream>>>(seed, position, out, count);
        break;
    default:
        raw_kernel<curandStateXORWOW_t>
            <<<blocks, kThreadsPerBlock, 0, stream>>>(seed, position, out, count);
        break;
    }
    return cudaGetLastError();
}

cudaError_t device_raw_sobol(const uint32_t *vectors, uint32_t dimensions,
                             unsigned long long position, size_t points, uint32_t *out,
                             uint32_t stride, cudaStream_t stream)
{
    sobol_kernel<<<blocks_for(points * dimensions), kThreadsPerBlock, 0, stream>>>(
        vectors, dimensions, position, points, out, stride);
    return cudaGetLastError();
}

cudaError_t device_transform(Output kind, void *out, size_t outputs, const TransformArgs &args,
                             cudaStream_t stream)
{
    if (kind == Output::raw || outputs == 0)
        return cudaSuccess;
    transform_kernel<<<blocks_for(outputs), kThreadsPerBlock, 0, stream>>>(kind, out, outputs,
                                                                         args);
    return cudaGetLastError();
}

} // namespace simtgpu::curandlib
