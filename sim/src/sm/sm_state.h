// The state of one SM (Sm::Impl) and the declarations that its parts share:
// warps and CTAs (sm_warps.cpp), SM memory and TLB (sm_memory.cpp and, for
// the interpreter's hot path, sm_memory_access.h), isolated runs
// (sm_isolated.cpp), SIMT control (simt_control.cpp), CSRs, atomics and
// floating point (execute_csr.cpp, execute_atomic.cpp, execute_fp.cpp), the
// interpreter loop (interpreter.cpp), the port through which the timing
// pipeline (timing/sm_pipeline.h) sees the SM (timing_port.cpp), and the Sm
// facade with the functional scheduling loop (sm.cpp).
#pragma once

#include "isa/decode.h"
#include "mem/memory_system.h"
#include "simtgpu/hw.h"
#include "sm/fp_lanes.h"
#include "sm/reconvergence.h"
#include "sm/warp_scheduler.h"
#include "sm/sm.h"
#include "timing/insn_record.h"
#include "timing/sm_pipeline.h"
#include "trace/sm_trace.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

namespace simtgpu::sim {

inline constexpr uint32_t kSliceInstructions = 32; // longest burst of one group
// After this many bursts in a row in which the reconvergence policy left
// some runnable lanes of a warp waiting, the next burst goes to the group at
// the policy's yield PC instead: a lane spinning on a lock held by another
// lane of its warp cannot starve the holder (independent thread scheduling).
// The timing model counts the bursts the functional model would have run
// (Warp::burst_instructions): counting each instruction as one ran a group
// waiting at a join point past it while the others were still on their way,
// and the warp did not reconverge.
inline constexpr uint32_t kStarvationBursts = 64;
inline constexpr uint32_t kTlbEntries = 64;
inline constexpr uint64_t kPageMask = SIMTGPU_PAGE_SIZE - 1;
inline constexpr uint32_t kSlotsPerPage = SIMTGPU_PAGE_SIZE / 2; // one per halfword

#define SIMT_INLINE inline __attribute__((always_inline))
// The burst loop in an AVX2 clone beside the default one, picked at load
// time by the CPU: wider lane loops where the host has them. GCC on x86-64
// only (a portability guard, not a configuration: every build has both).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define SIMT_HOST_SIMD_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define SIMT_HOST_SIMD_CLONES
#endif

struct CodePage {
    Insn slots[kSlotsPerPage];
    // Bit r: some instruction decoded here may write integer register r (any
    // instruction's rd: a superset), FP register r (an F or D instruction's).
    // A warp that ran code of this page may have changed those rows:
    // Warp::dirty_x, dirty_f.
    uint64_t writes_x = 0, writes_f = 0;
    void invalidate()
    {
        for (Insn &in : slots) in.op = Op::Undecoded;
    }
};

struct TlbEntry {
    uint64_t page = UINT64_MAX; // virtual page number
    uint8_t *host = nullptr;    // nullptr: host memory reached by DMA
    uint64_t bus = 0;
    bool readable = false, writable = false, executable = false;
    // A write or atomic the entry does not permit waits for the driver (a
    // valid PTE_REPLAY page: a read-only duplicate, hw 1.6).
    bool replay_on_write = false;
    bool code = false; // the page has decoded instructions
    // Stores may write `host` at once: writable, no decoded code and, in an
    // isolated run, `host` is this SM's shadow of the page (vram the page).
    bool direct_store = false;
    uint8_t *vram = nullptr; // while host is a shadow
};

// An isolated run's copy of one VRAM page that its stores went to, and at
// its end the words that differ from VRAM, to be applied in SM order.
struct ShadowPage {
    uint8_t *vram = nullptr;
    alignas(64) uint8_t copy[SIMTGPU_PAGE_SIZE];
    struct Word {
        uint32_t offset;
        uint64_t mask, value; // the bytes that changed, and their values
    };
    std::vector<Word> diff;
};

// Barrier kinds remembered per lane until the barrier releases.
struct Warp {
    bool active = false;
    uint32_t cta = 0;         // CTA slot
    uint32_t warp_in_cta = 0; // warpid CSR
    uint64_t valid = 0;       // lanes that are threads of the CTA
    uint64_t exited = 0;
    uint64_t blocked_bar = 0;  // waiting at a CTA barrier
    uint64_t blocked_sync = 0; // waiting in warp.sync, a collective or a shuffle
    // Which of them each waiting lane is in (subsets of blocked_sync);
    // waiting_vote holds every collective: vote, match and redux.
    uint64_t waiting_warp_sync = 0, waiting_vote = 0, waiting_shfl = 0;
    uint32_t partial_bursts = 0; // bursts in a row that left lanes waiting
    // The timing model issues one instruction at a time; it counts a burst
    // where the functional model's would end: after kSliceInstructions, or
    // at a global access (burst_global: the last one issued was one).
    uint32_t burst_instructions = 0;
    bool burst_global = false;
    uint64_t yielded_to = 0;     // PC of the waiting group that had the last turn
    std::vector<uint64_t> pc;    // per lane, except the lanes of stale_pc_lanes
    // Lanes known to share one PC, same_pc (set_pcs keeps it): when every
    // runnable lane is among them, the group is theirs without asking the
    // reconvergence policy. Of these, stale_pc_lanes have their PC only in
    // same_pc, not in `pc`: a converged group's burst then ends with two
    // stores instead of one per lane. pc_of reads a lane's PC; write_stale_pcs
    // brings `pc` up to date for readers of the whole array.
    uint64_t same_pc_lanes = 0, same_pc = 0, stale_pc_lanes = 0;
    void set_pcs(uint64_t mask, uint64_t value) {
        if (!(same_pc_lanes & ~mask)) {
            same_pc_lanes = stale_pc_lanes = mask;
            same_pc = value;
        } else if (value == same_pc) {
            same_pc_lanes |= mask;
            stale_pc_lanes |= mask;
        } else {
            for (uint64_t m = mask; m; m &= m - 1)
                pc[std::countr_zero(m)] = value;
            leave_same_pc(mask);
        }
    }
    // After `pc` was written for these lanes one by one (a split).
    void leave_same_pc(uint64_t lanes) {
        same_pc_lanes &= ~lanes;
        stale_pc_lanes &= ~lanes;
    }
    uint64_t pc_of(uint32_t lane) const { return stale_pc_lanes >> lane & 1 ? same_pc : pc[lane]; }
    void write_stale_pcs() {
        for (uint64_t m = stale_pc_lanes; m; m &= m - 1)
            pc[std::countr_zero(m)] = same_pc;
        stale_pc_lanes = 0;
    }
    std::vector<uint64_t> x; // kIntRegs rows of lanes
    std::vector<uint64_t> f; // 32 rows of lanes
    // Rows of x and f that may be non-zero: the next warp placed in the
    // slot zeroes only these, not 16 KiB of registers.
    uint64_t dirty_x = 0, dirty_f = 0;
    std::vector<uint8_t> fflags, frm;
    std::vector<uint32_t> tid; // x, y, z per lane
    // What a lane waiting in a warp-level sync brought: its member mask
    // (warp.sync, collectives), the operand value (vote: rs1 != 0; match,
    // redux, shuffle: rs1), the collective's kind (kCollective*), the
    // shuffle's source lane and rs1, and rd to write.
    std::vector<uint64_t> sync_mask, sync_value;
    std::vector<uint8_t> sync_funct, sync_src, sync_rs1, sync_rd;
    // A lane waiting at a CTA barrier: its instruction (SIMTGPU_BAR_*) and
    // rd; the lanes waiting at each barrier, and those of them in a bar.red
    // (popc/and/or), which get a value when it completes.
    std::vector<uint8_t> bar_kind, bar_rd;
    std::array<uint64_t, SIMTGPU_BARRIERS> bar_lanes{};
    uint64_t bar_red_lanes = 0;
    std::vector<uint64_t> resv_addr, resv_value;
    uint64_t resv_valid = 0;
    // Local memory of the warp's lanes, allocated when first touched and
    // kept for the slot's later threads, interleaved by 8-byte words as on
    // NVIDIA GPUs: word k of lane l is local[k * W + l] (Sm::Impl::
    // local_byte), so a stack slot that every lane reads at the same offset
    // is W consecutive words, not W cache lines apart. A thread's local
    // memory reads as zero until it writes it (deterministic; CUDA leaves
    // it undefined), but only the chunks it touches are zeroed
    // (local_zeroed[l]: bit c for chunk c of LaunchContext::local_chunk_shift
    // bytes zeroed for lane l, by accesses lane by lane; local_rows: bit k
    // for word k zeroed or written in every lane, by accesses of every lane
    // at one address, as a stack frame's): most threads use a few words of
    // a window of kilobytes.
    std::vector<uint64_t> local;
    std::vector<uint64_t> local_zeroed;
    uint64_t local_zeroed_any = 0; // OR of local_zeroed
    std::vector<uint64_t> local_rows;
    bool local_row_ready(uint64_t word) const { return local_rows[word >> 6] >> (word & 63) & 1; }

