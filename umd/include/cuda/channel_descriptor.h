/* SPDX-License-Identifier: MIT */
/* cudaCreateChannelDesc<T>(): the channel format of a C type or CUDA vector
 * type, as NVIDIA's channel_descriptor.h gives it. */
#ifndef SIMTGPU_CUDA_CHANNEL_DESCRIPTOR_H
#define SIMTGPU_CUDA_CHANNEL_DESCRIPTOR_H
#define __CHANNEL_DESCRIPTOR_H__

#include "cuda_runtime_api.h"

#ifdef __cplusplus

template <class T> __host__ cudaChannelFormatDesc cudaCreateChannelDesc(void)
{
	return cudaCreateChannelDesc(0, 0, 0, 0, cudaChannelFormatKindNone);
}

#define SIMT_CHANNEL_SCALAR(T, bits, kind)                                                         \
	template <> inline __host__ cudaChannelFormatDesc cudaCreateChannelDesc<T>(void)            \
	{                                                                                           \
		return cudaCreateChannelDesc(bits, 0, 0, 0, kind);                                  \
	}
SIMT_CHANNEL_SCALAR(char, 8, cudaChannelFormatKindSigned)
SIMT_CHANNEL_SCALAR(signed char, 8, cudaChannelFormatKindSigned)
SIMT_CHANNEL_SCALAR(unsigned char, 8, cudaChannelFormatKindUnsigned)
SIMT_CHANNEL_SCALAR(short, 16, cudaChannelFormatKindSigned)
SIMT_CHANNEL_SCALAR(unsigned short, 16, cudaChannelFormatKindUnsigned)
SIMT_CHANNEL_SCALAR(int, 32, cudaChannelFormatKindSigned)
SIMT_CHANNEL_SCALAR(unsigned int, 32, cudaChannelFormatKindUnsigned)
SIMT_CHANNEL_SCALAR(float, 32, cudaChannelFormatKindFloat)
#undef SIMT_CHANNEL_SCALAR
#define SIMT_CHANNEL_VECTORS(V, bits, kind)                                                        \
	template <> inline __host__ cudaChannelFormatDesc cudaCreateChannelDesc<V##1>(void)         \
	{                                                                                           \
		return cudaCreateChannelDesc(bits, 0, 0, 0, kind);                                  \
	}                                                                                           \
	template <> inline __host__ cudaChannelFormatDesc cudaCreateChannelDesc<V##2>(void)         \
	{                                                                                           \
		return cudaCreateChannelDesc(bits, bits, 0, 0, kind);                               \
	}                                                                                           \
	template <> inline __host__ cudaChannelFormatDesc cudaCreateChannelDesc<V##4>(void)         \
	{                                                                                           \
		return cudaCreateChannelDesc(bits, bits, bits, bits, kind);                         \
	}
SIMT_CHANNEL_VECTORS(char, 8, cudaChannelFormatKindSigned)
SIMT_CHANNEL_VECTORS(uchar, 8, cudaChannelFormatKindUnsigned)
SIMT_CHANNEL_VECTORS(short, 16, cudaChannelFormatKindSigned)
SIMT_CHANNEL_VECTORS(ushort, 16, cudaChannelFormatKindUnsigned)
SIMT_CHANNEL_VECTORS(int, 32, cudaChannelFormatKindSigned)
SIMT_CHANNEL_VECTORS(uint, 32, cudaChannelFormatKindUnsigned)
SIMT_CHANNEL_VECTORS(float, 32, cudaChannelFormatKindFloat)
#undef SIMT_CHANNEL_VECTORS

#endif /* __cplusplus */
#endif /* SIMTGPU_CUDA_CHANNEL_DESCRIPTOR_H */
