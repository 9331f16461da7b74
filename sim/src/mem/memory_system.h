// The memory hierarchy's timing model: per SM a coalescer, a shared-memory
// bank model and a sectored L1 with MSHRs (the SM side); one L2 shared by
// every SM, split into address-hashed slices, and DRAM channels behind the
// slices (the shared side). docs/timing-memory.md explains it with a figure
// and every parameter.
//
// Time model: discrete events on one clock, the SM cycle. The SM model calls
// issue(access, now) for a warp memory instruction; it is accepted (a token)
// or refused because the SM's MSHRs are full (the warp retries later: a
// "memory throttle" stall). Internally each sector request moves through
// timed events (L2 slice arrival, DRAM queue, fill, response). Requests from
// different SMs queue for the same L2 slice ports and DRAM banks and buses:
// the later ones wait.
//
// The two sides meet only through messages with a latency: an SM side's
// requests to L2, and L2's answers, which reach the SM lookahead() cycles or
// more after the event that sends them. exchange() passes both: the
// requests the SMs have sent go to the shared side, the answers it has sent
// to their SMs. Between two exchanges the SM sides (tick_sm(), issue(), on
// several host threads at once) and the shared side (advance_shared()) may
// run at the same time, since neither reads what the other writes. The
// engine pipelines them: while the SMs run a quantum of lookahead() / 2
// cycles, the shared side runs the quantum before it, whose answers are
// due after the SMs' quantum ends; requests enter the shared side in SM
// order. The result does not depend on the host threads (docs/simulator.md).
// tick() does both, for one cycle, for a caller that drives every SM on one
// thread (a lone SM, tests).
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
    Token token = 0;       // of its SM; valid until a tick reports its completion
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
    // SM's last tick). Changes only the SM side of access.sm: calls for
    // different SMs may come from different threads at once.
    IssueResult issue(const WarpAccess &access, uint64_t now);

    // The SM side of `sm`: runs its events due by `now` (L1 and shared
    // memory answers, L2's answers); the accesses that completed, valid
    // until its next call. Their tokens are free for reuse afterwards.
    std::span<const Completion> tick_sm(uint32_t sm, uint64_t now);
    // The earliest cycle at which something happens on the SM side of `sm`.
    uint64_t next_sm_event_cycle(uint32_t sm) const;
    // The least latency of an answer from L2 back to an SM: the cycles
    // between the event that sends an answer and its arrival.
    uint32_t lookahead() const { return l2_return_; }
    // The shared side: takes the requests exchange() passed it, in SM order,
    // and runs its events due by `until`; its answers wait for the next
    // exchange(). May run while other threads run SM sides.
    void advance_shared(uint64_t until);
    // The SMs' requests so far to the shared side, its answers so far to
    // their SMs. Neither side may be running.
    void exchange();

    // How to run the step that starts at cycle `now`, after a step of
    // `last_cycles`, for at most `max_cycles`: the SMs run `cycles` while the
    // shared side runs the cycles before `now` beside them (shared_beside)
    // or first (catch_up_first, then exchange()). An answer is due a
    // lookahead after the event that sends it, so two steps in a row may
    // run at most that many cycles with the shared side beside: half each.
    // With nothing on the shared side the SMs may run a whole lookahead;
    // the step after such a one catches up first.
    struct StepPlan {
        uint64_t cycles = 0;
        bool shared_beside = false;
        bool catch_up_first = false;
    };
    StepPlan plan_step(uint64_t now, uint64_t last_cycles, uint64_t max_cycles) const;

    // Both sides for one cycle: exchange(), advance_shared(now), exchange(),
    // then every SM's tick_sm(now) in SM order; their completions, valid
    // until the next call.
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
    bool idle() const;
    // Whether the shared side has nothing to do: no event, no request to take.
    bool shared_idle() const;

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

    // The shared side's events.
    enum class EventKind : uint8_t {
        l2_arrival, // index: L2 request, reaching its slice
        l2_service, // index: L2 request, its turn at the slice port
        dram_wake,  // index: channel
        dram_fill,  // index: L2 request whose sector DRAM delivered
    };
    struct Event {
        uint32_t index;
        EventKind kind;
    };
    // An SM side's events.
    enum class SmEventKind : uint8_t {
        token_done, // index: token
        response,   // index: Response, L2's answer reaching the SM
    };
    struct SmEvent {
        uint32_t index;
        SmEventKind kind;
    };
    struct TokenState {
        uint32_t warp;
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
    // One sector's trip from an SM to L2, as the SM side sends it.
    struct SectorRequest {
        uint64_t arrival; // the cycle it reaches its slice
        uint64_t line;
        uint32_t l1_line; // reads: the L1 line (MSHR) to fill
        Token token;      // stores and atomics: whose answer this is
        uint8_t sector;
        uint8_t ops; // atomics: serialised operations
        L2Kind kind;
    };
    // ... at L2.
    struct L2Request {
        uint64_t line;
        uint32_t sm;
        uint32_t slice;
        uint32_t l1_line;
        Token token;
        uint32_t l2_line; // the L2 line it waits on, kNone if uncached
        uint32_t next;    // the next request waiting on the same L2 line
        uint8_t sector;
        uint8_t ops;
        L2Kind kind;
    };
    // L2's answer to one sector request, on its way back to the SM.
    struct Response {
        uint32_t l1_line;
        Token token;
        uint8_t sector;
        L2Kind kind;
    };
    // ... and when it arrives there.
    struct Answer {
        uint64_t cycle;
        Response response;
    };
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
    // Everything of one SM that its accesses change until they leave for L2.
    struct SmSide {
        explicit SmSide(uint32_t l1_sets, uint32_t l1_assoc) : l1(l1_sets, l1_assoc) {}
        SectoredCache l1;
        uint32_t mshrs_used = 0;
        uint64_t lsu_free = 0;   // next cycle its L1/shared pipeline takes a line
        uint64_t l1_version = 0; // bumped by each change that may admit a refused load
        Refusal last_refusal;
        // Its events are due within about the L2 latency (answers, L1 and
        // shared-memory hits); the heap takes the rare later ones.
        EventWheel<SmEvent, 512> events;
        std::vector<TokenState> tokens;
        std::vector<Token> free_tokens;
        std::vector<Token> completed_tokens; // freed at the next tick_sm()
        std::vector<Completion> completions;
        std::vector<Waiter> waiters;
        std::vector<uint32_t> free_waiters;
        std::vector<Response> responses;
        std::vector<uint32_t> free_responses;
        std::vector<SectorRequest> outbox; // to L2, in issue order
        std::vector<Answer> inbox;         // from L2, scheduled at the next tick_sm()
        uint64_t inbox_first = kNever;     // the earliest cycle in the inbox
        CoalescedAccess coalesced;
    };
    // The shared side's ends of one SM's messages.
    struct SmLink {
        std::vector<SectorRequest> requests; // exchanged, for advance_shared()
        std::vector<Answer> answers;         // sent, for exchange()
    };

    void schedule(uint64_t cycle, EventKind kind, uint32_t index);
    void run(uint64_t cycle, Event event);
    void run_sm(uint32_t sm, uint64_t cycle, SmEvent event);
    Token new_token(uint32_t sm, const WarpAccess &access, uint64_t now);
    void settle(uint32_t sm, Token token, uint64_t when);
    void send(uint32_t sm, L2Kind kind, uint64_t line, uint32_t sector, uint64_t arrival,
              uint32_t l1_line, Token token, uint8_t ops);

    IssueResult issue_shared(const WarpAccess &access, uint64_t now);
    IssueResult issue_load(const WarpAccess &access, uint64_t now);
    IssueResult issue_store_or_atomic(const WarpAccess &access, uint64_t now);
    IssueResult refuse(const WarpAccess &access);

    void l2_arrival(uint32_t request, uint64_t now);
    void l2_service(uint32_t request, uint64_t now);
    void l2_fill(uint32_t request, uint64_t now);
    void perform(uint32_t request, uint64_t now);
    // L2's answer to `request`, due at the SM at `cycle`; frees the request.
    void answer(uint32_t request, uint64_t cycle);
    void respond(uint32_t sm, const Response &response, uint64_t now);
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

    // Per SM; an SM side counts its L1 and shared-memory events, the shared
    // side the L2, DRAM and atomic ones: other fields, so both may at once.
    std::vector<MemoryCounters> counters_;
    std::vector<SmSide> sm_;
    std::vector<SmLink> links_;

    SectoredCache l2_;
    L2AccessPolicy l2_policy_;
    std::vector<uint64_t> slice_port_free_;
    std::vector<uint64_t> slice_atomic_free_;
    Dram dram_;

    EventWheel<Event> events_; // 4096 cycles: above every configured latency in practice
    std::vector<L2Request> l2_requests_;
    std::vector<uint32_t> free_l2_requests_;
    std::vector<DramRead> dram_reads_;
    std::vector<Completion> completions_; // tick()'s
};

} // namespace simtgpu::sim::mem