    uint64_t runnable() const { return valid & ~exited & ~blocked_bar & ~blocked_sync; }
    uint64_t live() const { return valid & ~exited; }
};

// The kind of collective a lane waits in (Warp::sync_funct): the class in
// the high bits, the instruction's funct7 in the low ones.
inline constexpr uint8_t kCollectiveVote = 0x00, kCollectiveMatch = 0x10, kCollectiveRedux = 0x20;

// One of a CTA's named barriers (bar.sync id, count; bar.arrive), for the
// round in progress.
struct Barrier {
    uint32_t arrived = 0; // threads counted (bar.sync, bar.red and bar.arrive)
    uint32_t waiting = 0; // of those, the ones blocked at it
    uint32_t count = 0;   // threads it completes with, from the first arrival; 0: all live
    bool partial = false; // the CTA's partial last warp took part: its missing lanes count
};

struct Cta {
    bool active = false;
    uint32_t launch = 0;        // launch slot
    Dim3 ctaid{0, 0, 0};
    uint32_t live = 0;          // threads that have not exited
    uint32_t slots = 0;         // lanes of its warps: threads rounded up to warps
    uint32_t missing = 0;       // lanes of its last warp that are not threads
    std::array<Barrier, SIMTGPU_BARRIERS> bars;
    uint32_t red_true = 0;      // barrier 0: arrivals with bar.popc/and/or and rs1 != 0
    uint32_t red_arrivals = 0;  // ... arrivals with bar.popc/and/or
    std::vector<uint32_t> warps; // warp slots
    std::vector<uint8_t> shared;
};

// A grid attached to the SM: what its CTAs share.
struct LaunchContext {
    bool attached = false;
    LaunchDesc desc;
    GlobalMemory *memory = nullptr;
    uint32_t warps_per_cta = 0, shared_alloc = 0;
    uint32_t resident_ctas = 0;
    uint32_t ctas_completed = 0; // since take_ctas_completed
    uint64_t ctas_finished = 0;  // since attach
    uint64_t thread_instructions = 0;
    uint32_t local_chunk_shift = 0; // log2 of a local-memory chunk: at most 64 per window
    ExitRecord exits;
    TlbEntry tlb[kTlbEntries];
    std::unordered_map<uint64_t, std::unique_ptr<CodePage>> code;
    // The page fetched from last, so that a burst does not start with a
    // lookup in `code` (reset wherever `code` is cleared).
    uint64_t last_code_vpn = UINT64_MAX;
    CodePage *last_code_page = nullptr;
    void clear_code()
    {
        code.clear();
        last_code_vpn = UINT64_MAX;
        last_code_page = nullptr;
    }
};

// An operation fp::lanes computes for a whole warp in host SIMD (outside
// Sm::Impl: a default argument of an Impl member uses its initialisers, which
// clang allows only for a complete type).
struct WarpFp {
    bool ok = false;
    bool dbl = false;
    fp::lanes::Kind kind = fp::lanes::Kind::Add;
    const uint64_t *a = nullptr, *b = nullptr, *c = nullptr;
    double sa = 1, sc = 1;
};

struct Sm::Impl {
    Impl(const DeviceConfig &config, uint32_t sm_id);

