/* SPDX-License-Identifier: MIT */
/*
 * The CUDA runtime for simtgpu: the runtime API (cuda_runtime_api.h), the
 * vector types, the device-side half from simtcc (simt_device.h: built-in
 * variables, atomics, intrinsics, math, printf, assert) and CUDA's C++
 * template conveniences. Programs include it as they would NVIDIA's.
 */
#ifndef SIMTGPU_CUDA_RUNTIME_H
#define SIMTGPU_CUDA_RUNTIME_H
/* NVIDIA's guard: helpers such as cuda-samples' helper_cuda.h test it. */
#define __CUDA_RUNTIME_H__

#include "host_defines.h"
#include "vector_types.h"
#include "driver_types.h"
#include "cuda_runtime_api.h"

#if defined(__CUDA__) && defined(__clang__)
#include <simt_device.h>
#endif

#ifdef __cplusplus

template <class T>
static inline __host__ cudaError_t cudaLaunchKernel(const T *func, dim3 gridDim, dim3 blockDim,
                                                    void **args, size_t sharedMem = 0,
                                                    cudaStream_t stream = 0) {
    return ::cudaLaunchKernel((const void *)func, gridDim, blockDim, args, sharedMem, stream);
}

template <class T>
static inline __host__ cudaError_t cudaMemcpyToSymbol(const T &symbol, const void *src,
                                                      size_t count, size_t offset = 0,
                                                      enum cudaMemcpyKind kind =
                                                          cudaMemcpyHostToDevice) {
    return ::cudaMemcpyToSymbol((const void *)&symbol, src, count, offset, kind);
}

template <class T>
static inline __host__ cudaError_t cudaMemcpyFromSymbol(void *dst, const T &symbol, size_t count,
                                                        size_t offset = 0,
                                                        enum cudaMemcpyKind kind =
                                                            cudaMemcpyDeviceToHost) {
    return ::cudaMemcpyFromSymbol(dst, (const void *)&symbol, count, offset, kind);
}

template <class T>
static inline __host__ cudaError_t cudaMemcpyToSymbolAsync(const T &symbol, const void *src,
                                                           size_t count, size_t offset = 0,
                                                           enum cudaMemcpyKind kind =
                                                               cudaMemcpyHostToDevice,
                                                           cudaStream_t stream = 0) {
    return ::cudaMemcpyToSymbolAsync((const void *)&symbol, src, count, offset, kind, stream);
}

template <class T>
static inline __host__ cudaError_t cudaGetSymbolAddress(void **devPtr, const T &symbol) {
    return ::cudaGetSymbolAddress(devPtr, (const void *)&symbol);
}

template <class T>
static inline __host__ cudaError_t cudaGetSymbolSize(size_t *size, const T &symbol) {
    return ::cudaGetSymbolSize(size, (const void *)&symbol);
}

template <class T>
static inline __host__ cudaError_t cudaMalloc(T **devPtr, size_t size) {
    return ::cudaMalloc((void **)(void *)devPtr, size);
}

template <class T>
static inline __host__ cudaError_t cudaMallocHost(T **ptr, size_t size) {
    return ::cudaMallocHost((void **)(void *)ptr, size);
}

template <class T>
static inline __host__ cudaError_t cudaHostAlloc(T **ptr, size_t size, unsigned int flags) {
    return ::cudaHostAlloc((void **)(void *)ptr, size, flags);
}

template <class T>
static inline __host__ cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr,
                                                         T *entry) {
    return ::cudaFuncGetAttributes(attr, (const void *)entry);
}

template <class T>
static inline __host__ cudaError_t cudaFuncSetCacheConfig(T *func, enum cudaFuncCache config) {
    return ::cudaFuncSetCacheConfig((const void *)func, config);
}

template <class T>
static inline __host__ cudaError_t cudaFuncSetAttribute(T *entry, enum cudaFuncAttribute attr,
                                                        int value) {
    return ::cudaFuncSetAttribute((const void *)entry, attr, value);
}

template <class T>
static inline __host__ cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(
    int *numBlocks, T func, int blockSize, size_t dynamicSMemSize) {
    return ::cudaOccupancyMaxActiveBlocksPerMultiprocessor(numBlocks, (const void *)func,
                                                           blockSize, dynamicSMemSize);
}

template <class T>
static inline __host__ cudaError_t cudaOccupancyMaxPotentialBlockSize(int *minGridSize,
                                                                      int *blockSize, T func,
                                                                      size_t dynamicSMemSize = 0,
                                                                      int blockSizeLimit = 0) {
    return ::__simtcudaOccupancyMaxPotentialBlockSize(minGridSize, blockSize,
                                                      (const void *)func, dynamicSMemSize,
                                                      blockSizeLimit);
}

#endif /* __cplusplus */

#endif /* SIMTGPU_CUDA_RUNTIME_H */
