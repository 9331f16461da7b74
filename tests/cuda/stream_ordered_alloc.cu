// SPDX-License-Identifier: MIT
// Stream-ordered allocation (issue 16): cudaMallocAsync/cudaFreeAsync on
// the default pool and on created pools. A block freed on a stream is
// reused by that stream at once; by another stream, with the default
// settings, after a wait for the free's point (so a kernel still using it
// on the first stream is not disturbed: checked by its result), with
// cudaMemPoolReuseAllowOpportunistic once that point has completed, and not
// at all with both turned off. The release threshold, cudaMemPoolTrimTo,
// the usage attributes, cudaFree of an async allocation, and the errors.
#include <cstdint>
#include <vector>

#include "test_util.h"

constexpr int kN = 4096, kIters = 200;

// Every value is incremented kIters times, then copied out: if another
// stream wrote the buffer meanwhile, out differs from kIters.
__global__ void increment_many(int *a, int *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	for (int k = 0; k < kIters; ++k) {
		a[i] = a[i] + 1;
		__threadfence();
	}
	out[i] = a[i];
}

__global__ void fill(int *a, int v, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		a[i] = v;
}

static uint64_t attr(cudaMemPool_t pool, cudaMemPoolAttr a)
{
	uint64_t v = 0;
	CHECK_CUDA(cudaMemPoolGetAttribute(pool, a, &v));
	return v;
}

static bool all_equal(const int *dev, int n, int v)
{
	std::vector<int> host(n);
	CHECK_CUDA(cudaMemcpy(host.data(), dev, n * sizeof(int), cudaMemcpyDeviceToHost));
	for (int x : host)
		if (x != v)
			return false;
	return true;
}