    // ---- state
    DeviceConfig config;
    uint32_t sm_id;
    uint32_t W; // lanes per warp
    uint64_t full_mask;
    std::unique_ptr<ReconvergencePolicy> reconvergence;
    std::unique_ptr<WarpScheduler> scheduler;

    std::vector<LaunchContext> launches; // one slot per CTA slot
    LaunchContext *cur = nullptr;        // the launch of the warp executing
    uint64_t now = 0;
    int last_issued = -1;
    std::vector<Warp> warps;
    std::vector<Cta> ctas;
    std::vector<uint64_t> ready_at; // per slot: first cycle its warp may issue again
    // The functional model's ready set, as bitsets over the slots (bit s % 64
    // of word s / 64): the slots whose warp is resident with runnable lanes,
    // and those to look at again because an event may have changed that (a
    // burst, a CTA placed or gone, a barrier released). Rebuilding it from
    // every slot before every burst cost a quarter of the time with 64 slots.
    // waiting: the slots of can_issue whose ready_at was later than `now`
    // when last looked at; only they are looked at again before a burst
    // (scanning every resident slot's ready_at was a quarter of the time of
    // kernels whose bursts end at a global access).
    std::vector<uint64_t> can_issue, recheck, ready, waiting;
    void recheck_slot(uint32_t slot) { recheck[slot / 64] |= uint64_t(1) << (slot % 64); }
    // The waiting slots by the cycle they may issue (a min-heap; scanning
    // every waiting slot before each burst was a fifth of such kernels' time
    // again with 64 slots). An entry whose slot no longer waits, or waits
    // for another cycle (a newer entry has that), is dropped when it is first.
    struct Wake {
        uint64_t at;
        uint32_t slot;
        bool operator>(const Wake &o) const { return at > o.at; }
    };
    std::vector<Wake> wakes;
    void wake_at(uint64_t at, uint32_t slot)
    {
        wakes.push_back(Wake{at, slot});
        std::push_heap(wakes.begin(), wakes.end(), std::greater<>());
    }
    // Takes the slots whose cycle has come out of `waiting`; returns the
    // next cycle a waiting slot may issue (UINT64_MAX: none).
    uint64_t wake_due()
    {
        while (!wakes.empty()) {
            const Wake first = wakes.front();
            const uint64_t bit = uint64_t(1) << (first.slot % 64);
            const bool current =
                (waiting[first.slot / 64] & bit) && ready_at[first.slot] == first.at;
            if (current && first.at > now) return first.at;
            if (current) waiting[first.slot / 64] &= ~bit;
            std::pop_heap(wakes.begin(), wakes.end(), std::greater<>());
            wakes.pop_back();
        }
        return UINT64_MAX;
    }
    std::vector<uint64_t> age;  // per slot: launch order of its warp onto this SM
    std::vector<uint64_t> issued_at; // per slot: the cycle its warp last issued
    uint64_t warps_launched = 0;
    uint32_t resident_ctas = 0, resident_warps = 0, shared_used = 0;
    uint32_t ctas_completed = 0;

