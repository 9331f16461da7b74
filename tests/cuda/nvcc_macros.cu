// SPDX-License-Identifier: MIT
// The macros nvcc predefines for every .cu file, in both passes: headers
// choose between CUDA and host-only code with #ifdef __CUDACC__, and check
// the toolkit version with __CUDACC_VER_MAJOR__ and its siblings. The
// version must be the one the runtime headers model (CUDART_VERSION).
#include "test_util.h"

#if defined(__CUDACC__) && defined(__NVCC__)
#define SEEN_BY_THIS_PASS 1
#else
#define SEEN_BY_THIS_PASS 0
#endif

#ifdef __CUDACC_VER_MAJOR__
#define VERSION_BY_THIS_PASS (__CUDACC_VER_MAJOR__ * 1000 + __CUDACC_VER_MINOR__ * 10)
#else
#define VERSION_BY_THIS_PASS 0
#endif

__global__ void device_pass(int *out)
{
	out[0] = SEEN_BY_THIS_PASS;
	out[1] = VERSION_BY_THIS_PASS;
#ifdef __CUDA_ARCH__
	out[2] = __CUDA_ARCH__;
#endif
}

int main()
{
	int *d, got[3] = {0, 0, 0};
	CHECK_CUDA(cudaMalloc(&d, sizeof(got)));
	CHECK_CUDA(cudaMemset(d, 0, sizeof(got)));
	device_pass<<<1, 1>>>(d);
	CHECK_LAUNCH();
	CHECK_CUDA(cudaMemcpy(got, d, sizeof(got), cudaMemcpyDeviceToHost));
	std::printf("host pass: __CUDACC__/__NVCC__ %d, version %d; device pass: %d, %d, "
		    "__CUDA_ARCH__ %d; CUDART_VERSION %d\n",
		    SEEN_BY_THIS_PASS, VERSION_BY_THIS_PASS, got[0], got[1], got[2], CUDART_VERSION);
#ifdef __CUDACC_VER_BUILD__
	const bool build = __CUDACC_VER_BUILD__ > 0;
#else
	const bool build = false;
#endif
	return report("nvcc_macros", SEEN_BY_THIS_PASS && got[0] && build &&
					      VERSION_BY_THIS_PASS == CUDART_VERSION &&
					      got[1] == CUDART_VERSION && got[2] == 700);
}
