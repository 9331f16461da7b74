// The MMU's page walk, against page tables built here by hand from the
// format of include/simtgpu/hw.h, and every SIMTGPU_FAULT_* it reports.
#include "device/mmu.h"

#include "simtgpu/hw.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace simtgpu::sim {
namespace {

constexpr uint64_t kVramBytes = 4 << 20;
constexpr uint64_t kHostBase = 0x5000'0000ull;

class Mmu : public ::testing::Test {
protected:
    void SetUp() override {
        auto v = Vram::create(kVramBytes, nullptr);
        ASSERT_TRUE(v) << v.error();
        vram = std::move(*v);
        host.assign(16384, 0);
        bus.opaque = this;
        bus.dma_read_fn = [](void *o, uint64_t a, void *buf, uint64_t n) {
            auto *t = static_cast<Mmu *>(o);
            if (t->refuse || a < kHostBase || a + n > kHostBase + t->host.size())
                return -1;
            std::memcpy(buf, t->host.data() + (a - kHostBase), n);
            return 0;
        };
        bus.dma_write_fn = [](void *o, uint64_t a, const void *buf, uint64_t n) {
            auto *t = static_cast<Mmu *>(o);
            if (t->refuse || a < kHostBase || a + n > kHostBase + t->host.size())
                return -1;
            std::memcpy(t->host.data() + (a - kHostBase), buf, n);
            return 0;
        };
        root = page();
    }

    uint64_t page() {
        const uint64_t pa = next;
        next += 4096;
        return pa;
    }
    void put(uint64_t table, unsigned index, uint64_t value) {
        std::memcpy(vram->data() + table + 8 * index, &value, 8);
    }
    static uint64_t entry(uint64_t addr, uint64_t flags) { return (addr >> 12) << 10 | flags; }
    uint64_t get(uint64_t table, unsigned index) {
        uint64_t v;
        std::memcpy(&v, vram->data() + table + 8 * index, 8);
        return v;
    }
    // Tables for va at levels 2, 1, 0, created when missing.
    std::array<uint64_t, 3> walk_tables(uint64_t va) {
        std::array<uint64_t, 3> tables{};
        uint64_t table = root;
        for (int level = 3; level > 0; --level) {
            const unsigned index = (va >> (12 + 9 * level)) & 511;
            if (!(get(table, index) & SIMTGPU_PTE_V))
                put(table, index, entry(page(), SIMTGPU_PTE_V));
            table = (get(table, index) >> 10) << 12;
            tables[3 - level] = table;
        }
        return tables;
    }
    void map(uint64_t va, uint64_t addr, uint64_t flags) {
        put(walk_tables(va)[2], (va >> 12) & 511, entry(addr, flags | SIMTGPU_PTE_V));
    }

