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
#include "driver_functions.h"
#include "channel_descriptor.h"

#if defined(__CUDA__) && defined(__clang__)
#include <simt_device.h>
#include "texture_indirect_functions.h"
#include "surface_indirect_functions.h"
/* CUDA's __host__ __device__ math beyond libm, for host code of a .cu (a
 * .cpp gets none, as with nvcc: cuda-samples' helper_math.h defines its own
 * rsqrtf there). */
#include "math_functions.h"
#endif

#ifdef __cplusplus

template <class T>
static inline __host__ cudaError_t cudaLaunchKernel(const T *func, dim3 gridDim, dim3 blockDim,
                                                    void **args, size_t sharedMem = 0,
                                                    cudaStream_t stream = 0) {
    return ::cudaLaunchKernel((const void *)func, gridDim, blockDim, args, sharedMem, stream);
}

template <class T>
static inline __host__ cudaError_t cudaLaunchCooperativeKernel(const T *func, dim3 gridDim,
                                                               dim3 blockDim, void **args,
                                                               size_t sharedMem = 0,
                                                               cudaStream_t stream = 0) {
    return ::cudaLaunchCooperativeKernel((const void *)func, gridDim, blockDim, args, sharedMem,
                                         stream);
}

/* The arguments converted to the kernel's parameter types, as CUDA's
 * template does, then cudaLaunchKernelExC. */
template <typename... ExpTypes, typename... ActTypes>
static inline __host__ cudaError_t cudaLaunchKernelEx(const cudaLaunchConfig_t *config,
                                                      void (*kernel)(ExpTypes...),
                                                      ActTypes &&...args) {
    return [&](ExpTypes... coerced) {
        void *params[] = {(void *)&coerced..., nullptr};
        return ::cudaLaunchKernelExC(config, (const void *)kernel, params);
    }(static_cast<ActTypes &&>(args)...);
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

/* CUDA's defaults: initial value 0, not assigned at each launch. */
static inline __host__ cudaError_t cudaGraphConditionalHandleCreate(
    cudaGraphConditionalHandle *pHandle_out, cudaGraph_t graph) {
    return ::cudaGraphConditionalHandleCreate(pHandle_out, graph, 0, 0);
}
static inline __host__ cudaError_t cudaGraphConditionalHandleCreate(
    cudaGraphConditionalHandle *pHandle_out, cudaGraph_t graph, unsigned int defaultLaunchValue) {
    return ::cudaGraphConditionalHandleCreate(pHandle_out, graph, defaultLaunchValue, 0);
}

/* cudaGraphAddNode with edge data (CUDA 12.3's _v2, CUDA 13's only form):
 * default edges only, which is what NULL edge data means. */
static inline __host__ cudaError_t cudaGraphAddNode(cudaGraphNode_t *pGraphNode,
                                                    cudaGraph_t graph,
                                                    const cudaGraphNode_t *pDependencies,
                                                    const struct cudaGraphEdgeData *dependencyData,
                                                    size_t numDependencies,
                                                    struct cudaGraphNodeParams *nodeParams) {
    for (size_t i = 0; dependencyData && i < numDependencies; ++i)
        if (dependencyData[i].from_port || dependencyData[i].to_port || dependencyData[i].type)
            return cudaErrorInvalidValue;
    return ::cudaGraphAddNode(pGraphNode, graph, pDependencies, numDependencies, nodeParams);
}

/* CUDA 13's cudaStreamGetCaptureInfo and cudaStreamUpdateCaptureDependencies,
 * with edge data (CUDA 12.3's _v3 and _v2); CUDA 12's forms stay callable
 * with fewer arguments. */
static inline __host__ cudaError_t cudaStreamGetCaptureInfo(
    cudaStream_t stream, enum cudaStreamCaptureStatus *captureStatus_out,
    unsigned long long *id_out, cudaGraph_t *graph_out, const cudaGraphNode_t **dependencies_out,
    const struct cudaGraphEdgeData **edgeData_out, size_t *numDependencies_out) {
    return ::cudaStreamGetCaptureInfo_v3(stream, captureStatus_out, id_out, graph_out,
                                         dependencies_out, edgeData_out, numDependencies_out);
}
static inline __host__ cudaError_t cudaStreamUpdateCaptureDependencies(
    cudaStream_t stream, cudaGraphNode_t *dependencies,
    const struct cudaGraphEdgeData *dependencyData, size_t numDependencies, unsigned int flags) {
    return ::cudaStreamUpdateCaptureDependencies_v2(stream, dependencies, dependencyData,
                                                    numDependencies, flags);
}

/* Sets a conditional node's handle from device code: the handle is the
 * device address of its value (umd/cudart/graph.cpp). */
static inline __device__ void cudaGraphSetConditional(cudaGraphConditionalHandle handle,
                                                      unsigned int value) {
    *(volatile unsigned int *)handle = value;
}

/* cuda_runtime.h's C++ overload of cudaEventCreate with flags. */
static inline __host__ cudaError_t cudaEventCreate(cudaEvent_t *event, unsigned int flags) {
    return ::cudaEventCreateWithFlags(event, flags);
}

/* CUDA 12's form of cudaGraphInstantiate. */
static inline __host__ cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec,
                                                        cudaGraph_t graph,
                                                        unsigned long long flags = 0) {
    return ::cudaGraphInstantiateWithFlags(pGraphExec, graph, flags);
}

