/* SPDX-License-Identifier: MIT */
/*
 * The CUDA runtime API as simtgpu implements it (libsimtcudart, on top of
 * libsimtgpu). C declarations, usable from plain C and C++ host code too;
 * cuda_runtime.h adds the C++ templates. docs/cuda-runtime.md says what each
 * call does here.
 */
#ifndef SIMTGPU_CUDA_RUNTIME_API_H
#define SIMTGPU_CUDA_RUNTIME_API_H

#include "driver_types.h"
#include "host_defines.h"
#include "surface_types.h"
#include "texture_types.h"
#include "vector_types.h"

#include <stddef.h>

#define CUDART_VERSION 11080

#ifdef __cplusplus
#define SIMTCUDA_DEFAULT(x) = x
extern "C" {
#else
#define SIMTCUDA_DEFAULT(x)
#endif

/* Errors. */
extern __host__ cudaError_t cudaGetLastError(void);
extern __host__ cudaError_t cudaPeekAtLastError(void);
extern __host__ const char *cudaGetErrorString(cudaError_t error);
extern __host__ const char *cudaGetErrorName(cudaError_t error);

/* Versions: both are the API level implemented, CUDART_VERSION. */
extern __host__ cudaError_t cudaDriverGetVersion(int *driverVersion);
extern __host__ cudaError_t cudaRuntimeGetVersion(int *runtimeVersion);

/* Devices. */
extern __host__ cudaError_t cudaGetDeviceCount(int *count);
extern __host__ cudaError_t cudaSetDevice(int device);
extern __host__ cudaError_t cudaGetDevice(int *device);
extern __host__ cudaError_t cudaSetDeviceFlags(unsigned int flags);
extern __host__ cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device);
/* Peer access between devices: none on simtgpu, *canAccessPeer is 0. */
extern __host__ cudaError_t cudaDeviceCanAccessPeer(int *canAccessPeer, int device,
                                                    int peerDevice);
extern __host__ cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr,
                                                   int device);
extern __host__ cudaError_t cudaDeviceSynchronize(void);
extern __host__ cudaError_t cudaThreadSynchronize(void);
extern __host__ cudaError_t cudaDeviceReset(void);
extern __host__ cudaError_t cudaDeviceGetLimit(size_t *value, enum cudaLimit limit);
extern __host__ cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value);
extern __host__ cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache config);
extern __host__ cudaError_t cudaDeviceGetCacheConfig(enum cudaFuncCache *pCacheConfig);
extern __host__ cudaError_t cudaDeviceSetSharedMemConfig(enum cudaSharedMemConfig config);
extern __host__ cudaError_t cudaDeviceGetSharedMemConfig(enum cudaSharedMemConfig *pConfig);
extern __host__ cudaError_t cudaMemGetInfo(size_t *free, size_t *total);

/* Memory. */
extern __host__ cudaError_t cudaMalloc(void **devPtr, size_t size);
extern __host__ cudaError_t cudaFree(void *devPtr);
extern __host__ cudaError_t cudaMallocHost(void **ptr, size_t size);
extern __host__ cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags);
extern __host__ cudaError_t cudaFreeHost(void *ptr);
extern __host__ cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags);
extern __host__ cudaError_t cudaHostUnregister(void *ptr);
extern __host__ cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost,
                                                     unsigned int flags);
extern __host__ cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attributes,
                                                     const void *ptr);
extern __host__ cudaError_t cudaMemcpy(void *dst, const void *src, size_t count,
                                       enum cudaMemcpyKind kind);
extern __host__ cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count,
                                            enum cudaMemcpyKind kind,
                                            cudaStream_t stream SIMTCUDA_DEFAULT(0));
/* CUDA graphs by stream capture: work queued on a capturing stream (kernels,
 * cudaMemcpyAsync and the 2-D/3-D forms, cudaMemsetAsync, cudaLaunchHostFunc)
 * is recorded, not run; streams that wait for an event recorded in the
 * capture join it. A graph runs its nodes in capture order on the launch's
 * stream. */
