/* SPDX-License-Identifier: MIT */
/*
 * Clang's __clang_cuda_intrinsics.h includes this CUDA SDK header after it
 * defines __match32/64_any/all_sync; as in the SDK, it adds CUDA's
 * overloaded __match_any_sync and __match_all_sync on every 32- and 64-bit
 * type (floating-point values compared by their bits). simtcc maps them to
 * the match instruction (docs/isa.md, docs/simtcc.md).
 */
#ifndef SIMT_CRT_SM_70_RT_HPP
#define SIMT_CRT_SM_70_RT_HPP

#define SIMT_MATCH_DEVICE static __device__ __forceinline__

/* sm_70's __nanosleep: the warp issues nothing for about __ns ns (at most
 * 1 ms), the back-off of a spin loop; simtcc maps it to warp.nanosleep. */
SIMT_MATCH_DEVICE void __nanosleep(unsigned int __ns)
{
	asm volatile("nanosleep.u32 %0;" ::"r"(__ns)); /* as NVIDIA's header: clang 16 has no builtin */
}

SIMT_MATCH_DEVICE unsigned int __match_any_sync(unsigned __mask, unsigned int __value)
{
	return __match32_any_sync(__mask, __value);
}
SIMT_MATCH_DEVICE unsigned int __match_any_sync(unsigned __mask, int __value)
{
	return __match32_any_sync(__mask, (unsigned int)__value);
}
SIMT_MATCH_DEVICE unsigned int __match_any_sync(unsigned __mask, unsigned long __value)
{
	return sizeof(long) == sizeof(long long)
		       ? __match64_any_sync(__mask, (unsigned long long)__value)
		       : __match32_any_sync(__mask, (unsigned int)__value);
}
SIMT_MATCH_DEVICE unsigned int __match_any_sync(unsigned __mask, long __value)
{
	return __match_any_sync(__mask, (unsigned long)__value);
}
SIMT_MATCH_DEVICE unsigned int __match_any_sync(unsigned __mask, unsigned long long __value)
{
	return __match64_any_sync(__mask, __value);
}
SIMT_MATCH_DEVICE unsigned int __match_any_sync(unsigned __mask, long long __value)
{
	return __match64_any_sync(__mask, (unsigned long long)__value);
}
SIMT_MATCH_DEVICE unsigned int __match_any_sync(unsigned __mask, float __value)
{
	return __match32_any_sync(__mask, __float_as_uint(__value));
}
SIMT_MATCH_DEVICE unsigned int __match_any_sync(unsigned __mask, double __value)
{
	return __match64_any_sync(__mask, (unsigned long long)__double_as_longlong(__value));
}

SIMT_MATCH_DEVICE unsigned int __match_all_sync(unsigned __mask, unsigned int __value, int *__pred)
{
	return __match32_all_sync(__mask, __value, __pred);
}
SIMT_MATCH_DEVICE unsigned int __match_all_sync(unsigned __mask, int __value, int *__pred)
{
	return __match32_all_sync(__mask, (unsigned int)__value, __pred);
}
SIMT_MATCH_DEVICE unsigned int __match_all_sync(unsigned __mask, unsigned long __value,
						int *__pred)
{
	return sizeof(long) == sizeof(long long)
		       ? __match64_all_sync(__mask, (unsigned long long)__value, __pred)
		       : __match32_all_sync(__mask, (unsigned int)__value, __pred);
}
SIMT_MATCH_DEVICE unsigned int __match_all_sync(unsigned __mask, long __value, int *__pred)
{
	return __match_all_sync(__mask, (unsigned long)__value, __pred);
}
SIMT_MATCH_DEVICE unsigned int __match_all_sync(unsigned __mask, unsigned long long __value,
						int *__pred)
{
	return __match64_all_sync(__mask, __value, __pred);
}
SIMT_MATCH_DEVICE unsigned int __match_all_sync(unsigned __mask, long long __value, int *__pred)
{
	return __match64_all_sync(__mask, (unsigned long long)__value, __pred);
}
SIMT_MATCH_DEVICE unsigned int __match_all_sync(unsigned __mask, float __value, int *__pred)
{
	return __match32_all_sync(__mask, __float_as_uint(__value), __pred);
}
SIMT_MATCH_DEVICE unsigned int __match_all_sync(unsigned __mask, double __value, int *__pred)
{
	return __match64_all_sync(__mask, (unsigned long long)__double_as_longlong(__value),
				  __pred);
}

#undef SIMT_MATCH_DEVICE

#endif /* SIMT_CRT_SM_70_RT_HPP */
