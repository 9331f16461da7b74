// VRAM as large as a real GPU's, backed by the host only where touched: a
// 16 GiB device commits nothing when created, exactly the pages written when
// used, and the VRAM_CLEAR register gives pages back (our own mapping, or a
// host's through its discard callback). Residency is read with mincore(2),
// page by page, so the expected set is known independently of the device.
#include "device_harness.h"
#include "simtgpu/hw.h"
#include "simtgpu/sim.h"

#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <sys/mman.h>
#include <unistd.h>
#include <utility>
#include <vector>

namespace simtgpu::test {
namespace {

const uint64_t kHostPage = uint64_t(sysconf(_SC_PAGESIZE));

// Host pages of [base, base + bytes) that are resident, as page indexes.
std::set<uint64_t> resident_pages(const uint8_t *base, uint64_t bytes) {
    std::vector<unsigned char> vec((bytes + kHostPage - 1) / kHostPage);
    std::set<uint64_t> pages;
    if (mincore(const_cast<uint8_t *>(base), bytes, vec.data()) != 0) {
        ADD_FAILURE() << "mincore: " << std::strerror(errno);
        return pages;
    }
    for (uint64_t i = 0; i < vec.size(); ++i)
        if (vec[i] & 1)
            pages.insert(i);
    return pages;
}

// A device with the default configuration (or `config`), no DeviceHarness:
// the harness writes its own page tables into VRAM.
struct Device {
    explicit Device(simtgpu_sim_config config = {}) {
        config.struct_size = sizeof config;
        char err[256] = "";
        if (simtgpu_sim_create(&config, &sim, err, sizeof err) != 0) {
            ADD_FAILURE() << err;
            return;
        }
        vram = static_cast<uint8_t *>(simtgpu_sim_vram(sim, &size));
    }
    ~Device() {
        if (sim)
            simtgpu_sim_destroy(sim);
    }
    uint32_t reg(uint32_t offset) { return uint32_t(simtgpu_sim_mmio_read(sim, offset, 4)); }
    void write_reg(uint32_t offset, uint32_t value) {
        simtgpu_sim_mmio_write(sim, offset, value, 4);
    }
    // The driver's sequence of hw.h: range, then GO; returns VRAM_CLEAR.
    uint32_t clear(uint64_t addr, uint64_t bytes) {
        write_reg(SIMTGPU_REG_VRAM_CLEAR_ADDR_LO, uint32_t(addr));
        write_reg(SIMTGPU_REG_VRAM_CLEAR_ADDR_HI, uint32_t(addr >> 32));
        write_reg(SIMTGPU_REG_VRAM_CLEAR_BYTES_LO, uint32_t(bytes));
        write_reg(SIMTGPU_REG_VRAM_CLEAR_BYTES_HI, uint32_t(bytes >> 32));
        write_reg(SIMTGPU_REG_VRAM_CLEAR, SIMTGPU_VRAM_CLEAR_GO);
        return reg(SIMTGPU_REG_VRAM_CLEAR);
    }
    simtgpu_sim *sim = nullptr;
    uint8_t *vram = nullptr;
    uint64_t size = 0;
};

TEST(Vram, SixteenGibDeviceBacksOnlyTheTouchedPages) {
    Device d;
    ASSERT_NE(d.sim, nullptr);
    ASSERT_EQ(d.size, 16ull << 30);
    EXPECT_TRUE(d.reg(SIMTGPU_REG_CAPS) & SIMTGPU_CAP_VRAM_CLEAR);
    EXPECT_TRUE(resident_pages(d.vram, d.size).empty()) << "creating the device touched VRAM";

    // A few pages far apart, as buffers of a program spread over VRAM.
    const std::vector<uint64_t> offsets = {0, 5 * kHostPage + 17, 1ull << 30,
                                           (8ull << 30) + 3 * kHostPage, d.size - 1};
    std::set<uint64_t> expected;
    for (uint64_t off : offsets) {
        d.vram[off] = 0x5a;
        expected.insert(off / kHostPage);
    }
    EXPECT_EQ(resident_pages(d.vram, d.size), expected);

    // Clearing [1 GiB, 8 GiB + 4 pages) through the register returns the
    // two pages in it; the others keep their bytes and their backing.
    EXPECT_EQ(d.clear(1ull << 30, (7ull << 30) + 4 * kHostPage), SIMTGPU_VRAM_CLEAR_DONE);
    expected.erase((1ull << 30) / kHostPage);
    expected.erase(((8ull << 30) + 3 * kHostPage) / kHostPage);
    EXPECT_EQ(resident_pages(d.vram, d.size), expected);
    EXPECT_EQ(d.vram[0], 0x5a);
    EXPECT_EQ(d.vram[5 * kHostPage + 17], 0x5a);
    EXPECT_EQ(d.vram[d.size - 1], 0x5a);
    // Cleared pages read as zero without being backed again by the read.
    EXPECT_EQ(d.vram[1ull << 30], 0);
    EXPECT_EQ(d.vram[(8ull << 30) + 3 * kHostPage], 0);
}

TEST(Vram, ClearRefusesBadRangesAndClearsNothing) {
    Device d;
    ASSERT_NE(d.sim, nullptr);
    d.vram[d.size - 1] = 7;
    d.vram[8192] = 7;
    const std::pair<uint64_t, uint64_t> bad[] = {
        {d.size - 4096, 8192}, // runs past the end
        {4096, 4096 + 1},      // length not page aligned
        {100, 8192},           // offset not page aligned
        {~0ull - 4095, 8192},  // wraps around
    };
    for (auto [addr, bytes] : bad)
        EXPECT_EQ(d.clear(addr, bytes), SIMTGPU_VRAM_CLEAR_BAD_RANGE) << addr << "+" << bytes;
    EXPECT_EQ(d.vram[d.size - 1], 7);
    EXPECT_EQ(d.vram[8192], 7);
    // Any other value than GO is a bad access, and does nothing.
    d.write_reg(SIMTGPU_REG_VRAM_CLEAR_ADDR_LO, 8192);
    d.write_reg(SIMTGPU_REG_VRAM_CLEAR_BYTES_LO, 4096);
    d.write_reg(SIMTGPU_REG_VRAM_CLEAR_BYTES_HI, 0);
    d.write_reg(SIMTGPU_REG_VRAM_CLEAR, 2);
    EXPECT_EQ(d.vram[8192], 7);
    EXPECT_EQ(d.reg(SIMTGPU_REG_VRAM_CLEAR_ADDR_LO), 8192u);
    // A reset returns the registers to zero.
    simtgpu_sim_reset(d.sim);
    EXPECT_EQ(d.reg(SIMTGPU_REG_VRAM_CLEAR_ADDR_LO), 0u);
    EXPECT_EQ(d.reg(SIMTGPU_REG_VRAM_CLEAR_BYTES_LO), 0u);
    EXPECT_EQ(d.reg(SIMTGPU_REG_VRAM_CLEAR), SIMTGPU_VRAM_CLEAR_DONE);
}

// FILL with zeros (cudaMemset(p, 0, n)) gives the whole pages it covers
// back; the partial pages at its edges are written, other patterns too.
TEST(Vram, ZeroFillGivesWholePagesBack) {
    DeviceHarness h;
    ASSERT_NE(h.sim, nullptr);
    constexpr uint64_t kVa = 0x10'0000'0000ull, kPages = 64;
    const uint64_t pa = h.map_new(kVa, kPages * 4096, SIMTGPU_PTE_R | SIMTGPU_PTE_W);
    std::memset(h.vram + pa, 0x5a, kPages * 4096);
    h.setup_ring(0);
    const uint64_t begin = 4096 + 8, end = (kPages - 2) * 4096 + 12; // offsets in the buffer
    h.submit({pkt_set_context(1, h.root), pkt_fill(kVa + begin, end - begin, 0)});
    ASSERT_TRUE(h.wait_idle());
    ASSERT_EQ(h.ring_reg(0, SIMTGPU_RING_HEAD), h.ring_reg(0, SIMTGPU_RING_TAIL));
    for (uint64_t i = 0; i < kPages * 4096; i += 4) {
        const uint32_t want = i >= begin && i < end ? 0 : 0x5a5a5a5au;
        ASSERT_EQ(h.read_pa<uint32_t>(pa + i), want) << i;
    }
    // Pages 2 .. kPages - 3 lay wholly inside: no longer backed until written
    // (the reads above map the shared zero page, which mincore counts, so
    // look at the backing before reading them: a second fill).
    std::memset(h.vram + pa, 0x5a, kPages * 4096);
    h.submit({pkt_fill(kVa + begin, end - begin, 0)});
    ASSERT_TRUE(h.wait_idle());
    std::set<uint64_t> expected;
    for (uint64_t page : {uint64_t(0), uint64_t(1), kPages - 2, kPages - 1})
        expected.insert((pa / kHostPage) + page);
    std::set<uint64_t> resident;
    for (uint64_t page : resident_pages(h.vram + pa, kPages * 4096))
        resident.insert(pa / kHostPage + page);
    EXPECT_EQ(resident, expected);
    // Any other pattern is written.
    h.submit({pkt_fill(kVa + 2 * 4096, 4096, 0x01020304u)});
    ASSERT_TRUE(h.wait_idle());
    EXPECT_EQ(h.read_pa<uint32_t>(pa + 2 * 4096 + 4092), 0x01020304u);
}

// A host's own VRAM (QEMU's BAR2 RAM): whole pages go back through its
// discard callback, the partial pages at the edges are written.
struct HostVram {
    static int discard(void *opaque, uint64_t offset, uint64_t bytes) {
        auto *h = static_cast<HostVram *>(opaque);
        h->calls.emplace_back(offset, bytes);
        if (h->refuse)
            return -1;
        return madvise(h->mem + offset, bytes, MADV_DONTNEED);
    }
    static constexpr uint64_t kBytes = 4 << 20;
    uint8_t *mem = static_cast<uint8_t *>(
        mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    ~HostVram() { munmap(mem, kBytes); }
    std::vector<std::pair<uint64_t, uint64_t>> calls;
    bool refuse = false;
};

TEST(Vram, HostVramIsGivenBackThroughItsDiscardCallback) {
    HostVram host;
    ASSERT_NE(host.mem, MAP_FAILED);
    simtgpu_sim_config c{};
    c.vram_bytes = HostVram::kBytes;
    c.vram = host.mem;
    c.opaque = &host;
    c.vram_discard = &HostVram::discard;
    Device d(c);
    ASSERT_NE(d.sim, nullptr);
    std::memset(host.mem, 0xee, HostVram::kBytes);

    // Through the register: the whole range, page aligned.
    EXPECT_EQ(d.clear(1 << 20, 1 << 20), SIMTGPU_VRAM_CLEAR_DONE);
    ASSERT_EQ(host.calls.size(), 1u);
    EXPECT_EQ(host.calls[0], std::make_pair(uint64_t(1 << 20), uint64_t(1 << 20)));
    EXPECT_TRUE(resident_pages(host.mem + (1 << 20), 1 << 20).empty());

    // Through the C ABI with unaligned edges: the inner pages are discarded,
    // the edges written, the bytes around them kept.
    const uint64_t begin = (2 << 20) + 100, end = (3 << 20) + 200;
    ASSERT_EQ(simtgpu_sim_vram_clear(d.sim, begin, end - begin), 0);
    ASSERT_EQ(host.calls.size(), 2u);
    EXPECT_EQ(host.calls[1], std::make_pair((2 << 20) + kHostPage, (1 << 20) - kHostPage));
    for (uint64_t i = begin; i < end; i += 97)
        ASSERT_EQ(host.mem[i], 0) << i;
    EXPECT_EQ(host.mem[end - 1], 0);
    EXPECT_EQ(host.mem[begin - 1], 0xee);
    EXPECT_EQ(host.mem[end], 0xee);

    // A host that cannot discard: the library writes the zeros itself.
    host.refuse = true;
    EXPECT_EQ(d.clear(0, 64 << 10), SIMTGPU_VRAM_CLEAR_DONE);
    for (uint64_t i = 0; i < (64 << 10); i += 61)
        ASSERT_EQ(host.mem[i], 0) << i;
    EXPECT_EQ(host.mem[64 << 10], 0xee);
}

} // namespace
} // namespace simtgpu::test
