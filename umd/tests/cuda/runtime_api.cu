// The CUDA runtime API calls of issue 5, each checked against values
// computed here on the CPU: devices and properties, memory and copies of
// every kind, pinned memory, symbols, streams, events, launch errors and
// their (non-)stickiness, function attributes, occupancy, device reset.
#include <cuda_runtime.h>
#include <cuda_profiler_api.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "check.h"

__constant__ float scale[4];
__device__ int counter;
__device__ int table[16];

__global__ void saxpy(int n, float a, const float *x, float *y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * scale[i % 4] * x[i] + y[i];
}

__global__ void count_and_fill(int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicAdd(&counter, 1);
        table[i % 16] = i % 16 + 100;
    }
}

__global__ void uses_shared(float *out) {
    __shared__ float tile[256];
    tile[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = tile[255 - threadIdx.x];
}

__global__ void add_one(int *p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] += 1;
}

static void devices_and_properties() {
    int count = 0;
    CHECK_OK(cudaGetDeviceCount(&count));
    CHECK(count >= 1);
    CHECK_OK(cudaSetDevice(0));
    int device = -1;
    CHECK_OK(cudaGetDevice(&device));
    CHECK(device == 0);
    CHECK_EQ_ERR(cudaSetDevice(count), cudaErrorInvalidDevice);
    CHECK_EQ_ERR(cudaGetLastError(), cudaErrorInvalidDevice);
    CHECK_OK(cudaGetLastError()); // not sticky: cleared by reading it
    cudaDeviceProp prop;
    CHECK_OK(cudaGetDeviceProperties(&prop, 0));
    CHECK(std::strstr(prop.name, "simtgpu") != nullptr);
    CHECK(prop.major >= 1);
    CHECK(prop.warpSize >= 1);
    CHECK(prop.multiProcessorCount >= 1);
    CHECK(prop.maxThreadsPerBlock >= prop.warpSize);
    CHECK(prop.totalGlobalMem > (1u << 20));
    CHECK(prop.sharedMemPerBlock > 0);
    // Textures in the device runtime; no launch spans two devices.
    CHECK(prop.maxTexture2D[0] > 0 && prop.maxTextureCubemap == 0 &&
          prop.cooperativeMultiDeviceLaunch == 0);
    int peer = -1;
    CHECK_OK(cudaDeviceCanAccessPeer(&peer, 0, 0));
    CHECK(peer == 0);
    CHECK_EQ_ERR(cudaDeviceCanAccessPeer(&peer, 0, 1000), cudaErrorInvalidDevice);
    CHECK_EQ_ERR(cudaGetLastError(), cudaErrorInvalidDevice);
    int value = 0;
    CHECK_OK(cudaDeviceGetAttribute(&value, cudaDevAttrMultiProcessorCount, 0));
    CHECK(value == prop.multiProcessorCount);
    CHECK_OK(cudaDeviceGetAttribute(&value, cudaDevAttrWarpSize, 0));
    CHECK(value == prop.warpSize);
    int driver = 0, runtime = 0;
    CHECK_OK(cudaDriverGetVersion(&driver));
    CHECK_OK(cudaRuntimeGetVersion(&runtime));
    // The driver reports 12.8 (conditional nodes with IF/else and SWITCH),
    // newer than the runtime's API, as a CUDA driver may.
    CHECK(driver == 12080 && runtime == CUDART_VERSION && driver >= runtime);
    size_t free_bytes = 0, total = 0;
    CHECK_OK(cudaMemGetInfo(&free_bytes, &total));
    CHECK(total == prop.totalGlobalMem && free_bytes <= total);
    CHECK_OK(cudaProfilerStart());
    CHECK_OK(cudaProfilerStop());
    CHECK(std::strcmp(cudaGetErrorString(cudaErrorIllegalAddress),
                      "an illegal memory access was encountered") == 0);
    CHECK(std::strcmp(cudaGetErrorName(cudaErrorAssert), "cudaErrorAssert") == 0);
}