extern __host__ cudaError_t cudaStreamBeginCapture(cudaStream_t stream,
                                                   enum cudaStreamCaptureMode mode);
extern __host__ cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph);
extern __host__ cudaError_t cudaStreamIsCapturing(cudaStream_t stream,
                                                  enum cudaStreamCaptureStatus *pCaptureStatus);
/* Capture into an existing graph after `dependencies` (CUDA 12.3; edge data
 * NULL or default edges). cudaStreamEndCapture then takes a NULL pGraph. */
extern __host__ cudaError_t cudaStreamBeginCaptureToGraph(
    cudaStream_t stream, cudaGraph_t graph, const cudaGraphNode_t *dependencies,
    const struct cudaGraphEdgeData *dependencyData, size_t numDependencies,
    enum cudaStreamCaptureMode mode);
/* CUDA 12's form (_v2): the capture's status, id, graph and the nodes the
 * stream's next captured work depends on; the array stays valid until the
 * stream's next call. CUDA 13's form with edge data (_v3) is the C++
 * overload in cuda_runtime.h. */
extern __host__ cudaError_t cudaStreamGetCaptureInfo(
    cudaStream_t stream, enum cudaStreamCaptureStatus *captureStatus_out,
    unsigned long long *id_out SIMTCUDA_DEFAULT(0), cudaGraph_t *graph_out SIMTCUDA_DEFAULT(0),
    const cudaGraphNode_t **dependencies_out SIMTCUDA_DEFAULT(0),
    size_t *numDependencies_out SIMTCUDA_DEFAULT(0));
extern __host__ cudaError_t cudaStreamGetCaptureInfo_v2(
    cudaStream_t stream, enum cudaStreamCaptureStatus *captureStatus_out,
    unsigned long long *id_out SIMTCUDA_DEFAULT(0), cudaGraph_t *graph_out SIMTCUDA_DEFAULT(0),
    const cudaGraphNode_t **dependencies_out SIMTCUDA_DEFAULT(0),
    size_t *numDependencies_out SIMTCUDA_DEFAULT(0));
extern __host__ cudaError_t cudaStreamGetCaptureInfo_v3(
    cudaStream_t stream, enum cudaStreamCaptureStatus *captureStatus_out,
    unsigned long long *id_out SIMTCUDA_DEFAULT(0), cudaGraph_t *graph_out SIMTCUDA_DEFAULT(0),
    const cudaGraphNode_t **dependencies_out SIMTCUDA_DEFAULT(0),
    const struct cudaGraphEdgeData **edgeData_out SIMTCUDA_DEFAULT(0),
    size_t *numDependencies_out SIMTCUDA_DEFAULT(0));
/* flags: cudaStreamAddCaptureDependencies or cudaStreamSetCaptureDependencies;
 * CUDA 13's form with edge data is the C++ overload in cuda_runtime.h. */
extern __host__ cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t stream,
                                                                cudaGraphNode_t *dependencies,
                                                                size_t numDependencies,
                                                                unsigned int flags);
extern __host__ cudaError_t cudaStreamUpdateCaptureDependencies_v2(
    cudaStream_t stream, cudaGraphNode_t *dependencies,
    const struct cudaGraphEdgeData *dependencyData, size_t numDependencies, unsigned int flags);
extern __host__ cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                                 cudaGraphNode_t *pErrorNode, char *pLogBuffer,
                                                 size_t bufferSize);
extern __host__ cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *pGraphExec,
                                                          cudaGraph_t graph,
                                                          unsigned long long flags);
extern __host__ cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream);
extern __host__ cudaError_t cudaGraphUpload(cudaGraphExec_t graphExec, cudaStream_t stream);
extern __host__ cudaError_t cudaGraphConditionalHandleCreate(
    cudaGraphConditionalHandle *pHandle_out, cudaGraph_t graph, unsigned int defaultLaunchValue,
    unsigned int flags);