int main()
{
	bool ok = true;
	const size_t bytes = kN * sizeof(int);
	int supported = 0;
	CHECK_CUDA(cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, 0));
	ok &= expect(supported == 1, "cudaDevAttrMemoryPoolsSupported is 1");
	cudaMemPool_t def, cur;
	CHECK_CUDA(cudaDeviceGetDefaultMemPool(&def, 0));
	CHECK_CUDA(cudaDeviceGetMemPool(&cur, 0));
	ok &= expect(def == cur, "the current pool is the default one");
	cudaStream_t s1, s2;
	CHECK_CUDA(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
	CHECK_CUDA(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
	int *out;
	CHECK_CUDA(cudaMalloc(&out, bytes));

	// Same stream: the block comes back at once, while the kernel runs.
	int *a, *b;
	CHECK_CUDA(cudaMallocAsync(&a, bytes, s1));
	ok &= expect(attr(def, cudaMemPoolAttrReservedMemCurrent) == bytes, "reserved = one block");
	ok &= expect(attr(def, cudaMemPoolAttrUsedMemCurrent) == bytes, "used = one block");
	fill<<<kN / 128, 128, 0, s1>>>(a, 1, kN);
	CHECK_CUDA(cudaFreeAsync(a, s1));
	ok &= expect(attr(def, cudaMemPoolAttrUsedMemCurrent) == 0, "used = 0 after the free");
	CHECK_CUDA(cudaMallocAsync(&b, bytes, s1));
	ok &= expect(a == b, "same-stream reuse");
	fill<<<kN / 128, 128, 0, s1>>>(b, 2, kN);
	CHECK_CUDA(cudaStreamSynchronize(s1));
	ok &= expect(all_equal(b, kN, 2), "the reused block holds the later kernel's values");

	// Another stream, default settings: reused, but only after s1's kernel
	// that still uses it (increment_many's result would show a write of s2's).
	CHECK_CUDA(cudaMemsetAsync(b, 0, bytes, s1));
	increment_many<<<kN / 128, 128, 0, s1>>>(b, out, kN);
	CHECK_CUDA(cudaFreeAsync(b, s1));
	int *c;
	CHECK_CUDA(cudaMallocAsync(&c, bytes, s2));
	ok &= expect(c == b, "cross-stream reuse with an inserted wait");
	fill<<<kN / 128, 128, 0, s2>>>(c, -1, kN);
	CHECK_CUDA(cudaStreamSynchronize(s2));
	CHECK_CUDA(cudaStreamSynchronize(s1));
	ok &= expect(all_equal(out, kN, kIters), "s1's kernel ran undisturbed by s2's");
	ok &= expect(all_equal(c, kN, -1), "s2's kernel wrote after it");

	// cudaFree of an async allocation; then, threshold 0, a synchronisation
	// gives completed free blocks back.
	CHECK_CUDA(cudaFree(c));
	ok &= expect(attr(def, cudaMemPoolAttrReservedMemCurrent) == 0, "cudaFree releases it");
	CHECK_CUDA(cudaMallocAsync(&a, bytes, s1));
	CHECK_CUDA(cudaFreeAsync(a, s1));
	ok &= expect(attr(def, cudaMemPoolAttrReservedMemCurrent) == bytes, "kept until a sync");
	CHECK_CUDA(cudaStreamSynchronize(s1));
	ok &= expect(attr(def, cudaMemPoolAttrReservedMemCurrent) == 0,
		     "released at the sync (threshold 0)");

	// A created pool with no cross-stream reuse, and a high threshold.
	cudaMemPoolProps props = {};
	props.allocType = cudaMemAllocationTypePinned;
	props.location.type = cudaMemLocationTypeDevice;
	props.location.id = 0;
	cudaMemPool_t pool;
	CHECK_CUDA(cudaMemPoolCreate(&pool, &props));
	uint64_t big = UINT64_MAX;
	int off = 0, on = 1;
	CHECK_CUDA(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &big));
	CHECK_CUDA(cudaMemPoolSetAttribute(pool, cudaMemPoolReuseAllowOpportunistic, &off));
	CHECK_CUDA(cudaMemPoolSetAttribute(pool, cudaMemPoolReuseAllowInternalDependencies, &off));
	int *p, *q, *r;
	CHECK_CUDA(cudaMallocAsync(&p, bytes, pool, s1));
	CHECK_CUDA(cudaFreeAsync(p, s1));
	CHECK_CUDA(cudaStreamSynchronize(s1));
	CHECK_CUDA(cudaMallocFromPoolAsync(&q, bytes, pool, s2));
	ok &= expect(q != p, "no cross-stream reuse when both are off");
	ok &= expect(attr(pool, cudaMemPoolAttrReservedMemCurrent) == 2 * bytes,
		     "high threshold: the free block is kept");
	// Opportunistic on: p's free has completed, so s2 takes it.
	CHECK_CUDA(cudaMemPoolSetAttribute(pool, cudaMemPoolReuseAllowOpportunistic, &on));
	CHECK_CUDA(cudaMallocFromPoolAsync(&r, bytes, pool, s2));
	ok &= expect(r == p, "opportunistic reuse of a completed free");
	ok &= expect(attr(pool, cudaMemPoolAttrUsedMemHigh) == 2 * bytes, "used high mark");
	CHECK_CUDA(cudaFreeAsync(q, s2));
	CHECK_CUDA(cudaFreeAsync(r, s2));
	CHECK_CUDA(cudaStreamSynchronize(s2));
	ok &= expect(attr(pool, cudaMemPoolAttrReservedMemCurrent) == 2 * bytes, "kept above 0");
	CHECK_CUDA(cudaMemPoolTrimTo(pool, bytes));
	ok &= expect(attr(pool, cudaMemPoolAttrReservedMemCurrent) == bytes, "trimmed to one block");
	CHECK_CUDA(cudaMemPoolTrimTo(pool, 0));
	ok &= expect(attr(pool, cudaMemPoolAttrReservedMemCurrent) == 0, "trimmed to nothing");
	uint64_t zero = 0;
	CHECK_CUDA(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &zero));
	ok &= expect(attr(pool, cudaMemPoolAttrUsedMemHigh) == 0, "high mark reset");

	// Errors.
	uint64_t v = 1;
	ok &= expect(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &v) ==
			     cudaErrorInvalidValue,
		     "current amounts are read-only");
	ok &= expect(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &v) ==
			     cudaErrorInvalidValue,
		     "a high mark resets only to 0");
	ok &= expect(cudaFreeAsync(out, s1) == cudaErrorInvalidValue,
		     "cudaFreeAsync of cudaMalloc memory");
	CHECK_CUDA(cudaMallocAsync(&a, bytes, s1));
	CHECK_CUDA(cudaFreeAsync(a, s1));
	ok &= expect(cudaFreeAsync(a, s1) == cudaErrorInvalidValue, "double free");
	ok &= expect(cudaMallocAsync((void **)nullptr, 16, s1) == cudaErrorInvalidValue, "NULL out");
	ok &= expect(cudaMemPoolDestroy(def) == cudaErrorInvalidValue, "the default pool stays");
	props.handleTypes = cudaMemHandleTypePosixFileDescriptor;
	cudaMemPool_t ipc;
	ok &= expect(cudaMemPoolCreate(&ipc, &props) == cudaErrorNotSupported, "IPC handles");
	props.handleTypes = cudaMemHandleTypeNone;
	props.location.id = 99;
	ok &= expect(cudaMemPoolCreate(&ipc, &props) == cudaErrorInvalidDevice, "bad device");
	CHECK_CUDA(cudaMemPoolDestroy(pool));
	ok &= expect(cudaMallocFromPoolAsync(&p, 16, pool, s1) == cudaErrorInvalidValue,
		     "a destroyed pool");
	ok &= expect(std::strcmp(cudaGetErrorString(cudaErrorInvalidValue), "invalid argument") == 0,
		     "error text");
	cudaGetLastError();

	// The current pool: cudaMallocAsync draws from it.
	props.location.id = 0;
	CHECK_CUDA(cudaMemPoolCreate(&pool, &props));
	CHECK_CUDA(cudaDeviceSetMemPool(0, pool));
	CHECK_CUDA(cudaMallocAsync(&a, bytes, s1));
	ok &= expect(attr(pool, cudaMemPoolAttrUsedMemCurrent) == bytes, "drawn from the set pool");
	fill<<<kN / 128, 128, 0, s1>>>(a, 7, kN);
	CHECK_CUDA(cudaStreamSynchronize(s1));
	ok &= expect(all_equal(a, kN, 7), "the set pool's memory works");
	CHECK_CUDA(cudaFreeAsync(a, s1));
	CHECK_CUDA(cudaDeviceSetMemPool(0, def));
	CHECK_CUDA(cudaMemPoolDestroy(pool));
	CHECK_CUDA(cudaStreamDestroy(s1));
	CHECK_CUDA(cudaStreamDestroy(s2));
	CHECK_CUDA(cudaFree(out));
	CHECK_CUDA(cudaDeviceSynchronize());
	return report("stream_ordered_alloc", ok);
}