    SmStats stats;
    std::optional<Exception> exception;
    uint32_t exception_launch = 0;

    // ---- replayable faults (Sm::replay)
    struct Held {
        uint64_t address = 0, pc = 0, cycle = 0;
        uint32_t access = 0, lane = 0;
    };
    std::vector<uint8_t> held;      // per slot: its warp waits for a replay
    std::vector<Held> held_fault;   // per slot, while held
    uint32_t held_warps = 0;
    std::vector<HeldFault> new_faults; // since take_faults()
    // Set by tlb_lookup when the access met a PTE_REPLAY page: the
    // instruction stops, having done nothing that a second run would not
    // redo, and burst_group holds its warp.
    std::optional<Held> replay_hold;
    void hold(uint32_t slot);
    void release_hold(uint32_t slot);
    // Atomics are not idempotent: every lane's page must be present before
    // the first lane's atomic takes effect. False when one was not (held).
    bool atomic_pages_present(uint64_t mask, const uint64_t *addr, uint32_t size);
    uint64_t res[64]; // per-lane results before they are written back
    bool touched_global = false;
    std::unique_ptr<trace::SmTrace> trace; // tracks of a trace, when one is written
    void trace_pick(int picked);

    // ---- isolated runs (Sm::run_isolated: SMs on several host threads)
    bool isolated = false;
    bool stopped = false;      // before an instruction that must run serially
    bool stop_before = false;  // set by that instruction, which then does nothing
    // The burst that stopped, to go on with when run() is next called.
    int resume_slot = -1;
    GroupChoice resume_group;
    uint32_t resume_budget = 0;
    std::vector<std::unique_ptr<ShadowPage>> shadows; // a pool: the first shadows_used in use
    size_t shadows_used = 0;
    std::unordered_map<const uint8_t *, uint8_t *> shadow_of; // VRAM page -> its copy
    SmRunResult run_isolated(uint64_t cycles);
    void commit();
    void shadow(TlbEntry &e);
    void stop_at(uint32_t slot, const GroupChoice &group, uint32_t budget)
    {
        stopped = true;
        resume_slot = int(slot);
        resume_group = group;
        resume_budget = budget;
    }
    bool needs_serial(uint64_t mask, const uint64_t *addr, int64_t imm, uint32_t size,
                      Access access);
    void refresh_direct_store(TlbEntry &e) const
    {
        e.direct_store = e.writable && !e.code && e.host && (!isolated || e.vram);
    }

