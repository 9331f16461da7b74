// libsimtgpu's C API on the transport SIMTGPU_TRANSPORT selects (ctest: the
// in-process simulator; the guest suite: the render node). Every expected
// value is computed here on the CPU.
#include "simtgpu/counters.h"
#include "simtgpu/hw.h"
#include "simtgpu/simtgpu.h"
#include "test_support.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <numeric>
#include <string>
#include <thread>

#include <sys/mman.h>
#include <unistd.h>
#include <vector>

using namespace simtgpu::umd::test;

#define ASSERT_OK(expr)                                                                        \
    do {                                                                                       \
        simtgpuResult r_ = (expr);                                                             \
        ASSERT_EQ(r_, SIMTGPU_SUCCESS) << #expr << ": " << simtgpuGetErrorName(r_) << ": "     \
                                       << simtgpuGetErrorDetail();                             \
    } while (0)

namespace {

class DriverApi : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_OK(simtgpuInit(0));
        ASSERT_OK(simtgpuDeviceGet(&device_, 0));
        ASSERT_OK(simtgpuDeviceGetProperties(&props_, device_));
        ASSERT_OK(simtgpuCtxCreate(&ctx_, 0, device_));
        image_ = kernels_image();
        ASSERT_FALSE(image_.empty());
        ASSERT_OK(simtgpuModuleLoadData(&module_, ctx_, image_.data(), image_.size()));
    }
    void TearDown() override {
        if (ctx_)
            simtgpuCtxDestroy(ctx_);
    }
    simtgpuFunction kernel(const char *name) {
        simtgpuFunction f = nullptr;
        EXPECT_EQ(simtgpuModuleGetFunction(&f, module_, name), SIMTGPU_SUCCESS) << name;
        return f;
    }
    simtgpuDevicePtr alloc(size_t bytes) {
        simtgpuDevicePtr p = 0;
        EXPECT_EQ(simtgpuMemAlloc(ctx_, &p, bytes), SIMTGPU_SUCCESS) << simtgpuGetErrorDetail();
        return p;
    }

    simtgpuDevice device_ = 0;
    simtgpuDeviceProperties props_{};
    simtgpuContext ctx_ = nullptr;
    simtgpuModule module_ = nullptr;
    std::vector<uint8_t> image_;
};

TEST_F(DriverApi, PropertiesDescribeAUsableDevice) {
    int count = 0;
    ASSERT_OK(simtgpuDeviceGetCount(&count));
    EXPECT_GE(count, 1);
    EXPECT_EQ(props_.uapi_version >> 16, 1u);
    EXPECT_GE(props_.arch, 1u);
    EXPECT_LE(props_.arch, uint32_t(SIMTGPU_ARCH_NEWEST));
    EXPECT_GT(props_.num_sms, 0u);
    EXPECT_GT(props_.warp_size, 0u);
    EXPECT_GE(props_.max_threads_per_cta, props_.warp_size);
    EXPECT_GT(props_.vram_size, 1u << 20);
    EXPECT_NE(std::string(props_.name).find("simt_"), std::string::npos);
    simtgpuDevice bad;
    EXPECT_EQ(simtgpuDeviceGet(&bad, count), SIMTGPU_ERROR_INVALID_DEVICE);
}

TEST_F(DriverApi, CopiesRoundTripThroughDeviceMemory) {
    std::vector<uint32_t> host(10000), back(10000, 0);
    for (size_t i = 0; i < host.size(); ++i)
        host[i] = uint32_t(i * 2654435761u);
    simtgpuDevicePtr a = alloc(host.size() * 4), b = alloc(host.size() * 4);
    ASSERT_OK(simtgpuMemcpyHtoD(ctx_, a, host.data(), host.size() * 4));
    ASSERT_OK(simtgpuMemcpyDtoD(ctx_, b, a, host.size() * 4)); // COPY packet on the device
    ASSERT_OK(simtgpuMemcpyDtoH(ctx_, back.data(), b, back.size() * 4));
    EXPECT_EQ(back, host);
    ASSERT_OK(simtgpuMemFree(ctx_, a));
    ASSERT_OK(simtgpuMemFree(ctx_, b));
}

TEST_F(DriverApi, MemsetFillsUnalignedRanges) {
    std::vector<uint8_t> expect(4096, 0xee);
    simtgpuDevicePtr p = alloc(expect.size());
    ASSERT_OK(simtgpuMemsetD8(ctx_, p, 0xee, expect.size()));
    std::fill(expect.begin() + 3, expect.begin() + 3 + 1001, 0x5a);
    ASSERT_OK(simtgpuMemsetD8(ctx_, p + 3, 0x5a, 1001));
    std::vector<uint8_t> back(expect.size());
    ASSERT_OK(simtgpuMemcpyDtoH(ctx_, back.data(), p, back.size()));
    EXPECT_EQ(back, expect);
    ASSERT_OK(simtgpuMemsetD32(ctx_, p, 0x01020304u, 16));
    uint32_t words[16];
    ASSERT_OK(simtgpuMemcpyDtoH(ctx_, words, p, sizeof(words)));
    for (uint32_t w : words)
        EXPECT_EQ(w, 0x01020304u);
}

TEST_F(DriverApi, BadRangesAreInvalidValues) {
    simtgpuDevicePtr p = alloc(64);
    uint8_t buf[128] = {};
    EXPECT_EQ(simtgpuMemcpyHtoD(ctx_, p, buf, 128), SIMTGPU_ERROR_INVALID_VALUE);
    EXPECT_EQ(simtgpuMemcpyDtoH(ctx_, buf, 0x10, 4), SIMTGPU_ERROR_INVALID_VALUE);
    EXPECT_EQ(simtgpuMemFree(ctx_, p + 4), SIMTGPU_ERROR_INVALID_VALUE);
    simtgpuDevicePtr base = 0;
    size_t bytes = 0;
    ASSERT_OK(simtgpuMemGetAddressRange(ctx_, &base, &bytes, p + 10));
    EXPECT_EQ(base, p);
    EXPECT_GE(bytes, 64u);
}

TEST_F(DriverApi, OutOfMemorySaysHowMuch) {
    simtgpuDevicePtr p = 0;
    EXPECT_EQ(simtgpuMemAlloc(ctx_, &p, props_.vram_size + (1u << 20)),
              SIMTGPU_ERROR_OUT_OF_MEMORY);
    EXPECT_NE(std::string(simtgpuGetErrorDetail()).find(std::to_string(props_.vram_size + (1u << 20))),
              std::string::npos)
        << simtgpuGetErrorDetail();
}

// Over a cgroup VRAM limit, the error names the limit and the cgroup (as
// /proc/self/cgroup shows it), on either transport.
TEST_F(DriverApi, CgroupVramLimitErrorNamesTheLimitAndTheCgroup) {
    ScopedDmemLimit limit(std::getenv("SIMTGPU_TRANSPORT") == nullptr ||
                          std::string(std::getenv("SIMTGPU_TRANSPORT")) != "drm");
    ASSERT_TRUE(limit.join()) << limit.error();
    std::string cgroup = "/";
    {
        std::ifstream in("/proc/self/cgroup");
        for (std::string line; std::getline(in, line);)
            if (line.rfind("0::", 0) == 0)
                cgroup = line.substr(3);
    }
    simtgpuContext ctx = nullptr;
    ASSERT_OK(simtgpuCtxCreate(&ctx, 0, device_)); // opened inside the cgroup
    const uint64_t cap = 16ull << 20;
    ASSERT_TRUE(limit.set(cap)) << limit.error();
    simtgpuDevicePtr p = 0;
    EXPECT_EQ(simtgpuMemAlloc(ctx, &p, size_t(cap)), SIMTGPU_ERROR_OUT_OF_MEMORY);
    const std::string detail = simtgpuGetErrorDetail();
    EXPECT_NE(detail.find("cgroup " + cgroup + " "), std::string::npos) << detail;
    EXPECT_NE(detail.find("dmem max " + std::to_string(cap) + " bytes"), std::string::npos)
        << detail;
    ASSERT_OK(simtgpuMemAlloc(ctx, &p, 1u << 20)); // below the limit
    simtgpuCtxDestroy(ctx);
}

// Resident host memory of this process (the in-process device's VRAM too).
uint64_t resident_bytes() {
    std::FILE *f = std::fopen("/proc/self/statm", "r");
    unsigned long size = 0, resident = 0;
    if (f) {
        if (std::fscanf(f, "%lu %lu", &size, &resident) != 2)
            resident = 0;
        std::fclose(f);
    }
    return uint64_t(resident) * uint64_t(sysconf(_SC_PAGESIZE));
}

// Programs size buffers from cudaMemGetInfo: three quarters of a 16 GiB VRAM
// are cleared for the new buffer without backing them, so the host pays only
// for what the program touches.
TEST_F(DriverApi, AllocatingMostOfVramCommitsOnlyTouchedPages) {
    const size_t bytes = size_t(props_.vram_size / 4 * 3) & ~size_t(0xfffff);
    const uint64_t before = resident_bytes();
    simtgpuDevicePtr p = alloc(bytes);
    ASSERT_OK(simtgpuMemsetD32(ctx_, p + bytes / 2, 0x5a5a5a5au, 1u << 20)); // 4 MiB
    uint32_t word = 0;
    ASSERT_OK(simtgpuMemcpyDtoH(ctx_, &word, p + bytes - 4, sizeof word));
    EXPECT_EQ(word, 0u);
    EXPECT_LT(resident_bytes(), before + (64u << 20)) << bytes << " bytes allocated";
    ASSERT_OK(simtgpuMemFree(ctx_, p));
}

