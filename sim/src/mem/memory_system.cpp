#include "mem/memory_system.h"
#include "mem/pool.h"

#include <algorithm>
#include <bit>
#include <cassert>

namespace simtgpu::sim::mem {

Expected<MemorySystem> MemorySystem::create(const MemoryConfig &config, uint32_t num_sms,
                                            uint32_t sm_clock_khz) {
    if (num_sms == 0 || num_sms > 4096)
        return Error{"memory system: " + std::to_string(num_sms) +
                     " SMs is out of range: allowed 1..4096"};
    if (sm_clock_khz == 0)
        return Error{"memory system: the SM clock must be above 0 kHz"};
    uint64_t dram_part = Dram(config, sm_clock_khz).closed_row_cycles();
    if (config.dram.latency < config.l2.hit_latency + dram_part)
        return Error{"memory.dram.latency = " + std::to_string(config.dram.latency) +
                     " is shorter than memory.l2.hit_latency (" +
                     std::to_string(config.l2.hit_latency) + ") plus a row activation and a " +
                     "sector's burst at " + std::to_string(sm_clock_khz) + " kHz (" +
                     std::to_string(dram_part) + " cycles): raise it or lower t_rcd"};
    return MemorySystem(config, num_sms, sm_clock_khz);
}

MemorySystem::MemorySystem(const MemoryConfig &config, uint32_t num_sms, uint32_t sm_clock_khz)
    : config_(config), num_sms_(num_sms), sectors_per_line_(config.sectors_per_line()),
      l1_sets_(uint32_t(config.l1.size_bytes / (uint64_t(config.l1.line_bytes) * config.l1.assoc))),
      slice_bits_(uint32_t(std::countr_zero(config.l2.slices))),
      l2_sets_per_slice_(uint32_t(config.l2.size_bytes / (uint64_t(config.l1.line_bytes) *
                                                          config.l2.assoc * config.l2.slices))),
      l2_return_(config.l2.hit_latency - config.l1.hit_latency), counters_(num_sms),
      sm_(num_sms, SmSide(l1_sets_, config.l1.assoc)), links_(num_sms),
      l2_(config.l2.slices * l2_sets_per_slice_, config.l2.assoc),
      l2_policy_(config.l2.slices * l2_sets_per_slice_, config.l2.assoc, config.l1.line_bytes),
      slice_port_free_(config.l2.slices, 0), slice_atomic_free_(config.l2.slices, 0),
      dram_(config, sm_clock_khz) {
    dram_return_ =
        uint32_t(config.dram.latency - config.l2.hit_latency - dram_.closed_row_cycles());
}

// ---- addresses ----

uint32_t MemorySystem::slice_of_line(uint64_t line) const {
    // XOR of every slice_bits-wide field of the line address: consecutive
    // lines go to different slices, and so do lines a power of two apart.
    if (slice_bits_ == 0)
        return 0;
    uint64_t mask = (1ull << slice_bits_) - 1, hash = 0;
    for (uint64_t rest = line; rest != 0; rest >>= slice_bits_)
        hash ^= rest & mask;
    return uint32_t(hash);
}

uint32_t MemorySystem::l2_set(uint64_t line, uint32_t slice) const {
    return slice * l2_sets_per_slice_ + uint32_t((line >> slice_bits_) % l2_sets_per_slice_);
}

DramLocation MemorySystem::dram_location_of_line(uint64_t line, uint32_t slice) const {
    // Each channel serves slices / channels slices; number the lines it
    // serves consecutively, fill a row with them, then the next bank.
    const auto &d = config_.dram;
    uint32_t slices_per_channel = config_.l2.slices / d.channels;
    uint64_t local = (line >> slice_bits_) * slices_per_channel + slice / d.channels;
    uint64_t lines_per_row = d.row_bytes / config_.l1.line_bytes;
    uint64_t row = local / (lines_per_row * d.banks_per_channel);
    // XOR-ing the bank with the row spreads rows that collide on one bank.
    uint32_t bank = uint32_t(((local / lines_per_row) ^ row) & (d.banks_per_channel - 1));
    return DramLocation{slice % d.channels, bank, row};
}

uint32_t MemorySystem::l2_slice(uint64_t address) const {
    return slice_of_line(address / config_.l1.line_bytes);
}

DramLocation MemorySystem::dram_location(uint64_t address) const {
    uint64_t line = address / config_.l1.line_bytes;
    return dram_location_of_line(line, slice_of_line(line));
}

// ---- events and tokens ----

void MemorySystem::schedule(uint64_t cycle, EventKind kind, uint32_t index) {
    events_.schedule(cycle, Event{index, kind});
}

uint64_t MemorySystem::next_event_cycle() const {
    uint64_t next = events_.next_cycle();
    for (uint32_t sm = 0; sm < num_sms_; ++sm) {
        next = std::min(next, next_sm_event_cycle(sm));
        for (const auto *requests : {&sm_[sm].outbox, &links_[sm].requests})
            for (const SectorRequest &r : *requests)
                next = std::min(next, r.arrival);
        for (const Answer &a : links_[sm].answers)
            next = std::min(next, a.cycle);
    }
    return next;
}

uint64_t MemorySystem::next_sm_event_cycle(uint32_t sm) const {
    return std::min(sm_[sm].events.next_cycle(), sm_[sm].inbox_first);
}

bool MemorySystem::idle() const {
    for (uint32_t sm = 0; sm < num_sms_; ++sm) {
        const SmSide &s = sm_[sm];
        const SmLink &link = links_[sm];
        if (!s.events.empty() || !s.outbox.empty() || !s.inbox.empty() || !link.requests.empty() ||
            !link.answers.empty())
            return false;
    }
    return events_.empty();
}

MemorySystem::StepPlan MemorySystem::plan_step(uint64_t now, uint64_t last_cycles,
                                               uint64_t max_cycles) const {
    const uint64_t whole = std::min<uint64_t>(max_cycles, lookahead());
    const uint64_t half = std::max<uint64_t>(1, whole / 2);
    if (now == 0 || shared_idle())
        return {whole, false, false};
    if (last_cycles > half)
        return {half, false, true};
    return {half, true, false};
}

bool MemorySystem::shared_idle() const {
    for (uint32_t sm = 0; sm < num_sms_; ++sm)
        if (!sm_[sm].outbox.empty() || !links_[sm].requests.empty())
            return false;
    return events_.empty();
}

Token MemorySystem::new_token(uint32_t sm, const WarpAccess &access, uint64_t now) {
    SmSide &side = sm_[sm];
    Token token = take(side.tokens, side.free_tokens);
    side.tokens[token] = TokenState{access.warp, 0, access.kind, now};
    return token;
}

// One more piece of `token` arrived at `when`; the last one completes it.
void MemorySystem::settle(uint32_t sm, Token token, uint64_t when) {
    TokenState &t = sm_[sm].tokens[token];
    t.ready = std::max(t.ready, when);
    if (--t.pending == 0)
        sm_[sm].events.schedule(t.ready, SmEvent{token, SmEventKind::token_done});
}

void MemorySystem::invalidate_l1() {
    for (SmSide &side : sm_) {
        side.l1.invalidate();
        ++side.l1_version;
    }
}

MemoryCounters MemorySystem::totals() const {
    MemoryCounters sum;
    for (const auto &c : counters_)
        sum += c;
    return sum;
}

std::span<const Completion> MemorySystem::tick_sm(uint32_t sm, uint64_t now) {
    SmSide &side = sm_[sm];
    for (Token token : side.completed_tokens)
        side.free_tokens.push_back(token);
    side.completed_tokens.clear();
    side.completions.clear();
    for (const Answer &a : side.inbox) {
        // The steps plan_step() plans guarantee it.
        assert(a.cycle >= side.events.first_open_cycle() && "an answer from L2 arrived late");
        const uint32_t index = take(side.responses, side.free_responses);
        side.responses[index] = a.response;
        side.events.schedule(a.cycle, SmEvent{index, SmEventKind::response});
    }
    side.inbox.clear();
    side.inbox_first = kNever;
    side.events.run_until(now, [&](uint64_t cycle, SmEvent e) { run_sm(sm, cycle, e); });
    return side.completions;
}

void MemorySystem::run_sm(uint32_t sm, uint64_t cycle, SmEvent e) {
    SmSide &side = sm_[sm];
    switch (e.kind) {
    case SmEventKind::token_done: {
        const TokenState &t = side.tokens[e.index];
        side.completions.push_back(Completion{e.index, sm, t.warp, t.kind, cycle});
        side.completed_tokens.push_back(e.index);
        break;
    }
    case SmEventKind::response: {
        const Response response = side.responses[e.index];
        side.free_responses.push_back(e.index);
        respond(sm, response, cycle);
        break;
    }
    }
}

void MemorySystem::advance_shared(uint64_t until) {
    for (uint32_t sm = 0; sm < num_sms_; ++sm) {
        for (const SectorRequest &from : links_[sm].requests) {
            uint32_t index = take(l2_requests_, free_l2_requests_);
            l2_requests_[index] = L2Request{from.line,    sm,          slice_of_line(from.line),
                                            from.l1_line, from.token,  kNone,
                                            kNone,        from.sector, from.ops,
                                            from.kind};
            schedule(from.arrival, EventKind::l2_arrival, index);
        }
        links_[sm].requests.clear();
    }
    events_.run_until(until, [this](uint64_t cycle, Event e) { run(cycle, e); });
}

namespace {
// Appends `from` to `to` and empties it; a swap when `to` is empty, so
// that both keep their capacity.
template <typename T> void hand_over(std::vector<T> &from, std::vector<T> &to) {
    if (to.empty())
        to.swap(from);
    else
        to.insert(to.end(), from.begin(), from.end());
    from.clear();
}
} // namespace

void MemorySystem::exchange() {
    for (uint32_t sm = 0; sm < num_sms_; ++sm) {
        SmSide &side = sm_[sm];
        SmLink &link = links_[sm];
        hand_over(side.outbox, link.requests);
        for (const Answer &a : link.answers)
            side.inbox_first = std::min(side.inbox_first, a.cycle);
        hand_over(link.answers, side.inbox);
    }
}

std::span<const Completion> MemorySystem::tick(uint64_t now) {
    exchange();
    advance_shared(now);
    exchange();
    completions_.clear();
    for (uint32_t sm = 0; sm < num_sms_; ++sm) {
        std::span<const Completion> done = tick_sm(sm, now);
        completions_.insert(completions_.end(), done.begin(), done.end());
    }
    return completions_;
}

void MemorySystem::run(uint64_t cycle, Event e) {
    switch (e.kind) {
    case EventKind::l2_arrival:
        l2_arrival(e.index, cycle);
        break;
    case EventKind::l2_service:
        l2_service(e.index, cycle);
        break;
    case EventKind::dram_wake: {
        dram_reads_.clear();
        uint64_t next = dram_.wake(e.index, cycle, dram_reads_, counters_);
        for (const DramRead &read : dram_reads_)
            schedule(read.cycle + dram_return_, EventKind::dram_fill, uint32_t(read.payload));
        if (next != kNever)
            schedule(next, EventKind::dram_wake, e.index);
        break;
    }
    case EventKind::dram_fill:
        l2_fill(e.index, cycle);
        break;
    }
}

} // namespace simtgpu::sim::mem