extern __host__ cudaError_t cudaGraphAddNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                             const cudaGraphNode_t *pDependencies,
                                             size_t numDependencies,
                                             struct cudaGraphNodeParams *nodeParams);
extern __host__ cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec);
extern __host__ cudaError_t cudaGraphDestroy(cudaGraph_t graph);
extern __host__ cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes,
                                              size_t *numNodes);
extern __host__ cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node,
                                                 enum cudaGraphNodeType *pType);
/* The explicit graph API: nodes run after their dependencies. Kernel nodes
 * copy their argument values when made; memcpy nodes take cudaMemcpy3D's
 * parameters; cudaGraphExecUpdate is CUDA 11's form. */
extern __host__ cudaError_t cudaGraphCreate(cudaGraph_t *pGraph, unsigned int flags);
extern __host__ cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                   const cudaGraphNode_t *pDependencies,
                                                   size_t numDependencies,
                                                   const struct cudaKernelNodeParams *pNodeParams);
extern __host__ cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                   const cudaGraphNode_t *pDependencies,
                                                   size_t numDependencies,
                                                   const struct cudaMemcpy3DParms *pCopyParams);
extern __host__ cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                   const cudaGraphNode_t *pDependencies,
                                                   size_t numDependencies,
                                                   const struct cudaMemsetParams *pMemsetParams);
extern __host__ cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                 const cudaGraphNode_t *pDependencies,
                                                 size_t numDependencies,
                                                 const struct cudaHostNodeParams *pNodeParams);
extern __host__ cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                     const cudaGraphNode_t *pDependencies,
                                                     size_t numDependencies, void *dst,
                                                     const void *src, size_t count,
                                                     enum cudaMemcpyKind kind);
/* Graph memory: an allocation node's memory is allocated when the node is
 * made (its address is fixed, as CUDA's) and stays reserved while the
 * program runs; free nodes, cudaFreeAsync and cudaFree of it release nothing
 * (docs/cuda-runtime.md). Captured cudaMallocAsync/cudaFreeAsync make these
 * nodes. */
extern __host__ cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                     const cudaGraphNode_t *pDependencies,
                                                     size_t numDependencies,
                                                     struct cudaMemAllocNodeParams *nodeParams);
extern __host__ cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                    const cudaGraphNode_t *pDependencies,
                                                    size_t numDependencies, void *dptr);
extern __host__ cudaError_t cudaDeviceGraphMemTrim(int device);
extern __host__ cudaError_t cudaDeviceGetGraphMemAttribute(int device,
                                                           enum cudaGraphMemAttributeType attr,
                                                           void *value);
extern __host__ cudaError_t cudaDeviceSetGraphMemAttribute(int device,
                                                           enum cudaGraphMemAttributeType attr,
                                                           void *value);
extern __host__ cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                  const cudaGraphNode_t *pDependencies,
                                                  size_t numDependencies);
extern __host__ cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t *from,
                                                     const cudaGraphNode_t *to,
                                                     size_t numDependencies);
extern __host__ cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node,
                                                         struct cudaKernelNodeParams *pNodeParams);
extern __host__ cudaError_t cudaGraphKernelNodeSetParams(
    cudaGraphNode_t node, const struct cudaKernelNodeParams *pNodeParams);
/* A kernel node's launch attributes (as cudaLaunchKernelEx's), kept with the
 * node and applied each time the graph runs it. */
extern __host__ cudaError_t cudaGraphKernelNodeGetAttribute(cudaGraphNode_t hNode,
                                                            cudaKernelNodeAttrID attr,
                                                            cudaKernelNodeAttrValue *value_out);
extern __host__ cudaError_t cudaGraphKernelNodeSetAttribute(cudaGraphNode_t hNode,
                                                            cudaKernelNodeAttrID attr,
                                                            const cudaKernelNodeAttrValue *value);