TEST_F(DriverApi, VectorAddMatchesTheCpu) {
    const uint32_t n = 1000;
    std::vector<float> a(n), b(n), c(n, -1.f);
    for (uint32_t i = 0; i < n; ++i) {
        a[i] = float(i) * 0.25f;
        b[i] = 1000.f - float(i);
    }
    simtgpuDevicePtr da = alloc(n * 4), db = alloc(n * 4), dc = alloc(n * 4);
    ASSERT_OK(simtgpuMemcpyHtoD(ctx_, da, a.data(), n * 4));
    ASSERT_OK(simtgpuMemcpyHtoD(ctx_, db, b.data(), n * 4));
    void *params[] = {&da, &db, &dc, const_cast<uint32_t *>(&n)};
    ASSERT_OK(simtgpuLaunchKernel(kernel("vec_add"), (n + 127) / 128, 1, 1, 128, 1, 1, 0,
                                  nullptr, params, nullptr));
    ASSERT_OK(simtgpuCtxSynchronize(ctx_));
    ASSERT_OK(simtgpuMemcpyDtoH(ctx_, c.data(), dc, n * 4));
    for (uint32_t i = 0; i < n; ++i)
        ASSERT_EQ(c[i], a[i] + b[i]) << i;
}

// simtgpuLaunchKernelEx: the launch of simtgpuLaunchKernel from a config,
// with a window of its own checked as a stream's and never becoming the
// stream's.
TEST_F(DriverApi, LaunchKernelExRunsWithItsOwnWindow) {
    const uint32_t n = 1000;
    std::vector<float> a(n), b(n), c(n, -1.f);
    for (uint32_t i = 0; i < n; ++i) {
        a[i] = float(i) * 0.5f;
        b[i] = float(i) - 300.f;
    }
    simtgpuDevicePtr da = alloc(n * 4), db = alloc(n * 4), dc = alloc(n * 4);
    ASSERT_OK(simtgpuMemcpyHtoD(ctx_, da, a.data(), n * 4));
    ASSERT_OK(simtgpuMemcpyHtoD(ctx_, db, b.data(), n * 4));
    void *params[] = {&da, &db, &dc, const_cast<uint32_t *>(&n)};
    simtgpuStream s = nullptr;
    ASSERT_OK(simtgpuStreamCreate(&s, ctx_, 0, 0));
    simtgpuLaunchConfig config{{(n + 127) / 128, 1, 1}, {128, 1, 1}, 0, s, nullptr};
    EXPECT_EQ(simtgpuLaunchKernelEx(kernel("vec_add"), nullptr, params),
              SIMTGPU_ERROR_INVALID_VALUE);
    simtgpuAccessPolicyWindow window{da, n * 4, 1.5f, SIMTGPU_ACCESS_PROPERTY_PERSISTING,
                                     SIMTGPU_ACCESS_PROPERTY_STREAMING, 0};
    config.l2_window = &window;
    EXPECT_EQ(simtgpuLaunchKernelEx(kernel("vec_add"), &config, params),
              SIMTGPU_ERROR_INVALID_VALUE); // hit_ratio above 1
    window.hit_ratio = 1.0f;
    if (props_.l2_window_max == 0) // no windows on this device: only "none"
        EXPECT_EQ(simtgpuLaunchKernelEx(kernel("vec_add"), &config, params),
                  SIMTGPU_ERROR_INVALID_VALUE);
    else
        ASSERT_OK(simtgpuLaunchKernelEx(kernel("vec_add"), &config, params));
    window.bytes = 0;
    ASSERT_OK(simtgpuLaunchKernelEx(kernel("vec_add"), &config, params));
    ASSERT_OK(simtgpuCtxSynchronize(ctx_));
    ASSERT_OK(simtgpuMemcpyDtoH(ctx_, c.data(), dc, n * 4));
    for (uint32_t i = 0; i < n; ++i)
        ASSERT_EQ(c[i], a[i] + b[i]) << i;
    simtgpuAccessPolicyWindow stream_window{};
    ASSERT_OK(simtgpuStreamGetAccessPolicyWindow(ctx_, s, &stream_window));
    EXPECT_EQ(stream_window.bytes, 0u);
    ASSERT_OK(simtgpuStreamDestroy(s));
}

TEST_F(DriverApi, StreamPriorityReadsBackClamped) {
    const int asked[] = {1, 0, -1, 5, -5}, kept[] = {1, 0, -1, 1, -1};
    for (size_t i = 0; i < std::size(asked); ++i) {
        simtgpuStream s = nullptr;
        ASSERT_OK(simtgpuStreamCreate(&s, ctx_, 0, asked[i]));
        int priority = 99;
        ASSERT_OK(simtgpuStreamGetPriority(s, &priority));
        EXPECT_EQ(priority, kept[i]) << asked[i];
        ASSERT_OK(simtgpuStreamDestroy(s));
    }
    int priority = 0;
    EXPECT_EQ(simtgpuStreamGetPriority(nullptr, &priority), SIMTGPU_ERROR_INVALID_VALUE);
}

// Every launch asks the device for its launch report: per kernel, launches,
// device cycles (within the events around them) and thread instructions
// (an affine function of the kernel's loop count, so equal steps add equal
// counts).
// SIMTGPU_STATS: each kernel's entry carries the counters its own launches
// moved, even with two kernels in flight on two streams (launches are then
// serialised): CTAs are the grids' (known from the launches) and
// instructions what each grid's launch report counted.
TEST_F(DriverApi, StatsGiveEachKernelItsOwnCounters) {
    const std::string path =
        "/tmp/simtgpu-stats-" + std::to_string(getpid()) + "-" + std::to_string(rand()) + ".json";
    setenv("SIMTGPU_STATS", path.c_str(), 1);
    simtgpuContext ctx = nullptr;
    simtgpuResult created = simtgpuCtxCreate(&ctx, 0, device_);
    unsetenv("SIMTGPU_STATS"); // read when the context is made
    ASSERT_OK(created);
    simtgpuModule module = nullptr;
    ASSERT_OK(simtgpuModuleLoadData(&module, ctx, image_.data(), image_.size()));
    simtgpuFunction compute = nullptr, vec_add = nullptr;
    ASSERT_OK(simtgpuModuleGetFunction(&compute, module, "compute"));
    ASSERT_OK(simtgpuModuleGetFunction(&vec_add, module, "vec_add"));
    simtgpuStream a = nullptr, b = nullptr;
    ASSERT_OK(simtgpuStreamCreate(&a, ctx, SIMTGPU_STREAM_NON_BLOCKING, 0));
    ASSERT_OK(simtgpuStreamCreate(&b, ctx, SIMTGPU_STREAM_NON_BLOCKING, 0));
    const uint32_t n = 1000;
    simtgpuDevicePtr out = 0, va = 0, vb = 0, vc = 0;
    ASSERT_OK(simtgpuMemAlloc(ctx, &out, 64 * 8));
    for (simtgpuDevicePtr *p : {&va, &vb, &vc})
        ASSERT_OK(simtgpuMemAlloc(ctx, p, n * 4));
    uint64_t iterations = 500;
    void *compute_params[] = {&out, &iterations};
    void *add_params[] = {&va, &vb, &vc, const_cast<uint32_t *>(&n)};
    const uint32_t compute_grid = 2, add_grid = (n + 127) / 128;
    for (int i = 0; i < 2; ++i) {
        ASSERT_OK(simtgpuLaunchKernel(compute, compute_grid, 1, 1, 32, 1, 1, 0, a, compute_params,
                                      nullptr));
        ASSERT_OK(
            simtgpuLaunchKernel(vec_add, add_grid, 1, 1, 128, 1, 1, 0, b, add_params, nullptr));
    }
    ASSERT_OK(simtgpuCtxSynchronize(ctx));
    simtgpuKernelStats compute_stats, add_stats;
    ASSERT_OK(simtgpuCtxGetKernelStats(ctx, "compute", &compute_stats));
    ASSERT_OK(simtgpuCtxGetKernelStats(ctx, "vec_add", &add_stats));
    ASSERT_OK(simtgpuCtxDestroy(ctx)); // writes the file
    std::ifstream in(path);
    ASSERT_TRUE(in) << path;
    nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
    std::remove(path.c_str());
    ASSERT_FALSE(j.is_discarded());
    const struct {
        const char *name;
        const simtgpuKernelStats &report;
        uint64_t ctas;
    } kernels[] = {{"compute", compute_stats, 2 * compute_grid},
                   {"vec_add", add_stats, 2 * add_grid}};
    for (const auto &k : kernels) {
        SCOPED_TRACE(k.name);
        ASSERT_TRUE(j["kernels"][k.name].contains("counters")) << j.dump(2);
        const nlohmann::json &c = j["kernels"][k.name]["counters"];
        EXPECT_EQ(c["launches"].get<uint64_t>(), 2u);
        EXPECT_EQ(c["ctas"].get<uint64_t>(), k.ctas);
        EXPECT_EQ(c["thread_instructions"].get<uint64_t>(), k.report.thread_instructions);
        EXPECT_GT(c["warp_instructions"].get<uint64_t>(), 0u);
        EXPECT_TRUE(j["kernels"][k.name]["derived"].contains("ipc"));
    }
    EXPECT_GT(compute_stats.thread_instructions, 64u * 500); // one per iteration at least
    EXPECT_NE(compute_stats.thread_instructions, add_stats.thread_instructions);
}

