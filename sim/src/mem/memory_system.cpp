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
      l1_(num_sms, SectoredCache(l1_sets_, config.l1.assoc)), l1_mshrs_used_(num_sms, 0),
      lsu_free_(num_sms, 0), l1_version_(num_sms, 0), last_refusal_(num_sms),
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
    return events_.next_cycle();
}

Token MemorySystem::new_token(const WarpAccess &access, uint64_t now) {
    Token token = take(tokens_, free_tokens_);
    tokens_[token] = TokenState{access.sm, access.warp, 0, access.kind, now};
    return token;
}

// One more piece of `token` arrived at `when`; the last one completes it.
void MemorySystem::settle(Token token, uint64_t when) {
    TokenState &t = tokens_[token];
    t.ready = std::max(t.ready, when);
    if (--t.pending == 0)
        schedule(t.ready, EventKind::token_done, token);
}

void MemorySystem::invalidate_l1() {
    for (uint32_t sm = 0; sm < num_sms_; ++sm) {
        l1_[sm].invalidate();
        ++l1_version_[sm];
    }
}

MemoryCounters MemorySystem::totals() const {
    MemoryCounters sum;
    for (const auto &c : counters_)
        sum += c;
    return sum;
}

std::span<const Completion> MemorySystem::tick(uint64_t now) {
    for (Token token : completed_tokens_)
        free_tokens_.push_back(token);
    completed_tokens_.clear();
    completions_.clear();
    events_.run_until(now, [this](uint64_t cycle, Event e) { run(cycle, e); });
    return completions_;
}

