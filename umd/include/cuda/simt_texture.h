/* SPDX-License-Identifier: MIT */
/*
 * The texture descriptor: what a cudaTextureObject_t or cudaSurfaceObject_t
 * is on simtgpu. simtgpu's device has no texture unit; cudaCreateTextureObject
 * writes one of these into device memory and the object is its device
 * address. Fetches, addressing and filtering are device code
 * (texture_indirect_functions.h) that reads it. Shared by the runtime
 * (host C++) and device code. docs/cuda-runtime.md, "Textures and surfaces".
 */
#ifndef SIMT_TEXTURE_H
#define SIMT_TEXTURE_H

#include <stdint.h>

enum {
	SIMT_TEXTURE_SIGNED = 0, /* cudaChannelFormatKind's numbers */
	SIMT_TEXTURE_UNSIGNED = 1,
	SIMT_TEXTURE_FLOAT = 2,
};

struct simt_texture {
	uint64_t base;        /* device address of texel (0, 0, 0) */
	uint64_t pitch;       /* bytes from one row to the next */
	uint64_t slice_pitch; /* bytes from one 2-D slice to the next */
	uint32_t width, height, depth; /* texels; 1 for the dimensions not there */
	uint32_t channels;      /* 1 to 4 */
	uint32_t channel_bytes; /* 1, 2 or 4 (every channel the same size) */
	uint32_t kind;          /* SIMT_TEXTURE_* */
	uint32_t address_mode[3]; /* cudaTextureAddressMode per dimension */
	uint32_t filter_mode;       /* cudaTextureFilterMode */
	uint32_t read_mode;         /* cudaTextureReadMode */
	uint32_t normalized_coords; /* coordinates in [0, 1) rather than texels */
	float border[4];            /* cudaAddressModeBorder's colour */
};

#endif /* SIMT_TEXTURE_H */