template <class T>
static inline __host__ cudaError_t cudaMallocPitch(T **devPtr, size_t *pitch, size_t width,
                                                   size_t height) {
    return ::cudaMallocPitch((void **)(void *)devPtr, pitch, width, height);
}

template <class T>
static inline __host__ cudaError_t cudaMallocAsync(T **devPtr, size_t size, cudaStream_t stream) {
    return ::cudaMallocAsync((void **)(void *)devPtr, size, stream);
}

template <class T>
static inline __host__ cudaError_t cudaMallocAsync(T **devPtr, size_t size, cudaMemPool_t memPool,
                                                   cudaStream_t stream) {
    return ::cudaMallocFromPoolAsync((void **)(void *)devPtr, size, memPool, stream);
}

template <class T>
static inline __host__ cudaError_t cudaMallocFromPoolAsync(T **devPtr, size_t size,
                                                           cudaMemPool_t memPool,
                                                           cudaStream_t stream) {
    return ::cudaMallocFromPoolAsync((void **)(void *)devPtr, size, memPool, stream);
}

template <class T>
static inline __host__ cudaError_t cudaMallocManaged(T **devPtr, size_t size,
                                                     unsigned int flags = cudaMemAttachGlobal) {
    return ::cudaMallocManaged((void **)(void *)devPtr, size, flags);
}

/* CUDA 12.2's forms, with a cudaMemLocation. */
static inline __host__ cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count,
                                                        struct cudaMemLocation location,
                                                        unsigned int flags,
                                                        cudaStream_t stream = 0) {
    return ::cudaMemPrefetchAsync_v2(devPtr, count, location, flags, stream);
}
static inline __host__ cudaError_t cudaMemAdvise(const void *devPtr, size_t count,
                                                 enum cudaMemoryAdvise advice,
                                                 struct cudaMemLocation location) {
    return ::cudaMemAdvise_v2(devPtr, count, advice, location);
}

template <class T>
static inline __host__ cudaError_t cudaHostGetDevicePointer(T **pDevice, void *pHost,
                                                            unsigned int flags) {
    return ::cudaHostGetDevicePointer((void **)(void *)pDevice, pHost, flags);
}

template <class T>
static inline __host__ cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, T *devPtr,
                                                            size_t length = 0,
                                                            unsigned int flags =
                                                                cudaMemAttachSingle) {
    return ::cudaStreamAttachMemAsync(stream, (void *)devPtr, length, flags);
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
static inline __host__ cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int *numBlocks, T func, int blockSize, size_t dynamicSMemSize, unsigned int flags) {
    return ::cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
        numBlocks, (const void *)func, blockSize, dynamicSMemSize, flags);
}

template <class T>
static inline __host__ cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(
    size_t *dynamicSmemSize, T func, int numBlocks, int blockSize) {
    return ::cudaOccupancyAvailableDynamicSMemPerBlock(dynamicSmemSize, (const void *)func,
                                                       numBlocks, blockSize);
}

/* The block size (a multiple of the warp size, the largest on ties, at most
 * blockSizeLimit when above 0) that keeps the most threads resident on an
 * SM, each block size with the dynamic shared memory blockSizeToDynamicSMemSize
 * gives it; minGridSize: the blocks that fill every SM at that occupancy. As
 * CUDA's templates: the rest of the family below calls this one. */
