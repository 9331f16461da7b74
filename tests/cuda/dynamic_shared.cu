// SPDX-License-Identifier: MIT
// extern __shared__ memory sized at launch, next to static __shared__
// variables (which must not overlap it), used as two typed arrays.
#include "test_util.h"

extern __shared__ unsigned char dynamic[];

__global__ void reverse(const int *in, int *out, const double *din, double *dout)
{
	__shared__ int marker[4];
	int n = blockDim.x;
	int *ints = reinterpret_cast<int *>(dynamic);
	double *doubles = reinterpret_cast<double *>(dynamic + ((n * sizeof(int) + 7) & ~7ul));
	int t = threadIdx.x;
	if (t < 4)
		marker[t] = 1000 + t;
	ints[t] = in[blockIdx.x * n + t];
	doubles[t] = din[blockIdx.x * n + t];
	__syncthreads();
	out[blockIdx.x * n + t] = ints[n - 1 - t] + (marker[t % 4] - 1000 - t % 4);
	dout[blockIdx.x * n + t] = doubles[n - 1 - t];
}

int main()
{
	const int blocks = 3, threads = 200, n = blocks * threads;
	int *in = new int[n], *out = new int[n];
	double *din = new double[n], *dout = new double[n];
	for (int i = 0; i < n; ++i) {
		in[i] = i * 3 + 1;
		din[i] = i * 0.125;
	}
	int *d_in, *d_out;
	double *d_din, *d_dout;
	CHECK_CUDA(cudaMalloc(&d_in, n * sizeof(int)));
	CHECK_CUDA(cudaMalloc(&d_out, n * sizeof(int)));
	CHECK_CUDA(cudaMalloc(&d_din, n * sizeof(double)));
	CHECK_CUDA(cudaMalloc(&d_dout, n * sizeof(double)));
	CHECK_CUDA(cudaMemcpy(d_in, in, n * sizeof(int), cudaMemcpyHostToDevice));
	CHECK_CUDA(cudaMemcpy(d_din, din, n * sizeof(double), cudaMemcpyHostToDevice));
	size_t shared = ((threads * sizeof(int) + 7) & ~7ul) + threads * sizeof(double);
	reverse<<<blocks, threads, shared>>>(d_in, d_out, d_din, d_dout);
	CHECK_LAUNCH();
	CHECK_CUDA(cudaMemcpy(out, d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(dout, d_dout, n * sizeof(double), cudaMemcpyDeviceToHost));
	bool ok = true;
	for (int b = 0; b < blocks; ++b)
		for (int t = 0; t < threads; ++t) {
			ok &= out[b * threads + t] == in[b * threads + threads - 1 - t];
			ok &= dout[b * threads + t] == din[b * threads + threads - 1 - t];
		}
	return report("dynamic_shared", ok);
}
