// SPDX-License-Identifier: MIT
// The explicit CUDA graph API (issue 16), as simpleCudaGraphs and
// jacobiCudaGraphs use it: a graph of a host-to-device memcpy node, a memset
// node of 4-byte elements whose bytes differ, a kernel node after both, a
// host node, and a device-to-host memcpy node, added in an order that is not
// the dependency order (cudaGraphAddDependencies); instantiated, launched,
// checked against the CPU; then cudaGraphExecKernelNodeSetParams changes the
// kernel's arguments, and cudaGraphExecUpdate takes a clone's new ones.
// Graph memory: allocation and free nodes made explicitly and by capturing
// cudaMallocAsync/cudaFreeAsync, with 1-D memcpy nodes, launched twice.
#include <algorithm>
#include <vector>

#include "test_util.h"

constexpr int kN = 1000;

__global__ void axpy(const int *x, int *y, int a)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < kN)
		y[i] += a * x[i];
}

static void CUDART_CB count_call(void *counter) { ++*static_cast<int *>(counter); }

// y = fill + a * x, as the graph computes it.
static bool matches(const std::vector<int> &got, const std::vector<int> &x, int a)
{
	const int fill = 0x01020304;
	for (int i = 0; i < kN; ++i)
		if (got[i] != fill + a * x[i]) {
			std::printf("y[%d] = %d, want %d\n", i, got[i], fill + a * x[i]);
			return false;
		}
	return true;
}

