// Failure: illegal address. A kernel writes far past the end of its buffer,
// into GPU virtual memory nothing is mapped at: the device raises a page
// fault, the kernel driver logs it (like NVIDIA's Xid 31) and fails the job,
// and the runtime returns cudaErrorIllegalAddress. docs/failures.md.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void write_past_the_end(int *data, size_t n)
{
	size_t i = blockIdx.x * blockDim.x + threadIdx.x;
	// Bug: the index is scaled by mistake, so thread 1 and up land 4 GiB
	// per thread past the 4 KiB buffer, where nothing is mapped.
	data[i * (size_t(1) << 30)] = int(i);
	(void)n;
}

int main()
{
	const size_t n = 1024;
	int *data = nullptr;
	cudaError_t err = cudaMalloc(&data, n * sizeof(int));
	if (err != cudaSuccess) {
		std::printf("cudaMalloc: %s\n", cudaGetErrorString(err));
		return 2;
	}
	std::printf("launching write_past_the_end on a %zu-byte buffer at %p\n", n * sizeof(int),
		    static_cast<void *>(data));
	write_past_the_end<<<1, 32>>>(data, n);
	err = cudaDeviceSynchronize();
	std::printf("cudaDeviceSynchronize: %s: %s\n", cudaGetErrorName(err), cudaGetErrorString(err));
	if (err == cudaSuccess)
		return 0;
	// The error is sticky: the context is unusable from now on.
	err = cudaMemset(data, 0, n * sizeof(int));
	std::printf("cudaMemset afterwards: %s\n", cudaGetErrorName(err));
	return 1;
}
