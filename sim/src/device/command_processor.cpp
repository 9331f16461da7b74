#include "device/command_processor.h"

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

} // namespace

CommandProcessor::CommandProcessor(const DeviceConfig &config, const Vram &vram,
                                   const HostBus &bus, Dispatcher &dispatcher,
                                   EngineCounters &counters, std::function<bool()> progress)
    : config_(config), vram_(vram), bus_(bus), dispatcher_(dispatcher), counters_(counters),
      progress_(std::move(progress)) {}

uint64_t CommandProcessor::timer_ns() const {
    return uint64_t((unsigned __int128)counters_.device_cycles * 1'000'000 / config_.clock_khz);
}

PacketResult CommandProcessor::execute_ring_packet(const DwordSource &ring,
                                                   const RingContext &context) {
    Step s = execute(ring, true, context);
    ++counters_.packets;
    return PacketResult{s.dwords, s.exception, s.fence_irq, s.context};
}

CommandProcessor::Step CommandProcessor::execute(const DwordSource &src, bool privileged,
                                                 const RingContext &context) {
    Step step;
    const uint32_t header = src.at(0);
    const uint32_t opcode = SIMTGPU_PKT_OPCODE(header);
    const uint32_t flags = SIMTGPU_PKT_FLAGS(header);
    const uint32_t length = SIMTGPU_PKT_BODY_DWORDS(header);
    counters_.device_cycles += kPacketCycles;
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
    const bool needs_privilege = opcode == SIMTGPU_PKT_SET_CONTEXT ||
                                 opcode == SIMTGPU_PKT_INDIRECT ||
                                 (flags & SIMTGPU_PKTF_PHYSICAL);
    if (needs_privilege && !privileged) {
        step.exception = packet_exception(SIMTGPU_EXC_PRIVILEGED_PACKET, header);
        return step;
    }

    uint32_t body[32];
    for (uint32_t i = 0; i < length; ++i)
        body[i] = src.at(1 + i);

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
        result = indirect(header, body, context);
        break;
    case SIMTGPU_PKT_LAUNCH:
        result = launch(body, context);
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

CommandProcessor::Step CommandProcessor::indirect(uint32_t header, const uint32_t *body,
                                                  const RingContext &context) {
    Step step;
    const auto p = decode<simtgpu_pkt_indirect>(body);
    if (p.reserved || p.va % 4 || p.dwords > kMaxIndirectDwords) {
        step.exception = packet_exception(SIMTGPU_EXC_BAD_PACKET, header);
        return step;
    }
    ContextMemory memory(vram_, bus_, context.valid ? std::optional(context.page_table)
                                                    : std::nullopt);
    std::vector<uint32_t> ib(p.dwords);
    if (auto f = memory.read(p.va, ib.data(), uint64_t(p.dwords) * 4)) {
        counters_.dma_bytes += memory.dma_bytes();
        step.exception = fault_exception(*f);
        return step;
    }
    counters_.dma_bytes += memory.dma_bytes();

    uint32_t at = 0;
    while (at < ib.size()) {
        VectorSource rest(ib.data() + at, uint32_t(ib.size()) - at);
        Step inner = execute(rest, false, context);
        if (inner.exception) {
            step.exception = inner.exception;
            return step;
        }
        step.fence_irq |= inner.fence_irq;
        at += inner.dwords;
        if (!progress_())
            break;
    }
    return step;
}

// Why a LAUNCH packet cannot run, or nullopt.
std::optional<Exception> CommandProcessor::refuse_launch(const simtgpu_pkt_launch &p) const {
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
    return std::nullopt;
}

CommandProcessor::Step CommandProcessor::launch(const uint32_t *body, const RingContext &context) {
    Step step;
    const auto p = decode<simtgpu_pkt_launch>(body);
    ContextMemory memory(vram_, bus_, context.valid ? std::optional(context.page_table)
                                                    : std::nullopt);
    LaunchOutcome outcome;
    step.exception = refuse_launch(p);
    if (!step.exception && !context.valid)
        step.exception = fault_exception({SIMTGPU_FAULT_NO_CONTEXT, SIMTGPU_ACCESS_EXEC, p.entry_pc});
    if (!step.exception) {
        LaunchDesc desc;
        desc.entry_pc = p.entry_pc;
        desc.param_va = p.param_va;
        std::copy_n(p.grid, 3, desc.grid.begin());
        std::copy_n(p.block, 3, desc.block.begin());
        desc.shared_bytes = p.shared_bytes;
        desc.stack_bytes = p.stack_bytes;
        desc.env_va = p.env_va;
        desc.grid_id = uint32_t(counters_.launches);
        ++counters_.launches;

        // Counters advance per quantum, so they move during a long launch.
        uint64_t busy_seen = dispatcher_.total_stats().busy_cycles;
        uint64_t dma_seen = 0;
        outcome = dispatcher_.run(desc, memory, counters_.device_cycles,
                                  [&](uint64_t cycles, uint32_t ctas) {
                                      counters_.device_cycles += cycles;
                                      counters_.sample_cycles += cycles;
                                      counters_.ctas += ctas;
                                      const uint64_t busy_now = dispatcher_.total_stats().busy_cycles;
                                      counters_.sample_sm_busy += busy_now - busy_seen;
                                      busy_seen = busy_now;
                                      counters_.dma_bytes += memory.dma_bytes() - dma_seen;
                                      dma_seen = memory.dma_bytes();
                                      return progress_();
                                  });
        counters_.dma_bytes += memory.dma_bytes() - dma_seen;
        step.exception = outcome.exception;
        last_launch_ = outcome;
        if (outcome.cancelled)
            return step; // device reset: nothing more to write
    }

    if (p.report_va && context.valid) {
        simtgpu_launch_report report{};
        report.exit_status = outcome.exits.status;
        report.nonzero_exits = outcome.exits.nonzero_exits;
        std::copy_n(outcome.exits.ctaid.begin(), 3, report.ctaid);
        std::copy_n(outcome.exits.tid.begin(), 3, report.tid);
        report.exception = step.exception ? step.exception->kind : 0;
        report.cycles = outcome.cycles;
        report.thread_instructions = outcome.thread_instructions;
        const uint64_t dma_before = memory.dma_bytes();
        auto f = memory.write(p.report_va, &report, sizeof report);
        counters_.dma_bytes += memory.dma_bytes() - dma_before;
        if (f && !step.exception)
            step.exception = fault_exception(*f);
    }
    return step;
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
    counters_.device_cycles += p.bytes / kCopyBytesPerCycle;
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
    std::vector<uint32_t> pattern(std::min<uint64_t>(p.bytes / 4, 16 << 10), p.pattern);
    for (uint64_t done = 0; done < p.bytes;) {
        const uint64_t chunk = std::min<uint64_t>(pattern.size() * 4, p.bytes - done);
        if (auto f = memory.write(p.dst_va + done, pattern.data(), chunk)) {
            step.exception = fault_exception(*f);
            break;
        }
        done += chunk;
    }
    counters_.dma_bytes += memory.dma_bytes();
    counters_.device_cycles += p.bytes / kCopyBytesPerCycle;
    counters_.sample_cycles += p.bytes / kCopyBytesPerCycle;
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
