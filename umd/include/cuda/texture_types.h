/* SPDX-License-Identifier: MIT */
/* CUDA's texture object types (texture references, removed in CUDA 12, are
 * not offered). docs/cuda-runtime.md, "Textures and surfaces". */
#ifndef SIMTGPU_CUDA_TEXTURE_TYPES_H
#define SIMTGPU_CUDA_TEXTURE_TYPES_H
#define __TEXTURE_TYPES_H__

#include "driver_types.h"

typedef unsigned long long cudaTextureObject_t;

enum cudaTextureAddressMode {
	cudaAddressModeWrap = 0,   /* normalized coordinates only; else clamp */
	cudaAddressModeClamp = 1,
	cudaAddressModeMirror = 2, /* normalized coordinates only; else clamp */
	cudaAddressModeBorder = 3
};

enum cudaTextureFilterMode {
	cudaFilterModePoint = 0,
	cudaFilterModeLinear = 1 /* floating-point results only */
};

enum cudaTextureReadMode {
	cudaReadModeElementType = 0,
	cudaReadModeNormalizedFloat = 1 /* 8- and 16-bit integers to [0, 1] or [-1, 1] */
};

struct cudaTextureDesc {
	enum cudaTextureAddressMode addressMode[3];
	enum cudaTextureFilterMode filterMode;
	enum cudaTextureReadMode readMode;
	int sRGB;
	float borderColor[4];
	int normalizedCoords;
	unsigned int maxAnisotropy;
	enum cudaTextureFilterMode mipmapFilterMode;
	float mipmapLevelBias;
	float minMipmapLevelClamp;
	float maxMipmapLevelClamp;
	int disableTrilinearOptimization;
	int seamlessCubemap;
};

#endif /* SIMTGPU_CUDA_TEXTURE_TYPES_H */
