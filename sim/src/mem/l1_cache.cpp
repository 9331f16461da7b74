// The SM side of the memory system (memory_system.h): a warp's access
// coalesced into lines, shared memory's banks, the sectored L1 with its
// MSHRs (hits, misses, merges, refusals when they are full), and L2's
// answers filling L1 lines and settling the warps that wait on them.
#include "mem/memory_system.h"
#include "mem/pool.h"

#include <algorithm>
#include <bit>
#include <cassert>

namespace simtgpu::sim::mem {
namespace {

uint64_t first_address(const WarpAccess &a) {
    return a.active_mask ? a.address[std::countr_zero(a.active_mask)] : 0;
}

} // namespace

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

void MemorySystem::send(uint32_t sm, L2Kind kind, uint64_t line, uint32_t sector, uint64_t arrival,
                        uint32_t l1_line, Token token, uint8_t ops) {
    sm_[sm].outbox.push_back(
        SectorRequest{arrival, line, l1_line, token, uint8_t(sector), ops, kind});
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
