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
    bytes_per_cycle_ =
        config.dram.bandwidth_gbps * 1e6 / double(sm_clock_khz) / double(config.dram.channels);
    burst_ = uint64_t(std::ceil(double(sector_bytes_) * double(kOne) / bytes_per_cycle_));
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
    bank.queue.push_back(Request{seq_++, where.row, payload, sm, write, false});
    bank.by_row[where.row].push_back(std::prev(bank.queue.end()));
    bank.row_hits += where.row == bank.open_row;
    ++channel.queued;
    if (channel.next_wake <= now)
        return kNever;
    channel.next_wake = now;
    return now;
}

Dram::Queued Dram::pick(Bank &bank) const {
    if (scheduler_ == DramScheduler::fr_fcfs && bank.row_hits > 0)
        return bank.by_row.at(bank.open_row).front();
    return bank.queue.begin(); // end() when empty
}

// A chosen request is the oldest of its row: FR-FCFS takes a row's front,
// FCFS the oldest of all.
Dram::Request Dram::take(Bank &bank, Queued request) {
    auto row = bank.by_row.find(request->row);
    row->second.pop_front();
    if (row->second.empty())
        bank.by_row.erase(row);
    Request r = *request;
    bank.queue.erase(request);
    return r;
}

void Dram::count_row_hits(Bank &bank) {
    auto row = bank.by_row.find(bank.open_row);
    bank.row_hits = row == bank.by_row.end() ? 0 : uint32_t(row->second.size());
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
        Queued best_request;
        for (Bank &bank : channel.banks) {
            if (bank.ready > start)
                continue;
            Queued i = pick(bank);
            if (i == bank.queue.end() || i->row != bank.open_row)
                continue;
            if (!best || i->seq < best_request->seq) {
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
        Queued i = pick(bank);
        if (i == bank.queue.end() || i->row == bank.open_row)
            continue;
        bank.ready = start + (bank.open_row == kNoRow ? 0 : precharge_) + activate_;
        bank.open_row = i->row;
        i->activated = true;
        count_row_hits(bank);
    }

    if (channel.queued == 0)
        return kNever;
    uint64_t next = kNever;
    for (const Bank &bank : channel.banks) {
        if (bank.queue.empty())
            continue;
        uint64_t when = bank.ready > start ? ceil_cycles(bank.ready, kFractionBits)
                                           : channel.bus_free >> kFractionBits;
        next = std::min(next, when);
    }
    channel.next_wake = std::max(next, now + 1);
    return channel.next_wake;
}

} // namespace simtgpu::sim::mem
