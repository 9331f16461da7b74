// The device's engine: launch throughput, and how long a high-priority
// kernel takes while a long low-priority one holds every SM
// (docs/simulator-performance.md, "The engine"). Counters:
//   launches/s             LAUNCH + FENCE pairs the device retires per second of
//                          host wall time (empty kernel, one CTA of one thread)
//   device_cycles/launch   device time per launch
//   high_latency_us        device time from the doorbell of a short
//                          high-priority kernel (the timer read then) to a
//                          TIMESTAMP after it, while a long low-priority
//                          kernel holds every SM
//   alone_us               the short kernel's own time on an idle device
//   load_us                the long kernel's own time (its launch report)
//   thread_instr/s         (BM_SmsOnHostThreads) simulated thread-instructions
//                          per second of host wall time, the functional model's
//                          SMs on 1 or 2 host threads (host_threads)
#include "device_harness.h"
#include "device_kernels.h"

#include <benchmark/benchmark.h>

#include <chrono>
#include <thread>

namespace {

using namespace simtgpu::test;

constexpr uint64_t kCode = 0x10000;
constexpr uint64_t kData = 0x10'0000'0000ull;
constexpr uint32_t kThreads = 32;

simtgpu_sim_config config(const char *sm_sharing, uint32_t host_threads,
                          const char *preset = nullptr) {
    simtgpu_sim_config c{};
    c.sm_sharing = sm_sharing;
    c.host_threads = host_threads;
    c.config = preset;
    return c;
}

// A device with the record kernel loaded and ring n at priority n.
struct Bench {
    DeviceHarness h;
    explicit Bench(const char *sm_sharing = nullptr, uint32_t host_threads = 0,
                   const char *preset = nullptr)
        : h(config(sm_sharing, host_threads, preset)) {
        const uint64_t pa = h.map_new(kCode, 4096, SIMTGPU_PTE_R | SIMTGPU_PTE_X);
        std::memcpy(h.vram + pa, kRecordKernel.data(), kRecordKernel.size() * 4);
        for (uint32_t ring = 0; ring < SIMTGPU_NUM_RINGS; ++ring) {
            h.setup_ring(ring, ring);
            h.submit({pkt_set_context(1, h.root)}, ring);
        }
    }
    // Parameters, report and records of a grid at va; returns its LAUNCH.
    std::vector<uint32_t> grid(uint64_t va, uint32_t ctas, uint64_t iterations, uint64_t &pa) {
        pa = h.map_new(va, 128 + 32ull * ctas, SIMTGPU_PTE_R | SIMTGPU_PTE_W);
        const uint64_t params[3] = {va + 128, iterations, 1};
        std::memcpy(h.vram + pa + 64, params, sizeof params);
        simtgpu_pkt_launch l = launch_1d(kCode, ctas, kThreads);
        l.param_va = va + 64;
        l.report_va = va;
        return pkt_launch(l);
    }
    uint64_t report_cycles(uint64_t pa) { return h.read_pa<simtgpu_launch_report>(pa).cycles; }
};

void BM_LaunchThroughput(benchmark::State &state) {
    Bench b;
    uint64_t pa = 0;
    const std::vector<uint32_t> launch = b.grid(kData, 1, 1, pa);
    const uint64_t fence_va = kData + 4096 - 8;
    const uint32_t batch = 64;
    uint64_t launches = 0;
    const uint64_t cycles_before = b.h.stats().cycles;
    for (auto _ : state) {
        for (uint32_t i = 0; i < batch; ++i) {
            b.h.emit(0, launch);
            b.h.emit(0, pkt_fence(fence_va, launches + i + 1));
        }
        b.h.doorbell(0);
        if (!b.h.wait_idle()) {
            state.SkipWithError("the device did not go idle");
            return;
        }
        launches += batch;
    }
    state.counters["launches/s"] = benchmark::Counter(double(launches), benchmark::Counter::kIsRate);
    state.counters["device_cycles/launch"] =
        double(b.h.stats().cycles - cycles_before) / double(launches ? launches : 1);
}
BENCHMARK(BM_LaunchThroughput)->UseRealTime()->Unit(benchmark::kMillisecond);

// A 4-CTA kernel on ring 3 (priority 3) submitted once a 64-CTAs-per-SM
// kernel on ring 0 (priority 0) is running.
void BM_HighPriorityLatencyUnderLoad(benchmark::State &state, const char *sm_sharing) {
    double high_us = 0, alone_us = 0, load_us = 0;
    for (auto _ : state) {
        Bench b(sm_sharing);
        uint64_t load_pa = 0, high_pa = 0, alone_pa = 0;
        const uint32_t sms = b.h.reg(SIMTGPU_REG_NUM_SMS);
        const double cycles_per_us = b.h.reg(SIMTGPU_REG_CLOCK_KHZ) / 1000.0;
        // The load: four waves of one-warp CTAs over every warp slot, each wave
        // about 48000 warp-iterations per slot, so the figure does not depend
        // on the SM's size: the high kernel waits at most for a wave to drain.
        const uint32_t warps = b.h.reg(SIMTGPU_REG_WARPS_PER_SM);
        const auto load_launch = b.grid(kData, 4 * warps * sms, 48000 / warps, load_pa);
        const auto high_launch = b.grid(kData + (1ull << 30), 4, 300, high_pa);
        const uint64_t stamp_va = kData + (1ull << 30) + 4096 - 8;
        b.h.emit(0, load_launch);
        b.h.doorbell(0);
        // Until the load is running.
        while (b.h.reg(SIMTGPU_REG_COUNTER(SIMTGPU_COUNTER_sm_busy_cycles)) == 0)
            std::this_thread::sleep_for(std::chrono::microseconds(50));
        b.h.emit(3, high_launch);
        b.h.emit(3, pkt_timestamp(stamp_va));
        b.h.doorbell(3);
        const uint64_t lo = b.h.reg(SIMTGPU_REG_TIMER_LO);
        const uint64_t doorbell_ns = lo | uint64_t(b.h.reg(SIMTGPU_REG_TIMER_HI)) << 32;
        if (!b.h.wait_idle()) {
            state.SkipWithError("the device did not go idle");
            return;
        }
        high_us += double(b.h.read_pa<uint64_t>(high_pa + 4096 - 8) - doorbell_ns) / 1000.0;
        load_us += double(b.report_cycles(load_pa)) / cycles_per_us;
        b.h.submit({b.grid(kData + (2ull << 30), 4, 300, alone_pa)}, 3);
        alone_us += double(b.report_cycles(alone_pa)) / cycles_per_us;
    }
    // Means over the iterations: where in a wave the doorbell lands depends
    // on the host's timing.
    const double n = double(state.iterations());
    state.counters["high_latency_us"] = high_us / n;
    state.counters["alone_us"] = alone_us / n;
    state.counters["load_us"] = load_us / n;
}
// The load and the high-priority kernel run in one context, so sm_sharing
// decides whether the high one's CTAs may join an SM the load still holds.
BENCHMARK_CAPTURE(BM_HighPriorityLatencyUnderLoad, same_context, "same-context")
    ->Iterations(12)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_HighPriorityLatencyUnderLoad, exclusive, "exclusive")
    ->Iterations(12)->UseRealTime()->Unit(benchmark::kMillisecond);

