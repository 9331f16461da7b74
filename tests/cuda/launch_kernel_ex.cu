// SPDX-License-Identifier: MIT
// cudaLaunchKernelEx (issue 16): the C++ template converts its arguments to
// the kernel's parameter types and cudaLaunchKernelExC takes them as
// pointers; the attributes each do what CUDA's do here: cooperative (a grid
// that syncs, and the refusal of one too large to be resident), priority (a
// launch at another priority than its stream's stays in the stream's
// order, between a slow kernel before it and one after it), an access policy
// window (a hint on a device without persisting lines; a bad one refused),
// cluster dimensions of 1x1x1 only, the synchronisation policy and
// programmatic serialisation accepted; bad attribute lists refused. Graph
// kernel nodes keep attributes: captured from cudaLaunchKernelEx, set, read
// and copied with cudaGraphKernelNode*Attribute, applied at each launch.
// Every result is checked against the CPU.
#include <cooperative_groups.h>
#include <vector>

#include "test_util.h"

namespace cg = cooperative_groups;

__global__ void scale_add(const float *x, float *y, float a, size_t n)
{
	const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = a * x[i] + y[i];
}

// Each block writes its partial sum, the grid syncs, block 0 adds them up.
__global__ void grid_sum(const int *in, int *partial, int *total, int n)
{
	cg::grid_group grid = cg::this_grid();
	__shared__ int block_sum;
	if (threadIdx.x == 0)
		block_sum = 0;
	__syncthreads();
	for (int i = int(grid.thread_rank()); i < n; i += int(grid.size()))
		atomicAdd(&block_sum, in[i]);
	__syncthreads();
	if (threadIdx.x == 0)
		partial[blockIdx.x] = block_sum;
	grid.sync();
	if (blockIdx.x == 0 && threadIdx.x == 0) {
		int s = 0;
		for (unsigned b = 0; b < gridDim.x; ++b)
			s += partial[b];
		*total = s;
	}
}

// A slow producer: every element takes `spin` iterations to settle.
__global__ void produce(int *x, int n, int spin)
{
	const int i = int(blockIdx.x * blockDim.x + threadIdx.x);
	if (i >= n)
		return;
	int v = i;
	for (int k = 0; k < spin; ++k)
		v = (v * 7 + 3) % 1000003;
	x[i] = v;
}

__global__ void add_one(const int *in, int *out, int n)
{
	const int i = int(blockIdx.x * blockDim.x + threadIdx.x);
	if (i < n)
		out[i] = in[i] + 1;
}

static int produced(int i, int spin)
{
	int v = i;
	for (int k = 0; k < spin; ++k)
		v = (v * 7 + 3) % 1000003;
	return v;
}

// Launches with one attribute; the launch's own error.
static cudaError_t launch_with(const cudaLaunchAttribute &attr, float *x, float *y, size_t n)
{
	cudaLaunchAttribute attrs[1] = {attr};
	cudaLaunchConfig_t config{};
	config.gridDim = dim3(unsigned((n + 127) / 128));
	config.blockDim = dim3(128);
	config.attrs = attrs;
	config.numAttrs = 1;
	const cudaError_t err = cudaLaunchKernelEx(&config, scale_add, x, y, 1.0f, n);
	cudaGetLastError();
	return err;
}

