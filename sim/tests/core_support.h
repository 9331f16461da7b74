// Test and benchmark support for the SIMT core: a flat GlobalMemory (pages
// of a std::vector, optional host-memory pages reached by "DMA"), a loader
// for the PT_LOAD segments of a device ELF, and a driver that runs a launch
// on one Sm until it finishes.
#pragma once

#include "dispatch/livelock.h"
#include "simtgpu/hw.h"
#include "sm/sm.h"

#include <cstdint>
#include <array>
#include <cstring>
#include <elf.h>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace simtgpu::sim::testing {

// A flat address range [base, base + size) backed by host memory, with
// per-page permissions; pages marked as host pages are reached by DMA at
// bus address = va (the test's host memory is the same vector).
class FlatMemory final : public GlobalMemory {
public:
    FlatMemory(uint64_t base, uint64_t size)
        : base_(base), bytes_(size), perms_(size >> SIMTGPU_PAGE_SHIFT, kRWX),
          host_page_(size >> SIMTGPU_PAGE_SHIFT, false)
    {
    }
    static constexpr uint8_t kR = 1, kW = 2, kX = 4, kRWX = 7;

    uint64_t base() const { return base_; }
    uint64_t size() const { return bytes_.size(); }
    uint8_t *at(uint64_t va) { return bytes_.data() + (va - base_); }
    template <typename T> T read(uint64_t va) const
    {
        T v;
        std::memcpy(&v, bytes_.data() + (va - base_), sizeof(T));
        return v;
    }
    template <typename T> void write(uint64_t va, const T &v)
    {
        std::memcpy(bytes_.data() + (va - base_), &v, sizeof(T));
    }
    void write_bytes(uint64_t va, const void *src, size_t n)
    {
        std::memcpy(bytes_.data() + (va - base_), src, n);
    }
    void set_perms(uint64_t va, uint64_t len, uint8_t perms)
    {
        for (uint64_t p = va >> SIMTGPU_PAGE_SHIFT; p < (va + len + SIMTGPU_PAGE_SIZE - 1) >> SIMTGPU_PAGE_SHIFT; ++p)
            perms_[p - (base_ >> SIMTGPU_PAGE_SHIFT)] = perms;
    }
    void set_host_pages(uint64_t va, uint64_t len)
    {
        for (uint64_t p = va >> SIMTGPU_PAGE_SHIFT; p < (va + len + SIMTGPU_PAGE_SIZE - 1) >> SIMTGPU_PAGE_SHIFT; ++p)
            host_page_[p - (base_ >> SIMTGPU_PAGE_SHIFT)] = true;
    }

    PageTranslation translate(uint64_t page_va) override
    {
        PageTranslation t;
        if (page_va < base_ || page_va >= base_ + bytes_.size()) {
            t.fault = SIMTGPU_FAULT_NOT_PRESENT;
            return t;
        }
        const uint64_t idx = (page_va - base_) >> SIMTGPU_PAGE_SHIFT;
        const uint8_t p = perms_[idx];
        t.readable = p & kR;
        t.writable = p & kW;
        t.executable = p & kX;
        if (host_page_[idx]) t.bus_address = page_va;
        else t.host = at(page_va);
        return t;
    }
    bool dma_read(uint64_t bus, void *dst, uint64_t n) override
    {
        dma_bytes += n;
        std::memcpy(dst, at(bus), n);
        return true;
    }
    bool dma_write(uint64_t bus, const void *src, uint64_t n) override
    {
        dma_bytes += n;
        std::memcpy(at(bus), src, n);
        return true;
    }
    bool dma_cmpxchg(uint64_t bus, uint32_t size, uint64_t expected, uint64_t desired,
                     uint64_t &old) override
    {
        dma_bytes += size;
        old = 0;
        std::memcpy(&old, at(bus), size);
        const uint64_t width_mask = size == 8 ? ~uint64_t(0) : 0xffff'ffffull;
        if ((old & width_mask) == (expected & width_mask))
            std::memcpy(at(bus), &desired, size);
        return true;
    }
    uint64_t dma_bytes = 0;

private:
    uint64_t base_;
    std::vector<uint8_t> bytes_;
    std::vector<uint8_t> perms_;
    std::vector<bool> host_page_;
};

// The device program NAME.elf built from sim/tests/programs or bench/.
inline std::string device_program_path(const std::string &dir, const std::string &name)
{
    return dir + "/" + name + ".elf";
}

