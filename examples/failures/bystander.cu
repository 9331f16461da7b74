// A well-behaved program run next to the failures: it repeats a small
// computation for SECONDS seconds (default 2, at least once) and checks
// every result against the CPU, to show that another process's fault or
// hang does not touch it, and that the GPU serves the next job.
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <cuda_runtime.h>

__global__ void axpy(int n, int a, const int *x, int *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = a * x[i] + y[i];
}

int main(int argc, char **argv)
{
	const double seconds = argc > 1 ? std::atof(argv[1]) : 2.0;
	const int n = 4096;
	static int x[n], y[n], got[n];
	int *dx = nullptr, *dy = nullptr;
	cudaError_t err = cudaMalloc(&dx, sizeof(x));
	if (err == cudaSuccess)
		err = cudaMalloc(&dy, sizeof(y));
	if (err != cudaSuccess) {
		std::printf("bystander: cudaMalloc: %s\n", cudaGetErrorString(err));
		return 1;
	}
	timespec start, now;
	clock_gettime(CLOCK_MONOTONIC, &start);
	int rounds = 0;
	do {
		for (int i = 0; i < n; ++i) {
			x[i] = i * 3 + rounds;
			y[i] = 7 - i;
		}
		cudaMemcpy(dx, x, sizeof(x), cudaMemcpyHostToDevice);
		cudaMemcpy(dy, y, sizeof(y), cudaMemcpyHostToDevice);
		axpy<<<n / 256, 256>>>(n, rounds + 2, dx, dy);
		err = cudaMemcpy(got, dy, sizeof(got), cudaMemcpyDeviceToHost);
		if (err != cudaSuccess) {
			std::printf("bystander: round %d: %s: %s\n", rounds, cudaGetErrorName(err),
				    cudaGetErrorString(err));
			return 1;
		}
		for (int i = 0; i < n; ++i) {
			if (got[i] != (rounds + 2) * x[i] + y[i]) {
				std::printf("bystander: round %d: y[%d] = %d, expected %d\n", rounds, i,
					    got[i], (rounds + 2) * x[i] + y[i]);
				return 1;
			}
		}
		++rounds;
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (double(now.tv_sec - start.tv_sec) + 1e-9 * double(now.tv_nsec - start.tv_nsec) <
		 seconds);
	std::printf("bystander: PASS (%d rounds checked)\n", rounds);
	return 0;
}
