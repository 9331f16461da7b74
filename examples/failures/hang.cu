// Failure: hang. A kernel waits for a flag that nothing ever sets. The
// kernel driver sees the GPU make no progress for its timeout (module
// parameter timeout_ms), logs it (like NVIDIA's Xid 8), resets the GPU and
// fails the job: the runtime returns cudaErrorLaunchTimeout. The GPU then
// serves the next job. docs/failures.md.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void wait_for_flag(volatile int *flag)
{
	// Bug: the host never writes the flag, and no other thread does either.
	while (*flag == 0) {
	}
}

int main()
{
	int *flag = nullptr;
	cudaError_t err = cudaMalloc(&flag, sizeof(int));
	if (err == cudaSuccess)
		err = cudaMemset(flag, 0, sizeof(int));
	if (err != cudaSuccess) {
		std::printf("setup: %s\n", cudaGetErrorString(err));
		return 2;
	}
	std::printf("launching wait_for_flag, which never returns\n");
	wait_for_flag<<<1, 1>>>(flag);
	err = cudaDeviceSynchronize();
	std::printf("cudaDeviceSynchronize: %s: %s\n", cudaGetErrorName(err), cudaGetErrorString(err));
	return err == cudaSuccess ? 0 : 1;
}
