// SPDX-License-Identifier: MIT
// Managed memory (issue 16): cudaMallocManaged gives one pointer for the
// host and kernels. The host fills it, a kernel transforms it in place, the
// host reads the result with no copy, checked against the CPU; the host and
// the device then take turns on one counter (each sees the other's writes);
// a managed array is a kernel argument inside a struct; prefetch, advice and
// stream attachment are accepted for managed memory and refused for other
// pointers; cudaFree releases it; the device reports managedMemory.
#include <vector>

#include "test_util.h"

constexpr int kN = 10000;

__global__ void affine(float *v, float a, float b)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < kN)
		v[i] = a * v[i] + b;
}

__global__ void bump(int *counter) { *counter = *counter * 3 + 1; }

struct Lists {
	int *values;
	int n;
};

__global__ void sum(Lists l, long long *out)
{
	long long s = 0;
	for (int i = 0; i < l.n; ++i)
		s += l.values[i];
	*out = s;
}

int main()
{
	bool ok = true;
	int managed_memory = 0;
	CHECK_CUDA(cudaDeviceGetAttribute(&managed_memory, cudaDevAttrManagedMemory, 0));
	ok = expect(managed_memory == 1, "the device reports managed memory") && ok;

	float *v;
	CHECK_CUDA(cudaMallocManaged(&v, kN * sizeof(float)));
	Rng rng(5);
	std::vector<float> want(kN);
	for (int i = 0; i < kN; ++i) {
		v[i] = rng.uniform(-1.f, 1.f);
		want[i] = 2.f * v[i] - 1.f; // exact products: no FMA question
	}
	cudaStream_t s;
	CHECK_CUDA(cudaStreamCreate(&s));
	CHECK_CUDA(cudaStreamAttachMemAsync(s, v));
	CHECK_CUDA(cudaMemPrefetchAsync(v, kN * sizeof(float), 0, s));
	affine<<<(kN + 255) / 256, 256, 0, s>>>(v, 2.f, -1.f);
	CHECK_CUDA(cudaStreamSynchronize(s));
	CHECK_CUDA(cudaGetLastError());
	for (int i = 0; i < kN; ++i)
		if (v[i] != want[i]) {
			std::printf("v[%d] = %g, want %g\n", i, v[i], want[i]);
			ok = false;
			break;
		}

	int *counter;
	CHECK_CUDA(cudaMallocManaged(&counter, sizeof(int)));
	*counter = 1;
	int host = 1;
	for (int round = 0; round < 5; ++round) {
		bump<<<1, 1>>>(counter);
		CHECK_LAUNCH();
		host = host * 3 + 1;
		*counter += 7; // the host's turn
		host += 7;
	}
	ok = expect(*counter == host, "host and device take turns on one counter") && ok;

	Lists l;
	l.n = 1000;
	CHECK_CUDA(cudaMallocManaged(&l.values, l.n * sizeof(int), cudaMemAttachHost));
	long long *total, expected = 0;
	CHECK_CUDA(cudaMallocManaged(&total, sizeof(long long)));
	for (int i = 0; i < l.n; ++i) {
		l.values[i] = rng.range(-5000, 5000);
		expected += l.values[i];
	}
	sum<<<1, 1>>>(l, total);
	CHECK_LAUNCH();
	ok = expect(*total == expected, "a managed array inside a struct argument") && ok;

	CHECK_CUDA(cudaMemAdvise(v, kN * sizeof(float), cudaMemAdviseSetReadMostly, 0));
	cudaMemLocation host_location{cudaMemLocationTypeHost, 0};
	CHECK_CUDA(cudaMemPrefetchAsync(v, kN * sizeof(float), host_location, 0));
	float *plain;
	CHECK_CUDA(cudaMalloc(&plain, 64));
	ok = expect(cudaMemPrefetchAsync(plain, 64, 0) == cudaErrorInvalidValue,
		    "a prefetch of memory that is not managed is refused") &&
	     ok;
	ok = expect(cudaMemPrefetchAsync(v, (kN + 4096) * sizeof(float), 0) == cudaErrorInvalidValue,
		    "a prefetch past the allocation is refused") &&
	     ok;
	cudaGetLastError();
	CHECK_CUDA(cudaFree(v));
	CHECK_CUDA(cudaFree(counter));
	CHECK_CUDA(cudaFree(l.values));
	CHECK_CUDA(cudaFree(total));
	CHECK_CUDA(cudaFree(plain));
	CHECK_CUDA(cudaStreamDestroy(s));
	return report("managed_memory", ok);
}
