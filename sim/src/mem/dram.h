// DRAM channels: banks with a row buffer each (open-page policy), one data
// bus per channel, and a scheduler choosing what each bank does next.
//
// A request whose row is open needs a column access: it uses the channel's
// bus for sector_bytes / (bytes per cycle per channel). One whose row is not
// open first makes its bank precharge (t_rp, if another row is open) and
// activate (t_rcd); the bank serves nothing else meanwhile, but other banks
// do. Time inside a channel is kept in 1/65536 cycle, so a sector's burst
// can be a fraction of an SM cycle.
#pragma once

#include "mem/memory_config.h"
#include "mem/memory_counters.h"

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace simtgpu::sim::mem {

constexpr uint64_t kNever = UINT64_MAX;

struct DramLocation {
    uint32_t channel = 0;
    uint32_t bank = 0;
    uint64_t row = 0;
};

// A read whose data has crossed the bus.
struct DramRead {
    uint64_t payload; // the caller's, from enqueue()
    uint64_t cycle;   // the SM cycle the last byte arrived
};

class Dram {
public:
    // sm_clock_khz converts bandwidth_gbps into bytes per SM cycle and the
    // DRAM-clock timings t_rcd and t_rp into SM cycles.
    Dram(const MemoryConfig &config, uint32_t sm_clock_khz);

    // Queues a sector access arriving at `now`. Returns the cycle the channel
    // must next be woken at, or kNever when an earlier wake is already due.
    uint64_t enqueue(const DramLocation &where, bool write, uint32_t sm, uint64_t payload,
                     uint64_t now);

    // Lets `channel` issue what it can at cycle `now`; reads whose data
    // transfer ends are appended to `reads`; row hits and misses and bytes
    // are counted in counters_per_sm[request's sm]. Returns the next wake (kNever
    // when its queues are empty). Only the wake enqueue()/wake() asked for
    // does anything; others are ignored.
    uint64_t wake(uint32_t channel, uint64_t now, std::vector<DramRead> &reads,
                  std::vector<MemoryCounters> &counters_per_sm);

    // SM cycles from the arrival of a read at an idle channel whose bank has
    // no row open to the end of its data transfer.
    uint64_t closed_row_cycles() const;

private:
    static constexpr uint32_t kFractionBits = 16;
    static constexpr uint64_t kOne = 1ull << kFractionBits;
    static constexpr uint64_t kNoRow = UINT64_MAX;

    static constexpr uint32_t kNone = UINT32_MAX;
    // Queued requests live in one pool, linked into their bank's queue and
    // their row's: a bank's queue can hold a whole kernel's write-backs
    // (stores do not stall their warps), so its scheduler's choices are O(1)
    // (the oldest request is the queue's head, the oldest for a row its
    // row's head) and a request costs no allocation once the pool has grown.
    struct Request {
        uint64_t seq;
        uint64_t row;
        uint64_t payload;
        uint32_t sm;
        uint32_t prev, next;  // the bank's queue, arrival order
        uint32_t next_in_row; // the row's, arrival order
        bool write;
        bool activated; // its row was opened for it (a row miss)
    };
    struct RowQueue {
        uint32_t head, tail, count;
    };
    struct Bank {
        uint64_t open_row = kNoRow;
        uint64_t ready = 0;    // fixed point: when it can take its next command
        uint32_t row_hits = 0; // queued requests for open_row
        uint32_t head = kNone, tail = kNone;
        std::unordered_map<uint64_t, RowQueue> by_row;
    };
    struct Channel {
        uint64_t bus_free = 0; // fixed point
        uint64_t next_wake = kNever;
        uint32_t queued = 0;
        std::vector<Bank> banks;
    };

    // The request a bank would serve next (kNone for none); a column access
    // when its row is open.
    uint32_t pick(const Bank &bank) const;
    // Takes a request pick() chose off its bank's queue.
    Request take(Bank &bank, uint32_t request);
    void count_row_hits(Bank &bank);

    DramScheduler scheduler_;
    uint32_t sector_bytes_;
    uint64_t burst_;     // fixed point
    uint64_t activate_;  // fixed point, t_rcd
    uint64_t precharge_; // fixed point, t_rp
    uint64_t seq_ = 0;
    std::vector<Channel> channels_;
    std::vector<Request> requests_;
    std::vector<uint32_t> free_requests_;
};

} // namespace simtgpu::sim::mem
