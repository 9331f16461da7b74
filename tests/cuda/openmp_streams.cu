// SPDX-License-Identifier: MIT
// Host OpenMP with CUDA, as NVIDIA's cudaOpenMP sample uses it: several host
// threads share the device, each launching on its own stream over its slice
// of one array, compared with the CPU.
// simtcc-flags: -Xcompiler -fopenmp
#include <cuda_runtime.h>
#include <omp.h>

#include <vector>

#include "test_util.h"

__global__ void add_thread_id(int *data, int n, int id)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		data[i] = data[i] * 3 + id;
}

int main()
{
	const int threads = 4, per_thread = 4096, n = threads * per_thread;
	std::vector<int> host(n), expected(n);
	for (int i = 0; i < n; ++i) {
		host[i] = i;
		expected[i] = i * 3 + i / per_thread;
	}
	int *device = nullptr;
	CHECK_CUDA(cudaMalloc(&device, n * sizeof(int)));
	omp_set_num_threads(threads);
	int ran = 0, failures = 0;
#pragma omp parallel reduction(+ : ran, failures)
	{
		const int id = omp_get_thread_num();
		int *slice = device + id * per_thread;
		cudaStream_t stream;
		bool ok = cudaSetDevice(0) == cudaSuccess && cudaStreamCreate(&stream) == cudaSuccess;
		if (ok) {
			ok = cudaMemcpyAsync(slice, host.data() + id * per_thread, per_thread * sizeof(int),
					     cudaMemcpyHostToDevice, stream) == cudaSuccess;
			add_thread_id<<<per_thread / 256, 256, 0, stream>>>(slice, per_thread, id);
			ok = ok && cudaGetLastError() == cudaSuccess &&
			     cudaMemcpyAsync(host.data() + id * per_thread, slice,
					     per_thread * sizeof(int), cudaMemcpyDeviceToHost,
					     stream) == cudaSuccess &&
			     cudaStreamSynchronize(stream) == cudaSuccess &&
			     cudaStreamDestroy(stream) == cudaSuccess;
		}
		ran += 1;
		failures += ok ? 0 : 1;
	}
	CHECK_CUDA(cudaFree(device));
	int wrong = 0;
	for (int i = 0; i < n; ++i)
		wrong += host[i] != expected[i];
	std::printf("%d OpenMP threads ran, %d failed a CUDA call, %d of %d values wrong\n", ran,
		    failures, wrong, n);
	return report("openmp_streams", ran == threads && failures == 0 && wrong == 0);
}