extern __host__ cudaError_t cudaGraphKernelNodeCopyAttributes(cudaGraphNode_t hDst,
                                                              cudaGraphNode_t hSrc);
extern __host__ cudaError_t cudaGraphClone(cudaGraph_t *pGraphClone, cudaGraph_t originalGraph);
extern __host__ cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t *pRootNodes,
                                                  size_t *pNumRootNodes);
extern __host__ cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node,
                                                         cudaGraphNode_t *pDependencies,
                                                         size_t *pNumDependencies);
extern __host__ cudaError_t cudaGraphExecKernelNodeSetParams(
    cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
    const struct cudaKernelNodeParams *pNodeParams);
extern __host__ cudaError_t cudaGraphExecUpdate(cudaGraphExec_t hGraphExec, cudaGraph_t hGraph,
                                                cudaGraphNode_t *hErrorNode_out,
                                                enum cudaGraphExecUpdateResult *updateResult_out);

/* Managed memory: host memory that the device reaches over the bus, at
 * the same address on both sides (docs/cuda-runtime.md, "Managed memory").
 * Nothing migrates: prefetches and advice are accepted and change nothing. */
extern __host__ cudaError_t cudaMallocManaged(void **devPtr, size_t size,
                                              unsigned int flags SIMTCUDA_DEFAULT(cudaMemAttachGlobal));
extern __host__ cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count, int dstDevice,
                                                 cudaStream_t stream SIMTCUDA_DEFAULT(0));
extern __host__ cudaError_t cudaMemPrefetchAsync_v2(const void *devPtr, size_t count,
                                                    struct cudaMemLocation location,
                                                    unsigned int flags,
                                                    cudaStream_t stream SIMTCUDA_DEFAULT(0));
extern __host__ cudaError_t cudaMemAdvise(const void *devPtr, size_t count,
                                          enum cudaMemoryAdvise advice, int device);
extern __host__ cudaError_t cudaMemAdvise_v2(const void *devPtr, size_t count,
                                             enum cudaMemoryAdvise advice,
                                             struct cudaMemLocation location);
extern __host__ cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void *devPtr,
                                                     size_t length SIMTCUDA_DEFAULT(0),
                                                     unsigned int flags
                                                         SIMTCUDA_DEFAULT(cudaMemAttachSingle));

/* Pitched memory: rows of width bytes, pitch bytes apart (pitch >= width,
 * else cudaErrorInvalidPitchValue). cudaMallocPitch's pitch is a multiple
 * of 512 bytes. Every kind is accepted, cudaMemcpyDefault included. */
extern __host__ cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width,
                                            size_t height);
extern __host__ cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch,
                                         size_t width, size_t height, enum cudaMemcpyKind kind);
extern __host__ cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src,
                                              size_t spitch, size_t width, size_t height,
                                              enum cudaMemcpyKind kind,
                                              cudaStream_t stream SIMTCUDA_DEFAULT(0));
extern __host__ cudaError_t cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width,
                                         size_t height);
extern __host__ cudaError_t cudaMemset2DAsync(void *devPtr, size_t pitch, int value, size_t width,
                                              size_t height,
                                              cudaStream_t stream SIMTCUDA_DEFAULT(0));
extern __host__ cudaError_t cudaMalloc3D(struct cudaPitchedPtr *pitchedDevPtr,
                                         struct cudaExtent extent);
extern __host__ cudaError_t cudaMemcpy3D(const struct cudaMemcpy3DParms *p);
extern __host__ cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *p,
                                              cudaStream_t stream SIMTCUDA_DEFAULT(0));
extern __host__ cudaError_t cudaMemset3D(struct cudaPitchedPtr pitchedDevPtr, int value,
                                         struct cudaExtent extent);
extern __host__ cudaError_t cudaMemset3DAsync(struct cudaPitchedPtr pitchedDevPtr, int value,
                                              struct cudaExtent extent,
                                              cudaStream_t stream SIMTCUDA_DEFAULT(0));

