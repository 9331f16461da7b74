// simt-run: run a statically linked RV64GC ELF on the simulated GPU with no
// driver. It is itself a tiny driver over the simulator's C ABI: it builds a
// page table in VRAM that maps the PT_LOAD segments at their addresses, puts
// SET_CONTEXT + LAUNCH + FENCE on ring 0, waits, and turns the launch report
// (or the exception record) into an exit status. docs/simulator.md.
#include "elf64.h"
#include "simtgpu/hw.h"
#include "simtgpu/hw_names.h"
#include "simtgpu/sim.h"

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace {

using simtgpu::Error;
using simtgpu::Expected;

constexpr const char *kUsage =
    "usage: simt-run [options] program.elf\n"
    "Runs a statically linked RV64GC ELF on the simulated GPU. Every thread starts\n"
    "at the entry point with sp at the top of its own stack; a thread ends with\n"
    "ecall a7=93 (exit, status in a0). simt-run exits with the first non-zero\n"
    "status, or 128 + SIMTGPU_EXC_* for a trap or fault (report on stderr).\n"
    "\n"
    "options:\n"
    "  --config PRESET_OR_FILE  the device's configuration: a preset (functional,\n"
    "                      teaching, volta) or a JSON file (docs/timing.md); the\n"
    "                      options below override it\n"
    "  --entry NAME        start at symbol NAME instead of e_entry\n"
    "  --grid X[,Y,Z]      CTAs in the grid (default 1)\n"
    "  --block X[,Y,Z]     threads per CTA (default 1)\n"
    "  --stack BYTES       stack per thread, multiple of 16 (default 65536)\n"
    "  --shared BYTES      shared memory per CTA (default 0)\n"
    "  --sms N             number of SMs (default 4)\n"
    "  --warp-size N       lanes per warp, 1..64 (default 32)\n"
    "  --warps-per-sm N    warp slots per SM (default 64)\n"
    "  --scheduler NAME    warp scheduler: round-robin (default), gto (or greedy),\n"
    "                      oldest-first or two-level\n"
    "  --reconvergence NAME  reconvergence policy (default min-pc)\n"
    "  --livelock-cycles N cycles of no progress, with a warp starved, before the\n"
    "                      launch fails as a livelock (default 2^26)\n"
    "  --timeout SECONDS   give up after this much host time (exit 124; default none)\n"
    "  --stats             print the simulator's statistics (JSON) on stdout\n"
    "  --trace FILE        write a Chrome/Perfetto trace of the run to FILE\n"
    "                      (docs/trace.md; open it in ui.perfetto.dev)\n"
    "  --trace-max-events N  events the trace holds at most (default 1000000)\n"
    "  --threads N         host threads that run the SMs (either model; the\n"
    "                      same results and cycles for every N; default 1)\n"
    "  --help              show this text\n";

// Where the driver puts its own things: physical VRAM, and the VA of the
// page it shares with the device (launch report and fence).
constexpr uint64_t kRingPa = 0;
constexpr uint32_t kRingBytes = 4096;
constexpr uint64_t kFirstFreePa = 0x10000;
constexpr uint64_t kDriverVa = 0x00007c0000000000ull;
constexpr uint64_t kFenceValue = 1;

struct Options {
    std::string program;
    std::string entry;
    std::string config;                   // empty: no configuration file
    std::string trace;                    // empty: no trace
    uint64_t trace_max_events = 0;
    uint32_t threads = 0; // 0: the configuration's
    std::string scheduler, reconvergence; // empty: the device's default
    std::array<uint32_t, 3> grid{1, 1, 1};
    std::array<uint32_t, 3> block{1, 1, 1};
    uint32_t stack = 64 << 10;
    uint32_t shared = 0;
    uint32_t sms = 0, warp_size = 0, warps_per_sm = 0;
    uint64_t livelock_cycles = 0;
    double timeout = 0;
    bool stats = false;
    bool help = false;
};

Expected<uint64_t> parse_number(const std::string &option, const std::string &text, uint64_t max) {
    char *end = nullptr;
    errno = 0;
    const unsigned long long v = std::strtoull(text.c_str(), &end, 0);
    if (text.empty() || text[0] == '-' || *end || errno || v > max)
        return Error{option + ": '" + text + "' is not a number in 0.." + std::to_string(max)};
    return uint64_t(v);
}

Expected<std::array<uint32_t, 3>> parse_dims(const std::string &option, const std::string &text) {
    std::array<uint32_t, 3> dims{1, 1, 1};
    size_t start = 0;
    for (int i = 0;; ++i) {
        const size_t comma = text.find(',', start);
        if (i == 3)
            return Error{option + ": at most three dimensions (X[,Y,Z])"};
        auto v = parse_number(option, text.substr(start, comma - start), UINT32_MAX);
        if (!v)
            return Error{v.error()};
        if (*v == 0)
            return Error{option + ": every dimension must be at least 1"};
        dims[i] = uint32_t(*v);
        if (comma == std::string::npos)
            break;
        start = comma + 1;
    }
    return dims;
}

Expected<Options> parse_args(int argc, char **argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&]() -> Expected<std::string> {
            if (i + 1 >= argc)
                return Error{arg + " needs a value (see --help)"};
            return std::string(argv[++i]);
        };
        auto number = [&](uint64_t max) -> Expected<uint64_t> {
            auto v = value();
            if (!v)
                return Error{v.error()};
            return parse_number(arg, *v, max);
        };
        if (arg == "--help" || arg == "-h") {
            o.help = true;
        } else if (arg == "--stats") {
            o.stats = true;
        } else if (arg == "--entry" || arg == "--config" || arg == "--trace") {
            auto v = value();
            if (!v)
                return Error{v.error()};
            (arg == "--entry" ? o.entry : arg == "--config" ? o.config : o.trace) = *v;
        } else if (arg == "--trace-max-events") {
            auto v = number(UINT64_MAX);
            if (!v)
                return Error{v.error()};
            if (*v == 0)
                return Error{arg + ": must be at least 1"};
            o.trace_max_events = *v;
        } else if (arg == "--threads") {
            auto v = number(256);
            if (!v)
                return Error{v.error()};
            if (*v == 0)
                return Error{arg + ": must be at least 1"};
            o.threads = uint32_t(*v);
        } else if (arg == "--scheduler" || arg == "--reconvergence") {
            auto v = value();
            if (!v)
                return Error{v.error()};
            (arg == "--scheduler" ? o.scheduler : o.reconvergence) = *v;
        } else if (arg == "--grid" || arg == "--block") {
            auto v = value();
            if (!v)
                return Error{v.error()};
            auto dims = parse_dims(arg, *v);
            if (!dims)
                return Error{dims.error()};
            (arg == "--grid" ? o.grid : o.block) = *dims;
        } else if (arg == "--stack" || arg == "--shared" || arg == "--sms" ||
                   arg == "--warp-size" || arg == "--warps-per-sm") {
            auto v = number(UINT32_MAX);
            if (!v)
                return Error{v.error()};
            if (arg == "--stack") {
                if (*v % 16)
                    return Error{"--stack: " + std::to_string(*v) + " is not a multiple of 16"};
                o.stack = uint32_t(*v);
            } else if (arg == "--shared") {
                o.shared = uint32_t(*v);
            } else if (*v == 0) {
                return Error{arg + ": must be at least 1"};
            } else if (arg == "--sms") {
                o.sms = uint32_t(*v);
            } else if (arg == "--warp-size") {
                o.warp_size = uint32_t(*v);
            } else {
                o.warps_per_sm = uint32_t(*v);
            }
        } else if (arg == "--livelock-cycles") {
            auto v = number(UINT64_MAX);
            if (!v)
                return Error{v.error()};
            o.livelock_cycles = *v;
        } else if (arg == "--timeout") {
            auto v = value();
            if (!v)
                return Error{v.error()};
            char *end = nullptr;
            o.timeout = std::strtod(v->c_str(), &end);
            if (v->empty() || *end || !(o.timeout > 0))
                return Error{"--timeout: '" + *v + "' is not a positive number of seconds"};
        } else if (arg.size() > 1 && arg[0] == '-') {
            return Error{"unknown option " + arg + " (see --help)"};
        } else if (o.program.empty()) {
            o.program = arg;
        } else {
            return Error{"only one program may be given (got '" + o.program + "' and '" + arg + "')"};
        }
    }
    if (o.program.empty() && !o.help)
        return Error{"no program given (see --help)"};
    return o;
}

