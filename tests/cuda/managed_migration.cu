// SPDX-License-Identifier: MIT
// Managed memory by page migration (issue 16). The host fills a managed
// array of many pages, a kernel transforms it in place, the host checks it
// against the CPU; the host writes it again and a second kernel reads it
// into device memory, checked too. Under the kernel driver with replayable
// GPU faults, the driver's counters (simtgpuCtxGetManagedStats, on the
// runtime's context from cuCtxGetCurrent) must say what moved: every page
// the kernel touched went to VRAM (ceil(bytes / 4096) pages), none came
// back until the host read them, and then all of them did. Elsewhere (the
// in-process transport, which maps host memory for the device instead) the
// counters must stay 0 and only the values are checked. Then prefetches
// (cudaMemPrefetchAsync): to the device, after which a kernel takes no GPU
// fault, and home, after which the host's reads move nothing; every page
// moves each time. Then advice: the host as the preferred place keeps the
// pages there, the kernel mapping them over the bus.
// simtcc-flags: -lsimtgpu
#include <chrono>
#include <vector>

#include "../../include/simtgpu/hw.h"
#include "driver_util.h"
#include "test_util.h"

constexpr size_t kN = 300 * 1024 + 123; // floats: 301 pages, the last one partly
constexpr size_t kPageBytes = 4096;
constexpr uint64_t kPages = (kN * sizeof(float) + kPageBytes - 1) / kPageBytes;

__global__ void affine(float *v, size_t n, float a, float b)
{
	size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (i < n)
		v[i] = a * v[i] + b;
}

__global__ void triple_into(const float *v, float *out, size_t n)
{
	size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = 3.f * v[i];
}

// Whether got[0..kN) is want's, naming the first element that is not.
static bool same(const char *what, const float *got, const std::vector<float> &want)
{
	for (size_t i = 0; i < kN; ++i)
		if (got[i] != want[i]) {
			std::printf("%s[%zu] = %g, want %g\n", what, i, got[i], want[i]);
			return false;
		}
	return true;
}

static double ms_since(std::chrono::steady_clock::time_point t0)
{
	return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
		.count();
}

