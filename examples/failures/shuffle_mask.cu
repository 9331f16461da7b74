// Failure: a warp shuffle whose mask names lanes that never call it. Lanes
// 16..31 of each warp skip the shuffle and wait at __syncthreads(), while
// lanes 0..15 wait in the shuffle for them, as the mask 0xffffffff says they
// must (PTX's shfl.sync waits for every live lane of its mask): nothing can
// move. On a GPU the kernel hangs until the watchdog ends it; simtgpu's
// device sees that no thread of the block can run any more, stops the
// kernel, and the runtime names the block. docs/failures.md.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void pair_sums(const int *in, int *out)
{
	int v = in[threadIdx.x];
	// Bug: only the lower half-warp shuffles, with the whole warp's mask.
	if (threadIdx.x % 32 < 16)
		v += __shfl_down_sync(0xffffffffu, v, 1);
	__syncthreads();
	out[threadIdx.x] = v;
}

int main()
{
	const int n = 64;
	int *in = nullptr, *out = nullptr;
	if (cudaMalloc(&in, n * sizeof(int)) != cudaSuccess ||
	    cudaMalloc(&out, n * sizeof(int)) != cudaSuccess ||
	    cudaMemset(in, 0, n * sizeof(int)) != cudaSuccess) {
		std::printf("setup failed\n");
		return 2;
	}
	pair_sums<<<1, n>>>(in, out);
	cudaError_t err = cudaDeviceSynchronize();
	std::printf("cudaDeviceSynchronize: %s: %s\n", cudaGetErrorName(err), cudaGetErrorString(err));
	return err == cudaSuccess ? 0 : 1;
}
