#include "mem/dram.h"

#include <algorithm>
#include <cmath>

namespace simtgpu::sim::mem {
namespace {

uint64_t ceil_cycles(uint64_t fixed, uint32_t fraction_bits) {
    return (fixed + (1ull << fraction_bits) - 1) >> fraction_bits;
}

} // namespace

Dram::Dram(const MemoryConfig &config, uint32_t sm_clock_khz)
    : scheduler_(config.dram.scheduler), sector_bytes_(config.l1.sector_bytes) {
    // GB/s -> bytes per SM cycle: bandwidth_gbps * 10^9 / (sm_clock_khz * 10^3).
    const double bytes_per_cycle =
        config.dram.bandwidth_gbps * 1e6 / double(sm_clock_khz) / double(config.dram.channels);
    burst_ = uint64_t(std::ceil(double(sector_bytes_) * double(kOne) / bytes_per_cycle));
    double sm_per_dram_cycle = double(sm_clock_khz) / double(config.dram.clock_khz);
    activate_ = uint64_t(std::ceil(config.dram.t_rcd * sm_per_dram_cycle * double(kOne)));
    precharge_ = uint64_t(std::ceil(config.dram.t_rp * sm_per_dram_cycle * double(kOne)));
    channels_.resize(config.dram.channels);
    for (auto &channel : channels_)
        channel.banks.resize(config.dram.banks_per_channel);
}

uint64_t Dram::closed_row_cycles() const {
    return ceil_cycles(activate_, kFractionBits) + ceil_cycles(burst_, kFractionBits);
}

uint64_t Dram::enqueue(const DramLocation &where, bool write, uint32_t sm, uint64_t payload,
                       uint64_t now) {
    Channel &channel = channels_[where.channel];
    Bank &bank = channel.banks[where.bank];
    uint32_t index;
    if (free_requests_.empty()) {
        index = uint32_t(requests_.size());
        requests_.emplace_back();
    } else {
        index = free_requests_.back();
        free_requests_.pop_back();
    }
    requests_[index] = Request{seq_++, where.row, payload, sm, bank.tail, kNone, kNone, write, false};
    (bank.tail == kNone ? bank.head : requests_[bank.tail].next) = index;
    bank.tail = index;
    auto [row, added] = bank.by_row.try_emplace(where.row, RowQueue{index, index, 1});
    if (!added) {
        requests_[row->second.tail].next_in_row = index;
        row->second.tail = index;
        ++row->second.count;
    }
    bank.row_hits += where.row == bank.open_row;
    ++channel.queued;
    if (channel.next_wake <= now)
        return kNever;
    channel.next_wake = now;
    return now;
}

uint32_t Dram::pick(const Bank &bank) const {
    if (scheduler_ == DramScheduler::fr_fcfs && bank.row_hits > 0)
        return bank.by_row.at(bank.open_row).head;
    return bank.head; // kNone when empty
}

// A chosen request is the oldest of its row: FR-FCFS takes a row's head,
// FCFS the oldest of all.
Dram::Request Dram::take(Bank &bank, uint32_t index) {
    const Request r = requests_[index];
    auto row = bank.by_row.find(r.row);
    if (--row->second.count == 0)
        bank.by_row.erase(row);
    else
        row->second.head = r.next_in_row;
    (r.prev == kNone ? bank.head : requests_[r.prev].next) = r.next;
    (r.next == kNone ? bank.tail : requests_[r.next].prev) = r.prev;
    free_requests_.push_back(index);
    return r;
}

void Dram::count_row_hits(Bank &bank) {
    auto row = bank.by_row.find(bank.open_row);
    bank.row_hits = row == bank.by_row.end() ? 0 : row->second.count;
}

uint64_t Dram::wake(uint32_t channel_index, uint64_t now, std::vector<DramRead> &reads,
                    std::vector<MemoryCounters> &counters_per_sm) {
    Channel &channel = channels_[channel_index];
    if (channel.next_wake != now)
        return kNever;
    channel.next_wake = kNever;
    const uint64_t start = now << kFractionBits, end = (now + 1) << kFractionBits;

    // Column accesses to open rows, oldest first, while the bus has room in
    // this cycle.
    while (channel.bus_free < end) {
        Bank *best = nullptr;
        uint32_t best_request = kNone;
        for (Bank &bank : channel.banks) {
            if (bank.ready > start)
                continue;
            const uint32_t i = pick(bank);
            if (i == kNone || requests_[i].row != bank.open_row)
                continue;
            if (!best || requests_[i].seq < requests_[best_request].seq) {
                best = &bank;
                best_request = i;
            }
        }
        if (!best)
            break;
        Request r = take(*best, best_request);
        --best->row_hits;
        --channel.queued;
        channel.bus_free = std::max(start, channel.bus_free) + burst_;
        MemoryCounters &c = counters_per_sm[r.sm];
        (r.activated ? c.dram_row_misses : c.dram_row_hits) += 1;
        (r.write ? c.dram_write_bytes : c.dram_read_bytes) += sector_bytes_;
        if (!r.write)
            reads.push_back(DramRead{r.payload, ceil_cycles(channel.bus_free, kFractionBits)});
    }

    // Banks whose next request needs another row open it now (after closing
    // the open one); FR-FCFS only once no request wants the open row.
    for (Bank &bank : channel.banks) {
        if (bank.ready > start)
            continue;
        const uint32_t i = pick(bank);
        if (i == kNone || requests_[i].row == bank.open_row)
            continue;
        bank.ready = start + (bank.open_row == kNoRow ? 0 : precharge_) + activate_;
        bank.open_row = requests_[i].row;
        requests_[i].activated = true;
        count_row_hits(bank);
    }

    if (channel.queued == 0)
        return kNever;
    uint64_t next = kNever;
    for (const Bank &bank : channel.banks) {
        if (bank.head == kNone)
            continue;
        uint64_t when = bank.ready > start ? ceil_cycles(bank.ready, kFractionBits)
                                           : channel.bus_free >> kFractionBits;
        next = std::min(next, when);
    }
    channel.next_wake = std::max(next, now + 1);
    return channel.next_wake;
}

} // namespace simtgpu::sim::mem