static void memory_and_kernels() {
    // The printf buffer can be sized until the first launch.
    CHECK_OK(cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 2 << 20));
    size_t fifo = 0;
    CHECK_OK(cudaDeviceGetLimit(&fifo, cudaLimitPrintfFifoSize));
    CHECK(fifo == size_t(2 << 20));
    // No dynamic parallelism: its limits are unsupported.
    CHECK_EQ_ERR(cudaDeviceSetLimit(cudaLimitDevRuntimeSyncDepth, 4), cudaErrorUnsupportedLimit);
    CHECK_EQ_ERR(cudaGetLastError(), cudaErrorUnsupportedLimit);
    const int n = 3000;
    std::vector<float> x(n), y(n), out(n);
    for (int i = 0; i < n; ++i) {
        x[i] = 0.5f * i;
        y[i] = 1000.0f - i;
    }
    const float s[4] = {1.0f, 2.0f, -1.0f, 0.25f};
    CHECK_OK(cudaMemcpyToSymbol(scale, s, sizeof(s)));
    float back_scale[4] = {};
    CHECK_OK(cudaMemcpyFromSymbol(back_scale, scale, sizeof(s)));
    CHECK(std::memcmp(back_scale, s, sizeof(s)) == 0);
    float *dx, *dy;
    CHECK_OK(cudaMalloc(&dx, n * sizeof(float)));
    CHECK_OK(cudaMalloc(&dy, n * sizeof(float)));
    CHECK_OK(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK_OK(cudaMemcpy(dy, y.data(), n * sizeof(float), cudaMemcpyDefault)); // inferred
    saxpy<<<(n + 255) / 256, 256>>>(n, 3.0f, dx, dy);
    CHECK_OK(cudaGetLastError());
    CHECK_OK(cudaDeviceSynchronize());
    CHECK_OK(cudaMemcpy(out.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost));
    bool ok = true;
    for (int i = 0; i < n; ++i)
        ok &= out[i] == 3.0f * s[i % 4] * x[i] + y[i];
    CHECK(ok);

    // Device to device, memset, and the byte pattern it leaves.
    CHECK_OK(cudaMemcpy(dx, dy, n * sizeof(float), cudaMemcpyDeviceToDevice));
    CHECK_OK(cudaMemset(dy, 0x3f, 29));
    unsigned char expect_bytes[32], bytes[32];
    std::memcpy(expect_bytes, out.data(), sizeof(expect_bytes));
    std::memset(expect_bytes, 0x3f, 29);
    CHECK_OK(cudaMemcpy(bytes, dy, sizeof(bytes), cudaMemcpyDeviceToHost));
    CHECK(std::memcmp(bytes, expect_bytes, sizeof(bytes)) == 0);
    CHECK_OK(cudaMemcpy(out.data(), dx, n * sizeof(float), cudaMemcpyDeviceToHost));
    ok = true;
    for (int i = 0; i < n; ++i)
        ok &= out[i] == 3.0f * s[i % 4] * x[i] + y[i];
    CHECK(ok);

    // __device__ variables: symbol address and size, and a kernel's atomics.
    int zero = 0;
    CHECK_OK(cudaMemcpyToSymbol(counter, &zero, sizeof(zero)));
    void *table_address = nullptr;
    size_t table_size = 0;
    CHECK_OK(cudaGetSymbolAddress(&table_address, table));
    CHECK_OK(cudaGetSymbolSize(&table_size, table));
    CHECK(table_address != nullptr && table_size == sizeof(int) * 16);
    count_and_fill<<<7, 64>>>(400);
    CHECK_OK(cudaDeviceSynchronize());
    int count = 0, host_table[16];
    CHECK_OK(cudaMemcpyFromSymbol(&count, counter, sizeof(count)));
    CHECK(count == 400);
    CHECK_OK(cudaMemcpy(host_table, table_address, sizeof(host_table), cudaMemcpyDeviceToHost));
    for (int i = 0; i < 16; ++i)
        CHECK(host_table[i] == i + 100);
    CHECK_EQ_ERR(cudaMemcpyToSymbol(counter, &zero, sizeof(zero), 4), cudaErrorInvalidValue);
    CHECK_EQ_ERR(cudaGetLastError(), cudaErrorInvalidValue); // recorded, and cleared by reading
    CHECK_OK(cudaGetLastError());

    CHECK_EQ_ERR(cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 4 << 20), cudaErrorInvalidValue);
    CHECK_EQ_ERR(cudaGetLastError(), cudaErrorInvalidValue);

    CHECK_OK(cudaFree(dx));
    CHECK_OK(cudaFree(dy));
    CHECK_OK(cudaFree(nullptr));
}