// The driver side of the device: VRAM allocation, page tables, ring 0.
class Driver {
public:
    explicit Driver(simtgpu_sim *sim) : sim_(sim) {
        vram_ = static_cast<uint8_t *>(simtgpu_sim_vram(sim, &vram_size_));
    }

    Expected<uint64_t> alloc_page() {
        if (next_free_ + SIMTGPU_PAGE_SIZE > vram_size_)
            return Error{"the program does not fit in VRAM (" + std::to_string(vram_size_) +
                         " bytes)"};
        const uint64_t pa = next_free_;
        next_free_ += SIMTGPU_PAGE_SIZE;
        std::memset(vram_ + pa, 0, SIMTGPU_PAGE_SIZE);
        return pa;
    }
    Expected<uint64_t> root() {
        if (!root_) {
            auto pa = alloc_page();
            if (!pa)
                return pa;
            root_ = *pa;
        }
        return *root_;
    }
    // Maps one page, creating the tables on the way (format: hw.h).
    Expected<bool> map(uint64_t va, uint64_t pa, uint64_t flags) {
        auto table = root();
        if (!table)
            return Error{table.error()};
        for (int level = SIMTGPU_PT_LEVELS - 1; level >= 0; --level) {
            uint8_t *slot = vram_ + *table + 8 * SIMTGPU_PT_INDEX(va, level);
            uint64_t pte;
            std::memcpy(&pte, slot, 8);
            if (level == 0) {
                pte = SIMTGPU_PTE_MAKE(pa, flags | SIMTGPU_PTE_V);
                std::memcpy(slot, &pte, 8);
                break;
            }
            if (!(pte & SIMTGPU_PTE_V)) {
                auto next = alloc_page();
                if (!next)
                    return Error{next.error()};
                pte = SIMTGPU_PTE_MAKE(*next, SIMTGPU_PTE_V);
                std::memcpy(slot, &pte, 8);
            }
            *table = SIMTGPU_PTE_ADDR(pte);
        }
        return true;
    }