int main()
{
	std::vector<int> x(kN), y(kN, -1);
	Rng rng(7);
	for (int &v : x)
		v = rng.range(-100, 100);
	int *dx, *dy;
	CHECK_CUDA(cudaMalloc(&dx, kN * sizeof(int)));
	CHECK_CUDA(cudaMalloc(&dy, kN * sizeof(int)));

	cudaGraph_t graph;
	CHECK_CUDA(cudaGraphCreate(&graph, 0));
	cudaGraphNode_t copy_out, host, kernel, fill, copy_in;
	cudaMemcpy3DParms out{};
	out.srcPtr = make_cudaPitchedPtr(dy, kN * sizeof(int), kN, 1);
	out.dstPtr = make_cudaPitchedPtr(y.data(), kN * sizeof(int), kN, 1);
	out.extent = make_cudaExtent(kN * sizeof(int), 1, 1);
	out.kind = cudaMemcpyDeviceToHost;
	// Added first, ordered last by the dependencies added below.
	CHECK_CUDA(cudaGraphAddMemcpyNode(&copy_out, graph, nullptr, 0, &out));
	cudaMemcpy3DParms in{};
	in.srcPtr = make_cudaPitchedPtr(x.data(), kN * sizeof(int), kN, 1);
	in.dstPtr = make_cudaPitchedPtr(dx, kN * sizeof(int), kN, 1);
	in.extent = make_cudaExtent(kN * sizeof(int), 1, 1);
	in.kind = cudaMemcpyHostToDevice;
	CHECK_CUDA(cudaGraphAddMemcpyNode(&copy_in, graph, nullptr, 0, &in));
	cudaMemsetParams ms{};
	ms.dst = dy;
	ms.value = 0x01020304;
	ms.elementSize = 4;
	ms.width = kN;
	ms.height = 1;
	CHECK_CUDA(cudaGraphAddMemsetNode(&fill, graph, nullptr, 0, &ms));
	int a = 3;
	void *args[] = {&dx, &dy, &a};
	cudaKernelNodeParams kp{};
	kp.func = (void *)axpy;
	kp.gridDim = dim3((kN + 127) / 128);
	kp.blockDim = dim3(128);
	kp.kernelParams = args;
	cudaGraphNode_t before_kernel[] = {copy_in, fill};
	CHECK_CUDA(cudaGraphAddKernelNode(&kernel, graph, before_kernel, 2, &kp));
	a = 99; // copied when the node was made
	int calls = 0;
	cudaHostNodeParams hp{count_call, &calls};
	CHECK_CUDA(cudaGraphAddHostNode(&host, graph, &kernel, 1, &hp));
	CHECK_CUDA(cudaGraphAddDependencies(graph, &host, &copy_out, 1));

	bool ok = true;
	size_t count = 0, roots = 0;
	CHECK_CUDA(cudaGraphGetNodes(graph, nullptr, &count));
	CHECK_CUDA(cudaGraphGetRootNodes(graph, nullptr, &roots));
	ok = expect(count == 5 && roots == 2, "five nodes, two roots") && ok;

	cudaGraphExec_t exec;
	CHECK_CUDA(cudaGraphInstantiate(&exec, graph, nullptr, nullptr, 0));
	cudaStream_t stream;
	CHECK_CUDA(cudaStreamCreate(&stream));
	// Uploaded ahead of its launch (cudaGraphsPerfScaling), which runs it once.
	CHECK_CUDA(cudaGraphUpload(exec, stream));
	ok = expect(cudaGraphUpload(nullptr, stream) == cudaErrorInvalidValue,
		    "no upload of what is not an instantiated graph") &&
	     ok;
	cudaGetLastError();
	// cuda_runtime.h's cudaEventCreate(event, flags): the launch is recorded.
	cudaEvent_t launched;
	CHECK_CUDA(cudaEventCreate(&launched, cudaEventDisableTiming));
	CHECK_CUDA(cudaGraphLaunch(exec, stream));
	CHECK_CUDA(cudaEventRecord(launched, stream));
	CHECK_CUDA(cudaEventSynchronize(launched));
	CHECK_CUDA(cudaEventDestroy(launched));
	ok = expect(matches(y, x, 3) && calls == 1, "the first launch") && ok;

	// New arguments for the instantiated kernel node.
	int b = -5;
	void *args_b[] = {&dx, &dy, &b};
	kp.kernelParams = args_b;
	CHECK_CUDA(cudaGraphExecKernelNodeSetParams(exec, kernel, &kp));
	CHECK_CUDA(cudaGraphLaunch(exec, stream));
	CHECK_CUDA(cudaStreamSynchronize(stream));
	ok = expect(matches(y, x, -5) && calls == 2, "after cudaGraphExecKernelNodeSetParams") && ok;

	// A clone with the kernel's factor changed, taken by cudaGraphExecUpdate.
	cudaGraph_t clone;
	CHECK_CUDA(cudaGraphClone(&clone, graph));
	std::vector<cudaGraphNode_t> nodes(5);
	CHECK_CUDA(cudaGraphGetNodes(clone, nodes.data(), &count));
	int c = 11;
	void *args_c[] = {&dx, &dy, &c};
	kp.kernelParams = args_c;
	for (cudaGraphNode_t n : nodes) {
		cudaGraphNodeType type;
		CHECK_CUDA(cudaGraphNodeGetType(n, &type));
		if (type == cudaGraphNodeTypeKernel)
			CHECK_CUDA(cudaGraphKernelNodeSetParams(n, &kp));
	}
	cudaGraphExecUpdateResult result;
	cudaGraphNode_t error_node;
	CHECK_CUDA(cudaGraphExecUpdate(exec, clone, &error_node, &result));
	ok = expect(result == cudaGraphExecUpdateSuccess, "the update succeeds") && ok;
	CHECK_CUDA(cudaGraphLaunch(exec, stream));
	CHECK_CUDA(cudaStreamSynchronize(stream));
	ok = expect(matches(y, x, 11) && calls == 3, "after cudaGraphExecUpdate") && ok;

	// A graph of another shape is refused.
	cudaGraph_t other;
	CHECK_CUDA(cudaGraphCreate(&other, 0));
	cudaGraphNode_t empty;
	CHECK_CUDA(cudaGraphAddEmptyNode(&empty, other, nullptr, 0));
	ok = expect(cudaGraphExecUpdate(exec, other, &error_node, &result) ==
				cudaErrorGraphExecUpdateFailure &&
			    result == cudaGraphExecUpdateErrorTopologyChanged,
		    "an update to another topology is refused") &&
	     ok;
	cudaGetLastError();
	// A cycle cannot be instantiated.
	ok = expect(cudaGraphAddDependencies(graph, &copy_out, &copy_in, 1) == cudaSuccess,
		    "edges between existing nodes") &&
	     ok;
	cudaGraphExec_t cyclic;
	ok = expect(cudaGraphInstantiate(&cyclic, graph, nullptr, nullptr, 0) == cudaErrorInvalidValue,
		    "a cycle is refused") &&
	     ok;
	cudaGetLastError();

	// Graph memory, explicitly: alloc -> copy in -> kernel -> copy out -> free.
	cudaGraph_t mg;
	CHECK_CUDA(cudaGraphCreate(&mg, 0));
	cudaMemAllocNodeParams ap{};
	ap.poolProps.allocType = cudaMemAllocationTypePinned;
	ap.poolProps.location.type = cudaMemLocationTypeDevice;
	ap.bytesize = 2 * kN * sizeof(int);
	cudaGraphNode_t alloc, in1, k1, out1, free1;
	CHECK_CUDA(cudaGraphAddMemAllocNode(&alloc, mg, nullptr, 0, &ap));
	int *gx = static_cast<int *>(ap.dptr), *gy = gx + kN;
	ok = expect(gx != nullptr, "the allocation node gives its address") && ok;
	std::vector<int> filled(kN, 0x01020304); // what the memset node wrote
	CHECK_CUDA(cudaGraphAddMemcpyNode1D(&in1, mg, &alloc, 1, gx, x.data(), kN * sizeof(int),
					    cudaMemcpyHostToDevice));
	cudaGraphNode_t in2;
	CHECK_CUDA(cudaGraphAddMemcpyNode1D(&in2, mg, &alloc, 1, gy, filled.data(), kN * sizeof(int),
					    cudaMemcpyHostToDevice));
	int f = 7;
	void *margs[] = {&gx, &gy, &f};
	kp.kernelParams = margs;
	cudaGraphNode_t both[] = {in1, in2};
	CHECK_CUDA(cudaGraphAddKernelNode(&k1, mg, both, 2, &kp));
	std::vector<int> my(kN);
	CHECK_CUDA(cudaGraphAddMemcpyNode1D(&out1, mg, &k1, 1, my.data(), gy, kN * sizeof(int),
					    cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaGraphAddMemFreeNode(&free1, mg, &out1, 1, gx));
	cudaGraphExec_t mexec;
	CHECK_CUDA(cudaGraphInstantiate(&mexec, mg, nullptr, nullptr, 0));
	for (int launch = 0; launch < 2; ++launch) {
		std::fill(my.begin(), my.end(), 0);
		CHECK_CUDA(cudaGraphLaunch(mexec, stream));
		CHECK_CUDA(cudaStreamSynchronize(stream));
		ok = expect(matches(my, x, 7), "a graph with its own memory") && ok;
	}
	ok = expect(cudaGraphAddMemFreeNode(&free1, mg, nullptr, 0, dx) == cudaErrorInvalidValue,
		    "a free node of memory not from a graph is refused") &&
	     ok;
	cudaGetLastError();

	// The same by capture: cudaMallocAsync and cudaFreeAsync become nodes.
	cudaStream_t cs;
	CHECK_CUDA(cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking));
	CHECK_CUDA(cudaStreamBeginCapture(cs, cudaStreamCaptureModeGlobal));
	int *cx, *cy;
	CHECK_CUDA(cudaMallocAsync(&cx, kN * sizeof(int), cs));
	CHECK_CUDA(cudaMallocAsync(&cy, kN * sizeof(int), cs));
	CHECK_CUDA(cudaMemcpyAsync(cx, x.data(), kN * sizeof(int), cudaMemcpyHostToDevice, cs));
	CHECK_CUDA(cudaMemcpyAsync(cy, filled.data(), kN * sizeof(int), cudaMemcpyHostToDevice, cs));
	int g = -2;
	axpy<<<(kN + 127) / 128, 128, 0, cs>>>(cx, cy, g);
	CHECK_CUDA(cudaMemcpyAsync(my.data(), cy, kN * sizeof(int), cudaMemcpyDeviceToHost, cs));
	CHECK_CUDA(cudaFreeAsync(cx, cs));
	CHECK_CUDA(cudaFreeAsync(cy, cs));
	cudaGraph_t captured;
	CHECK_CUDA(cudaStreamEndCapture(cs, &captured));
	size_t captured_nodes = 0;
	CHECK_CUDA(cudaGraphGetNodes(captured, nullptr, &captured_nodes));
	ok = expect(captured_nodes == 8, "eight captured nodes, two of them allocations") && ok;
	cudaGraphExec_t cexec;
	CHECK_CUDA(cudaGraphInstantiate(&cexec, captured, nullptr, nullptr, 0));
	for (int launch = 0; launch < 2; ++launch) {
		std::fill(my.begin(), my.end(), 0);
		CHECK_CUDA(cudaGraphLaunch(cexec, cs));
		CHECK_CUDA(cudaStreamSynchronize(cs));
		ok = expect(matches(my, x, -2), "a captured graph with its own memory") && ok;
	}
	CHECK_CUDA(cudaDeviceGraphMemTrim(0));
	CHECK_CUDA(cudaGraphExecDestroy(mexec));
	CHECK_CUDA(cudaGraphExecDestroy(cexec));
	CHECK_CUDA(cudaGraphDestroy(mg));
	CHECK_CUDA(cudaGraphDestroy(captured));
	CHECK_CUDA(cudaStreamDestroy(cs));

	CHECK_CUDA(cudaGraphExecDestroy(exec));
	CHECK_CUDA(cudaGraphDestroy(graph));
	CHECK_CUDA(cudaGraphDestroy(clone));
	CHECK_CUDA(cudaGraphDestroy(other));
	CHECK_CUDA(cudaStreamDestroy(stream));
	return report("graphs_explicit", ok);
}
