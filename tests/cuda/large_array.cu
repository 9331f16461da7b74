// SPDX-License-Identifier: MIT
// Arrays of the sizes real programs use, on a device with a real GPU's VRAM
// (16 GiB by default, backed by the host only where touched):
//  - 2^27 floats (512 MiB, as public benchmarks use): a scale and offset over
//    all of it with a grid-stride loop, checked element by element;
//  - one 6 GiB buffer, past every 32-bit byte offset: a kernel marks sparse
//    elements across it with 64-bit indexes, read back one by one;
//  - more than the whole VRAM: cudaErrorMemoryAllocation, with a message that
//    names the size asked and the VRAM's size; smaller allocations still work.
// An optional argument sets the first array's length (bench/cuda_bench.py).
#include "test_util.h"

#include <cstddef>
#include <string>
#include <unistd.h>

__global__ void scale_offset(float *a, size_t n, float scale, float offset)
{
	for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
	     i += size_t(gridDim.x) * blockDim.x)
		a[i] = a[i] * scale + offset;
}

static __host__ __device__ float mark_value(size_t i)
{
	return float(i) + 0.5f; // exact for the few thousand marks used
}

// Element i * stride for i < count, and the last of n, get their marks.
__global__ void mark(float *a, size_t n, size_t stride, size_t count)
{
	size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
	if (i < count)
		a[i * stride] = mark_value(i);
	if (i == 0)
		a[n - 1] = -1.0f;
}

static bool scale_offset_all(size_t n)
{
	float *a = new float[n];
	for (size_t i = 0; i < n; ++i)
		a[i] = float(i & 0xffff);
	float *da;
	CHECK_CUDA(cudaMalloc(&da, n * sizeof(float)));
	CHECK_CUDA(cudaMemcpy(da, a, n * sizeof(float), cudaMemcpyHostToDevice));
	scale_offset<<<1024, 256>>>(da, n, 2.0f, 1.0f);
	CHECK_LAUNCH();
	CHECK_CUDA(cudaMemcpy(a, da, n * sizeof(float), cudaMemcpyDeviceToHost));
	bool ok = true;
	for (size_t i = 0; i < n; ++i)
		ok &= a[i] == float(i & 0xffff) * 2.0f + 1.0f;
	CHECK_CUDA(cudaFree(da));
	delete[] a;
	if (!ok)
		std::printf("large_array: wrong values in the 2^27-float array\n");
	return ok;
}

static bool beyond_4_gib()
{
	const size_t bytes = size_t(6) << 30, n = bytes / sizeof(float);
	const size_t stride = size_t(4) << 20, count = n / stride; // every 16 MiB
	float *da;
	CHECK_CUDA(cudaMalloc(&da, bytes));
	mark<<<(count + 127) / 128, 128>>>(da, n, stride, count);
	CHECK_LAUNCH();
	bool ok = true;
	for (size_t i = 0; i < count; ++i) {
		float v = 0;
		CHECK_CUDA(cudaMemcpy(&v, da + i * stride, sizeof v, cudaMemcpyDeviceToHost));
		ok &= v == mark_value(i);
	}
	float last = 0;
	CHECK_CUDA(cudaMemcpy(&last, da + n - 1, sizeof last, cudaMemcpyDeviceToHost));
	ok &= last == -1.0f;
	CHECK_CUDA(cudaFree(da));
	if (!ok)
		std::printf("large_array: wrong marks in the 6 GiB buffer\n");
	return ok;
}

// What cudaMalloc(bytes) returns, and what the runtime says on stderr.
static cudaError_t malloc_and_message(size_t bytes, std::string *message)
{
	std::fflush(stderr);
	FILE *capture = std::tmpfile();
	const int saved = dup(2);
	if (!capture || saved < 0 || dup2(fileno(capture), 2) < 0) {
		std::printf("large_array: cannot capture stderr\n");
		std::exit(1);
	}
	void *p = nullptr;
	const cudaError_t error = cudaMalloc(&p, bytes);
	std::fflush(stderr);
	dup2(saved, 2);
	close(saved);
	std::rewind(capture);
	char buf[512];
	while (std::fgets(buf, sizeof buf, capture))
		*message += buf;
	std::fclose(capture);
	if (error == cudaSuccess)
		cudaFree(p);
	return error;
}

static bool more_than_vram()
{
	size_t free_bytes = 0, total_bytes = 0;
	CHECK_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
	const size_t too_much = total_bytes + (size_t(1) << 30);
	std::string message;
	const cudaError_t error = malloc_and_message(too_much, &message);
	bool ok = error == cudaErrorMemoryAllocation;
	ok &= message.find("allocating " + std::to_string(too_much) + " bytes") !=
	      std::string::npos;
	ok &= message.find(" of " + std::to_string(total_bytes) + " bytes of VRAM") !=
	      std::string::npos;
	cudaGetLastError(); // not sticky: clear it, and allocate again
	void *p = nullptr;
	ok &= cudaMalloc(&p, size_t(1) << 20) == cudaSuccess;
	cudaFree(p);
	if (!ok)
		std::printf("large_array: cudaMalloc(%zu) of %zu bytes of VRAM: %s, said: %s\n",
			    too_much, total_bytes, cudaGetErrorName(error), message.c_str());
	return ok;
}

int main(int argc, char **argv)
{
	const size_t n = argc > 1 ? std::strtoull(argv[1], nullptr, 0) : size_t(1) << 27;
	bool ok = scale_offset_all(n);
	ok &= beyond_4_gib();
	ok &= more_than_vram();
	return report("large_array", ok);
}