/* CUDA arrays: pitched device memory, rows of width elements (height 0: a
 * 1-D array). Offsets along x of the array copies are in bytes, as CUDA's. */
extern __host__ struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w,
                                                                   enum cudaChannelFormatKind f);
extern __host__ cudaError_t cudaMallocArray(cudaArray_t *array,
                                            const struct cudaChannelFormatDesc *desc,
                                            size_t width, size_t height SIMTCUDA_DEFAULT(0),
                                            unsigned int flags SIMTCUDA_DEFAULT(0));
extern __host__ cudaError_t cudaMalloc3DArray(cudaArray_t *array,
                                              const struct cudaChannelFormatDesc *desc,
                                              struct cudaExtent extent,
                                              unsigned int flags SIMTCUDA_DEFAULT(0));
extern __host__ cudaError_t cudaFreeArray(cudaArray_t array);
extern __host__ cudaError_t cudaArrayGetInfo(struct cudaChannelFormatDesc *desc,
                                             struct cudaExtent *extent, unsigned int *flags,
                                             cudaArray_t array);
extern __host__ cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                                const void *src, size_t spitch, size_t width,
                                                size_t height, enum cudaMemcpyKind kind);
extern __host__ cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t wOffset,
                                                     size_t hOffset, const void *src,
                                                     size_t spitch, size_t width, size_t height,
                                                     enum cudaMemcpyKind kind,
                                                     cudaStream_t stream SIMTCUDA_DEFAULT(0));
extern __host__ cudaError_t cudaMemcpy2DFromArray(void *dst, size_t dpitch, cudaArray_const_t src,
                                                  size_t wOffset, size_t hOffset, size_t width,
                                                  size_t height, enum cudaMemcpyKind kind);
extern __host__ cudaError_t cudaMemcpy2DFromArrayAsync(void *dst, size_t dpitch,
                                                       cudaArray_const_t src, size_t wOffset,
                                                       size_t hOffset, size_t width, size_t height,
                                                       enum cudaMemcpyKind kind,
                                                       cudaStream_t stream SIMTCUDA_DEFAULT(0));
/* count bytes from (wOffset, hOffset) on, row after row (deprecated in CUDA). */
extern __host__ cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                              const void *src, size_t count,
                                              enum cudaMemcpyKind kind);
extern __host__ cudaError_t cudaMemcpyFromArray(void *dst, cudaArray_const_t src, size_t wOffset,
                                                size_t hOffset, size_t count,
                                                enum cudaMemcpyKind kind);

/* Texture and surface objects (docs/cuda-runtime.md, "Textures and
 * surfaces"): a descriptor in device memory, read by device code. Resource
 * views are not offered (pResViewDesc must be NULL). Surfaces need an array
 * made with cudaArraySurfaceLoadStore. */
extern __host__ cudaError_t cudaCreateTextureObject(cudaTextureObject_t *pTexObject,
                                                    const struct cudaResourceDesc *pResDesc,
                                                    const struct cudaTextureDesc *pTexDesc,
                                                    const struct cudaResourceViewDesc *pResViewDesc);
extern __host__ cudaError_t cudaDestroyTextureObject(cudaTextureObject_t texObject);
extern __host__ cudaError_t cudaGetTextureObjectResourceDesc(struct cudaResourceDesc *pResDesc,
                                                             cudaTextureObject_t texObject);
extern __host__ cudaError_t cudaGetTextureObjectTextureDesc(struct cudaTextureDesc *pTexDesc,
                                                            cudaTextureObject_t texObject);
extern __host__ cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t *pSurfObject,
                                                    const struct cudaResourceDesc *pResDesc);
extern __host__ cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t surfObject);

/* Stream-ordered allocation: a block freed on a stream is reused at once by
 * that stream, by another after the free's point in the first stream has
 * completed (or with a wait on it inserted: cudaMemPoolReuseAllowInternalDependencies). */