    uint8_t *vram(uint64_t pa) { return vram_ + pa; }
    void emit(const void *packet, size_t bytes) {
        std::memcpy(vram_ + kRingPa + tail_, packet, bytes);
        tail_ += uint32_t(bytes);
    }
    void start_ring() {
        simtgpu_sim_mmio_write(sim_, SIMTGPU_RING_BASE(0) + SIMTGPU_RING_ADDR_LO, kRingPa, 4);
        simtgpu_sim_mmio_write(sim_, SIMTGPU_RING_BASE(0) + SIMTGPU_RING_ADDR_HI, 0, 4);
        simtgpu_sim_mmio_write(sim_, SIMTGPU_RING_BASE(0) + SIMTGPU_RING_SIZE, kRingBytes, 4);
        simtgpu_sim_mmio_write(sim_, SIMTGPU_RING_BASE(0) + SIMTGPU_RING_CTRL,
                               SIMTGPU_RING_CTRL_ENABLE, 4);
        simtgpu_sim_mmio_write(sim_, SIMTGPU_RING_BASE(0) + SIMTGPU_RING_TAIL, tail_, 4);
    }
    uint32_t reg(uint32_t offset) { return uint32_t(simtgpu_sim_mmio_read(sim_, offset, 4)); }

private:
    simtgpu_sim *sim_;
    uint8_t *vram_ = nullptr;
    uint64_t vram_size_ = 0;
    uint64_t next_free_ = kFirstFreePa;
    std::optional<uint64_t> root_;
    uint32_t tail_ = 0;
};