int main()
{
	bool ok = true;
	float *v = nullptr;
	CHECK_CUDA(cudaMallocManaged(&v, kN * sizeof(float)));
	const simtgpuContext ctx = runtime_context();
	const simtgpuDeviceProperties props = device_properties();
	const bool migrates = managed_pages_migrate(props);
	cudaPointerAttributes attr{};
	CHECK_CUDA(cudaPointerGetAttributes(&attr, v));
	ok = expect(attr.type == cudaMemoryTypeManaged, "the pointer is managed memory") && ok;

	const simtgpuManagedStats s0 = managed_stats(ctx);
	Rng rng(16);
	std::vector<float> want(kN);
	for (size_t i = 0; i < kN; ++i) {
		v[i] = rng.uniform(-1.f, 1.f);
		want[i] = 2.f * v[i] - 1.f; // exact: no FMA question
	}
	const simtgpuManagedStats s1 = managed_stats(ctx);

	const unsigned blocks = unsigned((kN + 255) / 256);
	auto t0 = std::chrono::steady_clock::now();
	affine<<<blocks, 256>>>(v, kN, 2.f, -1.f);
	CHECK_LAUNCH();
	const double faulting_ms = ms_since(t0);
	const simtgpuManagedStats s2 = managed_stats(ctx);

	t0 = std::chrono::steady_clock::now();
	ok = same("v", v, want) && ok;
	const double host_read_ms = ms_since(t0);
	const simtgpuManagedStats s3 = managed_stats(ctx);

	// The host writes again; a second kernel reads into device memory.
	for (size_t i = 0; i < kN; ++i) {
		v[i] = float(int(i % 100000) - 50000) * 0.25f;
		want[i] = 3.f * v[i];
	}
	float *out = nullptr;
	CHECK_CUDA(cudaMalloc(&out, kN * sizeof(float)));
	cudaEvent_t e0, e1, e2;
	CHECK_CUDA(cudaEventCreate(&e0));
	CHECK_CUDA(cudaEventCreate(&e1));
	CHECK_CUDA(cudaEventCreate(&e2));
	t0 = std::chrono::steady_clock::now();
	CHECK_CUDA(cudaEventRecord(e0));
	triple_into<<<blocks, 256>>>(v, out, kN);
	CHECK_CUDA(cudaEventRecord(e1));
	CHECK_LAUNCH();
	const double second_ms = ms_since(t0);
	const simtgpuManagedStats s4 = managed_stats(ctx);
	// Once more, the pages now resident: no fault, device time without them.
	triple_into<<<blocks, 256>>>(v, out, kN);
	CHECK_CUDA(cudaEventRecord(e2));
	CHECK_LAUNCH();
	const simtgpuManagedStats s4b = managed_stats(ctx);
	float faulting_device_ms = 0, resident_device_ms = 0;
	CHECK_CUDA(cudaEventElapsedTime(&faulting_device_ms, e0, e1));
	CHECK_CUDA(cudaEventElapsedTime(&resident_device_ms, e1, e2));
	std::vector<float> got(kN);
	CHECK_CUDA(cudaMemcpy(got.data(), out, kN * sizeof(float), cudaMemcpyDeviceToHost));
	ok = same("out", got.data(), want) && ok;
	// The second kernel only read: the host's copy of out moved nothing back.
	const simtgpuManagedStats s5 = managed_stats(ctx);

	// An asynchronous copy from managed memory comes after the stream's
	// kernel that writes it (in stream order, as CUDA orders it).
	affine<<<blocks, 256>>>(v, kN, 1.f, 1.f);
	CHECK_CUDA(cudaMemcpyAsync(out, v, kN * sizeof(float), cudaMemcpyHostToDevice, 0));
	CHECK_CUDA(cudaMemcpy(got.data(), out, kN * sizeof(float), cudaMemcpyDeviceToHost));
	for (size_t i = 0; i < kN; ++i)
		want[i] = float(int(i % 100000) - 50000) * 0.25f + 1.f;
	ok = same("async copy: out", got.data(), want) && ok;

	const uint64_t to_vram1 = s2.pages_to_vram - s1.pages_to_vram;
	const uint64_t faults1 = s2.gpu_faults - s1.gpu_faults;
	const uint64_t to_host = s3.pages_to_host - s2.pages_to_host;
	const uint64_t to_vram2 = s4.pages_to_vram - s3.pages_to_vram;
	std::printf("managed_migration: %s transport, %llu pages; kernel 1: %llu GPU faults, "
		    "%llu pages to VRAM, %.1f ms; host read: %llu pages to host, %.1f ms; "
		    "kernel 2: %llu pages to VRAM, %.1f ms; device time of kernel 2 %.3f ms, "
		    "of the same kernel on resident pages %.3f ms\n",
		    props.transport, (unsigned long long)kPages, (unsigned long long)faults1,
		    (unsigned long long)to_vram1, faulting_ms, (unsigned long long)to_host,
		    host_read_ms, (unsigned long long)to_vram2, second_ms, faulting_device_ms,
		    resident_device_ms);
	if (migrates) {
		ok = expect(s1.pages_to_vram == s0.pages_to_vram &&
				    s1.pages_to_host == s0.pages_to_host &&
				    s1.gpu_faults == s0.gpu_faults,
			    "the host's first touch moves nothing (pages start in host memory)") &&
		     ok;
		ok = expect(to_vram1 == kPages, "kernel 1 moved every page it touched to VRAM") && ok;
		ok = expect(faults1 >= kPages, "each page moved took at least one GPU fault") && ok;
		ok = expect(s2.pages_to_host == s1.pages_to_host,
			    "nothing went back to the host while the kernel ran") &&
		     ok;
		ok = expect(to_host == kPages, "the host's read brought every page back") && ok;
		ok = expect(to_vram2 == kPages, "kernel 2 moved every page to VRAM again") && ok;
		ok = expect(s4b.gpu_faults == s4.gpu_faults && s4b.pages_to_vram == s4.pages_to_vram,
			    "a kernel on resident pages takes no fault") &&
		     ok;
		ok = expect(s5.pages_to_host == s4.pages_to_host,
			    "copying device memory back moved no managed page") &&
		     ok;
	} else {
		ok = managed_counters_apply("managed_migration", props, migrates) && ok;
		ok = expect(s5.gpu_faults == 0 && s5.pages_to_vram == 0 && s5.pages_to_host == 0,
			    "no migration counted where nothing migrates") &&
		     ok;
	}

	// Prefetches: to the device before a kernel, which then takes no fault;
	// home before the host reads, which then moves nothing.
	for (size_t i = 0; i < kN; ++i) {
		v[i] = float(i % 1000) * 0.5f;
		want[i] = 2.f * v[i] + 3.f;
	}
	const simtgpuManagedStats s6 = managed_stats(ctx);
	CHECK_CUDA(cudaMemPrefetchAsync(v, kN * sizeof(float), 0, 0));
	const simtgpuManagedStats s7 = managed_stats(ctx);
	affine<<<blocks, 256>>>(v, kN, 2.f, 3.f);
	CHECK_LAUNCH();
	const simtgpuManagedStats s8 = managed_stats(ctx);
	CHECK_CUDA(cudaMemPrefetchAsync(v, kN * sizeof(float), cudaCpuDeviceId, 0));
	const simtgpuManagedStats s9 = managed_stats(ctx);
	ok = same("after prefetches: v", v, want) && ok;
	const simtgpuManagedStats s10 = managed_stats(ctx);
	ok = expect(cudaMemPrefetchAsync(out, kN * sizeof(float), 0, 0) == cudaErrorInvalidValue,
		    "a prefetch of device memory is refused") &&
	     ok;
	cudaGetLastError();
	std::printf("managed_migration: prefetch to the device %llu pages, kernel %llu GPU "
		    "faults, prefetch home %llu pages, host read %llu more\n",
		    (unsigned long long)(s7.pages_to_vram - s6.pages_to_vram),
		    (unsigned long long)(s8.gpu_faults - s7.gpu_faults),
		    (unsigned long long)(s9.pages_to_host - s8.pages_to_host),
		    (unsigned long long)(s10.pages_to_host - s9.pages_to_host));
	if (migrates) {
		ok = expect(s7.pages_to_vram - s6.pages_to_vram == kPages,
			    "the prefetch moved every page to VRAM") &&
		     ok;
		ok = expect(s8.gpu_faults == s7.gpu_faults && s8.pages_to_vram == s7.pages_to_vram,
			    "the kernel after the prefetch took no fault") &&
		     ok;
		ok = expect(s9.pages_to_host - s8.pages_to_host == kPages,
			    "the prefetch home moved every page back") &&
		     ok;
		ok = expect(s10.pages_to_host == s9.pages_to_host,
			    "the host's read after it moved nothing") &&
		     ok;
		// libsimtgpu's own call says how many moved: none are left to move.
		size_t moved = 1;
		if (simtgpuMemPrefetchManaged(ctx, v, kN * sizeof(float), 1, nullptr, &moved) !=
		    SIMTGPU_SUCCESS) {
			std::printf("FAIL: simtgpuMemPrefetchManaged: %s\n", simtgpuGetErrorDetail());
			ok = false;
		}
		ok = expect(moved == 0, "a second prefetch home moves nothing") && ok;
	} else {
		ok = expect(s10.pages_to_vram == 0 && s10.pages_to_host == 0,
			    "prefetches move nothing where nothing migrates") &&
		     ok;
	}
	// Advice (cudaMemAdvise): with the host as the preferred place a kernel's
	// faults map the pages where they are, so none moves to VRAM and the
	// host's reads after it move nothing home.
	for (size_t i = 0; i < kN; ++i) {
		v[i] = float(i % 777);
		want[i] = 4.f * v[i] - 1.f;
	}
	CHECK_CUDA(cudaMemAdvise(v, kN * sizeof(float), cudaMemAdviseSetPreferredLocation,
				 cudaCpuDeviceId));
	const simtgpuManagedStats s11 = managed_stats(ctx);
	affine<<<blocks, 256>>>(v, kN, 4.f, -1.f);
	CHECK_LAUNCH();
	const simtgpuManagedStats s12 = managed_stats(ctx);
	ok = same("with the host preferred: v", v, want) && ok;
	const simtgpuManagedStats s13 = managed_stats(ctx);
	std::printf("managed_migration: with the host preferred, kernel %llu GPU faults, %llu pages "
		    "to VRAM, host read %llu pages home\n",
		    (unsigned long long)(s12.gpu_faults - s11.gpu_faults),
		    (unsigned long long)(s12.pages_to_vram - s11.pages_to_vram),
		    (unsigned long long)(s13.pages_to_host - s12.pages_to_host));
	if (migrates)
		ok = expect(s12.gpu_faults - s11.gpu_faults >= kPages &&
				    s12.pages_to_vram == s11.pages_to_vram &&
				    s13.pages_to_host == s12.pages_to_host,
			    "the host preferred: every page faulted once at least, none moved") &&
		     ok;
	ok = expect(cudaMemAdvise(v, kN * sizeof(float), cudaMemoryAdvise(99), 0) ==
			    cudaErrorInvalidValue,
		    "unknown advice is refused") &&
	     ok;
	cudaGetLastError();
	CHECK_CUDA(cudaEventDestroy(e0));
	CHECK_CUDA(cudaEventDestroy(e1));
	CHECK_CUDA(cudaEventDestroy(e2));
	CHECK_CUDA(cudaFree(out));
	CHECK_CUDA(cudaFree(v));
	return report("managed_migration", ok);
}
