// SPDX-License-Identifier: MIT
// A kernel launched from a global object's destructor, after the runtime's
// exit-time shutdown: as in CUDA the launch must fail with
// cudaErrorCudartUnloading. exit() has already destroyed the thread's
// thread_local objects by then, and the launch configuration stack that
// <<<>>> pushes onto was one (a std::vector): the push wrote freed memory,
// which the sanitizer run reports (sanitizers.cuda.exit_static_launch).
// expect-output: ^exit_static_launch: PASS$
// expect-output: ^exit_static_launch: launch after shutdown: cudaErrorCudartUnloading$
#include "test_util.h"

__global__ void store(int *data, int value) { data[threadIdx.x] = value; }

struct LateLauncher {
	int *device = nullptr;

	~LateLauncher()
	{
		store<<<1, 32>>>(device, 9);
		cudaError_t launch = cudaGetLastError();
		if (launch != cudaErrorCudartUnloading) {
			std::printf("exit_static_launch: FAIL: launch after shutdown gave %s\n",
				    cudaGetErrorName(launch));
			std::fflush(stdout);
			std::_Exit(1); // exit() has begun: end here with the verdict
		}
		std::printf("exit_static_launch: launch after shutdown: %s\n",
			    cudaGetErrorName(launch));
	}
};

LateLauncher late;

int main()
{
	int host[32];
	CHECK_CUDA(cudaMalloc(&late.device, sizeof(host)));
	store<<<1, 32>>>(late.device, 4);
	CHECK_LAUNCH();
	CHECK_CUDA(cudaMemcpy(host, late.device, sizeof(host), cudaMemcpyDeviceToHost));
	bool ok = true;
	for (int v : host)
		ok &= v == 4;
	return report("exit_static_launch", ok);
}
