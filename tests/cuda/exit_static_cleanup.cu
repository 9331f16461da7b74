// SPDX-License-Identifier: MIT
// A global object that owns a stream, an event and memory and releases them
// in its destructor. It is constructed before main, so (as in CUDA) its
// destructor runs after the runtime's exit-time shutdown has destroyed the
// context: every call must then return cudaErrorCudartUnloading rather than
// touch what is gone. Expected: "exit_static_cleanup: PASS", then
// "exit_static_cleanup: cleanup after shutdown: cudaErrorCudartUnloading",
// exit status 0. Both lines are checked (by ctest and the guest's 40-cuda.sh):
// expect-output: ^exit_static_cleanup: PASS$
// expect-output: ^exit_static_cleanup: cleanup after shutdown: cudaErrorCudartUnloading$
#include "test_util.h"

__global__ void fill(int *data, int value) { data[threadIdx.x] = value; }

struct GlobalResources {
	cudaStream_t stream = nullptr;
	cudaEvent_t event = nullptr;
	int *device = nullptr;
	int *pinned = nullptr;

	~GlobalResources()
	{
		cudaError_t results[] = {
			cudaEventSynchronize(event), cudaEventDestroy(event), cudaStreamSynchronize(stream),
			cudaStreamDestroy(stream), cudaFree(device), cudaFreeHost(pinned),
			cudaDeviceSynchronize(),
		};
		for (cudaError_t r : results)
			if (r != cudaErrorCudartUnloading) {
				std::printf("exit_static_cleanup: FAIL: cleanup after shutdown gave %s\n",
					    cudaGetErrorName(r));
				std::fflush(stdout);
				std::_Exit(1); // exit() has begun: end here with the verdict
			}
		std::printf("exit_static_cleanup: cleanup after shutdown: cudaErrorCudartUnloading\n");
	}
};

GlobalResources resources;

int main()
{
	CHECK_CUDA(cudaStreamCreate(&resources.stream));
	CHECK_CUDA(cudaEventCreate(&resources.event));
	CHECK_CUDA(cudaMalloc(&resources.device, 32 * sizeof(int)));
	CHECK_CUDA(cudaMallocHost(&resources.pinned, 32 * sizeof(int)));
	fill<<<1, 32, 0, resources.stream>>>(resources.device, 7);
	CHECK_CUDA(cudaMemcpyAsync(resources.pinned, resources.device, 32 * sizeof(int),
				   cudaMemcpyDeviceToHost, resources.stream));
	CHECK_CUDA(cudaEventRecord(resources.event, resources.stream));
	CHECK_CUDA(cudaEventSynchronize(resources.event));
	bool ok = true;
	for (int i = 0; i < 32; ++i)
		ok &= resources.pinned[i] == 7;
	return report("exit_static_cleanup", ok);
}