TEST_F(DriverApi, LaunchReportsGiveEachKernelsDeviceTime) {
    simtgpuDevicePtr out = alloc(32 * 8);
    simtgpuEvent start, end;
    ASSERT_OK(simtgpuEventCreate(&start, ctx_, 0));
    ASSERT_OK(simtgpuEventCreate(&end, ctx_, 0));
    std::vector<uint64_t> instructions;
    uint64_t cycles_before = 0;
    for (uint64_t iterations : {1000, 2000, 3000}) {
        void *params[] = {&out, &iterations};
        ASSERT_OK(simtgpuEventRecord(start, nullptr));
        ASSERT_OK(simtgpuLaunchKernel(kernel("compute"), 1, 1, 1, 32, 1, 1, 0, nullptr, params,
                                      nullptr));
        ASSERT_OK(simtgpuEventRecord(end, nullptr));
        ASSERT_OK(simtgpuCtxSynchronize(ctx_));
        simtgpuKernelStats stats;
        ASSERT_OK(simtgpuCtxGetKernelStats(ctx_, "compute", &stats));
        EXPECT_EQ(stats.launches, instructions.size() + 1);
        const uint64_t cycles = stats.device_cycles - cycles_before;
        cycles_before = stats.device_cycles;
        float ms = 0;
        ASSERT_OK(simtgpuEventElapsedTime(&ms, start, end));
        EXPECT_GT(cycles, iterations); // at least one cycle per iteration
        EXPECT_LE(double(cycles), double(ms) * 1e3 * props_.clock_khz / 1000.0 + 1);
        instructions.push_back(stats.thread_instructions);
    }
    const uint64_t first = instructions[0], second = instructions[1] - instructions[0],
                   third = instructions[2] - instructions[1];
    EXPECT_GT(first, 32u * 1000);
    EXPECT_EQ(third - second, second - first) << "not affine in the loop count";
    simtgpuKernelStats none;
    ASSERT_OK(simtgpuCtxGetKernelStats(ctx_, "vec_add", &none));
    EXPECT_EQ(none.launches, 0u);
    simtgpuEventDestroy(start);
    simtgpuEventDestroy(end);
}

TEST_F(DriverApi, TwoDimensionalGridsIndexEveryThread) {
    const uint32_t bx = 8, by = 4, gx = 3, gy = 5, width = bx * gx, height = by * gy;
    simtgpuDevicePtr out = alloc(width * height * 4);
    uint32_t w = width;
    void *params[] = {&out, &w};
    ASSERT_OK(simtgpuLaunchKernel(kernel("index2d"), gx, gy, 1, bx, by, 1, 0, nullptr, params,
                                  nullptr));
    std::vector<uint32_t> back(width * height);
    ASSERT_OK(simtgpuMemcpyDtoH(ctx_, back.data(), out, back.size() * 4));
    for (uint32_t y = 0; y < height; ++y)
        for (uint32_t x = 0; x < width; ++x)
            ASSERT_EQ(back[y * width + x], x * 3 + y * 1000 + 1) << x << "," << y;
}

TEST_F(DriverApi, RelocatedPointersAndGlobalsWork) {
    simtgpuDevicePtr table = 0;
    size_t bytes = 0;
    ASSERT_OK(simtgpuModuleGetGlobal(&table, &bytes, module_, "device_table"));
    EXPECT_EQ(bytes, 8 * sizeof(int32_t));
    int32_t initial[8];
    ASSERT_OK(simtgpuMemcpyDtoH(ctx_, initial, table, sizeof(initial)));
    for (int i = 0; i < 8; ++i)
        EXPECT_EQ(initial[i], 10 * (i + 1));
    int32_t updated[8];
    for (int i = 0; i < 8; ++i)
        updated[i] = -3 * i + 7;
    ASSERT_OK(simtgpuMemcpyHtoD(ctx_, table, updated, sizeof(updated)));
    simtgpuDevicePtr out = alloc(8 * 4);
    void *params[] = {&out};
    ASSERT_OK(simtgpuLaunchKernel(kernel("read_table"), 1, 1, 1, 8, 1, 1, 0, nullptr, params,
                                  nullptr));
    int32_t back[8];
    ASSERT_OK(simtgpuMemcpyDtoH(ctx_, back, out, sizeof(back)));
    // device_table_ptr = &device_table[2] (an R_RISCV_RELATIVE relocation).
    for (int i = 0; i < 8; ++i)
        EXPECT_EQ(back[i], updated[i] * 2) << i;
    EXPECT_EQ(simtgpuModuleGetGlobal(&table, &bytes, module_, "no_such_symbol"),
              SIMTGPU_ERROR_NOT_FOUND);
}

TEST_F(DriverApi, DynamicSharedMemoryBlockSums) {
    const uint32_t threads = 64, blocks = 6;
    std::vector<uint32_t> in(threads * blocks);
    std::iota(in.begin(), in.end(), 1u);
    simtgpuDevicePtr din = alloc(in.size() * 4), dout = alloc(blocks * 4);
    ASSERT_OK(simtgpuMemcpyHtoD(ctx_, din, in.data(), in.size() * 4));
    void *params[] = {&din, &dout};
    ASSERT_OK(simtgpuLaunchKernel(kernel("block_sum"), blocks, 1, 1, threads, 1, 1, threads * 4,
                                  nullptr, params, nullptr));
    std::vector<uint32_t> out(blocks);
    ASSERT_OK(simtgpuMemcpyDtoH(ctx_, out.data(), dout, blocks * 4));
    for (uint32_t b = 0; b < blocks; ++b) {
        uint32_t sum = 0;
        for (uint32_t t = 0; t < threads; ++t)
            sum += in[b * threads + t];
        EXPECT_EQ(out[b], sum) << b;
    }
}

TEST_F(DriverApi, LaunchChecksConfiguration) {
    simtgpuDevicePtr out = alloc(64);
    void *params[] = {&out, &out};
    EXPECT_EQ(simtgpuLaunchKernel(kernel("block_sum"), 0, 1, 1, 32, 1, 1, 0, nullptr, params,
                                  nullptr),
              SIMTGPU_ERROR_INVALID_CONFIGURATION);
    // block_sum's kernel table says at most 256 threads per block.
    EXPECT_EQ(simtgpuLaunchKernel(kernel("block_sum"), 1, 1, 1, 512, 1, 1, 0, nullptr, params,
                                  nullptr),
              SIMTGPU_ERROR_INVALID_CONFIGURATION);
    EXPECT_EQ(simtgpuLaunchKernel(kernel("block_sum"), 1, 1, 1, 32, 1, 1,
                                  props_.shared_per_sm + 1, nullptr, params, nullptr),
              SIMTGPU_ERROR_LAUNCH_OUT_OF_RESOURCES);
    int max_threads = 0;
    ASSERT_OK(simtgpuFuncGetAttribute(&max_threads, SIMTGPU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                                      kernel("block_sum")));
    EXPECT_EQ(max_threads, 256);
    // Errors of this kind are not sticky.
    EXPECT_EQ(simtgpuCtxGetStickyError(ctx_), SIMTGPU_SUCCESS);
}

TEST_F(DriverApi, OccupancyFollowsTheWarpAndSharedLimits) {
    simtgpuFunction f = kernel("block_sum");
    for (int block : {32, 64, 100, 256}) {
        for (size_t shared : {size_t(0), size_t(1000), size_t(16384)}) {
            int got = -1;
            ASSERT_OK(simtgpuOccupancyMaxActiveBlocksPerMultiprocessor(&got, f, block, shared));
            // Independent statement of the rule: warps, CTA slots and
            // 256-byte shared granules each limit the count.
            uint32_t warps = (uint32_t(block) + props_.warp_size - 1) / props_.warp_size;
            uint32_t expect = std::min(props_.ctas_per_sm, props_.warps_per_sm / warps);
            uint32_t granules = uint32_t((shared + 255) / 256) * 256;
            if (granules)
                expect = std::min(expect, props_.shared_per_sm / granules);
            EXPECT_EQ(uint32_t(got), expect) << block << " threads, " << shared << " bytes";
        }
    }
}