bool in_window(uint64_t va, uint64_t bytes) {
    auto overlaps = [&](uint64_t base, uint64_t size) { return va < base + size && base < va + bytes; };
    return overlaps(SIMTGPU_SHARED_BASE, SIMTGPU_SHARED_WINDOW) ||
           overlaps(SIMTGPU_LOCAL_BASE, SIMTGPU_LOCAL_WINDOW) || overlaps(kDriverVa, SIMTGPU_PAGE_SIZE);
}

// Maps every PT_LOAD segment at its address. A page shared by two segments
// gets the union of their permissions.
std::string hex(uint64_t v) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)v);
    return buf;
}

Expected<bool> load_image(Driver &driver, const simtgpu::tools::ElfImage &image,
                          uint64_t vram_bytes) {
    std::map<uint64_t, uint64_t> page_flags;
    uint64_t total = 0;
    for (const auto &seg : image.segments) {
        if (seg.vaddr + seg.memsz > (1ull << SIMTGPU_VA_BITS) || in_window(seg.vaddr, seg.memsz))
            return Error{"the segment at " + hex(seg.vaddr) + " (" + std::to_string(seg.memsz) +
                         " bytes) is outside the 48-bit space or inside a reserved window"};
        total += seg.memsz;
        if (total > vram_bytes) // checked before anything is allocated for it
            return Error{"the program's segments (" + std::to_string(total) +
                         "+ bytes) do not fit in VRAM (" + std::to_string(vram_bytes) + " bytes)"};
        const uint64_t flags = (seg.readable ? SIMTGPU_PTE_R : 0) |
                               (seg.writable ? SIMTGPU_PTE_W : 0) |
                               (seg.executable ? SIMTGPU_PTE_X : 0);
        for (uint64_t page = seg.vaddr & ~uint64_t(SIMTGPU_PAGE_SIZE - 1); page < seg.vaddr + seg.memsz;
             page += SIMTGPU_PAGE_SIZE)
            page_flags[page] |= flags;
    }
    std::map<uint64_t, uint64_t> page_pa;
    for (auto [page, flags] : page_flags) {
        auto pa = driver.alloc_page();
        if (!pa)
            return Error{pa.error()};
        if (auto ok = driver.map(page, *pa, flags ? flags : SIMTGPU_PTE_R); !ok)
            return Error{ok.error()};
        page_pa[page] = *pa;
    }
    for (const auto &seg : image.segments) {
        for (uint64_t i = 0; i < seg.data.size();) {
            const uint64_t va = seg.vaddr + i;
            const uint64_t offset = va & (SIMTGPU_PAGE_SIZE - 1);
            const uint64_t chunk = std::min<uint64_t>(SIMTGPU_PAGE_SIZE - offset, seg.data.size() - i);
            std::memcpy(driver.vram(page_pa[va - offset] + offset), seg.data.data() + i, chunk);
            i += chunk;
        }
    }
    return true;
}

