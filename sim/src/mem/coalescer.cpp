#include "mem/coalescer.h"

#include <algorithm>
#include <bit>

namespace simtgpu::sim::mem {

uint32_t CoalescedAccess::sectors() const {
    uint32_t n = 0;
    for (uint32_t i = 0; i < count; ++i)
        n += std::popcount(lines[i].sector_mask);
    return n;
}

void coalesce(const WarpAccess &access, uint32_t line_bytes, uint32_t sector_bytes,
              CoalescedAccess &out) {
    const uint32_t line_shift = std::countr_zero(line_bytes);
    const uint32_t sector_shift = std::countr_zero(sector_bytes);
    const uint32_t bytes = std::max<uint32_t>(access.lane_bytes, 1);
    out.count = 0;
    // Neighbouring lanes usually share a line: look at the last one first,
    // then in a small open-addressed table of the lines seen so far.
    constexpr uint32_t kSlots = 256; // over twice the most lines an access can touch
    constexpr uint8_t kEmpty = 0xff;
    std::array<uint8_t, kSlots> table;
    table.fill(kEmpty);
    uint32_t last = 0;
    auto line_slot = [&](uint64_t line) -> LineRequest & {
        if (out.count > 0 && out.lines[last].line == line)
            return out.lines[last];
        uint32_t slot = uint32_t((line * 0x9E3779B97F4A7C15ull) >> 56);
        while (table[slot] != kEmpty) {
            if (out.lines[table[slot]].line == line)
                return out.lines[last = table[slot]];
            slot = (slot + 1) % kSlots;
        }
        table[slot] = uint8_t(out.count);
        LineRequest &request = out.lines[last = out.count++];
        request.line = line;
        request.sector_mask = 0;
        request.atomic_ops.fill(0);
        return request;
    };
    for (uint64_t mask = access.active_mask; mask != 0; mask &= mask - 1) {
        uint32_t lane = std::countr_zero(mask);
        uint64_t first = access.address[lane] >> sector_shift;
        uint64_t end = (access.address[lane] + bytes - 1) >> sector_shift;
        for (uint64_t sector = first; sector <= end; ++sector) {
            uint64_t line = (sector << sector_shift) >> line_shift;
            uint32_t index = uint32_t(sector - (line << (line_shift - sector_shift)));
            line_slot(line).sector_mask |= uint8_t(1u << index);
        }
    }
    if (access.kind != AccessKind::atomic)
        return;
    // Lanes updating the same address serialise; count them per sector.
    for (uint64_t mask = access.active_mask; mask != 0; mask &= mask - 1) {
        uint32_t lane = std::countr_zero(mask);
        uint64_t address = access.address[lane];
        uint32_t same = 0;
        for (uint64_t other = access.active_mask; other != 0; other &= other - 1)
            same += access.address[std::countr_zero(other)] == address;
        uint64_t sector = address >> sector_shift;
        uint64_t line = (sector << sector_shift) >> line_shift;
        uint32_t index = uint32_t(sector - (line << (line_shift - sector_shift)));
        uint8_t &ops = line_slot(line).atomic_ops[index];
        ops = uint8_t(std::max<uint32_t>(ops, same));
    }
}

SharedPasses shared_passes(const WarpAccess &access, uint32_t banks, uint32_t bank_bytes) {
    // At most 64 lanes of 16 bytes in 1-byte banks.
    std::array<uint64_t, kMaxLanes * 16> words;
    uint32_t n = 0;
    const uint32_t bytes = std::clamp<uint32_t>(access.lane_bytes, 1, 16);
    for (uint64_t mask = access.active_mask; mask != 0; mask &= mask - 1) {
        uint64_t address = access.address[std::countr_zero(mask)];
        for (uint64_t w = address / bank_bytes; w <= (address + bytes - 1) / bank_bytes; ++w)
            words[n++] = w;
    }
    if (n == 0)
        return {};
    std::sort(words.begin(), words.begin() + n);
    uint32_t distinct = uint32_t(std::unique(words.begin(), words.begin() + n) - words.begin());
    std::array<uint32_t, 64> per_bank{};
    uint32_t passes = 0;
    for (uint32_t i = 0; i < distinct; ++i)
        passes = std::max(passes, ++per_bank[words[i] % banks]);
    uint32_t fewest = (distinct + banks - 1) / banks;
    return {passes, passes - fewest};
}

} // namespace simtgpu::sim::mem
