// SPDX-License-Identifier: MIT
// Unified addressing of page-locked host memory, as NVIDIA's
// UnifiedMemoryPerf and much real code use it: pointers from cudaMallocHost,
// cudaHostAlloc(Mapped) and cudaHostRegister (malloc'd and global arrays)
// go straight to kernels, with no cudaHostGetDevicePointer, which returns the
// same pointer anyway. Results are checked against the same arithmetic on
// the host; cudaPointerGetAttributes, the device properties, copies of
// cudaMemcpyDefault and bad registrations are checked too.
#include "test_util.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <sys/mman.h>
#include <unistd.h>

__global__ void saxpy(const float *x, float *y, int n, float a)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = a * x[i] + y[i];
}

__global__ void add_one(int *v, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		v[i] += 1;
}

// A global array, at the program's own (low, non-mmap) addresses.
static int global_values[3000];

static bool launch_add_one(int *v, int n)
{
	add_one<<<(n + 127) / 128, 128>>>(v, n);
	return cudaGetLastError() == cudaSuccess && cudaDeviceSynchronize() == cudaSuccess;
}

int main()
{
	bool ok = true;
	const int n = 50000;
	const size_t bytes = n * sizeof(float);

	int unified = 0, attr = 0;
	cudaDeviceProp prop;
	CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
	CHECK_CUDA(cudaDeviceGetAttribute(&attr, cudaDevAttrUnifiedAddressing, 0));
	unified = prop.unifiedAddressing;
	if (unified != 1 || attr != 1) {
		std::printf("unifiedAddressing is %d (attribute %d), expected 1\n", unified, attr);
		return report("unified_addressing", false);
	}

	// cudaMallocHost: read by the kernel through the host pointer.
	float *x = nullptr, *y = nullptr, *d_y = nullptr;
	CHECK_CUDA(cudaMallocHost(&x, bytes));
	CHECK_CUDA(cudaHostAlloc(&y, bytes, cudaHostAllocMapped | cudaHostAllocPortable));
	CHECK_CUDA(cudaMalloc(&d_y, bytes));
	// Device memory lies above every address of a 47-bit host process.
	ok &= reinterpret_cast<uintptr_t>(d_y) >= (uintptr_t(1) << 47);
	float *expect = new float[n];
	for (int i = 0; i < n; ++i) {
		x[i] = float(i % 1000) * 0.25f;
		y[i] = float(i % 13);
		expect[i] = 2.0f * x[i] + y[i];
	}
	// cudaHostGetDevicePointer gives the pointer itself.
	void *dev = nullptr;
	CHECK_CUDA(cudaHostGetDevicePointer(&dev, y, 0));
	ok &= dev == y;
	CHECK_CUDA(cudaHostGetDevicePointer(&dev, x + 17, 0));
	ok &= dev == x + 17;

	// Pinned x into device d_y, then pinned x into pinned y directly.
	CHECK_CUDA(cudaMemcpy(d_y, y, bytes, cudaMemcpyDefault));
	saxpy<<<(n + 255) / 256, 256>>>(x, d_y, n, 2.0f);
	CHECK_LAUNCH();
	saxpy<<<(n + 255) / 256, 256>>>(x, y, n, 2.0f);
	CHECK_LAUNCH();
	CHECK_CUDA(cudaDeviceSynchronize());
	for (int i = 0; i < n; ++i)
		ok &= y[i] == expect[i];
	// A synchronous copy into pinned memory has landed when it returns.
	std::memset(y, 0, bytes);
	CHECK_CUDA(cudaMemcpy(y, d_y, bytes, cudaMemcpyDefault));
	for (int i = 0; i < n; ++i)
		ok &= y[i] == expect[i];

	// cudaHostRegister of malloc'd memory, not page aligned, in two halves
	// registered apart: they share a page, and each works alone.
	const int m = 10007;
	int *values = static_cast<int *>(std::malloc(m * sizeof(int)));
	for (int i = 0; i < m; ++i)
		values[i] = i * 3;
	const int half = m / 2 + 1;
	CHECK_CUDA(cudaHostRegister(values, half * sizeof(int), cudaHostRegisterDefault));
	CHECK_CUDA(cudaHostRegister(values + half, (m - half) * sizeof(int), cudaHostRegisterMapped));
	ok &= launch_add_one(values, m);
	CHECK_CUDA(cudaHostUnregister(values));
	ok &= launch_add_one(values + half, m - half);
	for (int i = 0; i < m; ++i)
		ok &= values[i] == i * 3 + (i < half ? 1 : 2);
	CHECK_CUDA(cudaHostUnregister(values + half));

	// A global array.
	for (int i = 0; i < 3000; ++i)
		global_values[i] = -i;
	CHECK_CUDA(cudaHostRegister(global_values, sizeof(global_values), 0));
	ok &= launch_add_one(global_values, 3000);
	for (int i = 0; i < 3000; ++i)
		ok &= global_values[i] == 1 - i;

	// cudaPointerGetAttributes.
	cudaPointerAttributes a;
	CHECK_CUDA(cudaPointerGetAttributes(&a, x + 5));
	ok &= a.type == cudaMemoryTypeHost && a.hostPointer == x + 5 && a.devicePointer == x + 5;
	CHECK_CUDA(cudaPointerGetAttributes(&a, global_values + 1));
	ok &= a.type == cudaMemoryTypeHost && a.devicePointer == global_values + 1;
	CHECK_CUDA(cudaPointerGetAttributes(&a, d_y + 3));
	ok &= a.type == cudaMemoryTypeDevice && a.devicePointer == d_y + 3 && !a.hostPointer;
	CHECK_CUDA(cudaPointerGetAttributes(&a, values));
	ok &= a.type == cudaMemoryTypeUnregistered && !a.devicePointer;
	float *managed = nullptr;
	CHECK_CUDA(cudaMallocManaged(&managed, 4096));
	CHECK_CUDA(cudaPointerGetAttributes(&a, managed));
	ok &= a.type == cudaMemoryTypeManaged && a.devicePointer == managed &&
	      a.hostPointer == managed;
	CHECK_CUDA(cudaFree(managed));
	ok &= cudaPointerGetAttributes(nullptr, x) == cudaErrorInvalidValue;

	// Bad inputs: unmapped memory, read-only memory registered writable.
	const long page = sysconf(_SC_PAGESIZE);
	void *gone = mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);
	munmap(gone, 2 * page);
	ok &= cudaHostRegister(gone, page, 0) == cudaErrorInvalidValue;
	void *ro = mmap(nullptr, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ok &= cudaHostRegister(ro, page, 0) == cudaErrorInvalidValue;
	CHECK_CUDA(cudaHostRegister(ro, page, cudaHostRegisterReadOnly));
	CHECK_CUDA(cudaPointerGetAttributes(&a, ro));
	ok &= a.type == cudaMemoryTypeHost && a.devicePointer == ro;
	CHECK_CUDA(cudaHostUnregister(ro));
	munmap(ro, page);
	ok &= cudaHostRegister(nullptr, 64, 0) == cudaErrorInvalidValue;
	cudaGetLastError();

	// The memory works for the device again after a failed registration.
	ok &= launch_add_one(global_values, 3000);
	for (int i = 0; i < 3000; ++i)
		ok &= global_values[i] == 2 - i;
	CHECK_CUDA(cudaHostUnregister(global_values));

	CHECK_CUDA(cudaFree(d_y));
	CHECK_CUDA(cudaFreeHost(x));
	CHECK_CUDA(cudaFreeHost(y));
	std::free(values);
	delete[] expect;
	return report("unified_addressing", ok);
}
