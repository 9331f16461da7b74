// SPDX-License-Identifier: MIT
// clock() and clock64(): per-thread readings never go backwards, and a loop
// of dependent work takes a positive, bounded number of cycles.
#include "test_util.h"

__global__ void timed(long long *elapsed, int *monotonic, unsigned *sink)
{
	long long start64 = clock64();
	int start32 = clock();
	unsigned v = threadIdx.x;
	for (int i = 0; i < 200; ++i)
		v = v * 1664525u + 1013904223u;
	sink[threadIdx.x] = v;
	long long end64 = clock64();
	int end32 = clock();
	elapsed[threadIdx.x] = end64 - start64;
	monotonic[threadIdx.x] = end64 >= start64 && static_cast<unsigned>(end32 - start32) < (1u << 31);
}

int main()
{
	const int threads = 64;
	long long *delapsed, elapsed[threads];
	int *dmono, mono[threads];
	unsigned *dsink, sink[threads];
	CHECK_CUDA(cudaMalloc(&delapsed, sizeof(elapsed)));
	CHECK_CUDA(cudaMalloc(&dmono, sizeof(mono)));
	CHECK_CUDA(cudaMalloc(&dsink, sizeof(sink)));
	timed<<<1, threads>>>(delapsed, dmono, dsink);
	CHECK_LAUNCH();
	CHECK_CUDA(cudaMemcpy(elapsed, delapsed, sizeof(elapsed), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(mono, dmono, sizeof(mono), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(sink, dsink, sizeof(sink), cudaMemcpyDeviceToHost));
	bool ok = true;
	for (int t = 0; t < threads; ++t) {
		unsigned v = t;
		for (int i = 0; i < 200; ++i)
			v = v * 1664525u + 1013904223u;
		ok &= sink[t] == v && mono[t] == 1;
		// 200 iterations of at least two instructions, and well below a
		// second of a GHz clock.
		ok &= elapsed[t] >= 200 && elapsed[t] < 1000000000ll;
	}
	std::printf("thread 0 took %lld cycles\n", elapsed[0]);
	return report("clock", ok);
}
