// mem_bench: the memory-system timing model (sim/src/mem) on its own.
// Speed: warp accesses and sector requests per second of host CPU time for
// three traffic patterns, beside the coalescer alone (the least work any
// timing model does per access) as the baseline of the same run. Figures:
// the latencies, bandwidth and latency hiding the model produces with the
// default (V100) parameters, for docs/timing-memory.md.
#include "mem/memory_system.h"

#include <cstdio>
#include <ctime>
#include <random>
#include <vector>

namespace {

using namespace simtgpu::sim::mem;

constexpr uint32_t kSms = 80, kClockKhz = 1530000;

double cpu_seconds() {
    timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

WarpAccess warp_access(uint32_t sm, AccessKind kind, uint64_t base, uint64_t stride) {
    WarpAccess a;
    a.sm = sm;
    a.kind = kind;
    a.active_mask = 0xffffffff;
    for (uint32_t lane = 0; lane < 32; ++lane)
        a.address[lane] = base + lane * stride;
    return a;
}

MemorySystem make_system() {
    return std::move(*MemorySystem::create(MemoryConfig{}, kSms, kClockKhz));
}

struct Run {
    uint64_t accesses = 0, sectors = 0, cycles = 0;
    double seconds = 0;
};

// Every SM issues one access per cycle when it can; address(sm, i) is the
// i-th access of an SM.
template <typename Address>
Run drive(uint64_t per_sm, AccessKind kind, uint64_t stride, Address address) {
    MemorySystem mem = make_system();
    std::vector<uint64_t> next(kSms, 0);
    // Each SM's next access, built once as the functional core would.
    std::vector<WarpAccess> pending(kSms);
    for (uint32_t sm = 0; sm < kSms; ++sm)
        pending[sm] = warp_access(sm, kind, address(sm, 0), stride);
    Run run;
    uint64_t now = 0, outstanding = 0;
    double start = cpu_seconds();
    for (bool more = true; more || outstanding > 0; ++now) {
        more = false;
        for (uint32_t sm = 0; sm < kSms; ++sm) {
            if (next[sm] == per_sm)
                continue;
            more = true;
            if (mem.issue(pending[sm], now).accepted) {
                ++outstanding;
                if (++next[sm] < per_sm)
                    pending[sm] = warp_access(sm, kind, address(sm, next[sm]), stride);
            }
        }
        outstanding -= mem.tick(now).size();
    }
    run.seconds = cpu_seconds() - start;
    run.cycles = now;
    run.accesses = per_sm * kSms;
    MemoryCounters t = mem.totals();
    run.sectors = t.l1_sector_hits + t.l1_sector_misses + t.l1_sector_merges + t.l2_sector_hits +
                  t.l2_sector_misses;
    return run;
}

double coalescer_only(uint64_t accesses, uint64_t stride) {
    CoalescedAccess out;
    uint64_t sink = 0;
    double start = cpu_seconds();
    for (uint64_t i = 0; i < accesses; ++i) {
        coalesce(warp_access(0, AccessKind::load, i * 4096, stride), 128, 32, out);
        sink += out.count;
    }
    double seconds = cpu_seconds() - start;
    if (sink == 0)
        std::puts("");
    return double(accesses) / seconds;
}

void report(const char *name, const Run &r, double baseline) {
    double per_s = double(r.accesses) / r.seconds;
    std::printf(
        "%-34s %10.2f M accesses/s %10.2f M sectors/s  %5.1fx the coalescer  %8llu cycles\n", name,
        per_s / 1e6, double(r.sectors) / r.seconds / 1e6, baseline / per_s,
        (unsigned long long)r.cycles);
}

uint64_t latency(MemorySystem &mem, uint64_t &now, const WarpAccess &a) {
    uint64_t start = now;
    Token token = mem.issue(a, now).token;
    for (;; ++now)
        for (const Completion &c : mem.tick(now))
            if (c.sm == a.sm && c.token == token) // tokens are per SM
                return c.cycle - start;
}

} // namespace

int main() {
    std::printf("Speed (one host core, %u SMs, V100 parameters)\n", kSms);
    double baseline = coalescer_only(2'000'000, 4);
    std::printf("%-34s %10.2f M accesses/s (baseline)\n", "coalescer alone, unit stride",
                baseline / 1e6);
    // L1 hits: every SM rereads its own 16 KiB.
    report("L1 hits (unit stride, 16 KiB/SM)",
           drive(20000, AccessKind::load, 4,
                 [](uint32_t sm, uint64_t i) { return (uint64_t(sm) << 24) + (i % 128) * 128; }),
           baseline);
    // STREAM read: grid-stride over 80 MiB, DRAM bound.
    Run stream = drive(8192, AccessKind::load, 4,
                       [](uint32_t sm, uint64_t i) { return 0x40000000 + (i * kSms + sm) * 128; });
    report("STREAM read (unit stride, 80 MiB)", stream, baseline);
    // Scattered: each lane its own line anywhere in 1 GiB.
    report("scattered (32 lines per access)",
           drive(1000, AccessKind::load, 4096 + 128,
                 [](uint32_t sm, uint64_t i) {
                     return (std::minstd_rand(uint32_t(sm * 100003 + i))() % (1u << 17)) << 13;
                 }),
           baseline);

    std::printf("\nFigures (V100 parameters, cycles at %u MHz)\n", kClockKhz / 1000);
    MemorySystem mem = make_system();
    uint64_t now = 0;
    WarpAccess one = warp_access(0, AccessKind::load, 0x100000, 0);
    one.active_mask = 1;
    std::printf("DRAM load (closed row)   %4llu cycles (configured %u)\n",
                (unsigned long long)latency(mem, now, one), mem.config().dram.latency);
    std::printf("L1 hit                   %4llu cycles (configured %u)\n",
                (unsigned long long)latency(mem, now, one), mem.config().l1.hit_latency);
    one.sm = 1;
    std::printf("L2 hit                   %4llu cycles (configured %u)\n",
                (unsigned long long)latency(mem, now, one), mem.config().l2.hit_latency);
    for (uint64_t stride : {4, 8, 128})
        std::printf("shared, stride %3llu words %4llu cycles\n", (unsigned long long)(stride / 4),
                    (unsigned long long)latency(
                        mem, now, warp_access(0, AccessKind::shared_load, 0, stride)));
    double configured = MemoryConfig{}.dram.bandwidth_gbps * 1e6 / kClockKhz;
    double achieved = double(8192ull * kSms * 128) / double(stream.cycles);
    std::printf("STREAM read bandwidth    %.0f of %.0f bytes/cycle (%.0f%%, %.0f GB/s)\n", achieved,
                configured, 100 * achieved / configured, achieved * kClockKhz / 1e6);
    // Latency hiding: 16 warps missing to DRAM at once vs one.
    MemorySystem fresh = make_system();
    uint64_t t = 0;
    uint64_t single = latency(fresh, t, warp_access(0, AccessKind::load, 0x8000000, 4));
    uint64_t start = t, last = 0;
    std::vector<Token> tokens;
    for (uint32_t w = 0; w < 16; ++w)
        tokens.push_back(
            fresh.issue(warp_access(0, AccessKind::load, 0x9000000 + w * 0x10080, 4), t).token);
    for (size_t done = 0; done < tokens.size(); ++t)
        for (const Completion &c : fresh.tick(t)) {
            last = std::max(last, c.cycle);
            ++done;
        }
    std::printf("16 warps missing at once %4llu cycles (one alone %llu: %.2fx, not 16x)\n",
                (unsigned long long)(last - start), (unsigned long long)single,
                double(last - start) / double(single));
    return 0;
}
