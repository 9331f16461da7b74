/* SPDX-License-Identifier: MIT */
/* NVTX names for CUDA runtime objects (nvtx3/nvToolsExt.h: no tool, so
 * they name nothing). */
#ifndef NVTX3_NVTOOLSEXT_CUDART_H_
#define NVTX3_NVTOOLSEXT_CUDART_H_
#include "../cuda_runtime_api.h"
#include "nvToolsExt.h"

#ifdef __cplusplus
extern "C" {
#endif
NVTX_INLINE_STATIC void nvtxNameCudaDeviceA(int device, const char *name) {
    (void)device, (void)name;
}
NVTX_INLINE_STATIC void nvtxNameCudaStreamA(cudaStream_t stream, const char *name) {
    (void)stream, (void)name;
}
NVTX_INLINE_STATIC void nvtxNameCudaEventA(cudaEvent_t event, const char *name) {
    (void)event, (void)name;
}
#ifdef __cplusplus
}
#endif
#endif