extern __host__ cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t hStream);
extern __host__ cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t hStream);
extern __host__ cudaError_t cudaMallocFromPoolAsync(void **ptr, size_t size, cudaMemPool_t memPool,
                                                    cudaStream_t stream);
extern __host__ cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *memPool, int device);
extern __host__ cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *memPool, int device);
extern __host__ cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t memPool);
extern __host__ cudaError_t cudaMemPoolCreate(cudaMemPool_t *memPool,
                                              const struct cudaMemPoolProps *poolProps);
extern __host__ cudaError_t cudaMemPoolDestroy(cudaMemPool_t memPool);
extern __host__ cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t memPool,
                                                    enum cudaMemPoolAttr attr, void *value);
extern __host__ cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t memPool,
                                                    enum cudaMemPoolAttr attr, void *value);
extern __host__ cudaError_t cudaMemPoolTrimTo(cudaMemPool_t memPool, size_t minBytesToKeep);
extern __host__ cudaError_t cudaMemset(void *devPtr, int value, size_t count);
extern __host__ cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count,
                                            cudaStream_t stream SIMTCUDA_DEFAULT(0));
extern __host__ cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count,
                                               size_t offset SIMTCUDA_DEFAULT(0),
                                               enum cudaMemcpyKind kind
                                                   SIMTCUDA_DEFAULT(cudaMemcpyHostToDevice));
extern __host__ cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count,
                                                 size_t offset SIMTCUDA_DEFAULT(0),
                                                 enum cudaMemcpyKind kind
                                                     SIMTCUDA_DEFAULT(cudaMemcpyDeviceToHost));
extern __host__ cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src,
                                                    size_t count, size_t offset,
                                                    enum cudaMemcpyKind kind,
                                                    cudaStream_t stream SIMTCUDA_DEFAULT(0));
extern __host__ cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count,
                                                      size_t offset, enum cudaMemcpyKind kind,
                                                      cudaStream_t stream SIMTCUDA_DEFAULT(0));
extern __host__ cudaError_t cudaGetSymbolAddress(void **devPtr, const void *symbol);
extern __host__ cudaError_t cudaGetSymbolSize(size_t *size, const void *symbol);

/* Streams. */
extern __host__ cudaError_t cudaStreamCreate(cudaStream_t *pStream);
extern __host__ cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags);
extern __host__ cudaError_t cudaStreamCreateWithPriority(cudaStream_t *pStream,
                                                         unsigned int flags, int priority);
extern __host__ cudaError_t cudaDeviceGetStreamPriorityRange(int *leastPriority,
                                                             int *greatestPriority);
extern __host__ cudaError_t cudaStreamDestroy(cudaStream_t stream);
extern __host__ cudaError_t cudaStreamSynchronize(cudaStream_t stream);
extern __host__ cudaError_t cudaStreamQuery(cudaStream_t stream);
/* Host functions in stream order. simtgpu runs them on the calling thread
 * once the stream's earlier work is done, before returning, so later work
 * in the stream (submitted after the call returns) starts after them. flags
 * must be 0. They must not call the CUDA API, as in CUDA. */
extern __host__ cudaError_t cudaStreamAddCallback(cudaStream_t stream,
                                                  cudaStreamCallback_t callback, void *userData,
                                                  unsigned int flags);
extern __host__ cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn,
                                               void *userData);
extern __host__ cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event,
                                                unsigned int flags SIMTCUDA_DEFAULT(0));
extern __host__ cudaError_t cudaStreamGetFlags(cudaStream_t stream, unsigned int *flags);
/* The access policy window (a hint: the device's L2 sets no lines aside)
 * and the synchronisation policy, kept per stream. */
extern __host__ cudaError_t cudaStreamSetAttribute(cudaStream_t stream, cudaStreamAttrID attr,
                                                   const cudaStreamAttrValue *value);
