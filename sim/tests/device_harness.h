// A tiny driver for device tests: creates a simulator through the C ABI,
// hands out VRAM pages, builds page tables exactly as docs/hardware.md
// describes (independently of the MMU under test), writes packets to a ring
// and offers a host memory for PTE_HOST pages and a log of interrupts.
#pragma once

#include "simtgpu/hw.h"
#include "simtgpu/sim.h"

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <condition_variable>
#include <mutex>
#include <vector>

namespace simtgpu::test {

inline std::vector<uint32_t> dwords_of(const void *body, size_t bytes) {
    std::vector<uint32_t> out(bytes / 4);
    std::memcpy(out.data(), body, bytes);
    return out;
}

template <typename Body>
std::vector<uint32_t> packet(uint32_t opcode, const Body &body, uint32_t flags = 0) {
    std::vector<uint32_t> p{SIMTGPU_PKT_HEADER(opcode, flags, sizeof(Body) / 4)};
    auto b = dwords_of(&body, sizeof body);
    p.insert(p.end(), b.begin(), b.end());
    return p;
}

inline std::vector<uint32_t> pkt_set_context(uint32_t id, uint64_t page_table) {
    return packet(SIMTGPU_PKT_SET_CONTEXT, simtgpu_pkt_set_context{id, 0, page_table});
}
inline std::vector<uint32_t> pkt_indirect(uint64_t va, uint32_t dwords) {
    return packet(SIMTGPU_PKT_INDIRECT, simtgpu_pkt_indirect{va, dwords, 0});
}
inline std::vector<uint32_t> pkt_fence(uint64_t addr, uint64_t value, uint32_t flags = 0) {
    return packet(SIMTGPU_PKT_FENCE, simtgpu_pkt_fence{addr, value}, flags);
}
inline std::vector<uint32_t> pkt_timestamp(uint64_t addr, uint32_t flags = 0) {
    return packet(SIMTGPU_PKT_TIMESTAMP, simtgpu_pkt_timestamp{addr}, flags);
}
inline std::vector<uint32_t> pkt_copy(uint64_t src, uint64_t dst, uint64_t bytes) {
    return packet(SIMTGPU_PKT_COPY, simtgpu_pkt_copy{src, dst, bytes});
}
inline std::vector<uint32_t> pkt_fill(uint64_t dst, uint64_t bytes, uint32_t pattern) {
    return packet(SIMTGPU_PKT_FILL, simtgpu_pkt_fill{dst, bytes, pattern, 0});
}
inline std::vector<uint32_t> pkt_launch(const simtgpu_pkt_launch &l) {
    return packet(SIMTGPU_PKT_LAUNCH, l);
}
inline std::vector<uint32_t> pkt_nop(uint32_t body_dwords) {
    std::vector<uint32_t> p(1 + body_dwords, 0xdeadbeef);
    p[0] = SIMTGPU_PKT_HEADER(SIMTGPU_PKT_NOP, 0, body_dwords);
    return p;
}
inline simtgpu_pkt_launch launch_1d(uint64_t entry, uint32_t ctas, uint32_t threads) {
    simtgpu_pkt_launch l{};
    l.entry_pc = entry;
    l.grid[0] = ctas;
    l.grid[1] = l.grid[2] = 1;
    l.block[0] = threads;
    l.block[1] = l.block[2] = 1;
    l.stack_bytes = 1024;
    return l;
}

class DeviceHarness {
public:
    static constexpr uint64_t kRingPa = 0;         // ring n at n * 64 KiB
    static constexpr uint32_t kRingBytes = 64 << 10;
    static constexpr uint64_t kFirstFreePa = 1 << 20;
    static constexpr uint64_t kHostBase = 0x4000'0000'0000ull; // bus address of host_memory
    static constexpr uint64_t kHostBytes = 1 << 20;

    // with_host_atomics: the dma_cmpxchg callback (ABI 8) besides DMA.
    explicit DeviceHarness(simtgpu_sim_config config = {}, bool with_host_bus = true,
                           bool with_host_atomics = true) {
        config.struct_size = sizeof config;
        config.opaque = this;
        if (with_host_bus) {
            config.dma_read = &DeviceHarness::dma_read;
            config.dma_write = &DeviceHarness::dma_write;
            if (with_host_atomics)
                config.dma_cmpxchg = &DeviceHarness::dma_cmpxchg;
        }
        config.raise_irq = &DeviceHarness::raise_irq;
        host_memory.assign(kHostBytes, 0);
        char err[256] = "";
        const int rc = simtgpu_sim_create(&config, &sim, err, sizeof err);
        if (rc != 0) {
            ADD_FAILURE() << "simtgpu_sim_create: " << err;
            return;
        }
        vram = static_cast<uint8_t *>(simtgpu_sim_vram(sim, &vram_size));
        root = alloc_pages(1);
    }
    ~DeviceHarness() {
        if (sim)
            simtgpu_sim_destroy(sim);
    }

