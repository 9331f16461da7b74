// SPDX-License-Identifier: MIT
// Stream capture with its dependencies, as CUDA 12/13 expose them (and
// cuda-samples' graphConditionalNodes uses them):
// - cudaStreamGetCaptureInfo in CUDA 12's form (6 arguments), CUDA 13's
//   with edge data (7) and as _v2/_v3: status, capture id, graph, and the
//   nodes the stream's next work depends on, through a fork and a join;
// - cudaStreamUpdateCaptureDependencies (set and add; 4 and 5 arguments)
//   after nodes added by hand to the capture's graph;
// - cudaStreamBeginCaptureToGraph: capture after a node of an existing
//   graph, and into a conditional node's body.
// Every kernel applies an affine step, so each result depends on the
// order the graph runs its nodes in; checked against the same steps on the
// CPU, and the graphs' edges against what was captured.
#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "test_util.h"

namespace {

constexpr int n = 256;

// x = x * mul + add
__global__ void step(int *x, int mul, int add)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = x[i] * mul + add;
}

// x += y
__global__ void accumulate(int *x, const int *y)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] += y[i];
}

__global__ void fill_index(int *x)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = i;
}

void cpu_step(std::vector<int> &x, int mul, int add)
{
	for (int &v : x)
		v = v * mul + add;
}

void cpu_accumulate(std::vector<int> &x, const std::vector<int> &y)
{
	for (int i = 0; i < n; ++i)
		x[i] += y[i];
}

bool same_set(const cudaGraphNode_t *nodes, size_t count, std::vector<cudaGraphNode_t> want)
{
	std::vector<cudaGraphNode_t> got(nodes, nodes + count);
	std::sort(got.begin(), got.end());
	std::sort(want.begin(), want.end());
	return got == want;
}

std::vector<cudaGraphNode_t> dependencies_of(cudaGraphNode_t node)
{
	size_t count = 0;
	CHECK_CUDA(cudaGraphNodeGetDependencies(node, nullptr, &count));
	std::vector<cudaGraphNode_t> deps(count);
	CHECK_CUDA(cudaGraphNodeGetDependencies(node, deps.data(), &count));
	return deps;
}

std::vector<int> download(const int *d)
{
	std::vector<int> h(n);
	CHECK_CUDA(cudaMemcpy(h.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost));
	return h;
}

