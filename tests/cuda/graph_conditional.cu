// SPDX-License-Identifier: MIT
// Conditional graph nodes (CUDA 12.3, as graphConditionalNodes uses them):
// a WHILE node whose body doubles-and-increments an array and counts its
// passes, setting its handle from device code until the count reaches a
// limit the kernel before it wrote; and an IF node whose body runs only
// when a flag kernel says so. The handles are assigned their defaults at
// each launch (cudaGraphCondAssignDefault), so a second launch loops again.
// Then a SWITCH node and an IF with an else, kernels added by
// cudaGraphAddNode. Checked against the same loop on the CPU.
#include <cuda_runtime.h>

#include "test_util.h"

namespace {

__global__ void set_limit(int *state, int limit, cudaGraphConditionalHandle loop)
{
	state[0] = 0;     // passes done
	state[1] = limit; // passes wanted
	cudaGraphSetConditional(loop, limit > 0);
}

__global__ void body(int *x, int n, int *state, cudaGraphConditionalHandle loop)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = 2 * x[i] + 1;
	__syncthreads();
	if (blockIdx.x == 0 && threadIdx.x == 0) {
		int done = ++state[0];
		cudaGraphSetConditional(loop, done < state[1]);
	}
}

// Taken on the first launch (x[n - 1] grows past it), not on the second
// (the negated values fall further).
__global__ void decide(const int *x, int n, cudaGraphConditionalHandle when)
{
	cudaGraphSetConditional(when, x[n - 1] > 1000);
}

__global__ void negate(int *x, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] = -x[i];
}

} // namespace

