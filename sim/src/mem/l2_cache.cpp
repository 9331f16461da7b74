// The shared side of the memory system (memory_system.h): requests
// arriving at their L2 slice, the slice's tag lookup, allocation and
// write-back, the access policy's persisting lines, misses to DRAM and
// their fills, atomics at the slice's ALU, and the answers sent to the SMs.
#include "mem/memory_system.h"
#include "mem/pool.h"

#include <algorithm>
#include <cassert>

namespace simtgpu::sim::mem {
namespace {

constexpr uint32_t kUncached = 0x8000'0000u; // dram_fill index: an L2 request, not a line

} // namespace

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
        return property == L2Property::persisting && l2_policy_.limit(set) == 0 ? L2Property::normal
                                                                                : property;
    CacheLine &l = l2_.line(index);
    l.property = uint8_t(
        l2_policy_.admit(l2_, set, property, l.property == uint8_t(L2Property::persisting)));
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

} // namespace simtgpu::sim::mem