    std::unique_ptr<Vram> vram;
    HostBus bus;
    std::vector<uint8_t> host;
    bool refuse = false;
    uint64_t root = 0;
    uint64_t next = 0x10000;
};

TEST_F(Mmu, TranslatesAVramPageWithItsPermissions) {
    const uint64_t va = 0x0000'1234'5678'9000ull, pa = 0x200000;
    map(va, pa, SIMTGPU_PTE_R | SIMTGPU_PTE_X);
    ContextMemory m(*vram, bus, root);
    PageTranslation t = m.translate(va);
    EXPECT_EQ(t.fault, 0u);
    EXPECT_EQ(t.host, vram->data() + pa);
    EXPECT_TRUE(t.readable);
    EXPECT_FALSE(t.writable);
    EXPECT_TRUE(t.executable);

    std::memcpy(vram->data() + pa + 100, "hello", 6);
    char buf[6];
    EXPECT_FALSE(m.read(va + 100, buf, 6));
    EXPECT_STREQ(buf, "hello");
}

TEST_F(Mmu, MissingEntriesAtEveryLevelAreNotPresent) {
    const uint64_t va = 0x0000'0040'0020'3000ull;
    ContextMemory m(*vram, bus, root);
    EXPECT_EQ(m.translate(va).fault, uint32_t(SIMTGPU_FAULT_NOT_PRESENT)); // level 3
    auto [l2, l1, l0] = walk_tables(va);
    EXPECT_EQ(m.translate(va).fault, uint32_t(SIMTGPU_FAULT_NOT_PRESENT)); // level 0
    put(l1, (va >> 21) & 511, 0);
    EXPECT_EQ(m.translate(va).fault, uint32_t(SIMTGPU_FAULT_NOT_PRESENT)); // level 1
    put(l2, (va >> 30) & 511, 0);
    EXPECT_EQ(m.translate(va).fault, uint32_t(SIMTGPU_FAULT_NOT_PRESENT)); // level 2
    (void)l0;
    // Beyond the 48-bit space nothing is mapped.
    EXPECT_EQ(m.translate(1ull << 48).fault, uint32_t(SIMTGPU_FAULT_NOT_PRESENT));
}

// PTE_REPLAY in a leaf without V: not present, but replayable; the same bit
// above the leaf level or beside V means nothing of the kind.
TEST_F(Mmu, ReplayMarkerMakesALeafFaultReplayable) {
    const uint64_t va = 0x7000'0000ull;
    auto [l2, l1, l0] = walk_tables(va);
    ContextMemory m(*vram, bus, root);
    const unsigned i0 = (va >> 12) & 511;
    put(l0, i0, SIMTGPU_PTE_REPLAY);
    PageTranslation t = m.translate(va);
    EXPECT_EQ(t.fault, uint32_t(SIMTGPU_FAULT_NOT_PRESENT));
    EXPECT_TRUE(t.replayable);
    put(l0, i0, 0);
    EXPECT_FALSE(m.translate(va).replayable);
    put(l1, (va >> 21) & 511, SIMTGPU_PTE_REPLAY); // a missing table, not a page
    t = m.translate(va);
    EXPECT_EQ(t.fault, uint32_t(SIMTGPU_FAULT_NOT_PRESENT));
    EXPECT_FALSE(t.replayable);
    (void)l2;
    // The command processor's copies do not wait: for them it is not present.
    put(l1, (va >> 21) & 511, entry(l0, SIMTGPU_PTE_V));
    put(l0, i0, SIMTGPU_PTE_REPLAY);
    char buf[8];
    const auto fault = m.read(va, buf, sizeof buf);
    ASSERT_TRUE(fault);
    EXPECT_EQ(fault->fault, uint32_t(SIMTGPU_FAULT_NOT_PRESENT));
}

TEST_F(Mmu, MalformedEntriesAreBadPtes) {
    const uint64_t va = 0x7000'0000ull;
    auto [l2, l1, l0] = walk_tables(va);
    ContextMemory m(*vram, bus, root);
    const unsigned i0 = (va >> 12) & 511;

    put(l0, i0, entry(0x200000, SIMTGPU_PTE_V | SIMTGPU_PTE_R | (1ull << 6))); // reserved bit
    EXPECT_EQ(m.translate(va).fault, uint32_t(SIMTGPU_FAULT_BAD_PTE));
    put(l0, i0, entry(0x200000, SIMTGPU_PTE_V)); // a leaf that grants nothing
    EXPECT_EQ(m.translate(va).fault, uint32_t(SIMTGPU_FAULT_BAD_PTE));
    put(l0, i0, entry(kVramBytes, SIMTGPU_PTE_V | SIMTGPU_PTE_R)); // beyond VRAM
    EXPECT_EQ(m.translate(va).fault, uint32_t(SIMTGPU_FAULT_BAD_PTE));
    put(l0, i0, entry(0x200000, SIMTGPU_PTE_V | SIMTGPU_PTE_R));
    EXPECT_EQ(m.translate(va).fault, 0u);

    // No large pages: a pointer level with R set is malformed.
    put(l1, (va >> 21) & 511, entry(l0, SIMTGPU_PTE_V | SIMTGPU_PTE_R));
    EXPECT_EQ(m.translate(va).fault, uint32_t(SIMTGPU_FAULT_BAD_PTE));
    // Tables live in VRAM.
    put(l1, (va >> 21) & 511, entry(kVramBytes, SIMTGPU_PTE_V));
    EXPECT_EQ(m.translate(va).fault, uint32_t(SIMTGPU_FAULT_BAD_PTE));
    put(l1, (va >> 21) & 511, entry(l0, SIMTGPU_PTE_V | SIMTGPU_PTE_HOST));
    EXPECT_EQ(m.translate(va).fault, uint32_t(SIMTGPU_FAULT_BAD_PTE));
    (void)l2;
}

TEST_F(Mmu, NoContextFaultsEverything) {
    ContextMemory m(*vram, bus, std::nullopt);
    EXPECT_EQ(m.translate(0x10000).fault, uint32_t(SIMTGPU_FAULT_NO_CONTEXT));
    uint8_t b;
    auto f = m.read(0x10000, &b, 1);
    ASSERT_TRUE(f);
    EXPECT_EQ(f->fault, uint32_t(SIMTGPU_FAULT_NO_CONTEXT));
}

TEST_F(Mmu, PermissionsAreEnforcedPerAccess) {
    const uint64_t ro = 0x10000, wo = 0x20000;
    map(ro, 0x200000, SIMTGPU_PTE_R);
    map(wo, 0x201000, SIMTGPU_PTE_W);
    ContextMemory m(*vram, bus, root);
    uint64_t v = 42;
    auto f = m.write(ro + 8, &v, 8);
    ASSERT_TRUE(f);
    EXPECT_EQ(f->fault, uint32_t(SIMTGPU_FAULT_PROTECTION));
    EXPECT_EQ(f->access, uint32_t(SIMTGPU_ACCESS_WRITE));
    EXPECT_EQ(f->address, ro + 8);

    f = m.read(ro, &v, 8, Access::Exec);
    ASSERT_TRUE(f);
    EXPECT_EQ(f->access, uint32_t(SIMTGPU_ACCESS_EXEC));
    f = m.read(wo, &v, 8);
    ASSERT_TRUE(f);
    EXPECT_EQ(f->fault, uint32_t(SIMTGPU_FAULT_PROTECTION));
    f = m.read(wo, &v, 8, Access::Atomic); // atomics need R and W
    ASSERT_TRUE(f);
    EXPECT_EQ(f->access, uint32_t(SIMTGPU_ACCESS_ATOMIC));
    EXPECT_FALSE(m.write(wo, &v, 8));
}

TEST_F(Mmu, RangesCrossPagesAndStopAtTheFirstFault) {
    const uint64_t va = 0x30000;
    map(va, 0x300000, SIMTGPU_PTE_R | SIMTGPU_PTE_W);
    ContextMemory m(*vram, bus, root);
    std::vector<uint8_t> buf(100, 0xab);
    auto f = m.write(va + 4096 - 50, buf.data(), buf.size());
    ASSERT_TRUE(f);
    EXPECT_EQ(f->fault, uint32_t(SIMTGPU_FAULT_NOT_PRESENT));
    EXPECT_EQ(f->address, va + 4096); // the first byte of the unmapped page
    EXPECT_EQ(vram->data()[0x300000 + 4095], 0xab); // the mapped part was written
}

TEST_F(Mmu, HostPagesGoThroughDma) {
    const uint64_t va = 0x40000;
    map(va, kHostBase + 4096, SIMTGPU_PTE_R | SIMTGPU_PTE_W | SIMTGPU_PTE_HOST);
    ContextMemory m(*vram, bus, root);
    PageTranslation t = m.translate(va);
    EXPECT_EQ(t.host, nullptr);
    EXPECT_EQ(t.bus_address, kHostBase + 4096);

    const uint64_t v = 0x1122334455667788ull;
    EXPECT_FALSE(m.write(va + 16, &v, 8));
    uint64_t back;
    std::memcpy(&back, host.data() + 4096 + 16, 8);
    EXPECT_EQ(back, v);
    EXPECT_EQ(m.dma_bytes(), 8u);

    refuse = true;
    auto f = m.read(va, &back, 8);
    ASSERT_TRUE(f);
    EXPECT_EQ(f->fault, uint32_t(SIMTGPU_FAULT_DMA));
}

TEST_F(Mmu, WithoutDmaCallbacksHostPagesFault) {
    const uint64_t va = 0x50000;
    map(va, kHostBase, SIMTGPU_PTE_R | SIMTGPU_PTE_HOST);
    HostBus none;
    ContextMemory m(*vram, none, root);
    uint64_t v;
    auto f = m.read(va, &v, 8);
    ASSERT_TRUE(f);
    EXPECT_EQ(f->fault, uint32_t(SIMTGPU_FAULT_DMA));
}

} // namespace
} // namespace simtgpu::sim
