// SPDX-License-Identifier: MIT
// cudaStreamAddCallback and cudaLaunchHostFunc run in stream order: each host
// function sees the results of the kernels queued before it, and the kernels
// queued after it see what it wrote.
#include "test_util.h"

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
	// Bad arguments are refused, naming the problem as CUDA does.
	ok &= cudaStreamAddCallback(s, after_kernel, &c, 1) == cudaErrorInvalidValue;
	ok &= cudaLaunchHostFunc(s, nullptr, nullptr) == cudaErrorInvalidValue;
	cudaGetLastError();
	CHECK_CUDA(cudaStreamDestroy(s));
	return report("stream_callbacks", ok);
}
