// SPDX-License-Identifier: MIT
// Graph memory (allocation and free nodes) and its attributes
// (cudaDeviceGetGraphMemAttribute, as graphMemoryFootprint reads them), with
// CUDA's rules: instantiating reserves no memory; a launch's allocation
// nodes take it (whole pages here) and a free node keeps it for the next
// launch, so relaunching does not grow the footprint; an allocation node that
// runs after another's free node in the same graph reuses its address; graphs
// launched one after another on a stream share memory, while one on another
// stream needs its own; a launch whose last allocation was never freed fails
// unless the graph was instantiated with cudaGraphInstantiateFlagAutoFreeOnLaunch;
// cudaDeviceGraphMemTrim gives back what no allocation holds; such a graph is
// not cloned. Every figure is
// computed here from the sizes, every kernel's result checked against the
// CPU. Only the high-water marks, and only to zero, may be set.
#include <cuda_runtime.h>

#include "test_util.h"

namespace {

constexpr int kN = 1000;
constexpr size_t kBytes = kN * sizeof(int);
constexpr uint64_t kPage = 4096; // graph memory comes in whole pages

uint64_t pages(size_t bytes) { return (bytes + kPage - 1) / kPage * kPage; }

__global__ void fill(int *p, int n, int base)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		p[i] = base + 3 * i;
}

__global__ void sum_into(const int *a, const int *b, int *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = a[i] + b[i];
}

uint64_t attribute(cudaGraphMemAttributeType attr)
{
	uint64_t value = ~0ull;
	CHECK_CUDA(cudaDeviceGetGraphMemAttribute(0, attr, &value));
	return value;
}

bool used_is(uint64_t want, const char *when)
{
	const uint64_t used = attribute(cudaGraphMemAttrUsedMemCurrent);
	const uint64_t reserved = attribute(cudaGraphMemAttrReservedMemCurrent);
	if (used == want && reserved == want)
		return true;
	std::printf("%s: graph memory in use %llu, reserved %llu, want %llu\n", when,
		    (unsigned long long)used, (unsigned long long)reserved,
		    (unsigned long long)want);
	return false;
}

// Whether out[i] == base + step * i for every i.
bool out_holds(const int *out, int base, int step, const char *when)
{
	int host[kN];
	CHECK_CUDA(cudaMemcpy(host, out, kBytes, cudaMemcpyDeviceToHost));
	for (int i = 0; i < kN; ++i)
		if (host[i] != base + step * i) {
			std::printf("%s: out[%d] = %d, want %d\n", when, i, host[i], base + step * i);
			return false;
		}
	return true;
}

cudaMemAllocNodeParams alloc_params(size_t bytes)
{
	cudaMemAllocNodeParams alloc = {};
	alloc.poolProps.allocType = cudaMemAllocationTypePinned;
	alloc.poolProps.location.type = cudaMemLocationTypeDevice;
	alloc.poolProps.location.id = 0;
	alloc.bytesize = bytes;
	return alloc;
}

} // namespace