int main()
{
	bool ok = true;
	const size_t n = 5000;
	std::vector<float> hx(n), hy(n);
	Rng rng(7);
	for (size_t i = 0; i < n; ++i) {
		hx[i] = rng.uniform(-1, 1);
		hy[i] = rng.uniform(-1, 1);
	}
	float *x, *y;
	CHECK_CUDA(cudaMalloc(&x, n * sizeof(float)));
	CHECK_CUDA(cudaMalloc(&y, n * sizeof(float)));
	CHECK_CUDA(cudaMemcpy(x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice));
	CHECK_CUDA(cudaMemcpy(y, hy.data(), n * sizeof(float), cudaMemcpyHostToDevice));

	// The template: 2 (an int) becomes the float parameter, n the size_t.
	cudaLaunchConfig_t config{};
	config.gridDim = dim3(unsigned((n + 255) / 256));
	config.blockDim = dim3(256);
	CHECK_CUDA(cudaLaunchKernelEx(&config, scale_add, x, y, 2, int(n)));
	// cudaLaunchKernelExC: pointers to the values.
	float a = 0.5f;
	size_t count = n;
	void *args[] = {&x, &y, &a, &count};
	CHECK_CUDA(cudaLaunchKernelExC(&config, (const void *)scale_add, args));
	std::vector<float> got(n);
	CHECK_CUDA(cudaMemcpy(got.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost));
	int wrong = 0;
	for (size_t i = 0; i < n; ++i) {
		const float want = 0.5f * hx[i] + (2.0f * hx[i] + hy[i]);
		wrong += ulp_distance(got[i], want) > 1;
	}
	ok = expect(wrong == 0, "scale_add through cudaLaunchKernelEx and cudaLaunchKernelExC") && ok;

	// Attributes accepted as hints, and refused ones.
	cudaLaunchAttribute attr{};
	attr.id = cudaLaunchAttributeClusterDimension;
	attr.val.clusterDim.x = attr.val.clusterDim.y = attr.val.clusterDim.z = 1;
	ok = expect(launch_with(attr, x, y, n) == cudaSuccess, "cluster 1x1x1") && ok;
	attr.val.clusterDim.x = 2;
	ok = expect(launch_with(attr, x, y, n) == cudaErrorNotSupported, "cluster 2x1x1 refused") && ok;
	attr.val.clusterDim.x = 0;
	ok = expect(launch_with(attr, x, y, n) == cudaErrorInvalidValue, "cluster 0 refused") && ok;
	attr = cudaLaunchAttribute{};
	attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
	attr.val.programmaticStreamSerializationAllowed = 1;
	ok = expect(launch_with(attr, x, y, n) == cudaSuccess, "programmatic serialisation") && ok;
	attr = cudaLaunchAttribute{};
	attr.id = cudaLaunchAttributeSynchronizationPolicy;
	attr.val.syncPolicy = cudaSyncPolicyYield;
	ok = expect(launch_with(attr, x, y, n) == cudaSuccess, "synchronisation policy") && ok;
	attr.val.syncPolicy = cudaSynchronizationPolicy(9);
	ok = expect(launch_with(attr, x, y, n) == cudaErrorInvalidValue, "bad sync policy") && ok;
	attr = cudaLaunchAttribute{};
	attr.id = cudaLaunchAttributeID(11);
	ok = expect(launch_with(attr, x, y, n) == cudaErrorInvalidValue, "unknown attribute") && ok;
	attr = cudaLaunchAttribute{};
	attr.id = cudaLaunchAttributeAccessPolicyWindow;
	attr.val.accessPolicyWindow.base_ptr = x;
	attr.val.accessPolicyWindow.num_bytes = 4096;
	attr.val.accessPolicyWindow.hitRatio = 2.0f;
	ok = expect(launch_with(attr, x, y, n) == cudaErrorInvalidValue, "hitRatio 2 refused") && ok;
	attr.val.accessPolicyWindow.hitRatio = 1.0f;
	attr.val.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
	ok = expect(launch_with(attr, x, y, n) == cudaSuccess, "a window") && ok;
	config.numAttrs = 1;
	config.attrs = nullptr;
	ok = expect(cudaLaunchKernelEx(&config, scale_add, x, y, 1.0f, n) == cudaErrorInvalidValue,
		    "numAttrs without attrs") &&
	     ok;
	cudaGetLastError();
	// The accepted launches above added x to y four times more.
	CHECK_CUDA(cudaMemcpy(got.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost));
	wrong = 0;
	for (size_t i = 0; i < n; ++i) {
		float want = 0.5f * hx[i] + (2.0f * hx[i] + hy[i]);
		for (int k = 0; k < 4; ++k)
			want = hx[i] + want;
		wrong += ulp_distance(got[i], want) > 4;
	}
	ok = expect(wrong == 0, "exactly the accepted launches ran") && ok;

	// Cooperative: every block resident, or refused.
	cudaDeviceProp prop;
	CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
	const int m = 10000;
	std::vector<int> hin(m);
	long long want_sum = 0;
	for (int i = 0; i < m; ++i)
		want_sum += hin[i] = rng.range(-100, 100);
	int *in, *partial, *total;
	CHECK_CUDA(cudaMalloc(&in, m * sizeof(int)));
	CHECK_CUDA(cudaMalloc(&total, sizeof(int)));
	CHECK_CUDA(cudaMemcpy(in, hin.data(), m * sizeof(int), cudaMemcpyHostToDevice));
	int per_sm = 0;
	CHECK_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, grid_sum, 128, 0));
	const unsigned blocks = unsigned(per_sm * prop.multiProcessorCount);
	CHECK_CUDA(cudaMalloc(&partial, (blocks + 1) * sizeof(int)));
	cudaLaunchAttribute coop{};
	coop.id = cudaLaunchAttributeCooperative;
	coop.val.cooperative = 1;
	cudaLaunchConfig_t coop_config{};
	coop_config.gridDim = dim3(blocks);
	coop_config.blockDim = dim3(128);
	coop_config.attrs = &coop;
	coop_config.numAttrs = 1;
	CHECK_CUDA(cudaLaunchKernelEx(&coop_config, grid_sum, in, partial, total, m));
	int got_sum = 0;
	CHECK_CUDA(cudaMemcpy(&got_sum, total, sizeof(int), cudaMemcpyDeviceToHost));
	ok = expect(got_sum == want_sum, "cooperative grid sum") && ok;
	coop_config.gridDim = dim3(blocks + 1);
	ok = expect(cudaLaunchKernelEx(&coop_config, grid_sum, in, partial, total, m) ==
			    cudaErrorCooperativeLaunchTooLarge,
		    "a cooperative grid larger than the device refused") &&
	     ok;
	cudaGetLastError();

	// Priority: a high-priority launch between two normal ones on a normal
	// stream sees the first's results and the third sees its own.
	cudaStream_t s, high;
	CHECK_CUDA(cudaStreamCreate(&s));
	CHECK_CUDA(cudaStreamCreateWithPriority(&high, cudaStreamNonBlocking, -1));
	int priority = 1;
	CHECK_CUDA(cudaStreamGetPriority(s, &priority));
	ok = expect(priority == 0, "a stream's priority is 0") && ok;
	CHECK_CUDA(cudaStreamGetPriority(high, &priority));
	ok = expect(priority == -1, "a high stream's priority is -1") && ok;
	const int k = 4096, spin = 2000;
	int *p0, *p1, *p2;
	CHECK_CUDA(cudaMalloc(&p0, k * sizeof(int)));
	CHECK_CUDA(cudaMalloc(&p1, k * sizeof(int)));
	CHECK_CUDA(cudaMalloc(&p2, k * sizeof(int)));
	cudaLaunchAttribute prio{};
	prio.id = cudaLaunchAttributePriority;
	prio.val.priority = -1;
	cudaLaunchConfig_t prio_config{};
	prio_config.gridDim = dim3(k / 128);
	prio_config.blockDim = dim3(128);
	prio_config.stream = s;
	prio_config.attrs = &prio;
	prio_config.numAttrs = 1;
	produce<<<k / 128, 128, 0, s>>>(p0, k, spin);
	CHECK_CUDA(cudaLaunchKernelEx(&prio_config, add_one, (const int *)p0, p1, k));
	add_one<<<k / 128, 128, 0, s>>>(p1, p2, k);
	CHECK_CUDA(cudaGetLastError());
	std::vector<int> hp(k);
	CHECK_CUDA(cudaMemcpyAsync(hp.data(), p2, k * sizeof(int), cudaMemcpyDeviceToHost, s));
	CHECK_CUDA(cudaStreamSynchronize(s));
	wrong = 0;
	for (int i = 0; i < k; ++i)
		wrong += hp[i] != produced(i, spin) + 2;
	ok = expect(wrong == 0, "a priority launch in its stream's order") && ok;

	// Graphs: a captured launch keeps its attribute, explicit nodes get them.
	cudaGraph_t graph;
	CHECK_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
	produce<<<k / 128, 128, 0, s>>>(p0, k, spin);
	CHECK_CUDA(cudaLaunchKernelEx(&prio_config, add_one, (const int *)p0, p1, k));
	CHECK_CUDA(cudaStreamEndCapture(s, &graph));
	size_t count_nodes = 0;
	CHECK_CUDA(cudaGraphGetNodes(graph, nullptr, &count_nodes));
	std::vector<cudaGraphNode_t> nodes(count_nodes);
	CHECK_CUDA(cudaGraphGetNodes(graph, nodes.data(), &count_nodes));
	ok = expect(count_nodes == 2, "two captured nodes") && ok;
	int with_priority = 0;
	cudaKernelNodeAttrValue value{};
	for (cudaGraphNode_t node : nodes) {
		CHECK_CUDA(cudaGraphKernelNodeGetAttribute(node, cudaKernelNodeAttributePriority,
							   &value));
		with_priority += value.priority == -1;
	}
	ok = expect(with_priority == 1, "the captured launch's priority kept") && ok;
	cudaKernelNodeAttrValue window{};
	window.accessPolicyWindow.base_ptr = p0;
	window.accessPolicyWindow.num_bytes = k * sizeof(int);
	window.accessPolicyWindow.hitRatio = 0.5f;
	window.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
	window.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
	CHECK_CUDA(cudaGraphKernelNodeSetAttribute(
		nodes[0], cudaKernelNodeAttributeAccessPolicyWindow, &window));
	CHECK_CUDA(cudaGraphKernelNodeCopyAttributes(nodes[1], nodes[0]));
	value = cudaKernelNodeAttrValue{};
	CHECK_CUDA(cudaGraphKernelNodeGetAttribute(
		nodes[1], cudaKernelNodeAttributeAccessPolicyWindow, &value));
	ok = expect(value.accessPolicyWindow.base_ptr == p0 &&
			    value.accessPolicyWindow.hitRatio == 0.5f,
		    "a window set, copied and read back") &&
	     ok;
	window.accessPolicyWindow.missProp = cudaAccessPropertyPersisting;
	ok = expect(cudaGraphKernelNodeSetAttribute(nodes[0],
						    cudaKernelNodeAttributeAccessPolicyWindow,
						    &window) == cudaErrorInvalidValue,
		    "a persisting missProp refused") &&
	     ok;
	cudaGetLastError();
	CHECK_CUDA(cudaMemset(p1, 0, k * sizeof(int)));
	cudaGraphExec_t exec;
	CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
	CHECK_CUDA(cudaGraphLaunch(exec, s));
	CHECK_CUDA(cudaStreamSynchronize(s));
	CHECK_CUDA(cudaMemcpy(hp.data(), p1, k * sizeof(int), cudaMemcpyDeviceToHost));
	wrong = 0;
	for (int i = 0; i < k; ++i)
		wrong += hp[i] != produced(i, spin) + 1;
	ok = expect(wrong == 0, "the graph's nodes in order with their attributes") && ok;
	CHECK_CUDA(cudaGraphExecDestroy(exec));
	CHECK_CUDA(cudaGraphDestroy(graph));
	return report("launch_kernel_ex", ok);
}
