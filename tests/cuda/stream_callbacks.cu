// SPDX-License-Identifier: MIT
// cudaStreamAddCallback and cudaLaunchHostFunc run in stream order: each host
// function sees the results of the kernels queued before it, and the kernels
// queued after it see what it wrote. They run on the runtime's own thread, so
// the caller goes on while one waits.
#include "test_util.h"

#include <atomic>
#include <chrono>
#include <thread>

__global__ void add(int *v, int n, int k)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		v[i] += k;
}

struct Check {
	const int *host;
	int n, expect;
	bool ok;
	int calls;
};

static void CUDART_CB after_kernel(cudaStream_t, cudaError_t status, void *data)
{
	Check *c = static_cast<Check *>(data);
	c->ok = status == cudaSuccess;
	for (int i = 0; i < c->n; ++i)
		c->ok &= c->host[i] == c->expect;
	++c->calls;
}

static void CUDART_CB host_func(void *data)
{
	++*static_cast<int *>(data);
}

// Waits up to 20 s for main to open it: main must get there first.
struct Gate {
	std::atomic<bool> open{false};
	bool opened = false;
};

static void CUDART_CB wait_at_gate(void *data)
{
	Gate *g = static_cast<Gate *>(data);
	for (int ms = 0; ms < 20000 && !g->open; ++ms)
		std::this_thread::sleep_for(std::chrono::milliseconds(1));
	g->opened = g->open;
}

int main()
{
	const int n = 1000;
	int *host, *dev, counter = 0;
	CHECK_CUDA(cudaMallocHost(&host, n * sizeof(int)));
	CHECK_CUDA(cudaMalloc(&dev, n * sizeof(int)));
	for (int i = 0; i < n; ++i)
		host[i] = 1;
	cudaStream_t s;
	CHECK_CUDA(cudaStreamCreate(&s));
	CHECK_CUDA(cudaMemcpyAsync(dev, host, n * sizeof(int), cudaMemcpyHostToDevice, s));
	add<<<(n + 127) / 128, 128, 0, s>>>(dev, n, 5);
	CHECK_CUDA(cudaMemcpyAsync(host, dev, n * sizeof(int), cudaMemcpyDeviceToHost, s));
	Check c{host, n, 1 + 5, false, 0};
	CHECK_CUDA(cudaStreamAddCallback(s, after_kernel, &c, 0));
	CHECK_CUDA(cudaLaunchHostFunc(s, host_func, &counter));
	add<<<(n + 127) / 128, 128, 0, s>>>(dev, n, 10);
	CHECK_CUDA(cudaMemcpyAsync(host, dev, n * sizeof(int), cudaMemcpyDeviceToHost, s));
	Check c2{host, n, 1 + 5 + 10, false, 0};
	CHECK_CUDA(cudaStreamAddCallback(s, after_kernel, &c2, 0));
	CHECK_CUDA(cudaLaunchHostFunc(s, host_func, &counter));
	CHECK_CUDA(cudaStreamSynchronize(s));
	bool ok = c.ok && c.calls == 1 && c2.ok && c2.calls == 1 && counter == 2;

	// A host function that waits for the caller: the kernel and the event
	// after it wait for it, the caller does not.
	Gate gate;
	cudaEvent_t after_gate;
	CHECK_CUDA(cudaEventCreate(&after_gate));
	CHECK_CUDA(cudaLaunchHostFunc(s, wait_at_gate, &gate));
	add<<<(n + 127) / 128, 128, 0, s>>>(dev, n, 100);
	CHECK_CUDA(cudaEventRecord(after_gate, s));
	const bool held = cudaEventQuery(after_gate) == cudaErrorNotReady &&
			  cudaStreamQuery(s) == cudaErrorNotReady;
	gate.open = true;
	CHECK_CUDA(cudaEventSynchronize(after_gate));
	CHECK_CUDA(cudaMemcpy(host, dev, n * sizeof(int), cudaMemcpyDeviceToHost));
	bool added = true;
	for (int i = 0; i < n; ++i)
		added &= host[i] == 1 + 5 + 10 + 100;
	if (!held || !gate.opened || !added)
		std::printf("held %d, the caller went on %d, the kernel after it ran %d\n", held,
			    gate.opened, added);
	ok &= held && gate.opened && added;
	CHECK_CUDA(cudaEventDestroy(after_gate));
	// Bad arguments are refused, naming the problem as CUDA does.
	ok &= cudaStreamAddCallback(s, after_kernel, &c, 1) == cudaErrorInvalidValue;
	ok &= cudaLaunchHostFunc(s, nullptr, nullptr) == cudaErrorInvalidValue;
	cudaGetLastError();
	CHECK_CUDA(cudaStreamDestroy(s));
	return report("stream_callbacks", ok);
}