    uint32_t reg(uint32_t offset) { return uint32_t(simtgpu_sim_mmio_read(sim, offset, 4)); }
    void write_reg(uint32_t offset, uint32_t value) {
        simtgpu_sim_mmio_write(sim, offset, value, 4);
    }
    uint32_t ring_reg(uint32_t ring, uint32_t offset) {
        return reg(SIMTGPU_RING_BASE(ring) + offset);
    }
    void write_ring_reg(uint32_t ring, uint32_t offset, uint32_t value) {
        write_reg(SIMTGPU_RING_BASE(ring) + offset, value);
    }

    // Zeroed, contiguous physical pages.
    uint64_t alloc_pages(uint64_t n) {
        const uint64_t pa = next_free_;
        next_free_ += n * SIMTGPU_PAGE_SIZE;
        std::memset(vram + pa, 0, n * SIMTGPU_PAGE_SIZE);
        return pa;
    }
    uint64_t pte(uint64_t table, uint64_t va, int level) {
        uint64_t v;
        std::memcpy(&v, vram + table + 8 * ((va >> (12 + 9 * level)) & 511), 8);
        return v;
    }
    void set_pte(uint64_t table, uint64_t va, int level, uint64_t value) {
        std::memcpy(vram + table + 8 * ((va >> (12 + 9 * level)) & 511), &value, 8);
    }
    // The level-0 table for va, created on the way down.
    uint64_t leaf_table(uint64_t va) {
        uint64_t table = root;
        for (int level = 3; level > 0; --level) {
            uint64_t e = pte(table, va, level);
            if (!(e & 1)) {
                const uint64_t next = alloc_pages(1);
                e = ((next >> 12) << 10) | SIMTGPU_PTE_V;
                set_pte(table, va, level, e);
            }
            table = ((e >> 10) & 0xfffffffffffull) << 12;
        }
        return table;
    }
    void map(uint64_t va, uint64_t address, uint64_t flags) {
        set_pte(leaf_table(va), va, 0, ((address >> 12) << 10) | flags | SIMTGPU_PTE_V);
    }
    // Fresh VRAM for [va, va + bytes), mapped with flags; returns its PA.
    uint64_t map_new(uint64_t va, uint64_t bytes, uint64_t flags) {
        const uint64_t pages = (bytes + 4095) / 4096;
        const uint64_t pa = alloc_pages(pages);
        for (uint64_t i = 0; i < pages; ++i)
            map(va + i * 4096, pa + i * 4096, flags);
        return pa;
    }
    template <typename T> T read_pa(uint64_t pa) {
        T v;
        std::memcpy(&v, vram + pa, sizeof v);
        return v;
    }
    template <typename T> void write_pa(uint64_t pa, const T &v) {
        std::memcpy(vram + pa, &v, sizeof v);
    }

    void setup_ring(uint32_t ring, uint32_t priority = 0) {
        const uint64_t pa = kRingPa + ring * uint64_t(kRingBytes);
        write_ring_reg(ring, SIMTGPU_RING_ADDR_LO, uint32_t(pa));
        write_ring_reg(ring, SIMTGPU_RING_ADDR_HI, uint32_t(pa >> 32));
        write_ring_reg(ring, SIMTGPU_RING_SIZE, kRingBytes);
        write_ring_reg(ring, SIMTGPU_RING_PRIORITY, priority);
        write_ring_reg(ring, SIMTGPU_RING_CTRL, SIMTGPU_RING_CTRL_ENABLE);
        tails_[ring] = 0;
    }
    // Writes a packet at the ring's software tail (wrapping); returns the
    // byte offset it starts at.
    uint32_t emit(uint32_t ring, const std::vector<uint32_t> &p) {
        const uint32_t start = tails_[ring];
        const uint64_t base = kRingPa + ring * uint64_t(kRingBytes);
        for (uint32_t d : p) {
            std::memcpy(vram + base + tails_[ring], &d, 4);
            tails_[ring] = (tails_[ring] + 4) % kRingBytes;
        }
        return start;
    }
    void doorbell(uint32_t ring) { write_ring_reg(ring, SIMTGPU_RING_TAIL, tails_[ring]); }
    bool wait_idle() { return simtgpu_sim_wait_idle(sim, 20000) == 1; }
    // Emit packets on ring 0, ring the doorbell and wait.
    void submit(std::initializer_list<std::vector<uint32_t>> packets, uint32_t ring = 0) {
        for (const auto &p : packets)
            emit(ring, p);
        doorbell(ring);
        ASSERT_TRUE(wait_idle());
    }