static void pinned_streams_and_events() {
    const int n = 1 << 14;
    int *pinned = nullptr;
    CHECK_OK(cudaMallocHost(&pinned, n * sizeof(int)));
    for (int i = 0; i < n; ++i)
        pinned[i] = i * 7;
    int *d;
    CHECK_OK(cudaMalloc(&d, n * sizeof(int)));
    cudaStream_t copy_stream, compute_stream;
    CHECK_OK(cudaStreamCreateWithFlags(&copy_stream, cudaStreamNonBlocking));
    CHECK_OK(cudaStreamCreate(&compute_stream));
    unsigned flags = 99;
    CHECK_OK(cudaStreamGetFlags(copy_stream, &flags));
    CHECK(flags == cudaStreamNonBlocking);
    cudaEvent_t start, copied, done, untimed;
    CHECK_OK(cudaEventCreate(&start));
    CHECK_OK(cudaEventCreate(&copied));
    CHECK_OK(cudaEventCreateWithFlags(&done, cudaEventBlockingSync));
    CHECK_OK(cudaEventCreateWithFlags(&untimed, cudaEventDisableTiming));
    CHECK_OK(cudaEventRecord(start, copy_stream));
    CHECK_OK(cudaMemcpyAsync(d, pinned, n * sizeof(int), cudaMemcpyHostToDevice, copy_stream));
    CHECK_OK(cudaEventRecord(copied, copy_stream));
    CHECK_OK(cudaStreamWaitEvent(compute_stream, copied, 0));
    add_one<<<n / 256, 256, 0, compute_stream>>>(d, n);
    add_one<<<n / 256, 256, 0, compute_stream>>>(d, n);
    CHECK_OK(cudaMemcpyAsync(pinned, d, n * sizeof(int), cudaMemcpyDeviceToHost, compute_stream));
    CHECK_OK(cudaEventRecord(done, compute_stream));
    CHECK_OK(cudaEventRecord(untimed, compute_stream));
    CHECK_OK(cudaEventSynchronize(done));
    CHECK_OK(cudaEventQuery(done));
    CHECK_OK(cudaStreamSynchronize(compute_stream));
    CHECK_OK(cudaStreamQuery(compute_stream));
    bool ok = true;
    for (int i = 0; i < n; ++i)
        ok &= pinned[i] == i * 7 + 2;
    CHECK(ok);
    float copy_ms = -1, total_ms = -1, ms;
    CHECK_OK(cudaEventElapsedTime(&copy_ms, start, copied));
    CHECK_OK(cudaEventElapsedTime(&total_ms, start, done));
    CHECK(copy_ms >= 0 && total_ms >= copy_ms);
    CHECK_EQ_ERR(cudaEventElapsedTime(&ms, start, untimed), cudaErrorInvalidResourceHandle);
    CHECK_EQ_ERR(cudaGetLastError(), cudaErrorInvalidResourceHandle);
    for (cudaEvent_t e : {start, copied, done, untimed})
        CHECK_OK(cudaEventDestroy(e));
    CHECK_OK(cudaStreamDestroy(copy_stream));
    CHECK_OK(cudaStreamDestroy(compute_stream));
    CHECK_OK(cudaFree(d));
    CHECK_OK(cudaFreeHost(pinned));

    int *mapped_host = nullptr;
    CHECK_OK(cudaHostAlloc(&mapped_host, 64 * sizeof(int), cudaHostAllocMapped));
    int *mapped_device = nullptr;
    cudaError_t mapped = cudaHostGetDevicePointer((void **)&mapped_device, mapped_host, 0);
    int can_map = 0;
    CHECK_OK(cudaDeviceGetAttribute(&can_map, cudaDevAttrCanMapHostMemory, 0));
    if (can_map) {
        CHECK(mapped == cudaSuccess);
        for (int i = 0; i < 64; ++i)
            mapped_host[i] = i;
        add_one<<<1, 64>>>(mapped_device, 64); // the device works on host memory
        CHECK_OK(cudaDeviceSynchronize());
        for (int i = 0; i < 64; ++i)
            CHECK(mapped_host[i] == i + 1);
    } else {
        CHECK(mapped == cudaErrorNotSupported);
        cudaGetLastError();
    }
    CHECK_OK(cudaFreeHost(mapped_host));
}

