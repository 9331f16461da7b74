/* SPDX-License-Identifier: MIT */
/* NVTX's older include path (CUDA 10 and before): the nvtx3 header. */
#include "nvtx3/nvToolsExtCudaRt.h"
