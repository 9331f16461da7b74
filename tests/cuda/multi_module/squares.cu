// SPDX-License-Identifier: MIT
// One of two CUDA translation units of the multi_module test: its own
// device image, with a kernel and a __constant__ of the same name as the
// other unit's (each image has its own symbols).
#include "../test_util.h"

__constant__ int bias;

__global__ void transform(int *data, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		data[i] = data[i] * data[i] + bias;
}

void squares(int *device_data, int n, int b)
{
	CHECK_CUDA(cudaMemcpyToSymbol(bias, &b, sizeof(b)));
	transform<<<(n + 63) / 64, 64>>>(device_data, n);
	CHECK_LAUNCH();
}
