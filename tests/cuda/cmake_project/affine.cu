// SPDX-License-Identifier: MIT
// Device code of a static library, used by affine_map.cu's kernel through
// the device link (CUDA_SEPARABLE_COMPILATION).
__device__ int affine_scale = 1;

__device__ int affine(int x, int offset) { return affine_scale * x + offset; }
