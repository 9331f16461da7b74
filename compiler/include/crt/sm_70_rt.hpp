/* SPDX-License-Identifier: MIT */
/* Clang's __clang_cuda_intrinsics.h includes this CUDA SDK header for the
 * sm_70 runtime extras; simtgpu has none, so it is empty. */
