// libFuzzer target: the device's command processor (sim/src/device), driven
// through the simulator's C ABI as the QEMU device and the in-process
// transport drive it. What a user controls reaches it as indirect buffers,
// and what the kernel driver writes as ring packets and page tables; here
// the input is all three at once:
//   - the ring (kernel privilege): SET_CONTEXT to a fixed address space,
//     then the input's dwords as packets;
//   - the same bytes mapped at kIbVa in that address space, so an INDIRECT
//     packet of the input runs (part of) the input as a user buffer;
//   - with bit 0 of the first byte set, the input's last 4 KiB replace the
//     level-0 page table of that window: random PTEs, to VRAM, to host
//     memory (reached through bounded DMA callbacks) or reserved bits.
// Every exception is acknowledged (the ring then goes on), a ring still busy
// after kBudgetMs is reset; each input starts from a reset device.
#include "simtgpu/hw.h"
#include "simtgpu/sim.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

constexpr uint64_t kVramBytes = 8u << 20;
constexpr uint64_t kRingPa = 0;
constexpr uint32_t kRingBytes = 64 << 10;
constexpr uint64_t kRootPa = 1 << 20;       // root table, then three levels below
constexpr uint64_t kWindowPa = 2 << 20;     // the mapped window's pages
constexpr uint64_t kIbVa = 0x10000;         // the window: kWindowPages pages from here
constexpr uint64_t kWindowPages = 64;
constexpr uint64_t kHostBytes = 64 << 10;   // host memory for PTE_HOST pages
constexpr uint64_t kHostBase = 0x4000'0000'0000ull;
constexpr int kBudgetMs = 200;

std::vector<uint8_t> host_memory(kHostBytes);

int dma_read(void *, uint64_t bus, void *buf, uint64_t len) {
    if (bus < kHostBase || bus - kHostBase > kHostBytes || len > kHostBytes - (bus - kHostBase))
        return -1;
    std::memcpy(buf, host_memory.data() + (bus - kHostBase), len);
    return 0;
}
int dma_write(void *, uint64_t bus, const void *buf, uint64_t len) {
    if (bus < kHostBase || bus - kHostBase > kHostBytes || len > kHostBytes - (bus - kHostBase))
        return -1;
    std::memcpy(host_memory.data() + (bus - kHostBase), buf, len);
    return 0;
}

struct Device {
    simtgpu_sim *sim = nullptr;
    uint8_t *vram = nullptr;
    uint64_t leaf = 0; // the window's level-0 table

    Device() {
        simtgpu_sim_config c{};
        c.struct_size = sizeof c;
        c.vram_bytes = kVramBytes;
        c.num_sms = 2;
        c.warps_per_sm = 4;
        c.livelock_cycles = 1 << 16;
        c.dma_read = dma_read;
        c.dma_write = dma_write;
        char err[256] = "";
        if (simtgpu_sim_create(&c, &sim, err, sizeof err) != 0)
            abort();
        uint64_t size = 0;
        vram = static_cast<uint8_t *>(simtgpu_sim_vram(sim, &size));
        if (!vram || size != kVramBytes)
            abort();
    }
    void write_reg(uint32_t offset, uint32_t value) {
        simtgpu_sim_mmio_write(sim, offset, value, 4);
    }
    uint32_t reg(uint32_t offset) { return uint32_t(simtgpu_sim_mmio_read(sim, offset, 4)); }
    void set_pte(uint64_t table, uint64_t va, int level, uint64_t value) {
        std::memcpy(vram + table + 8 * ((va >> (12 + 9 * level)) & 511), &value, 8);
    }
    // Page tables for the window (root at kRootPa, one table per level).
    void map_window() {
        std::memset(vram + kRootPa, 0, 4 * SIMTGPU_PAGE_SIZE);
        uint64_t table = kRootPa;
        for (int level = 3; level > 0; --level) {
            const uint64_t next = table + SIMTGPU_PAGE_SIZE;
            set_pte(table, kIbVa, level, ((next >> 12) << 10) | SIMTGPU_PTE_V);
            table = next;
        }
        leaf = table;
        for (uint64_t i = 0; i < kWindowPages; ++i)
            set_pte(leaf, kIbVa + i * SIMTGPU_PAGE_SIZE, 0,
                    (((kWindowPa + i * SIMTGPU_PAGE_SIZE) >> 12) << 10) | SIMTGPU_PTE_V |
                        SIMTGPU_PTE_R | SIMTGPU_PTE_W | SIMTGPU_PTE_X);
    }
};

