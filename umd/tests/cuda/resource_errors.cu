// Out of memory, an image newer than the device, and a launch that runs
// past the driver's timeout, each reported with CUDA's error code.
// Run with SIMTGPU_SIM_ARCH=1 (a simt_1 device) and SIMTGPU_JOB_TIMEOUT_MS.
#include <cuda_runtime.h>

#include <cstdlib>

#include "check.h"

__global__ void spin(volatile int *flag) {
    while (*flag == 0) {
    }
}

int main() {
    cudaDeviceProp prop;
    CHECK_OK(cudaGetDeviceProperties(&prop, 0));
    void *p = nullptr;
    CHECK_EQ_ERR(cudaMalloc(&p, prop.totalGlobalMem + (1u << 20)), cudaErrorMemoryAllocation);
    CHECK_EQ_ERR(cudaGetLastError(), cudaErrorMemoryAllocation);
    CHECK_OK(cudaGetLastError()); // not sticky

    int *flag;
    CHECK_OK(cudaMalloc(&flag, sizeof(int)));
    CHECK_OK(cudaMemset(flag, 0, sizeof(int)));
    spin<<<1, 1>>>(flag);
    cudaError_t launched = cudaGetLastError();
    if (prop.major < 2) {
        // This program is built for simt_2: a simt_1 device has no image for it.
        CHECK_EQ_ERR(launched, cudaErrorNoKernelImageForDevice);
    } else {
        CHECK_OK(launched);
        CHECK_EQ_ERR(cudaDeviceSynchronize(), cudaErrorLaunchTimeout);
    }
    return finish("resource_errors");
}
