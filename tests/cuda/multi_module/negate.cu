// SPDX-License-Identifier: MIT
// The second translation unit of the multi_module test (see squares.cu).
#include "../test_util.h"

namespace {
__constant__ int bias;
}

__global__ void transform(int *data, int n, int scale)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		data[i] = -data[i] * scale + bias;
}

void negate(int *device_data, int n, int scale, int b)
{
	CHECK_CUDA(cudaMemcpyToSymbol(bias, &b, sizeof(b)));
	transform<<<(n + 127) / 128, 128>>>(device_data, n, scale);
	CHECK_LAUNCH();
}
