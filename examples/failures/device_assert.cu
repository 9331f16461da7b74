// Failure: device-side assert. One thread's assert() fails: the device
// stops the kernel, the runtime prints the assertion with its file, line,
// block and thread, and returns cudaErrorAssert. docs/failures.md.
#include <cassert>
#include <cstdio>
#include <cuda_runtime.h>

__global__ void normalise(const float *weights, float *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	// The input is supposed to hold positive weights only.
	assert(weights[i] > 0.0f);
	out[i] = 1.0f / weights[i];
}

int main()
{
	const int n = 256;
	float host[n];
	for (int i = 0; i < n; ++i)
		host[i] = i == 77 ? 0.0f : float(i + 1); // Bug: one zero weight
	float *weights = nullptr, *out = nullptr;
	cudaError_t err = cudaMalloc(&weights, sizeof(host));
	if (err == cudaSuccess)
		err = cudaMalloc(&out, sizeof(host));
	if (err == cudaSuccess)
		err = cudaMemcpy(weights, host, sizeof(host), cudaMemcpyHostToDevice);
	if (err != cudaSuccess) {
		std::printf("setup: %s\n", cudaGetErrorString(err));
		return 2;
	}
	normalise<<<2, 128>>>(weights, out, n);
	err = cudaDeviceSynchronize();
	std::printf("cudaDeviceSynchronize: %s: %s\n", cudaGetErrorName(err), cudaGetErrorString(err));
	return err == cudaSuccess ? 0 : 1;
}
