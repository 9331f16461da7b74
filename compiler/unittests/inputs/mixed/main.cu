// SPDX-License-Identifier: MIT
// A program of three languages built by one nvcc-style command line with
// C++ flags (-std=c++17): this .cu, a C helper and a C++ helper.
#include <cstdio>

extern "C" int c_checksum(const int *values, int n); // helper.c
int cxx_expected(int n);                              // util.cpp

__global__ void squares(int *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = i * i;
}

int main()
{
	const int n = 100;
	int *d = nullptr, h[n];
	if (cudaMalloc(&d, sizeof(h)) != cudaSuccess)
		return 1;
	squares<<<1, 128>>>(d, n);
	if (cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost) != cudaSuccess)
		return 1;
	const bool ok = c_checksum(h, n) == cxx_expected(n);
	std::printf("mixed: %s\n", ok ? "PASS" : "FAIL");
	return ok ? 0 : 1;
}