template <typename UnaryFunction, class T>
static inline __host__ cudaError_t cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(
    int *minGridSize, int *blockSize, T func, UnaryFunction blockSizeToDynamicSMemSize,
    int blockSizeLimit = 0, unsigned int flags = 0) {
    if (!minGridSize || !blockSize || !func)
        return cudaErrorInvalidValue;
    int device = 0, warp = 0, sms = 0;
    struct cudaFuncAttributes attr;
    cudaError_t err = cudaGetDevice(&device);
    if (err == cudaSuccess)
        err = cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, device);
    if (err == cudaSuccess)
        err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    if (err == cudaSuccess)
        err = ::cudaFuncGetAttributes(&attr, (const void *)func);
    if (err != cudaSuccess)
        return err;
    int limit = attr.maxThreadsPerBlock;
    if (blockSizeLimit > 0 && blockSizeLimit < limit)
        limit = blockSizeLimit;
    int best_threads = -1, best_block = 0, best_blocks = 0;
    for (int block = limit - limit % warp; block > 0; block -= warp) {
        int blocks = 0;
        err = ::cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
            &blocks, (const void *)func, block, blockSizeToDynamicSMemSize(block), flags);
        if (err != cudaSuccess)
            return err;
        if (blocks * block > best_threads) {
            best_threads = blocks * block;
            best_block = block;
            best_blocks = blocks;
        }
    }
    *blockSize = best_block;
    *minGridSize = best_blocks * sms;
    return cudaSuccess;
}

template <typename UnaryFunction, class T>
static inline __host__ cudaError_t cudaOccupancyMaxPotentialBlockSizeVariableSMem(
    int *minGridSize, int *blockSize, T func, UnaryFunction blockSizeToDynamicSMemSize,
    int blockSizeLimit = 0) {
    return cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(
        minGridSize, blockSize, func, blockSizeToDynamicSMemSize, blockSizeLimit, 0);
}

template <class T>
static inline __host__ cudaError_t cudaOccupancyMaxPotentialBlockSizeWithFlags(
    int *minGridSize, int *blockSize, T func, size_t dynamicSMemSize = 0, int blockSizeLimit = 0,
    unsigned int flags = 0) {
    return cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(
        minGridSize, blockSize, func, [dynamicSMemSize](int) { return dynamicSMemSize; },
        blockSizeLimit, flags);
}

template <class T>
static inline __host__ cudaError_t cudaOccupancyMaxPotentialBlockSize(int *minGridSize,
                                                                      int *blockSize, T func,
                                                                      size_t dynamicSMemSize = 0,
                                                                      int blockSizeLimit = 0) {
    return cudaOccupancyMaxPotentialBlockSizeWithFlags(minGridSize, blockSize, func,
                                                       dynamicSMemSize, blockSizeLimit, 0);
}

#if defined(__CUDA__) && defined(__clang__)
/* CUDA's min and max, as NVIDIA's math_functions.hpp gives them: the integer
 * overloads for every pairing of signedness and width (a mixed pair compared in
 * the unsigned type, as C converts) on both sides, except min(int, int) and
 * max(int, int), which clang defines for the device and only the host needs;
 * then the floating-point ones (on both sides: min(float, float) must not
 * become min(int, int)). */
#define SIMT_MINMAX(sides, type, a_type, b_type)                                             \
    static inline sides type min(a_type a, b_type b) { return (type)a < (type)b ? (type)a : (type)b; } \
    static inline sides type max(a_type a, b_type b) { return (type)a > (type)b ? (type)a : (type)b; }
SIMT_MINMAX(__host__, int, int, int)
SIMT_MINMAX(__host__ __device__, unsigned int, unsigned int, unsigned int)
SIMT_MINMAX(__host__ __device__, unsigned int, int, unsigned int)
SIMT_MINMAX(__host__ __device__, unsigned int, unsigned int, int)
SIMT_MINMAX(__host__ __device__, long, long, long)
SIMT_MINMAX(__host__ __device__, unsigned long, unsigned long, unsigned long)
SIMT_MINMAX(__host__ __device__, unsigned long, long, unsigned long)
SIMT_MINMAX(__host__ __device__, unsigned long, unsigned long, long)
SIMT_MINMAX(__host__ __device__, long long, long long, long long)
SIMT_MINMAX(__host__ __device__, unsigned long long, unsigned long long, unsigned long long)
SIMT_MINMAX(__host__ __device__, unsigned long long, long long, unsigned long long)
SIMT_MINMAX(__host__ __device__, unsigned long long, unsigned long long, long long)
#undef SIMT_MINMAX
static inline __host__ __device__ float min(float a, float b) { return __builtin_fminf(a, b); }
static inline __host__ __device__ float max(float a, float b) { return __builtin_fmaxf(a, b); }
static inline __host__ __device__ double min(double a, double b) { return __builtin_fmin(a, b); }
static inline __host__ __device__ double max(double a, double b) { return __builtin_fmax(a, b); }
static inline __host__ __device__ double min(float a, double b) { return __builtin_fmin(a, b); }
static inline __host__ __device__ double max(float a, double b) { return __builtin_fmax(a, b); }
static inline __host__ __device__ double min(double a, float b) { return __builtin_fmin(a, b); }
static inline __host__ __device__ double max(double a, float b) { return __builtin_fmax(a, b); }
#endif

#endif /* __cplusplus */

#endif /* SIMTGPU_CUDA_RUNTIME_H */
