#include "mem/memory_system.h"

#include <algorithm>
#include <bit>
#include <cassert>

namespace simtgpu::sim::mem {
namespace {

constexpr uint32_t kUncached = 0x8000'0000u; // dram_fill index: an L2 request, not a line

template <typename T> uint32_t take(std::vector<T> &pool, std::vector<uint32_t> &free_list) {
    if (!free_list.empty()) {
        uint32_t index = free_list.back();
        free_list.pop_back();
        return index;
    }
    pool.emplace_back();
    return uint32_t(pool.size() - 1);
}

uint64_t first_address(const WarpAccess &a) {
    return a.active_mask ? a.address[std::countr_zero(a.active_mask)] : 0;
}

} // namespace

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
        if (!s.events.empty() || !s.outbox.empty() || !s.inbox.empty() ||
            !link.requests.empty() || !link.answers.empty())
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
            l2_requests_[index] =
                L2Request{from.line, sm,    slice_of_line(from.line), from.l1_line, from.token,
                          kNone,     kNone, from.sector,              from.ops,     from.kind};
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

// ---- issue ----

IssueResult MemorySystem::issue(const WarpAccess &access, uint64_t now) {
    assert(access.sm < num_sms_ && "WarpAccess.sm beyond the SMs this system was built for");
    switch (access.kind) {
    case AccessKind::shared_load:
    case AccessKind::shared_store:
        return issue_shared(access, now);
    case AccessKind::load:
        return issue_load(access, now);
    case AccessKind::store:
    case AccessKind::atomic:
        return issue_store_or_atomic(access, now);
    }
    return {};
}

IssueResult MemorySystem::issue_shared(const WarpAccess &access, uint64_t now) {
    SmSide &side = sm_[access.sm];
    SharedPasses p = shared_passes(access, config_.shared.banks, config_.shared.bank_bytes);
    MemoryCounters &c = counters_[access.sm];
    c.shared_passes += p.passes;
    c.shared_bank_conflicts += p.conflicts;
    uint64_t start = std::max(now, side.lsu_free);
    side.lsu_free = start + p.passes;
    Token token = new_token(access.sm, access, now);
    TokenState &t = side.tokens[token];
    t.ready = start + config_.shared.latency + (p.passes ? p.passes - 1 : 0);
    side.events.schedule(t.ready, SmEvent{token, SmEventKind::token_done});
    return {true, token};
}

void MemorySystem::send(uint32_t sm, L2Kind kind, uint64_t line, uint32_t sector,
                        uint64_t arrival, uint32_t l1_line, Token token, uint8_t ops) {
    sm_[sm].outbox.push_back(SectorRequest{arrival, line, l1_line, token, uint8_t(sector), ops, kind});
}

IssueResult MemorySystem::refuse(const WarpAccess &access) {
    SmSide &side = sm_[access.sm];
    ++counters_[access.sm].mshr_throttles;
    side.last_refusal = Refusal{side.l1_version, first_address(access), access.active_mask,
                                access.warp, access.lane_bytes};
    return {};
}

// A load is refused whole when its misses need more MSHRs than are free, a
// line it waits on already holds mshr_merge accesses, or a set has no line
// to give a missing line (every candidate waits on a fill).
IssueResult MemorySystem::issue_load(const WarpAccess &access, uint64_t now) {
    SmSide &side = sm_[access.sm];
    const Refusal &refused = side.last_refusal;
    if (refused.l1_version == side.l1_version && refused.warp == access.warp &&
        refused.active_mask == access.active_mask && refused.lane_bytes == access.lane_bytes &&
        refused.first_address == first_address(access)) {
        ++counters_[access.sm].mshr_throttles;
        return {};
    }
    CoalescedAccess &lines = side.coalesced;
    coalesce(access, config_.l1.line_bytes, config_.l1.sector_bytes, lines);
    SectoredCache &l1 = side.l1;
    MemoryCounters &c = counters_[access.sm];
    std::array<uint32_t, 2 * kMaxLanes> found;
    uint32_t new_mshrs = 0;
    for (uint32_t i = 0; i < lines.count; ++i) {
        uint32_t set = uint32_t(lines.lines[i].line % l1_sets_);
        found[i] = l1.find(set, lines.lines[i].line);
        if (found[i] == kNone) {
            ++new_mshrs;
            continue;
        }
        const CacheLine &l = l1.line(found[i]);
        uint8_t waits = lines.lines[i].sector_mask & ~l.valid;
        if (waits && l.merged >= config_.l1.mshr_merge)
            return refuse(access);
        new_mshrs += (waits & ~l.pending) && l.pending == 0;
    }
    if (side.mshrs_used + new_mshrs > config_.l1.mshrs)
        return refuse(access);
    for (uint32_t i = 0; i < lines.count; ++i) {
        if (found[i] != kNone)
            continue;
        // Replaceable: lines of the set without fills in flight, less those
        // this access uses itself.
        uint32_t set = uint32_t(lines.lines[i].line % l1_sets_);
        uint32_t needed = 0, replaceable = 0;
        for (uint32_t way = 0; way < l1.ways(); ++way)
            replaceable += l1.line(set * l1.ways() + way).pending == 0;
        for (uint32_t j = 0; j < lines.count; ++j) {
            if (lines.lines[j].line % l1_sets_ != set)
                continue;
            if (found[j] == kNone)
                ++needed;
            else
                replaceable -= l1.line(found[j]).pending == 0;
        }
        if (needed > replaceable)
            return refuse(access);
    }
    ++side.l1_version;
    Token token = new_token(access.sm, access, now);
    uint64_t start = std::max(now, side.lsu_free);
    side.lsu_free = start + lines.count;
    auto serve = [&](uint32_t i, uint32_t index) {
        const LineRequest &request = lines.lines[i];
        CacheLine &l = l1.line(index);
        TokenState &t = side.tokens[token];
        uint64_t looked_up = start + i + config_.l1.hit_latency;
        uint8_t hits = request.sector_mask & l.valid;
        uint8_t waits = request.sector_mask & ~l.valid;
        uint8_t misses = waits & ~l.pending;
        c.l1_sector_hits += std::popcount(hits);
        c.l1_sector_merges += std::popcount(uint8_t(waits & l.pending));
        c.l1_sector_misses += std::popcount(misses);
        if (hits)
            t.ready = std::max(t.ready, looked_up);
        if (waits) {
            uint32_t w = take(side.waiters, side.free_waiters);
            side.waiters[w] = Waiter{token, l.waiters, waits};
            l.waiters = w;
            ++l.merged;
            ++t.pending;
        }
        if (misses) {
            side.mshrs_used += l.pending == 0;
            l.pending |= misses;
            for (uint8_t m = misses; m != 0; m &= m - 1)
                send(access.sm, L2Kind::read, request.line, std::countr_zero(m), looked_up, index,
                     0, 1);
        }
        l1.touch(index);
    };
    // Lines present first, so that allocating the others cannot evict them.
    for (uint32_t i = 0; i < lines.count; ++i)
        if (found[i] != kNone)
            serve(i, found[i]);
    for (uint32_t i = 0; i < lines.count; ++i) {
        if (found[i] != kNone)
            continue;
        uint32_t index = l1.victim(uint32_t(lines.lines[i].line % l1_sets_));
        assert(index != kNone && "issue_load checked for a replaceable line");
        l1.line(index) = CacheLine{};
        l1.line(index).tag = lines.lines[i].line;
        serve(i, index);
    }
    const TokenState &t = side.tokens[token];
    if (t.pending == 0)
        side.events.schedule(t.ready, SmEvent{token, SmEventKind::token_done});
    return {true, token};
}

IssueResult MemorySystem::issue_store_or_atomic(const WarpAccess &access, uint64_t now) {
    SmSide &side = sm_[access.sm];
    CoalescedAccess &lines = side.coalesced;
    coalesce(access, config_.l1.line_bytes, config_.l1.sector_bytes, lines);
    SectoredCache &l1 = side.l1;
    bool atomic = access.kind == AccessKind::atomic;
    Token token = new_token(access.sm, access, now);
    uint64_t start = std::max(now, side.lsu_free);
    side.lsu_free = start + lines.count;
    for (uint32_t i = 0; i < lines.count; ++i) {
        const LineRequest &request = lines.lines[i];
        uint32_t index = l1.find(uint32_t(request.line % l1_sets_), request.line);
        // Atomics happen at L2, so an L1 copy goes stale; so do stores under
        // write-evict. Write-through stores update the copy.
        if (index != kNone && (atomic || config_.l1.write_policy == L1WritePolicy::write_evict)) {
            l1.line(index).valid &= ~request.sector_mask;
            ++side.l1_version;
        }
        for (uint8_t m = request.sector_mask; m != 0; m &= m - 1) {
            uint32_t sector = std::countr_zero(m);
            send(access.sm, atomic ? L2Kind::atomic : L2Kind::store, request.line, sector,
                 start + i + config_.l1.hit_latency, kNone, token,
                 std::max<uint8_t>(1, request.atomic_ops[sector]));
            ++side.tokens[token].pending;
        }
    }
    const TokenState &t = side.tokens[token];
    if (t.pending == 0)
        side.events.schedule(t.ready, SmEvent{token, SmEventKind::token_done});
    return {true, token};
}

// ---- L2 ----

void MemorySystem::l2_arrival(uint32_t request, uint64_t now) {
    uint64_t &port = slice_port_free_[l2_requests_[request].slice];
    uint64_t start = std::max(now, port);
    port = start + 1;
    if (start == now)
        l2_service(request, now);
    else
        schedule(start, EventKind::l2_service, request);
}

void MemorySystem::to_dram(uint64_t line, uint32_t slice, bool write, uint32_t sm, uint64_t payload,
                           uint64_t now) {
    DramLocation where = dram_location_of_line(line, slice);
    uint64_t wake = dram_.enqueue(where, write, sm, payload, now);
    if (wake != kNever)
        schedule(wake, EventKind::dram_wake, where.channel);
}

// A line for `set`, its dirty sectors written back, given the property
// `incoming`; kNone if every line it may replace waits on a fill.
uint32_t MemorySystem::l2_allocate(uint32_t set, uint32_t sm, uint64_t now, L2Property incoming) {
    uint32_t index = l2_policy_.victim(l2_, set, incoming);
    if (index == kNone)
        return kNone;
    CacheLine &l = l2_.line(index);
    if (l.tag != CacheLine::kNoTag) {
        uint32_t slice = set / l2_sets_per_slice_;
        for (uint8_t d = l.dirty; d != 0; d &= d - 1) {
            // The same line, one sector: the DRAM location of the line.
            to_dram(l.tag, slice, true, sm, 0, now);
        }
    }
    l = CacheLine{};
    // Persisting only within the set's limit (a persisting line replaced
    // makes room; an empty or normal one does not).
    l.property = uint8_t(l2_policy_.admit(l2_, set, incoming, false));
    return index;
}

L2Property MemorySystem::l2_classify(const L2Request &r, uint32_t set, uint32_t index, bool hit) {
    L2Property property = L2Property::normal;
    if (!l2_policy_.classify(r.line, property))
        return L2Property::normal;
    if (property == L2Property::persisting && l2_policy_.set_aside_bytes() != 0) {
        MemoryCounters &c = counters_[r.sm];
        (hit ? c.l2_persisting_sector_hits : c.l2_persisting_sector_misses) += 1;
    }
    if (index == kNone) // victim() makes room within the set-aside, if there is one here
        return property == L2Property::persisting && l2_policy_.limit(set) == 0
                   ? L2Property::normal
                   : property;
    CacheLine &l = l2_.line(index);
    l.property = uint8_t(l2_policy_.admit(
        l2_, set, property, l.property == uint8_t(L2Property::persisting)));
    return L2Property(l.property);
}

L2Property MemorySystem::l2_line_property(uint64_t address) const {
    const uint64_t line = address / config_.l1.line_bytes;
    const uint32_t index = l2_.find(l2_set(line, slice_of_line(line)), line);
    return index == kNone ? L2Property::normal : L2Property(l2_.line(index).property);
}

void MemorySystem::l2_service(uint32_t request, uint64_t now) {
    L2Request &r = l2_requests_[request];
    MemoryCounters &c = counters_[r.sm];
    uint32_t set = l2_set(r.line, r.slice);
    uint32_t index = l2_.find(set, r.line);
    uint8_t bit = uint8_t(1u << r.sector);

    if (r.kind == L2Kind::store) {
        // Write-back, allocate on write without fetching: a store fills the
        // sector (the coalescer sends whole sectors).
        bool hit = index != kNone && (l2_.line(index).valid & bit);
        (hit ? c.l2_sector_hits : c.l2_sector_misses) += 1;
        const L2Property incoming = l2_classify(r, set, index, hit);
        if (index == kNone && (index = l2_allocate(set, r.sm, now, incoming)) != kNone)
            l2_.line(index).tag = r.line;
        if (index == kNone) {
            to_dram(r.line, r.slice, true, r.sm, 0, now);
        } else {
            l2_.line(index).valid |= bit;
            l2_.line(index).dirty |= bit;
            l2_.touch(index);
        }
        answer(request, now + l2_return_);
        return;
    }

    const bool hit = index != kNone && (l2_.line(index).valid & bit);
    const L2Property incoming = l2_classify(r, set, index, hit);
    if (hit) {
        ++c.l2_sector_hits;
        l2_.touch(index);
        if (r.kind == L2Kind::atomic)
            perform(request, now);
        else
            answer(request, now + l2_return_);
        return;
    }
    ++c.l2_sector_misses;
    if (index == kNone && (index = l2_allocate(set, r.sm, now, incoming)) != kNone)
        l2_.line(index).tag = r.line;
    if (index == kNone) {
        to_dram(r.line, r.slice, false, r.sm, kUncached | request, now);
        return;
    }
    CacheLine &l = l2_.line(index);
    if (!(l.pending & bit)) {
        l.pending |= bit;
        to_dram(r.line, r.slice, false, r.sm, (uint64_t(index) << 3) | r.sector, now);
    }
    r.l2_line = index;
    r.next = l.waiters;
    l.waiters = request;
    l2_.touch(index);
}

void MemorySystem::l2_fill(uint32_t fill, uint64_t now) {
    auto deliver = [&](uint32_t request) {
        if (l2_requests_[request].kind == L2Kind::atomic)
            perform(request, now);
        else
            answer(request, now + l2_return_);
    };
    if (fill & kUncached) {
        deliver(fill & ~kUncached);
        return;
    }
    uint32_t index = fill >> 3, sector = fill & 7;
    CacheLine &l = l2_.line(index);
    l.valid |= uint8_t(1u << sector);
    l.pending &= uint8_t(~(1u << sector));
    uint32_t *link = &l.waiters;
    while (*link != kNone) {
        uint32_t request = *link;
        if (l2_requests_[request].sector == sector) {
            *link = l2_requests_[request].next;
            deliver(request);
        } else {
            link = &l2_requests_[request].next;
        }
    }
}

// An atomic at its slice's ALU: one operation per cycle, those to the same
// address one after another.
void MemorySystem::perform(uint32_t request, uint64_t now) {
    L2Request &r = l2_requests_[request];
    uint64_t &alu = slice_atomic_free_[r.slice];
    uint64_t start = std::max(now, alu);
    alu = start + r.ops;
    counters_[r.sm].atomic_ops += r.ops;
    uint32_t index = l2_.find(l2_set(r.line, r.slice), r.line);
    if (index != kNone)
        l2_.line(index).dirty |= uint8_t(1u << r.sector);
    else
        to_dram(r.line, r.slice, true, r.sm, 0, now);
    answer(request, alu + l2_return_);
}

void MemorySystem::answer(uint32_t request, uint64_t cycle) {
    const L2Request &r = l2_requests_[request];
    links_[r.sm].answers.push_back(Answer{cycle, Response{r.l1_line, r.token, r.sector, r.kind}});
    free_l2_requests_.push_back(request);
}

void MemorySystem::respond(uint32_t sm, const Response &r, uint64_t now) {
    SmSide &side = sm_[sm];
    if (r.kind != L2Kind::read) {
        settle(sm, r.token, now);
        return;
    }
    CacheLine &l = side.l1.line(r.l1_line);
    uint8_t bit = uint8_t(1u << r.sector);
    l.valid |= bit;
    l.pending &= ~bit;
    if (l.pending == 0) {
        --side.mshrs_used;
        ++side.l1_version; // a refused load may fit now
    }
    uint32_t *link = &l.waiters;
    while (*link != kNone) {
        uint32_t w = *link;
        Waiter &waiter = side.waiters[w];
        if (!(waiter.sectors & bit)) {
            link = &waiter.next;
            continue;
        }
        waiter.sectors &= ~bit;
        if (waiter.sectors != 0) {
            // Its other sectors are still coming; this one's arrival counts.
            TokenState &t = side.tokens[waiter.token];
            t.ready = std::max(t.ready, now);
            link = &waiter.next;
            continue;
        }
        *link = waiter.next;
        --l.merged;
        ++side.l1_version;
        side.free_waiters.push_back(w);
        settle(sm, waiter.token, now);
    }
}

} // namespace simtgpu::sim::mem
