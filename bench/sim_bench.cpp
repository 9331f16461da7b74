// Simulator speed: simulated thread-instructions per second on one host core
// for four kernels (bench/kernels.c) run on one Sm with cycle accounting,
// each beside the same computation as plain C++ on the host, on the default
// SM (/warps:64), the smaller one of before issue 19 (/warps:16), both in the
// functional model, and the teaching preset's SM in the timing model
// (/warps:0). Counters:
//   thread_instr/s   simulated thread-instructions per second of host CPU time
//   slowdown         simulator CPU time / host C++ CPU time for the same work
//   ipc              warp instructions per SM cycle
#include "config_file.h"
#include "core_support.h"

#include <benchmark/benchmark.h>

#include <ctime>
#include <random>

namespace {

using namespace simtgpu::sim;
using simtgpu::sim::testing::FlatMemory;

constexpr uint64_t kBase = 0x10000, kSize = 64ull << 20;
constexpr uint64_t kParams = 0x100000, kA = 0x200000, kB = 0x1200000, kC = 0x2200000;

struct Env {
    FlatMemory mem{kBase, kSize};
    testing::LoadedElf elf;
    bool ok = false;
    Env()
    {
        auto e = testing::load_elf(testing::device_program_path(SIMTGPU_BENCH_PROGRAM_DIR, "bench_kernels"), mem);
        if (e) {
            elf = *e;
            ok = true;
        }
    }
    template <typename T> T *ptr(uint64_t va) { return reinterpret_cast<T *>(mem.at(va)); }
};

Env &env()
{
    static Env e;
    return e;
}

// CPU time of this thread: the machine may be shared, so wall time is not
// what the simulator costs.
double cpu_seconds()
{
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

// CPU seconds one call of `host` takes (best of a few).
template <class F> double host_seconds(F &&host)
{
    double best = 1e30;
    for (int rep = 0; rep < 5; ++rep) {
        const double t0 = cpu_seconds();
        host();
        benchmark::ClobberMemory();
        best = std::min(best, cpu_seconds() - t0);
    }
    return best;
}

// The SM the benchmark runs on, by its warp slots: the default (64 warp
// slots, 32 CTA slots, 96 KiB shared memory) or, to compare in one run, the
// default before issue 19 (16, 8, 64 KiB); /warps:0 is the teaching
// preset's SM under the timing model (16 warp slots, 2 sub-cores, its
// caches and DRAM).
DeviceConfig sm_config(int64_t warps)
{
    if (warps == 0) {
        auto teaching = load_device_config("teaching");
        if (teaching)
            return *teaching;
    }
    DeviceConfig c = DeviceConfig::defaults();
    if (warps != int64_t(c.warps_per_sm)) {
        c.warps_per_sm = 16;
        c.ctas_per_sm = 8;
        c.shared_bytes_per_sm = 64 << 10;
    }
    return c;
}

// Runs `launch` once per iteration and reports the counters; `check` returns
// an error message or nullptr after the last run.
template <class Host, class Check>
void run_sim(benchmark::State &state, const LaunchDesc &launch, Host &&host, Check &&check)
{
    Env &e = env();
    if (!e.ok) {
        state.SkipWithError("bench_kernels.elf not found");
        return;
    }
    Sm sm(sm_config(state.range(0)), 0);
    uint64_t instructions = 0, warp_instructions = 0, cycles = 0;
    double sim_seconds = 0;
    for (auto _ : state) {
        const double t0 = cpu_seconds();
        testing::RunOutcome r = testing::run_launch(sm, e.mem, launch);
        sim_seconds += cpu_seconds() - t0;
        if (r.exception) {
            char what[160];
            std::snprintf(what, sizeof what,
                          "the kernel raised exception %u (detail %u) at pc 0x%llx, address 0x%llx",
                          r.exception->kind, r.exception->detail,
                          (unsigned long long)r.exception->pc,
                          (unsigned long long)r.exception->address);
            state.SkipWithError(what);
            return;
        }
        instructions += r.stats.thread_instructions;
        warp_instructions += r.stats.warp_instructions;
        cycles += r.cycles;
    }
    if (const char *error = check()) {
        state.SkipWithError(error);
        return;
    }
    const double host_time = host_seconds(host);
    state.counters["thread_instr/s"] = benchmark::Counter(double(instructions), benchmark::Counter::kIsRate);
    state.counters["slowdown"] = sim_seconds / double(state.iterations()) / host_time;
    state.counters["ipc"] = double(warp_instructions) / double(cycles);
}

LaunchDesc launch_of(const char *kernel, Dim3 grid, Dim3 block, uint32_t shared)
{
    LaunchDesc l;
    l.entry_pc = env().elf.symbols.at(kernel);
    l.param_va = kParams;
    l.grid = grid;
    l.block = block;
    l.shared_bytes = shared;
    l.stack_bytes = 1024;
    return l;
}

// ------------------------------------------------------------- vector add

constexpr uint64_t kVecN = 1 << 20;

void BM_VecAdd(benchmark::State &state)
{
    Env &e = env();
    float *a = e.ptr<float>(kA), *b = e.ptr<float>(kB), *c = e.ptr<float>(kC);
    for (uint64_t i = 0; i < kVecN; ++i) {
        a[i] = float(i) * 0.5f;
        b[i] = float(kVecN - i);
    }
    const uint64_t params[4] = {kA, kB, kC, kVecN};
    e.mem.write(kParams, params);
    std::vector<float> host_c(kVecN);
    run_sim(
        state, launch_of("vecadd", {64, 1, 1}, {256, 1, 1}, 0),
        [&] {
            for (uint64_t i = 0; i < kVecN; ++i) host_c[i] = a[i] + b[i];
        },
        [&]() -> const char * {
            for (uint64_t i = 0; i < kVecN; ++i)
                if (c[i] != a[i] + b[i]) return "wrong sum";
            return nullptr;
        });
}
BENCHMARK(BM_VecAdd)->ArgName("warps")->Arg(16)->Arg(64)->Arg(0)->Unit(benchmark::kMillisecond);

// ------------------------------------------------- tiled matrix multiply

constexpr uint32_t kMatN = 128, kTile = 16;

void BM_MatMul(benchmark::State &state)
{
    Env &e = env();
    float *a = e.ptr<float>(kA), *b = e.ptr<float>(kB), *c = e.ptr<float>(kC);
    std::mt19937 rng(1);
    std::uniform_int_distribution<int> small(-8, 8);
    for (uint32_t i = 0; i < kMatN * kMatN; ++i) {
        a[i] = float(small(rng));
        b[i] = float(small(rng)) * 0.25f;
    }
    const uint64_t params[4] = {kA, kB, kC, kMatN};
    e.mem.write(kParams, params);
    std::vector<float> host_c(kMatN * kMatN);
    auto host = [&] {
        for (uint32_t r = 0; r < kMatN; ++r)
            for (uint32_t col = 0; col < kMatN; ++col) {
                float acc = 0;
                for (uint32_t k = 0; k < kMatN; ++k) acc += a[r * kMatN + k] * b[k * kMatN + col];
                host_c[r * kMatN + col] = acc;
            }
    };
    run_sim(state, launch_of("matmul", {kMatN / kTile, kMatN / kTile, 1}, {kTile, kTile, 1}, 2 * kTile * kTile * 4),
            host, [&]() -> const char * {
                host();
                // Small integers times quarters: every sum is exact in float.
                for (uint32_t i = 0; i < kMatN * kMatN; ++i)
                    if (c[i] != host_c[i]) return "wrong product";
                return nullptr;
            });
}
BENCHMARK(BM_MatMul)->ArgName("warps")->Arg(16)->Arg(64)->Arg(0)->Unit(benchmark::kMillisecond);

// -------------------------------------------------------------- reduction

constexpr uint64_t kRedN = 1 << 20;

void BM_Reduce(benchmark::State &state)
{
    Env &e = env();
    uint32_t *in = e.ptr<uint32_t>(kA);
    for (uint64_t i = 0; i < kRedN; ++i) in[i] = uint32_t(i * 2654435761u % 1000);
    const uint64_t params[3] = {kA, kRedN, kC};
    e.mem.write(kParams, params);
    uint64_t expected = 0;
    for (uint64_t i = 0; i < kRedN; ++i) expected += in[i];
    LaunchDesc l = launch_of("reduce", {64, 1, 1}, {256, 1, 1}, 256 * 8);
    uint64_t runs = 0;
    volatile uint64_t host_sum = 0;
    // The sum accumulates over iterations: compare against runs * expected.
    e.mem.write<uint64_t>(kC, 0);
    run_sim(
        state, l,
        [&] {
            uint64_t s = 0;
            for (uint64_t i = 0; i < kRedN; ++i) s += in[i];
            host_sum = s;
        },
        [&]() -> const char * {
            runs = state.iterations();
            return e.mem.read<uint64_t>(kC) == runs * expected ? nullptr : "wrong sum";
        });
}
BENCHMARK(BM_Reduce)->ArgName("warps")->Arg(16)->Arg(64)->Arg(0)->Unit(benchmark::kMillisecond);

// ------------------------------------------------------ divergent kernel

constexpr uint64_t kColN = 1 << 15;

uint32_t collatz_steps(uint64_t x)
{
    uint32_t steps = 0;
    while (x != 1) {
        x = (x & 1) ? 3 * x + 1 : x >> 1;
        ++steps;
    }
    return steps;
}

void BM_Divergent(benchmark::State &state)
{
    Env &e = env();
    uint32_t *in = e.ptr<uint32_t>(kA), *steps = e.ptr<uint32_t>(kB);
    for (uint64_t i = 0; i < kColN; ++i) in[i] = uint32_t(i + 1);
    const uint64_t params[3] = {kA, kB, kColN};
    e.mem.write(kParams, params);
    std::vector<uint32_t> host_steps(kColN);
    run_sim(
        state, launch_of("collatz", {kColN / 256, 1, 1}, {256, 1, 1}, 0),
        [&] {
            for (uint64_t i = 0; i < kColN; ++i) host_steps[i] = collatz_steps(in[i]);
        },
        [&]() -> const char * {
            for (uint64_t i = 0; i < kColN; ++i)
                if (steps[i] != collatz_steps(in[i])) return "wrong step count";
            return nullptr;
        });
}
BENCHMARK(BM_Divergent)->ArgName("warps")->Arg(16)->Arg(64)->Arg(0)->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
