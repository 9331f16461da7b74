// libFuzzer target: the device's MMU (sim/src/device/mmu.cpp), the page
// walk every launch, copy and fetch goes through, against a walk written
// here from include/simtgpu/hw.h's description alone (differential). The
// input builds page tables in a small VRAM as a driver would, and then
// some: for each of a few virtual addresses it writes the PTEs its walk
// meets and does not find yet (pointers to any page, VRAM or not, to the
// root or to tables already in use; leaves with any permissions, host
// pages, REPLAY, reserved bits, no V), then checks for each address that
// ContextMemory::translate() gives the reference's fault, permissions and
// page, and that whole-range reads, writes and zeroes across them never
// touch memory outside VRAM and the host pages, and read back what they
// wrote where the range lies in one page.
#include "device/mmu.h"
#include "simtgpu/hw.h"

#include <fuzzer/FuzzedDataProvider.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

using namespace simtgpu::sim;

namespace {

constexpr uint64_t kVramPages = 32;
constexpr uint64_t kHostPages = 4;
constexpr uint64_t kHostBase = 0x7000'0000'0000ull; // the host pages' bus addresses

std::vector<uint8_t> host_memory(kHostPages * SIMTGPU_PAGE_SIZE);

int host_read(void *, uint64_t bus, void *dst, uint64_t bytes)
{
    if (bus < kHostBase || bus - kHostBase > host_memory.size() ||
        bytes > host_memory.size() - (bus - kHostBase))
        return -1;
    std::memcpy(dst, host_memory.data() + (bus - kHostBase), bytes);
    return 0;
}

int host_write(void *, uint64_t bus, const void *src, uint64_t bytes)
{
    if (bus < kHostBase || bus - kHostBase > host_memory.size() ||
        bytes > host_memory.size() - (bus - kHostBase))
        return -1;
    std::memcpy(host_memory.data() + (bus - kHostBase), src, bytes);
    return 0;
}

[[noreturn]] void mismatch(const char *what, uint64_t va)
{
    std::fprintf(stderr, "page walk: %s differs from hw.h's walk at va 0x%llx\n", what,
                 (unsigned long long)va);
    std::abort();
}

// The walk as include/simtgpu/hw.h describes it.
struct Reference {
    uint32_t fault = 0;
    bool replayable = false, host = false, r = false, w = false, x = false;
    uint64_t address = 0; // VRAM offset or bus address of the page
};

Reference reference_walk(const Vram &vram, uint64_t root, uint64_t va)
{
    Reference ref;
    if (va >> SIMTGPU_VA_BITS) {
        ref.fault = SIMTGPU_FAULT_NOT_PRESENT;
        return ref;
    }
    uint64_t table = root;
    for (int level = 3; level >= 0; --level) {
        if (table > vram.size() || vram.size() - table < SIMTGPU_PAGE_SIZE) {
            ref.fault = SIMTGPU_FAULT_BAD_PTE;
            return ref;
        }
        uint64_t pte;
        std::memcpy(&pte, vram.data() + table + 8 * ((va >> (12 + 9 * level)) & 511), 8);
        if (!(pte & 1)) {
            ref.fault = SIMTGPU_FAULT_NOT_PRESENT;
            ref.replayable = level == 0 && (pte & (1ull << 5));
            return ref;
        }
        const uint64_t address = ((pte >> 10) & ((1ull << 44) - 1)) << 12;
        const bool reserved = pte & 0xffc00000000003c0ull;
        const uint64_t rwx = pte & 0xe;
        if (reserved || (level > 0 && (rwx || (pte & 0x10))) || (level == 0 && !rwx)) {
            ref.fault = SIMTGPU_FAULT_BAD_PTE;
            return ref;
        }
        if (level > 0) {
            table = address;
            continue;
        }
        ref.r = pte & 2;
        ref.w = pte & 4;
        ref.x = pte & 8;
        ref.replayable = pte & (1ull << 5);
        ref.host = pte & 0x10;
        ref.address = address;
        if (!ref.host && (address > vram.size() || vram.size() - address < SIMTGPU_PAGE_SIZE)) {
            ref = Reference{}; // a leaf outside VRAM is a bad PTE, nothing to replay
            ref.fault = SIMTGPU_FAULT_BAD_PTE;
        }
        return ref;
    }
    return ref;
}

// A PTE a driver could write, or one it should not.
uint64_t make_pte(FuzzedDataProvider &in, int level)
{
    if (in.ConsumeIntegralInRange(0, 15) == 0)
        return in.ConsumeIntegral<uint64_t>(); // anything
    const bool host = level == 0 && in.ConsumeIntegralInRange(0, 3) == 0;
    const uint64_t page = host ? in.ConsumeIntegralInRange<uint64_t>(0, kHostPages)
                               : in.ConsumeIntegralInRange<uint64_t>(0, kVramPages); // one past
    const uint64_t address = host ? kHostBase + page * SIMTGPU_PAGE_SIZE : page * SIMTGPU_PAGE_SIZE;
    uint64_t flags = SIMTGPU_PTE_V;
    if (level == 0)
        flags |= in.ConsumeIntegralInRange<uint64_t>(0, 7) << 1 | (host ? SIMTGPU_PTE_HOST : 0);
    if (in.ConsumeIntegralInRange(0, 7) == 0)
        flags |= SIMTGPU_PTE_REPLAY;
    if (in.ConsumeIntegralInRange(0, 7) == 0)
        flags &= ~SIMTGPU_PTE_V;
    if (in.ConsumeIntegralInRange(0, 15) == 0)
        flags |= 1ull << in.ConsumeIntegralInRange(6, 63); // maybe reserved
    return SIMTGPU_PTE_MAKE(address, flags);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FuzzedDataProvider in(data, size);
    static std::unique_ptr<Vram> vram = [] {
        auto v = Vram::create(kVramPages * SIMTGPU_PAGE_SIZE, nullptr);
        if (!v)
            std::abort();
        return std::move(*v);
    }();
    std::memset(vram->data(), 0, vram->size());
    std::fill(host_memory.begin(), host_memory.end(), 0);
    const bool aligned_root = in.ConsumeIntegralInRange(0, 7) != 0;
    const uint64_t root = aligned_root
                              ? in.ConsumeIntegralInRange<uint64_t>(0, kVramPages - 1) * SIMTGPU_PAGE_SIZE
                              : in.ConsumeIntegral<uint64_t>() % (kVramPages * SIMTGPU_PAGE_SIZE + 64);
    // The addresses, and the PTEs their walks meet.
    std::vector<uint64_t> vas;
    const int count = in.ConsumeIntegralInRange(1, 8);
    for (int i = 0; i < count; ++i) {
        uint64_t va = in.ConsumeIntegral<uint64_t>();
        if (in.ConsumeIntegralInRange(0, 7) != 0)
            va &= (1ull << SIMTGPU_VA_BITS) - 1;
        vas.push_back(va);
        uint64_t table = root;
        for (int level = 3; level >= 0; --level) {
            const uint64_t at = table + 8 * SIMTGPU_PT_INDEX(va, level);
            if (!vram->contains(at, 8))
                break;
            uint64_t pte = vram->read64(at);
            if (!pte) {
                pte = make_pte(in, level);
                std::memcpy(vram->data() + at, &pte, 8);
            }
            if (!(pte & SIMTGPU_PTE_V) || level == 0)
                break;
            table = SIMTGPU_PTE_ADDR(pte);
        }
    }
    HostBus bus;
    bus.dma_read_fn = host_read;
    bus.dma_write_fn = host_write;
    ContextMemory mmu(*vram, bus, root);
    for (uint64_t va : vas) {
        const uint64_t page_va = va & ~uint64_t(SIMTGPU_PAGE_SIZE - 1);
        const PageTranslation t = mmu.translate(page_va);
        const Reference ref = reference_walk(*vram, root, page_va);
        if (t.fault != ref.fault)
            mismatch("the fault", va);
        if (t.replayable != ref.replayable)
            mismatch("replayable", va);
        if (ref.fault)
            continue;
        if (t.readable != ref.r || t.writable != ref.w || t.executable != ref.x)
            mismatch("the permissions", va);
        if (ref.host ? (t.host || t.bus_address != ref.address)
                     : t.host != vram->data() + ref.address)
            mismatch("the page", va);
    }
    // Ranges across the addresses: bounded, and consistent where they can be.
    std::vector<uint8_t> buffer(3 * SIMTGPU_PAGE_SIZE), back(buffer.size());
    for (uint64_t va : vas) {
        const uint64_t start = va + in.ConsumeIntegralInRange<int64_t>(-64, 64);
        const uint64_t bytes = in.ConsumeIntegralInRange<uint64_t>(0, buffer.size());
        for (size_t i = 0; i < bytes; ++i)
            buffer[i] = uint8_t(i * 131 + 7);
        switch (in.ConsumeIntegralInRange(0, 2)) {
        case 0:
            (void)mmu.read(start, back.data(), bytes);
            break;
        case 1: {
            const bool wrote = !mmu.write(start, buffer.data(), bytes);
            const bool one_page = bytes && (start & (SIMTGPU_PAGE_SIZE - 1)) + bytes <= SIMTGPU_PAGE_SIZE;
            if (wrote && one_page && !mmu.read(start, back.data(), bytes) &&
                std::memcmp(buffer.data(), back.data(), bytes) != 0)
                mismatch("what a write reads back", start);
            break;
        }
        default:
            (void)mmu.zero(start, bytes);
            break;
        }
    }
    return 0;
}
