// SPDX-License-Identifier: MIT
// multi_module: a program of two CUDA translation units compiled separately
// (simtcc -c) and a C++ main, linked by simtcc. Each .cu registers its own
// device image; both live in the same context.
#include <cuda_runtime.h>

#include "../test_util.h"

void squares(int *device_data, int n, int b);
void negate(int *device_data, int n, int scale, int b);

int main()
{
	const int n = 1000;
	int host[n], out[n];
	for (int i = 0; i < n; ++i)
		host[i] = i % 91 - 45;
	int *data;
	CHECK_CUDA(cudaMalloc(&data, sizeof(host)));
	CHECK_CUDA(cudaMemcpy(data, host, sizeof(host), cudaMemcpyHostToDevice));
	squares(data, n, 7);
	negate(data, n, 3, -2);
	squares(data, n, 1);
	CHECK_CUDA(cudaMemcpy(out, data, sizeof(out), cudaMemcpyDeviceToHost));
	bool ok = true;
	for (int i = 0; i < n; ++i) {
		long long v = host[i];
		v = v * v + 7;
		v = -v * 3 - 2;
		v = v * v + 1;
		ok &= out[i] == static_cast<int>(v);
	}
	return report("multi_module", ok);
}
