// Failure: out of VRAM. The program asks for more device memory than is
// free: cudaMalloc returns cudaErrorMemoryAllocation and the runtime says
// how many bytes were asked for and how much VRAM is in use.
// docs/failures.md.
#include <cstdio>
#include <cuda_runtime.h>

int main()
{
	size_t free_bytes = 0, total_bytes = 0;
	cudaError_t err = cudaMemGetInfo(&free_bytes, &total_bytes);
	if (err != cudaSuccess) {
		std::printf("cudaMemGetInfo: %s\n", cudaGetErrorString(err));
		return 2;
	}
	std::printf("VRAM: %zu MiB free of %zu MiB\n", free_bytes >> 20, total_bytes >> 20);
	// Bug: the buffer is sized for a bigger GPU.
	size_t want = total_bytes + (total_bytes >> 1);
	void *buffer = nullptr;
	err = cudaMalloc(&buffer, want);
	std::printf("cudaMalloc(%zu MiB): %s: %s\n", want >> 20, cudaGetErrorName(err),
		    cudaGetErrorString(err));
	if (err == cudaSuccess)
		return 0;
	// Not sticky: the next, smaller allocation works.
	cudaGetLastError();
	err = cudaMalloc(&buffer, 1 << 20);
	std::printf("cudaMalloc(1 MiB) afterwards: %s\n", cudaGetErrorName(err));
	return 1;
}
