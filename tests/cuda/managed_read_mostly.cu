// SPDX-License-Identifier: MIT
// Read-mostly managed memory (cudaMemAdviseSetReadMostly, issue 16). Under
// the kernel driver (uAPI 1.10, hardware 1.6) a GPU read duplicates each page
// into VRAM and the host keeps its copy: the host then reads without a page
// coming home, and a second kernel takes no fault. A host write drops that
// page's duplicate (the next kernel reads the new value, through one more
// duplication); a kernel's write collapses its page to the GPU's copy (the
// host's next read brings it home). The values are checked everywhere; the
// driver's counters (simtgpuCtxGetManagedStats) too: on the kernel driver they
// must show the duplication (a driver that cannot is a failure), in-process
// they must stay 0.
// simtcc-flags: -lsimtgpu
#include <vector>

#include "../../include/simtgpu/hw.h"
#include "driver_util.h"
#include "test_util.h"

constexpr size_t kPageFloats = 1024;
constexpr size_t kPages = 64;
constexpr size_t kN = kPages * kPageFloats;

__global__ void doubled(const float *v, float *out, size_t n)
{
	size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = 2.f * v[i];
}

__global__ void store(float *v, size_t i, float value)
{
	v[i] = value;
}

// out (device memory) against 2 * v, naming the first difference.
static bool doubled_ok(const char *when, const float *v, const float *out)
{
	std::vector<float> got(kN);
	CHECK_CUDA(cudaMemcpy(got.data(), out, kN * sizeof(float), cudaMemcpyDeviceToHost));
	for (size_t i = 0; i < kN; ++i)
		if (got[i] != 2.f * v[i]) {
			std::printf("%s: out[%zu] = %g, want %g\n", when, i, got[i], 2.f * v[i]);
			return false;
		}
	return true;
}

int main()
{
	bool ok = true;
	float *v = nullptr, *out = nullptr;
	CHECK_CUDA(cudaMallocManaged(&v, kN * sizeof(float)));
	CHECK_CUDA(cudaMalloc(&out, kN * sizeof(float)));
	const simtgpuContext ctx = runtime_context();
	const simtgpuDeviceProperties props = device_properties();
	const bool duplicates = std::strcmp(props.transport, "drm") == 0 &&
				(props.uapi_version & 0xffff) >= 10 &&
				(props.hw_version & 0xffff) >= 6 &&
				(props.caps & SIMTGPU_CAP_REPLAYABLE_FAULTS) &&
				props.unified_addressing;
	for (size_t i = 0; i < kN; ++i)
		v[i] = float(i % 4096) - 2048.f;
	CHECK_CUDA(cudaMemAdvise(v, kN * sizeof(float), cudaMemAdviseSetReadMostly, 0));
	const unsigned blocks = unsigned((kN + 255) / 256);

	const simtgpuManagedStats s0 = managed_stats(ctx);
	doubled<<<blocks, 256>>>(v, out, kN);
	CHECK_LAUNCH();
	ok = doubled_ok("kernel 1", v, out) && ok; // the host reads v too
	const simtgpuManagedStats s1 = managed_stats(ctx);
	doubled<<<blocks, 256>>>(v, out, kN);
	CHECK_LAUNCH();
	const simtgpuManagedStats s2 = managed_stats(ctx);

	v[3 * kPageFloats + 7] = 1234.5f; // page 3's duplicate goes
	doubled<<<blocks, 256>>>(v, out, kN);
	CHECK_LAUNCH();
	ok = doubled_ok("after a host write", v, out) && ok;
	const simtgpuManagedStats s3 = managed_stats(ctx);

	store<<<1, 1>>>(v, 5 * kPageFloats + 9, -42.f); // page 5: the GPU's copy only
	CHECK_LAUNCH();
	const simtgpuManagedStats s4 = managed_stats(ctx);
	ok = expect(v[5 * kPageFloats + 9] == -42.f, "the host reads the kernel's store") && ok;
	ok = expect(v[5 * kPageFloats + 10] == float((5 * kPageFloats + 10) % 4096) - 2048.f,
		    "the rest of the page is intact") &&
	     ok;
	const simtgpuManagedStats s5 = managed_stats(ctx);

	CHECK_CUDA(cudaMemAdvise(v, kN * sizeof(float), cudaMemAdviseUnsetReadMostly, 0));
	doubled<<<blocks, 256>>>(v, out, kN);
	CHECK_LAUNCH();
	ok = doubled_ok("after the advice is unset", v, out) && ok;

	std::printf("managed_read_mostly: %s transport, %zu pages; kernel 1: %llu duplicated, "
		    "%llu moved; host read: %llu home; kernel 2: %llu faults; after a host "
		    "write: %llu duplicated; after a kernel's store: %llu home\n",
		    props.transport, kPages,
		    (unsigned long long)(s1.pages_duplicated - s0.pages_duplicated),
		    (unsigned long long)(s1.pages_to_vram - s0.pages_to_vram),
		    (unsigned long long)(s1.pages_to_host - s0.pages_to_host),
		    (unsigned long long)(s2.gpu_faults - s1.gpu_faults),
		    (unsigned long long)(s3.pages_duplicated - s2.pages_duplicated),
		    (unsigned long long)(s5.pages_to_host - s4.pages_to_host));
	if (duplicates) {
		ok = expect(s1.pages_duplicated - s0.pages_duplicated == kPages,
			    "kernel 1 duplicated every page") &&
		     ok;
		ok = expect(s1.pages_to_vram == s0.pages_to_vram, "and moved none") && ok;
		ok = expect(s1.pages_to_host == s0.pages_to_host,
			    "the host read its own copies: nothing came home") &&
		     ok;
		ok = expect(s2.gpu_faults == s1.gpu_faults && s2.pages_duplicated == s1.pages_duplicated,
			    "kernel 2 read the duplicates without a fault") &&
		     ok;
		ok = expect(s3.pages_duplicated - s2.pages_duplicated == 1 &&
				    s3.gpu_faults - s2.gpu_faults == 1,
			    "a host write cost its page one fault and one duplication") &&
		     ok;
		ok = expect(s4.gpu_faults - s3.gpu_faults == 1 && s4.pages_to_vram == s3.pages_to_vram,
			    "a kernel's store took one fault and moved nothing") &&
		     ok;
		ok = expect(s5.pages_to_host - s4.pages_to_host == 1,
			    "the host's read brought the stored page home") &&
		     ok;
	} else {
		ok = managed_counters_apply("managed_read_mostly", props, duplicates) && ok;
		ok = expect(s5.pages_duplicated == 0 && s5.gpu_faults == 0 &&
				    s5.pages_to_vram == 0 && s5.pages_to_host == 0,
			    "no duplication or migration counted where nothing migrates") &&
		     ok;
	}
	CHECK_CUDA(cudaFree(v));
	CHECK_CUDA(cudaFree(out));
	return report("managed_read_mostly", ok);
}