// One kernel of four waves of one-warp CTAs over every warp slot of a
// device, each thread spinning `spins` times, on its SMs run by 1 and by 2
// host threads: the parallel part of a quantum, without a CUDA program's
// host-side work (cuda_bench.py --threads measures whole programs). The
// default device (4 SMs, functional) and the timing model's presets.
void BM_SmsOnHostThreads(benchmark::State &state, const char *preset, uint64_t spins) {
    Bench b(nullptr, uint32_t(state.range(0)), preset);
    const uint32_t slots = b.h.reg(SIMTGPU_REG_WARPS_PER_SM) * b.h.reg(SIMTGPU_REG_NUM_SMS);
    uint64_t pa = 0;
    const auto launch = b.grid(kData, 4 * slots, spins, pa);
    const uint64_t before = b.h.stats().counters[SIMTGPU_COUNTER_thread_instructions];
    for (auto _ : state) {
        b.h.emit(0, launch);
        b.h.doorbell(0);
        if (!b.h.wait_idle()) {
            state.SkipWithError("the device did not go idle");
            return;
        }
    }
    const uint64_t after = b.h.stats().counters[SIMTGPU_COUNTER_thread_instructions];
    state.counters["thread_instr/s"] =
        benchmark::Counter(double(after - before), benchmark::Counter::kIsRate);
}
BENCHMARK_CAPTURE(BM_SmsOnHostThreads, functional, nullptr, 2000)
    ->ArgName("host_threads")->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_SmsOnHostThreads, teaching, "teaching", 200)
    ->ArgName("host_threads")->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_SmsOnHostThreads, volta, "volta", 20)
    ->ArgName("host_threads")->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
