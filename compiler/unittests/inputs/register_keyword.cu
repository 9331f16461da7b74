// 'register' in device and host code, as older CUDA code writes it: under
// -std=c++17 nvcc warns, and so must simtcc.
#include <cstdio>

__global__ void twice(int *out)
{
	register int x = threadIdx.x * 2;
	out[threadIdx.x] = x;
}

int main()
{
	register int n = 4;
	int *d = nullptr, h[4] = {0, 0, 0, 0};
	cudaMalloc(&d, sizeof h);
	twice<<<1, n>>>(d);
	cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
	std::printf("%d %d %d %d\n", h[0], h[1], h[2], h[3]);
	return h[3] == 6 ? 0 : 1;
}
