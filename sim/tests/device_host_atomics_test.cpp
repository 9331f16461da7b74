// Atomics on host memory (PTE_HOST pages, CUDA's *_system atomics on mapped
// and managed memory): with the host's dma_cmpxchg (ABI 8) a kernel's
// atomics and the CPU's on the same word combine, as PCIe AtomicOps do;
// without it the device's own atomics still combine with each other.
#include "device_harness.h"

#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <thread>

namespace simtgpu::test {
namespace {

constexpr uint64_t kCode = 0x10000;
constexpr uint64_t kReport = 0x10'0000'0000ull;
constexpr uint64_t kHostVa = 0x70'0000'0000ull;
// Long enough (about 0.1 s) for the CPU's adds to overlap the kernel's.
constexpr uint32_t kCtas = 256, kThreads = 64, kAddsPerThread = 64;
constexpr uint32_t kDeviceAdds = kCtas * kThreads * kAddsPerThread;

// Each thread adds 1 to the word at a0 kAddsPerThread times (llvm-mc-16).
const std::vector<uint32_t> kAddLoop = {
    0x00100693, // li a3, 1
    0x04000713, // li a4, 64
    0x00d5202f, // 1: amoadd.w zero, a3, (a0)
    0xfff70713, // addi a4, a4, -1
    0xfe071ce3, // bnez a4, 1b
    0x05d00893, // li a7, 93
    0x00000513, // li a0, 0
    0x00000073, // ecall
};

// Runs the add loop on the first host word with two SMs' host threads;
// `while_running` runs on the test's thread until the launch is done.
simtgpu_launch_report run_adds(DeviceHarness &h, const std::function<void()> &while_running) {
    const uint64_t code_pa = h.map_new(kCode, 4096, SIMTGPU_PTE_R | SIMTGPU_PTE_X);
    std::memcpy(h.vram + code_pa, kAddLoop.data(), kAddLoop.size() * 4);
    const uint64_t report_pa = h.map_new(kReport, 4096, SIMTGPU_PTE_R | SIMTGPU_PTE_W);
    h.map(kHostVa, DeviceHarness::kHostBase, SIMTGPU_PTE_R | SIMTGPU_PTE_W | SIMTGPU_PTE_HOST);
    h.setup_ring(0);
    simtgpu_pkt_launch l = launch_1d(kCode, kCtas, kThreads);
    l.param_va = kHostVa;
    l.report_va = kReport;
    h.emit(0, pkt_set_context(1, h.root));
    h.emit(0, pkt_launch(l));
    h.doorbell(0);
    while_running();
    EXPECT_TRUE(h.wait_idle());
    return h.read_pa<simtgpu_launch_report>(report_pa);
}

simtgpu_sim_config two_host_threads() {
    simtgpu_sim_config c{};
    c.host_threads = 2;
    return c;
}

uint32_t host_word(DeviceHarness &h) {
    return __atomic_load_n(reinterpret_cast<uint32_t *>(h.host_memory.data()), __ATOMIC_SEQ_CST);
}

TEST(HostAtomics, KernelAndCpuAtomicsOnOneWordAllCount) {
    DeviceHarness h(two_host_threads());
    auto *word = reinterpret_cast<uint32_t *>(h.host_memory.data());
    uint32_t cpu_adds = 0;
    const simtgpu_launch_report r = run_adds(h, [&] {
        // Add while the kernel does, until the device is idle.
        while (simtgpu_sim_wait_idle(h.sim, 0) != 1) {
            __atomic_fetch_add(word, 1, __ATOMIC_SEQ_CST);
            ++cpu_adds;
        }
    });
    EXPECT_EQ(r.exception, 0u);
    EXPECT_GT(cpu_adds, 0u);
    EXPECT_EQ(host_word(h), kDeviceAdds + cpu_adds) << "an atomic was lost";
    // Every lane's add went through the host's compare-and-exchange.
    EXPECT_GE(h.dma_cmpxchg_calls.load(), uint64_t(kDeviceAdds));
}

TEST(HostAtomics, WithoutTheHostsCmpxchgTheDevicesOwnAtomicsStillCombine) {
    DeviceHarness h(two_host_threads(), true, false);
    const simtgpu_launch_report r = run_adds(h, [] {});
    EXPECT_EQ(r.exception, 0u);
    EXPECT_EQ(host_word(h), kDeviceAdds);
    EXPECT_EQ(h.dma_cmpxchg_calls.load(), 0u);
}

} // namespace
} // namespace simtgpu::test
