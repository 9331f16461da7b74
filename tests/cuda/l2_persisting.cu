// SPDX-License-Identifier: MIT
// Persisting L2 lines (CUDA's "Device Memory L2 Access Management"): a hot
// array in a stream's access policy window (hitRatio 1, persisting) keeps
// its lines in L2 while a sweep of 1.5 x L2 streams past, so a second read
// of it hits: the device's counters (simtgpuCtxReadCounters on the runtime's
// context) must show at least 90% of its sectors as persisting hits, and
// the same sequence without the window (after cudaCtxResetPersistingL2Cache)
// must miss L2 at least 90% of hot's sectors more often. Every read's sum is checked against the CPU's. The limits must be
// refused as CUDA refuses them (cudaErrorInvalidValue above
// persistingL2CacheMaxSize or accessPolicyMaxWindowSize), and after
// cudaDeviceReset the set-aside must be 0 again (no persisting hits). A
// window given as one launch's attribute (cudaLaunchKernelEx) must hold for
// that launch only.
// On a device without persisting lines (persistingL2CacheMaxSize 0: every
// preset but ampere) the calls must behave as on a V100 (a set-aside above 0
// refused, a window kept as a hint, the reset a no-op) and the sums be right.
// simtcc-flags: -lsimtgpu
#include <algorithm>
#include <vector>

#include "../../include/simtgpu/counters.h"
#include "driver_util.h"
#include "test_util.h"

__global__ void sum_words(const uint4 *v, size_t n, unsigned long long *out)
{
	__shared__ unsigned long long part[256];
	unsigned long long s = 0;
	for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
	     i += size_t(gridDim.x) * blockDim.x) {
		const uint4 x = v[i];
		s += x.x + x.y + x.z + x.w;
	}
	part[threadIdx.x] = s;
	__syncthreads();
	for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
		if (threadIdx.x < half)
			part[threadIdx.x] += part[threadIdx.x + half];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		atomicAdd(out, part[0]);
}

struct Counters {
	uint64_t v[SIMTGPU_NUM_COUNTERS];
};

static Counters read_counters(simtgpuContext ctx)
{
	Counters c{};
	if (simtgpuCtxReadCounters(ctx, c.v, SIMTGPU_NUM_COUNTERS) != SIMTGPU_SUCCESS) {
		std::printf("FAIL: simtgpuCtxReadCounters: %s\n", simtgpuGetErrorDetail());
		std::exit(1);
	}
	return c;
}

struct Array {
	uint4 *dev = nullptr;
	size_t words = 0; // uint4s
	unsigned long long sum = 0;
};

static Array make_array(size_t bytes, uint32_t seed)
{
	Array a;
	a.words = bytes / sizeof(uint4);
	std::vector<uint32_t> host(a.words * 4);
	Rng rng(seed);
	for (uint32_t &x : host) {
		x = rng.next() & 0xffff;
		a.sum += x;
	}
	CHECK_CUDA(cudaMalloc(&a.dev, bytes));
	CHECK_CUDA(cudaMemcpy(a.dev, host.data(), bytes, cudaMemcpyHostToDevice));
	return a;
}

static unsigned long long *g_out;
static int g_blocks;

// Reads the array on `stream`; false if its sum is not the CPU's. With
// launch_window, the launch has a persisting window over the whole array as
// its own attribute (cudaLaunchKernelEx), not the stream's.
static bool read(const Array &a, cudaStream_t stream, bool launch_window = false)
{
	CHECK_CUDA(cudaMemsetAsync(g_out, 0, sizeof(*g_out), stream));
	cudaLaunchAttribute window{};
	window.id = cudaLaunchAttributeAccessPolicyWindow;
	window.val.accessPolicyWindow.base_ptr = a.dev;
	window.val.accessPolicyWindow.num_bytes = a.words * sizeof(uint4);
	window.val.accessPolicyWindow.hitRatio = 1.0f;
	window.val.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
	window.val.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
	cudaLaunchConfig_t config{};
	config.gridDim = dim3(unsigned(g_blocks));
	config.blockDim = dim3(256);
	config.stream = stream;
	config.attrs = &window;
	config.numAttrs = launch_window ? 1 : 0;
	CHECK_CUDA(cudaLaunchKernelEx(&config, sum_words, (const uint4 *)a.dev, a.words, g_out));
	CHECK_CUDA(cudaStreamSynchronize(stream));
	unsigned long long got = 0;
	CHECK_CUDA(cudaMemcpy(&got, g_out, sizeof(got), cudaMemcpyDeviceToHost));
	if (got != a.sum)
		std::printf("FAIL: sum %llu, the CPU's %llu\n", got, a.sum);
	return got == a.sum;
}