static void launch_errors_attributes_and_occupancy() {
    float *d;
    CHECK_OK(cudaMalloc(&d, 256 * sizeof(float)));
    // A bad configuration fails the launch, is reported once, and is not sticky.
    uses_shared<<<0, 256>>>(d);
    CHECK_EQ_ERR(cudaPeekAtLastError(), cudaErrorInvalidConfiguration);
    CHECK_EQ_ERR(cudaGetLastError(), cudaErrorInvalidConfiguration);
    CHECK_OK(cudaGetLastError());
    uses_shared<<<1, 256>>>(d);
    CHECK_OK(cudaDeviceSynchronize());
    float out[256];
    CHECK_OK(cudaMemcpy(out, d, sizeof(out), cudaMemcpyDeviceToHost));
    for (int i = 0; i < 256; ++i)
        CHECK(out[i] == float(255 - i));

    cudaFuncAttributes attr;
    CHECK_OK(cudaFuncGetAttributes(&attr, uses_shared));
    CHECK(attr.sharedSizeBytes == 256 * sizeof(float));
    CHECK(attr.maxThreadsPerBlock >= 256);
    cudaDeviceProp prop;
    CHECK_OK(cudaGetDeviceProperties(&prop, 0));
    CHECK(attr.binaryVersion <= prop.major * 10);

    int blocks = -1;
    CHECK_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, uses_shared, 256, 0));
    // Independent statement of include/simtgpu/occupancy.h's rule.
    int warps_per_block = (256 + prop.warpSize - 1) / prop.warpSize;
    int warp_slots = prop.maxThreadsPerMultiProcessor / prop.warpSize;
    int by_shared = int(prop.sharedMemPerMultiprocessor / ((attr.sharedSizeBytes + 255) / 256 * 256));
    int expect = std::min({prop.maxBlocksPerMultiProcessor, warp_slots / warps_per_block, by_shared});
    CHECK(blocks == expect);
    int min_grid = 0, block_size = 0;
    CHECK_OK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block_size, uses_shared, 0, 256));
    CHECK(block_size > 0 && block_size <= 256 && block_size % prop.warpSize == 0);
    CHECK(min_grid > 0 && min_grid % prop.multiProcessorCount == 0);
    // The family's definition, stated here by brute force: with each block
    // size's own dynamic shared memory, the block size (the largest on ties)
    // with the most resident threads, and the grid that fills every SM.
    auto smem_of = [](int block) { return size_t(block) * 8 * sizeof(float); };
    int best_threads = -1, best_block = 0, best_blocks = 0;
    for (int b = 256; b > 0; b -= prop.warpSize) {
        int n = 0;
        CHECK_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, uses_shared, b, smem_of(b)));
        if (n * b > best_threads) {
            best_threads = n * b;
            best_block = b;
            best_blocks = n;
        }
    }
    CHECK_OK(cudaOccupancyMaxPotentialBlockSizeVariableSMem(&min_grid, &block_size, uses_shared,
                                                            smem_of, 256));
    CHECK(block_size == best_block && min_grid == best_blocks * prop.multiProcessorCount);
    int with_flags_grid = 0, with_flags_block = 0;
    CHECK_OK(cudaOccupancyMaxPotentialBlockSizeWithFlags(&with_flags_grid, &with_flags_block,
                                                         uses_shared, 0, 256, 0));
    CHECK_OK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block_size, uses_shared, 0, 256));
    CHECK(with_flags_grid == min_grid && with_flags_block == block_size);
    CHECK_EQ_ERR(cudaOccupancyMaxPotentialBlockSizeWithFlags(&min_grid, &block_size, uses_shared,
                                                             0, 256, 2),
                 cudaErrorInvalidValue);
    cudaGetLastError();
    // Dynamic shared memory left per block: one block may take all that a
    // launch accepts; two share the SM's.
    const size_t launch_max = prop.sharedMemPerBlock - attr.sharedSizeBytes;
    size_t dyn = 0;
    CHECK_OK(cudaOccupancyAvailableDynamicSMemPerBlock(&dyn, uses_shared, 1, 256));
    CHECK(dyn == std::min(launch_max, prop.sharedMemPerMultiprocessor - attr.sharedSizeBytes));
    CHECK_OK(cudaOccupancyAvailableDynamicSMemPerBlock(&dyn, uses_shared, 2, 256));
    const size_t half = prop.sharedMemPerMultiprocessor / 2 / 256 * 256; // 256-byte units
    CHECK(dyn == std::min(launch_max, half - attr.sharedSizeBytes));
    int n = 0;
    CHECK_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, uses_shared, 256, dyn));
    CHECK(n >= 2);
    CHECK_EQ_ERR(cudaOccupancyAvailableDynamicSMemPerBlock(&dyn, uses_shared, 0, 256),
                 cudaErrorInvalidValue);
    cudaGetLastError();

    // After a reset the context is new: memory is gone, kernels load again.
    CHECK_OK(cudaDeviceReset());
    CHECK_OK(cudaMalloc(&d, 256 * sizeof(float)));
    uses_shared<<<1, 256>>>(d);
    CHECK_OK(cudaDeviceSynchronize());
    CHECK_OK(cudaMemcpy(out, d, sizeof(out), cudaMemcpyDeviceToHost));
    CHECK(out[0] == 255.0f && out[255] == 0.0f);
    CHECK_OK(cudaFree(d));
}

int main() {
    devices_and_properties();
    memory_and_kernels();
    pinned_streams_and_events();
    launch_errors_attributes_and_occupancy();
    return finish("runtime_api");
}