TEST_F(DriverApi, StreamsAndEventsOrderWork) {
    simtgpuStream s1, s2;
    ASSERT_OK(simtgpuStreamCreate(&s1, ctx_, SIMTGPU_STREAM_NON_BLOCKING, 0));
    ASSERT_OK(simtgpuStreamCreate(&s2, ctx_, SIMTGPU_STREAM_NON_BLOCKING, 0));
    simtgpuEvent start, copied, end;
    ASSERT_OK(simtgpuEventCreate(&start, ctx_, 0));
    ASSERT_OK(simtgpuEventCreate(&copied, ctx_, 0));
    ASSERT_OK(simtgpuEventCreate(&end, ctx_, 0));
    const uint32_t n = 4096;
    std::vector<float> a(n), b(n);
    for (uint32_t i = 0; i < n; ++i) {
        a[i] = float(i);
        b[i] = float(3 * i);
    }
    simtgpuDevicePtr da = alloc(n * 4), db = alloc(n * 4), dc = alloc(n * 4);
    ASSERT_OK(simtgpuEventRecord(start, s1));
    ASSERT_OK(simtgpuMemcpyHtoDAsync(ctx_, da, a.data(), n * 4, s1));
    ASSERT_OK(simtgpuMemcpyHtoDAsync(ctx_, db, b.data(), n * 4, s1));
    ASSERT_OK(simtgpuEventRecord(copied, s1));
    // s2 runs the kernel only after s1's copies.
    ASSERT_OK(simtgpuStreamWaitEvent(ctx_, s2, copied, 0));
    void *params[] = {&da, &db, &dc, const_cast<uint32_t *>(&n)};
    ASSERT_OK(simtgpuLaunchKernel(kernel("vec_add"), n / 256, 1, 1, 256, 1, 1, 0, s2, params,
                                  nullptr));
    ASSERT_OK(simtgpuEventRecord(end, s2));
    ASSERT_OK(simtgpuEventSynchronize(end));
    EXPECT_EQ(simtgpuEventQuery(end), SIMTGPU_SUCCESS);
    float ms_copy = -1, ms_all = -1;
    ASSERT_OK(simtgpuEventElapsedTime(&ms_copy, start, copied));
    ASSERT_OK(simtgpuEventElapsedTime(&ms_all, start, end));
    EXPECT_GE(ms_copy, 0.f);
    EXPECT_GE(ms_all, ms_copy);
    std::vector<float> c(n);
    ASSERT_OK(simtgpuMemcpyDtoHAsync(ctx_, c.data(), dc, n * 4, s2));
    ASSERT_OK(simtgpuStreamSynchronize(ctx_, s2));
    EXPECT_EQ(simtgpuStreamQuery(ctx_, s2), SIMTGPU_SUCCESS);
    for (uint32_t i = 0; i < n; ++i)
        ASSERT_EQ(c[i], a[i] + b[i]) << i;
    simtgpuEvent untimed;
    ASSERT_OK(simtgpuEventCreate(&untimed, ctx_, SIMTGPU_EVENT_DISABLE_TIMING));
    ASSERT_OK(simtgpuEventRecord(untimed, s1));
    float ms;
    EXPECT_EQ(simtgpuEventElapsedTime(&ms, start, untimed), SIMTGPU_ERROR_INVALID_HANDLE);
    for (simtgpuEvent e : {start, copied, end, untimed})
        ASSERT_OK(simtgpuEventDestroy(e));
    ASSERT_OK(simtgpuStreamDestroy(s1));
    ASSERT_OK(simtgpuStreamDestroy(s2));
}

// Waits up to 20 s for `open`, as a host function that needs the caller to
// go on first: with a host function run by the calling thread it would time
// out.
struct HostGate {
    std::atomic<bool> open{false};
    bool opened = false; // open was seen
    std::function<void()> then;
    std::vector<simtgpuResult> statuses;
};
void wait_at_gate(void *user, simtgpuResult status) {
    auto *gate = static_cast<HostGate *>(user);
    for (int ms = 0; ms < 20000 && !gate->open; ++ms)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    gate->opened = gate->open;
    gate->statuses.push_back(status);
    if (gate->then)
        gate->then();
}

// A host function runs after the work before it, the work after it (and an
// event recorded after it, and another stream waiting for that event) after
// it returns, and the caller does not wait for it.
TEST_F(DriverApi, HostFunctionsRunInStreamOrderWithoutBlockingTheCaller) {
    const uint32_t n = 1024;
    float *pinned_in = nullptr;
    uint32_t *pinned_first = nullptr;
    ASSERT_OK(simtgpuMemHostAlloc(ctx_, reinterpret_cast<void **>(&pinned_in), n * 4, 0));
    ASSERT_OK(simtgpuMemHostAlloc(ctx_, reinterpret_cast<void **>(&pinned_first), 64, 0));
    std::memset(pinned_in, 0, n * 4);
    std::memset(pinned_first, 0, 64);
    simtgpuDevicePtr mapped_in = 0, mapped_first = 0;
    ASSERT_OK(simtgpuMemHostGetDevicePointer(ctx_, &mapped_in, pinned_in));
    ASSERT_OK(simtgpuMemHostGetDevicePointer(ctx_, &mapped_first, pinned_first));
    simtgpuDevicePtr zeros = alloc(n * 4), sum = alloc(n * 4), again = alloc(n * 4);
    ASSERT_OK(simtgpuMemsetD8(ctx_, zeros, 0, n * 4));
    simtgpuStream s1, s2;
    ASSERT_OK(simtgpuStreamCreate(&s1, ctx_, SIMTGPU_STREAM_NON_BLOCKING, 0));
    ASSERT_OK(simtgpuStreamCreate(&s2, ctx_, SIMTGPU_STREAM_NON_BLOCKING, 0));
    simtgpuEvent after_host;
    ASSERT_OK(simtgpuEventCreate(&after_host, ctx_, 0));

    // The work before: a kernel writes pinned_first through its mapping.
    uint32_t width = 4;
    void *index_params[] = {&mapped_first, &width};
    ASSERT_OK(simtgpuLaunchKernel(kernel("index2d"), 1, 1, 1, 4, 2, 1, 0, s1, index_params,
                                  nullptr));
    // The host function: sees it, then writes what the next kernel reads.
    HostGate gate;
    bool saw_first = false;
    gate.then = [&] {
        saw_first = true;
        for (uint32_t y = 0; y < 2; ++y)
            for (uint32_t x = 0; x < 4; ++x)
                saw_first &= pinned_first[y * 4 + x] == x * 3 + y * 1000 + 1;
        for (uint32_t i = 0; i < n; ++i)
            pinned_in[i] = float(7 * i);
    };
    ASSERT_OK(simtgpuLaunchHostFunc(ctx_, s1, wait_at_gate, &gate, 0));
    void *add_params[] = {&mapped_in, &zeros, &sum, const_cast<uint32_t *>(&n)};
    ASSERT_OK(simtgpuLaunchKernel(kernel("vec_add"), n / 256, 1, 1, 256, 1, 1, 0, s1, add_params,
                                  nullptr));
    ASSERT_OK(simtgpuEventRecord(after_host, s1));
    ASSERT_OK(simtgpuStreamWaitEvent(ctx_, s2, after_host, 0));
    void *again_params[] = {&sum, &zeros, &again, const_cast<uint32_t *>(&n)};
    ASSERT_OK(simtgpuLaunchKernel(kernel("vec_add"), n / 256, 1, 1, 256, 1, 1, 0, s2,
                                  again_params, nullptr));
    // Here while the function waits: nothing after it has run.
    EXPECT_EQ(simtgpuEventQuery(after_host), SIMTGPU_ERROR_NOT_READY);
    EXPECT_EQ(simtgpuStreamQuery(ctx_, s1), SIMTGPU_ERROR_NOT_READY);
    EXPECT_EQ(simtgpuStreamQuery(ctx_, s2), SIMTGPU_ERROR_NOT_READY);
    gate.open = true;
    ASSERT_OK(simtgpuStreamSynchronize(ctx_, s2));
    EXPECT_EQ(simtgpuEventQuery(after_host), SIMTGPU_SUCCESS);
    EXPECT_TRUE(gate.opened) << "the host function ran before simtgpuLaunchHostFunc returned";
    EXPECT_TRUE(saw_first) << "the host function ran before the kernel queued before it ended";
    ASSERT_EQ(gate.statuses, std::vector<simtgpuResult>{SIMTGPU_SUCCESS});
    std::vector<float> back(n);
    ASSERT_OK(simtgpuMemcpyDtoH(ctx_, back.data(), again, n * 4));
    for (uint32_t i = 0; i < n; ++i)
        ASSERT_EQ(back[i], float(7 * i)) << i;
    ASSERT_OK(simtgpuEventDestroy(after_host));
    ASSERT_OK(simtgpuStreamDestroy(s1));
    ASSERT_OK(simtgpuStreamDestroy(s2));
    ASSERT_OK(simtgpuMemHostFree(ctx_, pinned_in));
    ASSERT_OK(simtgpuMemHostFree(ctx_, pinned_first));
}

// After a fault a host function is not called, unless it asked to be
// (cudaStreamAddCallback's), and then with the fault's error; the legacy
// default stream is held behind a host function of a blocking stream too.
TEST_F(DriverApi, HostFunctionsAfterAFaultAndOnTheDefaultStream) {
    simtgpuStream s;
    ASSERT_OK(simtgpuStreamCreate(&s, ctx_, 0, 0));
    HostGate gate, skipped, told;
    skipped.open = told.open = true;
    ASSERT_OK(simtgpuLaunchHostFunc(ctx_, s, wait_at_gate, &gate, 0));
    // Held behind the gate, on the default stream: it follows the blocking s.
    uint64_t address = 0x1000; // never mapped
    void *params[] = {&address};
    ASSERT_OK(simtgpuLaunchKernel(kernel("store"), 1, 1, 1, 32, 1, 1, 0, nullptr, params,
                                  nullptr));
    ASSERT_OK(simtgpuLaunchHostFunc(ctx_, nullptr, wait_at_gate, &skipped, 0));
    ASSERT_OK(simtgpuLaunchHostFunc(ctx_, nullptr, wait_at_gate, &told,
                                    SIMTGPU_HOST_FN_AFTER_ERROR));
    EXPECT_EQ(simtgpuStreamQuery(ctx_, nullptr), SIMTGPU_ERROR_NOT_READY);
    gate.open = true;
    EXPECT_EQ(simtgpuCtxSynchronize(ctx_), SIMTGPU_ERROR_ILLEGAL_ADDRESS);
    EXPECT_EQ(gate.statuses, std::vector<simtgpuResult>{SIMTGPU_SUCCESS});
    EXPECT_TRUE(skipped.statuses.empty());
    EXPECT_EQ(told.statuses, std::vector<simtgpuResult>{SIMTGPU_ERROR_ILLEGAL_ADDRESS});
    EXPECT_EQ(simtgpuLaunchHostFunc(ctx_, s, wait_at_gate, &told, 0),
              SIMTGPU_ERROR_ILLEGAL_ADDRESS);
    EXPECT_EQ(simtgpuLaunchHostFunc(ctx_, s, nullptr, nullptr, 0), SIMTGPU_ERROR_INVALID_VALUE);
    EXPECT_EQ(simtgpuLaunchHostFunc(ctx_, s, wait_at_gate, &told, 2), SIMTGPU_ERROR_INVALID_VALUE);
    ASSERT_OK(simtgpuStreamDestroy(s));
}

