// SPDX-License-Identifier: MIT
// Histogram of the letters of a text.
//
// Teaches: atomic operations. Many threads increment the same counters, so a
// plain `bins[c]++` would lose updates. Each block first counts into its
// own bins in shared memory with shared-memory atomicAdd (cheap, contended
// only within the block), then adds its bins to the global ones with one
// global atomicAdd per bin.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "check.h"

constexpr int BINS = 26; // 'a'..'z'; everything else is not counted

__global__ void letter_histogram(const char *text, int n, unsigned *bins)
{
	__shared__ unsigned local[BINS];
	for (int b = threadIdx.x; b < BINS; b += blockDim.x)
		local[b] = 0;
	__syncthreads();
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
		char ch = text[i];
		if (ch >= 'A' && ch <= 'Z')
			ch = ch - 'A' + 'a';
		if (ch >= 'a' && ch <= 'z')
			atomicAdd(&local[ch - 'a'], 1u);
	}
	__syncthreads();
	for (int b = threadIdx.x; b < BINS; b += blockDim.x)
		atomicAdd(&bins[b], local[b]);
}

int main()
{
	const char *verse = "It was the best of times, it was the worst of times, it was the age "
			    "of wisdom, it was the age of foolishness, it was the epoch of belief, "
			    "it was the epoch of incredulity. ";
	std::string text;
	while (text.size() < 40000)
		text += verse;
	int n = static_cast<int>(text.size());

	unsigned ref[BINS] = {}, bins[BINS];
	for (char ch : text) {
		if (ch >= 'A' && ch <= 'Z')
			ch = ch - 'A' + 'a';
		if (ch >= 'a' && ch <= 'z')
			ref[ch - 'a']++;
	}

	char *dtext;
	unsigned *dbins;
	CUDA_CHECK(cudaMalloc(&dtext, n));
	CUDA_CHECK(cudaMalloc(&dbins, sizeof(bins)));
	CUDA_CHECK(cudaMemcpy(dtext, text.data(), n, cudaMemcpyHostToDevice));
	CUDA_CHECK(cudaMemset(dbins, 0, sizeof(bins)));
	letter_histogram<<<16, 128>>>(dtext, n, dbins);
	CUDA_CHECK(cudaGetLastError());
	CUDA_CHECK(cudaDeviceSynchronize());
	CUDA_CHECK(cudaMemcpy(bins, dbins, sizeof(bins), cudaMemcpyDeviceToHost));

	std::printf("histogram: letters of a %d-character text, 16 blocks of 128 threads\n", n);
	unsigned most = 1;
	for (int b = 0; b < BINS; ++b)
		most = bins[b] > most ? bins[b] : most;
	int wrong = 0;
	for (int b = 0; b < BINS; ++b) {
		wrong += bins[b] != ref[b];
		if (bins[b] == 0 && ref[b] == 0)
			continue;
		char bar[41];
		int len = static_cast<int>(40ull * bins[b] / most);
		std::memset(bar, '#', len);
		bar[len] = '\0';
		std::printf("  %c %5u %s%s\n", 'a' + b, bins[b], bar, bins[b] != ref[b] ? "  <- CPU differs" : "");
	}
	std::printf("  %d of %d bins differ from the CPU\n", wrong, BINS);
	CUDA_CHECK(cudaFree(dtext));
	CUDA_CHECK(cudaFree(dbins));
	std::printf("histogram: %s\n", wrong == 0 ? "PASS" : "FAIL");
	return wrong == 0 ? 0 : 1;
}
