// SPDX-License-Identifier: MIT
// A kernel's atomicAdd_system and a CPU thread's atomic adds on the same word
// of mapped host memory at the same time (systemWideAtomics' pattern, issue
// 16): every add of both must count. The device does its atomics on host
// memory with the host's own compare-and-exchange (the simulator's
// dma_cmpxchg, a PCIe AtomicOp), which a read, compare and write would not be.
#include "test_util.h"

#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <sys/sysinfo.h>

constexpr int kBlocks = 32, kThreads = 128, kAddsPerThread = 16;
constexpr unsigned kDeviceAdds = kBlocks * kThreads * kAddsPerThread;

__global__ void add_to_host(unsigned *counter, unsigned long long *wide)
{
	for (int i = 0; i < kAddsPerThread; ++i) {
		atomicAdd_system(counter, 1u);
		atomicAdd_system(wide, 1ull << 32);
	}
}

// QEMU's TCG with one vCPU does the guest's atomics as a load and a store
// (they are host atomics only with several vCPUs), so there the CPU's side
// could lose adds whatever the device does: its part is left out.
static bool cpu_atomics_are_atomic_against_devices()
{
	std::ifstream cmdline("/proc/cmdline");
	const std::string line((std::istreambuf_iterator<char>(cmdline)), {});
	return line.find("simtgpu_accel=tcg") == std::string::npos || get_nprocs() > 1;
}

int main()
{
	unsigned *counter;
	unsigned long long *wide;
	CHECK_CUDA(cudaHostAlloc(&counter, sizeof(unsigned), cudaHostAllocMapped));
	CHECK_CUDA(cudaHostAlloc(&wide, sizeof(unsigned long long), cudaHostAllocMapped));
	*counter = 0;
	*wide = 0;
	unsigned *d_counter;
	unsigned long long *d_wide;
	CHECK_CUDA(cudaHostGetDevicePointer(&d_counter, counter, 0));
	CHECK_CUDA(cudaHostGetDevicePointer(&d_wide, wide, 0));

	const bool with_cpu = cpu_atomics_are_atomic_against_devices();
	if (!with_cpu)
		std::printf("system_atomics_cpu: one vCPU under TCG, the CPU's adds left out\n");
	add_to_host<<<kBlocks, kThreads>>>(d_counter, d_wide);
	CHECK_CUDA(cudaGetLastError());
	unsigned cpu_adds = 0;
	while (with_cpu && cudaStreamQuery(0) == cudaErrorNotReady) {
		for (int i = 0; i < 256; ++i) { // between the (slower) queries
			__atomic_fetch_add(counter, 1u, __ATOMIC_SEQ_CST);
			__atomic_fetch_add(wide, 1ull, __ATOMIC_SEQ_CST);
		}
		cpu_adds += 256;
	}
	CHECK_CUDA(cudaDeviceSynchronize());

	const unsigned got = __atomic_load_n(counter, __ATOMIC_SEQ_CST);
	const unsigned long long got_wide = __atomic_load_n(wide, __ATOMIC_SEQ_CST);
	const unsigned long long want_wide = (unsigned long long)kDeviceAdds << 32 | cpu_adds;
	std::printf("system_atomics_cpu: device %u, cpu %u, counter %u, wide 0x%llx\n",
		    kDeviceAdds, cpu_adds, got, got_wide);
	bool ok = got == kDeviceAdds + cpu_adds && got_wide == want_wide;
	if (!ok)
		std::printf("system_atomics_cpu: want counter %u, wide 0x%llx: adds were lost\n",
			    kDeviceAdds + cpu_adds, want_wide);
	CHECK_CUDA(cudaFreeHost(counter));
	CHECK_CUDA(cudaFreeHost(wide));
	return report("system_atomics_cpu", ok);
}