// A stream waits for the record of the event current at the wait, as CUDA's
// does, not one made later before the stream's next work.
TEST_F(DriverApi, StreamWaitsForTheRecordCurrentAtTheCall) {
    uint32_t *flag = nullptr;
    ASSERT_OK(simtgpuMemHostAlloc(ctx_, reinterpret_cast<void **>(&flag), 4, 0));
    *flag = 0;
    simtgpuDevicePtr mapped_flag = 0;
    ASSERT_OK(simtgpuMemHostGetDevicePointer(ctx_, &mapped_flag, flag));
    simtgpuStream s1, s2;
    ASSERT_OK(simtgpuStreamCreate(&s1, ctx_, SIMTGPU_STREAM_NON_BLOCKING, 0));
    ASSERT_OK(simtgpuStreamCreate(&s2, ctx_, SIMTGPU_STREAM_NON_BLOCKING, 0));
    simtgpuEvent e;
    ASSERT_OK(simtgpuEventCreate(&e, ctx_, SIMTGPU_EVENT_DISABLE_TIMING));
    const uint32_t n = 256;
    simtgpuDevicePtr a = alloc(n * 4), b = alloc(n * 4);
    ASSERT_OK(simtgpuMemsetD8(ctx_, a, 0, n * 4));
    ASSERT_OK(simtgpuEventRecord(e, s1));
    ASSERT_OK(simtgpuStreamWaitEvent(ctx_, s2, e, 0));
    // Recorded again after work that ends only when the flag is set.
    void *wait_params[] = {&mapped_flag};
    ASSERT_OK(simtgpuLaunchKernel(kernel("wait_flag"), 1, 1, 1, 1, 1, 1, 0, s1, wait_params,
                                  nullptr));
    ASSERT_OK(simtgpuEventRecord(e, s1));
    void *add_params[] = {&a, &a, &b, const_cast<uint32_t *>(&n)};
    ASSERT_OK(simtgpuLaunchKernel(kernel("vec_add"), 1, 1, 1, n, 1, 1, 0, s2, add_params,
                                  nullptr));
    simtgpuResult s2_state = SIMTGPU_ERROR_NOT_READY;
    for (int ms = 0; ms < 20000 && s2_state == SIMTGPU_ERROR_NOT_READY; ++ms) {
        s2_state = simtgpuStreamQuery(ctx_, s2);
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    EXPECT_EQ(s2_state, SIMTGPU_SUCCESS) << "s2 waited for the later record";
    EXPECT_EQ(simtgpuStreamQuery(ctx_, s1), SIMTGPU_ERROR_NOT_READY);
    *flag = 1;
    ASSERT_OK(simtgpuCtxSynchronize(ctx_));
    ASSERT_OK(simtgpuEventDestroy(e));
    ASSERT_OK(simtgpuStreamDestroy(s1));
    ASSERT_OK(simtgpuStreamDestroy(s2));
    ASSERT_OK(simtgpuMemHostFree(ctx_, flag));
}

// A stream that waits for an event whose record is held behind a host
// function waits for that record, not for a later one made before the
// stream's work is submitted.
TEST_F(DriverApi, StreamWaitsForAHeldRecordNotALaterOne) {
    uint32_t *flag = nullptr;
    ASSERT_OK(simtgpuMemHostAlloc(ctx_, reinterpret_cast<void **>(&flag), 4, 0));
    *flag = 0;
    simtgpuDevicePtr mapped_flag = 0;
    ASSERT_OK(simtgpuMemHostGetDevicePointer(ctx_, &mapped_flag, flag));
    simtgpuStream s1, s2, s3;
    for (simtgpuStream *s : {&s1, &s2, &s3})
        ASSERT_OK(simtgpuStreamCreate(s, ctx_, SIMTGPU_STREAM_NON_BLOCKING, 0));
    simtgpuEvent e;
    ASSERT_OK(simtgpuEventCreate(&e, ctx_, SIMTGPU_EVENT_DISABLE_TIMING));
    const uint32_t n = 256;
    simtgpuDevicePtr a = alloc(n * 4), b = alloc(n * 4);
    ASSERT_OK(simtgpuMemsetD8(ctx_, a, 0, n * 4));
    ASSERT_OK(simtgpuMemsetD8(ctx_, b, 0xff, n * 4)); // vec_add makes it a + a = 0
    ASSERT_OK(simtgpuCtxSynchronize(ctx_));

    // s1: a host function, work that ends only when the flag is set, the record.
    HostGate first, second;
    ASSERT_OK(simtgpuLaunchHostFunc(ctx_, s1, wait_at_gate, &first, 0));
    void *wait_params[] = {&mapped_flag};
    ASSERT_OK(simtgpuLaunchKernel(kernel("wait_flag"), 1, 1, 1, 1, 1, 1, 0, s1, wait_params,
                                  nullptr));
    ASSERT_OK(simtgpuEventRecord(e, s1));
    // s2, held behind its own host function, waits for that record.
    ASSERT_OK(simtgpuLaunchHostFunc(ctx_, s2, wait_at_gate, &second, 0));
    ASSERT_OK(simtgpuStreamWaitEvent(ctx_, s2, e, 0));
    void *add_params[] = {&a, &a, &b, const_cast<uint32_t *>(&n)};
    ASSERT_OK(simtgpuLaunchKernel(kernel("vec_add"), 1, 1, 1, n, 1, 1, 0, s2, add_params,
                                  nullptr));
    // s1's work goes to the device; then a later record on idle s3, which
    // completes at once, and only then is s2's work submitted.
    first.open = true;
    for (int ms = 0; ms < 20000 && !first.opened; ++ms)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    ASSERT_OK(simtgpuEventRecord(e, s3));
    second.open = true;
    simtgpuResult s2_state = SIMTGPU_ERROR_NOT_READY;
    for (int ms = 0; ms < 500 && s2_state == SIMTGPU_ERROR_NOT_READY; ++ms) {
        s2_state = simtgpuStreamQuery(ctx_, s2);
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    EXPECT_EQ(s2_state, SIMTGPU_ERROR_NOT_READY) << "s2 ran after the later record, not s1's";
    *flag = 1;
    ASSERT_OK(simtgpuCtxSynchronize(ctx_));
    EXPECT_TRUE(first.opened && second.opened);
    std::vector<uint32_t> back(n, 1);
    ASSERT_OK(simtgpuMemcpyDtoH(ctx_, back.data(), b, n * 4));
    EXPECT_EQ(back, std::vector<uint32_t>(n, 0));
    ASSERT_OK(simtgpuEventDestroy(e));
    for (simtgpuStream s : {s1, s2, s3})
        ASSERT_OK(simtgpuStreamDestroy(s));
    ASSERT_OK(simtgpuMemHostFree(ctx_, flag));
}

TEST_F(DriverApi, PinnedHostMemory) {
    const size_t n = 3000;
    uint32_t *pinned = nullptr;
    ASSERT_OK(simtgpuMemHostAlloc(ctx_, reinterpret_cast<void **>(&pinned), n * 4, 0));
    EXPECT_TRUE(simtgpuMemIsHostAllocated(ctx_, pinned + 5));
    for (size_t i = 0; i < n; ++i)
        pinned[i] = uint32_t(i ^ 0x5555);
    simtgpuDevicePtr d = alloc(n * 4);
    ASSERT_OK(simtgpuMemcpyHtoDAsync(ctx_, d, pinned, n * 4, nullptr));
    std::vector<uint32_t> back(n);
    ASSERT_OK(simtgpuMemcpyDtoH(ctx_, back.data(), d, n * 4));
    for (size_t i = 0; i < n; ++i)
        ASSERT_EQ(back[i], uint32_t(i ^ 0x5555));
    std::memset(pinned, 0, n * 4);
    ASSERT_OK(simtgpuMemcpyDtoHAsync(ctx_, pinned, d, n * 4, nullptr));
    ASSERT_OK(simtgpuCtxSynchronize(ctx_));
    for (size_t i = 0; i < n; ++i)
        ASSERT_EQ(pinned[i], uint32_t(i ^ 0x5555));
    // Both drivers map it (a user-pointer BO): a kernel writes it directly.
    simtgpuDevicePtr mapped = 0;
    ASSERT_OK(simtgpuMemHostGetDevicePointer(ctx_, &mapped, pinned));
    uint32_t width = 4;
    void *params[] = {&mapped, &width};
    ASSERT_OK(simtgpuLaunchKernel(kernel("index2d"), 1, 1, 1, 4, 2, 1, 0, nullptr, params,
                                  nullptr));
    ASSERT_OK(simtgpuCtxSynchronize(ctx_));
    for (uint32_t y = 0; y < 2; ++y)
        for (uint32_t x = 0; x < 4; ++x)
            EXPECT_EQ(pinned[y * 4 + x], x * 3 + y * 1000 + 1);
    ASSERT_OK(simtgpuMemHostFree(ctx_, pinned));
}

TEST_F(DriverApi, RegisteredHostMemoryIsReachedInPlace) {
    // An unaligned range inside ordinary heap memory, as cudaHostRegister
    // gets from malloc.
    std::vector<uint32_t> heap(3000, 0xdeadbeef);
    uint32_t *range = heap.data() + 7;
    const uint32_t width = 64, height = 20;
    ASSERT_OK(simtgpuMemHostRegister(ctx_, range, width * height * 4, 0));
    simtgpuDevicePtr mapped = 0;
    ASSERT_OK(simtgpuMemHostGetDevicePointer(ctx_, &mapped, range));
    EXPECT_EQ(simtgpuMemIsHostAllocated(ctx_, range + 5), 1);
    void *params[] = {&mapped, const_cast<uint32_t *>(&width)};
    ASSERT_OK(simtgpuLaunchKernel(kernel("index2d"), 4, 2, 1, 16, 10, 1, 0, nullptr, params,
                                  nullptr));
    ASSERT_OK(simtgpuCtxSynchronize(ctx_));
    for (uint32_t y = 0; y < height; ++y)
        for (uint32_t x = 0; x < width; ++x)
            ASSERT_EQ(range[y * width + x], x * 3 + y * 1000 + 1) << x << "," << y;
    // Memory around the range, on the same pages, is untouched.
    EXPECT_EQ(heap[6], 0xdeadbeef);
    EXPECT_EQ(heap[7 + width * height], 0xdeadbeef);

    // Copies from and to it go by DMA, in both directions.
    simtgpuDevicePtr d = alloc(width * height * 4);
    ASSERT_OK(simtgpuMemcpyHtoD(ctx_, d, range, width * height * 4));
    std::fill(range, range + width * height, 0u);
    ASSERT_OK(simtgpuMemcpyDtoHAsync(ctx_, range, d, width * height * 4, nullptr));
    ASSERT_OK(simtgpuCtxSynchronize(ctx_));
    EXPECT_EQ(range[width * 3 + 5], 5 * 3 + 3 * 1000 + 1);

    // Overlapping ranges and unknown pointers are refused by name.
    EXPECT_EQ(simtgpuMemHostRegister(ctx_, range + 10, 16, 0),
              SIMTGPU_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
    EXPECT_EQ(simtgpuMemHostUnregister(ctx_, range + 1), SIMTGPU_ERROR_HOST_MEMORY_NOT_REGISTERED);
    ASSERT_OK(simtgpuMemHostUnregister(ctx_, range));
    EXPECT_EQ(simtgpuMemHostUnregister(ctx_, range), SIMTGPU_ERROR_HOST_MEMORY_NOT_REGISTERED);
    EXPECT_EQ(simtgpuMemIsHostAllocated(ctx_, range), 0);
    // Registered again after unregistering: a new mapping that works.
    ASSERT_OK(simtgpuMemHostRegister(ctx_, range, 64, 0));
    ASSERT_OK(simtgpuMemHostUnregister(ctx_, range));
}

// Unified addressing (uAPI 1.5 on x86-64): registered memory's device
// address is its host address, device memory lies above every host address.
TEST_F(DriverApi, UnifiedAddressingMapsHostMemoryAtItsOwnAddress) {
    ASSERT_EQ(props_.unified_addressing, 1u);
    std::vector<uint32_t> heap(5000, 0);
    ASSERT_OK(simtgpuMemHostRegister(ctx_, heap.data(), 2000 * 4, 0));
    // The rest of the vector, sharing a page with the first registration.
    ASSERT_OK(simtgpuMemHostRegister(ctx_, heap.data() + 2000, 3000 * 4, 0));
    simtgpuDevicePtr mapped = 0;
    ASSERT_OK(simtgpuMemHostGetDevicePointer(ctx_, &mapped, heap.data() + 2001));
    EXPECT_EQ(mapped, reinterpret_cast<uint64_t>(heap.data() + 2001));
    EXPECT_GE(alloc(4096), uint64_t(1) << 47);
    ASSERT_OK(simtgpuMemHostUnregister(ctx_, heap.data()));
    // The shared page stays mapped for the second registration.
    simtgpuDevicePtr d = alloc(3000 * 4);
    std::vector<uint32_t> pattern(3000);
    for (uint32_t i = 0; i < 3000; ++i)
        pattern[i] = i * 7 + 1;
    ASSERT_OK(simtgpuMemcpyHtoD(ctx_, d, pattern.data(), 3000 * 4));
    ASSERT_OK(simtgpuMemcpyDtoD(ctx_, reinterpret_cast<uint64_t>(heap.data() + 2000), d, 3000 * 4));
    ASSERT_OK(simtgpuCtxSynchronize(ctx_));
    for (uint32_t i = 0; i < 3000; ++i)
        ASSERT_EQ(heap[2000 + i], i * 7 + 1) << i;
    ASSERT_OK(simtgpuMemHostUnregister(ctx_, heap.data() + 2000));
}

// Memory at a chosen address (what cuMemMap is built on), and its errors.
TEST_F(DriverApi, MemoryAtAChosenAddress) {
    const simtgpuDevicePtr at = 0x0000c12300000000ull;
    ASSERT_OK(simtgpuMemAllocAt(ctx_, at, 64 * 1024));
    std::vector<uint32_t> in(16 * 1024, 0x5a5a1234u), out(16 * 1024, 0);
    ASSERT_OK(simtgpuMemcpyHtoD(ctx_, at, in.data(), 64 * 1024));
    ASSERT_OK(simtgpuMemcpyDtoH(ctx_, out.data(), at, 64 * 1024));
    EXPECT_EQ(out, in);
    simtgpuDevicePtr base = 0;
    size_t bytes = 0;
    ASSERT_OK(simtgpuMemGetAddressRange(ctx_, &base, &bytes, at + 100));
    EXPECT_EQ(base, at);
    EXPECT_EQ(bytes, 64u * 1024);
    EXPECT_EQ(simtgpuMemAllocAt(ctx_, at + 4096, 4096), SIMTGPU_ERROR_INVALID_VALUE); // taken
    EXPECT_NE(std::string(simtgpuGetErrorDetail()).find("mapped already"), std::string::npos);
    EXPECT_EQ(simtgpuMemAllocAt(ctx_, at + 100, 4096), SIMTGPU_ERROR_INVALID_VALUE); // unaligned
    EXPECT_EQ(simtgpuMemAllocAt(ctx_, 1ull << 48, 4096), SIMTGPU_ERROR_INVALID_VALUE);
    EXPECT_NE(std::string(simtgpuGetErrorDetail()).find("outside"), std::string::npos);
    ASSERT_OK(simtgpuMemFree(ctx_, at));
    ASSERT_OK(simtgpuMemAllocAt(ctx_, at + 4096, 4096)); // free again
    ASSERT_OK(simtgpuMemFree(ctx_, at + 4096));
}

TEST_F(DriverApi, RegisteringNeedsMappedMemoryAndHonoursReadOnly) {
    const size_t page = size_t(sysconf(_SC_PAGESIZE));
    void *ro = mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(ro, MAP_FAILED);
    auto *words = static_cast<uint32_t *>(ro);
    for (size_t i = 0; i < 2 * page / 4; ++i)
        words[i] = uint32_t(i * 7);
    ASSERT_EQ(mprotect(ro, 2 * page, PROT_READ), 0);
    // Writable registration of read-only memory: refused, saying why.
    EXPECT_EQ(simtgpuMemHostRegister(ctx_, ro, 2 * page, 0), SIMTGPU_ERROR_INVALID_VALUE);
    EXPECT_NE(std::string(simtgpuGetErrorDetail()).find("read-only"), std::string::npos)
        << simtgpuGetErrorDetail();
    // Read-only registration: the device reads it.
    ASSERT_OK(simtgpuMemHostRegister(ctx_, ro, 2 * page, SIMTGPU_MEMHOSTREGISTER_READ_ONLY));
    simtgpuDevicePtr d = alloc(2 * page);
    ASSERT_OK(simtgpuMemcpyHtoD(ctx_, d, ro, 2 * page));
    std::vector<uint32_t> back(2 * page / 4);
    ASSERT_OK(simtgpuMemcpyDtoH(ctx_, back.data(), d, 2 * page));
    for (size_t i = 0; i < back.size(); ++i)
        ASSERT_EQ(back[i], uint32_t(i * 7)) << i;
    // A kernel writing it faults instead of writing.
    simtgpuDevicePtr mapped = 0;
    ASSERT_OK(simtgpuMemHostGetDevicePointer(ctx_, &mapped, ro));
    void *params[] = {&mapped};
    ASSERT_OK(simtgpuLaunchKernel(kernel("store"), 1, 1, 1, 1, 1, 1, 0, nullptr, params,
                                  nullptr));
    EXPECT_EQ(simtgpuCtxSynchronize(ctx_), SIMTGPU_ERROR_ILLEGAL_ADDRESS);
    EXPECT_EQ(words[0], 0u);
    simtgpuCtxDestroy(ctx_);
    ctx_ = nullptr;
    ASSERT_EQ(munmap(ro, 2 * page), 0);

    // Memory that is not mapped at all.
    ASSERT_OK(simtgpuCtxCreate(&ctx_, 0, device_));
    void *gone = mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    ASSERT_NE(gone, MAP_FAILED);
    ASSERT_EQ(munmap(gone, page), 0);
    EXPECT_EQ(simtgpuMemHostRegister(ctx_, gone, page, 0), SIMTGPU_ERROR_INVALID_VALUE);
    EXPECT_NE(std::string(simtgpuGetErrorDetail()).find("not mapped"), std::string::npos)
        << simtgpuGetErrorDetail();
    EXPECT_EQ(simtgpuMemHostRegister(ctx_, nullptr, page, 0), SIMTGPU_ERROR_INVALID_VALUE);
    EXPECT_EQ(simtgpuMemHostRegister(ctx_, words, page, 0x100), SIMTGPU_ERROR_INVALID_VALUE);
}

TEST_F(DriverApi, DevicePrintfIsPrintedAtSynchronisation) {
    uint32_t unused = 0;
    void *params[] = {&unused};
    testing::internal::CaptureStdout();
    ASSERT_OK(simtgpuLaunchKernel(kernel("printf_kernel"), 2, 1, 1, 4, 1, 1, 0, nullptr, params,
                                  nullptr));
    simtgpuResult r = simtgpuCtxSynchronize(ctx_);
    std::string out = testing::internal::GetCapturedStdout();
    ASSERT_OK(r);
    // Every thread printed one line; the order between threads is the
    // device's, so compare as a set.
    std::vector<std::string> expect;
    for (int block = 0; block < 2; ++block)
        for (int t = 0; t < 4; ++t) {
            char line[128];
            std::snprintf(line, sizeof(line), "thread %d of block %u: %.2f %s|%5lld|%c\n", t,
                          unsigned(block), t * 0.5, "simt", -(long long)t, 'A' + t);
            expect.push_back(line);
        }
    for (const auto &line : expect)
        EXPECT_NE(out.find(line), std::string::npos) << "missing: " << line << "in:\n" << out;
    size_t lines = std::count(out.begin(), out.end(), '\n');
    EXPECT_EQ(lines, expect.size());
}

TEST_F(DriverApi, DeviceAssertIsStickyAndPrintedLikeCuda) {
    int32_t value = 7;
    void *params[] = {&value};
    testing::internal::CaptureStderr();
    ASSERT_OK(simtgpuLaunchKernel(kernel("assert_kernel"), 2, 1, 1, 8, 1, 1, 0, nullptr, params,
                                  nullptr));
    simtgpuResult r = simtgpuCtxSynchronize(ctx_);
    std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(r, SIMTGPU_ERROR_ASSERT);
    EXPECT_NE(err.find("umd_kernels.c:123: assert_entry: block: [1,0,0], thread: [3,0,0] "
                       "Assertion `value != 7` failed."),
              std::string::npos)
        << err;
    // Sticky: later calls keep failing, as in CUDA.
    simtgpuDevicePtr p = 0;
    EXPECT_EQ(simtgpuMemAlloc(ctx_, &p, 64), SIMTGPU_ERROR_ASSERT);
    EXPECT_EQ(simtgpuCtxSynchronize(ctx_), SIMTGPU_ERROR_ASSERT);
}

TEST_F(DriverApi, IllegalAddressIsStickyAndNamesTheAddress) {
    uint64_t address = 0x1000; // never mapped: VA below 4 GiB stays empty
    void *params[] = {&address};
    ASSERT_OK(simtgpuLaunchKernel(kernel("store"), 1, 1, 1, 32, 1, 1, 0, nullptr, params,
                                  nullptr));
    EXPECT_EQ(simtgpuCtxSynchronize(ctx_), SIMTGPU_ERROR_ILLEGAL_ADDRESS);
    EXPECT_NE(std::string(simtgpuGetErrorDetail()).find("0x1000"), std::string::npos)
        << simtgpuGetErrorDetail();
    EXPECT_EQ(simtgpuCtxGetStickyError(ctx_), SIMTGPU_ERROR_ILLEGAL_ADDRESS);
    void *params2[] = {&address};
    EXPECT_EQ(simtgpuLaunchKernel(kernel("store"), 1, 1, 1, 1, 1, 1, 0, nullptr, params2,
                                  nullptr),
              SIMTGPU_ERROR_ILLEGAL_ADDRESS);
    // A new context is unaffected.
    simtgpuContext other;
    ASSERT_OK(simtgpuCtxCreate(&other, 0, device_));
    simtgpuDevicePtr p = 0;
    ASSERT_OK(simtgpuMemAlloc(other, &p, 64));
    ASSERT_OK(simtgpuMemsetD8(other, p, 1, 64));
    ASSERT_OK(simtgpuCtxDestroy(other));
}

TEST_F(DriverApi, ImagesForNewerArchitecturesAreRefused) {
    std::vector<uint8_t> newer = image_;
    bool patched = false;
    for (size_t i = 0; i + 12 <= newer.size(); i += 4) {
        uint32_t magic;
        std::memcpy(&magic, &newer[i], 4);
        if (magic != SIMTGPU_KTAB_MAGIC)
            continue;
        uint32_t arch = props_.arch + 1;
        std::memcpy(&newer[i + 8], &arch, 4); // simtgpu_ktab_header.arch
        patched = true;
        break;
    }
    ASSERT_TRUE(patched);
    simtgpuModule m;
    EXPECT_EQ(simtgpuModuleLoadData(&m, ctx_, newer.data(), newer.size()),
              SIMTGPU_ERROR_NO_BINARY_FOR_GPU);
    std::string detail = simtgpuGetErrorDetail();
    EXPECT_NE(detail.find("simt_" + std::to_string(props_.arch + 1)), std::string::npos) << detail;
    EXPECT_NE(detail.find("simt_" + std::to_string(props_.arch)), std::string::npos) << detail;
}

TEST_F(DriverApi, SeveralModulesLiveInOneContext) {
    simtgpuModule second;
    ASSERT_OK(simtgpuModuleLoadData(&second, ctx_, image_.data(), image_.size()));
    simtgpuDevicePtr t1, t2;
    size_t bytes;
    ASSERT_OK(simtgpuModuleGetGlobal(&t1, &bytes, module_, "device_table"));
    ASSERT_OK(simtgpuModuleGetGlobal(&t2, &bytes, second, "device_table"));
    EXPECT_NE(t1, t2);
    int32_t v = 99;
    ASSERT_OK(simtgpuMemcpyHtoD(ctx_, t2 + 8, &v, 4)); // second's device_table[2]
    simtgpuFunction f;
    ASSERT_OK(simtgpuModuleGetFunction(&f, second, "read_table"));
    simtgpuDevicePtr out = alloc(32);
    void *params[] = {&out};
    ASSERT_OK(simtgpuLaunchKernel(f, 1, 1, 1, 8, 1, 1, 0, nullptr, params, nullptr));
    int32_t back[8];
    ASSERT_OK(simtgpuMemcpyDtoH(ctx_, back, out, sizeof(back)));
    // Through the second module's own relocated device_table_ptr.
    EXPECT_EQ(back[2], 198);
    EXPECT_EQ(back[4], 100);
    ASSERT_OK(simtgpuModuleUnload(second));
}

TEST_F(DriverApi, LimitsApplyBeforeTheFirstLaunch) {
    size_t value = 0;
    ASSERT_OK(simtgpuCtxGetLimit(ctx_, SIMTGPU_LIMIT_PRINTF_FIFO_SIZE, &value));
    EXPECT_EQ(value, 1u << 20);
    ASSERT_OK(simtgpuCtxSetLimit(ctx_, SIMTGPU_LIMIT_PRINTF_FIFO_SIZE, 64 * 1024));
    ASSERT_OK(simtgpuCtxGetLimit(ctx_, SIMTGPU_LIMIT_PRINTF_FIFO_SIZE, &value));
    EXPECT_EQ(value, 64u * 1024);
    EXPECT_EQ(simtgpuCtxSetLimit(ctx_, SIMTGPU_LIMIT_STACK_SIZE, props_.max_stack_per_thread + 16u),
              SIMTGPU_ERROR_INVALID_VALUE);
    ASSERT_OK(simtgpuCtxSetLimit(ctx_, SIMTGPU_LIMIT_STACK_SIZE, 4096));
    // Launches still run with the larger stack, and printf uses the smaller buffer.
    uint32_t unused = 0;
    void *params[] = {&unused};
    testing::internal::CaptureStdout();
    ASSERT_OK(simtgpuLaunchKernel(kernel("printf_kernel"), 1, 1, 1, 2, 1, 1, 0, nullptr, params,
                                  nullptr));
    simtgpuResult r = simtgpuCtxSynchronize(ctx_);
    std::string out = testing::internal::GetCapturedStdout();
    ASSERT_OK(r);
    EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 2);
    EXPECT_EQ(simtgpuCtxSetLimit(ctx_, SIMTGPU_LIMIT_PRINTF_FIFO_SIZE, 1 << 21),
              SIMTGPU_ERROR_INVALID_VALUE);
}

// A context destroyed with everything still alive and work still queued, as
// the CUDA runtime's exit-time shutdown does it: the work finishes (its printf
// is printed), then streams, events, modules and memory go, in that order.
// Persisting L2 lines: the limits the device reports bound the window and
// the set-aside; a device without them (every preset but ampere) refuses a
// set-aside and any window, and a reset there has nothing to do.
TEST_F(DriverApi, L2AccessPolicyFollowsTheDevicesLimits) {
    simtgpuStream s = nullptr;
    ASSERT_OK(simtgpuStreamCreate(&s, ctx_, 0, 0));
    simtgpuAccessPolicyWindow w{};
    ASSERT_OK(simtgpuStreamGetAccessPolicyWindow(ctx_, s, &w));
    EXPECT_EQ(w.bytes, 0u);
    simtgpuDevicePtr p = alloc(1 << 16);
    w = simtgpuAccessPolicyWindow{p, 1 << 16, 0.5f, SIMTGPU_ACCESS_PROPERTY_PERSISTING,
                                  SIMTGPU_ACCESS_PROPERTY_STREAMING, 0};
    size_t limit = 1;
    if (props_.l2_persisting_max == 0) {
        EXPECT_EQ(props_.l2_window_max, 0u);
        EXPECT_EQ(simtgpuStreamSetAccessPolicyWindow(ctx_, s, &w), SIMTGPU_ERROR_INVALID_VALUE);
        EXPECT_EQ(simtgpuCtxSetLimit(ctx_, SIMTGPU_LIMIT_PERSISTING_L2_CACHE_SIZE, 1),
                  SIMTGPU_ERROR_NOT_SUPPORTED);
        ASSERT_OK(simtgpuCtxGetLimit(ctx_, SIMTGPU_LIMIT_PERSISTING_L2_CACHE_SIZE, &limit));
        EXPECT_EQ(limit, 0u);
    } else {
        ASSERT_OK(simtgpuStreamSetAccessPolicyWindow(ctx_, s, &w));
        simtgpuAccessPolicyWindow back{};
        ASSERT_OK(simtgpuStreamGetAccessPolicyWindow(ctx_, s, &back));
        EXPECT_EQ(back.base, p);
        EXPECT_EQ(back.hit_ratio, 0.5f);
        simtgpuAccessPolicyWindow big = w;
        big.bytes = uint64_t(props_.l2_window_max) + 1;
        EXPECT_EQ(simtgpuStreamSetAccessPolicyWindow(ctx_, s, &big), SIMTGPU_ERROR_INVALID_VALUE);
        EXPECT_EQ(simtgpuCtxSetLimit(ctx_, SIMTGPU_LIMIT_PERSISTING_L2_CACHE_SIZE,
                                     size_t(props_.l2_persisting_max) + 1),
                  SIMTGPU_ERROR_INVALID_VALUE);
        ASSERT_OK(simtgpuCtxSetLimit(ctx_, SIMTGPU_LIMIT_PERSISTING_L2_CACHE_SIZE, 1 << 20));
        ASSERT_OK(simtgpuCtxGetLimit(ctx_, SIMTGPU_LIMIT_PERSISTING_L2_CACHE_SIZE, &limit));
        EXPECT_EQ(limit, 1u << 20);
        ASSERT_OK(simtgpuCtxSynchronize(ctx_)); // the device took the packet
    }
    simtgpuAccessPolicyWindow bad = w;
    bad.hit_ratio = 1.5f;
    EXPECT_EQ(simtgpuStreamSetAccessPolicyWindow(ctx_, s, &bad), SIMTGPU_ERROR_INVALID_VALUE);
    bad = w;
    bad.hit_prop = simtgpuAccessProperty(3);
    EXPECT_EQ(simtgpuStreamSetAccessPolicyWindow(ctx_, s, &bad), SIMTGPU_ERROR_INVALID_VALUE);
    ASSERT_OK(simtgpuCtxResetPersistingL2Cache(ctx_));
    ASSERT_OK(simtgpuCtxSynchronize(ctx_));
    // The counters read back, in counters.h's order and growing.
    uint64_t a[SIMTGPU_NUM_COUNTERS] = {}, b[SIMTGPU_NUM_COUNTERS] = {};
    ASSERT_OK(simtgpuCtxReadCounters(ctx_, a, SIMTGPU_NUM_COUNTERS));
    ASSERT_OK(simtgpuMemsetD32(ctx_, p, 7, 16));
    ASSERT_OK(simtgpuCtxReadCounters(ctx_, b, SIMTGPU_NUM_COUNTERS));
    EXPECT_GT(b[SIMTGPU_COUNTER_packets], a[SIMTGPU_COUNTER_packets]);
    ASSERT_OK(simtgpuStreamDestroy(s));
}

TEST_F(DriverApi, DestroyingAContextWithLiveStreamsAndQueuedWork) {
    std::vector<simtgpuStream> streams(3);
    ASSERT_OK(simtgpuStreamCreate(&streams[0], ctx_, 0, 0));
    ASSERT_OK(simtgpuStreamCreate(&streams[1], ctx_, SIMTGPU_STREAM_NON_BLOCKING, 0));
    ASSERT_OK(simtgpuStreamCreate(&streams[2], ctx_, 0, -1));
    simtgpuEvent recorded, unrecorded;
    ASSERT_OK(simtgpuEventCreate(&recorded, ctx_, 0));
    ASSERT_OK(simtgpuEventCreate(&unrecorded, ctx_, 0));
    const uint32_t n = 4096;
    uint32_t *pinned = nullptr;
    ASSERT_OK(simtgpuMemHostAlloc(ctx_, reinterpret_cast<void **>(&pinned), n * 4, 0));
    std::iota(pinned, pinned + n, 0u);
    simtgpuDevicePtr a = alloc(n * 4), b = alloc(n * 4), c = alloc(n * 4);
    ASSERT_OK(simtgpuMemcpyHtoDAsync(ctx_, a, pinned, n * 4, streams[0]));
    ASSERT_OK(simtgpuMemsetD8Async(ctx_, b, 0, n * 4, streams[0]));
    ASSERT_OK(simtgpuEventRecord(recorded, streams[0]));
    ASSERT_OK(simtgpuStreamWaitEvent(ctx_, streams[1], recorded, 0));
    void *add[] = {&a, &b, &c, const_cast<uint32_t *>(&n)};
    ASSERT_OK(simtgpuLaunchKernel(kernel("vec_add"), n / 256, 1, 1, 256, 1, 1, 0, streams[1], add,
                                  nullptr));
    ASSERT_OK(simtgpuMemcpyDtoHAsync(ctx_, pinned, c, n * 4, streams[1]));
    uint32_t unused = 0;
    void *print[] = {&unused};
    for (simtgpuStream s : {streams[2], simtgpuStream(nullptr)})
        ASSERT_OK(simtgpuLaunchKernel(kernel("printf_kernel"), 1, 1, 1, 2, 1, 1, 0, s, print,
                                      nullptr));
    testing::internal::CaptureStdout();
    ASSERT_OK(simtgpuCtxDestroy(ctx_));
    ctx_ = nullptr;
    std::string out = testing::internal::GetCapturedStdout();
    EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 4) << out;
    // The device is still usable.
    ASSERT_OK(simtgpuCtxCreate(&ctx_, 0, device_));
    simtgpuDevicePtr p = alloc(64);
    ASSERT_OK(simtgpuMemsetD8(ctx_, p, 1, 64));
}

// A context destroyed from a thread_local destructor, after the thread's
// other thread_local objects are gone (as exit() destroys them before the
// CUDA runtime's atexit shutdown), can still record and report its error.
std::string detail_at_thread_exit;

struct DestroyAtThreadExit {
    simtgpuContext ctx = nullptr;
    ~DestroyAtThreadExit() {
        EXPECT_EQ(simtgpuCtxDestroy(ctx), SIMTGPU_SUCCESS);
        detail_at_thread_exit = simtgpuGetErrorDetail();
    }
};

TEST_F(DriverApi, ContextDestroyedAtThreadExitReportsItsFault) {
    simtgpuFunction store = kernel("store");
    std::thread([&] {
        // Constructed before libsimtgpu's per-thread state, so destroyed after it.
        thread_local DestroyAtThreadExit at_exit;
        at_exit.ctx = ctx_;
        EXPECT_EQ(simtgpuMemFree(ctx_, 0x10), SIMTGPU_ERROR_INVALID_VALUE);
        uint64_t address = 0x1000; // never mapped
        void *params[] = {&address};
        EXPECT_EQ(simtgpuLaunchKernel(store, 1, 1, 1, 32, 1, 1, 0, nullptr, params, nullptr),
                  SIMTGPU_SUCCESS);
    }).join();
    ctx_ = nullptr;
    EXPECT_NE(detail_at_thread_exit.find("illegal address"), std::string::npos)
        << detail_at_thread_exit;
}

TEST(DriverErrors, NamesAndStrings) {
    EXPECT_STREQ(simtgpuGetErrorName(SIMTGPU_ERROR_ILLEGAL_ADDRESS),
                 "SIMTGPU_ERROR_ILLEGAL_ADDRESS");
    EXPECT_STREQ(simtgpuGetErrorString(SIMTGPU_ERROR_ILLEGAL_ADDRESS),
                 "an illegal memory access was encountered");
    EXPECT_STREQ(simtgpuGetErrorString(SIMTGPU_SUCCESS), "no error");
}

} // namespace
