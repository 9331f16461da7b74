// SPDX-License-Identifier: MIT
// Graph memory attributes (cudaDeviceGetGraphMemAttribute, as
// graphMemoryFootprint reads them) around allocation nodes made by capturing
// cudaMallocAsync/cudaFreeAsync and by cudaGraphAddMemAllocNode. simtgpu
// reserves each allocation node's memory when the node is made and keeps it
// (cuda-runtime.md), so in use and reserved both grow by exactly each node's
// size, the graph's launch works in that memory (checked against the CPU),
// and the high-water marks reset to the current figure. Only the marks, and
// only to zero, may be set, as CUDA allows.
#include <cuda_runtime.h>

#include "test_util.h"

namespace {

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

} // namespace

int main()
{
	bool ok = true;
	const uint64_t used0 = attribute(cudaGraphMemAttrUsedMemCurrent);
	const uint64_t reserved0 = attribute(cudaGraphMemAttrReservedMemCurrent);
	ok &= used0 == 0 && reserved0 == 0;

	const int n = 1000;
	const size_t bytes = n * sizeof(int);
	int *out;
	CHECK_CUDA(cudaMalloc(&out, bytes));
	cudaStream_t s;
	CHECK_CUDA(cudaStreamCreate(&s));
	cudaGraph_t graph;
	CHECK_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
	int *a, *b;
	CHECK_CUDA(cudaMallocAsync(&a, bytes, s));
	CHECK_CUDA(cudaMallocAsync(&b, 2 * bytes, s));
	fill<<<(n + 127) / 128, 128, 0, s>>>(a, n, 7);
	fill<<<(n + 127) / 128, 128, 0, s>>>(b, n, -100);
	sum_into<<<(n + 127) / 128, 128, 0, s>>>(a, b, out, n);
	CHECK_CUDA(cudaFreeAsync(a, s));
	CHECK_CUDA(cudaFreeAsync(b, s));
	CHECK_CUDA(cudaStreamEndCapture(s, &graph));
	ok &= attribute(cudaGraphMemAttrUsedMemCurrent) == 3 * bytes;
	ok &= attribute(cudaGraphMemAttrReservedMemCurrent) == 3 * bytes;

	// An explicit allocation node of its own graph.
	cudaGraph_t other;
	CHECK_CUDA(cudaGraphCreate(&other, 0));
	cudaMemAllocNodeParams alloc = {};
	alloc.poolProps.allocType = cudaMemAllocationTypePinned;
	alloc.poolProps.location.type = cudaMemLocationTypeDevice;
	alloc.poolProps.location.id = 0;
	alloc.bytesize = 4096;
	cudaGraphNode_t alloc_node;
	CHECK_CUDA(cudaGraphAddMemAllocNode(&alloc_node, other, nullptr, 0, &alloc));
	const uint64_t total = 3 * bytes + 4096;
	ok &= attribute(cudaGraphMemAttrUsedMemCurrent) == total;
	ok &= attribute(cudaGraphMemAttrUsedMemHigh) == total;
	ok &= attribute(cudaGraphMemAttrReservedMemHigh) == total;

	cudaGraphExec_t exec;
	CHECK_CUDA(cudaGraphInstantiate(&exec, graph, nullptr, nullptr, 0));
	CHECK_CUDA(cudaGraphLaunch(exec, s));
	CHECK_CUDA(cudaStreamSynchronize(s));
	int host[n];
	CHECK_CUDA(cudaMemcpy(host, out, bytes, cudaMemcpyDeviceToHost));
	for (int i = 0; i < n; ++i)
		ok &= host[i] == (7 + 3 * i) + (-100 + 3 * i);

	// Reset: the marks fall to what is in use; nothing else may be set.
	uint64_t zero = 0, one = 1;
	CHECK_CUDA(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &zero));
	CHECK_CUDA(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrReservedMemHigh, &zero));
	ok &= attribute(cudaGraphMemAttrUsedMemHigh) == total;
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

	CHECK_CUDA(cudaGraphExecDestroy(exec));
	CHECK_CUDA(cudaGraphDestroy(graph));
	CHECK_CUDA(cudaGraphDestroy(other));
	CHECK_CUDA(cudaStreamDestroy(s));
	CHECK_CUDA(cudaFree(out));
	return report("graph_mem_attributes", ok);
}
