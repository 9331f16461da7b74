// The CUDA runtime API, occupancy: how many blocks of a kernel fit on an SM,
// and how much dynamic shared memory a block may use.
#include "runtime.h"

using namespace simtgpu::cudart;

SIMTCUDA_API cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks,
                                                                       const void *func,
                                                                       int blockSize,
                                                                       size_t dynamicSMemSize) {
    simtgpuFunction f;
    if (cudaError_t err = function_for(func, &f))
        return err;
    if (numBlocks && dynamicSMemSize > size_t(max_dynamic_shared(func, f))) {
        *numBlocks = 0; // such a launch is refused
        return cudaSuccess;
    }
    return record(
        simtgpuOccupancyMaxActiveBlocksPerMultiprocessor(numBlocks, f, blockSize, dynamicSMemSize));
}

SIMTCUDA_API cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int *numBlocks, const void *func, int blockSize, size_t dynamicSMemSize, unsigned int flags) {
    if (flags > 1)
        return record(cudaErrorInvalidValue);
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(numBlocks, func, blockSize,
                                                         dynamicSMemSize);
}

// The most dynamic shared memory a block may use with numBlocks blocks of
// blockSize threads on one SM: the occupancy rule's answer, searched, within
// what a launch of the kernel accepts (the opt-in limit).
SIMTCUDA_API cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize,
                                                                   const void *func,
                                                                   int numBlocks, int blockSize) {
    if (!dynamicSmemSize || numBlocks <= 0 || blockSize <= 0)
        return record(cudaErrorInvalidValue);
    simtgpuFunction f;
    if (cudaError_t err = function_for(func, &f))
        return err;
    auto fits = [&](size_t bytes, bool *ok) {
        int blocks = 0;
        simtgpuResult r =
            simtgpuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, f, blockSize, bytes);
        *ok = r == SIMTGPU_SUCCESS && blocks >= numBlocks;
        return r;
    };
    bool ok = false;
    if (simtgpuResult r = fits(0, &ok))
        return record(r); // a block size the kernel cannot take
    size_t lo = 0, hi = size_t(max_dynamic_shared(func, f)); // lo always fits
    if (!ok)
        hi = 0;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo + 1) / 2;
        fits(mid, &ok);
        if (ok)
            lo = mid;
        else
            hi = mid - 1;
    }
    *dynamicSmemSize = lo;
    return cudaSuccess;
}
