// SPDX-License-Identifier: MIT
// Relocatable device code whose extern __device__ function and variable no
// object defines: the device link must name both and this object.
extern __device__ int undefined_scale;
extern __device__ int undefined_twice(int);

__global__ void use_them(int *out)
{
	out[threadIdx.x] = undefined_twice(threadIdx.x) * undefined_scale;
}
