// The memory hierarchy's timing model: per SM a coalescer, a shared-memory
// bank model and a sectored L1 with MSHRs; one L2 shared by every SM, split
// into address-hashed slices; DRAM channels behind the slices
// (docs/timing-memory.md explains it with a figure and every parameter).
//
// Time model: discrete events on one clock, the SM cycle. The SM model calls
// issue(access, now) for a warp memory instruction; it is accepted (a token)
// or refused because the SM's MSHRs are full (the warp retries later: a
// "memory throttle" stall). Internally each sector request moves through
// timed events (L2 slice arrival, DRAM queue, fill, response); tick(now)
// runs every event due by `now` and returns the accesses that completed, each
// with the cycle its data arrived. Every SM shares this one instance, so
// requests from different SMs queue for the same L2 slice ports and DRAM
// banks and buses: the later ones wait. The engine calls tick() once per
// cycle, before the SMs issue, or jumps to next_event_cycle() when no SM has
// anything to issue.
//
// Latencies are end to end, issue to data, as microbenchmarks measure them:
// an isolated L1 hit takes l1.hit_latency, an L2 hit l2.hit_latency and a
// load missing L2 into a closed DRAM row dram.latency (an open row saves
// t_rcd, a conflicting one costs t_rp more). Throughput limits: one line per
// cycle through an SM's L1 (shared memory: one bank pass per cycle, same
// pipeline), one sector per cycle per L2 slice, one atomic operation per
// cycle per slice, and each channel's bus at bandwidth_gbps / channels.
//
// Steady state allocates nothing: requests, tokens and events live in pools
// that grow to the high-water mark and are reused.
#pragma once

#include "mem/coalescer.h"
#include "mem/dram.h"
#include "mem/event_wheel.h"
#include "mem/l2_access_policy.h"
#include "mem/memory_config.h"
#include "mem/memory_counters.h"
#include "mem/sectored_cache.h"
#include "support/expected.h"

#include <cstdint>
#include <span>
#include <vector>

namespace simtgpu::sim::mem {

using Token = uint32_t;

struct IssueResult {
    bool accepted = false; // false: throttled, nothing was done; retry later
    Token token = 0;       // valid until tick() reports its completion
};

struct Completion {
    Token token;
    uint32_t sm;
    uint32_t warp;
    AccessKind kind;
    uint64_t cycle; // when the data arrived (loads) or the write was done (stores, atomics)
};

class MemorySystem {
public:
    // Checks what depends on the SMs too (the DRAM latency must cover a row
    // activation and a burst at this clock).
    static Expected<MemorySystem> create(const MemoryConfig &config, uint32_t num_sms,
                                         uint32_t sm_clock_khz);

    // One warp memory instruction at cycle `now` (never earlier than the
    // last tick()). Calls for one cycle come in SM order for determinism.
    IssueResult issue(const WarpAccess &access, uint64_t now);

    // Runs every event due by `now`; the accesses that completed, valid
    // until the next call. Their tokens are free for reuse afterwards.
    std::span<const Completion> tick(uint64_t now);

    // Drops every SM's L1 data, as Volta does when a kernel starts (L1 is
    // not coherent); fills in flight still arrive and are kept.
    void invalidate_l1();

    // L2 access management (l2_access_policy.h): the set-aside for
    // persisting lines (at most l2.persisting_max_bytes: the caller checks),
    // the access policy windows of the grids in flight, and a reset of every
    // persisting line to normal.
    void set_l2_set_aside(uint64_t bytes) { l2_policy_.set_aside(bytes); }
    uint64_t l2_set_aside() const { return l2_policy_.set_aside_bytes(); }
    void set_l2_windows(std::vector<L2AccessWindow> windows) {
        l2_policy_.set_windows(std::move(windows));
    }
    void reset_persisting_l2() { l2_policy_.reset_lines(l2_); }
    // The property of the L2 line holding `address` (tests), normal if none.
    L2Property l2_line_property(uint64_t address) const;

    // The earliest cycle at which something happens (kNever when idle).
    uint64_t next_event_cycle() const;
    bool idle() const { return events_.empty(); }

    const MemoryCounters &counters(uint32_t sm) const { return counters_[sm]; }
    MemoryCounters totals() const;

    // Where a byte address lives: its L2 slice and DRAM location.
    uint32_t l2_slice(uint64_t address) const;
    DramLocation dram_location(uint64_t address) const;

    const MemoryConfig &config() const { return config_; }
    uint32_t num_sms() const { return num_sms_; }

    MemorySystem(MemorySystem &&) = default;

private:
    MemorySystem(const MemoryConfig &config, uint32_t num_sms, uint32_t sm_clock_khz);

