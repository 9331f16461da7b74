/* SPDX-License-Identifier: MIT */
/* NVTX names for CUDA driver objects (nvtx3/nvToolsExt.h: no tool, so they
 * name nothing). */
#ifndef NVTX3_NVTOOLSEXT_CUDA_H_
#define NVTX3_NVTOOLSEXT_CUDA_H_
#include "../cuda.h"
#include "nvToolsExt.h"

#ifdef __cplusplus
extern "C" {
#endif
NVTX_INLINE_STATIC void nvtxNameCuDeviceA(CUdevice device, const char *name) {
    (void)device, (void)name;
}
NVTX_INLINE_STATIC void nvtxNameCuContextA(CUcontext context, const char *name) {
    (void)context, (void)name;
}
NVTX_INLINE_STATIC void nvtxNameCuStreamA(CUstream stream, const char *name) {
    (void)stream, (void)name;
}
NVTX_INLINE_STATIC void nvtxNameCuEventA(CUevent event, const char *name) {
    (void)event, (void)name;
}
#ifdef __cplusplus
}
#endif
#endif