    // ---- timing model (config.model == timing; null otherwise)
    // The functional SM as the timing pipeline sees it: the one implementation
    // of timing::FunctionalSm, each member a view of Sm::Impl
    // (sm/timing_port.cpp).
    struct TimingPort {
        Impl *sm;
        uint64_t clock() const;
        void advance(uint64_t cycles, uint32_t warps_resident);
        uint32_t resident_warps() const;
        uint32_t resident_ctas() const;
        timing::SlotState slot_state(uint32_t slot) const;
        bool next_record(uint32_t slot, timing::InsnRecord &record);
        uint64_t execute_record(uint32_t slot, const timing::InsnRecord &record);
        bool must_run_serially(uint32_t slot, const timing::InsnRecord &record);
        uint64_t stack_bytes(uint32_t slot) const;
        bool exception_raised() const;
        bool stopped() const;
        void stop();
        bool take_stop_request();
        void account_warp_cycle(uint32_t slot, bool issued, Stall why, uint64_t cycles);
        void check_deadlocks();
    };
    std::unique_ptr<timing::SmPipeline<TimingPort>> pipeline;
    // The functional side of the seam (sm/timing_port.cpp): the record of
    // the warp's next instruction (false: its fetch faulted), and its
    // execution (returns the cycles the warp then sleeps: warp.nanosleep).
    bool next_record(uint32_t slot, timing::InsnRecord &record);
    uint64_t execute_record(uint32_t slot, const timing::InsnRecord &record);
    void account_warp_cycle(uint32_t slot, bool issued, Stall why, uint64_t cycles);

