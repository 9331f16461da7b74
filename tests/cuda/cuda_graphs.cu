// SPDX-License-Identifier: MIT
// CUDA graphs by stream capture (issue 16): a capture with a copy in, a
// memset, a kernel, a host function, a second stream joined through events
// (fork and join) running a kernel, and a copy out. Nothing runs while
// capturing; the graph has those six nodes in order; each launch runs them
// on the input the host buffer holds then, with the kernel arguments as they
// were at capture, checked against the CPU; on two streams. And the
// capture errors CUDA gives.
#include <vector>

#include "test_util.h"

constexpr int kN = 2048;

__global__ void scale_add(const int *a, int *b, int k, int offset)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < kN)
		b[i] += a[i] * k + offset;
}

__global__ void square(int *b)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < kN)
		b[i] = b[i] * b[i] % 100003;
}

static void CUDART_CB count_call(void *counter) { ++*static_cast<int *>(counter); }

static bool expect_error(cudaError_t got, cudaError_t want, const char *what)
{
	cudaGetLastError();
	if (got == want)
		return true;
	std::printf("%s: %s, expected %s\n", what, cudaGetErrorName(got), cudaGetErrorName(want));
	return false;
}

int main()
{
	bool ok = true;
	int *hin, *hout, *da, *db;
	CHECK_CUDA(cudaMallocHost(&hin, kN * sizeof(int)));
	CHECK_CUDA(cudaMallocHost(&hout, kN * sizeof(int)));
	CHECK_CUDA(cudaMalloc(&da, kN * sizeof(int)));
	CHECK_CUDA(cudaMalloc(&db, kN * sizeof(int)));
	for (int i = 0; i < kN; ++i)
		hout[i] = -7;
	CHECK_CUDA(cudaMemset(db, 0x11, kN * sizeof(int)));
	cudaStream_t s, s2, s3;
	CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	CHECK_CUDA(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
	CHECK_CUDA(cudaStreamCreateWithFlags(&s3, cudaStreamNonBlocking));
	cudaEvent_t fork, join;
	CHECK_CUDA(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
	CHECK_CUDA(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
	int calls = 0, k = 3;
	const int offset = 5, captured_k = k;

	CHECK_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
	cudaStreamCaptureStatus status;
	CHECK_CUDA(cudaStreamIsCapturing(s, &status));
	ok &= expect(status == cudaStreamCaptureStatusActive, "capturing");
	CHECK_CUDA(cudaMemcpyAsync(da, hin, kN * sizeof(int), cudaMemcpyHostToDevice, s));
	CHECK_CUDA(cudaMemsetAsync(db, 0, kN * sizeof(int), s));
	scale_add<<<kN / 256, 256, 0, s>>>(da, db, k, offset);
	CHECK_CUDA(cudaGetLastError());
	CHECK_CUDA(cudaLaunchHostFunc(s, count_call, &calls));
	CHECK_CUDA(cudaEventRecord(fork, s));
	CHECK_CUDA(cudaStreamWaitEvent(s2, fork, 0)); // s2 joins the capture
	CHECK_CUDA(cudaStreamIsCapturing(s2, &status));
	ok &= expect(status == cudaStreamCaptureStatusActive, "the forked stream captures");
	square<<<kN / 256, 256, 0, s2>>>(db);
	CHECK_CUDA(cudaEventRecord(join, s2));
	CHECK_CUDA(cudaStreamWaitEvent(s, join, 0));
	CHECK_CUDA(cudaMemcpyAsync(hout, db, kN * sizeof(int), cudaMemcpyDeviceToHost, s));
	ok &= expect_error(cudaStreamEndCapture(s2, nullptr), cudaErrorInvalidValue, "NULL graph");
	cudaGraph_t graph = nullptr;
	k = 1000; // the captured launch keeps its own copy of the arguments
	CHECK_CUDA(cudaStreamEndCapture(s, &graph));
	CHECK_CUDA(cudaStreamIsCapturing(s2, &status));
	ok &= expect(status == cudaStreamCaptureStatusNone, "the joined stream left the capture");

	// Nothing ran.
	CHECK_CUDA(cudaDeviceSynchronize());
	ok &= expect(calls == 0 && hout[0] == -7, "nothing runs while capturing");
	std::vector<int> b(kN);
	CHECK_CUDA(cudaMemcpy(b.data(), db, kN * sizeof(int), cudaMemcpyDeviceToHost));
	ok &= expect(b[0] == 0x11111111, "the captured memset did not run");

	const cudaGraphNodeType want_types[] = {cudaGraphNodeTypeMemcpy, cudaGraphNodeTypeMemset,
						cudaGraphNodeTypeKernel, cudaGraphNodeTypeHost,
						cudaGraphNodeTypeKernel, cudaGraphNodeTypeMemcpy};
	size_t count = 0;
	CHECK_CUDA(cudaGraphGetNodes(graph, nullptr, &count));
	ok &= expect(count == 6, "six nodes");
	cudaGraphNode_t nodes[8];
	count = 8;
	CHECK_CUDA(cudaGraphGetNodes(graph, nodes, &count));
	for (size_t i = 0; i < 6 && count == 6; ++i) {
		cudaGraphNodeType t;
		CHECK_CUDA(cudaGraphNodeGetType(nodes[i], &t));
		ok &= expect(t == want_types[i], "node types in capture order");
	}

	cudaGraphExec_t exec;
	CHECK_CUDA(cudaGraphInstantiate(&exec, graph, nullptr, nullptr, 0));
	Rng rng(5);
	for (int launch = 0; launch < 3; ++launch) {
		for (int i = 0; i < kN; ++i)
			hin[i] = rng.range(-1000, 1000);
		cudaStream_t on = launch == 2 ? s3 : s;
		CHECK_CUDA(cudaGraphLaunch(exec, on));
		CHECK_CUDA(cudaStreamSynchronize(on));
		bool same = true;
		for (int i = 0; i < kN; ++i) {
			int v = hin[i] * captured_k + offset;
			if (hout[i] != v * v % 100003)
				same = false;
		}
		ok &= expect(same, "graph result against the CPU");
		ok &= expect(calls == launch + 1, "the host node ran once per launch");
	}
	// The CUDA 12 form instantiates too.
	cudaGraphExec_t exec12;
	CHECK_CUDA(cudaGraphInstantiate(&exec12, graph, 0));
	CHECK_CUDA(cudaGraphExecDestroy(exec12));

	// Errors.
	cudaGraph_t g2 = nullptr;
	ok &= expect_error(cudaStreamEndCapture(s, &g2), cudaErrorIllegalState, "end without begin");
	ok &= expect_error(cudaStreamBeginCapture(0, cudaStreamCaptureModeGlobal),
			   cudaErrorStreamCaptureUnsupported, "capture of the legacy stream");
	ok &= expect_error(cudaStreamBeginCapture(s, (cudaStreamCaptureMode)9), cudaErrorInvalidValue,
			   "bad mode");
	CHECK_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
	ok &= expect_error(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal),
			   cudaErrorIllegalState, "begin twice");
	ok &= expect_error(cudaStreamSynchronize(s), cudaErrorStreamCaptureUnsupported,
			   "synchronising a capturing stream");
	CHECK_CUDA(cudaStreamIsCapturing(s, &status));
	ok &= expect(status == cudaStreamCaptureStatusInvalidated, "the capture is invalidated");
	ok &= expect_error(cudaStreamEndCapture(s, &g2), cudaErrorStreamCaptureInvalidated,
			   "end of an invalidated capture");
	ok &= expect(g2 == nullptr, "no graph from it");
	// Waiting for an event outside the capture.
	CHECK_CUDA(cudaEventRecord(fork, s3));
	CHECK_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
	ok &= expect_error(cudaStreamWaitEvent(s, fork, 0), cudaErrorStreamCaptureIsolation,
			   "a capture waiting for outside work");
	ok &= expect_error(cudaStreamEndCapture(s, &g2), cudaErrorStreamCaptureInvalidated,
			   "isolation invalidates");
	// Ending from a joined stream.
	CHECK_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
	CHECK_CUDA(cudaEventRecord(fork, s));
	CHECK_CUDA(cudaStreamWaitEvent(s2, fork, 0));
	ok &= expect_error(cudaStreamEndCapture(s2, &g2), cudaErrorStreamCaptureUnmatched,
			   "end from a joined stream");
	ok &= expect_error(cudaStreamEndCapture(s, &g2), cudaErrorStreamCaptureInvalidated,
			   "after an unmatched end");
	ok &= expect(std::strcmp(cudaGetErrorString(cudaErrorStreamCaptureInvalidated),
				 "operation failed due to a previous error during capture") == 0,
		     "error text");

	CHECK_CUDA(cudaGraphExecDestroy(exec));
	CHECK_CUDA(cudaGraphDestroy(graph));
	ok &= expect_error(cudaGraphLaunch(exec, s), cudaErrorInvalidValue, "a destroyed exec");
	ok &= expect_error(cudaGraphDestroy(graph), cudaErrorInvalidValue, "a destroyed graph");
	ok &= expect_error(cudaGraphInstantiate(&exec, nullptr, nullptr, nullptr, 0),
			   cudaErrorInvalidValue, "no graph");
	CHECK_CUDA(cudaDeviceSynchronize());
	CHECK_CUDA(cudaStreamDestroy(s));
	CHECK_CUDA(cudaStreamDestroy(s2));
	CHECK_CUDA(cudaStreamDestroy(s3));
	CHECK_CUDA(cudaEventDestroy(fork));
	CHECK_CUDA(cudaEventDestroy(join));
	CHECK_CUDA(cudaFreeHost(hin));
	CHECK_CUDA(cudaFreeHost(hout));
	CHECK_CUDA(cudaFree(da));
	CHECK_CUDA(cudaFree(db));
	return report("cuda_graphs", ok);
}
