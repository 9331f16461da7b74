// Issue 19: every launch limit cudaGetDeviceProperties reports, against what
// a launch actually accepts: the limit runs (and does what it should), the
// limit + 1 is refused with CUDA's error. The per-SM limits are checked by
// how many blocks are resident at once, against CUDA's occupancy arithmetic
// on the reported properties and against cudaOccupancy*.
#include "test_util.h"

#include <algorithm>
#include <cuda_runtime.h>

extern __shared__ unsigned char dynamic_shared[];

__global__ void identity(int *out)
{
#ifdef __CUDA_ARCH__
	out[0] = __CUDA_ARCH__;
#endif
	out[1] = warpSize;
}

__global__ void count_threads(unsigned *count) { atomicAdd(count, 1u); }

// The first and last byte of the dynamic shared memory hold what was written.
__global__ void touch_shared(unsigned bytes, int *ok)
{
	volatile unsigned char *s = dynamic_shared;
	s[0] = 0x5a;
	s[bytes - 1] = 0xa5;
	*ok = s[0] == 0x5a && s[bytes - 1] == 0xa5;
}

__global__ void touch_shared_beside_static(unsigned bytes, int *ok)
{
	__shared__ unsigned char fixed[4096];
	volatile unsigned char *s = dynamic_shared;
	fixed[threadIdx.x] = 1;
	s[bytes - 1] = 0xa5;
	*ok = s[bytes - 1] == 0xa5 && fixed[threadIdx.x] == 1;
}

// Thread 0 of each block counts the blocks resident with it for a while.
__global__ void resident(int *live, int *peak)
{
	if (threadIdx.x != 0)
		return;
	atomicMax(peak, atomicAdd(live, 1) + 1);
	const long long start = clock64();
	while (clock64() - start < 20000) {
	}
	atomicSub(live, 1);
}

static int failures = 0;

static void check_counted(bool ok, const char *what)
{
	if (!ok) {
		std::printf("FAIL: %s\n", what);
		++failures;
	}
}

static void expect_error(cudaError_t want, const char *what)
{
	cudaError_t got = cudaGetLastError();
	if (got != want) {
		std::printf("FAIL: %s: %s, expected %s\n", what, cudaGetErrorName(got),
			    cudaGetErrorName(want));
		++failures;
	}
	CHECK_CUDA(cudaDeviceSynchronize());
}

static unsigned *counter;

// A block of this shape runs every thread; refused shapes are checked apart.
static void expect_block_runs(dim3 grid, dim3 block, const char *what)
{
	CHECK_CUDA(cudaMemset(counter, 0, sizeof(unsigned)));
	count_threads<<<grid, block>>>(counter);
	expect_error(cudaSuccess, what);
	unsigned n = 0;
	CHECK_CUDA(cudaMemcpy(&n, counter, sizeof(n), cudaMemcpyDeviceToHost));
	check_counted(n == grid.x * grid.y * grid.z * block.x * block.y * block.z, what);
}

static void expect_refused(dim3 grid, dim3 block, const char *what)
{
	count_threads<<<grid, block>>>(counter);
	expect_error(cudaErrorInvalidConfiguration, what);
}

static int *flag;

template <class Kernel>
static void expect_shared_works(Kernel kernel, size_t bytes, const char *what)
{
	CHECK_CUDA(cudaMemset(flag, 0, sizeof(int)));
	kernel<<<1, 32, bytes>>>(unsigned(bytes), flag);
	expect_error(cudaSuccess, what);
	int ok = 0;
	CHECK_CUDA(cudaMemcpy(&ok, flag, sizeof(ok), cudaMemcpyDeviceToHost));
	check_counted(ok == 1, what);
}

template <class Kernel>
static void expect_shared_refused(Kernel kernel, size_t bytes, const char *what)
{
	kernel<<<1, 32, bytes>>>(unsigned(bytes), flag);
	expect_error(cudaErrorInvalidValue, what);
}

static int round_up(int x, int unit) { return (x + unit - 1) / unit * unit; }