    // ---- launches, CTAs and time
    bool fits(uint32_t warps_per_cta, uint32_t shared_alloc) const;
    uint32_t add_cta(uint32_t launch, const Dim3 &ctaid); // returns the CTA slot
    std::vector<uint32_t> uninitialised; // warp slots placed since the last run()
    void initialise_placed_warps();
    void drop_cta(uint32_t cta_slot);
    void finish_cta(uint32_t cta_slot);
    SmRunResult run(uint64_t cycles);
    void advance(uint64_t cycles, uint32_t warps_resident);
    uint32_t burst(uint32_t slot, uint32_t budget);
    inline GroupChoice choose_group(Warp &w);
    uint32_t burst_group(uint32_t slot, const GroupChoice &group, uint32_t budget);

    // ---- lanes
    template <class F> SIMT_INLINE void each(uint64_t mask, F &&f) const
    {
        if (mask == full_mask) {
            for (uint32_t l = 0; l < W; ++l) f(l);
        } else {
            for (uint64_t m = mask; m; m &= m - 1) f(uint32_t(std::countr_zero(m)));
        }
    }
    uint64_t *X(Warp &w, uint32_t r) { return w.x.data() + size_t(r) * W; }
    uint64_t *F(Warp &w, uint32_t r) { return w.f.data() + size_t(r) * W; }

    // ---- exceptions
    void raise(uint32_t kind, uint32_t slot, uint32_t lane, uint64_t pc, uint32_t detail = 0,
               uint64_t address = 0, uint32_t access = 0);
    uint64_t fault_pc = 0; // PC of the instruction executing (for reports)
    uint64_t sleep_cycles = 0; // a burst's warp.nanosleep: how long its warp waits
    uint32_t fault_slot = 0;

    // ---- memory
    TlbEntry *tlb_lookup(uint64_t va, uint32_t lane, Access access);
    // The host bytes of an access to shared or local memory (in_window), or
    // nullptr: outside both windows (in_window false), a fault raised, or
    // (split) a local access across two words, for local_split.
    uint8_t *window(uint32_t slot, uint32_t lane, uint64_t va, uint32_t size, Access access,
                    bool &in_window, bool &split);
    void zero_local(Warp &w, uint32_t lane, uint64_t chunks);
    void start_local_row(Warp &w, uint64_t word, bool written_whole);
    size_t local_words(Warp &w) const; // sizes w.local for the launch's stack
    // Byte `off` of lane l's local memory (interleaved: see Warp::local).
    SIMT_INLINE uint8_t *local_byte(Warp &w, uint32_t lane, uint64_t off) const
    {
        return reinterpret_cast<uint8_t *>(w.local.data() + (off >> 3) * W + lane) + (off & 7);
    }
    // Local accesses that cross an 8-byte word: byte by byte.
    void local_split(Warp &w, uint32_t lane, uint64_t off, void *data, uint32_t size,
                     bool write);
    // The chunks of local memory bytes off..off+size-1 lie in (at most chunk
    // 63: 2 << 63 wraps to 0).
    SIMT_INLINE uint64_t local_chunks(uint64_t off, uint32_t size) const
    {
        const uint32_t shift = cur->local_chunk_shift;
        return (uint64_t(2) << ((off + size - 1) >> shift)) - (uint64_t(1) << (off >> shift));
    }
    // A register row of W lanes, copied four lanes at a time (a call to
    // memcpy was 6 % of a kernel that reloads spills).
    SIMT_INLINE void copy_lanes(void *dst, const void *src) const
    {
        typedef uint64_t Quad __attribute__((vector_size(32), aligned(1), may_alias));
        if (W % 4 != 0) {
            std::memcpy(dst, src, 8 * size_t(W));
            return;
        }
        for (uint32_t l = 0; l < W; l += 4)
            static_cast<Quad *>(dst)[l / 4] = static_cast<const Quad *>(src)[l / 4];
    }
    uint8_t *coalesced(uint32_t slot, uint64_t mask, const uint64_t *addr, int64_t imm,
                       uint32_t size, Access access, uint64_t &offset_mask, bool &one_address);
    uint8_t *contiguous(uint32_t slot, const uint64_t *addr, int64_t imm, uint32_t size,
                        Access access);
    uint8_t *global_page(uint64_t va, uint32_t lanes, Access access);
    bool access_slow(uint32_t slot, uint32_t lane, uint64_t va, void *data, uint32_t size,
                     Access access);
    template <typename T> bool load(uint32_t slot, uint32_t lane, uint64_t va, T &out);
    template <typename T> bool store(uint32_t slot, uint32_t lane, uint64_t va, T value);
    uint8_t *atomic_ptr(uint32_t slot, uint32_t lane, uint64_t va, uint32_t size, bool &dma,
                        uint64_t &bus);
    void invalidate_code_page(uint64_t page);
    const Insn *fetch(uint32_t slot, uint32_t lane, uint64_t pc, CodePage *&page,
                      uint64_t &page_vpn);