static cudaError_t set_window(cudaStream_t s, void *base, size_t bytes)
{
	cudaStreamAttrValue w{};
	w.accessPolicyWindow.base_ptr = base;
	w.accessPolicyWindow.num_bytes = bytes;
	w.accessPolicyWindow.hitRatio = 1.0f;
	w.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
	w.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
	return cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &w);
}

int main()
{
	cudaDeviceProp prop;
	CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
	CHECK_CUDA(cudaMalloc(&g_out, sizeof(*g_out)));
	g_blocks = prop.multiProcessorCount * 2;
	cudaStream_t s;
	CHECK_CUDA(cudaStreamCreate(&s));
	bool ok = true;
	int attr = -1;
	CHECK_CUDA(cudaDeviceGetAttribute(&attr, cudaDevAttrMaxPersistingL2CacheSize, 0));
	ok = expect(attr == prop.persistingL2CacheMaxSize, "the attribute is the property") && ok;
	CHECK_CUDA(cudaDeviceGetAttribute(&attr, cudaDevAttrMaxAccessPolicyWindowSize, 0));
	ok = expect(attr == prop.accessPolicyMaxWindowSize, "the window attribute") && ok;
	ok = expect(prop.persistingL2CacheMaxSize <= prop.l2CacheSize, "set-aside within L2") && ok;

	if (prop.persistingL2CacheMaxSize == 0) {
		// As a V100: nothing to set aside, windows are hints.
		ok = expect(prop.accessPolicyMaxWindowSize == 0, "no window without a set-aside") && ok;
		ok = expect(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 1) ==
				    cudaErrorInvalidValue,
			    "a set-aside above 0 is refused") &&
		     ok;
		cudaGetLastError();
		CHECK_CUDA(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0));
		size_t limit = 1;
		CHECK_CUDA(cudaDeviceGetLimit(&limit, cudaLimitPersistingL2CacheSize));
		ok = expect(limit == 0, "the limit stays 0") && ok;
		Array hot = make_array(64 << 10, 1), stream = make_array(256 << 10, 2);
		CHECK_CUDA(set_window(s, hot.dev, 64 << 10));
		CHECK_CUDA(cudaCtxResetPersistingL2Cache());
		ok = read(hot, s) && read(stream, s) && read(hot, s) && ok;
		return report("l2_persisting", ok);
	}

	simtgpuContext ctx = runtime_context();

	// CUDA's refusals.
	ok = expect(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize,
				       size_t(prop.persistingL2CacheMaxSize) + 1) == cudaErrorInvalidValue,
		    "a set-aside above persistingL2CacheMaxSize is refused") &&
	     ok;
	cudaGetLastError();
	const size_t l2 = size_t(prop.l2CacheSize);
	const size_t hot_bytes = l2 / 16, stream_bytes = l2 + l2 / 2;
	const size_t set_aside = std::min(l2 / 4, size_t(prop.persistingL2CacheMaxSize));
	Array hot = make_array(hot_bytes, 1), stream = make_array(stream_bytes, 2);
	ok = expect(set_window(s, hot.dev, size_t(prop.accessPolicyMaxWindowSize) + 1) ==
			    cudaErrorInvalidValue,
		    "a window above accessPolicyMaxWindowSize is refused") &&
	     ok;
	cudaGetLastError();
	CHECK_CUDA(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, set_aside));
	size_t limit = 0;
	CHECK_CUDA(cudaDeviceGetLimit(&limit, cudaLimitPersistingL2CacheSize));
	ok = expect(limit == set_aside, "the set-aside read back") && ok;

	const uint64_t hot_sectors = hot_bytes / 32;
	struct Pass {
		uint64_t persisting_hits, l2_misses;
	};
	// Hot, a sweep of 1.5 x L2, hot again: what the second read of hot cost.
	auto pass = [&]() {
		ok = read(hot, s) && ok;
		ok = read(stream, s) && ok;
		const Counters before = read_counters(ctx);
		ok = read(hot, s) && ok;
		const Counters after = read_counters(ctx);
		return Pass{after.v[SIMTGPU_COUNTER_l2_persisting_sector_hits] -
				    before.v[SIMTGPU_COUNTER_l2_persisting_sector_hits],
			    after.v[SIMTGPU_COUNTER_l2_sector_misses] -
				    before.v[SIMTGPU_COUNTER_l2_sector_misses]};
	};
	CHECK_CUDA(set_window(s, hot.dev, hot_bytes));
	const Pass with = pass();
	CHECK_CUDA(set_window(s, nullptr, 0));
	CHECK_CUDA(cudaCtxResetPersistingL2Cache());
	const Pass without = pass();
	std::printf("hot: %llu sectors; with the window: %llu persisting hits, %llu L2 misses; "
		    "without: %llu persisting hits, %llu L2 misses\n",
		    (unsigned long long)hot_sectors, (unsigned long long)with.persisting_hits,
		    (unsigned long long)with.l2_misses, (unsigned long long)without.persisting_hits,
		    (unsigned long long)without.l2_misses);
	// The kernel's other traffic (its parameters, each thread's stack) misses
	// alike in both passes: the difference is hot's.
	ok = expect(with.persisting_hits >= hot_sectors * 9 / 10, "the hot lines persisted") && ok;
	ok = expect(without.persisting_hits == 0, "no persisting hits without a window") && ok;
	ok = expect(without.l2_misses >= with.l2_misses + hot_sectors * 9 / 10,
		    "the window saved at least 90% of hot's L2 misses") &&
	     ok;

	// A window as a launch attribute holds for that launch only: its second
	// read of hot hits persisting lines, a plain read after it none.
	{
		CHECK_CUDA(cudaCtxResetPersistingL2Cache());
		ok = read(hot, s, true) && ok;
		const Counters first = read_counters(ctx);
		ok = read(hot, s, true) && ok;
		const Counters second = read_counters(ctx);
		ok = read(hot, s) && ok;
		const Counters plain = read_counters(ctx);
		const uint64_t hits = second.v[SIMTGPU_COUNTER_l2_persisting_sector_hits] -
				      first.v[SIMTGPU_COUNTER_l2_persisting_sector_hits];
		std::printf("launch attribute window: %llu persisting hits\n",
			    (unsigned long long)hits);
		ok = expect(hits >= hot_sectors * 9 / 10, "the launch's window made hot persist") && ok;
		ok = expect(plain.v[SIMTGPU_COUNTER_l2_persisting_sector_hits] ==
				    second.v[SIMTGPU_COUNTER_l2_persisting_sector_hits],
			    "the launch's window ended with it") &&
		     ok;
	}

	// cudaDeviceReset gives the set-aside back: in the next context a
	// window over lines read twice finds none to persist in.
	CHECK_CUDA(cudaDeviceReset());
	CHECK_CUDA(cudaDeviceGetLimit(&limit, cudaLimitPersistingL2CacheSize));
	ok = expect(limit == 0, "no set-aside after cudaDeviceReset") && ok;
	ctx = runtime_context(); // the new context's
	CHECK_CUDA(cudaMalloc(&g_out, sizeof(*g_out)));
	CHECK_CUDA(cudaStreamCreate(&s));
	hot = make_array(hot_bytes, 1);
	CHECK_CUDA(set_window(s, hot.dev, hot_bytes));
	ok = read(hot, s) && ok;
	const Counters before = read_counters(ctx);
	ok = read(hot, s) && ok;
	const Counters after = read_counters(ctx);
	ok = expect(after.v[SIMTGPU_COUNTER_l2_persisting_sector_hits] ==
			    before.v[SIMTGPU_COUNTER_l2_persisting_sector_hits],
		    "no persisting hits after cudaDeviceReset") &&
	     ok;
	return report("l2_persisting", ok);
}
