// SPDX-License-Identifier: MIT
// simtgpu-launch-latency: the round trip of an empty kernel, from the
// launch call to cudaDeviceSynchronize returning, through whichever
// transport the runtime picked (the demo runs it on the kernel driver).
//
//   simtgpu-launch-latency [ITERATIONS]     default 50
//
// Prints the median, minimum and maximum in microseconds.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

__global__ void empty_kernel() {}

static bool check(cudaError_t error, const char *what)
{
	if (error != cudaSuccess)
		std::fprintf(stderr, "simtgpu-launch-latency: %s: %s\n", what, cudaGetErrorString(error));
	return error == cudaSuccess;
}

int main(int argc, char **argv)
{
	int iterations = argc > 1 ? std::atoi(argv[1]) : 50;
	if (iterations < 1 || argc > 2) {
		std::fprintf(stderr, "usage: simtgpu-launch-latency [ITERATIONS >= 1]\n");
		return 2;
	}
	// The first launch loads the module and creates the queue: not timed.
	empty_kernel<<<1, 1>>>();
	if (!check(cudaDeviceSynchronize(), "first launch"))
		return 1;
	std::vector<double> micros;
	for (int i = 0; i < iterations; ++i) {
		auto start = std::chrono::steady_clock::now();
		empty_kernel<<<1, 1>>>();
		if (!check(cudaDeviceSynchronize(), "launch"))
			return 1;
		auto end = std::chrono::steady_clock::now();
		micros.push_back(std::chrono::duration<double, std::micro>(end - start).count());
	}
	std::sort(micros.begin(), micros.end());
	std::printf("launch round trip: median %.0f us, min %.0f us, max %.0f us (%d launches)\n",
		    micros[micros.size() / 2], micros.front(), micros.back(), iterations);
	return 0;
}
