// Failure: unsupported GPU. This program is built with simtcc's default
// -arch (the newest, simt_2); on a simt_1 device there is no kernel image it
// can run, and the launch fails with cudaErrorNoKernelImageForDevice.
// docs/failures.md.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void scale(float *x, float a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] *= a;
}

int main()
{
	cudaDeviceProp prop;
	cudaError_t err = cudaGetDeviceProperties(&prop, 0);
	if (err != cudaSuccess) {
		std::printf("cudaGetDeviceProperties: %s\n", cudaGetErrorString(err));
		return 2;
	}
	std::printf("device: %s, compute capability %d.%d\n", prop.name, prop.major, prop.minor);
	float *x = nullptr;
	err = cudaMalloc(&x, 256 * sizeof(float));
	if (err != cudaSuccess) {
		std::printf("cudaMalloc: %s\n", cudaGetErrorString(err));
		return 2;
	}
	scale<<<1, 256>>>(x, 2.0f, 256);
	err = cudaGetLastError();
	std::printf("launch: %s: %s\n", cudaGetErrorName(err), cudaGetErrorString(err));
	if (err == cudaSuccess)
		err = cudaDeviceSynchronize();
	return err == cudaSuccess ? 0 : 1;
}