int main()
{
	cudaDeviceProp p;
	CHECK_CUDA(cudaGetDeviceProperties(&p, 0));
	CHECK_CUDA(cudaMalloc(&counter, sizeof(unsigned)));
	CHECK_CUDA(cudaMalloc(&flag, sizeof(int)));

	// Compute capability: what the device code was compiled for, also as
	// attributes and as the kernels' binary version.
	int *ids, id[2] = {0, 0}, major = 0, minor = 0;
	CHECK_CUDA(cudaMalloc(&ids, sizeof(id)));
	identity<<<1, 1>>>(ids);
	CHECK_LAUNCH();
	CHECK_CUDA(cudaMemcpy(id, ids, sizeof(id), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0));
	CHECK_CUDA(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0));
	check_counted(p.major * 100 + p.minor * 10 == id[0], "major.minor is the code's __CUDA_ARCH__");
	check_counted(major == p.major && minor == p.minor, "compute capability attributes");
	check_counted(id[1] == p.warpSize, "warpSize");
	cudaFuncAttributes fa;
	CHECK_CUDA(cudaFuncGetAttributes(&fa, identity));
	check_counted(fa.binaryVersion == p.major * 10 + p.minor, "binaryVersion");

	// Threads per block and block dimensions.
	const int max_threads = p.maxThreadsPerBlock;
	expect_block_runs(1, dim3(max_threads), "maxThreadsPerBlock threads");
	expect_refused(1, dim3(max_threads + 1), "maxThreadsPerBlock + 1 threads");
	expect_refused(1, dim3(p.warpSize, max_threads / p.warpSize + 1), "maxThreadsPerBlock + 32");
	check_counted(p.maxThreadsDim[0] <= max_threads && p.maxThreadsDim[1] <= max_threads,
	       "maxThreadsDim within maxThreadsPerBlock");
	expect_block_runs(1, dim3(p.maxThreadsDim[0]), "maxThreadsDim[0]");
	expect_refused(1, dim3(p.maxThreadsDim[0] + 1), "maxThreadsDim[0] + 1");
	expect_block_runs(1, dim3(1, p.maxThreadsDim[1]), "maxThreadsDim[1]");
	expect_refused(1, dim3(1, p.maxThreadsDim[1] + 1), "maxThreadsDim[1] + 1");
	expect_block_runs(1, dim3(1, 1, p.maxThreadsDim[2]), "maxThreadsDim[2]");
	expect_refused(1, dim3(1, 1, p.maxThreadsDim[2] + 1), "maxThreadsDim[2] + 1");

	// Grid dimensions (x at its limit would be 2^31 blocks: only the
	// refusal above it is checked).
	expect_block_runs(dim3(1, p.maxGridSize[1]), 1, "maxGridSize[1]");
	expect_refused(dim3(1, unsigned(p.maxGridSize[1]) + 1), 1, "maxGridSize[1] + 1");
	expect_block_runs(dim3(1, 1, p.maxGridSize[2]), 1, "maxGridSize[2]");
	expect_refused(dim3(1, 1, unsigned(p.maxGridSize[2]) + 1), 1, "maxGridSize[2] + 1");
	expect_refused(dim3(unsigned(p.maxGridSize[0]) + 1), 1, "maxGridSize[0] + 1");

	// Registers: with the kernel's count, allocated in multiples of 8 as
	// CUDA does, the block limit allows exactly the threads a block may have.
	CHECK_CUDA(cudaFuncGetAttributes(&fa, count_threads));
	const int regs = round_up(fa.numRegs, 8);
	check_counted(fa.numRegs > 0 && p.regsPerBlock / regs == max_threads,
	       "regsPerBlock holds maxThreadsPerBlock threads and no more");

	// Shared memory per block: the default, then the opt-in; the kernel's
	// static shared memory counts against both.
	const int per_block = int(p.sharedMemPerBlock), optin = int(p.sharedMemPerBlockOptin);
	CHECK_CUDA(cudaFuncGetAttributes(&fa, touch_shared));
	const int fixed = int(fa.sharedSizeBytes);
	check_counted(fa.maxDynamicSharedSizeBytes == per_block - fixed, "maxDynamicSharedSizeBytes default");
	expect_shared_works(touch_shared, per_block - fixed, "sharedMemPerBlock");
	expect_shared_refused(touch_shared, per_block - fixed + 1,
			      "sharedMemPerBlock + 1 without opt-in");
	check_counted(optin >= per_block, "sharedMemPerBlockOptin >= sharedMemPerBlock");
	check_counted(cudaFuncSetAttribute(touch_shared, cudaFuncAttributeMaxDynamicSharedMemorySize,
				    optin - fixed + 1) == cudaErrorInvalidValue,
	       "opt-in above sharedMemPerBlockOptin");
	cudaGetLastError();
	CHECK_CUDA(cudaFuncSetAttribute(touch_shared, cudaFuncAttributeMaxDynamicSharedMemorySize,
					optin - fixed));
	CHECK_CUDA(cudaFuncGetAttributes(&fa, touch_shared));
	check_counted(fa.maxDynamicSharedSizeBytes == optin - fixed, "maxDynamicSharedSizeBytes after opt-in");
	expect_shared_works(touch_shared, optin - fixed, "sharedMemPerBlockOptin with opt-in");
	expect_shared_refused(touch_shared, optin - fixed + 1, "sharedMemPerBlockOptin + 1");
	CHECK_CUDA(cudaFuncGetAttributes(&fa, touch_shared_beside_static));
	const int beside = per_block - int(fa.sharedSizeBytes);
	check_counted(fa.sharedSizeBytes >= 4096 && fa.maxDynamicSharedSizeBytes == beside,
	       "static shared memory leaves the rest of sharedMemPerBlock");
	expect_shared_works(touch_shared_beside_static, beside, "static + dynamic = sharedMemPerBlock");
	expect_shared_refused(touch_shared_beside_static, beside + 1,
			      "static + dynamic = sharedMemPerBlock + 1");

	// Per SM: blocks resident at once, by CUDA's occupancy arithmetic.
	CHECK_CUDA(cudaFuncGetAttributes(&fa, resident));
	const int rfixed = int(fa.sharedSizeBytes), smem = int(p.sharedMemPerMultiprocessor);
	CHECK_CUDA(cudaFuncSetAttribute(resident, cudaFuncAttributeMaxDynamicSharedMemorySize,
					optin - rfixed));
	const struct {
		int threads, shared; // dynamic
	} shapes[] = {{max_threads, 0},
		      {p.warpSize, 0},
		      {3 * p.warpSize, 0},
		      {64, smem / 2 - rfixed},
		      {64, smem / 2 - rfixed + 256},
		      {64, optin - rfixed}};
	int *live, *peak;
	CHECK_CUDA(cudaMalloc(&live, sizeof(int)));
	CHECK_CUDA(cudaMalloc(&peak, sizeof(int)));
	for (const auto &s : shapes) {
		const int threads = round_up(s.threads, p.warpSize);
		int want = p.maxBlocksPerMultiProcessor;
		want = std::min(want, p.maxThreadsPerMultiProcessor / threads);
		want = std::min(want, p.regsPerMultiprocessor / (round_up(fa.numRegs, 8) * threads));
		if (s.shared + rfixed)
			want = std::min(want, smem / round_up(s.shared + rfixed, 256));
		int occupancy = -1;
		CHECK_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occupancy, resident, s.threads,
									 s.shared));
		CHECK_CUDA(cudaMemset(live, 0, sizeof(int)));
		CHECK_CUDA(cudaMemset(peak, 0, sizeof(int)));
		resident<<<2 * want * p.multiProcessorCount, s.threads, s.shared>>>(live, peak);
		CHECK_LAUNCH();
		int seen = 0;
		CHECK_CUDA(cudaMemcpy(&seen, peak, sizeof(seen), cudaMemcpyDeviceToHost));
		if (want < 1 || occupancy != want || seen != want * p.multiProcessorCount) {
			std::printf("FAIL: %d threads, %d bytes shared: %d blocks per SM by the "
				    "properties, %d by cudaOccupancy, %d resident on %d SMs\n",
				    s.threads, s.shared, want, occupancy, seen, p.multiProcessorCount);
			++failures;
		}
	}
	return report("device_limits", failures == 0);
}