void MemorySystem::run(uint64_t cycle, Event e) {
    switch (e.kind) {
    case EventKind::token_done: {
        const TokenState &t = tokens_[e.index];
        completions_.push_back(Completion{e.index, t.sm, t.warp, t.kind, cycle});
        completed_tokens_.push_back(e.index);
        break;
    }
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
    case EventKind::response:
        respond(e.index, cycle);
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
    SharedPasses p = shared_passes(access, config_.shared.banks, config_.shared.bank_bytes);
    MemoryCounters &c = counters_[access.sm];
    c.shared_passes += p.passes;
    c.shared_bank_conflicts += p.conflicts;
    uint64_t start = std::max(now, lsu_free_[access.sm]);
    lsu_free_[access.sm] = start + p.passes;
    Token token = new_token(access, now);
    tokens_[token].ready = start + config_.shared.latency + (p.passes ? p.passes - 1 : 0);
    schedule(tokens_[token].ready, EventKind::token_done, token);
    return {true, token};
}

uint32_t MemorySystem::new_l2_request(L2Kind kind, const WarpAccess &access, uint64_t line,
                                      uint32_t sector, uint64_t arrival) {
    uint32_t index = take(l2_requests_, free_l2_requests_);
    L2Request &r = l2_requests_[index];
    r = L2Request{};
    r.kind = kind;
    r.line = line;
    r.sm = access.sm;
    r.slice = slice_of_line(line);
    r.l2_line = kNone;
    r.next = kNone;
    r.sector = uint8_t(sector);
    r.ops = 1;
    schedule(arrival, EventKind::l2_arrival, index);
    return index;
}

IssueResult MemorySystem::refuse(const WarpAccess &access) {
    ++counters_[access.sm].mshr_throttles;
    last_refusal_[access.sm] = Refusal{l1_version_[access.sm], first_address(access),
                                       access.active_mask, access.warp, access.lane_bytes};
    return {};
}

// A load is refused whole when its misses need more MSHRs than are free, a
// line it waits on already holds mshr_merge accesses, or a set has no line
// to give a missing line (every candidate waits on a fill).
IssueResult MemorySystem::issue_load(const WarpAccess &access, uint64_t now) {
    const Refusal &refused = last_refusal_[access.sm];
    if (refused.l1_version == l1_version_[access.sm] && refused.warp == access.warp &&
        refused.active_mask == access.active_mask && refused.lane_bytes == access.lane_bytes &&
        refused.first_address == first_address(access)) {
        ++counters_[access.sm].mshr_throttles;
        return {};
    }
    CoalescedAccess &lines = coalesced_;
    coalesce(access, config_.l1.line_bytes, config_.l1.sector_bytes, lines);
    SectoredCache &l1 = l1_[access.sm];
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
    if (l1_mshrs_used_[access.sm] + new_mshrs > config_.l1.mshrs)
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
    ++l1_version_[access.sm];
    Token token = new_token(access, now);
    TokenState &t = tokens_[token];
    uint64_t start = std::max(now, lsu_free_[access.sm]);
    lsu_free_[access.sm] = start + lines.count;
    auto serve = [&](uint32_t i, uint32_t index) {
        const LineRequest &request = lines.lines[i];
        CacheLine &l = l1.line(index);
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
            uint32_t w = take(waiters_, free_waiters_);
            waiters_[w] = Waiter{token, l.waiters, waits};
            l.waiters = w;
            ++l.merged;
            ++t.pending;
        }
        if (misses) {
            l1_mshrs_used_[access.sm] += l.pending == 0;
            l.pending |= misses;
            for (uint8_t m = misses; m != 0; m &= m - 1) {
                uint32_t r = new_l2_request(L2Kind::read, access, request.line, std::countr_zero(m),
                                            looked_up);
                l2_requests_[r].l1_line = index;
            }
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
    if (t.pending == 0)
        schedule(t.ready, EventKind::token_done, token);
    return {true, token};
}

IssueResult MemorySystem::issue_store_or_atomic(const WarpAccess &access, uint64_t now) {
    CoalescedAccess &lines = coalesced_;
    coalesce(access, config_.l1.line_bytes, config_.l1.sector_bytes, lines);
    SectoredCache &l1 = l1_[access.sm];
    bool atomic = access.kind == AccessKind::atomic;
    Token token = new_token(access, now);
    uint64_t start = std::max(now, lsu_free_[access.sm]);
    lsu_free_[access.sm] = start + lines.count;
    for (uint32_t i = 0; i < lines.count; ++i) {
        const LineRequest &request = lines.lines[i];
        uint32_t index = l1.find(uint32_t(request.line % l1_sets_), request.line);
        // Atomics happen at L2, so an L1 copy goes stale; so do stores under
        // write-evict. Write-through stores update the copy.
        if (index != kNone && (atomic || config_.l1.write_policy == L1WritePolicy::write_evict)) {
            l1.line(index).valid &= ~request.sector_mask;
            ++l1_version_[access.sm];
        }
        for (uint8_t m = request.sector_mask; m != 0; m &= m - 1) {
            uint32_t sector = std::countr_zero(m);
            uint32_t r = new_l2_request(atomic ? L2Kind::atomic : L2Kind::store, access,
                                        request.line, sector, start + i + config_.l1.hit_latency);
            l2_requests_[r].token = token;
            l2_requests_[r].ops = std::max<uint8_t>(1, request.atomic_ops[sector]);
            ++tokens_[token].pending;
        }
    }
    if (tokens_[token].pending == 0)
        schedule(tokens_[token].ready, EventKind::token_done, token);
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
        schedule(now + l2_return_, EventKind::response, request);
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
            schedule(now + l2_return_, EventKind::response, request);
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
            schedule(now + l2_return_, EventKind::response, request);
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
    schedule(alu + l2_return_, EventKind::response, request);
}

void MemorySystem::respond(uint32_t request, uint64_t now) {
    L2Request r = l2_requests_[request];
    free_l2_requests_.push_back(request);
    if (r.kind != L2Kind::read) {
        settle(r.token, now);
        return;
    }
    CacheLine &l = l1_[r.sm].line(r.l1_line);
    uint8_t bit = uint8_t(1u << r.sector);
    l.valid |= bit;
    l.pending &= ~bit;
    if (l.pending == 0) {
        --l1_mshrs_used_[r.sm];
        ++l1_version_[r.sm]; // a refused load may fit now
    }
    uint32_t *link = &l.waiters;
    while (*link != kNone) {
        uint32_t w = *link;
        Waiter &waiter = waiters_[w];
        if (!(waiter.sectors & bit)) {
            link = &waiter.next;
            continue;
        }
        waiter.sectors &= ~bit;
        if (waiter.sectors != 0) {
            // Its other sectors are still coming; this one's arrival counts.
            TokenState &t = tokens_[waiter.token];
            t.ready = std::max(t.ready, now);
            link = &waiter.next;
            continue;
        }
        *link = waiter.next;
        --l.merged;
        ++l1_version_[r.sm];
        free_waiters_.push_back(w);
        settle(waiter.token, now);
    }
}

} // namespace simtgpu::sim::mem
