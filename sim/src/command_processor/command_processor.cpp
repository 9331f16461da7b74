#include "command_processor/command_processor.h"

#include "device/mmu.h"
#include "simtgpu/hw.h"
#include "simtgpu/occupancy.h"

#include <algorithm>
#include <atomic>
#include <cstring>

namespace simtgpu::sim {
namespace {

template <typename Body> constexpr uint32_t body_dwords() {
    static_assert(sizeof(Body) % 4 == 0);
    return sizeof(Body) / 4;
}

// Body length each opcode requires; nullopt for unknown opcodes (NOP takes
// any length).
std::optional<uint32_t> required_body(uint32_t opcode) {
    switch (opcode) {
    case SIMTGPU_PKT_SET_CONTEXT:
        return body_dwords<simtgpu_pkt_set_context>();
    case SIMTGPU_PKT_INDIRECT:
        return body_dwords<simtgpu_pkt_indirect>();
    case SIMTGPU_PKT_LAUNCH:
        return body_dwords<simtgpu_pkt_launch>();
    case SIMTGPU_PKT_COPY:
        return body_dwords<simtgpu_pkt_copy>();
    case SIMTGPU_PKT_FILL:
        return body_dwords<simtgpu_pkt_fill>();
    case SIMTGPU_PKT_L2_POLICY:
        return body_dwords<simtgpu_pkt_l2_policy>();
    case SIMTGPU_PKT_FENCE:
        return body_dwords<simtgpu_pkt_fence>();
    case SIMTGPU_PKT_TIMESTAMP:
        return body_dwords<simtgpu_pkt_timestamp>();
    default:
        return std::nullopt;
    }
}

uint32_t allowed_flags(uint32_t opcode) {
    switch (opcode) {
    case SIMTGPU_PKT_FENCE:
        return SIMTGPU_PKTF_IRQ | SIMTGPU_PKTF_PHYSICAL;
    case SIMTGPU_PKT_TIMESTAMP:
        return SIMTGPU_PKTF_PHYSICAL;
    case SIMTGPU_PKT_L2_POLICY:
        return SIMTGPU_PKTF_L2_WINDOW | SIMTGPU_PKTF_L2_SET_ASIDE | SIMTGPU_PKTF_L2_RESET;
    default:
        return 0;
    }
}

template <typename Body> Body decode(const uint32_t *dwords) {
    Body b;
    std::memcpy(&b, dwords, sizeof b);
    return b;
}

Exception packet_exception(uint32_t kind, uint32_t detail) {
    Exception e;
    e.kind = kind;
    e.detail = detail;
    return e;
}

Exception fault_exception(const MemoryFault &f) {
    Exception e;
    e.kind = SIMTGPU_EXC_PAGE_FAULT;
    e.detail = f.fault;
    e.access = f.access;
    e.address = f.address;
    return e;
}

class VectorSource final : public DwordSource {
public:
    VectorSource(const uint32_t *data, uint32_t n) : data_(data), n_(n) {}
    uint32_t size() const override { return n_; }
    uint32_t at(uint32_t i) const override { return data_[i]; }

private:
    const uint32_t *data_;
    uint32_t n_;
};

// The part of a window after the dwords a step already used.
class WindowRest final : public DwordSource {
public:
    WindowRest(const DwordSource &src, uint32_t skip) : src_(src), skip_(skip) {}
    uint32_t size() const override { return src_.size() - skip_; }
    uint32_t at(uint32_t i) const override { return src_.at(skip_ + i); }

private:
    const DwordSource &src_;
    uint32_t skip_;
};

} // namespace

CommandProcessor::CommandProcessor(const DeviceConfig &config, const Vram &vram,
                                   const HostBus &bus, GridScheduler &scheduler,
                                   EngineCounters &counters)
    : config_(config), vram_(vram), bus_(bus), scheduler_(scheduler), counters_(counters) {}

uint64_t CommandProcessor::timer_ns() const {
    return uint64_t((unsigned __int128)counters_.cycles * 1'000'000 / config_.clock_khz);
}

RingStep CommandProcessor::advance(const RingSetup &setup, const DwordSource &ring,
                                   RingCursor &cursor, uint32_t budget) {
    RingStep out;
    // The INDIRECT or LAUNCH at HEAD is over: HEAD moves past it.
    auto ring_packet_done = [&] {
        out.ring_dwords += cursor.ring_packet_dwords;
        cursor.ring_packet_dwords = 0;
        cursor.in_ib = false;
        cursor.ib.clear();
        cursor.l2_window = {};
        ++cursor.packets_completed;
        ++counters_.packets;
    };
    auto fail = [&](const Exception &e) {
        out.exception = e;
        out.exception_offset = 4 * out.ring_dwords;
        ring_packet_done();
    };

    if (cursor.grid) {
        Grid &grid = *cursor.grid;
        if (grid.state != GridState::Done)
            return out;
        LaunchOutcome outcome = grid.outcome;
        if (auto f = write_report(outcome, grid.report_va, *grid.memory); f && !outcome.exception)
            outcome.exception = f;
        counters_.dma_bytes += grid.memory->dma_bytes() - grid.dma_counted;
        cursor.grids_progress += grid.progress();
        cursor.grid = nullptr;
        scheduler_.retire(&grid);
        out.finished = outcome;
        if (outcome.exception) {
            fail(*outcome.exception);
            return out;
        }
        if (!cursor.in_ib)
            ring_packet_done();
        else
            ++cursor.packets_completed;
    }

    for (uint32_t n = 0; n < budget; ++n) {
        if (cursor.in_ib) {
            if (cursor.ib_at == cursor.ib.size()) {
                ring_packet_done();
                continue;
            }
            VectorSource rest(cursor.ib.data() + cursor.ib_at,
                              uint32_t(cursor.ib.size()) - cursor.ib_at);
            const Step s = execute(rest, false, setup, cursor);
            cursor.ib_at += s.dwords;
            if (s.exception) {
                fail(*s.exception);
                return out;
            }
            out.fence_irq |= s.fence_irq;
            if (s.grid) {
                cursor.grid = s.grid;
                return out;
            }
            ++cursor.packets_completed;
            continue;
        }
        const WindowRest rest(ring, out.ring_dwords);
        if (rest.size() == 0)
            return out;
        Step s = execute(rest, true, setup, cursor);
        ++counters_.packets;
        if (s.exception) {
            out.exception = s.exception;
            out.exception_offset = 4 * out.ring_dwords;
            out.ring_dwords += s.dwords;
            return out;
        }
        if (s.context)
            cursor.context = *s.context;
        out.fence_irq |= s.fence_irq;
        if (s.indirect || s.grid) {
            --counters_.packets; // counted when it completes
            cursor.ring_packet_dwords = s.dwords;
            cursor.grid = s.grid;
            if (s.grid)
                return out;
            continue;
        }
        out.ring_dwords += s.dwords;
        ++cursor.packets_completed;
    }
    return out;
}

uint32_t CommandProcessor::abort(RingCursor &cursor) {
    if (cursor.grid) {
        scheduler_.abort(*cursor.grid);
        cursor.grids_progress += cursor.grid->progress();
        scheduler_.retire(cursor.grid);
        cursor.grid = nullptr;
    }
    const uint32_t dwords = cursor.ring_packet_dwords;
    cursor.ring_packet_dwords = 0;
    cursor.in_ib = false;
    cursor.ib.clear();
    return dwords;
}

CommandProcessor::Step CommandProcessor::execute(const DwordSource &src, bool privileged,
                                                 const RingSetup &setup, RingCursor &cursor) {
    Step step;
    const uint32_t header = src.at(0);
    const uint32_t opcode = SIMTGPU_PKT_OPCODE(header);
    const uint32_t flags = SIMTGPU_PKT_FLAGS(header);
    const uint32_t length = SIMTGPU_PKT_BODY_DWORDS(header);
    counters_.cycles += kPacketCycles;
    counters_.sample_cycles += kPacketCycles;

    // A packet that runs past the end of what was submitted is malformed;
    // skipping all of it is the only place to resume from.
    if (length > src.size() - 1) {
        step.dwords = src.size();
        step.exception = packet_exception(SIMTGPU_EXC_BAD_PACKET, header);
        return step;
    }
    step.dwords = 1 + length;
    const std::optional<uint32_t> required = required_body(opcode);
    if (opcode != SIMTGPU_PKT_NOP &&
        (!required || *required != length || (flags & ~allowed_flags(opcode)))) {
        step.exception = packet_exception(SIMTGPU_EXC_BAD_PACKET, header);
        return step;
    }
    if (opcode == SIMTGPU_PKT_NOP) {
        if (flags)
            step.exception = packet_exception(SIMTGPU_EXC_BAD_PACKET, header);
        return step;
    }
    // PHYSICAL is FENCE's and TIMESTAMP's flag; other opcodes use the bit otherwise.
    const bool physical = (opcode == SIMTGPU_PKT_FENCE || opcode == SIMTGPU_PKT_TIMESTAMP) &&
                          (flags & SIMTGPU_PKTF_PHYSICAL);
    const bool needs_privilege =
        opcode == SIMTGPU_PKT_SET_CONTEXT || opcode == SIMTGPU_PKT_INDIRECT || physical;
    if (needs_privilege && !privileged) {
        step.exception = packet_exception(SIMTGPU_EXC_PRIVILEGED_PACKET, header);
        return step;
    }

    uint32_t body[32];
    for (uint32_t i = 0; i < length; ++i)
        body[i] = src.at(1 + i);

    const RingContext &context = cursor.context;
    Step result;
    switch (opcode) {
    case SIMTGPU_PKT_SET_CONTEXT: {
        const auto p = decode<simtgpu_pkt_set_context>(body);
        if (p.reserved || p.page_table % SIMTGPU_PAGE_SIZE ||
            !vram_.contains(p.page_table, SIMTGPU_PAGE_SIZE)) {
            result.exception = packet_exception(SIMTGPU_EXC_BAD_PACKET, header);
            break;
        }
        result.context = RingContext{true, p.context_id, p.page_table};
        break;
    }
    case SIMTGPU_PKT_INDIRECT:
        result = indirect(header, body, cursor);
        break;
    case SIMTGPU_PKT_LAUNCH:
        result = launch(body, setup, context, cursor.l2_window);
        break;
    case SIMTGPU_PKT_L2_POLICY:
        result = l2_policy(header, body, cursor);
        break;
    case SIMTGPU_PKT_COPY:
        result = copy(body, context);
        break;
    case SIMTGPU_PKT_FILL:
        result = fill(header, body, context);
        break;
    case SIMTGPU_PKT_FENCE: {
        const auto p = decode<simtgpu_pkt_fence>(body);
        result = write_u64(header, p.addr, p.value, context);
        result.fence_irq = !result.exception && (flags & SIMTGPU_PKTF_IRQ);
        break;
    }
    case SIMTGPU_PKT_TIMESTAMP: {
        const auto p = decode<simtgpu_pkt_timestamp>(body);
        result = write_u64(header, p.addr, timer_ns(), context);
        break;
    }
    }
    result.dwords = step.dwords;
    return result;
}

// Fetches the whole buffer into the cursor; the ring then executes it
// packet by packet on later calls of advance().
CommandProcessor::Step CommandProcessor::indirect(uint32_t header, const uint32_t *body,
                                                  RingCursor &cursor) {
    Step step;
    const auto p = decode<simtgpu_pkt_indirect>(body);
    if (p.reserved || p.va % 4 || p.dwords > kMaxIndirectDwords) {
        step.exception = packet_exception(SIMTGPU_EXC_BAD_PACKET, header);
        return step;
    }
    const RingContext &context = cursor.context;
    ContextMemory memory(vram_, bus_, context.valid ? std::optional(context.page_table)
                                                    : std::nullopt);
    std::vector<uint32_t> ib(p.dwords);
    if (auto f = memory.read(p.va, ib.data(), uint64_t(p.dwords) * 4)) {
        counters_.dma_bytes += memory.dma_bytes();
        step.exception = fault_exception(*f);
        return step;
    }
    counters_.dma_bytes += memory.dma_bytes();
    cursor.ib = std::move(ib);
    cursor.ib_at = 0;
    cursor.in_ib = true;
    cursor.l2_window = {};
    step.indirect = true;
    return step;
}

// Why a LAUNCH packet cannot run, or nullopt.
std::optional<Exception> CommandProcessor::refuse_launch(const simtgpu_pkt_launch &p,
                                                         const RingSetup &setup) const {
    auto bad_launch = [](uint32_t why) { return packet_exception(SIMTGPU_EXC_BAD_LAUNCH, why); };
    if (p.reserved)
        return bad_launch(SIMTGPU_LAUNCH_ERR_FLAGS);
    if (p.arch > config_.arch)
        return packet_exception(SIMTGPU_EXC_ARCH_MISMATCH, p.arch);
    const uint64_t threads = uint64_t(p.block[0]) * p.block[1] * p.block[2];
    if (!p.grid[0] || !p.grid[1] || !p.grid[2] || !p.block[0] || !p.block[1] || !p.block[2] ||
        p.grid[0] > kMaxGridX || p.grid[1] > kMaxGridYZ || p.grid[2] > kMaxGridYZ ||
        threads > config_.max_threads_per_cta)
        return bad_launch(SIMTGPU_LAUNCH_ERR_GEOMETRY);
    if (p.shared_bytes > config_.shared_bytes_per_sm)
        return bad_launch(SIMTGPU_LAUNCH_ERR_SHARED);
    if (p.stack_bytes > config_.max_stack_per_thread || p.stack_bytes % 16)
        return bad_launch(SIMTGPU_LAUNCH_ERR_STACK);
    const simtgpu_sm_resources resources{config_.warps_per_sm, config_.warp_size,
                                         config_.ctas_per_sm, config_.shared_bytes_per_sm};
    if (simtgpu_max_ctas_per_sm(&resources, uint32_t(threads), p.shared_bytes) == 0)
        return bad_launch(SIMTGPU_LAUNCH_ERR_SHARED); // only granule rounding fails here
    if (std::find(setup.sm_allowed.begin(), setup.sm_allowed.end(), true) ==
        setup.sm_allowed.end())
        return bad_launch(SIMTGPU_LAUNCH_ERR_SM_MASK);
    return std::nullopt;
}

CommandProcessor::Step CommandProcessor::launch(const uint32_t *body, const RingSetup &setup,
                                                const RingContext &context,
                                                const mem::L2AccessWindow &l2_window) {
    Step step;
    const auto p = decode<simtgpu_pkt_launch>(body);
    auto memory = std::make_unique<ContextMemory>(
        vram_, bus_, context.valid ? std::optional(context.page_table) : std::nullopt);
    step.exception = refuse_launch(p, setup);
    if (!step.exception && !context.valid)
        step.exception = fault_exception({SIMTGPU_FAULT_NO_CONTEXT, SIMTGPU_ACCESS_EXEC, p.entry_pc});
    if (step.exception) {
        // A refused launch still reports, so the driver sees why.
        if (context.valid) {
            LaunchOutcome refused;
            refused.exception = step.exception;
            if (auto f = write_report(refused, p.report_va, *memory))
                step.exception = step.exception ? step.exception : f;
            counters_.dma_bytes += memory->dma_bytes();
        }
        return step;
    }

    auto grid = std::make_unique<Grid>();
    grid->ring = setup.index;
    grid->priority = setup.priority;
    grid->desc.entry_pc = p.entry_pc;
    grid->desc.param_va = p.param_va;
    std::copy_n(p.grid, 3, grid->desc.grid.begin());
    std::copy_n(p.block, 3, grid->desc.block.begin());
    grid->desc.shared_bytes = p.shared_bytes;
    grid->desc.stack_bytes = p.stack_bytes;
    grid->desc.env_va = p.env_va;
    grid->desc.grid_id = uint32_t(counters_.launches);
    grid->report_va = p.report_va;
    grid->address_space = context.page_table;
    grid->context_id = context.id;
    grid->memory = std::move(memory);
    grid->sm_allowed = setup.sm_allowed;
    grid->l2_window = l2_window;
    const simtgpu_sm_resources resources{config_.warps_per_sm, config_.warp_size,
                                         config_.ctas_per_sm, config_.shared_bytes_per_sm};
    grid->ctas_per_sm =
        simtgpu_max_ctas_per_sm(&resources, grid->desc.threads_per_cta(), p.shared_bytes);
    ++counters_.launches;
    step.grid = scheduler_.add(std::move(grid), counters_.cycles);
    return step;
}

std::optional<Exception> CommandProcessor::write_report(const LaunchOutcome &outcome,
                                                        uint64_t report_va,
                                                        ContextMemory &memory) {
    if (!report_va)
        return std::nullopt;
    simtgpu_launch_report report{};
    report.exit_status = outcome.exits.status;
    report.nonzero_exits = outcome.exits.nonzero_exits;
    std::copy_n(outcome.exits.ctaid.begin(), 3, report.ctaid);
    std::copy_n(outcome.exits.tid.begin(), 3, report.tid);
    report.exception = outcome.exception ? outcome.exception->kind : 0;
    report.cycles = outcome.cycles;
    report.thread_instructions = outcome.thread_instructions;
    if (auto f = memory.write(report_va, &report, sizeof report))
        return fault_exception(*f);
    return std::nullopt;
}

CommandProcessor::Step CommandProcessor::copy(const uint32_t *body, const RingContext &context) {
    Step step;
    const auto p = decode<simtgpu_pkt_copy>(body);
    ContextMemory memory(vram_, bus_, context.valid ? std::optional(context.page_table)
                                                    : std::nullopt);
    std::vector<uint8_t> bounce(std::min<uint64_t>(p.bytes, 64 << 10));
    for (uint64_t done = 0; done < p.bytes;) {
        const uint64_t chunk = std::min<uint64_t>(bounce.size(), p.bytes - done);
        auto f = memory.read(p.src_va + done, bounce.data(), chunk);
        if (!f)
            f = memory.write(p.dst_va + done, bounce.data(), chunk);
        if (f) {
            step.exception = fault_exception(*f);
            break;
        }
        done += chunk;
    }
    counters_.dma_bytes += memory.dma_bytes();
    counters_.cycles += p.bytes / kCopyBytesPerCycle;
    counters_.sample_cycles += p.bytes / kCopyBytesPerCycle;
    return step;
}

CommandProcessor::Step CommandProcessor::fill(uint32_t header, const uint32_t *body,
                                              const RingContext &context) {
    Step step;
    const auto p = decode<simtgpu_pkt_fill>(body);
    if (p.reserved || p.dst_va % 4 || p.bytes % 4) {
        step.exception = packet_exception(SIMTGPU_EXC_BAD_PACKET, header);
        return step;
    }
    ContextMemory memory(vram_, bus_, context.valid ? std::optional(context.page_table)
                                                    : std::nullopt);
    if (p.pattern == 0) {
        // Zeros (cudaMemset's usual pattern) give whole VRAM pages back.
        if (auto f = memory.zero(p.dst_va, p.bytes))
            step.exception = fault_exception(*f);
    } else {
        std::vector<uint32_t> pattern(std::min<uint64_t>(p.bytes / 4, 16 << 10), p.pattern);
        for (uint64_t done = 0; done < p.bytes;) {
            const uint64_t chunk = std::min<uint64_t>(pattern.size() * 4, p.bytes - done);
            if (auto f = memory.write(p.dst_va + done, pattern.data(), chunk)) {
                step.exception = fault_exception(*f);
                break;
            }
            done += chunk;
        }
    }
    counters_.dma_bytes += memory.dma_bytes();
    counters_.cycles += p.bytes / kCopyBytesPerCycle;
    counters_.sample_cycles += p.bytes / kCopyBytesPerCycle;
    return step;
}

// L2 access management: every value is checked before anything changes.
CommandProcessor::Step CommandProcessor::l2_policy(uint32_t header, const uint32_t *body,
                                                   RingCursor &cursor) {
    Step step;
    const auto p = decode<simtgpu_pkt_l2_policy>(body);
    const uint32_t flags = SIMTGPU_PKT_FLAGS(header);
    const auto &l2 = config_.memory.l2;
    const bool supported = config_.model == Model::timing && l2.persisting_max_bytes != 0;
    auto bad = [&](uint32_t why) {
        step.exception = packet_exception(SIMTGPU_EXC_BAD_L2_POLICY, why);
        return step;
    };
    auto property = [](uint32_t v) {
        return v == SIMTGPU_L2_PROP_NORMAL || v == SIMTGPU_L2_PROP_STREAMING ||
               v == SIMTGPU_L2_PROP_PERSISTING;
    };
    if (flags == 0 || p.reserved)
        return bad(SIMTGPU_L2_POLICY_ERR_FLAGS);
    if (!supported)
        return bad(SIMTGPU_L2_POLICY_ERR_UNSUPPORTED);
    if (flags & SIMTGPU_PKTF_L2_WINDOW) {
        if (p.bytes > l2.access_window_max_bytes || p.base_va + p.bytes < p.base_va)
            return bad(SIMTGPU_L2_POLICY_ERR_WINDOW);
        if (p.hit_ratio > SIMTGPU_L2_HIT_RATIO_ONE)
            return bad(SIMTGPU_L2_POLICY_ERR_HIT_RATIO);
        if (!property(p.hit_prop) || !property(p.miss_prop))
            return bad(SIMTGPU_L2_POLICY_ERR_PROPERTY);
    }
    if ((flags & SIMTGPU_PKTF_L2_SET_ASIDE) && p.set_aside_bytes > l2.persisting_max_bytes)
        return bad(SIMTGPU_L2_POLICY_ERR_SET_ASIDE);

    if (flags & SIMTGPU_PKTF_L2_WINDOW)
        cursor.l2_window = p.bytes == 0 ? mem::L2AccessWindow{}
                                        : mem::L2AccessWindow{p.base_va, p.bytes, p.hit_ratio,
                                                              mem::L2Property(p.hit_prop),
                                                              mem::L2Property(p.miss_prop)};
    if (flags & SIMTGPU_PKTF_L2_SET_ASIDE)
        scheduler_.set_l2_set_aside(p.set_aside_bytes);
    if (flags & SIMTGPU_PKTF_L2_RESET)
        scheduler_.reset_persisting_l2();
    return step;
}

CommandProcessor::Step CommandProcessor::write_u64(uint32_t header, uint64_t addr, uint64_t value,
                                                   const RingContext &context) {
    Step step;
    if (addr % 8) {
        step.exception = packet_exception(SIMTGPU_EXC_BAD_PACKET, header);
        return step;
    }
    if (SIMTGPU_PKT_FLAGS(header) & SIMTGPU_PKTF_PHYSICAL) {
        if (!vram_.contains(addr, 8)) {
            step.exception = packet_exception(SIMTGPU_EXC_BAD_PACKET, header);
            return step;
        }
        // Drivers poll fence values from other threads: publish with release.
        std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t *>(vram_.data() + addr))
            .store(value, std::memory_order_release);
        return step;
    }
    ContextMemory memory(vram_, bus_, context.valid ? std::optional(context.page_table)
                                                    : std::nullopt);
    if (auto f = memory.write(addr, &value, 8))
        step.exception = fault_exception(*f);
    counters_.dma_bytes += memory.dma_bytes();
    return step;
}

} // namespace simtgpu::sim