extern __host__ cudaError_t cudaStreamGetAttribute(cudaStream_t stream, cudaStreamAttrID attr,
                                                   cudaStreamAttrValue *value);
extern __host__ cudaError_t cudaStreamGetPriority(cudaStream_t hStream, int *priority);
extern __host__ cudaError_t cudaCtxResetPersistingL2Cache(void);

/* Events. */
extern __host__ cudaError_t cudaEventCreate(cudaEvent_t *event);
extern __host__ cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags);
extern __host__ cudaError_t cudaEventRecord(cudaEvent_t event,
                                            cudaStream_t stream SIMTCUDA_DEFAULT(0));
extern __host__ cudaError_t cudaEventSynchronize(cudaEvent_t event);
extern __host__ cudaError_t cudaEventQuery(cudaEvent_t event);
extern __host__ cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);
extern __host__ cudaError_t cudaEventDestroy(cudaEvent_t event);

/* Kernels. */
extern __host__ cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim,
                                             void **args, size_t sharedMem,
                                             cudaStream_t stream);
/* Every block resident at once (blocks per SM by occupancy x SMs), else
 * cudaErrorCooperativeLaunchTooLarge: what cooperative_groups::grid_group::sync()
 * needs. */
extern __host__ cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 gridDim,
                                                        dim3 blockDim, void **args,
                                                        size_t sharedMem, cudaStream_t stream);
/* A launch with attributes (cudaLaunchConfig_t, driver_types.h): what each
 * attribute does here is in docs/cuda-runtime.md. */
extern __host__ cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func,
                                                void **args);
extern __host__ cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr,
                                                  const void *func);
extern __host__ cudaError_t cudaFuncSetCacheConfig(const void *func, enum cudaFuncCache config);
extern __host__ cudaError_t cudaFuncSetSharedMemConfig(const void *func,
                                                       enum cudaSharedMemConfig config);
/* cudaFuncAttributeMaxDynamicSharedMemorySize: dynamic shared memory above
 * sharedMemPerBlock, up to sharedMemPerBlockOptin less the static part. */
extern __host__ cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr,
                                                 int value);
extern __host__ cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks,
                                                                          const void *func,
                                                                          int blockSize,
                                                                          size_t dynamicSMemSize);
extern __host__ cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int *numBlocks, const void *func, int blockSize, size_t dynamicSMemSize, unsigned int flags);
extern __host__ cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize,
                                                                      const void *func,
                                                                      int numBlocks,
                                                                      int blockSize);

/* Profiler: the simulator counts all the time, so these only check state. */
extern __host__ cudaError_t cudaProfilerStart(void);
extern __host__ cudaError_t cudaProfilerStop(void);

/* What <<<grid, block, shared, stream>>> compiles to (clang's CUDA codegen). */
extern __host__ unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim,
                                                     size_t sharedMem SIMTCUDA_DEFAULT(0),
                                                     struct CUstream_st *stream
                                                         SIMTCUDA_DEFAULT(0));

#if defined(__CUDACC__)
/* The device runtime of CUDA dynamic parallelism, declared as CUDA declares
 * it: Thrust and CUB name these in code paths for relocatable device code
 * (__CUDACC_RDC__) that they take only where a kernel launches kernels.
 * simtgpu has no device-side launch: device code that calls them fails to
 * link, naming the function (docs/libraries.md). */
extern __device__ void *cudaGetParameterBuffer(size_t alignment, size_t size);
extern __device__ cudaError_t cudaLaunchDevice(void *func, void *parameterBuffer,
                                               dim3 gridDimension, dim3 blockDimension,
                                               unsigned int sharedMemSize, cudaStream_t stream);
extern __device__ cudaError_t __cudaDeviceSynchronizeDeprecationAvoidance(void);
#endif

#ifdef __cplusplus
}
#endif

#undef SIMTCUDA_DEFAULT

#endif /* SIMTGPU_CUDA_RUNTIME_API_H */
