/* SPDX-License-Identifier: MIT */
/*
 * Texture fetches on texture objects, in device code: tex1Dfetch, tex1D,
 * tex2D, tex3D (templates on the result type, and the forms that store
 * through a pointer). simtgpu's device has no texture unit: each fetch reads
 * the object's descriptor (simt_texture.h) and the texels from device memory
 * and does CUDA's addressing and filtering here, so every step is ordinary
 * code simtcc compiles.
 *
 * Coordinates: u = x * width with normalized coordinates, else x. Point
 * filtering reads texel floor(u); linear filtering blends texels
 * floor(u - 0.5) and the next by frac(u - 0.5), the weight rounded to 1/256
 * as CUDA's 8-bit fraction does (per dimension: 2 texels in 1-D, 4 in 2-D,
 * 8 in 3-D). Each texel index then goes through the address mode: wrap
 * (modulo the size), mirror (back and forth), clamp (to the edge), border
 * (outside: the border colour); wrap and mirror need normalized
 * coordinates and are clamp otherwise, as in CUDA. docs/cuda-runtime.md.
 */
#ifndef SIMTGPU_CUDA_TEXTURE_INDIRECT_FUNCTIONS_H
#define SIMTGPU_CUDA_TEXTURE_INDIRECT_FUNCTIONS_H

#if defined(__CUDA__) && defined(__cplusplus)

#include "simt_texture.h"
#include "texture_types.h"

#define SIMT_TEX_DEVICE static __device__ __forceinline__
#define SIMT_TEX_MEMBER static __device__ __forceinline__