void print_exception(Driver &d) {
    const uint32_t kind = d.reg(SIMTGPU_REG_EXC_KIND);
    const uint32_t detail = d.reg(SIMTGPU_REG_EXC_DETAIL);
    const uint64_t pc = d.reg(SIMTGPU_REG_EXC_PC_LO) | uint64_t(d.reg(SIMTGPU_REG_EXC_PC_HI)) << 32;
    const uint64_t addr =
        d.reg(SIMTGPU_REG_EXC_ADDR_LO) | uint64_t(d.reg(SIMTGPU_REG_EXC_ADDR_HI)) << 32;
    const bool livelock = kind == SIMTGPU_EXC_DEADLOCK && detail == SIMTGPU_DEADLOCK_NO_PROGRESS;
    std::fprintf(stderr, "simt-run: %s",
                 livelock ? "livelock (threads run, but no forward progress: the warp "
                            "scheduler never lets the thread below issue; a spin lock under a "
                            "scheduler that is not starvation-free?)"
                          : simtgpu_exception_name(kind));
    if (kind == SIMTGPU_EXC_PAGE_FAULT)
        std::fprintf(stderr, ": %s of 0x%llx, %s", simtgpu_access_name(d.reg(SIMTGPU_REG_EXC_ACCESS)),
                     (unsigned long long)addr, simtgpu_fault_name(detail));
    else if (kind == SIMTGPU_EXC_ILLEGAL_INSTRUCTION)
        std::fprintf(stderr, " 0x%08x", detail);
    else if (kind == SIMTGPU_EXC_BAD_ECALL)
        std::fprintf(stderr, " (a7 = %u)", detail);
    else if (kind == SIMTGPU_EXC_BAD_LAUNCH)
        std::fprintf(stderr, ": %s (this device: up to %u threads per CTA, %u bytes of shared "
                     "memory, %u bytes of stack per thread)",
                     simtgpu_launch_error_name(detail), d.reg(SIMTGPU_REG_MAX_THREADS_PER_CTA),
                     d.reg(SIMTGPU_REG_SHARED_PER_SM), d.reg(SIMTGPU_REG_MAX_STACK_PER_THREAD));
    else if (kind == SIMTGPU_EXC_ARCH_MISMATCH)
        std::fprintf(stderr, ": the code needs simt_%u", detail);
    else if (kind == SIMTGPU_EXC_BAD_BARRIER)
        std::fprintf(stderr, ": %s (%u)", simtgpu_barrier_error_name(detail),
                     SIMTGPU_BARRIER_DETAIL_VALUE(detail));
    std::fprintf(stderr, "\n");
    if (kind <= SIMTGPU_EXC_DEADLOCK || kind == SIMTGPU_EXC_BAD_ECALL ||
        kind == SIMTGPU_EXC_BAD_BARRIER)
        std::fprintf(stderr,
                     "simt-run:   at pc 0x%llx on SM %u, warp %u, lane %u, "
                     "CTA (%u,%u,%u), thread (%u,%u,%u)\n",
                     (unsigned long long)pc, d.reg(SIMTGPU_REG_EXC_SM), d.reg(SIMTGPU_REG_EXC_WARP),
                     d.reg(SIMTGPU_REG_EXC_LANE), d.reg(SIMTGPU_REG_EXC_CTAID_X),
                     d.reg(SIMTGPU_REG_EXC_CTAID_Y), d.reg(SIMTGPU_REG_EXC_CTAID_Z),
                     d.reg(SIMTGPU_REG_EXC_TID_X), d.reg(SIMTGPU_REG_EXC_TID_Y),
                     d.reg(SIMTGPU_REG_EXC_TID_Z));
}

struct SimDeleter {
    void operator()(simtgpu_sim *s) const { simtgpu_sim_destroy(s); }
};