#define EXPECT(cond)                                                                   \
	do {                                                                           \
		if (!(cond)) {                                                         \
			std::printf("%s:%d: expected %s\n", __FILE__, __LINE__, #cond); \
			ok = false;                                                    \
		}                                                                      \
	} while (0)

// A fork and a join, then nodes added by hand and the capture's
// dependencies set and extended to them.
bool capture_info_and_update(int *x, int *y, int *z)
{
	bool ok = true;
	const dim3 grid(n / 64), block(64);
	cudaStream_t s1, s2;
	CHECK_CUDA(cudaStreamCreate(&s1));
	CHECK_CUDA(cudaStreamCreate(&s2));
	cudaEvent_t forked, joined;
	CHECK_CUDA(cudaEventCreate(&forked));
	CHECK_CUDA(cudaEventCreate(&joined));

	cudaStreamCaptureStatus status = cudaStreamCaptureStatusActive;
	CHECK_CUDA(cudaStreamGetCaptureInfo(s1, &status));
	EXPECT(status == cudaStreamCaptureStatusNone);

	CHECK_CUDA(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
	unsigned long long id = 0;
	cudaGraph_t graph = nullptr;
	const cudaGraphNode_t *deps = nullptr;
	size_t count = 99;
	// CUDA 12's form.
	CHECK_CUDA(cudaStreamGetCaptureInfo(s1, &status, &id, &graph, &deps, &count));
	EXPECT(status == cudaStreamCaptureStatusActive && id != 0 && graph && count == 0);

	step<<<grid, block, 0, s1>>>(x, 2, 1);
	// CUDA 13's form, edge data included.
	const cudaGraphEdgeData *edges = nullptr;
	cudaGraph_t same = nullptr;
	unsigned long long same_id = 0;
	CHECK_CUDA(cudaStreamGetCaptureInfo(s1, &status, &same_id, &same, &deps, &edges, &count));
	EXPECT(same == graph && same_id == id && count == 1 && edges);
	cudaGraphNode_t k1 = count == 1 ? deps[0] : nullptr;
	cudaGraphNodeType type = cudaGraphNodeTypeEmpty;
	CHECK_CUDA(cudaGraphNodeGetType(k1, &type));
	EXPECT(type == cudaGraphNodeTypeKernel);
	EXPECT(edges && edges[0].from_port == 0 && edges[0].to_port == 0 && edges[0].type == 0);

	// Fork: s2 joins after k1.
	CHECK_CUDA(cudaEventRecord(forked, s1));
	CHECK_CUDA(cudaStreamWaitEvent(s2, forked, 0));
	CHECK_CUDA(cudaStreamGetCaptureInfo_v3(s2, &status, &same_id, &same, &deps, nullptr, &count));
	EXPECT(status == cudaStreamCaptureStatusActive && same_id == id && same == graph);
	EXPECT(count == 1 && deps[0] == k1);
	step<<<grid, block, 0, s2>>>(y, 3, 2);
	cudaGraphNode_t k2 = nullptr;
	CHECK_CUDA(cudaStreamGetCaptureInfo_v2(s2, &status, nullptr, nullptr, &deps, &count));
	EXPECT(count == 1);
	k2 = deps[0];
	step<<<grid, block, 0, s1>>>(x, 1, 5);
	CHECK_CUDA(cudaStreamGetCaptureInfo(s1, &status, nullptr, nullptr, &deps, &count));
	EXPECT(count == 1 && deps[0] != k1 && deps[0] != k2);
	cudaGraphNode_t k3 = deps[0];
	// Join: s1's next work waits for both branches.
	CHECK_CUDA(cudaEventRecord(joined, s2));
	CHECK_CUDA(cudaStreamWaitEvent(s1, joined, 0));
	CHECK_CUDA(cudaStreamGetCaptureInfo(s1, &status, nullptr, nullptr, &deps, &count));
	EXPECT(same_set(deps, count, {k3, k2}));

	// A node added by hand after the join, then the stream set to follow it.
	void *accumulate_args[] = {&x, &y};
	cudaKernelNodeParams kp = {};
	kp.func = (void *)accumulate;
	kp.gridDim = grid;
	kp.blockDim = block;
	kp.kernelParams = accumulate_args;
	cudaGraphNode_t added;
	CHECK_CUDA(cudaGraphAddKernelNode(&added, graph, deps, count, &kp));
	CHECK_CUDA(cudaStreamUpdateCaptureDependencies(s1, &added, 1, cudaStreamSetCaptureDependencies));
	CHECK_CUDA(cudaStreamGetCaptureInfo(s1, &status, nullptr, nullptr, &deps, &count));
	EXPECT(count == 1 && deps[0] == added);
	step<<<grid, block, 0, s1>>>(x, 2, 0);
	CHECK_CUDA(cudaStreamGetCaptureInfo(s1, &status, nullptr, nullptr, &deps, &count));
	cudaGraphNode_t k4 = count == 1 ? deps[0] : nullptr;

	// An independent node (z = 7 * z + 3), added to the dependencies.
	int seven = 7, three = 3;
	void *z_args[] = {&z, &seven, &three};
	kp.func = (void *)step;
	kp.kernelParams = z_args;
	cudaGraphNode_t independent;
	CHECK_CUDA(cudaGraphAddKernelNode(&independent, graph, nullptr, 0, &kp));
	CHECK_CUDA(cudaStreamUpdateCaptureDependencies(s1, &independent, nullptr, 1,
						       cudaStreamAddCaptureDependencies));
	CHECK_CUDA(cudaStreamGetCaptureInfo(s1, &status, nullptr, nullptr, &deps, &count));
	EXPECT(same_set(deps, count, {k4, independent}));
	accumulate<<<grid, block, 0, s1>>>(x, z);
	CHECK_CUDA(cudaStreamGetCaptureInfo(s1, &status, nullptr, nullptr, &deps, &count));
	cudaGraphNode_t k5 = count == 1 ? deps[0] : nullptr;

	// Refused: destroying the graph while it is captured, unknown flags, a
	// node of no graph of the capture.
	EXPECT(cudaGraphDestroy(graph) == cudaErrorIllegalState);
	EXPECT(cudaStreamUpdateCaptureDependencies(s1, &k5, 1, 7) == cudaErrorInvalidValue);
	cudaGraph_t other;
	CHECK_CUDA(cudaGraphCreate(&other, 0));
	cudaGraphNode_t stranger;
	CHECK_CUDA(cudaGraphAddEmptyNode(&stranger, other, nullptr, 0));
	EXPECT(cudaStreamUpdateCaptureDependencies(s1, &stranger, 1, cudaStreamAddCaptureDependencies) ==
	       cudaErrorInvalidValue);
	cudaGetLastError();

	cudaGraph_t captured = nullptr;
	CHECK_CUDA(cudaStreamEndCapture(s1, &captured));
	EXPECT(captured == graph);
	CHECK_CUDA(cudaStreamGetCaptureInfo(s1, &status, &id));
	EXPECT(status == cudaStreamCaptureStatusNone);
	EXPECT(cudaStreamUpdateCaptureDependencies(s1, &k5, 1, cudaStreamSetCaptureDependencies) ==
	       cudaErrorIllegalState);
	cudaGetLastError();

	// The edges are what was captured.
	EXPECT(dependencies_of(k1).empty());
	EXPECT(dependencies_of(k2) == std::vector<cudaGraphNode_t>{k1});
	EXPECT(dependencies_of(k3) == std::vector<cudaGraphNode_t>{k1});
	std::vector<cudaGraphNode_t> d = dependencies_of(added);
	EXPECT(same_set(d.data(), d.size(), {k2, k3}));
	EXPECT(dependencies_of(k4) == std::vector<cudaGraphNode_t>{added});
	d = dependencies_of(k5);
	EXPECT(same_set(d.data(), d.size(), {k4, independent}));
	size_t roots = 0;
	CHECK_CUDA(cudaGraphGetRootNodes(graph, nullptr, &roots));
	EXPECT(roots == 2); // k1 and the independent node

	// Run it twice from the same inputs; the CPU does the same steps.
	std::vector<int> hx(n), hy(n), hz(n);
	for (int i = 0; i < n; ++i) {
		hx[i] = i - 100;
		hy[i] = 3 * i;
		hz[i] = i % 7;
	}
	cudaGraphExec_t exec;
	CHECK_CUDA(cudaGraphInstantiate(&exec, graph, nullptr, nullptr, 0));
	std::vector<int> ex = hx, ey = hy, ez = hz;
	CHECK_CUDA(cudaMemcpy(x, hx.data(), n * sizeof(int), cudaMemcpyHostToDevice));
	CHECK_CUDA(cudaMemcpy(y, hy.data(), n * sizeof(int), cudaMemcpyHostToDevice));
	CHECK_CUDA(cudaMemcpy(z, hz.data(), n * sizeof(int), cudaMemcpyHostToDevice));
	for (int launch = 0; launch < 2; ++launch) {
		CHECK_CUDA(cudaGraphLaunch(exec, s1));
		cpu_step(ex, 2, 1);   // k1
		cpu_step(ey, 3, 2);   // k2
		cpu_step(ex, 1, 5);   // k3
		cpu_accumulate(ex, ey); // added
		cpu_step(ex, 2, 0);   // k4
		cpu_step(ez, 7, 3);   // independent
		cpu_accumulate(ex, ez); // k5
	}
	CHECK_CUDA(cudaStreamSynchronize(s1));
	EXPECT(download(x) == ex && download(y) == ey && download(z) == ez);

	CHECK_CUDA(cudaGraphExecDestroy(exec));
	CHECK_CUDA(cudaGraphDestroy(graph));
	CHECK_CUDA(cudaGraphDestroy(other));
	CHECK_CUDA(cudaEventDestroy(forked));
	CHECK_CUDA(cudaEventDestroy(joined));
	CHECK_CUDA(cudaStreamDestroy(s1));
	CHECK_CUDA(cudaStreamDestroy(s2));
	return ok;
}

// Capture after a node of an existing graph, and into a conditional body.
bool capture_to_graph(int *x, int *w)
{
	bool ok = true;
	const dim3 grid(n / 64), block(64);
	cudaStream_t s;
	CHECK_CUDA(cudaStreamCreate(&s));
	cudaGraph_t graph;
	CHECK_CUDA(cudaGraphCreate(&graph, 0));
	void *fill_args[] = {&x};
	cudaKernelNodeParams kp = {};
	kp.func = (void *)fill_index;
	kp.gridDim = grid;
	kp.blockDim = block;
	kp.kernelParams = fill_args;
	cudaGraphNode_t fill;
	CHECK_CUDA(cudaGraphAddKernelNode(&fill, graph, nullptr, 0, &kp));

	// An IF node, taken at every launch (default 1), after the fill.
	cudaGraphConditionalHandle taken;
	CHECK_CUDA(cudaGraphConditionalHandleCreate(&taken, graph, 1, cudaGraphCondAssignDefault));
	cudaGraphNodeParams cp = {};
	cp.type = cudaGraphNodeTypeConditional;
	cp.conditional.handle = taken;
	cp.conditional.type = cudaGraphCondTypeIf;
	cp.conditional.size = 1;
	cudaGraphNode_t conditional;
	CHECK_CUDA(cudaGraphAddNode(&conditional, graph, &fill, 1, &cp));
	cudaGraph_t body = cp.conditional.phGraph_out[0];

	// Refused: a dependency from another graph; the legacy stream.
	cudaGraph_t other;
	CHECK_CUDA(cudaGraphCreate(&other, 0));
	cudaGraphNode_t stranger;
	CHECK_CUDA(cudaGraphAddEmptyNode(&stranger, other, nullptr, 0));
	EXPECT(cudaStreamBeginCaptureToGraph(s, graph, &stranger, nullptr, 1,
					     cudaStreamCaptureModeGlobal) == cudaErrorInvalidValue);
	EXPECT(cudaStreamBeginCaptureToGraph(0, graph, nullptr, nullptr, 0,
					     cudaStreamCaptureModeGlobal) ==
	       cudaErrorStreamCaptureUnsupported);
	cudaGetLastError();

	// The main graph: after the conditional node, x = 3x + 1, then copied to w.
	CHECK_CUDA(cudaStreamBeginCaptureToGraph(s, graph, &conditional, nullptr, 1,
						 cudaStreamCaptureModeGlobal));
	cudaStreamCaptureStatus status;
	cudaGraph_t into = nullptr;
	const cudaGraphNode_t *deps = nullptr;
	size_t count = 0;
	CHECK_CUDA(cudaStreamGetCaptureInfo(s, &status, nullptr, &into, &deps, &count));
	EXPECT(status == cudaStreamCaptureStatusActive && into == graph && count == 1 &&
	       deps[0] == conditional);
	step<<<grid, block, 0, s>>>(x, 3, 1);
	CHECK_CUDA(cudaMemcpyAsync(w, x, n * sizeof(int), cudaMemcpyDeviceToDevice, s));
	CHECK_CUDA(cudaStreamEndCapture(s, nullptr));
	size_t nodes = 0;
	CHECK_CUDA(cudaGraphGetNodes(graph, nullptr, &nodes));
	EXPECT(nodes == 4);

	// The body: x = x * 5 - 2, captured with no dependencies, ended with a graph out.
	CHECK_CUDA(cudaStreamBeginCaptureToGraph(s, body, nullptr, nullptr, 0,
						 cudaStreamCaptureModeGlobal));
	step<<<grid, block, 0, s>>>(x, 5, -2);
	cudaGraph_t ended = nullptr;
	CHECK_CUDA(cudaStreamEndCapture(s, &ended));
	EXPECT(ended == body);
	size_t body_nodes = 0;
	CHECK_CUDA(cudaGraphGetNodes(body, nullptr, &body_nodes));
	EXPECT(body_nodes == 1);

	// cudaStreamBeginCapture's graph must be returned.
	CHECK_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
	EXPECT(cudaStreamEndCapture(s, nullptr) == cudaErrorInvalidValue);
	cudaGetLastError();
	cudaGraph_t empty;
	CHECK_CUDA(cudaStreamEndCapture(s, &empty));
	CHECK_CUDA(cudaGraphDestroy(empty));

	cudaGraphExec_t exec;
	CHECK_CUDA(cudaGraphInstantiate(&exec, graph, nullptr, nullptr, 0));
	CHECK_CUDA(cudaGraphLaunch(exec, s));
	CHECK_CUDA(cudaStreamSynchronize(s));
	std::vector<int> expect(n);
	for (int i = 0; i < n; ++i)
		expect[i] = i;
	cpu_step(expect, 5, -2); // the body
	cpu_step(expect, 3, 1);  // after the conditional node
	EXPECT(download(x) == expect && download(w) == expect);

	CHECK_CUDA(cudaGraphExecDestroy(exec));
	CHECK_CUDA(cudaGraphDestroy(graph));
	CHECK_CUDA(cudaGraphDestroy(other));
	CHECK_CUDA(cudaStreamDestroy(s));
	return ok;
}

} // namespace

int main()
{
	int *x, *y, *z, *w;
	CHECK_CUDA(cudaMalloc(&x, n * sizeof(int)));
	CHECK_CUDA(cudaMalloc(&y, n * sizeof(int)));
	CHECK_CUDA(cudaMalloc(&z, n * sizeof(int)));
	CHECK_CUDA(cudaMalloc(&w, n * sizeof(int)));
	bool ok = capture_info_and_update(x, y, z);
	ok &= capture_to_graph(x, w);
	return report("graph_capture_deps", ok);
}