namespace simt_tex {

SIMT_TEX_DEVICE const simt_texture *desc(cudaTextureObject_t t)
{
	return (const simt_texture *)(uintptr_t)t;
}

/* The texel index of i along a dimension of n texels, or -1 for the border. */
SIMT_TEX_DEVICE int address(int i, int n, unsigned mode, unsigned normalized)
{
	if (!normalized && (mode == cudaAddressModeWrap || mode == cudaAddressModeMirror))
		mode = cudaAddressModeClamp;
	switch (mode) {
	case cudaAddressModeWrap: {
		int m = i % n;
		return m < 0 ? m + n : m;
	}
	case cudaAddressModeMirror: {
		int m = i % (2 * n);
		if (m < 0)
			m += 2 * n;
		return m < n ? m : 2 * n - 1 - m;
	}
	case cudaAddressModeBorder: return i < 0 || i >= n ? -1 : i;
	default: return i < 0 ? 0 : i >= n ? n - 1 : i;
	}
}

/* Channel c of the texel at p, as the bits the channel holds (sign- or
 * zero-extended to 32 bits). */
SIMT_TEX_DEVICE uint32_t channel_bits(const simt_texture *d, const char *p, unsigned c)
{
	const char *q = p + c * d->channel_bytes;
	const bool sign = d->kind == SIMT_TEXTURE_SIGNED;
	switch (d->channel_bytes) {
	case 1: return sign ? (uint32_t)(int32_t) * (const int8_t *)q : *(const uint8_t *)q;
	case 2: return sign ? (uint32_t)(int32_t) * (const int16_t *)q : *(const uint16_t *)q;
	default: return *(const uint32_t *)q;
	}
}

SIMT_TEX_DEVICE const char *texel(const simt_texture *d, int x, int y, int z)
{
	return (const char *)(uintptr_t)d->base + (uint64_t)z * d->slice_pitch +
	       (uint64_t)y * d->pitch + (uint64_t)x * d->channels * d->channel_bytes;
}

/* Texel (x, y, z) after addressing as four floats: float channels as they
 * are, 8- and 16-bit integers normalized (cudaReadModeNormalizedFloat),
 * missing channels 0. */
SIMT_TEX_DEVICE float4 fetch_float(const simt_texture *d, int x, int y, int z)
{
	x = address(x, (int)d->width, d->address_mode[0], d->normalized_coords);
	y = address(y, (int)d->height, d->address_mode[1], d->normalized_coords);
	z = address(z, (int)d->depth, d->address_mode[2], d->normalized_coords);
	if (x < 0 || y < 0 || z < 0)
		return make_float4(d->border[0], d->border[1], d->border[2], d->border[3]);
	const char *p = texel(d, x, y, z);
	float v[4] = {0.f, 0.f, 0.f, 0.f};
	for (unsigned c = 0; c < d->channels; ++c) {
		const uint32_t bits = channel_bits(d, p, c);
		if (d->kind == SIMT_TEXTURE_FLOAT)
			v[c] = __uint_as_float(bits);
		else if (d->read_mode == cudaReadModeNormalizedFloat) {
			const float top = d->channel_bytes == 1 ? 255.f : 65535.f;
			v[c] = d->kind == SIMT_TEXTURE_SIGNED
				       ? fmaxf((float)(int32_t)bits / (top * 0.5f - 0.5f), -1.f)
				       : (float)bits / top;
		} else {
			v[c] = d->kind == SIMT_TEXTURE_SIGNED ? (float)(int32_t)bits : (float)bits;
		}
	}
	return make_float4(v[0], v[1], v[2], v[3]);
}

/* Texel (x, y, z) after addressing as the channels' bits (element reads of
 * integer textures; the border colour's values converted). */
SIMT_TEX_DEVICE uint4 fetch_bits(const simt_texture *d, int x, int y, int z)
{
	x = address(x, (int)d->width, d->address_mode[0], d->normalized_coords);
	y = address(y, (int)d->height, d->address_mode[1], d->normalized_coords);
	z = address(z, (int)d->depth, d->address_mode[2], d->normalized_coords);
	if (x < 0 || y < 0 || z < 0)
		return make_uint4((uint32_t)(int32_t)d->border[0], (uint32_t)(int32_t)d->border[1],
				  (uint32_t)(int32_t)d->border[2], (uint32_t)(int32_t)d->border[3]);
	const char *p = texel(d, x, y, z);
	uint32_t v[4] = {0, 0, 0, 0};
	for (unsigned c = 0; c < d->channels; ++c)
		v[c] = channel_bits(d, p, c);
	return make_uint4(v[0], v[1], v[2], v[3]);
}

SIMT_TEX_DEVICE float4 lerp(float4 a, float4 b, float t)
{
	return make_float4(a.x + t * (b.x - a.x), a.y + t * (b.y - a.y), a.z + t * (b.z - a.z),
			   a.w + t * (b.w - a.w));
}

/* CUDA's 9-bit fixed-point weight: 8 bits of fraction. */
SIMT_TEX_DEVICE float weight(float f) { return rintf(f * 256.f) * (1.f / 256.f); }

/* A filtered sample at texel-space coordinates (u, v, w) of `dims` dimensions. */
SIMT_TEX_DEVICE float4 sample(const simt_texture *d, float u, float v, float w, int dims)
{
	if (d->normalized_coords) {
		u *= (float)d->width;
		v *= (float)d->height;
		w *= (float)d->depth;
	}
	if (d->filter_mode != cudaFilterModeLinear)
		return fetch_float(d, (int)floorf(u), dims > 1 ? (int)floorf(v) : 0,
				   dims > 2 ? (int)floorf(w) : 0);
	const float bu = u - 0.5f, bv = v - 0.5f, bw = w - 0.5f;
	const int x = (int)floorf(bu), y = dims > 1 ? (int)floorf(bv) : 0,
		  z = dims > 2 ? (int)floorf(bw) : 0;
	const float a = weight(bu - floorf(bu));
	float4 r = lerp(fetch_float(d, x, y, z), fetch_float(d, x + 1, y, z), a);
	if (dims > 1) {
		const float b = weight(bv - floorf(bv));
		float4 r1 = lerp(fetch_float(d, x, y + 1, z), fetch_float(d, x + 1, y + 1, z), a);
		r = lerp(r, r1, b);
		if (dims > 2) {
			const float c = weight(bw - floorf(bw));
			float4 s0 = lerp(fetch_float(d, x, y, z + 1), fetch_float(d, x + 1, y, z + 1), a);
			float4 s1 = lerp(fetch_float(d, x, y + 1, z + 1),
					 fetch_float(d, x + 1, y + 1, z + 1), a);
			r = lerp(r, lerp(s0, s1, b), c);
		}
	}
	return r;
}

/* The result types: built from four floats (float results) or four
 * channels' bits (integer results, element reads). */
template <class T> struct result;
#define SIMT_TEX_SCALAR(T, is_float)                                                          \
	template <> struct result<T> {                                                        \
		static constexpr bool floating = is_float;                                    \
		SIMT_TEX_MEMBER T from(float4 v) { return (T)v.x; }                    \
		SIMT_TEX_MEMBER T from(uint4 v) { return (T)v.x; }                     \
	};
SIMT_TEX_SCALAR(float, true)
SIMT_TEX_SCALAR(char, false)
SIMT_TEX_SCALAR(signed char, false)
SIMT_TEX_SCALAR(unsigned char, false)
SIMT_TEX_SCALAR(short, false)
SIMT_TEX_SCALAR(unsigned short, false)
SIMT_TEX_SCALAR(int, false)
SIMT_TEX_SCALAR(unsigned int, false)
#undef SIMT_TEX_SCALAR
#define SIMT_TEX_VECTOR(V, E, is_float)                                                       \
	template <> struct result<V##1> {                                                     \
		static constexpr bool floating = is_float;                                    \
		SIMT_TEX_MEMBER V##1 from(float4 v) { return make_##V##1((E)v.x); }    \
		SIMT_TEX_MEMBER V##1 from(uint4 v) { return make_##V##1((E)v.x); }     \
	};                                                                                    \
	template <> struct result<V##2> {                                                     \
		static constexpr bool floating = is_float;                                    \
		SIMT_TEX_MEMBER V##2 from(float4 v) { return make_##V##2((E)v.x, (E)v.y); } \
		SIMT_TEX_MEMBER V##2 from(uint4 v) { return make_##V##2((E)v.x, (E)v.y); } \
	};                                                                                    \
	template <> struct result<V##4> {                                                     \
		static constexpr bool floating = is_float;                                    \
		SIMT_TEX_MEMBER V##4 from(float4 v)                                     \
		{                                                                             \
			return make_##V##4((E)v.x, (E)v.y, (E)v.z, (E)v.w);                  \
		}                                                                             \
		SIMT_TEX_MEMBER V##4 from(uint4 v)                                      \
		{                                                                             \
			return make_##V##4((E)v.x, (E)v.y, (E)v.z, (E)v.w);                  \
		}                                                                             \
	};