struct LoadedElf {
    uint64_t entry = 0;
    std::map<std::string, uint64_t> symbols;
};

// Copies the PT_LOAD segments into memory (zero-filling .bss); returns
// nullopt when the file is missing or not a little-endian RV64 ELF.
inline std::optional<LoadedElf> load_elf(const std::string &path, FlatMemory &memory)
{
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    std::vector<uint8_t> file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (file.size() < sizeof(Elf64_Ehdr)) return std::nullopt;
    Elf64_Ehdr eh;
    std::memcpy(&eh, file.data(), sizeof eh);
    if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        eh.e_machine != EM_RISCV)
        return std::nullopt;
    LoadedElf out;
    out.entry = eh.e_entry;
    for (unsigned i = 0; i < eh.e_phnum; ++i) {
        Elf64_Phdr ph;
        std::memcpy(&ph, file.data() + eh.e_phoff + i * eh.e_phentsize, sizeof ph);
        if (ph.p_type != PT_LOAD) continue;
        if (ph.p_vaddr < memory.base() || ph.p_vaddr + ph.p_memsz > memory.base() + memory.size())
            return std::nullopt;
        std::memset(memory.at(ph.p_vaddr), 0, ph.p_memsz);
        memory.write_bytes(ph.p_vaddr, file.data() + ph.p_offset, ph.p_filesz);
    }
    for (unsigned i = 0; i < eh.e_shnum; ++i) {
        Elf64_Shdr sh;
        std::memcpy(&sh, file.data() + eh.e_shoff + i * eh.e_shentsize, sizeof sh);
        if (sh.sh_type != SHT_SYMTAB) continue;
        Elf64_Shdr strtab;
        std::memcpy(&strtab, file.data() + eh.e_shoff + sh.sh_link * eh.e_shentsize, sizeof strtab);
        for (uint64_t off = 0; off + sizeof(Elf64_Sym) <= sh.sh_size; off += sizeof(Elf64_Sym)) {
            Elf64_Sym sym;
            std::memcpy(&sym, file.data() + sh.sh_offset + off, sizeof sym);
            if (sym.st_name)
                out.symbols[reinterpret_cast<const char *>(file.data() + strtab.sh_offset + sym.st_name)] =
                    sym.st_value;
        }
    }
    return out;
}

struct RunOutcome {
    std::optional<Exception> exception;
    ExitRecord exits;
    SmStats stats;
    uint64_t cycles = 0;
};

// Runs every CTA of `launch` on `sm`, filling it as the occupancy rule
// allows. Gives up (an exception-less outcome with CTAs left) after
// `max_cycles`.
// As the device's dispatcher: the launch fails as a livelock when the SM
// makes no progress for livelock_cycles (core/livelock.h).
inline RunOutcome run_launch(Sm &sm, GlobalMemory &memory, const LaunchDesc &launch,
                             uint64_t max_cycles = 2'000'000'000ull,
                             uint64_t livelock_cycles = DeviceConfig{}.livelock_cycles) {
    RunOutcome out;
    LivelockWatchdog watchdog(livelock_cycles);
    const uint32_t slot = *sm.attach(launch, memory, 0);
    sm.reset_stats();
    const uint64_t total = launch.ctas();
    uint64_t next = 0;
    auto ctaid_of = [&](uint64_t i) {
        return Dim3{uint32_t(i % launch.grid[0]), uint32_t(i / launch.grid[0] % launch.grid[1]),
                    uint32_t(i / (uint64_t(launch.grid[0]) * launch.grid[1]))};
    };
    while (sm.clock() < max_cycles) {
        while (next < total && sm.can_accept_cta(slot)) sm.add_cta(slot, ctaid_of(next++));
        if (sm.idle()) break; // done, or a CTA that can never fit
        const SmRunResult r = sm.run(100000);
        if (r.exception) {
            out.exception = r.exception;
            sm.abort();
            break;
        }
        if (auto livelock = watchdog.check(sm.clock(), std::array{SmLaunch{&sm, slot}})) {
            out.exception = livelock;
            sm.abort();
            break;
        }
    }
    out.exits = sm.exit_record(slot);
    out.stats = sm.stats();
    out.cycles = sm.clock();
    sm.abort();
    return out;
}

} // namespace simtgpu::sim::testing