    enum class EventKind : uint8_t {
        token_done, // index: token
        l2_arrival, // index: L2 request, reaching its slice
        l2_service, // index: L2 request, its turn at the slice port
        dram_wake,  // index: channel
        dram_fill,  // index: L2 request whose sector DRAM delivered
        response,   // index: L2 request whose answer reaches the SM
    };
    struct Event {
        uint32_t index;
        EventKind kind;
    };
    struct TokenState {
        uint32_t sm, warp;
        uint32_t pending; // L1 waiters and L2 answers still to come
        AccessKind kind;
        uint64_t ready; // the latest arrival so far
    };
    // A warp access waiting on an L1 line's fills (an MSHR merge entry).
    struct Waiter {
        Token token;
        uint32_t next;
        uint8_t sectors;
    };
    enum class L2Kind : uint8_t { read, store, atomic };
    // One sector's trip from an SM to L2 and back.
    struct L2Request {
        uint64_t line;
        uint32_t sm;
        uint32_t slice;
        uint32_t l1_line; // reads: the L1 line (MSHR) to fill
        Token token;      // stores and atomics: whose answer this is
        uint32_t l2_line; // the L2 line it waits on, kNone if uncached
        uint32_t next;    // the next request waiting on the same L2 line
        uint8_t sector;
        uint8_t ops; // atomics: serialised operations
        L2Kind kind;
    };

    void schedule(uint64_t cycle, EventKind kind, uint32_t index);
    void run(uint64_t cycle, Event event);
    Token new_token(const WarpAccess &access, uint64_t now);
    void settle(Token token, uint64_t when);
    uint32_t new_l2_request(L2Kind kind, const WarpAccess &access, uint64_t line, uint32_t sector,
                            uint64_t arrival);

    IssueResult issue_shared(const WarpAccess &access, uint64_t now);
    IssueResult issue_load(const WarpAccess &access, uint64_t now);
    IssueResult issue_store_or_atomic(const WarpAccess &access, uint64_t now);
    IssueResult refuse(const WarpAccess &access);

    void l2_arrival(uint32_t request, uint64_t now);
    void l2_service(uint32_t request, uint64_t now);
    void l2_fill(uint32_t request, uint64_t now);
    void perform(uint32_t request, uint64_t now);
    void respond(uint32_t request, uint64_t now);
    uint32_t l2_allocate(uint32_t set, uint32_t sm, uint64_t now, L2Property incoming);
    // The access's window property applied at L2: counts persisting sectors,
    // gives a line it hits the property; returns the property a missing line
    // is inserted with.
    L2Property l2_classify(const L2Request &r, uint32_t set, uint32_t index, bool hit);
    void to_dram(uint64_t line, uint32_t slice, bool write, uint32_t sm, uint64_t payload,
                 uint64_t now);
    uint32_t l2_set(uint64_t line, uint32_t slice) const;
    uint32_t slice_of_line(uint64_t line) const;
    DramLocation dram_location_of_line(uint64_t line, uint32_t slice) const;

    MemoryConfig config_;
    uint32_t num_sms_;
    uint32_t sectors_per_line_;
    uint32_t l1_sets_;
    uint32_t slice_bits_;
    uint32_t l2_sets_per_slice_;
    uint32_t l2_return_;   // cycles from an L2 slice back to the SM
    uint32_t dram_return_; // cycles from a DRAM burst's end to its L2 fill

    std::vector<MemoryCounters> counters_;
    std::vector<SectoredCache> l1_;
    std::vector<uint32_t> l1_mshrs_used_;
    std::vector<uint64_t> lsu_free_; // per SM: next cycle its L1/shared pipeline takes a line
    // A refused load retried before anything that could admit it changed
    // (an MSHR or merge slot freed, a line allocated) is refused again
    // without being looked at: the SM retries every cycle while it waits. A
    // warp retries the instruction it was refused (it issues in order), so
    // warp, mask, size and first address identify the access.
    struct Refusal {
        uint64_t l1_version = UINT64_MAX;
        uint64_t first_address = 0;
        uint64_t active_mask = 0;
        uint32_t warp = 0;
        uint32_t lane_bytes = 0;
    };
    std::vector<uint64_t> l1_version_; // per SM: bumped by each such change
    std::vector<Refusal> last_refusal_;
    SectoredCache l2_;
    L2AccessPolicy l2_policy_;
    std::vector<uint64_t> slice_port_free_;
    std::vector<uint64_t> slice_atomic_free_;
    Dram dram_;

    EventWheel<Event> events_;
    std::vector<TokenState> tokens_;
    std::vector<Token> free_tokens_;
    std::vector<Waiter> waiters_;
    std::vector<uint32_t> free_waiters_;
    std::vector<L2Request> l2_requests_;
    std::vector<uint32_t> free_l2_requests_;
    std::vector<Completion> completions_;
    std::vector<Token> completed_tokens_; // freed at the next tick()
    std::vector<DramRead> dram_reads_;
    CoalescedAccess coalesced_;
};

} // namespace simtgpu::sim::mem