    simtgpu_sim_stats stats() {
        simtgpu_sim_stats s{};
        s.struct_size = sizeof s;
        EXPECT_EQ(simtgpu_sim_get_stats(sim, &s), 0);
        return s;
    }
    std::vector<uint32_t> irqs() {
        std::lock_guard lock(irq_mutex_);
        return irq_log_;
    }
    void set_refuse_dma(bool refuse) { refuse_dma_ = refuse; }
    // Hold the engine inside the next DMA write until release_dma(): lets a
    // test queue work on several rings before the engine chooses.
    void hold_dma() {
        std::lock_guard lock(gate_mutex_);
        hold_ = true;
    }
    void wait_dma_held() {
        std::unique_lock lock(gate_mutex_);
        gate_cv_.wait(lock, [this] { return held_; });
    }
    void release_dma() {
        std::lock_guard lock(gate_mutex_);
        hold_ = false;
        gate_cv_.notify_all();
    }

    simtgpu_sim *sim = nullptr;
    uint8_t *vram = nullptr;
    uint64_t vram_size = 0;
    uint64_t root = 0;
    std::vector<uint8_t> host_memory;
    std::atomic<uint64_t> dma_cmpxchg_calls{0};

private:
    static bool host_range(DeviceHarness *h, uint64_t bus, uint64_t len) {
        return !h->refuse_dma_ && bus >= kHostBase && len <= kHostBytes &&
               bus - kHostBase <= kHostBytes - len;
    }
    static int dma_read(void *opaque, uint64_t bus, void *buf, uint64_t len) {
        auto *h = static_cast<DeviceHarness *>(opaque);
        if (!host_range(h, bus, len))
            return -1;
        std::memcpy(buf, h->host_memory.data() + (bus - kHostBase), len);
        return 0;
    }
    static int dma_write(void *opaque, uint64_t bus, const void *buf, uint64_t len) {
        auto *h = static_cast<DeviceHarness *>(opaque);
        {
            std::unique_lock lock(h->gate_mutex_);
            h->held_ = h->hold_;
            h->gate_cv_.notify_all();
            h->gate_cv_.wait(lock, [h] { return !h->hold_; });
            h->held_ = false;
        }
        if (!host_range(h, bus, len))
            return -1;
        std::memcpy(h->host_memory.data() + (bus - kHostBase), buf, len);
        return 0;
    }
    static int dma_cmpxchg(void *opaque, uint64_t bus, uint32_t size, uint64_t expected,
                           uint64_t desired, uint64_t *old) {
        auto *h = static_cast<DeviceHarness *>(opaque);
        if (!host_range(h, bus, size))
            return -1;
        h->dma_cmpxchg_calls.fetch_add(1);
        uint8_t *p = h->host_memory.data() + (bus - kHostBase);
        if (size == 8) {
            __atomic_compare_exchange_n(reinterpret_cast<uint64_t *>(p), &expected, desired,
                                        false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
            *old = expected;
        } else {
            uint32_t e32 = uint32_t(expected);
            __atomic_compare_exchange_n(reinterpret_cast<uint32_t *>(p), &e32, uint32_t(desired),
                                        false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
            *old = e32;
        }
        return 0;
    }
    static void raise_irq(void *opaque, uint32_t vector) {
        auto *h = static_cast<DeviceHarness *>(opaque);
        std::lock_guard lock(h->irq_mutex_);
        h->irq_log_.push_back(vector);
    }

    uint64_t next_free_ = kFirstFreePa;
    std::array<uint32_t, SIMTGPU_NUM_RINGS> tails_{};
    std::mutex irq_mutex_;
    std::vector<uint32_t> irq_log_;
    bool refuse_dma_ = false;
    std::mutex gate_mutex_;
    std::condition_variable gate_cv_;
    bool hold_ = false, held_ = false;
};

} // namespace simtgpu::test