SIMT_TEX_VECTOR(float, float, true)
SIMT_TEX_VECTOR(char, signed char, false)
SIMT_TEX_VECTOR(uchar, unsigned char, false)
SIMT_TEX_VECTOR(short, short, false)
SIMT_TEX_VECTOR(ushort, unsigned short, false)
SIMT_TEX_VECTOR(int, int, false)
SIMT_TEX_VECTOR(uint, unsigned int, false)
#undef SIMT_TEX_VECTOR

template <bool Floating> struct reader;
template <> struct reader<true> {
	template <class T>
	SIMT_TEX_MEMBER T read(const simt_texture *d, float u, float v, float w, int dims)
	{
		return result<T>::from(sample(d, u, v, w, dims));
	}
};
template <> struct reader<false> {
	template <class T>
	SIMT_TEX_MEMBER T read(const simt_texture *d, float u, float v, float w, int dims)
	{
		if (d->normalized_coords) {
			u *= (float)d->width;
			v *= (float)d->height;
			w *= (float)d->depth;
		}
		return result<T>::from(fetch_bits(d, (int)floorf(u), dims > 1 ? (int)floorf(v) : 0,
						  dims > 2 ? (int)floorf(w) : 0));
	}
};

template <class T>
SIMT_TEX_DEVICE T read(cudaTextureObject_t t, float u, float v, float w, int dims)
{
	return reader<result<T>::floating>::template read<T>(desc(t), u, v, w, dims);
}

} // namespace simt_tex

/* An element of linear memory by index: no filtering, no normalization of
 * the coordinate, clamped (or border) at the ends. */
template <class T> SIMT_TEX_DEVICE T tex1Dfetch(cudaTextureObject_t t, int x)
{
	const simt_texture *d = simt_tex::desc(t);
	if (simt_tex::result<T>::floating)
		return simt_tex::result<T>::from(simt_tex::fetch_float(d, x, 0, 0));
	return simt_tex::result<T>::from(simt_tex::fetch_bits(d, x, 0, 0));
}
template <class T> SIMT_TEX_DEVICE T tex1D(cudaTextureObject_t t, float x)
{
	return simt_tex::read<T>(t, x, 0.f, 0.f, 1);
}
template <class T> SIMT_TEX_DEVICE T tex2D(cudaTextureObject_t t, float x, float y)
{
	return simt_tex::read<T>(t, x, y, 0.f, 2);
}
template <class T> SIMT_TEX_DEVICE T tex3D(cudaTextureObject_t t, float x, float y, float z)
{
	return simt_tex::read<T>(t, x, y, z, 3);
}
template <class T> SIMT_TEX_DEVICE void tex1Dfetch(T *out, cudaTextureObject_t t, int x)
{
	*out = tex1Dfetch<T>(t, x);
}
template <class T> SIMT_TEX_DEVICE void tex1D(T *out, cudaTextureObject_t t, float x)
{
	*out = tex1D<T>(t, x);
}
template <class T> SIMT_TEX_DEVICE void tex2D(T *out, cudaTextureObject_t t, float x, float y)
{
	*out = tex2D<T>(t, x, y);
}
template <class T>
SIMT_TEX_DEVICE void tex3D(T *out, cudaTextureObject_t t, float x, float y, float z)
{
	*out = tex3D<T>(t, x, y, z);
}

#undef SIMT_TEX_DEVICE
#undef SIMT_TEX_MEMBER

#endif /* __CUDA__ && __cplusplus */
#endif /* SIMTGPU_CUDA_TEXTURE_INDIRECT_FUNCTIONS_H */