    // ---- instruction classes
    bool exec_atomic(uint32_t slot, const Insn &in, uint64_t mask);
    bool exec_fp(uint32_t slot, const Insn &in, uint64_t mask);
    bool exec_csr(uint32_t slot, const Insn &in, uint64_t mask, uint64_t clock);
    bool csr_read(Warp &w, uint32_t lane, uint32_t csr, uint64_t clock, uint64_t &value);
    bool simd_fp = false; // fp::lanes runs here and W is a multiple of 8
    template <class Compute, class Rmm>
    bool fp_rounded(uint32_t slot, const Insn &in, uint64_t mask, uint64_t *dst,
                    const Compute &compute, const Rmm &rmm, const WarpFp &warp_op = {});
    bool lane_rm(Warp &w, const Insn &in, uint32_t lane, uint8_t &rm);
    // Whether every lane's frm is round-to-nearest-even (0), eight at a time.
    // Whether every lane of `lanes` has accrued all of `flags`.
    bool lanes_have_flags(const Warp &w, uint64_t lanes, uint8_t flags) const
    {
        const uint8_t *fflags = w.fflags.data();
        if (lanes == full_mask && W % 8 == 0) {
            uint64_t all = ~uint64_t(0);
            for (uint32_t l = 0; l < W; l += 8) {
                uint64_t eight;
                std::memcpy(&eight, fflags + l, 8);
                all &= eight;
            }
            const uint64_t want = flags * 0x0101010101010101ull;
            return (all & want) == want;
        }
        bool have = true;
        each(lanes, [&](uint32_t l) { have &= (fflags[l] & flags) == flags; });
        return have;
    }
    bool frm_all_rne(const Warp &w) const
    {
        const uint8_t *frm = w.frm.data();
        uint64_t any = 0;
        uint32_t l = 0;
        for (; l + 8 <= W; l += 8) {
            uint64_t eight;
            std::memcpy(&eight, frm + l, 8);
            any |= eight;
        }
        for (; l < W; ++l) any |= frm[l];
        return any == 0;
    }

    // ---- SIMT control
    void exit_lanes(uint32_t slot, uint64_t mask);
    void arrive_barrier(uint32_t slot, const Insn &in, uint64_t mask);
    bool barrier_complete(const Cta &cta, uint32_t id) const;
    void release_barrier(Cta &cta, uint32_t id);
    uint64_t collective(uint8_t kind, uint32_t lane, uint64_t members, const uint64_t *value) const;
    void wait_in_warp_sync(uint32_t slot, uint64_t mask, uint64_t &waiting, uint64_t next_pc);
    void try_release_warp_sync(Warp &w);
    uint64_t release_votes(Warp &w);
    uint64_t release_shuffles(Warp &w);
    void check_deadlock(uint32_t cta_slot);
};

} // namespace simtgpu::sim
