// SPDX-License-Identifier: MIT
// STREAM copy (McCalpin's STREAM benchmark, "Copy": b[i] = a[i]): the DRAM
// bandwidth a kernel achieves, counted as STREAM counts it, bytes read plus
// bytes written over the time. The arrays (8 MiB each, of doubles) together
// are more than twice a V100's 6 MiB L2, and the copy runs twice, timed the
// second time: by then every line the kernel reads has been evicted and
// every line it writes evicts a dirty one, as in a long stream. Each SM runs
// 16 warps, enough loads in flight to cover the DRAM latency; each thread
// copies every grid-size'th element, four at a time so that its four loads
// are in flight together.
#include "micro.h"

#include <algorithm>
#include <vector>

__global__ void copy(const double *a, double *b, unsigned n)
{
	unsigned stride = gridDim.x * blockDim.x;
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	for (; i + 3 * stride < n; i += 4 * stride) {
		double v0 = a[i], v1 = a[i + stride], v2 = a[i + 2 * stride], v3 = a[i + 3 * stride];
		b[i] = v0;
		b[i + stride] = v1;
		b[i + 2 * stride] = v2;
		b[i + 3 * stride] = v3;
	}
	for (; i < n; i += stride)
		b[i] = a[i];
}

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? std::strtoul(argv[1], nullptr, 0) : 8;
	size_t n = mib << 20 >> 3;
	cudaDeviceProp prop;
	MICRO_CHECK(cudaGetDeviceProperties(&prop, 0));
	const int threads = 256;
	int blocks = prop.multiProcessorCount * std::max(1, std::min(512, prop.maxThreadsPerMultiProcessor) / threads);
	std::vector<double> a(n), b(n);
	for (size_t i = 0; i < n; ++i)
		a[i] = 0.5 * double(i);
	double *da, *db;
	MICRO_CHECK(cudaMalloc(&da, n * sizeof(double)));
	MICRO_CHECK(cudaMalloc(&db, n * sizeof(double)));
	MICRO_CHECK(cudaMemcpy(da, a.data(), n * sizeof(double), cudaMemcpyHostToDevice));
	cudaEvent_t begin, end;
	MICRO_CHECK(cudaEventCreate(&begin));
	MICRO_CHECK(cudaEventCreate(&end));
	float ms[2];
	for (float &t : ms) {
		MICRO_CHECK(cudaEventRecord(begin));
		copy<<<blocks, threads>>>(da, db, static_cast<unsigned>(n));
		MICRO_CHECK(cudaEventRecord(end));
		MICRO_LAUNCHED();
		MICRO_CHECK(cudaEventElapsedTime(&t, begin, end));
	}
	MICRO_CHECK(cudaMemcpy(b.data(), db, n * sizeof(double), cudaMemcpyDeviceToHost));
	size_t wrong = 0;
	for (size_t i = 0; i < n; ++i)
		wrong += b[i] != a[i];
	double bytes = 2.0 * n * sizeof(double);
	figure("stream_copy_first", bytes / (ms[0] * 1e-3) / 1e9, "GB/s",
	       "%zu MiB copied, %d blocks of %d, first run", mib, blocks, threads);
	figure("stream_copy", bytes / (ms[1] * 1e-3) / 1e9, "GB/s",
	       "the same, second run: the L2 already full of the stream");
	return report("stream_copy", wrong == 0 && ms[1] > 0);
}
