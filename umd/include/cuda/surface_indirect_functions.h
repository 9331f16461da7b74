/* SPDX-License-Identifier: MIT */
/*
 * Surface reads and writes on surface objects, in device code: surf1Dread,
 * surf1Dwrite, surf2Dread, surf2Dwrite. As in CUDA, x is in bytes, y in
 * rows; the value is sizeof(T) bytes at that place of the array, the
 * boundary mode says what happens outside it. The object is a
 * simt_texture in device memory (simt_texture.h). docs/cuda-runtime.md.
 */
#ifndef SIMTGPU_CUDA_SURFACE_INDIRECT_FUNCTIONS_H
#define SIMTGPU_CUDA_SURFACE_INDIRECT_FUNCTIONS_H

#if defined(__CUDA__) && defined(__cplusplus)

#include "simt_texture.h"
#include "surface_types.h"

#define SIMT_SURF_DEVICE static __device__ __forceinline__

namespace simt_surf {
/* The address of bytes [x, x + size) of row y, or NULL where the boundary
 * mode drops the access (a trap does not return). */
SIMT_SURF_DEVICE char *at(cudaSurfaceObject_t s, int x, int y, unsigned size,
			  cudaSurfaceBoundaryMode mode)
{
	const simt_texture *d = (const simt_texture *)(uintptr_t)s;
	const int row = (int)(d->width * d->channels * d->channel_bytes);
	const bool outside = x < 0 || x + (int)size > row || y < 0 || y >= (int)d->height;
	if (outside) {
		if (mode == cudaBoundaryModeZero)
			return nullptr;
		if (mode == cudaBoundaryModeTrap)
			__trap(); /* as CUDA: an out-of-range surface access */
		x = x < 0 ? 0 : x + (int)size > row ? row - (int)size : x;
		y = y < 0 ? 0 : y >= (int)d->height ? (int)d->height - 1 : y;
	}
	return (char *)(uintptr_t)d->base + (uint64_t)y * d->pitch + (uint64_t)x;
}
} // namespace simt_surf

template <class T>
SIMT_SURF_DEVICE void surf2Dwrite(T value, cudaSurfaceObject_t s, int x, int y,
				  cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap)
{
	if (char *p = simt_surf::at(s, x, y, sizeof(T), mode))
		__builtin_memcpy(p, &value, sizeof(T));
}
template <class T>
SIMT_SURF_DEVICE T surf2Dread(cudaSurfaceObject_t s, int x, int y,
			      cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap)
{
	T value{};
	if (const char *p = simt_surf::at(s, x, y, sizeof(T), mode))
		__builtin_memcpy(&value, p, sizeof(T));
	return value;
}
template <class T>
SIMT_SURF_DEVICE void surf2Dread(T *out, cudaSurfaceObject_t s, int x, int y,
				 cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap)
{
	*out = surf2Dread<T>(s, x, y, mode);
}
template <class T>
SIMT_SURF_DEVICE void surf1Dwrite(T value, cudaSurfaceObject_t s, int x,
				  cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap)
{
	surf2Dwrite(value, s, x, 0, mode);
}
template <class T>
SIMT_SURF_DEVICE T surf1Dread(cudaSurfaceObject_t s, int x,
			      cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap)
{
	return surf2Dread<T>(s, x, 0, mode);
}
template <class T>
SIMT_SURF_DEVICE void surf1Dread(T *out, cudaSurfaceObject_t s, int x,
				 cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap)
{
	*out = surf2Dread<T>(s, x, 0, mode);
}

#undef SIMT_SURF_DEVICE

#endif /* __CUDA__ && __cplusplus */
#endif /* SIMTGPU_CUDA_SURFACE_INDIRECT_FUNCTIONS_H */
