/* SPDX-License-Identifier: MIT */
/*
 * CUDA's built-in vector types (char1..double4, dim3) and their make_
 * functions, for host and device code. Layout and alignment follow NVIDIA's
 * vector_types.h, so structs passed to kernels match on both sides.
 */
#ifndef SIMT_VECTOR_TYPES_H
#define SIMT_VECTOR_TYPES_H

#include "simt_qualifiers.h"

#define SIMT_VEC1(T, N, A) struct __attribute__((aligned(A))) N##1 { T x; };
#define SIMT_VEC2(T, N, A) struct __attribute__((aligned(A))) N##2 { T x, y; };
#define SIMT_VEC3(T, N) struct N##3 { T x, y, z; };
#define SIMT_VEC4(T, N, A) struct __attribute__((aligned(A))) N##4 { T x, y, z, w; };
#define SIMT_VECS(T, N, A1, A2, A4) \
	SIMT_VEC1(T, N, A1) SIMT_VEC2(T, N, A2) SIMT_VEC3(T, N) SIMT_VEC4(T, N, A4) \
	typedef struct N##1 N##1; typedef struct N##2 N##2; \
	typedef struct N##3 N##3; typedef struct N##4 N##4;

SIMT_VECS(signed char, char, 1, 2, 4)
SIMT_VECS(unsigned char, uchar, 1, 2, 4)
SIMT_VECS(short, short, 2, 4, 8)
SIMT_VECS(unsigned short, ushort, 2, 4, 8)
SIMT_VECS(int, int, 4, 8, 16)
SIMT_VECS(unsigned int, uint, 4, 8, 16)
SIMT_VECS(long, long, 8, 16, 16)
SIMT_VECS(unsigned long, ulong, 8, 16, 16)
SIMT_VECS(long long, longlong, 8, 16, 16)
SIMT_VECS(unsigned long long, ulonglong, 8, 16, 16)
SIMT_VECS(float, float, 4, 8, 16)
SIMT_VECS(double, double, 8, 16, 16)

#undef SIMT_VECS
#undef SIMT_VEC1
#undef SIMT_VEC2
#undef SIMT_VEC3
#undef SIMT_VEC4

#define SIMT_MAKE(N, T) \
	static inline __host__ __device__ N##1 make_##N##1(T x) { N##1 v = {x}; return v; } \
	static inline __host__ __device__ N##2 make_##N##2(T x, T y) { N##2 v = {x, y}; return v; } \
	static inline __host__ __device__ N##3 make_##N##3(T x, T y, T z) { N##3 v = {x, y, z}; return v; } \
	static inline __host__ __device__ N##4 make_##N##4(T x, T y, T z, T w) { N##4 v = {x, y, z, w}; return v; }

SIMT_MAKE(char, signed char)
SIMT_MAKE(uchar, unsigned char)
SIMT_MAKE(short, short)
SIMT_MAKE(ushort, unsigned short)
SIMT_MAKE(int, int)
SIMT_MAKE(uint, unsigned int)
SIMT_MAKE(long, long)
SIMT_MAKE(ulong, unsigned long)
SIMT_MAKE(longlong, long long)
SIMT_MAKE(ulonglong, unsigned long long)
SIMT_MAKE(float, float)
SIMT_MAKE(double, double)
#undef SIMT_MAKE

#ifdef __cplusplus
/* Launch geometry: unspecified components default to 1. */
struct dim3 {
	unsigned int x, y, z;
	__host__ __device__ constexpr dim3(unsigned int vx = 1, unsigned int vy = 1,
					   unsigned int vz = 1)
		: x(vx), y(vy), z(vz) {}
	__host__ __device__ constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
	__host__ __device__ constexpr operator uint3() const { return uint3{x, y, z}; }
};
#else
typedef struct dim3 { unsigned int x, y, z; } dim3;
#endif

#endif /* SIMT_VECTOR_TYPES_H */
