// An illegal address is sticky, as in CUDA: the synchronising call reports
// cudaErrorIllegalAddress, cudaGetLastError keeps returning it, every later
// call fails the same way, until cudaDeviceReset.
#include <cuda_runtime.h>

#include "check.h"

__global__ void store_to(int *p) { p[threadIdx.x] = 1; }

int main() {
    int *good;
    CHECK_OK(cudaMalloc(&good, 64 * sizeof(int)));
    store_to<<<1, 32>>>(reinterpret_cast<int *>(0x1000)); // never mapped
    CHECK_EQ_ERR(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
    CHECK_EQ_ERR(cudaGetLastError(), cudaErrorIllegalAddress);
    CHECK_EQ_ERR(cudaGetLastError(), cudaErrorIllegalAddress); // still
    int *more;
    CHECK_EQ_ERR(cudaMalloc(&more, 64), cudaErrorIllegalAddress);
    int host[64];
    CHECK_EQ_ERR(cudaMemcpy(host, good, sizeof(host), cudaMemcpyDeviceToHost),
                 cudaErrorIllegalAddress);
    store_to<<<1, 32>>>(good);
    CHECK_EQ_ERR(cudaGetLastError(), cudaErrorIllegalAddress);

    CHECK_OK(cudaDeviceReset());
    CHECK_OK(cudaGetLastError());
    CHECK_OK(cudaMalloc(&good, 64 * sizeof(int)));
    store_to<<<1, 64>>>(good);
    CHECK_OK(cudaDeviceSynchronize());
    CHECK_OK(cudaMemcpy(host, good, sizeof(host), cudaMemcpyDeviceToHost));
    for (int i = 0; i < 64; ++i)
        CHECK(host[i] == 1);
    return finish("sticky_errors");
}
