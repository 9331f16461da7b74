// SPDX-License-Identifier: MIT
// Zero-copy memory, as simpleZeroCopy uses it: host arrays registered with
// cudaHostRegister (from malloc, so not page aligned) and allocated with
// cudaHostAlloc(Mapped); a kernel reads and writes them through their device
// pointers with no copy, checked against the same arithmetic on the host.
#include "test_util.h"

#include <cstdlib>
#include <cstring>

__global__ void saxpy(const float *x, float *y, int n, float a)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = a * x[i] + y[i];
}

int main()
{
	const int n = 100003;
	bool ok = true;
	float *x = static_cast<float *>(std::malloc(n * sizeof(float)));
	float *y = nullptr;
	CHECK_CUDA(cudaHostAlloc(&y, n * sizeof(float), cudaHostAllocMapped));
	float *expect = new float[n];
	for (int i = 0; i < n; ++i) {
		x[i] = float(i % 1000) * 0.5f;
		y[i] = float(i % 7);
		expect[i] = 3.0f * x[i] + y[i];
	}
	CHECK_CUDA(cudaHostRegister(x, n * sizeof(float), cudaHostRegisterMapped));
	float *dx = nullptr, *dy = nullptr;
	CHECK_CUDA(cudaHostGetDevicePointer((void **)&dx, x, 0));
	CHECK_CUDA(cudaHostGetDevicePointer((void **)&dy, y, 0));
	saxpy<<<(n + 255) / 256, 256>>>(dx, dy, n, 3.0f);
	CHECK_LAUNCH();
	CHECK_CUDA(cudaDeviceSynchronize());
	for (int i = 0; i < n; ++i)
		ok &= y[i] == expect[i];

	// Registering part of it again, or unregistering what is not a
	// registration, fail with CUDA's errors; the first stays usable.
	ok &= cudaHostRegister(x + 100, 64, 0) == cudaErrorHostMemoryAlreadyRegistered;
	ok &= cudaHostUnregister(x + 1) == cudaErrorHostMemoryNotRegistered;
	cudaGetLastError();
	int can_map = 0;
	CHECK_CUDA(cudaDeviceGetAttribute(&can_map, cudaDevAttrCanMapHostMemory, 0));
	ok &= can_map == 1;

	// Host writes between launches are seen by the next one.
	for (int i = 0; i < n; ++i)
		x[i] = 1.0f;
	saxpy<<<(n + 255) / 256, 256>>>(dx, dy, n, 2.0f);
	CHECK_LAUNCH();
	CHECK_CUDA(cudaDeviceSynchronize());
	for (int i = 0; i < n; ++i)
		ok &= y[i] == expect[i] + 2.0f;

	CHECK_CUDA(cudaHostUnregister(x));
	CHECK_CUDA(cudaFreeHost(y));
	std::free(x);
	delete[] expect;
	return report("zero_copy", ok);
}