int run(const Options &o) {
    auto image = simtgpu::tools::read_elf(o.program);
    if (!image) {
        std::fprintf(stderr, "simt-run: %s\n", image.error().c_str());
        return 2;
    }
    uint64_t entry = image->entry;
    if (!o.entry.empty()) {
        auto sym = image->symbol(o.entry);
        if (!sym) {
            std::fprintf(stderr, "simt-run: %s: no symbol '%s'\n", o.program.c_str(), o.entry.c_str());
            return 2;
        }
        entry = *sym;
    }

    simtgpu_sim_config config{};
    config.struct_size = sizeof config;
    config.num_sms = o.sms;
    config.warp_size = o.warp_size;
    config.warps_per_sm = o.warps_per_sm;
    config.warp_scheduler = o.scheduler.empty() ? nullptr : o.scheduler.c_str();
    config.reconvergence = o.reconvergence.empty() ? nullptr : o.reconvergence.c_str();
    config.livelock_cycles = o.livelock_cycles;
    config.config = o.config.empty() ? nullptr : o.config.c_str();
    config.trace = o.trace.empty() ? nullptr : o.trace.c_str();
    config.trace_max_events = o.trace_max_events;
    config.host_threads = o.threads;
    simtgpu_sim *raw = nullptr;
    char err[1024] = "";
    if (simtgpu_sim_create(&config, &raw, err, sizeof err) != 0) {
        std::fprintf(stderr, "simt-run: %s\n", err);
        return 2;
    }
    std::unique_ptr<simtgpu_sim, SimDeleter> sim(raw);
    Driver driver(sim.get());

    uint64_t vram_bytes = 0;
    simtgpu_sim_vram(sim.get(), &vram_bytes);
    auto loaded = load_image(driver, *image, vram_bytes);
    auto driver_page = driver.alloc_page();
    if (loaded && driver_page)
        loaded = driver.map(kDriverVa, *driver_page, SIMTGPU_PTE_R | SIMTGPU_PTE_W);
    auto root = driver.root();
    if (!loaded || !driver_page || !root) {
        std::fprintf(stderr, "simt-run: %s\n",
                     (!loaded ? loaded.error() : !driver_page ? driver_page.error() : root.error()).c_str());
        return 2;
    }

    const simtgpu_pkt_set_context set_context{1, 0, *root};
    simtgpu_pkt_launch launch{};
    launch.entry_pc = entry;
    std::copy(o.grid.begin(), o.grid.end(), launch.grid);
    std::copy(o.block.begin(), o.block.end(), launch.block);
    launch.shared_bytes = o.shared;
    launch.stack_bytes = o.stack;
    launch.report_va = kDriverVa;
    const simtgpu_pkt_fence fence{kDriverVa + 512, kFenceValue};
    auto emit = [&](uint32_t opcode, const auto &body) {
        const uint32_t header = SIMTGPU_PKT_HEADER(opcode, 0, sizeof body / 4);
        driver.emit(&header, 4);
        driver.emit(&body, sizeof body);
    };
    emit(SIMTGPU_PKT_SET_CONTEXT, set_context);
    emit(SIMTGPU_PKT_LAUNCH, launch);
    emit(SIMTGPU_PKT_FENCE, fence);
    driver.start_ring();

    // Wait for the fence; on the way, report and acknowledge an exception
    // (the ring then resumes with the FENCE after the aborted LAUNCH).
    const auto start = std::chrono::steady_clock::now();
    int status = -1;
    for (;;) {
        if (simtgpu_sim_wait_idle(sim.get(), 100)) {
            if (driver.reg(SIMTGPU_REG_STATUS) & SIMTGPU_STATUS_EXCEPTION) {
                print_exception(driver);
                if (status < 0)
                    status = 128 + int(driver.reg(SIMTGPU_REG_EXC_KIND));
                simtgpu_sim_mmio_write(sim.get(), SIMTGPU_REG_IRQ_ACK, SIMTGPU_IRQ_EXCEPTION, 4);
                continue;
            }
            uint64_t fence_seen;
            std::memcpy(&fence_seen, driver.vram(*driver_page) + 512, 8);
            if (fence_seen == kFenceValue)
                break;
            std::fprintf(stderr, "simt-run: the device went idle without finishing\n");
            return 2;
        }
        const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
        if (o.timeout > 0 && elapsed.count() > o.timeout) {
            std::fprintf(stderr, "simt-run: timed out after %g s; resetting the device\n", o.timeout);
            simtgpu_sim_reset(sim.get());
            return 124;
        }
    }

    if (status < 0) {
        simtgpu_launch_report report;
        std::memcpy(&report, driver.vram(*driver_page), sizeof report);
        // A process returns only the low byte; keep a non-zero status non-zero.
        status = report.exit_status == 0 ? 0 : (report.exit_status & 0xff ? report.exit_status & 0xff : 1);
    }
    if (o.stats) {
        char *json = simtgpu_sim_stats_json(sim.get());
        if (json)
            std::printf("%s\n", json);
        simtgpu_sim_free_string(json);
    }
    return status;
}

} // namespace

int main(int argc, char **argv) {
    auto options = parse_args(argc, argv);
    if (!options) {
        std::fprintf(stderr, "simt-run: %s\n", options.error().c_str());
        return 2;
    }
    if (options->help) {
        std::fputs(kUsage, stdout);
        return 0;
    }
    return run(*options);
}
