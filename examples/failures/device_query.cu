// The first thing most CUDA programs do: find the devices. Used by the
// "no module / no device" and "driver and runtime mismatch" failures, where
// this is where a program first notices. docs/failures.md.
#include <cstdio>
#include <cuda_runtime.h>

int main()
{
	int count = 0;
	cudaError_t err = cudaGetDeviceCount(&count);
	if (err != cudaSuccess) {
		std::printf("cudaGetDeviceCount: %s: %s\n", cudaGetErrorName(err),
			    cudaGetErrorString(err));
		return 1;
	}
	for (int d = 0; d < count; ++d) {
		cudaDeviceProp prop;
		cudaGetDeviceProperties(&prop, d);
		std::printf("device %d: %s, %zu MiB, %d SMs\n", d, prop.name, prop.totalGlobalMem >> 20,
			    prop.multiProcessorCount);
	}
	return 0;
}