void put(std::vector<uint32_t> &ring, const void *body, size_t bytes, uint32_t opcode) {
    ring.push_back(SIMTGPU_PKT_HEADER(opcode, 0, bytes / 4));
    const size_t at = ring.size();
    ring.resize(at + bytes / 4);
    std::memcpy(ring.data() + at, body, bytes);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static Device d;
    simtgpu_sim_reset(d.sim);
    d.write_reg(SIMTGPU_REG_IRQ_ACK, ~0u);
    std::fill(host_memory.begin(), host_memory.end(), 0);
    d.map_window();
    // The input in the window, as a user buffer and as data.
    const size_t window = std::min<size_t>(size, kWindowPages * SIMTGPU_PAGE_SIZE);
    std::memset(d.vram + kWindowPa, 0, kWindowPages * SIMTGPU_PAGE_SIZE);
    std::memcpy(d.vram + kWindowPa, data, window);
    if (size >= SIMTGPU_PAGE_SIZE && (data[0] & 1))
        std::memcpy(d.vram + d.leaf, data + size - SIMTGPU_PAGE_SIZE, SIMTGPU_PAGE_SIZE);

    // The ring: SET_CONTEXT, then the input's dwords.
    std::vector<uint32_t> ring;
    const simtgpu_pkt_set_context ctx{1, 0, kRootPa};
    put(ring, &ctx, sizeof ctx, SIMTGPU_PKT_SET_CONTEXT);
    const size_t dwords = std::min<size_t>(size / 4, kRingBytes / 4 - ring.size() - 1);
    const size_t at = ring.size();
    ring.resize(at + dwords);
    std::memcpy(ring.data() + at, data, dwords * 4);
    std::memset(d.vram + kRingPa, 0, kRingBytes);
    std::memcpy(d.vram + kRingPa, ring.data(), ring.size() * 4);

    const uint32_t r = SIMTGPU_RING_BASE(0);
    d.write_reg(r + SIMTGPU_RING_ADDR_LO, uint32_t(kRingPa));
    d.write_reg(r + SIMTGPU_RING_ADDR_HI, 0);
    d.write_reg(r + SIMTGPU_RING_SIZE, kRingBytes);
    d.write_reg(r + SIMTGPU_RING_CTRL, SIMTGPU_RING_CTRL_ENABLE);
    d.write_reg(r + SIMTGPU_RING_TAIL, uint32_t(ring.size() * 4));

    // Run it to the end: acknowledge each exception (the ring resumes after
    // the aborted packet), until idle or out of time.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kBudgetMs);
    while (std::chrono::steady_clock::now() < deadline) {
        simtgpu_sim_wait_idle(d.sim, 10);
        const uint32_t irq = d.reg(SIMTGPU_REG_IRQ_STATUS);
        if (irq)
            d.write_reg(SIMTGPU_REG_IRQ_ACK, irq);
        const uint32_t status = d.reg(r + SIMTGPU_RING_STATUS);
        if (status == SIMTGPU_RING_STATUS_IDLE || status == SIMTGPU_RING_STATUS_ERROR)
            break;
    }
    // Whatever ran, the device answers its registers and statistics.
    simtgpu_sim_stats stats{};
    stats.struct_size = sizeof stats;
    simtgpu_sim_get_stats(d.sim, &stats);
    // SIMTGPU_FUZZ_VERBOSE=1: what an input did (to check that the seeds
    // reach what they are meant to).
    static const bool verbose = std::getenv("SIMTGPU_FUZZ_VERBOSE") != nullptr;
    if (verbose) {
        uint64_t fence;
        std::memcpy(&fence, d.vram + kWindowPa + 0x8000, 8);
        std::fprintf(stderr,
                     "ring: status %u head %u of %zu; launches %llu ctas %llu exceptions %llu; "
                     "dma %llu bytes; the window at +0x8000: %llu\n",
                     d.reg(r + SIMTGPU_RING_STATUS), d.reg(r + SIMTGPU_RING_HEAD),
                     ring.size() * 4, (unsigned long long)stats.launches,
                     (unsigned long long)stats.ctas, (unsigned long long)stats.exceptions,
                     (unsigned long long)stats.dma_bytes, (unsigned long long)fence);
    }
    return 0;
}
