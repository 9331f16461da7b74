/* SPDX-License-Identifier: MIT */
/*
 * NVIDIA's header-only occupancy calculator, the part of its API that code
 * calls: cudaOccMaxActiveBlocksPerMultiprocessor over a device and function
 * description filled in by the caller. Thrust includes this header. The rule
 * is simtgpu's own (include/simtgpu/occupancy.h): warp slots, CTA slots and
 * shared memory per SM; registers are no separate limit there. The CTA slots
 * come from the device's cudaDevAttrMaxBlocksPerMultiprocessor, which the
 * caller passes as maxBlocksPerMultiprocessor (0: sm_70's 32).
 */
#ifndef SIMTGPU_CUDA_OCCUPANCY_H
#define SIMTGPU_CUDA_OCCUPANCY_H
#define __cuda_occupancy_h__

#include <stddef.h>

#include "host_defines.h"

typedef enum cudaOccError_enum {
    CUDA_OCC_SUCCESS = 0,
    CUDA_OCC_ERROR_INVALID_INPUT = 1,
    CUDA_OCC_ERROR_UNKNOWN_DEVICE = 2
} cudaOccError;

typedef enum cudaOccLimitingFactor_enum {
    OCC_LIMIT_WARPS = 0x01,
    OCC_LIMIT_REGISTERS = 0x02,
    OCC_LIMIT_SHARED_MEMORY = 0x04,
    OCC_LIMIT_BLOCKS = 0x08,
    OCC_LIMIT_BARRIERS = 0x10
} cudaOccLimitingFactor;

typedef enum cudaOccCacheConfig_enum {
    CACHE_PREFER_NONE = 0x00,
    CACHE_PREFER_SHARED = 0x01,
    CACHE_PREFER_L1 = 0x02,
    CACHE_PREFER_EQUAL = 0x03
} cudaOccCacheConfig;

typedef struct cudaOccDeviceProp {
    int computeMajor;
    int computeMinor;
    int maxThreadsPerBlock;
    int maxThreadsPerMultiprocessor;
    int regsPerBlock;
    int regsPerMultiprocessor;
    int warpSize;
    size_t sharedMemPerBlock;
    size_t sharedMemPerMultiprocessor;
    int numSms;
    size_t sharedMemPerBlockOptin;
    size_t reservedSharedMemPerBlock;
    int maxBlocksPerMultiprocessor; /* simtgpu: 0 means 32 */
} cudaOccDeviceProp;

typedef struct cudaOccFuncAttributes {
    int maxThreadsPerBlock;
    int numRegs;
    size_t sharedSizeBytes;
    int partitionedGCConfig;
    int shmemLimitConfig;
    size_t maxDynamicSharedSizeBytes;
    int numBlockBarriers;
} cudaOccFuncAttributes;

typedef struct cudaOccDeviceState {
    cudaOccCacheConfig cacheConfig;
    int carveoutConfig;
} cudaOccDeviceState;

typedef struct cudaOccResult {
    int activeBlocksPerMultiprocessor;
    unsigned int limitingFactors;
    int blockLimitRegs;
    int blockLimitSharedMem;
    int blockLimitWarps;
    int blockLimitBlocks;
    int blockLimitBarriers;
    int allocatedRegistersPerBlock;
    size_t allocatedSharedMemPerBlock;
    int partitionedGCConfig;
} cudaOccResult;

static __host__ __device__ inline cudaOccError cudaOccMaxActiveBlocksPerMultiprocessor(
    cudaOccResult *result, const cudaOccDeviceProp *properties,
    const cudaOccFuncAttributes *attributes, const cudaOccDeviceState *state, int blockSize,
    size_t dynamicSmemSize)
{
    (void)state;
    if (!result || !properties || !attributes || blockSize <= 0 || properties->warpSize <= 0 ||
        blockSize > properties->maxThreadsPerBlock)
        return CUDA_OCC_ERROR_INVALID_INPUT;
    const size_t granule = 256; /* SIMTGPU_SHARED_GRANULE */
    int warps = (blockSize + properties->warpSize - 1) / properties->warpSize;
    size_t shared = (attributes->sharedSizeBytes + dynamicSmemSize + granule - 1) / granule * granule;
    int limitWarps = properties->maxThreadsPerMultiprocessor / properties->warpSize / warps;
    int limitBlocks = properties->maxBlocksPerMultiprocessor > 0 ? properties->maxBlocksPerMultiprocessor : 32;
    int limitShared = shared ? (int)(properties->sharedMemPerMultiprocessor / shared) : limitBlocks;
    int n = limitWarps;
    unsigned int factors = OCC_LIMIT_WARPS;
    if (limitBlocks < n) {
        n = limitBlocks;
        factors = OCC_LIMIT_BLOCKS;
    }
    if (limitShared < n) {
        n = limitShared;
        factors = OCC_LIMIT_SHARED_MEMORY;
    }
    result->activeBlocksPerMultiprocessor = n;
    result->limitingFactors = factors;
    result->blockLimitRegs = limitBlocks; /* registers are no separate limit */
    result->blockLimitSharedMem = limitShared;
    result->blockLimitWarps = limitWarps;
    result->blockLimitBlocks = limitBlocks;
    result->blockLimitBarriers = limitBlocks;
    result->allocatedRegistersPerBlock = warps * properties->warpSize * 64;
    result->allocatedSharedMemPerBlock = shared;
    result->partitionedGCConfig = 0;
    return CUDA_OCC_SUCCESS;
}

#endif /* SIMTGPU_CUDA_OCCUPANCY_H */
