// SPDX-License-Identifier: MIT
// Managed memory beyond the VRAM a process may use (oversubscription, issue
// 16). A kernel streams over three managed arrays; under the kernel driver
// each page it touches moves to VRAM on a GPU fault and, once VRAM is full,
// the driver evicts the least recently migrated pages home to make room, as
// NVIDIA's UVM does. The values are checked everywhere against the CPU;
// where pages migrate, the driver's counters (simtgpuCtxGetManagedStats) must
// say that every page went to VRAM exactly once (the kernel touches each
// page once, and only a few at a time), none was mapped over the bus
// instead, and each came back exactly once: evicted, or by the host's reads.
// With --oversubscribe (the guest suite, as root) the program first moves
// itself into a cgroup whose VRAM limit leaves room for only kRoomPages of
// managed pages, and then evictions must have made the room; without it,
// everything fits and nothing may be evicted. --passes N has the kernel
// stream over the arrays N times (docs/labs/eviction.md): a page may then go
// to VRAM once per pass, as the eviction order decides.
// simtcc-flags: -lsimtgpu -std=c++17
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "../../include/simtgpu/hw.h"
#include "../../umd/tests/test_support.h"
#include "driver_util.h"
#include "test_util.h"

constexpr size_t kN = 128 * 1024; // floats per array: 128 pages each
constexpr uint64_t kPagesPerArray = kN * sizeof(float) / SIMTGPU_PAGE_SIZE;
constexpr uint64_t kPages = 3 * kPagesPerArray;
constexpr uint64_t kRoomPages = 64;
// A small grid striding over the arrays touches a few pages at a time, far
// fewer than kRoomPages: no page is evicted while the kernel still needs it.
constexpr unsigned kBlocks = 4, kThreads = 256;

__global__ void scale_add(const float *a, const float *b, float *c, size_t n, int passes)
{
	for (int pass = 0; pass < passes; ++pass)
		for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
		     i += size_t(gridDim.x) * blockDim.x)
			c[i] = 2.f * a[i] + b[i];
}

__global__ void nothing() {}

int main(int argc, char **argv)
{
	bool oversubscribe = false;
	int passes = 1;
	for (int i = 1; i < argc; ++i) {
		if (std::strcmp(argv[i], "--oversubscribe") == 0) {
			oversubscribe = true;
		} else if (std::strcmp(argv[i], "--passes") == 0 && i + 1 < argc &&
			   std::atoi(argv[i + 1]) > 0) {
			passes = std::atoi(argv[++i]);
		} else {
			std::printf("usage: %s [--oversubscribe] [--passes N]\n", argv[0]);
			return 2;
		}
	}
	simtgpu::umd::test::ScopedDmemLimit limit(false);
	if (oversubscribe && !limit.join()) {
		std::printf("FAIL: --oversubscribe: %s\n", limit.error().c_str());
		return 1;
	}
	// Everything the context allocates lazily, before the limit.
	nothing<<<1, 1>>>();
	CHECK_LAUNCH();
	float *a = nullptr, *b = nullptr, *c = nullptr;
	CHECK_CUDA(cudaMallocManaged(&a, kN * sizeof(float)));
	CHECK_CUDA(cudaMallocManaged(&b, kN * sizeof(float)));
	CHECK_CUDA(cudaMallocManaged(&c, kN * sizeof(float)));
	const simtgpuDeviceProperties props = device_properties();
	const bool migrates = managed_pages_migrate(props);
	if (oversubscribe) {
		uint64_t current = 0;
		if (!migrates || !limit.current(&current) ||
		    !limit.set(current + kRoomPages * SIMTGPU_PAGE_SIZE)) {
			std::printf("FAIL: --oversubscribe needs the kernel driver's managed memory "
				    "and a cgroup VRAM limit: %s\n",
				    migrates ? limit.error().c_str() : "no page migration here");
			return 1;
		}
	}

	bool ok = true;
	Rng rng(61);
	std::vector<float> want(kN);
	for (size_t i = 0; i < kN; ++i) {
		a[i] = rng.uniform(-4.f, 4.f);
		b[i] = rng.uniform(-4.f, 4.f);
		c[i] = -1.f;
		want[i] = 2.f * a[i] + b[i]; // exact as the device's: one multiply by 2
	}
	const std::vector<float> a0(a, a + kN), b0(b, b + kN);
	const simtgpuContext ctx = runtime_context();
	const simtgpuManagedStats s0 = managed_stats(ctx);
	const auto t0 = std::chrono::steady_clock::now();
	scale_add<<<kBlocks, kThreads>>>(a, b, c, kN, passes);
	CHECK_LAUNCH();
	const double kernel_ms =
		std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
	const simtgpuManagedStats s1 = managed_stats(ctx);
	for (size_t i = 0; i < kN && ok; ++i)
		if (c[i] != want[i] || a[i] != a0[i] || b[i] != b0[i]) {
			std::printf("at %zu: a %g b %g c %g, want a %g b %g c %g\n", i, a[i], b[i],
				    c[i], a0[i], b0[i], want[i]);
			ok = false;
		}
	const simtgpuManagedStats s2 = managed_stats(ctx);

	const uint64_t to_vram = s1.pages_to_vram - s0.pages_to_vram;
	const uint64_t evicted = s1.pages_evicted - s0.pages_evicted;
	const uint64_t remote = s2.pages_remote - s0.pages_remote;
	const uint64_t home = s2.pages_to_host - s1.pages_to_host;
	std::printf("managed_oversubscription: %s transport, %s, %llu pages, %d passes: kernel %.1f "
		    "ms, %llu GPU faults, %llu to VRAM, %llu evicted while it ran, %llu mapped over "
		    "the bus, %llu brought home by the host's reads\n",
		    props.transport, oversubscribe ? "a cgroup VRAM limit" : "no limit",
		    (unsigned long long)kPages, passes, kernel_ms,
		    (unsigned long long)(s1.gpu_faults - s0.gpu_faults), (unsigned long long)to_vram,
		    (unsigned long long)evicted, (unsigned long long)remote,
		    (unsigned long long)home);
	if (migrates) {
		if (passes == 1 || !oversubscribe)
			ok = expect(to_vram == kPages, "every page went to VRAM once") && ok;
		else
			ok = expect(to_vram >= kPages && to_vram <= passes * kPages,
				    "every page went to VRAM once to once a pass") &&
			     ok;
		ok = expect(remote == 0, "no page was mapped over the bus instead") && ok;
		ok = expect(s2.pages_evicted == s1.pages_evicted, "the host's reads evicted nothing") &&
		     ok;
		ok = expect(evicted + home == to_vram, "every page that went came back once") && ok;
		if (oversubscribe)
			ok = expect(home <= kRoomPages,
				    "evictions kept the pages in VRAM within the limit") &&
			     ok;
		else
			ok = expect(evicted == 0, "nothing evicted where everything fits") && ok;
	} else {
		ok = expect(s2.pages_to_vram == 0 && s2.pages_evicted == 0 && s2.pages_remote == 0,
			    "no migration counted where nothing migrates") &&
		     ok;
	}
	CHECK_CUDA(cudaFree(a));
	CHECK_CUDA(cudaFree(b));
	CHECK_CUDA(cudaFree(c));
	return report("managed_oversubscription", ok);
}