int main()
{
	const int n = 64, passes = 6;
	int *x, *state;
	CHECK_CUDA(cudaMalloc(&x, n * sizeof(int)));
	CHECK_CUDA(cudaMalloc(&state, 2 * sizeof(int)));

	cudaGraph_t graph;
	CHECK_CUDA(cudaGraphCreate(&graph, 0));
	cudaGraphConditionalHandle loop, when;
	CHECK_CUDA(cudaGraphConditionalHandleCreate(&loop, graph, 0, cudaGraphCondAssignDefault));
	CHECK_CUDA(cudaGraphConditionalHandleCreate(&when, graph));

	int limit = passes;
	void *limit_args[] = {&state, &limit, &loop};
	cudaKernelNodeParams kp = {};
	kp.func = (void *)set_limit;
	kp.gridDim = dim3(1);
	kp.blockDim = dim3(1);
	kp.kernelParams = limit_args;
	cudaGraphNode_t first;
	CHECK_CUDA(cudaGraphAddKernelNode(&first, graph, nullptr, 0, &kp));

	cudaGraphNodeParams cp = {};
	cp.type = cudaGraphNodeTypeConditional;
	cp.conditional.handle = loop;
	cp.conditional.type = cudaGraphCondTypeWhile;
	cp.conditional.size = 1;
	cudaGraphNode_t while_node;
	CHECK_CUDA(cudaGraphAddNode(&while_node, graph, &first, 1, &cp));
	// phGraph_out is an output: the node's own array of its body graphs.
	cudaGraph_t loop_body = cp.conditional.phGraph_out[0];
	int count = n;
	void *body_args[] = {&x, &count, &state, &loop};
	kp.func = (void *)body;
	kp.gridDim = dim3(2);
	kp.blockDim = dim3(32);
	kp.kernelParams = body_args;
	cudaGraphNode_t body_node;
	CHECK_CUDA(cudaGraphAddKernelNode(&body_node, loop_body, nullptr, 0, &kp));

	void *decide_args[] = {&x, &count, &when};
	kp.func = (void *)decide;
	kp.gridDim = dim3(1);
	kp.blockDim = dim3(1);
	kp.kernelParams = decide_args;
	cudaGraphNode_t decide_node;
	CHECK_CUDA(cudaGraphAddKernelNode(&decide_node, graph, &while_node, 1, &kp));
	cp.conditional.handle = when;
	cp.conditional.type = cudaGraphCondTypeIf;
	cudaGraphNode_t if_node;
	CHECK_CUDA(cudaGraphAddNode(&if_node, graph, &decide_node, 1, &cp));
	cudaGraph_t if_body = cp.conditional.phGraph_out[0];
	void *negate_args[] = {&x, &count};
	kp.func = (void *)negate;
	kp.gridDim = dim3(2);
	kp.blockDim = dim3(32);
	kp.kernelParams = negate_args;
	cudaGraphNode_t negate_node;
	CHECK_CUDA(cudaGraphAddKernelNode(&negate_node, if_body, nullptr, 0, &kp));

	bool ok = true;
	{
		cudaGraphNodeType type;
		CHECK_CUDA(cudaGraphNodeGetType(while_node, &type));
		ok &= type == cudaGraphNodeTypeConditional;
	}
	cudaGraphExec_t exec;
	CHECK_CUDA(cudaGraphInstantiate(&exec, graph, nullptr, nullptr, 0));
	cudaStream_t s;
	CHECK_CUDA(cudaStreamCreate(&s));
	int host[n], want[n];
	for (int i = 0; i < n; ++i)
		want[i] = host[i] = i - 20;
	CHECK_CUDA(cudaMemcpy(x, host, sizeof(host), cudaMemcpyHostToDevice));
	// Two launches: the loop's handle starts at its default each time.
	for (int launch = 0; launch < 2; ++launch) {
		CHECK_CUDA(cudaGraphLaunch(exec, s));
		CHECK_CUDA(cudaStreamSynchronize(s));
		for (int p = 0; p < passes; ++p)
			for (int i = 0; i < n; ++i)
				want[i] = 2 * want[i] + 1;
		const bool taken = want[n - 1] > 1000;
		ok &= taken == (launch == 0);
		if (taken)
			for (int i = 0; i < n; ++i)
				want[i] = -want[i];
		CHECK_CUDA(cudaMemcpy(host, x, sizeof(host), cudaMemcpyDeviceToHost));
		for (int i = 0; i < n; ++i)
			ok &= host[i] == want[i];
	}
	int done[2];
	CHECK_CUDA(cudaMemcpy(done, state, sizeof(done), cudaMemcpyDeviceToHost));
	ok &= done[0] == passes;

	// A SWITCH of three bodies and an IF with an else, their kernels added
	// by cudaGraphAddNode: the value 1 picks body 1, zero the else.
	cudaGraph_t pick;
	CHECK_CUDA(cudaGraphCreate(&pick, 0));
	cudaGraphConditionalHandle which, never;
	CHECK_CUDA(cudaGraphConditionalHandleCreate(&which, pick, 1, cudaGraphCondAssignDefault));
	CHECK_CUDA(cudaGraphConditionalHandleCreate(&never, pick, 0, cudaGraphCondAssignDefault));
	cp.conditional.handle = which;
	cp.conditional.type = cudaGraphCondTypeSwitch;
	cp.conditional.size = 3;
	cudaGraphNode_t switch_node, else_node;
	CHECK_CUDA(cudaGraphAddNode(&switch_node, pick, nullptr, 0, &cp));
	const cudaGraph_t *cases = cp.conditional.phGraph_out;
	cp.conditional.handle = never;
	cp.conditional.type = cudaGraphCondTypeIf;
	cp.conditional.size = 2;
	// CUDA 12.3's form with edge data (default edges: NULL).
	CHECK_CUDA(cudaGraphAddNode(&else_node, pick, &switch_node, nullptr, 1, &cp));
	const cudaGraph_t *branches = cp.conditional.phGraph_out;
	int *marks;
	CHECK_CUDA(cudaMalloc(&marks, 5 * sizeof(int)));
	CHECK_CUDA(cudaMemset(marks, 0, 5 * sizeof(int)));
	int one = 1;
	int *targets[5];
	void *mark_args[5][2];
	cudaGraph_t owners[5] = {cases[0], cases[1], cases[2], branches[0], branches[1]};
	for (int b = 0; b < 5; ++b) {
		targets[b] = marks + b;
		mark_args[b][0] = &targets[b];
		mark_args[b][1] = &one;
		cudaGraphNodeParams kn = {};
		kn.type = cudaGraphNodeTypeKernel;
		kn.kernel.func = (void *)negate; // negate(marks + b, 1)
		kn.kernel.gridDim = dim3(1);
		kn.kernel.blockDim = dim3(1);
		kn.kernel.kernelParams = mark_args[b];
		cudaGraphNode_t k;
		CHECK_CUDA(cudaGraphAddNode(&k, owners[b], nullptr, 0, &kn));
	}
	// Each body's kernel negates its mark: set them to 1 first so a run
	// shows as -1.
	int ones[5] = {1, 1, 1, 1, 1}, marked[5];
	CHECK_CUDA(cudaMemcpy(marks, ones, sizeof(ones), cudaMemcpyHostToDevice));
	cudaGraphExec_t pick_exec;
	CHECK_CUDA(cudaGraphInstantiate(&pick_exec, pick, nullptr, nullptr, 0));
	CHECK_CUDA(cudaGraphLaunch(pick_exec, s));
	CHECK_CUDA(cudaStreamSynchronize(s));
	CHECK_CUDA(cudaMemcpy(marked, marks, sizeof(marked), cudaMemcpyDeviceToHost));
	ok &= marked[0] == 1 && marked[1] == -1 && marked[2] == 1; // the switch's case 1
	ok &= marked[3] == 1 && marked[4] == -1;                   // the if's else
	CHECK_CUDA(cudaGraphExecDestroy(pick_exec));
	CHECK_CUDA(cudaGraphDestroy(pick));
	CHECK_CUDA(cudaFree(marks));

	cudaGraphNodeParams bad = {};
	bad.type = cudaGraphNodeTypeMemcpy; // by cudaGraphAddMemcpyNode only
	ok &= cudaGraphAddNode(&if_node, graph, nullptr, 0, &bad) == cudaErrorInvalidValue;
	cudaGetLastError();

	CHECK_CUDA(cudaGraphExecDestroy(exec));
	CHECK_CUDA(cudaGraphDestroy(graph));
	CHECK_CUDA(cudaStreamDestroy(s));
	CHECK_CUDA(cudaFree(x));
	CHECK_CUDA(cudaFree(state));
	return report("graph_conditional", ok);
}