int main()
{
	bool ok = used_is(0, "at start");
	int *out;
	CHECK_CUDA(cudaMalloc(&out, kBytes));
	cudaStream_t s, other_stream;
	CHECK_CUDA(cudaStreamCreate(&s));
	CHECK_CUDA(cudaStreamCreate(&other_stream));

	// Captured: two allocations, three kernels, two frees.
	cudaGraph_t captured;
	CHECK_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
	int *a, *b;
	CHECK_CUDA(cudaMallocAsync(&a, kBytes, s));
	CHECK_CUDA(cudaMallocAsync(&b, 2 * kBytes, s));
	fill<<<(kN + 127) / 128, 128, 0, s>>>(a, kN, 7);
	fill<<<(kN + 127) / 128, 128, 0, s>>>(b, kN, -100);
	sum_into<<<(kN + 127) / 128, 128, 0, s>>>(a, b, out, kN);
	CHECK_CUDA(cudaFreeAsync(a, s));
	CHECK_CUDA(cudaFreeAsync(b, s));
	CHECK_CUDA(cudaStreamEndCapture(s, &captured));
	ok &= a != b;
	cudaGraphExec_t captured_exec;
	CHECK_CUDA(cudaGraphInstantiate(&captured_exec, captured, nullptr, nullptr, 0));
	ok &= used_is(0, "instantiated, never launched");

	const uint64_t captured_bytes = pages(kBytes) + pages(2 * kBytes);
	CHECK_CUDA(cudaGraphLaunch(captured_exec, s));
	CHECK_CUDA(cudaStreamSynchronize(s));
	ok &= out_holds(out, 7 - 100, 6, "first launch");
	ok &= used_is(captured_bytes, "after the first launch");
	ok &= attribute(cudaGraphMemAttrUsedMemHigh) == captured_bytes;
	CHECK_CUDA(cudaMemset(out, 0, kBytes));
	CHECK_CUDA(cudaGraphLaunch(captured_exec, s));
	CHECK_CUDA(cudaStreamSynchronize(s));
	ok &= out_holds(out, 7 - 100, 6, "relaunch");
	ok &= used_is(captured_bytes, "a relaunch reuses its memory");

	// Explicit: x, freed, then y after the free (x's address) and z beside
	// it all (an address of its own); one kernel writes through y.
	cudaGraph_t explicit_graph;
	CHECK_CUDA(cudaGraphCreate(&explicit_graph, 0));
	cudaMemAllocNodeParams px = alloc_params(3 * kBytes);
	cudaGraphNode_t alloc_x, free_x, alloc_y, alloc_z, kernel_y, copy_y, free_y, free_z;
	CHECK_CUDA(cudaGraphAddMemAllocNode(&alloc_x, explicit_graph, nullptr, 0, &px));
	CHECK_CUDA(cudaGraphAddMemFreeNode(&free_x, explicit_graph, &alloc_x, 1, px.dptr));
	cudaMemAllocNodeParams py = alloc_params(kBytes);
	CHECK_CUDA(cudaGraphAddMemAllocNode(&alloc_y, explicit_graph, &free_x, 1, &py));
	cudaMemAllocNodeParams pz = alloc_params(kBytes);
	CHECK_CUDA(cudaGraphAddMemAllocNode(&alloc_z, explicit_graph, nullptr, 0, &pz));
	ok &= expect(py.dptr == px.dptr, "an allocation after a free reuses its address");
	ok &= expect(pz.dptr != px.dptr, "an allocation beside another gets its own address");
	int *y = static_cast<int *>(py.dptr);
	int base = 40;
	int n = kN;
	void *fill_args[] = {&y, &n, &base};
	cudaKernelNodeParams kp = {};
	kp.func = reinterpret_cast<void *>(fill);
	kp.gridDim = dim3((kN + 127) / 128);
	kp.blockDim = dim3(128);
	kp.kernelParams = fill_args;
	CHECK_CUDA(cudaGraphAddKernelNode(&kernel_y, explicit_graph, &alloc_y, 1, &kp));
	CHECK_CUDA(cudaGraphAddMemcpyNode1D(&copy_y, explicit_graph, &kernel_y, 1, out, y, kBytes,
					    cudaMemcpyDeviceToDevice));
	CHECK_CUDA(cudaGraphAddMemFreeNode(&free_y, explicit_graph, &copy_y, 1, py.dptr));
	CHECK_CUDA(cudaGraphAddMemFreeNode(&free_z, explicit_graph, &alloc_z, 1, pz.dptr));
	cudaGraph_t clone;
	ok &= expect(cudaGraphClone(&clone, explicit_graph) == cudaErrorNotSupported,
		     "a graph with memory nodes is not cloned (as in CUDA)");
	cudaGetLastError();
	cudaGraphExec_t explicit_exec;
	CHECK_CUDA(cudaGraphInstantiate(&explicit_exec, explicit_graph, nullptr, nullptr, 0));
	const uint64_t explicit_bytes = pages(3 * kBytes) + pages(kBytes);

	// After the captured graph on the same stream: its memory is given back
	// and the explicit graph's taken (x's range serves y too).
	CHECK_CUDA(cudaGraphLaunch(explicit_exec, s));
	CHECK_CUDA(cudaStreamSynchronize(s));
	ok &= out_holds(out, 40, 3, "explicit graph");
	ok &= used_is(explicit_bytes, "graphs one after another on a stream share memory");
	// The captured graph on another stream cannot take memory freed on s.
	CHECK_CUDA(cudaGraphLaunch(captured_exec, other_stream));
	CHECK_CUDA(cudaStreamSynchronize(other_stream));
	ok &= out_holds(out, 7 - 100, 6, "captured graph on another stream");
	ok &= used_is(explicit_bytes + captured_bytes, "a graph on another stream needs its own");

	// A graph that allocates and never frees.
	cudaGraph_t unfreed;
	CHECK_CUDA(cudaGraphCreate(&unfreed, 0));
	cudaMemAllocNodeParams pu = alloc_params(kBytes);
	cudaGraphNode_t alloc_u;
	CHECK_CUDA(cudaGraphAddMemAllocNode(&alloc_u, unfreed, nullptr, 0, &pu));
	cudaGraphExec_t unfreed_exec, auto_free_exec;
	CHECK_CUDA(cudaGraphInstantiate(&unfreed_exec, unfreed, nullptr, nullptr, 0));
	CHECK_CUDA(cudaGraphLaunch(unfreed_exec, other_stream));
	CHECK_CUDA(cudaStreamSynchronize(other_stream));
	ok &= used_is(explicit_bytes + pages(kBytes), "an unfreed allocation keeps its memory");
	ok &= expect(cudaGraphLaunch(unfreed_exec, other_stream) == cudaErrorInvalidValue,
		     "relaunching before the allocation is freed fails");
	cudaGetLastError();
	CHECK_CUDA(cudaFree(pu.dptr));
	ok &= expect(cudaFree(pu.dptr) == cudaErrorInvalidValue, "a second free fails");
	cudaGetLastError();
	CHECK_CUDA(cudaGraphLaunch(unfreed_exec, other_stream)); // freed: it may run again
	CHECK_CUDA(cudaStreamSynchronize(other_stream));
	CHECK_CUDA(cudaGraphExecDestroy(unfreed_exec));
	CHECK_CUDA(cudaGraphInstantiateWithFlags(&auto_free_exec, unfreed,
						 cudaGraphInstantiateFlagAutoFreeOnLaunch));
	CHECK_CUDA(cudaGraphLaunch(auto_free_exec, other_stream));
	CHECK_CUDA(cudaStreamSynchronize(other_stream));
	ok &= used_is(explicit_bytes + pages(kBytes), "an auto-free relaunch keeps the memory");

	// Trimming gives back everything but the allocation still held.
	CHECK_CUDA(cudaDeviceGraphMemTrim(0));
	ok &= used_is(pages(kBytes), "trimmed, one allocation held");
	CHECK_CUDA(cudaFreeAsync(pu.dptr, other_stream));
	CHECK_CUDA(cudaStreamSynchronize(other_stream));
	ok &= used_is(pages(kBytes), "freed, not trimmed");
	CHECK_CUDA(cudaDeviceGraphMemTrim(0));
	ok &= used_is(0, "freed and trimmed");

	// Reset: the marks fall to what is in use; nothing else may be set.
	uint64_t zero = 0, one = 1;
	ok &= attribute(cudaGraphMemAttrUsedMemHigh) == explicit_bytes + captured_bytes;
	CHECK_CUDA(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &zero));
	CHECK_CUDA(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrReservedMemHigh, &zero));
	ok &= attribute(cudaGraphMemAttrUsedMemHigh) == 0;
	ok &= cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &one) ==
	      cudaErrorInvalidValue;
	ok &= cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &zero) ==
	      cudaErrorInvalidValue;
	int devices = 0;
	CHECK_CUDA(cudaGetDeviceCount(&devices));
	ok &= cudaDeviceGetGraphMemAttribute(devices, cudaGraphMemAttrUsedMemCurrent, &one) ==
	      cudaErrorInvalidDevice;
	ok &= cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, nullptr) ==
	      cudaErrorInvalidValue;
	cudaGetLastError();

	CHECK_CUDA(cudaGraphExecDestroy(auto_free_exec));
	CHECK_CUDA(cudaGraphExecDestroy(explicit_exec));
	CHECK_CUDA(cudaGraphExecDestroy(captured_exec));
	CHECK_CUDA(cudaGraphDestroy(unfreed));
	CHECK_CUDA(cudaGraphDestroy(explicit_graph));
	CHECK_CUDA(cudaGraphDestroy(captured));
	CHECK_CUDA(cudaStreamDestroy(s));
	CHECK_CUDA(cudaStreamDestroy(other_stream));
	CHECK_CUDA(cudaFree(out));
	return report("graph_mem_attributes", ok);
}
