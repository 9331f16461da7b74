// SPDX-License-Identifier: MIT
// A named barrier whose id is known only at run time and out of range
// (PTX: 0..15) is a device exception with a message that names the problem,
// as cudaErrorLaunchFailure (issue 18). Ids known at compile time are
// compile errors (compiler/unittests).
// expect-output: ^simtgpu: bad named barrier: barrier id 17 is out of range \(0\.\.15\) at pc 0x[0-9a-f]+, block \[0,0,0\], thread \[0,0,0\]
// expect-output: ^named_barrier_error: launch failed: cudaErrorLaunchFailure$
// expect-output: ^named_barrier_error: PASS$
#include "test_util.h"

__global__ void wait_at(unsigned id, int *out)
{
	__barrier_sync(id);
	out[threadIdx.x] = 1;
}

int main()
{
	int *dout;
	CHECK_CUDA(cudaMalloc(&dout, 64 * sizeof(int)));
	wait_at<<<1, 64>>>(15, dout); // the last valid id
	CHECK_LAUNCH();
	wait_at<<<1, 64>>>(17, dout);
	cudaError_t error = cudaDeviceSynchronize();
	std::printf("named_barrier_error: launch failed: %s\n", cudaGetErrorName(error));
	return report("named_barrier_error", error == cudaErrorLaunchFailure);
}
