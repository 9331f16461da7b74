// The SIMT core: resident CTAs and warps of one SM, their execution of
// pre-decoded RV64GC + SIMT instructions, and the SM's cycle accounting.
//
// Execution is per convergent group: the reconvergence policy picks the
// lanes of a warp that share a PC, and that group runs on (a "burst") until a
// branch splits it, its PC reaches another group's, it blocks (barrier,
// warp.sync), it exits, it touches global memory (the warp then waits
// mem_latency cycles) or its time slice ends. Inside a burst the group has
// one PC; per-lane PCs are written back when the burst ends (a converged
// warp keeps its one PC: Warp::stale_pc_lanes). Registers are
// structure-of-arrays (register r of every lane side by side), so each
// instruction is a short loop over lanes.
//
// The timing model (DeviceConfig::model == timing, docs/timing.md) uses the
// same execution one instruction at a time: each cycle each sub-core's warp
// scheduler picks a warp whose next instruction's registers are not pending
// on the scoreboard and whose functional unit is free; that instruction
// executes at issue (so results never depend on timing), its destination is
// pending for the class latency, and memory instructions go to the memory
// system (sim/src/mem), their loads pending until it answers.
#include "core/sm.h"

#include "core/decode.h"
#include "core/fp.h"
#include "core/fp_lanes.h"
#include "core/policy.h"
#include "mem/memory_system.h"
#include "simtgpu/hw.h"
#include "simtgpu/occupancy.h"
#include "timing/insn_info.h"
#include "trace/sm_trace.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <unordered_map>
#include <utility>
#include <vector>

namespace simtgpu::sim {
namespace {

constexpr uint32_t kSliceInstructions = 32; // longest burst of one group
// After this many bursts in a row in which the reconvergence policy left
// some runnable lanes of a warp waiting, the next burst goes to the group at
// the policy's yield PC instead: a lane spinning on a lock held by another
// lane of its warp cannot starve the holder (independent thread scheduling).
// The timing model counts the bursts the functional model would have run
// (Warp::burst_instructions): counting each instruction as one ran a group
// waiting at a join point past it while the others were still on their way,
// and the warp did not reconverge.
constexpr uint32_t kStarvationBursts = 64;
constexpr uint32_t kTlbEntries = 64;
constexpr uint64_t kPageMask = SIMTGPU_PAGE_SIZE - 1;
constexpr uint32_t kSlotsPerPage = SIMTGPU_PAGE_SIZE / 2; // one per halfword

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
constexpr uint8_t kCollectiveVote = 0x00, kCollectiveMatch = 0x10, kCollectiveRedux = 0x20;

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

// The timing model's view of a warp slot.
struct WarpTiming {
    // The next instruction, looked at before it issues (peek): valid while
    // the warp's runnable lanes are those it was chosen from.
    bool peeked = false;
    uint64_t peek_runnable = 0;
    GroupChoice group;
    Insn insn;
    timing::InsnInfo info;
    uint64_t not_before = 0; // after a branch or a barrier
    Stall not_before_reason = Stall::stall_no_instruction;
    uint32_t generation = 0; // bumped per warp placed in the slot
    // Lanes of the peeked memory instruction the memory system has not
    // taken yet (0: none taken so far). An access it can never take whole
    // (more lines than MSHRs or ways) goes in parts, as hardware replays it.
    uint64_t mem_left = 0;
    // The memory system refused it: it retries once an answer to this SM
    // arrives (memory_epoch moved on), when an MSHR may be free again.
    bool mem_refused = false;
    uint64_t refused_epoch = 0;
    // The scoreboard: the cycle each register's value is ready, and why not;
    // for a load's destination, its parts in flight and their latest arrival.
    std::array<uint64_t, timing::kScoreboardRegs> reg_ready{};
    std::array<Stall, timing::kScoreboardRegs> reg_reason{};
    std::array<uint8_t, timing::kScoreboardRegs> reg_parts{};
    std::array<uint64_t, timing::kScoreboardRegs> reg_arrival{};
};

// One sub-core: a warp scheduler over warp slots s with s % N == index, and
// its functional units. ready/long_wait/why: per slot, this cycle.
struct SubCore {
    std::unique_ptr<WarpScheduler> scheduler;
    std::vector<uint32_t> slots;
    std::vector<uint8_t> ready;
    std::vector<uint8_t> live;
    std::vector<uint8_t> long_wait;
    std::vector<Stall> why;
    std::vector<uint64_t> age;
    bool any_ready = false;
    int last = -1;
    std::array<uint64_t, timing::kInsnClasses> unit_free{};
};

// A memory access whose answer a register (or nothing) waits for.
struct PendingLoad {
    uint32_t slot = 0, generation = 0;
    uint8_t reg = 0;
    bool valid = false;
};

// Local memory is per thread at the same addresses; to the caches it is
// interleaved by lane as on NVIDIA GPUs, in a range of its own per warp.
constexpr uint64_t kLocalTimingBase = uint64_t(1) << 47;

} // namespace

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

    // ---- timing model (config.model == timing; empty otherwise)
    std::vector<WarpTiming> timing_warps;
    std::vector<SubCore> subcores;
    std::unique_ptr<mem::MemorySystem> own_memory; // a lone SM's
    mem::MemorySystem *memory = nullptr;
    uint32_t memory_sm = 0; // this SM's index in *memory
    std::vector<PendingLoad> pending; // by token
    uint32_t loads_in_flight = 0;     // global and local loads the memory system holds
    uint64_t sleep_until = 0;         // no warp can issue before this cycle
    uint64_t memory_epoch = 0;        // answers of the memory system so far
    mem::WarpAccess access;

    // A timing cycle between its two halves: what the first found.
    struct CycleState {
        uint32_t warps_resident = 0;
        uint32_t blocked = 0, active = 0; // warps with no runnable lane, live warps
        uint64_t wake = UINT64_MAX;       // when the first reason not to issue ends
        bool any_ready = false;
        size_t subcore = 0; // the next sub-core to issue
        int pick = -1;      // its pick, made before the run stopped
    };
    std::optional<CycleState> resume_cycle;

    void make_own_memory();
    SmRunResult run_timing(uint64_t cycles);
    void timing_cycle();
    void issue_cycle(CycleState c);
    bool must_run_serially(uint32_t slot);
    bool peek(uint32_t slot);
    bool warp_ready(uint32_t slot, const SubCore &sc, Stall &why, uint64_t &until);
    bool issue_memory(uint32_t slot);
    bool timing_issue(uint32_t slot, SubCore &sc);
    void account_warp_cycle(uint32_t slot, bool issued, Stall why, uint64_t cycles);
    void sleep(uint64_t cycles);
    void memory_done(const mem::Completion &c);

    // ---- launches, CTAs and time
    bool fits(uint32_t warps_per_cta, uint32_t shared_alloc) const;
    void add_cta(uint32_t launch, const Dim3 &ctaid);
    std::vector<uint32_t> uninitialised; // warp slots placed since the last run()
    void initialise_placed_warps();
    void drop_cta(uint32_t cta_slot);
    void finish_cta(uint32_t cta_slot);
    SmRunResult run(uint64_t cycles);
    void advance(uint64_t cycles, uint32_t warps_resident);
    uint32_t burst(uint32_t slot, uint32_t budget);
    GroupChoice choose_group(Warp &w);
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
    // An operation fp::lanes computes for a whole warp in host SIMD.
    struct WarpFp {
        bool ok = false;
        bool dbl = false;
        fp::lanes::Kind kind = fp::lanes::Kind::Add;
        const uint64_t *a = nullptr, *b = nullptr, *c = nullptr;
        double sa = 1, sc = 1;
    };
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

Sm::Impl::Impl(const DeviceConfig &cfg, uint32_t id)
    : config(cfg), sm_id(id), W(cfg.warp_size),
      full_mask(cfg.warp_size >= 64 ? ~uint64_t(0) : (uint64_t(1) << cfg.warp_size) - 1),
      reconvergence(make_reconvergence_policy(cfg.reconvergence)),
      scheduler(make_warp_scheduler(cfg.warp_scheduler))
{
    simd_fp = W % 8 == 0 && fp::lanes::available();
    warps.resize(cfg.warps_per_sm);
    for (Warp &w : warps) {
        w.pc.resize(W);
        w.x.resize(size_t(kIntRegs) * W);
        w.f.resize(size_t(32) * W);
        w.fflags.resize(W);
        w.frm.resize(W);
        w.tid.resize(size_t(3) * W);
        w.sync_mask.resize(W);
        w.sync_value.resize(W);
        w.sync_funct.resize(W);
        w.sync_src.resize(W);
        w.sync_rs1.resize(W);
        w.sync_rd.resize(W);
        w.bar_kind.resize(W);
        w.bar_rd.resize(W);
        w.resv_addr.resize(W);
        w.resv_value.resize(W);
        w.local_zeroed.resize(W);
    }
    ctas.resize(cfg.ctas_per_sm);
    launches.resize(cfg.ctas_per_sm);
    ready_at.resize(cfg.warps_per_sm);
    held.resize(cfg.warps_per_sm);
    held_fault.resize(cfg.warps_per_sm);
    can_issue.resize((cfg.warps_per_sm + 63) / 64);
    recheck.resize(can_issue.size());
    ready.resize(can_issue.size());
    waiting.resize(can_issue.size());
    age.resize(cfg.warps_per_sm);
    issued_at.resize(cfg.warps_per_sm);
    if (cfg.model == Model::timing) {
        timing_warps.resize(cfg.warps_per_sm);
        const uint32_t n = std::max<uint32_t>(1, cfg.timing.schedulers_per_sm);
        subcores.resize(n);
        for (uint32_t k = 0; k < n; ++k) {
            SubCore &sc = subcores[k];
            sc.scheduler = make_warp_scheduler(cfg.warp_scheduler);
            for (uint32_t slot = k; slot < cfg.warps_per_sm; slot += n) sc.slots.push_back(slot);
            sc.ready.resize(sc.slots.size());
            sc.live.resize(sc.slots.size());
            sc.long_wait.resize(sc.slots.size());
            sc.why.resize(sc.slots.size());
            sc.age.resize(sc.slots.size());
        }
    }
}

// A lone SM's memory system, made when a launch is attached unless
// use_memory_system() shared another first (a device's SMs share one:
// making 80 that nobody uses cost most of a short volta run).
void Sm::Impl::make_own_memory()
{
    auto created = mem::MemorySystem::create(config.memory, 1, config.clock_khz);
    if (!created) {
        // DeviceConfig's builders validate the memory configuration with
        // MemorySystem::create; reaching here is a caller's bug.
        std::fprintf(stderr, "simtgpu: DeviceConfig.memory is invalid: %s\n",
                     created.error().c_str());
        std::abort();
    }
    own_memory = std::make_unique<mem::MemorySystem>(std::move(*created));
    memory = own_memory.get();
    memory_sm = 0;
}

// ------------------------------------------------------------ CTAs, time

bool Sm::Impl::fits(uint32_t warps_per_cta, uint32_t shared_alloc) const
{
    return resident_ctas < config.ctas_per_sm &&
           resident_warps + warps_per_cta <= config.warps_per_sm &&
           shared_used + shared_alloc <= config.shared_bytes_per_sm;
}

void Sm::Impl::add_cta(uint32_t launch_slot, const Dim3 &ctaid)
{
    uint32_t cslot = 0;
    while (ctas[cslot].active) ++cslot;
    Cta &cta = ctas[cslot];
    LaunchContext &lc = launches[launch_slot];
    const LaunchDesc &launch = lc.desc;
    const uint32_t threads = launch.threads_per_cta();
    const uint32_t nwarps = lc.warps_per_cta;
    cta.active = true;
    cta.launch = launch_slot;
    cta.ctaid = ctaid;
    cta.live = threads;
    cta.slots = nwarps * W;
    cta.missing = cta.slots - threads;
    cta.bars.fill(Barrier{});
    cta.red_true = cta.red_arrivals = 0;
    cta.warps.clear();
    cta.shared.assign(launch.shared_bytes, 0);
    for (uint32_t k = 0, slot = 0; k < nwarps; ++k, ++slot) {
        while (warps[slot].active) ++slot;
        Warp &w = warps[slot];
        const uint32_t lanes = std::min(W, threads - k * W);
        w.active = true;
        w.cta = cslot;
        w.warp_in_cta = k;
        w.valid = lanes >= 64 ? ~uint64_t(0) : (uint64_t(1) << lanes) - 1;
        w.exited = w.blocked_bar = w.blocked_sync = w.resv_valid = 0;
        w.bar_lanes.fill(0);
        w.bar_red_lanes = 0;
        w.waiting_warp_sync = w.waiting_vote = w.waiting_shfl = 0;
        ready_at[slot] = now;
        recheck_slot(slot);
        w.partial_bursts = w.burst_instructions = 0;
        w.burst_global = false;
        w.yielded_to = 0;
        age[slot] = warps_launched++;
        issued_at[slot] = now;
        if (!subcores.empty()) {
            sleep_until = 0;
            WarpTiming &t = timing_warps[slot];
            t.peeked = false;
            t.not_before = now;
            ++t.generation;
            t.mem_left = 0;
            t.mem_refused = false;
            t.reg_ready.fill(0);
            t.reg_parts.fill(0);
            t.reg_arrival.fill(0);
            subcores[slot % subcores.size()].age[slot / subcores.size()] = age[slot];
        }
        w.same_pc_lanes = w.stale_pc_lanes = full_mask;
        w.same_pc = launch.entry_pc;
        uninitialised.push_back(slot);
        cta.warps.push_back(slot);
        ++resident_warps;
    }
    ++resident_ctas;
    ++lc.resident_ctas;
    shared_used += lc.shared_alloc;
    if (trace)
        trace->cta_placed(cslot, ctaid, launch.entry_pc, now);
}

// A placed warp's registers, zeroed and given its thread ids, parameters
// and stack pointer when the SM next runs rather than in add_cta: CTAs are
// placed between quanta on one thread, and the SMs run them on several.
void Sm::Impl::initialise_placed_warps()
{
    for (uint32_t slot : uninitialised) {
        Warp &w = warps[slot];
        if (!w.active)
            continue; // dropped before it ran
        const LaunchDesc &launch = launches[ctas[w.cta].launch].desc;
        // Runs of adjacent rows at once (a memset per row was most of it).
        auto zero_rows = [&](uint64_t rows, uint64_t *first_row) {
            while (rows) {
                const uint32_t r = uint32_t(std::countr_zero(rows));
                const uint32_t n = uint32_t(std::countr_one(rows >> r));
                std::fill_n(first_row + size_t(r) * W, size_t(n) * W, 0);
                rows &= n + r >= 64 ? 0 : ~uint64_t(0) << (n + r);
            }
        };
        zero_rows(w.dirty_x, X(w, 0));
        zero_rows(w.dirty_f, F(w, 0));
        w.dirty_x = uint64_t(1) << 2 | uint64_t(1) << 10; // sp and a0, below
        w.dirty_f = 0;
        std::fill(w.fflags.begin(), w.fflags.end(), 0);
        std::fill(w.frm.begin(), w.frm.end(), 0);
        const uint64_t sp = SIMTGPU_LOCAL_BASE + launch.stack_bytes;
        // The first lane's thread index by division, the others by counting
        // on from it (three divisions per lane were a tenth of a small
        // kernel's time).
        const uint32_t first = w.warp_in_cta * W;
        uint32_t tx = first % launch.block[0];
        uint32_t ty = first / launch.block[0] % launch.block[1];
        uint32_t tz = first / (launch.block[0] * launch.block[1]);
        for (uint32_t l = 0; l < W; ++l) {
            w.tid[3 * l] = tx;
            w.tid[3 * l + 1] = ty;
            w.tid[3 * l + 2] = tz;
            if (++tx == launch.block[0]) {
                tx = 0;
                if (++ty == launch.block[1]) {
                    ty = 0;
                    ++tz;
                }
            }
            X(w, 10)[l] = launch.param_va;
            X(w, 2)[l] = sp;
            w.local_zeroed[l] = 0;
        }
        w.local_zeroed_any = 0;
        w.local_rows.assign((size_t(launch.stack_bytes) + 8 * 64 - 1) / (8 * 64), 0);
    }
    uninitialised.clear();
}

void Sm::Impl::drop_cta(uint32_t cslot)
{
    Cta &cta = ctas[cslot];
    LaunchContext &lc = launches[cta.launch];
    if (trace)
        trace->cta_left(cslot, cta.warps, cta.live == 0);
    for (uint32_t slot : cta.warps) {
        warps[slot].active = false;
        release_hold(slot);
        recheck_slot(slot);
        if (int(slot) == resume_slot) resume_slot = -1;
    }
    resident_warps -= uint32_t(cta.warps.size());
    cta.active = false;
    --resident_ctas;
    --lc.resident_ctas;
    shared_used -= lc.shared_alloc;
}

void Sm::Impl::finish_cta(uint32_t cslot)
{
    LaunchContext &lc = launches[ctas[cslot].launch];
    ++lc.ctas_completed;
    ++lc.ctas_finished;
    drop_cta(cslot);
    ++ctas_completed;
    ++stats.ctas;
}

void Sm::Impl::advance(uint64_t cycles, uint32_t warps_resident)
{
    now += cycles;
    if (warps_resident) {
        stats.sm_busy_cycles += cycles;
        stats.resident_warp_cycles += cycles * warps_resident;
    }
    if (trace)
        trace->flush(now);
}

// Functional mode: what each warp does from now until the next pick, at
// the granularity of bursts (docs/trace.md).
void Sm::Impl::trace_pick(int picked) {
    for (uint32_t s = 0; s < warps.size(); ++s) {
        const Warp &w = warps[s];
        if (!w.active)
            continue;
        trace::WarpState state = trace::stall_state(Stall::stall_not_selected);
        if (int(s) == picked)
            state = trace::WarpState::issue;
        else if (!w.live())
            state = trace::WarpState::done;
        else if (!w.runnable())
            state = trace::stall_state(Stall::stall_barrier);
        else if (ready_at[s] > now)
            state = trace::WarpState::wait_mem_latency;
        trace->warp(s, state, now);
    }
}

SmRunResult Sm::Impl::run(uint64_t cycles)
{
    initialise_placed_warps();
    if (!subcores.empty()) return run_timing(cycles);
    ctas_completed = 0;
    stopped = false;
    const uint64_t end = now + cycles;
    if (resume_slot >= 0 && resident_ctas && !exception && now < end) {
        // The burst an isolated run stopped, from the instruction it stopped
        // before: the same warp, group and budget, as if it had not stopped.
        const uint32_t slot = uint32_t(resume_slot);
        resume_slot = -1;
        const uint32_t warps_resident = resident_warps;
        const uint32_t issued = burst_group(
            slot, resume_group, uint32_t(std::min<uint64_t>(resume_budget, end - now)));
        recheck_slot(slot);
        advance(issued, warps_resident);
    }
    while (now < end && resident_ctas && !exception && !stopped) {
        for (size_t k = 0; k < can_issue.size(); ++k) {
            for (uint64_t m = recheck[k]; m; m &= m - 1) {
                const uint32_t s = uint32_t(k * 64) + uint32_t(std::countr_zero(m));
                const Warp &w = warps[s];
                if (w.active && w.runnable()) {
                    can_issue[k] |= m & -m;
                    if (ready_at[s] > now) {
                        waiting[k] |= m & -m;
                        if (ready_at[s] != UINT64_MAX) wake_at(ready_at[s], s);
                    } else {
                        waiting[k] &= ~(m & -m);
                    }
                } else {
                    can_issue[k] &= ~(m & -m);
                    waiting[k] &= ~(m & -m);
                }
            }
            recheck[k] = 0;
        }
        const uint64_t next_ready = wake_due();
        for (size_t k = 0; k < can_issue.size(); ++k)
            ready[k] = can_issue[k] & ~waiting[k];
        const int slot = scheduler->pick_bits(ready, uint32_t(warps.size()), age, last_issued);
        if (trace)
            trace_pick(slot);
        if (slot < 0) {
            if (next_ready == UINT64_MAX) { // every live thread blocked
                // ... unless some wait for a replay: the driver's turn then
                for (uint32_t c = 0; c < ctas.size() && !exception && !held_warps; ++c)
                    if (ctas[c].active) check_deadlock(c);
                break;
            }
            advance(std::min(next_ready, end) - now, resident_warps);
            continue;
        }
        last_issued = slot;
        issued_at[size_t(slot)] = now;
        // The cycles of a burst in which the last CTA exits are still busy ones.
        const uint32_t warps_resident = resident_warps;
        const uint32_t issued =
            burst(uint32_t(slot), uint32_t(std::min<uint64_t>(kSliceInstructions, end - now)));
        recheck_slot(uint32_t(slot));
        advance(issued, warps_resident);
    }
    SmRunResult r;
    r.ctas_completed = ctas_completed;
    r.exception = exception;
    r.exception_launch = exception_launch;
    return r;
}

// ------------------------------------------------------------- exceptions

void Sm::Impl::raise(uint32_t kind, uint32_t slot, uint32_t lane, uint64_t pc, uint32_t detail,
                     uint64_t address, uint32_t access)
{
    if (exception) return;
    const Warp &w = warps[slot];
    Exception e;
    e.kind = kind;
    e.access = access;
    e.detail = detail;
    e.address = address;
    e.pc = pc;
    e.sm = sm_id;
    e.warp = slot;
    e.lane = lane;
    e.ctaid = ctas[w.cta].ctaid;
    e.tid = {w.tid[3 * lane], w.tid[3 * lane + 1], w.tid[3 * lane + 2]};
    exception = e;
    exception_launch = ctas[w.cta].launch;
}


// ---------------------------------------------------- replayable faults

void Sm::Impl::hold(uint32_t slot)
{
    Held h = *replay_hold;
    replay_hold.reset();
    h.cycle = now;
    const uint32_t launch = ctas[warps[slot].cta].launch;
    if (!held[slot]) {
        held[slot] = 1;
        ++held_warps;
    }
    held_fault[slot] = h;
    new_faults.push_back(HeldFault{launch, h.address, h.access, h.cycle});
    ready_at[slot] = UINT64_MAX; // the functional model: never, until replay()
    if (!subcores.empty()) {
        timing_warps[slot].not_before = UINT64_MAX;
        timing_warps[slot].not_before_reason = Stall::stall_long_scoreboard;
    }
    recheck_slot(slot);
}

void Sm::Impl::release_hold(uint32_t slot)
{
    if (!held[slot])
        return;
    held[slot] = 0;
    --held_warps;
}

bool Sm::Impl::atomic_pages_present(uint64_t mask, const uint64_t *addr, uint32_t size)
{
    for (uint64_t m = mask; m; m &= m - 1) {
        const uint32_t l = uint32_t(std::countr_zero(m));
        const uint64_t va = addr[l];
        if ((va >> 32) == (SIMTGPU_SHARED_BASE >> 32) || (va >> 32) == (SIMTGPU_LOCAL_BASE >> 32) ||
            (va & (size - 1)))
            continue; // not through the MMU, or misaligned: the lane loop says so
        const uint64_t vpn = va >> SIMTGPU_PAGE_SHIFT;
        const TlbEntry &e = cur->tlb[vpn % kTlbEntries];
        bool waits;
        if (e.page == vpn) {
            waits = !e.writable && e.readable && e.replay_on_write;
        } else {
            const PageTranslation t = cur->memory->translate(vpn << SIMTGPU_PAGE_SHIFT);
            waits = t.replayable && (t.fault || (!t.writable && t.readable));
        }
        if (waits) { // other faults: raised by the lane loop, in lane order
            replay_hold = Held{va, fault_pc, 0, SIMTGPU_ACCESS_ATOMIC, l};
            return false;
        }
    }
    return true;
}

// ----------------------------------------------------------------- memory

TlbEntry *Sm::Impl::tlb_lookup(uint64_t va, uint32_t lane, Access access)
{
    const uint64_t vpn = va >> SIMTGPU_PAGE_SHIFT;
    TlbEntry &e = cur->tlb[vpn % kTlbEntries];
    if (e.page == vpn) {
        ++stats.tlb_hits;
    } else {
        ++stats.tlb_misses;
        const PageTranslation t = cur->memory->translate(vpn << SIMTGPU_PAGE_SHIFT);
        if (t.fault) {
            if (t.replayable && access != Access::Exec)
                replay_hold = Held{va, fault_pc, 0, uint32_t(access), lane};
            else
                raise(SIMTGPU_EXC_PAGE_FAULT, fault_slot, lane, fault_pc, t.fault, va,
                      uint32_t(access));
            return nullptr;
        }
        e.page = vpn;
        e.host = t.host;
        e.bus = t.bus_address;
        e.readable = t.readable;
        e.writable = t.writable;
        e.executable = t.executable;
        e.replay_on_write = t.replayable;
        e.code = cur->code.count(vpn) != 0;
        e.vram = nullptr;
        if (isolated && e.host)
            if (auto copy = shadow_of.find(e.host); copy != shadow_of.end()) {
                e.vram = e.host;
                e.host = copy->second;
            }
        refresh_direct_store(e);
    }
    bool ok = true;
    switch (access) {
    case Access::Read: ok = e.readable; break;
    case Access::Write: ok = e.writable; break;
    case Access::Exec: ok = e.executable; break;
    case Access::Atomic: ok = e.readable && e.writable; break;
    }
    if (!ok) {
        if (e.replay_on_write && e.readable && (access == Access::Write || access == Access::Atomic))
            replay_hold = Held{va, fault_pc, 0, uint32_t(access), lane};
        else
            raise(SIMTGPU_EXC_PAGE_FAULT, fault_slot, lane, fault_pc, SIMTGPU_FAULT_PROTECTION, va,
                  uint32_t(access));
        return nullptr;
    }
    return &e;
}

// Shared or local window access: the host pointer, or nullptr with an
// exception when out of the window. in_window says whether va is in one.
SIMT_INLINE uint8_t *Sm::Impl::window(uint32_t slot, uint32_t lane, uint64_t va, uint32_t size,
                                      Access access, bool &in_window, bool &split)
{
    in_window = true;
    split = false;
    if ((va >> 32) == (SIMTGPU_SHARED_BASE >> 32)) {
        std::vector<uint8_t> &shared = ctas[warps[slot].cta].shared;
        const uint64_t off = va - SIMTGPU_SHARED_BASE;
        if (off + size <= shared.size()) return shared.data() + off;
    } else if ((va >> 32) == (SIMTGPU_LOCAL_BASE >> 32)) {
        const uint64_t off = va - SIMTGPU_LOCAL_BASE;
        if (off + size <= cur->desc.stack_bytes) {
            Warp &w = warps[slot];
            const uint64_t need = local_chunks(off, size);
            if (need & ~w.local_zeroed[lane])
                zero_local(w, lane, need);
            if ((off & 7) + size > 8) { // two words, not adjacent: the caller goes byte by byte
                split = true;
                return nullptr;
            }
            return local_byte(w, lane, off);
        }
    } else {
        in_window = false;
        return nullptr;
    }
    raise(SIMTGPU_EXC_PAGE_FAULT, slot, lane, fault_pc, SIMTGPU_FAULT_OUT_OF_WINDOW, va,
          uint32_t(access));
    return nullptr;
}

// Four lanes' 64-bit registers as one host vector (GCC's vector extensions:
// one AVX2 operation in the burst loop's AVX2 clone, two SSE2 ones otherwise).
typedef uint64_t LaneQuad __attribute__((vector_size(32), aligned(8), may_alias));
// (By reference: a vector by value would change the ABI between the clones.)
SIMT_INLINE const LaneQuad &quad(const uint64_t *lanes)
{
    return *reinterpret_cast<const LaneQuad *>(lanes);
}
SIMT_INLINE uint64_t or_quad(const LaneQuad &q) { return q[0] | q[1] | q[2] | q[3]; }

// A warp access whose lanes all fall in one global page that the TLB maps to
// host memory, or all in the CTA's shared memory: the host pointer `base`
// such that a lane's bytes are at base + (its address & offset_mask), or
// nullptr for the per-lane path. one_address: every lane's address is the
// same. Counts what the per-lane path would (a TLB hit per lane), so
// statistics are the same either way. The lanes' addresses are compared with
// the first lane's by XOR and their offsets bounded by OR, not by a min/max
// (a chain of compare-and-moves was half the time of a shared-memory load).
SIMT_INLINE uint8_t *Sm::Impl::coalesced(uint32_t slot, uint64_t mask, const uint64_t *addr,
                                         int64_t imm, uint32_t size, Access access,
                                         uint64_t &offset_mask, bool &one_address) {
    const uint64_t ref = addr[std::countr_zero(mask)] + imm;
    uint64_t differ = 0, offsets = 0; // bits where some lane differs from ref; of any lane
    if (mask == full_mask && W % 4 == 0) {
        LaneQuad differ4 = {0, 0, 0, 0}, offsets4 = {0, 0, 0, 0};
        for (uint32_t l = 0; l < W; l += 4) {
            const LaneQuad lanes = quad(addr + l) + uint64_t(imm);
            differ4 |= lanes ^ ref;
            offsets4 |= lanes;
        }
        differ = or_quad(differ4);
        offsets = or_quad(offsets4);
    } else {
        each(mask, [&](uint32_t l) {
            differ |= (addr[l] + imm) ^ ref;
            offsets |= addr[l] + imm;
        });
    }
    one_address = differ == 0;
    // OR of the offsets bounds the highest one: fits within it, fits for all.
    if ((ref >> 32) == (SIMTGPU_SHARED_BASE >> 32) && (differ >> 32) == 0) {
        std::vector<uint8_t> &shared = ctas[warps[slot].cta].shared;
        if ((offsets & 0xffffffff) + size > shared.size())
            return nullptr;
        offset_mask = 0xffffffff;
        return shared.data();
    }
    if ((differ & ~kPageMask) || (offsets & kPageMask) + size > SIMTGPU_PAGE_SIZE)
        return nullptr;
    offset_mask = kPageMask;
    return global_page(ref, uint32_t(std::popcount(mask)), access);
}

// A full warp whose lane l accesses addr[0] + imm + l * size, in one page
// that the TLB maps to host memory or in the CTA's shared memory: the host
// pointer of lane 0's bytes (lane l's follow at l * size), or nullptr. The
// common case of a warp access, checked with less work than coalesced.
SIMT_INLINE uint8_t *Sm::Impl::contiguous(uint32_t slot, const uint64_t *addr, int64_t imm,
                                          uint32_t size, Access access) {
    const uint64_t first = addr[0];
    // The last lane first: most accesses off the row fail here at once.
    if (W % 4 != 0 || addr[W - 1] - first != uint64_t(W - 1) * size)
        return nullptr;
    LaneQuad off4 = {0, 0, 0, 0}; // any bit set: a lane off the row
    LaneQuad row = LaneQuad{0, 1, 2, 3} * uint64_t(size) + first;
    for (uint32_t l = 0; l < W; l += 4) {
        off4 |= quad(addr + l) ^ row;
        row += 4 * uint64_t(size);
    }
    if (or_quad(off4))
        return nullptr;
    const uint64_t lo = first + imm, last = lo + uint64_t(W) * size - 1;
    if ((lo >> 32) == (SIMTGPU_SHARED_BASE >> 32) && ((lo ^ last) >> 32) == 0) {
        std::vector<uint8_t> &shared = ctas[warps[slot].cta].shared;
        if (last - SIMTGPU_SHARED_BASE >= shared.size())
            return nullptr;
        return shared.data() + (lo - SIMTGPU_SHARED_BASE);
    }
    if ((lo ^ last) & ~kPageMask)
        return nullptr;
    uint8_t *page = global_page(lo, W, access);
    return page ? page + (lo & kPageMask) : nullptr;
}

// The host memory of the global page of va when the TLB maps it to host
// memory for this access, counting a TLB hit for each of `lanes`; nullptr
// otherwise (also for the shared and local windows).
SIMT_INLINE uint8_t *Sm::Impl::global_page(uint64_t va, uint32_t lanes, Access access) {
    if ((va >> 32) == (SIMTGPU_SHARED_BASE >> 32) || (va >> 32) == (SIMTGPU_LOCAL_BASE >> 32))
        return nullptr;
    const uint64_t vpn = va >> SIMTGPU_PAGE_SHIFT;
    const TlbEntry &e = cur->tlb[vpn % kTlbEntries];
    if (e.page != vpn || !e.host)
        return nullptr;
    if (access == Access::Read ? !e.readable : !e.direct_store)
        return nullptr;
    touched_global = true;
    stats.tlb_hits += lanes;
    return e.host;
}

// Zeroes the chunks of a lane's local memory that its thread touches for
// the first time.
size_t Sm::Impl::local_words(Warp &w) const {
    const size_t words = (size_t(cur->desc.stack_bytes) + 7) / 8;
    if (w.local.size() < words * W)
        w.local.resize(words * W); // word k of lane l stays at k * W + l
    return words;
}

// Zeroes lane's words of `chunks` that it has not zeroed, but for the rows
// already zeroed or written in every lane.
void Sm::Impl::zero_local(Warp &w, uint32_t lane, uint64_t chunks) {
    const size_t words = local_words(w);
    const uint32_t shift = cur->local_chunk_shift; // >= 3: chunks are whole words
    for (uint64_t m = chunks & ~w.local_zeroed[lane]; m; m &= m - 1) {
        const size_t begin = size_t(std::countr_zero(m)) << (shift - 3);
        const size_t end = std::min(begin + (size_t(1) << (shift - 3)), words);
        for (size_t k = begin; k < end; ++k)
            if (!w.local_row_ready(k)) w.local[k * W + lane] = 0;
    }
    w.local_zeroed[lane] |= chunks;
    w.local_zeroed_any |= chunks;
}

// Word `word` of every lane (a row) made ready for an access of them all:
// zeroed, but in lanes that zeroed its chunk themselves, or left as it is
// when the access writes all of it.
void Sm::Impl::start_local_row(Warp &w, uint64_t word, bool written_whole) {
    local_words(w);
    uint64_t *row = w.local.data() + word * W;
    const uint64_t chunk = uint64_t(1) << (word >> (cur->local_chunk_shift - 3));
    if (written_whole) {
    } else if (!(w.local_zeroed_any & chunk)) {
        std::memset(row, 0, W * sizeof(uint64_t));
    } else {
        for (uint32_t l = 0; l < W; ++l)
            if (!(w.local_zeroed[l] & chunk)) row[l] = 0;
    }
    w.local_rows[word >> 6] |= uint64_t(1) << (word & 63);
}

void Sm::Impl::local_split(Warp &w, uint32_t lane, uint64_t off, void *data, uint32_t size,
                           bool write) {
    uint8_t *bytes = static_cast<uint8_t *>(data);
    for (uint32_t i = 0; i < size; ++i) {
        uint8_t *p = local_byte(w, lane, off + i);
        if (write) *p = bytes[i];
        else bytes[i] = *p;
    }
}

// Global accesses that cross a page or reach host memory: byte by byte.
bool Sm::Impl::access_slow(uint32_t, uint32_t lane, uint64_t va, void *data, uint32_t size,
                           Access access)
{
    uint8_t *bytes = static_cast<uint8_t *>(data);
    for (uint32_t i = 0; i < size; ++i) {
        const uint64_t a = va + i;
        TlbEntry *e = tlb_lookup(a, lane, access);
        if (!e) return false;
        const uint64_t off = a & kPageMask;
        if (access == Access::Write && e->code) invalidate_code_page(e->page);
        if (access == Access::Write && isolated && e->host && !e->vram) shadow(*e);
        if (e->host) {
            if (access == Access::Write) e->host[off] = bytes[i];
            else bytes[i] = e->host[off];
            continue;
        }
        const bool ok = access == Access::Write ? cur->memory->dma_write(e->bus + off, bytes + i, 1)
                                                : cur->memory->dma_read(e->bus + off, bytes + i, 1);
        if (!ok) {
            raise(SIMTGPU_EXC_PAGE_FAULT, fault_slot, lane, fault_pc, SIMTGPU_FAULT_DMA, a,
                  uint32_t(access));
            return false;
        }
    }
    return true;
}

template <typename T> SIMT_INLINE bool Sm::Impl::load(uint32_t slot, uint32_t lane, uint64_t va, T &out)
{
    bool in_window, split;
    if (uint8_t *p = window(slot, lane, va, sizeof(T), Access::Read, in_window, split)) {
        std::memcpy(&out, p, sizeof(T));
        return true;
    }
    if (split) {
        local_split(warps[slot], lane, va - SIMTGPU_LOCAL_BASE, &out, sizeof(T), false);
        return true;
    }
    if (in_window) return false;
    touched_global = true;
    const uint64_t vpn = va >> SIMTGPU_PAGE_SHIFT;
    const TlbEntry &e = cur->tlb[vpn % kTlbEntries];
    if (e.page == vpn && e.host && e.readable && (va & kPageMask) + sizeof(T) <= SIMTGPU_PAGE_SIZE) {
        ++stats.tlb_hits;
        std::memcpy(&out, e.host + (va & kPageMask), sizeof(T));
        return true;
    }
    return access_slow(slot, lane, va, &out, sizeof(T), Access::Read);
}

template <typename T> SIMT_INLINE bool Sm::Impl::store(uint32_t slot, uint32_t lane, uint64_t va, T value)
{
    bool in_window, split;
    if (uint8_t *p = window(slot, lane, va, sizeof(T), Access::Write, in_window, split)) {
        std::memcpy(p, &value, sizeof(T));
        return true;
    }
    if (split) {
        local_split(warps[slot], lane, va - SIMTGPU_LOCAL_BASE, &value, sizeof(T), true);
        return true;
    }
    if (in_window) return false;
    touched_global = true;
    const uint64_t vpn = va >> SIMTGPU_PAGE_SHIFT;
    const TlbEntry &e = cur->tlb[vpn % kTlbEntries];
    if (e.page == vpn && e.direct_store && (va & kPageMask) + sizeof(T) <= SIMTGPU_PAGE_SIZE) {
        ++stats.tlb_hits;
        std::memcpy(e.host + (va & kPageMask), &value, sizeof(T));
        return true;
    }
    return access_slow(slot, lane, va, &value, sizeof(T), Access::Write);
}

// The host pointer of an aligned atomic, or (dma = true) its bus address.
uint8_t *Sm::Impl::atomic_ptr(uint32_t slot, uint32_t lane, uint64_t va, uint32_t size,
                              bool &dma, uint64_t &bus)
{
    dma = false;
    if (va & (size - 1)) {
        raise(SIMTGPU_EXC_MISALIGNED, slot, lane, fault_pc, 0, va, SIMTGPU_ACCESS_ATOMIC);
        return nullptr;
    }
    bool in_window, split; // aligned: never split
    if (uint8_t *p = window(slot, lane, va, size, Access::Atomic, in_window, split)) return p;
    if (in_window) return nullptr;
    touched_global = true;
    TlbEntry *e = tlb_lookup(va, lane, Access::Atomic);
    if (!e) return nullptr;
    if (e->code) invalidate_code_page(e->page);
    if (e->host) return e->host + (va & kPageMask);
    dma = true;
    bus = e->bus + (va & kPageMask);
    return nullptr;
}

// ------------------------------------------------------- isolated runs
//
// An isolated run (Sm::run_isolated) changes nothing outside the SM, so the
// SMs of a quantum can run on several host threads in any order: its stores
// to VRAM go to shadow copies of their pages, which its own loads read, and
// it stops before an instruction whose effect other SMs would see at once
// (a global atomic, DMA to host memory, a store to decoded code). commit()
// then applies the stores in SM order and run() goes on serially.

bool Sm::Impl::needs_serial(uint64_t mask, const uint64_t *addr, int64_t imm, uint32_t size,
                            Access access)
{
    uint64_t checked = UINT64_MAX;
    for (uint64_t m = mask; m; m &= m - 1) {
        const uint64_t va = addr[std::countr_zero(m)] + imm;
        if ((va >> 32) == (SIMTGPU_SHARED_BASE >> 32) || (va >> 32) == (SIMTGPU_LOCAL_BASE >> 32))
            continue; // the windows are the CTA's and the thread's own
        if (access == Access::Atomic)
            return true;
        for (uint64_t vpn = va >> SIMTGPU_PAGE_SHIFT; vpn <= (va + size - 1) >> SIMTGPU_PAGE_SHIFT;
             ++vpn) {
            if (vpn == checked)
                continue;
            checked = vpn;
            const TlbEntry &e = cur->tlb[vpn % kTlbEntries];
            bool in_vram, code;
            if (e.page == vpn) {
                in_vram = e.host;
                code = e.code;
            } else { // translate() only reads the page tables; a fault is raised as usual
                const PageTranslation t = cur->memory->translate(vpn << SIMTGPU_PAGE_SHIFT);
                if (t.fault)
                    continue;
                in_vram = t.host;
                code = cur->code.count(vpn) != 0;
            }
            if (!in_vram || (access == Access::Write && code))
                return true;
        }
    }
    return false;
}

// The first store of an isolated run to a VRAM page: a copy of the page
// takes it, and every TLB entry of the SM that maps the page points there.
void Sm::Impl::shadow(TlbEntry &e)
{
    uint8_t *const page = e.host;
    uint8_t *&copy = shadow_of[page];
    if (!copy) {
        if (shadows_used == shadows.size()) shadows.push_back(std::make_unique<ShadowPage>());
        ShadowPage &sp = *shadows[shadows_used++];
        sp.vram = page;
        // A write that changes nothing, so that a never-touched page is
        // mapped writable now, not to the zero page that commit() would then
        // replace with a TLB shootdown of every thread. Atomic: other SMs
        // may read the page meanwhile; nobody writes VRAM in this phase.
        __atomic_fetch_or(page, uint8_t(0), __ATOMIC_RELAXED);
        std::memcpy(sp.copy, page, SIMTGPU_PAGE_SIZE);
        copy = sp.copy;
    }
    for (LaunchContext &l : launches) {
        if (!l.attached) continue;
        for (TlbEntry &t : l.tlb) {
            if (t.host != page || t.vram) continue;
            t.vram = page;
            t.host = copy;
            refresh_direct_store(t);
        }
    }
}

// 0xff in each byte where x (the XOR of two words) is non-zero.
static inline uint64_t changed_bytes_mask(uint64_t x)
{
    x |= x >> 4;
    x |= x >> 2;
    x |= x >> 1;
    return (x & 0x0101010101010101ull) * 0xff;
}

SmRunResult Sm::Impl::run_isolated(uint64_t cycles)
{
    isolated = true;
    // Only attached launches have TLB entries (attach() clears a slot's):
    // the other slots of `launches` are skipped here and in commit(), which
    // run every quantum.
    for (LaunchContext &l : launches)
        if (l.attached)
            for (TlbEntry &t : l.tlb) refresh_direct_store(t); // no shadows yet
    SmRunResult r = run(cycles);
    // The words that changed, found here, on this SM's thread: commit()
    // then only writes them. Unchanged 64-byte lines are skipped whole, and
    // a changed word's byte mask is computed without a branch per byte.
    constexpr uint32_t kLine = 64;
    for (size_t k = 0; k < shadows_used; ++k) {
        ShadowPage &sp = *shadows[k];
        sp.diff.clear();
        for (uint32_t line = 0; line < SIMTGPU_PAGE_SIZE; line += kLine) {
            if (std::memcmp(sp.copy + line, sp.vram + line, kLine) == 0) continue;
            for (uint32_t off = line; off < line + kLine; off += 8) {
                uint64_t now_word, old_word;
                std::memcpy(&now_word, sp.copy + off, 8);
                std::memcpy(&old_word, sp.vram + off, 8);
                if (now_word == old_word) continue;
                sp.diff.push_back({off, changed_bytes_mask(now_word ^ old_word), now_word});
            }
        }
    }
    return r;
}

void Sm::Impl::commit()
{
    for (size_t k = 0; k < shadows_used; ++k) {
        ShadowPage &sp = *shadows[k];
        for (const ShadowPage::Word &w : sp.diff) {
            uint64_t word;
            std::memcpy(&word, sp.vram + w.offset, 8);
            word = (word & ~w.mask) | (w.value & w.mask);
            std::memcpy(sp.vram + w.offset, &word, 8);
        }
    }
    shadows_used = 0;
    shadow_of.clear();
    isolated = false;
    for (LaunchContext &l : launches) {
        if (!l.attached) continue; // shadow() maps attached launches' entries only
        for (TlbEntry &t : l.tlb) {
            if (t.vram) {
                t.host = t.vram;
                t.vram = nullptr;
            }
            refresh_direct_store(t);
        }
    }
}

// A store into page vpn: its decoded instructions go, and so does the last
// slot of the page before, whose instruction may straddle into this one.
void Sm::Impl::invalidate_code_page(uint64_t vpn)
{
    auto &code = cur->code;
    auto it = code.find(vpn);
    if (it != code.end()) it->second->invalidate();
    auto before = code.find(vpn - 1);
    if (before != code.end())
        before->second->slots[kSlotsPerPage - 1].op = Op::Undecoded;
}

// The decoded instruction at pc (decoding it on first use), or nullptr with
// an exception. page/page_vpn cache the current code page.
const Insn *Sm::Impl::fetch(uint32_t slot, uint32_t lane, uint64_t pc, CodePage *&page,
                            uint64_t &page_vpn)
{
    const uint64_t vpn = pc >> SIMTGPU_PAGE_SHIFT;
    if (vpn != page_vpn) [[unlikely]] {
        if (vpn != cur->last_code_vpn) {
            auto &p = cur->code[vpn];
            if (!p) {
                p = std::make_unique<CodePage>();
                p->invalidate();
                if (TlbEntry &e = cur->tlb[vpn % kTlbEntries]; e.page == vpn) {
                    e.code = true;
                    e.direct_store = false;
                }
            }
            cur->last_code_vpn = vpn;
            cur->last_code_page = p.get();
        }
        page = cur->last_code_page;
        page_vpn = vpn;
        warps[slot].dirty_x |= page->writes_x; // what it may run here
        warps[slot].dirty_f |= page->writes_f;
    }
    Insn &in = page->slots[(pc & kPageMask) >> 1];
    if (in.op != Op::Undecoded) return &in;
    // First execution at this address: read and decode it.
    uint8_t bytes[4] = {0, 0, 0, 0};
    auto read_half = [&](uint64_t va, uint8_t *dst) {
        TlbEntry *e = tlb_lookup(va, lane, Access::Exec);
        if (!e) return false;
        e->code = true;
        e->direct_store = false;
        if (e->host) {
            std::memcpy(dst, e->host + (va & kPageMask), 2);
            return true;
        }
        if (isolated) { // DMA only in serial runs: stop before the instruction
            stop_before = true;
            return false;
        }
        if (cur->memory->dma_read(e->bus + (va & kPageMask), dst, 2)) return true;
        raise(SIMTGPU_EXC_PAGE_FAULT, slot, lane, pc, SIMTGPU_FAULT_DMA, va, SIMTGPU_ACCESS_EXEC);
        return false;
    };
    if (pc & 1) {
        raise(SIMTGPU_EXC_PAGE_FAULT, slot, lane, pc, SIMTGPU_FAULT_PROTECTION, pc,
              SIMTGPU_ACCESS_EXEC);
        return nullptr;
    }
    if (!read_half(pc, bytes)) return nullptr;
    if ((bytes[0] & 3) == 3) {
        // The second half may lie on the next page: stores there must see
        // it as code too (invalidate_code_page).
        if (((pc + 2) >> SIMTGPU_PAGE_SHIFT) != vpn) {
            auto &next_page = cur->code[vpn + 1];
            if (!next_page) {
                next_page = std::make_unique<CodePage>();
                next_page->invalidate();
            }
        }
        if (!read_half(pc + 2, bytes + 2))
            return nullptr;
    }
    uint32_t bits;
    std::memcpy(&bits, bytes, 4);
    in = decode(bits);
    const uint64_t rd = uint64_t(1) << in.rd;
    page->writes_x |= rd;
    warps[slot].dirty_x |= rd;
    if (in.op >= Op::Flw && in.op <= Op::FcvtDS) {
        page->writes_f |= rd;
        warps[slot].dirty_f |= rd;
    }
    return &in;
}

// ---------------------------------------------------------- SIMT control

void Sm::Impl::exit_lanes(uint32_t slot, uint64_t mask)
{
    Warp &w = warps[slot];
    Cta &cta = ctas[w.cta];
    for (uint64_t m = mask; m; m &= m - 1) {
        const uint32_t l = uint32_t(std::countr_zero(m));
        const uint32_t status = uint32_t(X(w, 10)[l]);
        if (status == 0) continue;
        ExitRecord &exits = cur->exits;
        if (exits.nonzero_exits++ == 0) {
            exits.status = status;
            exits.ctaid = cta.ctaid;
            exits.tid = {w.tid[3 * l], w.tid[3 * l + 1], w.tid[3 * l + 2]};
        }
    }
    w.exited |= mask;
    cta.live -= uint32_t(std::popcount(mask));
    if (cta.live == 0) {
        finish_cta(w.cta);
        return;
    }
    for (uint32_t id = 0; id < SIMTGPU_BARRIERS; ++id)
        if (barrier_complete(cta, id)) release_barrier(cta, id);
    try_release_warp_sync(w);
    check_deadlock(w.cta);
}

// bar.sync, bar.popc/and/or and bar.arrive: each lane counts towards the
// barrier its rs1 names (bar.red and simt_1: barrier 0, all threads); every
// instruction but bar.arrive then blocks the lane until that barrier
// completes. Bad operands are SIMTGPU_EXC_BAD_BARRIER.
void Sm::Impl::arrive_barrier(uint32_t slot, const Insn &in, uint64_t mask)
{
    Warp &w = warps[slot];
    Cta &cta = ctas[w.cta];
    const uint64_t *src = X(w, in.rs1), *counts = X(w, in.rs2);
    const bool named = (in.funct == SIMTGPU_BAR_SYNC || in.funct == SIMTGPU_BAR_ARRIVE) &&
                       config.arch >= SIMTGPU_ARCH_SIMT2;
    const bool waits = in.funct != SIMTGPU_BAR_ARRIVE;
    const bool partial_warp = cta.missing && w.warp_in_cta + 1 == cta.warps.size();
    uint32_t touched = 0; // barriers that got arrivals
    // __syncthreads (barrier 0, every thread, operands x0): the whole warp at once.
    if (in.funct == SIMTGPU_BAR_SYNC && (!named || (in.rs1 == 0 && in.rs2 == 0)) &&
        !(cta.bars[0].arrived && cta.bars[0].count != 0)) {
        Barrier &bar = cta.bars[0];
        const uint32_t lanes = uint32_t(std::popcount(mask));
        bar.count = 0;
        bar.arrived += lanes;
        bar.waiting += lanes;
        bar.partial |= partial_warp;
        w.blocked_bar |= mask;
        w.bar_lanes[0] |= mask;
        touched = 1;
    }
    for (uint64_t m = touched ? 0 : mask; m; m &= m - 1) {
        const uint32_t l = uint32_t(std::countr_zero(m));
        const uint64_t id = named ? src[l] : 0, count = named ? counts[l] : 0;
        uint32_t error = 0;
        uint64_t value = 0;
        if (id >= SIMTGPU_BARRIERS) {
            error = SIMTGPU_BARRIER_ERR_ID, value = id;
        } else if (count % W) {
            error = SIMTGPU_BARRIER_ERR_COUNT_ALIGN, value = count;
        } else if (count > cta.slots) {
            error = SIMTGPU_BARRIER_ERR_COUNT_RANGE, value = count;
        } else if (!waits && count == 0) {
            error = SIMTGPU_BARRIER_ERR_ARRIVE_ALL;
        } else if (cta.bars[id].arrived && cta.bars[id].count != count) {
            error = SIMTGPU_BARRIER_ERR_COUNT_MISMATCH, value = count;
        }
        if (error) {
            raise(SIMTGPU_EXC_BAD_BARRIER, slot, l, fault_pc, SIMTGPU_BARRIER_DETAIL(error, value));
            return;
        }
        Barrier &bar = cta.bars[id];
        bar.count = uint32_t(count);
        ++bar.arrived;
        bar.partial |= partial_warp;
        touched |= 1u << id;
        if (!waits) continue;
        ++bar.waiting;
        w.blocked_bar |= uint64_t(1) << l;
        w.bar_lanes[id] |= uint64_t(1) << l;
        if (in.funct != SIMTGPU_BAR_SYNC) {
            w.bar_red_lanes |= uint64_t(1) << l;
            w.bar_kind[l] = in.funct;
            w.bar_rd[l] = in.rd;
            ++cta.red_arrivals;
            cta.red_true += src[l] != 0;
        }
    }
    ++stats.barrier_waits;
    try_release_warp_sync(w);
    for (uint32_t m = touched; m; m &= m - 1) {
        const uint32_t id = uint32_t(std::countr_zero(m));
        if (barrier_complete(cta, id)) release_barrier(cta, id);
    }
    check_deadlock(w.cta);
}

// A barrier without a count completes when every live thread of the CTA has
// arrived; one with a count when that many have (a partial last warp that
// took part counting its missing lanes, as warps arrive whole in hardware),
// or when every live thread waits at it, since no other can arrive.
bool Sm::Impl::barrier_complete(const Cta &cta, uint32_t id) const
{
    const Barrier &bar = cta.bars[id];
    if (!bar.arrived) return false;
    if (bar.count == 0) return bar.arrived >= cta.live;
    const uint32_t missing = bar.partial ? cta.missing : 0;
    return bar.arrived + missing >= bar.count || bar.waiting == cta.live;
}

void Sm::Impl::release_barrier(Cta &cta, uint32_t id)
{
    for (uint32_t slot : cta.warps) {
        Warp &w = warps[slot];
        const uint64_t released = w.bar_lanes[id];
        for (uint64_t m = released & w.bar_red_lanes; m; m &= m - 1) {
            const uint32_t l = uint32_t(std::countr_zero(m));
            uint64_t value = 0;
            switch (w.bar_kind[l]) {
            case SIMTGPU_BAR_POPC: value = cta.red_true; break;
            case SIMTGPU_BAR_AND: value = cta.red_true == cta.red_arrivals; break;
            case SIMTGPU_BAR_OR: value = cta.red_true != 0; break;
            }
            X(w, w.bar_rd[l])[l] = value;
        }
        w.bar_lanes[id] = 0;
        w.bar_red_lanes &= ~released;
        w.blocked_bar &= ~released;
        recheck_slot(slot);
    }
    cta.bars[id] = Barrier{};
    if (id == 0) cta.red_true = cta.red_arrivals = 0;
}

// Lanes in a warp-level sync instruction wait for the lanes it needs
// (CUDA's rule for every *_sync intrinsic): the group's lanes record their
// operands, move past the instruction and block; whoever completes the set
// releases it, and the release computes the results.
void Sm::Impl::wait_in_warp_sync(uint32_t slot, uint64_t mask, uint64_t &waiting,
                                 uint64_t next_pc) {
    Warp &w = warps[slot];
    w.set_pcs(mask, next_pc);
    waiting |= mask;
    w.blocked_sync |= mask;
    try_release_warp_sync(w);
    check_deadlock(w.cta);
}

// Releases what can be released: warp.sync lanes whose live members are all
// in a warp.sync, votes whose live members all wait in a vote of the same
// kind and mask, shuffles whose source lanes have arrived.
void Sm::Impl::try_release_warp_sync(Warp &w)
{
    if (!w.blocked_sync)
        return;
    uint64_t release = 0;
    for (uint64_t m = w.waiting_warp_sync; m; m &= m - 1) {
        const uint32_t l = uint32_t(std::countr_zero(m));
        if ((w.sync_mask[l] & w.live() & ~w.waiting_warp_sync) == 0)
            release |= uint64_t(1) << l;
    }
    w.waiting_warp_sync &= ~release;
    release |= release_votes(w) | release_shuffles(w);
    w.blocked_sync &= ~release;
}

uint64_t Sm::Impl::release_votes(Warp &w) {
    uint64_t release = 0;
    for (uint64_t m = w.waiting_vote; m; m &= m - 1) {
        const uint32_t l = uint32_t(std::countr_zero(m));
        const uint64_t members = w.sync_mask[l] & w.live();
        uint64_t same = 0;
        for (uint64_t n = w.waiting_vote; n; n &= n - 1) {
            const uint32_t k = uint32_t(std::countr_zero(n));
            if (w.sync_funct[k] == w.sync_funct[l] && w.sync_mask[k] == w.sync_mask[l])
                same |= uint64_t(1) << k;
        }
        if (members & ~same)
            continue; // a member has not arrived (or waits elsewhere)
        release |= uint64_t(1) << l;
        res[l] = collective(w.sync_funct[l], l, members, w.sync_value.data());
    }
    for (uint64_t m = release; m; m &= m - 1) {
        const uint32_t l = uint32_t(std::countr_zero(m));
        if (w.sync_rd[l])
            X(w, w.sync_rd[l])[l] = res[l];
    }
    w.waiting_vote &= ~release;
    return release;
}

// The result lane `lane` of a vote, match or redux gets over the lanes
// `members`, whose operands are value[k] (a vote's: rs1 != 0).
uint64_t Sm::Impl::collective(uint8_t kind, uint32_t lane, uint64_t members,
                              const uint64_t *value) const
{
    auto fold = [&](uint64_t init, auto op) {
        uint64_t r = init;
        for (uint64_t m = members; m; m &= m - 1) r = op(r, value[std::countr_zero(m)]);
        return r;
    };
    uint64_t yes = 0;
    switch (kind & 0xf0) {
    case kCollectiveVote:
        for (uint64_t m = members; m; m &= m - 1)
            yes |= (value[std::countr_zero(m)] & 1) << std::countr_zero(m);
        switch (kind & 0x0f) {
        case SIMTGPU_VOTE_BALLOT: return yes;
        case SIMTGPU_VOTE_ANY: return yes != 0;
        case SIMTGPU_VOTE_ALL: return yes == members;
        default: return yes == 0 || yes == members;
        }
    case kCollectiveMatch: {
        const uint64_t mine = value[lane];
        for (uint64_t m = members; m; m &= m - 1)
            yes |= uint64_t(value[std::countr_zero(m)] == mine) << std::countr_zero(m);
        if ((kind & 0x0f) == SIMTGPU_MATCH_ANY) return yes;
        // match.all compares with the first member (this lane may not be one).
        const uint64_t first = members ? value[std::countr_zero(members)] : 0;
        return fold(1, [&](uint64_t r, uint64_t v) { return r & uint64_t(v == first); }) ? members
                                                                                        : 0;
    }
    default:
        switch (kind & 0x0f) {
        case SIMTGPU_REDUX_ADD: return fold(0, [](uint64_t r, uint64_t v) { return r + v; });
        case SIMTGPU_REDUX_AND:
            return fold(~uint64_t(0), [](uint64_t r, uint64_t v) { return r & v; });
        case SIMTGPU_REDUX_OR: return fold(0, [](uint64_t r, uint64_t v) { return r | v; });
        case SIMTGPU_REDUX_XOR: return fold(0, [](uint64_t r, uint64_t v) { return r ^ v; });
        case SIMTGPU_REDUX_MIN:
            return fold(uint64_t(INT64_MAX), [](uint64_t r, uint64_t v) {
                return int64_t(v) < int64_t(r) ? v : r;
            });
        case SIMTGPU_REDUX_MAX:
            return fold(uint64_t(INT64_MIN), [](uint64_t r, uint64_t v) {
                return int64_t(v) > int64_t(r) ? v : r;
            });
        case SIMTGPU_REDUX_MINU:
            return fold(~uint64_t(0), [](uint64_t r, uint64_t v) { return std::min(r, v); });
        default: return fold(0, [](uint64_t r, uint64_t v) { return std::max(r, v); });
        }
    }
}

// A shuffle lane needs its source lane, unless that lane has exited or waits
// at a CTA barrier (it cannot arrive first; PTX leaves reading it undefined).
// Lanes whose sources have arrived are released together, so every value is
// the one its lane brought to the shuffle.
uint64_t Sm::Impl::release_shuffles(Warp &w) {
    const uint64_t may_arrive = w.live() & ~w.blocked_bar;
    uint64_t release = w.waiting_shfl;
    for (bool changed = true; changed;) {
        changed = false;
        for (uint64_t m = release; m; m &= m - 1) {
            const uint32_t l = uint32_t(std::countr_zero(m));
            const uint64_t src = uint64_t(1) << w.sync_src[l];
            if ((src & may_arrive) && !(src & release)) {
                release &= ~(uint64_t(1) << l);
                changed = true;
            }
        }
    }
    for (uint64_t m = release; m; m &= m - 1) {
        const uint32_t l = uint32_t(std::countr_zero(m)), j = w.sync_src[l];
        res[l] = (release >> j & 1) ? w.sync_value[j] : X(w, w.sync_rs1[l])[j];
    }
    for (uint64_t m = release; m; m &= m - 1) {
        const uint32_t l = uint32_t(std::countr_zero(m));
        if (w.sync_rd[l])
            X(w, w.sync_rd[l])[l] = res[l];
    }
    w.waiting_shfl &= ~release;
    return release;
}

void Sm::Impl::check_deadlock(uint32_t cslot)
{
    const Cta &cta = ctas[cslot];
    if (!cta.active || exception) return;
    for (uint32_t slot : cta.warps)
        if (warps[slot].runnable()) return;
    // Report the first blocked thread.
    for (uint32_t slot : cta.warps) {
        const Warp &w = warps[slot];
        if (const uint64_t live = w.live()) {
            const uint32_t l = uint32_t(std::countr_zero(live));
            raise(SIMTGPU_EXC_DEADLOCK, slot, l, w.pc_of(l));
            return;
        }
    }
}

// ------------------------------------------------------------------- CSRs

bool Sm::Impl::csr_read(Warp &w, uint32_t l, uint32_t csr, uint64_t clock, uint64_t &v)
{
    const Cta &cta = ctas[w.cta];
    switch (csr) {
    case 0x001: v = w.fflags[l]; return true;
    case 0x002: v = w.frm[l]; return true;
    case 0x003: v = uint64_t(w.frm[l]) << 5 | w.fflags[l]; return true;
    case 0xc00: case SIMTGPU_CSR_CLOCK: v = clock; return true;
    case 0xc01: case SIMTGPU_CSR_GLOBALTIMER:
        v = uint64_t((unsigned __int128)clock * 1000000u / config.clock_khz);
        return true;
    case 0xc02: v = stats.warp_instructions; return true;
    case SIMTGPU_CSR_TID_X: case SIMTGPU_CSR_TID_Y: case SIMTGPU_CSR_TID_Z:
        v = w.tid[3 * l + (csr - SIMTGPU_CSR_TID_X)];
        return true;
    case SIMTGPU_CSR_NTID_X: case SIMTGPU_CSR_NTID_Y: case SIMTGPU_CSR_NTID_Z:
        v = cur->desc.block[csr - SIMTGPU_CSR_NTID_X];
        return true;
    case SIMTGPU_CSR_CTAID_X: case SIMTGPU_CSR_CTAID_Y: case SIMTGPU_CSR_CTAID_Z:
        v = cta.ctaid[csr - SIMTGPU_CSR_CTAID_X];
        return true;
    case SIMTGPU_CSR_NCTAID_X: case SIMTGPU_CSR_NCTAID_Y: case SIMTGPU_CSR_NCTAID_Z:
        v = cur->desc.grid[csr - SIMTGPU_CSR_NCTAID_X];
        return true;
    case SIMTGPU_CSR_LANEID: v = l; return true;
    case SIMTGPU_CSR_WARPID: v = w.warp_in_cta; return true;
    case SIMTGPU_CSR_SMID: v = sm_id; return true;
    case SIMTGPU_CSR_WARPSIZE: v = W; return true;
    case SIMTGPU_CSR_NSMID: v = config.num_sms; return true;
    case SIMTGPU_CSR_LANEMASK_LT: v = (uint64_t(1) << l) - 1; return true;
    case SIMTGPU_CSR_ENVPTR: // simt_2 and newer
        v = cur->desc.env_va;
        return config.arch >= SIMTGPU_ARCH_SIMT2;
    case SIMTGPU_CSR_DYNSHARED: v = cur->desc.shared_bytes; return true;
    case SIMTGPU_CSR_GRIDID: v = cur->desc.grid_id; return true;
    default: return false;
    }
}

bool Sm::Impl::exec_csr(uint32_t slot, const Insn &in, uint64_t mask, uint64_t clock)
{
    Warp &w = warps[slot];
    const uint32_t csr = uint32_t(in.imm);
    const bool imm_form = in.op >= Op::Csrrwi;
    const bool writes = in.op == Op::Csrrw || in.op == Op::Csrrwi || in.rs1 != 0;
    const bool writable = csr >= 1 && csr <= 3;
    const uint32_t first = uint32_t(std::countr_zero(mask));
    uint64_t probe;
    if (!csr_read(w, first, csr, clock, probe) || (writes && !writable)) {
        raise(SIMTGPU_EXC_ILLEGAL_INSTRUCTION, slot, first, fault_pc, in.raw);
        return false;
    }
    if (!writes) { // a read: most are the same for every lane (probe's)
        uint64_t *dst = X(w, in.rd);
        switch (csr) {
        case SIMTGPU_CSR_TID_X: case SIMTGPU_CSR_TID_Y: case SIMTGPU_CSR_TID_Z: {
            const uint32_t axis = csr - SIMTGPU_CSR_TID_X;
            each(mask, [&](uint32_t l) { dst[l] = w.tid[3 * l + axis]; });
            return true;
        }
        case 0xc00: case SIMTGPU_CSR_CLOCK: case 0xc01: case SIMTGPU_CSR_GLOBALTIMER: case 0xc02:
        case SIMTGPU_CSR_NTID_X: case SIMTGPU_CSR_NTID_Y: case SIMTGPU_CSR_NTID_Z:
        case SIMTGPU_CSR_CTAID_X: case SIMTGPU_CSR_CTAID_Y: case SIMTGPU_CSR_CTAID_Z:
        case SIMTGPU_CSR_NCTAID_X: case SIMTGPU_CSR_NCTAID_Y: case SIMTGPU_CSR_NCTAID_Z:
        case SIMTGPU_CSR_WARPID: case SIMTGPU_CSR_SMID: case SIMTGPU_CSR_WARPSIZE:
        case SIMTGPU_CSR_NSMID: case SIMTGPU_CSR_ENVPTR: case SIMTGPU_CSR_DYNSHARED:
        case SIMTGPU_CSR_GRIDID:
            each(mask, [&](uint32_t l) { dst[l] = probe; });
            return true;
        default: break; // per lane: below
        }
    }
    const uint64_t *src = X(w, in.rs1);
    each(mask, [&](uint32_t l) {
        uint64_t old = 0;
        csr_read(w, l, csr, clock, old);
        res[l] = old;
        if (!writes) return;
        const uint64_t operand = imm_form ? in.rs1 : src[l];
        uint64_t value = operand;
        if (in.op == Op::Csrrs || in.op == Op::Csrrsi) value = old | operand;
        if (in.op == Op::Csrrc || in.op == Op::Csrrci) value = old & ~operand;
        switch (csr) {
        case 1: w.fflags[l] = value & 0x1f; break;
        case 2: w.frm[l] = value & 7; break;
        case 3: w.fflags[l] = value & 0x1f; w.frm[l] = (value >> 5) & 7; break;
        }
    });
    uint64_t *dst = X(w, in.rd);
    each(mask, [&](uint32_t l) { dst[l] = res[l]; });
    return true;
}

// ---------------------------------------------------------------- atomics

bool Sm::Impl::exec_atomic(uint32_t slot, const Insn &in, uint64_t mask)
{
    Warp &w = warps[slot];
    const uint64_t *addr = X(w, in.rs1);
    const uint64_t *src = X(w, in.rs2);
    const uint64_t *expected_in = X(w, in.rd); // amocas only
    const bool dbl = in.op == Op::LrD || in.op == Op::ScD || in.op == Op::AmoD;
    const uint32_t size = dbl ? 8 : 4;
    auto value_of = [&](uint64_t raw) { return dbl ? raw : uint64_t(int64_t(int32_t(raw))); };
    if (!atomic_pages_present(mask, addr, size))
        return false;
    // Lanes in order: the outcome under contention is deterministic.
    for (uint64_t m = mask; m; m &= m - 1) {
        const uint32_t l = uint32_t(std::countr_zero(m));
        const uint64_t va = addr[l];
        bool dma;
        uint64_t bus = 0;
        uint8_t *p = atomic_ptr(slot, l, va, size, dma, bus);
        if (!p && !dma) return false;
        auto read = [&]() -> uint64_t {
            uint64_t v = 0;
            if (dma) {
                if (!cur->memory->dma_read(bus, &v, size))
                    raise(SIMTGPU_EXC_PAGE_FAULT, slot, l, fault_pc, SIMTGPU_FAULT_DMA, va,
                          SIMTGPU_ACCESS_ATOMIC);
            } else if (dbl) {
                v = __atomic_load_n(reinterpret_cast<uint64_t *>(p), __ATOMIC_SEQ_CST);
            } else {
                v = __atomic_load_n(reinterpret_cast<uint32_t *>(p), __ATOMIC_SEQ_CST);
            }
            return v;
        };
        // Compare-and-swap; on host memory the host's own (a PCIe AtomicOp).
        auto cas = [&](uint64_t &expected, uint64_t desired) -> bool {
            if (dma) {
                uint64_t current = 0;
                if (!cur->memory->dma_cmpxchg(bus, size, expected, desired, current)) {
                    raise(SIMTGPU_EXC_PAGE_FAULT, slot, l, fault_pc, SIMTGPU_FAULT_DMA, va,
                          SIMTGPU_ACCESS_ATOMIC);
                    return false;
                }
                const bool swapped = current == expected;
                expected = current;
                return swapped;
            }
            if (dbl)
                return __atomic_compare_exchange_n(reinterpret_cast<uint64_t *>(p), &expected,
                                                   desired, false, __ATOMIC_SEQ_CST,
                                                   __ATOMIC_SEQ_CST);
            uint32_t e32 = uint32_t(expected);
            const bool ok = __atomic_compare_exchange_n(reinterpret_cast<uint32_t *>(p), &e32,
                                                        uint32_t(desired), false,
                                                        __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
            expected = e32;
            return ok;
        };
        const uint64_t bit = uint64_t(1) << l;
        if (in.op == Op::LrW || in.op == Op::LrD) {
            const uint64_t v = read();
            if (exception) return false;
            w.resv_valid |= bit;
            w.resv_addr[l] = va;
            w.resv_value[l] = v;
            res[l] = value_of(v);
            continue;
        }
        if (in.op == Op::ScW || in.op == Op::ScD) {
            bool ok = false;
            if ((w.resv_valid & bit) && w.resv_addr[l] == va) {
                uint64_t expected = w.resv_value[l];
                ok = cas(expected, src[l]);
                if (exception) return false;
            }
            w.resv_valid &= ~bit;
            res[l] = ok ? 0 : 1;
            continue;
        }
        // AMO: a CAS loop, so the same code serves 32 and 64 bits.
        uint64_t old = read();
        if (exception) return false;
        for (;;) {
            const uint64_t a = value_of(old), b = dbl ? src[l] : value_of(src[l]);
            uint64_t nv = 0;
            if (in.funct == kAmoCas && a != (dbl ? expected_in[l] : value_of(expected_in[l])))
                break; // no match: memory keeps its value, rd gets it
            switch (in.funct) {
            case kAmoCas: nv = b; break;
            case kAmoFadd: // IEEE round to nearest even, a NaN canonical, no flags (as PTX atom)
                nv = dbl ? std::bit_cast<uint64_t>(fp::canonicalize(std::bit_cast<double>(a) +
                                                                     std::bit_cast<double>(b)))
                         : std::bit_cast<uint32_t>(fp::canonicalize(
                               std::bit_cast<float>(uint32_t(a)) + std::bit_cast<float>(uint32_t(b))));
                break;
            case kAmoIncW: nv = uint32_t(a) >= uint32_t(b) ? 0 : uint32_t(a) + 1; break;
            case kAmoDecW:
                nv = uint32_t(a) == 0 || uint32_t(a) > uint32_t(b) ? uint32_t(b) : uint32_t(a) - 1;
                break;
            case kAmoSwap: nv = b; break;
            case kAmoAdd: nv = a + b; break;
            case kAmoXor: nv = a ^ b; break;
            case kAmoAnd: nv = a & b; break;
            case kAmoOr: nv = a | b; break;
            case kAmoMin: nv = int64_t(a) < int64_t(b) ? a : b; break;
            case kAmoMax: nv = int64_t(a) > int64_t(b) ? a : b; break;
            case kAmoMinu: nv = dbl ? std::min(a, b) : std::min(uint32_t(a), uint32_t(b)); break;
            case kAmoMaxu: nv = dbl ? std::max(a, b) : std::max(uint32_t(a), uint32_t(b)); break;
            }
            if (cas(old, dbl ? nv : uint32_t(nv))) break;
            if (exception) return false;
        }
        res[l] = value_of(old);
    }
    uint64_t *dst = X(w, in.rd);
    each(mask, [&](uint32_t l) { dst[l] = res[l]; });
    stats.mem_reads += uint64_t(std::popcount(mask));
    if (in.op != Op::LrW && in.op != Op::LrD) stats.mem_writes += uint64_t(std::popcount(mask));
    return true;
}

// ------------------------------------------------------------------ float

bool Sm::Impl::lane_rm(Warp &w, const Insn &in, uint32_t l, uint8_t &rm)
{
    rm = in.rm == fp::kDyn ? w.frm[l] : in.rm;
    return rm <= fp::kRmm;
}

// An operation that rounds: compute(l) leaves lane l's result in res[l]
// using host arithmetic in the current host rounding mode; rmm(l) redoes it
// with ties away from zero (called only when the result was inexact). Lanes
// are grouped by rounding mode; each lane's fflags get exactly its own
// exceptions.
template <class Compute, class Rmm>
bool Sm::Impl::fp_rounded(uint32_t slot, const Insn &in, uint64_t mask, uint64_t *dst,
                          const Compute &compute, const Rmm &rmm, const WarpFp &warp_op)
{
    Warp &w = warps[slot];
    uint64_t by_rm[5] = {0, 0, 0, 0, 0};
    if (in.rm != fp::kDyn) {
        by_rm[in.rm] = mask;
    } else if (frm_all_rne(w)) { // the usual case: no lane changed frm
        by_rm[fp::kRne] = mask;
    } else {
        for (uint64_t m = mask; m; m &= m - 1) {
            const uint32_t l = uint32_t(std::countr_zero(m));
            uint8_t rm;
            if (!lane_rm(w, in, l, rm)) {
                raise(SIMTGPU_EXC_ILLEGAL_INSTRUCTION, slot, l, fault_pc, in.raw);
                return false;
            }
            by_rm[rm] |= uint64_t(1) << l;
        }
    }
    for (uint8_t rm = 0; rm < fp::kRmm; ++rm) { // host-supported modes
        const uint64_t lanes = by_rm[rm];
        if (!lanes) continue;
        auto run_lanes = [&] {
            if (warp_op.ok && simd_fp && lanes == full_mask) {
                if (warp_op.dbl)
                    fp::lanes::dbl(warp_op.kind, warp_op.a, warp_op.b, warp_op.c, warp_op.sa,
                                   warp_op.sc, res, W);
                else
                    fp::lanes::single(warp_op.kind, warp_op.a, warp_op.b, warp_op.c,
                                      float(warp_op.sa), float(warp_op.sc), res, W);
            } else {
                each(lanes, compute);
            }
        };
        // Nearest-even, the host's own mode, runs without setting the mode
        // or clearing the flags: flags left from earlier operations only
        // make `raised` a superset, and the lanes are run again from clear
        // flags when a lane lacks one.
        bool cleared = rm != fp::kRne;
        if (cleared) fp::set_round(rm); // also clears the flags
        run_lanes();
        fp::HostFpState host = fp::host_state();
        if (!cleared && !host.nearest_even) { // the host program changed its mode
            fp::set_round(fp::kRne);
            cleared = true;
            run_lanes();
            host = fp::host_state();
        }
        uint8_t raised = host.flags;
        if (!raised || lanes_have_flags(w, lanes, raised)) continue;
        if (!cleared) {
            fp::clear_flags();
            run_lanes();
            raised = fp::flags();
            if (!raised || lanes_have_flags(w, lanes, raised)) continue;
        }
        // Attribute the flags to lanes.
        auto lane_flags = [&](uint32_t l) { // the lane alone, by the FPU
            fp::clear_flags();
            compute(l);
            w.fflags[l] |= fp::flags();
        };
        using fp::lanes::Kind;
        if (rm == fp::kRne && raised == fp::kNX && warp_op.ok && warp_op.kind <= Kind::Mul) {
            // Only NX, the usual case (a warp's first FP add): which lanes
            // were inexact, by error-free transforms rather than the FPU's
            // flags lane by lane.
            const double sign = warp_op.kind == Kind::Sub ? -1 : 1;
            each(lanes, [&](uint32_t l) {
                int nx;
                if (warp_op.dbl) {
                    const double a = std::bit_cast<double>(warp_op.a[l]);
                    const double b = sign * std::bit_cast<double>(warp_op.b[l]);
                    nx = warp_op.kind == Kind::Mul ? fp::rne_product_inexact(a, b)
                                                   : fp::rne_sum_inexact(a, b);
                } else {
                    const float a = fp::unbox(warp_op.a[l]);
                    const float b = float(sign) * fp::unbox(warp_op.b[l]);
                    nx = warp_op.kind == Kind::Mul ? fp::rne_product_inexact(a, b)
                                                   : fp::rne_sum_inexact(a, b);
                }
                if (nx < 0)
                    lane_flags(l);
                else if (nx)
                    w.fflags[l] |= fp::kNX;
            });
            continue;
        }
        for (uint64_t m = lanes; m; m &= m - 1)
            lane_flags(uint32_t(std::countr_zero(m)));
    }
    if (const uint64_t lanes = by_rm[fp::kRmm]) {
        fp::set_round(fp::kRne);
        for (uint64_t m = lanes; m; m &= m - 1) {
            const uint32_t l = uint32_t(std::countr_zero(m));
            fp::clear_flags();
            compute(l);
            const uint8_t raised = fp::flags();
            w.fflags[l] |= raised;
            if (raised & fp::kNX) rmm(l);
        }
    }
    if (mask != by_rm[fp::kRne]) fp::set_round(fp::kRne); // the host's own mode
    each(mask, [&](uint32_t l) { dst[l] = res[l]; });
    return true;
}

bool Sm::Impl::exec_fp(uint32_t slot, const Insn &in, uint64_t mask)
{
    Warp &w = warps[slot];
    const uint64_t *f1 = F(w, in.rs1), *f2 = F(w, in.rs2), *f3 = F(w, in.rs3);
    const uint64_t *x1 = X(w, in.rs1);
    uint64_t *fd = F(w, in.rd), *xd = X(w, in.rd);
    auto S = [](uint64_t r) { return fp::unbox(r); };
    auto D = [](uint64_t r) { return std::bit_cast<double>(r); };
    auto bs = [](float v) { return fp::box(fp::canonicalize(v)); };
    auto bd = [](double v) { return std::bit_cast<uint64_t>(fp::canonicalize(v)); };
    auto none = [](uint32_t) {};
    // Operations with exact software flags, into res then dst.
    auto soft = [&](uint64_t *dst, auto op) {
        each(mask, [&](uint32_t l) {
            uint8_t fl = 0;
            res[l] = op(l, fl);
            w.fflags[l] |= fl;
        });
        each(mask, [&](uint32_t l) { dst[l] = res[l]; });
        return true;
    };
    // Float-to-integer conversions: the rounding mode per lane, in software.
    auto to_int = [&](auto op) {
        for (uint64_t m = mask; m; m &= m - 1) {
            const uint32_t l = uint32_t(std::countr_zero(m));
            uint8_t rm;
            if (!lane_rm(w, in, l, rm)) {
                raise(SIMTGPU_EXC_ILLEGAL_INSTRUCTION, slot, l, fault_pc, in.raw);
                return false;
            }
            uint8_t fl = 0;
            res[l] = op(l, rm, fl);
            w.fflags[l] |= fl;
        }
        each(mask, [&](uint32_t l) { xd[l] = res[l]; });
        return true;
    };
    auto sx32 = [](auto v) { return uint64_t(int64_t(int32_t(uint32_t(v)))); };

    switch (in.op) {
    // ---- single
    case Op::FaddS:
        return fp_rounded(slot, in, mask, fd, [&](uint32_t l) { res[l] = bs(S(f1[l]) + S(f2[l])); },
                          [&](uint32_t l) { res[l] = bs(fp::rmm_add(S(f1[l]), S(f2[l]))); },
                          WarpFp{true, false, fp::lanes::Kind::Add, f1, f2, f3});
    case Op::FsubS:
        return fp_rounded(slot, in, mask, fd, [&](uint32_t l) { res[l] = bs(S(f1[l]) - S(f2[l])); },
                          [&](uint32_t l) { res[l] = bs(fp::rmm_add(S(f1[l]), -S(f2[l]))); },
                          WarpFp{true, false, fp::lanes::Kind::Sub, f1, f2, f3});
    case Op::FmulS:
        return fp_rounded(slot, in, mask, fd, [&](uint32_t l) { res[l] = bs(S(f1[l]) * S(f2[l])); },
                          [&](uint32_t l) { res[l] = bs(fp::rmm_mul(S(f1[l]), S(f2[l]))); },
                          WarpFp{true, false, fp::lanes::Kind::Mul, f1, f2, f3});
    case Op::FdivS: // a quotient is never a tie: RMM == RNE
        return fp_rounded(slot, in, mask, fd, [&](uint32_t l) { res[l] = bs(S(f1[l]) / S(f2[l])); }, none,
                          WarpFp{true, false, fp::lanes::Kind::Div, f1, f2, f3});
    case Op::FsqrtS: // nor is a square root
        return fp_rounded(slot, in, mask, fd, [&](uint32_t l) { res[l] = bs(std::sqrt(S(f1[l]))); }, none,
                          WarpFp{true, false, fp::lanes::Kind::Sqrt, f1, f2, f3});
    case Op::FmaddS: case Op::FmsubS: case Op::FnmsubS: case Op::FnmaddS: {
        const float sa = (in.op == Op::FnmsubS || in.op == Op::FnmaddS) ? -1.0f : 1.0f;
        const float sc = (in.op == Op::FmsubS || in.op == Op::FnmaddS) ? -1.0f : 1.0f;
        return fp_rounded(slot, in, mask, fd,
                          [&](uint32_t l) { res[l] = bs(fp::fma(sa * S(f1[l]), S(f2[l]), sc * S(f3[l]))); },
                          [&](uint32_t l) { res[l] = bs(fp::rmm_fma(sa * S(f1[l]), S(f2[l]), sc * S(f3[l]))); },
                          WarpFp{true, false, fp::lanes::Kind::Fma, f1, f2, f3, sa, sc});
    }
    case Op::FsgnjS: case Op::FsgnjnS: case Op::FsgnjxS:
        return soft(fd, [&](uint32_t l, uint8_t &) {
            const uint32_t a = std::bit_cast<uint32_t>(S(f1[l])), b = std::bit_cast<uint32_t>(S(f2[l]));
            uint32_t sign = b & 0x80000000u;
            if (in.op == Op::FsgnjnS) sign ^= 0x80000000u;
            if (in.op == Op::FsgnjxS) sign = (a ^ b) & 0x80000000u;
            return fp::kBoxMask | (a & 0x7fffffffu) | sign;
        });
    case Op::FminS: case Op::FmaxS:
        return soft(fd, [&](uint32_t l, uint8_t &fl) {
            return fp::box(fp::fminmax(S(f1[l]), S(f2[l]), in.op == Op::FmaxS, fl));
        });
    case Op::FeqS: return soft(xd, [&](uint32_t l, uint8_t &fl) { return fp::feq(S(f1[l]), S(f2[l]), fl); });
    case Op::FltS: return soft(xd, [&](uint32_t l, uint8_t &fl) { return fp::flt(S(f1[l]), S(f2[l]), false, fl); });
    case Op::FleS: return soft(xd, [&](uint32_t l, uint8_t &fl) { return fp::flt(S(f1[l]), S(f2[l]), true, fl); });
    case Op::FclassS: return soft(xd, [&](uint32_t l, uint8_t &) { return fp::fclass(S(f1[l])); });
    case Op::FmvXW: return soft(xd, [&](uint32_t l, uint8_t &) { return sx32(f1[l]); });
    case Op::FmvWX: return soft(fd, [&](uint32_t l, uint8_t &) { return fp::kBoxMask | uint32_t(x1[l]); });
    case Op::FcvtWS:
        return to_int([&](uint32_t l, uint8_t rm, uint8_t &fl) { return sx32(fp::to_int<int32_t>(S(f1[l]), rm, fl)); });
    case Op::FcvtWuS:
        return to_int([&](uint32_t l, uint8_t rm, uint8_t &fl) { return sx32(fp::to_int<uint32_t>(S(f1[l]), rm, fl)); });
    case Op::FcvtLS:
        return to_int([&](uint32_t l, uint8_t rm, uint8_t &fl) { return uint64_t(fp::to_int<int64_t>(S(f1[l]), rm, fl)); });
    case Op::FcvtLuS:
        return to_int([&](uint32_t l, uint8_t rm, uint8_t &fl) { return fp::to_int<uint64_t>(S(f1[l]), rm, fl); });
    case Op::FcvtSW:
        return fp_rounded(slot, in, mask, fd, [&](uint32_t l) { res[l] = bs(float(int32_t(x1[l]))); },
                          [&](uint32_t l) { res[l] = bs(fp::round_rmm<float>(int32_t(x1[l]), 0)); });
    case Op::FcvtSWu:
        return fp_rounded(slot, in, mask, fd, [&](uint32_t l) { res[l] = bs(float(uint32_t(x1[l]))); },
                          [&](uint32_t l) { res[l] = bs(fp::round_rmm<float>(uint32_t(x1[l]), 0)); });
    case Op::FcvtSL:
        return fp_rounded(slot, in, mask, fd, [&](uint32_t l) { res[l] = bs(float(int64_t(x1[l]))); },
                          [&](uint32_t l) { res[l] = bs(fp::round_rmm<float>(int64_t(x1[l]), 0)); });
    case Op::FcvtSLu:
        return fp_rounded(slot, in, mask, fd, [&](uint32_t l) { res[l] = bs(float(x1[l])); },
                          [&](uint32_t l) { res[l] = bs(fp::round_rmm<float>(x1[l], 0)); });
    // ---- double
    case Op::FaddD:
        return fp_rounded(slot, in, mask, fd, [&](uint32_t l) { res[l] = bd(D(f1[l]) + D(f2[l])); },
                          [&](uint32_t l) { res[l] = bd(fp::rmm_add(D(f1[l]), D(f2[l]))); },
                          WarpFp{true, true, fp::lanes::Kind::Add, f1, f2, f3});
    case Op::FsubD:
        return fp_rounded(slot, in, mask, fd, [&](uint32_t l) { res[l] = bd(D(f1[l]) - D(f2[l])); },
                          [&](uint32_t l) { res[l] = bd(fp::rmm_add(D(f1[l]), -D(f2[l]))); },
                          WarpFp{true, true, fp::lanes::Kind::Sub, f1, f2, f3});
    case Op::FmulD:
        return fp_rounded(slot, in, mask, fd, [&](uint32_t l) { res[l] = bd(D(f1[l]) * D(f2[l])); },
                          [&](uint32_t l) { res[l] = bd(fp::rmm_mul(D(f1[l]), D(f2[l]))); },
                          WarpFp{true, true, fp::lanes::Kind::Mul, f1, f2, f3});
    case Op::FdivD:
        return fp_rounded(slot, in, mask, fd, [&](uint32_t l) { res[l] = bd(D(f1[l]) / D(f2[l])); }, none,
                          WarpFp{true, true, fp::lanes::Kind::Div, f1, f2, f3});
    case Op::FsqrtD:
        return fp_rounded(slot, in, mask, fd, [&](uint32_t l) { res[l] = bd(std::sqrt(D(f1[l]))); }, none,
                          WarpFp{true, true, fp::lanes::Kind::Sqrt, f1, f2, f3});
    case Op::FmaddD: case Op::FmsubD: case Op::FnmsubD: case Op::FnmaddD: {
        const double sa = (in.op == Op::FnmsubD || in.op == Op::FnmaddD) ? -1.0 : 1.0;
        const double sc = (in.op == Op::FmsubD || in.op == Op::FnmaddD) ? -1.0 : 1.0;
        return fp_rounded(slot, in, mask, fd,
                          [&](uint32_t l) { res[l] = bd(fp::fma(sa * D(f1[l]), D(f2[l]), sc * D(f3[l]))); },
                          [&](uint32_t l) { res[l] = bd(fp::rmm_fma(sa * D(f1[l]), D(f2[l]), sc * D(f3[l]))); },
                          WarpFp{true, true, fp::lanes::Kind::Fma, f1, f2, f3, sa, sc});
    }
    case Op::FsgnjD: case Op::FsgnjnD: case Op::FsgnjxD:
        return soft(fd, [&](uint32_t l, uint8_t &) {
            const uint64_t a = f1[l], b = f2[l], top = uint64_t(1) << 63;
            uint64_t sign = b & top;
            if (in.op == Op::FsgnjnD) sign ^= top;
            if (in.op == Op::FsgnjxD) sign = (a ^ b) & top;
            return (a & ~top) | sign;
        });
    case Op::FminD: case Op::FmaxD:
        return soft(fd, [&](uint32_t l, uint8_t &fl) {
            return std::bit_cast<uint64_t>(fp::fminmax(D(f1[l]), D(f2[l]), in.op == Op::FmaxD, fl));
        });
    case Op::FeqD: return soft(xd, [&](uint32_t l, uint8_t &fl) { return fp::feq(D(f1[l]), D(f2[l]), fl); });
    case Op::FltD: return soft(xd, [&](uint32_t l, uint8_t &fl) { return fp::flt(D(f1[l]), D(f2[l]), false, fl); });
    case Op::FleD: return soft(xd, [&](uint32_t l, uint8_t &fl) { return fp::flt(D(f1[l]), D(f2[l]), true, fl); });
    case Op::FclassD: return soft(xd, [&](uint32_t l, uint8_t &) { return fp::fclass(D(f1[l])); });
    case Op::FmvXD: return soft(xd, [&](uint32_t l, uint8_t &) { return f1[l]; });
    case Op::FmvDX: return soft(fd, [&](uint32_t l, uint8_t &) { return x1[l]; });
    case Op::FcvtWD:
        return to_int([&](uint32_t l, uint8_t rm, uint8_t &fl) { return sx32(fp::to_int<int32_t>(D(f1[l]), rm, fl)); });
    case Op::FcvtWuD:
        return to_int([&](uint32_t l, uint8_t rm, uint8_t &fl) { return sx32(fp::to_int<uint32_t>(D(f1[l]), rm, fl)); });
    case Op::FcvtLD:
        return to_int([&](uint32_t l, uint8_t rm, uint8_t &fl) { return uint64_t(fp::to_int<int64_t>(D(f1[l]), rm, fl)); });
    case Op::FcvtLuD:
        return to_int([&](uint32_t l, uint8_t rm, uint8_t &fl) { return fp::to_int<uint64_t>(D(f1[l]), rm, fl); });
    case Op::FcvtDW: // exact
        return fp_rounded(slot, in, mask, fd, [&](uint32_t l) { res[l] = bd(double(int32_t(x1[l]))); }, none);
    case Op::FcvtDWu:
        return fp_rounded(slot, in, mask, fd, [&](uint32_t l) { res[l] = bd(double(uint32_t(x1[l]))); }, none);
    case Op::FcvtDL:
        return fp_rounded(slot, in, mask, fd, [&](uint32_t l) { res[l] = bd(double(int64_t(x1[l]))); },
                          [&](uint32_t l) { res[l] = bd(fp::round_rmm<double>(int64_t(x1[l]), 0)); });
    case Op::FcvtDLu:
        return fp_rounded(slot, in, mask, fd, [&](uint32_t l) { res[l] = bd(double(x1[l])); },
                          [&](uint32_t l) { res[l] = bd(fp::round_rmm<double>(x1[l], 0)); });
    case Op::FcvtSD:
        return fp_rounded(slot, in, mask, fd, [&](uint32_t l) { res[l] = bs(float(D(f1[l]))); },
                          [&](uint32_t l) { res[l] = bs(fp::round_rmm<float>(D(f1[l]), 0)); });
    case Op::FcvtDS: // exact
        return fp_rounded(slot, in, mask, fd, [&](uint32_t l) { res[l] = bd(double(S(f1[l]))); }, none);
    default:
        raise(SIMTGPU_EXC_ILLEGAL_INSTRUCTION, slot, uint32_t(std::countr_zero(mask)), fault_pc, in.raw);
        return false;
    }
}

// ------------------------------------------------------------ the burst

uint32_t Sm::Impl::burst(uint32_t slot, uint32_t budget)
{
    return burst_group(slot, choose_group(warps[slot]), budget);
}

GroupChoice Sm::Impl::choose_group(Warp &w)
{
    const uint64_t runnable = w.runnable();
    GroupChoice group;
    if ((runnable & ~w.same_pc_lanes) == 0) {
        group = GroupChoice{w.same_pc, runnable, UINT64_MAX};
    } else {
        w.write_stale_pcs(); // the policy and the starvation turn below read `pc`
        group = reconvergence->select(w.pc.data(), runnable);
    }
    bool burst_ends = true; // the functional model: one choice per burst
    if (config.model == Model::timing) {
        burst_ends = ++w.burst_instructions >= kSliceInstructions || w.burst_global;
        if (burst_ends)
            w.burst_instructions = 0;
        w.burst_global = false;
    }
    if (group.mask == runnable) {
        w.partial_bursts = 0;
    } else if (burst_ends && ++w.partial_bursts > kStarvationBursts) {
        // A turn for a waiting group: the next PC above the one that had the
        // last such turn, wrapping, so that every group gets one. (Always the
        // second-lowest PC starved a third group: a lock's holder behind two
        // spin loops.)
        w.partial_bursts = 0;
        uint64_t next = UINT64_MAX, lowest = UINT64_MAX;
        for (uint64_t m = runnable & ~group.mask; m; m &= m - 1) {
            const uint64_t pc = w.pc[std::countr_zero(m)];
            lowest = std::min(lowest, pc);
            if (pc > w.yielded_to && pc < next) next = pc;
        }
        if (next == UINT64_MAX) next = lowest;
        uint64_t waiting = 0;
        for (uint64_t m = runnable & ~group.mask; m; m &= m - 1)
            if (w.pc[std::countr_zero(m)] == next) waiting |= m & -m;
        if (waiting) {
            w.yielded_to = next;
            group = GroupChoice{next, waiting, UINT64_MAX};
        }
    }
    return group;
}

SIMT_HOST_SIMD_CLONES uint32_t Sm::Impl::burst_group(uint32_t slot, const GroupChoice &group,
                                                     uint32_t budget) {
    Warp &w = warps[slot];
    cur = &launches[ctas[w.cta].launch];
    const uint64_t mask = group.mask;
    const uint32_t first = uint32_t(std::countr_zero(mask));
    const uint32_t active = uint32_t(std::popcount(mask));
    uint64_t pc = group.pc;
    bool pcs_written = false; // lanes' PCs set individually (a split)
    bool stop = false;
    uint32_t issued = 0;
    CodePage *page = nullptr;
    uint64_t page_vpn = UINT64_MAX;
    touched_global = false;
    sleep_cycles = 0;
    fault_slot = slot;

    uint64_t *x = w.x.data();
    auto R = [&](uint32_t r) { return x + size_t(r) * W; };

    while (!stop && issued < budget) {
        fault_pc = pc;
        const Insn *ip = page_vpn == pc >> SIMTGPU_PAGE_SHIFT
                             ? &page->slots[(pc & kPageMask) >> 1]
                             : nullptr;
        if (!ip || ip->op == Op::Undecoded) [[unlikely]]
            ip = fetch(slot, first, pc, page, page_vpn);
        if (!ip) {
            if (stop_before) [[unlikely]] { // code in host memory
                stop_before = false;
                stop_at(slot, GroupChoice{pc, mask, group.yield_pc}, budget - issued);
            }
            break;
        }
        const Insn &in = *ip;
        ++issued;
        uint64_t next = pc + in.len;
        uint64_t *d = R(in.rd);
        const uint64_t *a = R(in.rs1), *b = R(in.rs2);
        const int64_t imm = in.imm;

#define ALU(expr) each(mask, [&](uint32_t l) { d[l] = (expr); })
#define A a[l]
#define B b[l]
#define SA int64_t(a[l])
#define SB int64_t(b[l])
#define W32(expr) uint64_t(int64_t(int32_t(uint32_t(expr))))

        // A conditional branch: all lanes agree, or the group splits.
        auto branch = [&](auto cond) {
            ++stats.branches;
            uint64_t taken = 0;
            each(mask, [&](uint32_t l) { taken |= uint64_t(cond(a[l], b[l])) << l; });
            if (taken == mask) {
                next = pc + imm;
            } else if (taken) {
                for (uint64_t m = mask; m; m &= m - 1) {
                    const uint32_t l = uint32_t(std::countr_zero(m));
                    w.pc[l] = (taken >> l & 1) ? pc + imm : next;
                }
                w.leave_same_pc(mask);
                pcs_written = stop = true;
                ++stats.divergent_branches;
            }
        };
        auto do_load = [&](auto type_tag, bool to_fp) __attribute__((always_inline)) {
            using T = decltype(type_tag);
            uint64_t *dst = to_fp ? F(w, in.rd) : d;
            auto widen = [](T v) {
                if constexpr (std::is_same_v<T, float>) return fp::box(v);
                else if constexpr (std::is_same_v<T, double>) return std::bit_cast<uint64_t>(v);
                else if constexpr (std::is_signed_v<T>) return uint64_t(int64_t(v));
                else return uint64_t(v);
            };
            if (mask == full_mask) {
                if (const uint8_t *base = contiguous(slot, a, imm, sizeof(T), Access::Read)) {
                    for (uint32_t l = 0; l < W; ++l) {
                        T v;
                        std::memcpy(&v, base + l * sizeof(T), sizeof(T));
                        dst[l] = widen(v);
                    }
                    stats.mem_reads += active;
                    return;
                }
            }
            uint64_t offset_mask;
            bool one_address;
            if (const uint8_t *base = coalesced(slot, mask, a, imm, sizeof(T), Access::Read,
                                                offset_mask, one_address)) {
                // No lane can fault: straight into rd (a lane reads only its
                // own address register, so rd == rs1 is fine).
                each(mask, [&](uint32_t l) {
                    T v;
                    std::memcpy(&v, base + ((a[l] + imm) & offset_mask), sizeof(T));
                    dst[l] = widen(v);
                });
                stats.mem_reads += active;
                return;
            }
            if (const uint64_t off = a[first] + imm - SIMTGPU_LOCAL_BASE;
                one_address && off < cur->desc.stack_bytes &&
                cur->desc.stack_bytes - off >= sizeof(T) && (off & 7) + sizeof(T) <= 8) {
                // Every lane at the same local address (a stack slot): W
                // consecutive words.
                if (!w.local_row_ready(off >> 3)) [[unlikely]]
                    start_local_row(w, off >> 3, false);
                const uint8_t *slot_bytes = local_byte(w, 0, off);
                if (sizeof(T) == 8 && mask == full_mask) { // a spill's reload: one copy
                    copy_lanes(dst, slot_bytes);
                } else {
                    each(mask, [&](uint32_t l) {
                        T v;
                        std::memcpy(&v, slot_bytes + 8 * l, sizeof(T));
                        dst[l] = widen(v);
                    });
                }
                stats.mem_reads += active;
                return;
            }
            if (isolated && needs_serial(mask, a, imm, sizeof(T), Access::Read)) {
                stop_before = true;
                return;
            }
            for (uint64_t m = mask; m; m &= m - 1) {
                const uint32_t l = uint32_t(std::countr_zero(m));
                T v;
                if (!load<T>(slot, l, a[l] + imm, v))
                    return;
                res[l] = widen(v);
            }
            each(mask, [&](uint32_t l) { dst[l] = res[l]; });
            stats.mem_reads += active;
        };
        auto do_store = [&](auto type_tag, bool from_fp) __attribute__((always_inline)) {
            using T = decltype(type_tag);
            const uint64_t *src = from_fp ? F(w, in.rs2) : b;
            uint64_t offset_mask;
            bool one_address;
            uint8_t *row =
                mask == full_mask ? contiguous(slot, a, imm, sizeof(T), Access::Write) : nullptr;
            if (row) {
                for (uint32_t l = 0; l < W; ++l) {
                    const T v = T(src[l]);
                    std::memcpy(row + l * sizeof(T), &v, sizeof(T));
                }
            } else if (uint8_t *base = coalesced(slot, mask, a, imm, sizeof(T), Access::Write,
                                                 offset_mask, one_address)) {
                each(mask, [&](uint32_t l) {
                    const T v = T(src[l]);
                    std::memcpy(base + ((a[l] + imm) & offset_mask), &v, sizeof(T));
                });
            } else if (const uint64_t off = a[first] + imm - SIMTGPU_LOCAL_BASE;
                       one_address && off < cur->desc.stack_bytes &&
                       cur->desc.stack_bytes - off >= sizeof(T) && (off & 7) + sizeof(T) <= 8) {
                // A spill of every lane writes all of its row: nothing to zero.
                if (!w.local_row_ready(off >> 3)) [[unlikely]]
                    start_local_row(w, off >> 3, sizeof(T) == 8 && mask == full_mask);
                uint8_t *slot_bytes = local_byte(w, 0, off);
                if (sizeof(T) == 8 && mask == full_mask) { // a spill: one copy
                    copy_lanes(slot_bytes, src);
                } else {
                    each(mask, [&](uint32_t l) {
                        const T v = T(src[l]);
                        std::memcpy(slot_bytes + 8 * l, &v, sizeof(T));
                    });
                }
            } else if (isolated && needs_serial(mask, a, imm, sizeof(T), Access::Write)) {
                stop_before = true;
                return;
            } else {
                for (uint64_t m = mask; m; m &= m - 1) {
                    const uint32_t l = uint32_t(std::countr_zero(m));
                    if (!store<T>(slot, l, a[l] + imm, T(src[l])))
                        return;
                }
            }
            stats.mem_writes += active;
        };

        switch (in.op) {
        case Op::Undecoded:
        case Op::Illegal:
            raise(SIMTGPU_EXC_ILLEGAL_INSTRUCTION, slot, first, pc, in.raw);
            break;
        case Op::Lui: ALU(uint64_t(imm)); break;
        case Op::Auipc: ALU(pc + imm); break;
        case Op::Jal:
            ALU(next);
            next = pc + imm;
            break;
        case Op::Jalr: {
            ++stats.branches;
            const uint64_t target = (a[first] + imm) & ~uint64_t(1);
            uint64_t differs = 0;
            each(mask, [&](uint32_t l) { differs |= uint64_t(((a[l] + imm) & ~uint64_t(1)) != target) << l; });
            if (differs) { // lanes jump to different places
                for (uint64_t m = mask; m; m &= m - 1) {
                    const uint32_t l = uint32_t(std::countr_zero(m));
                    w.pc[l] = (a[l] + imm) & ~uint64_t(1);
                }
                w.leave_same_pc(mask);
                pcs_written = stop = true;
                ++stats.divergent_branches;
            }
            ALU(next);
            next = target;
            break;
        }
        case Op::Beq: branch([](uint64_t p, uint64_t q) { return p == q; }); break;
        case Op::Bne: branch([](uint64_t p, uint64_t q) { return p != q; }); break;
        case Op::Blt: branch([](uint64_t p, uint64_t q) { return int64_t(p) < int64_t(q); }); break;
        case Op::Bge: branch([](uint64_t p, uint64_t q) { return int64_t(p) >= int64_t(q); }); break;
        case Op::Bltu: branch([](uint64_t p, uint64_t q) { return p < q; }); break;
        case Op::Bgeu: branch([](uint64_t p, uint64_t q) { return p >= q; }); break;
        case Op::Lb: do_load(int8_t{}, false); break;
        case Op::Lh: do_load(int16_t{}, false); break;
        case Op::Lw: do_load(int32_t{}, false); break;
        case Op::Ld: do_load(uint64_t{}, false); break;
        case Op::Lbu: do_load(uint8_t{}, false); break;
        case Op::Lhu: do_load(uint16_t{}, false); break;
        case Op::Lwu: do_load(uint32_t{}, false); break;
        case Op::Flw: do_load(float{}, true); break;
        case Op::Fld: do_load(double{}, true); break;
        case Op::Sb: do_store(uint8_t{}, false); break;
        case Op::Sh: do_store(uint16_t{}, false); break;
        case Op::Sw: do_store(uint32_t{}, false); break;
        case Op::Sd: do_store(uint64_t{}, false); break;
        case Op::Fsw: do_store(uint32_t{}, true); break;
        case Op::Fsd: do_store(uint64_t{}, true); break;
        case Op::Addi: ALU(A + imm); break;
        case Op::Slti: ALU(uint64_t(SA < imm)); break;
        case Op::Sltiu: ALU(uint64_t(A < uint64_t(imm))); break;
        case Op::Xori: ALU(A ^ imm); break;
        case Op::Ori: ALU(A | imm); break;
        case Op::Andi: ALU(A & imm); break;
        case Op::Slli: ALU(A << imm); break;
        case Op::Srli: ALU(A >> imm); break;
        case Op::Srai: ALU(uint64_t(SA >> imm)); break;
        case Op::Add: ALU(A + B); break;
        case Op::Sub: ALU(A - B); break;
        case Op::Sll: ALU(A << (B & 63)); break;
        case Op::Slt: ALU(uint64_t(SA < SB)); break;
        case Op::Sltu: ALU(uint64_t(A < B)); break;
        case Op::Xor: ALU(A ^ B); break;
        case Op::Srl: ALU(A >> (B & 63)); break;
        case Op::Sra: ALU(uint64_t(SA >> (B & 63))); break;
        case Op::Or: ALU(A | B); break;
        case Op::And: ALU(A & B); break;
        case Op::Addiw: ALU(W32(A + imm)); break;
        case Op::Slliw: ALU(W32(uint32_t(A) << imm)); break;
        case Op::Srliw: ALU(W32(uint32_t(A) >> imm)); break;
        case Op::Sraiw: ALU(W32(int32_t(A) >> imm)); break;
        case Op::Addw: ALU(W32(A + B)); break;
        case Op::Subw: ALU(W32(A - B)); break;
        case Op::Sllw: ALU(W32(uint32_t(A) << (B & 31))); break;
        case Op::Srlw: ALU(W32(uint32_t(A) >> (B & 31))); break;
        case Op::Sraw: ALU(W32(int32_t(A) >> (B & 31))); break;
        case Op::Mul: ALU(A * B); break;
        case Op::Mulh: ALU(uint64_t((__int128(SA) * __int128(SB)) >> 64)); break;
        case Op::Mulhsu: ALU(uint64_t((__int128(SA) * __int128((unsigned __int128)B)) >> 64)); break;
        case Op::Mulhu: ALU(uint64_t(((unsigned __int128)A * B) >> 64)); break;
        case Op::Div:
            ALU(B == 0 ? ~uint64_t(0)
                : (SA == INT64_MIN && SB == -1) ? A
                : uint64_t(SA / SB));
            break;
        case Op::Divu: ALU(B == 0 ? ~uint64_t(0) : A / B); break;
        case Op::Rem:
            ALU(B == 0 ? A : (SA == INT64_MIN && SB == -1) ? 0 : uint64_t(SA % SB));
            break;
        case Op::Remu: ALU(B == 0 ? A : A % B); break;
        case Op::Mulw: ALU(W32(uint32_t(A) * uint32_t(B))); break;
        case Op::Divw:
            ALU(int32_t(B) == 0 ? ~uint64_t(0)
                : (int32_t(A) == INT32_MIN && int32_t(B) == -1) ? W32(INT32_MIN)
                : W32(int32_t(A) / int32_t(B)));
            break;
        case Op::Divuw: ALU(uint32_t(B) == 0 ? ~uint64_t(0) : W32(uint32_t(A) / uint32_t(B))); break;
        case Op::Remw:
            ALU(int32_t(B) == 0 ? W32(A)
                : (int32_t(A) == INT32_MIN && int32_t(B) == -1) ? 0
                : W32(int32_t(A) % int32_t(B)));
            break;
        case Op::Remuw: ALU(uint32_t(B) == 0 ? W32(A) : W32(uint32_t(A) % uint32_t(B))); break;
        case Op::Fence: break;
        case Op::FenceI:
            for (auto &entry : cur->code) entry.second->invalidate();
            stop = true; // the current page's slots are gone
            break;
        case Op::Ecall: {
            const uint64_t *a7 = R(17);
            for (uint64_t m = mask; m; m &= m - 1) {
                const uint32_t l = uint32_t(std::countr_zero(m));
                if (a7[l] != SIMTGPU_ECALL_EXIT) {
                    raise(SIMTGPU_EXC_BAD_ECALL, slot, l, pc, uint32_t(a7[l]));
                    break;
                }
            }
            if (exception) break;
            exit_lanes(slot, mask);
            pcs_written = stop = true;
            break;
        }
        case Op::Ebreak: raise(SIMTGPU_EXC_TRAP, slot, first, pc); break;
        case Op::Csrrw: case Op::Csrrs: case Op::Csrrc:
        case Op::Csrrwi: case Op::Csrrsi: case Op::Csrrci:
            exec_csr(slot, in, mask, now + issued - 1);
            break;
        case Op::LrW: case Op::ScW: case Op::AmoW: case Op::LrD: case Op::ScD: case Op::AmoD:
            if ((in.funct == kAmoCas || in.funct >= kAmoFadd) && config.arch < SIMTGPU_ARCH_SIMT2 &&
                (in.op == Op::AmoW || in.op == Op::AmoD)) { // simt_2's atomics
                raise(SIMTGPU_EXC_ILLEGAL_INSTRUCTION, slot, first, pc, in.raw);
                break;
            }
            // Global atomics see every SM's stores: they run serially.
            if (isolated && needs_serial(mask, a, 0, 1, Access::Atomic)) {
                stop_before = true;
                break;
            }
            exec_atomic(slot, in, mask);
            break;
        case Op::Bar:
            if (in.funct != SIMTGPU_BAR_SYNC && config.arch < SIMTGPU_ARCH_SIMT2) { // bar.red: simt_2
                raise(SIMTGPU_EXC_ILLEGAL_INSTRUCTION, slot, first, pc, in.raw);
                break;
            }
            w.set_pcs(mask, next);
            pcs_written = stop = true;
            arrive_barrier(slot, in, mask);
            break;
        case Op::Match:
        case Op::Redux:
            if (config.arch < SIMTGPU_ARCH_SIMT2) { // match, redux: simt_2
                raise(SIMTGPU_EXC_ILLEGAL_INSTRUCTION, slot, first, pc, in.raw);
                break;
            }
            [[fallthrough]];
        case Op::Vote: {
            // vote, match, redux: over the member lanes rs2 (all live
            // ones here, or wait for them).
            const uint8_t kind = uint8_t(in.funct | (in.op == Op::Vote    ? kCollectiveVote
                                                     : in.op == Op::Match ? kCollectiveMatch
                                                                          : kCollectiveRedux));
            uint64_t absent = 0;
            uint64_t value[64];
            each(mask, [&](uint32_t l) {
                absent |= b[l] & ~mask;
                value[l] = in.op == Op::Vote ? uint64_t(a[l] != 0) : a[l];
            });
            if (absent & w.live()) {
                each(mask, [&](uint32_t l) {
                    w.sync_mask[l] = b[l];
                    w.sync_value[l] = value[l];
                    w.sync_funct[l] = kind;
                    w.sync_rd[l] = in.rd;
                });
                pcs_written = stop = true;
                wait_in_warp_sync(slot, mask, w.waiting_vote, next);
                break;
            }
            // Lanes with the same members get the same result, except in
            // match.any: compute it once per member mask.
            const bool per_lane = kind == (kCollectiveMatch | SIMTGPU_MATCH_ANY);
            uint64_t done_for = 0, result = 0;
            bool done = false;
            each(mask, [&](uint32_t l) {
                const uint64_t members = mask & b[l];
                if (per_lane || !done || members != done_for) {
                    result = collective(kind, l, members, value);
                    done_for = members;
                    done = true;
                }
                res[l] = result;
            });
            ALU(res[l]);
            break;
        }
        case Op::Shfl: {
            const uint64_t *c = R(in.rs3);
            const uint8_t mode = in.funct;
            uint8_t src[64]; // the lane each lane reads
            uint64_t sources = 0;
            each(mask, [&](uint32_t l) {
                const int64_t lane = l, bv = int64_t(b[l] & 63);
                const int64_t clamp = int64_t(c[l] & 63), seg = int64_t((c[l] >> 8) & 63);
                const int64_t max_lane = (lane & seg) | (clamp & ~seg), min_lane = lane & seg;
                int64_t j;
                bool ok;
                switch (mode) {
                case SIMTGPU_SHFL_UP: j = lane - bv; ok = j >= max_lane; break;
                case SIMTGPU_SHFL_DOWN: j = lane + bv; ok = j <= max_lane; break;
                case SIMTGPU_SHFL_BFLY: j = lane ^ bv; ok = j <= max_lane; break;
                default: j = min_lane | (bv & ~seg); ok = j <= max_lane; break;
                }
                if (!ok || j < 0 || j >= int64_t(W)) j = lane;
                src[l] = uint8_t(j);
                sources |= uint64_t(1) << j;
                res[l] = a[j];
            });
            if (w.waiting_shfl || (sources & ~mask & w.live() & ~w.blocked_bar)) {
                each(mask, [&](uint32_t l) {
                    w.sync_src[l] = src[l];
                    w.sync_value[l] = a[l];
                    w.sync_rs1[l] = in.rs1;
                    w.sync_rd[l] = in.rd;
                });
                pcs_written = stop = true;
                wait_in_warp_sync(slot, mask, w.waiting_shfl, next);
                break;
            }
            ALU(res[l]);
            break;
        }
        case Op::ActiveMask: ALU(mask); break;
        case Op::Nanosleep: { // the longest any lane asked for, in cycles
            if (config.arch < SIMTGPU_ARCH_SIMT2) {
                raise(SIMTGPU_EXC_ILLEGAL_INSTRUCTION, slot, first, pc, in.raw);
                break;
            }
            uint64_t ns = 0;
            each(mask, [&](uint32_t l) {
                ns = std::max<uint64_t>(ns, std::min<uint64_t>(uint32_t(a[l]), SIMTGPU_NANOSLEEP_MAX_NS));
            });
            sleep_cycles = std::max<uint64_t>(1, ns * config.clock_khz / 1000000);
            break;
        }
        case Op::WarpSync: {
            uint64_t waiting = 0;
            each(mask, [&](uint32_t l) {
                const uint64_t need = (a[l] | uint64_t(1) << l) & w.live();
                waiting |= uint64_t((need & ~mask) != 0) << l;
            });
            if (!waiting) break; // every member is here: nothing to wait for
            each(mask, [&](uint32_t l) { w.sync_mask[l] = a[l] | uint64_t(1) << l; });
            pcs_written = stop = true;
            wait_in_warp_sync(slot, mask, w.waiting_warp_sync, next);
            break;
        }
        default:
            exec_fp(slot, in, mask);
            break;
        }
#undef ALU
#undef A
#undef B
#undef SA
#undef SB
#undef W32
        if (replay_hold) [[unlikely]] {
            // The instruction did nothing: it runs again after the replay.
            --issued;
            hold(slot);
            break;
        }
        if (stop_before) [[unlikely]] {
            // The instruction did nothing: it runs again when run() goes on.
            stop_before = false;
            --issued;
            stop_at(slot, GroupChoice{pc, mask, group.yield_pc}, budget - issued);
            break;
        }
        if (exception) break;
        pc = next;
        if (touched_global) {
            ready_at[slot] = now + issued + config.mem_latency;
            break;
        }
        if (sleep_cycles) {
            ready_at[slot] = now + issued + sleep_cycles; // the timing model: timing_issue
            break;
        }
        if (pc >= group.yield_pc) break;
    }
    if (!pcs_written)
        w.set_pcs(mask, pc);
    stats.warp_instructions += issued;
    stats.thread_instructions += uint64_t(issued) * active;
    cur->thread_instructions += uint64_t(issued) * active;
    return issued;
}

// ------------------------------------------------------- the timing model

SmRunResult Sm::Impl::run_timing(uint64_t cycles) {
    ctas_completed = 0;
    stopped = false;
    const uint64_t end = now + cycles;
    if (resume_cycle && now < end && !exception) {
        // The cycle an isolated run stopped in, from the sub-core it stopped at.
        const CycleState c = *resume_cycle;
        resume_cycle.reset();
        issue_cycle(c);
    }
    while (now < end && resident_ctas && !exception && !stopped) {
        // This SM's side of the memory system; a lone SM ticks the whole of its own.
        for (const mem::Completion &c :
             own_memory ? own_memory->tick(now) : memory->tick_sm(memory_sm, now))
            memory_done(c);
        if (sleep_until > now) { // nothing can issue: skip to the next event
            const uint64_t event = own_memory ? own_memory->next_event_cycle()
                                              : memory->next_sm_event_cycle(memory_sm);
            sleep(std::min({sleep_until, end, std::max(now + 1, event)}) - now);
            continue;
        }
        timing_cycle();
    }
    SmRunResult r;
    r.ctas_completed = ctas_completed;
    r.exception = exception;
    r.exception_launch = exception_launch;
    return r;
}

void Sm::Impl::memory_done(const mem::Completion &c) {
    sleep_until = 0;
    ++memory_epoch;
    if (c.kind == mem::AccessKind::load)
        --loads_in_flight;
    if (c.token >= pending.size() || !pending[c.token].valid)
        return;
    PendingLoad &p = pending[c.token];
    p.valid = false;
    WarpTiming &t = timing_warps[p.slot];
    if (t.generation != p.generation)
        return; // the warp has exited
    t.reg_arrival[p.reg] = std::max(t.reg_arrival[p.reg], c.cycle);
    if (--t.reg_parts[p.reg] == 0)
        t.reg_ready[p.reg] = t.reg_arrival[p.reg];
}

// Chooses the warp's next convergent group and decodes its instruction.
bool Sm::Impl::peek(uint32_t slot) {
    Warp &w = warps[slot];
    WarpTiming &t = timing_warps[slot];
    const uint64_t runnable = w.runnable();
    if (t.peeked && t.peek_runnable == runnable)
        return true;
    cur = &launches[ctas[w.cta].launch];
    t.group = choose_group(w);
    fault_slot = slot;
    fault_pc = t.group.pc;
    CodePage *page = nullptr;
    uint64_t page_vpn = UINT64_MAX;
    const Insn *in =
        fetch(slot, uint32_t(std::countr_zero(t.group.mask)), t.group.pc, page, page_vpn);
    if (!in)
        return false;
    t.insn = *in;
    t.info = timing::describe(*in);
    t.peeked = true;
    t.peek_runnable = runnable;
    t.mem_left = 0;
    return true;
}

// Whether the warp can issue this cycle; if not, why, and the cycle at which
// that reason ends (UINT64_MAX: when another warp or the memory system acts).
bool Sm::Impl::warp_ready(uint32_t slot, const SubCore &sc, Stall &why, uint64_t &until) {
    const WarpTiming &t = timing_warps[slot];
    until = UINT64_MAX;
    if (held[slot]) {
        why = Stall::stall_long_scoreboard; // its access waits for the driver
        return false;
    }
    if (!warps[slot].runnable()) {
        why = Stall::stall_barrier;
        return false;
    }
    if (t.not_before > now) {
        why = t.not_before_reason;
        until = t.not_before;
        return false;
    }
    if (!peek(slot)) {
        why = Stall::stall_no_instruction;
        return false;
    }
    if (t.mem_refused && t.refused_epoch == memory_epoch) {
        why = Stall::stall_memory_throttle;
        return false;
    }
    for (uint8_t r : t.info.src) {
        if (r != timing::kNoReg && t.reg_ready[r] > now) {
            why = t.reg_reason[r];
            until = t.reg_ready[r];
            return false;
        }
    }
    if (t.info.dst != timing::kNoReg && t.reg_ready[t.info.dst] > now) {
        why = t.reg_reason[t.info.dst];
        until = t.reg_ready[t.info.dst];
        return false;
    }
    if (sc.unit_free[size_t(t.info.cls)] > now) {
        why = timing::is_memory(t.info.cls) ? Stall::stall_memory_throttle
                                            : Stall::stall_math_pipe_throttle;
        until = sc.unit_free[size_t(t.info.cls)];
        return false;
    }
    return true;
}

namespace {
// The lowest half of a lane mask's lanes (at least one).
uint64_t lower_half(uint64_t mask) {
    uint64_t half = 0;
    for (int k = std::max(1, std::popcount(mask) / 2); k > 0; --k) {
        half |= mask & -mask;
        mask &= mask - 1;
    }
    return half;
}
} // namespace

// Hands the peeked memory instruction's lanes not taken yet to the memory
// system; true when it has taken all of them. A load refused while none of
// this SM's loads is in flight can never be taken whole (more lines than
// MSHRs or L1 ways): it goes in halves, the rest on later cycles.
bool Sm::Impl::issue_memory(uint32_t slot) {
    Warp &w = warps[slot];
    WarpTiming &t = timing_warps[slot];
    const timing::InsnInfo &info = t.info;
    const bool first_part = t.mem_left == 0;
    if (first_part)
        t.mem_left = t.group.mask;
    const uint64_t *base = X(w, t.insn.rs1);
    const int64_t imm = info.mem == timing::MemOp::atomic ? 0 : t.insn.imm;
    bool shared = false;
    access.sm = memory_sm;
    access.warp = slot;
    access.lane_bytes = info.lane_bytes;
    const uint64_t warp_local =
        (uint64_t(sm_id) * config.warps_per_sm + slot) * cur->desc.stack_bytes * W;
    each(t.mem_left, [&](uint32_t l) {
        uint64_t va = base[l] + uint64_t(imm);
        if ((va >> 32) == (SIMTGPU_SHARED_BASE >> 32)) {
            shared = true;
        } else if ((va >> 32) == (SIMTGPU_LOCAL_BASE >> 32)) {
            const uint64_t off = va - SIMTGPU_LOCAL_BASE;
            va = kLocalTimingBase + warp_local + (off & ~uint64_t(3)) * W + l * 4 + (off & 3);
        }
        access.address[l] = va;
    });
    switch (info.mem) {
    case timing::MemOp::load:
        access.kind = shared ? mem::AccessKind::shared_load : mem::AccessKind::load;
        break;
    case timing::MemOp::store:
        access.kind = shared ? mem::AccessKind::shared_store : mem::AccessKind::store;
        break;
    default:
        access.kind = shared ? mem::AccessKind::shared_load : mem::AccessKind::atomic;
        break;
    }
    const bool waits = info.mem != timing::MemOp::store && info.dst != timing::kNoReg;
    if (first_part && waits) {
        t.reg_parts[info.dst] = 0;
        t.reg_arrival[info.dst] = 0;
    }
    uint64_t part = t.mem_left;
    for (;;) {
        access.active_mask = part;
        const mem::IssueResult r = memory->issue(access, now);
        if (r.accepted) {
            if (r.token >= pending.size())
                pending.resize(size_t(r.token) + 1);
            // valid: an answer the scoreboard waits for (a store's is not).
            pending[r.token] = PendingLoad{slot, t.generation, info.dst, waits};
            if (waits)
                ++t.reg_parts[info.dst];
            loads_in_flight += access.kind == mem::AccessKind::load;
            t.mem_left &= ~part;
            break;
        }
        if (loads_in_flight || std::popcount(part) == 1)
            break; // wait for an MSHR
        part = lower_half(part);
    }
    if (shared)
        t.info.cls = timing::InsnClass::shared;
    return t.mem_left == 0;
}

// Issues the warp's peeked instruction: a memory one first to the memory
// system (refused: it retries next cycle, false), then it executes.
bool Sm::Impl::timing_issue(uint32_t slot, SubCore &sc) {
    WarpTiming &t = timing_warps[slot];
    cur = &launches[ctas[warps[slot].cta].launch];
    if (t.info.mem != timing::MemOp::none && !issue_memory(slot))
        return false;
    const timing::InsnInfo info = t.info;
    const timing::InsnClass cls = info.cls;
    const timing::Unit &unit = config.timing.unit(cls);
    sc.unit_free[size_t(cls)] = now + unit.ii;
    issued_at[slot] = now;
    t.peeked = false;
    t.mem_left = 0;
    warps[slot].burst_global = cls == timing::InsnClass::global || cls == timing::InsnClass::atomic;
    burst_group(slot, t.group, 1);
    // Memory destinations wait for memory_done(); the others for the unit.
    if (info.dst != timing::kNoReg) {
        if (info.mem != timing::MemOp::none) {
            if (t.reg_parts[info.dst])
                t.reg_ready[info.dst] = UINT64_MAX;
            t.reg_reason[info.dst] =
                cls == timing::InsnClass::global || cls == timing::InsnClass::atomic
                    ? Stall::stall_long_scoreboard
                    : Stall::stall_short_scoreboard;
        } else {
            t.reg_ready[info.dst] = now + unit.latency;
            t.reg_reason[info.dst] =
                cls == timing::InsnClass::sfu ? Stall::stall_short_scoreboard : Stall::stall_wait;
        }
    }
    if (cls == timing::InsnClass::branch || cls == timing::InsnClass::barrier) {
        // A sleeping warp counts as waiting at a barrier: it sleeps to wait for others.
        t.not_before = now + std::max<uint64_t>(unit.latency, sleep_cycles);
        t.not_before_reason =
            cls == timing::InsnClass::branch ? Stall::stall_no_instruction : Stall::stall_barrier;
    }
    return true;
}

// The one place where a resident warp's cycle is accounted: it issued, or it
// did not, for `why`. A per-cycle trace of issues and stalls hooks in here.
SIMT_INLINE void Sm::Impl::account_warp_cycle(uint32_t slot, bool issued, Stall why,
                                              uint64_t cycles) {
    if (!issued)
        stats.*kStallCounters[size_t(why)] += cycles;
    if (trace) // from now on; docs/trace.md
        trace->warp(slot,
                    issued               ? trace::WarpState::issue
                    : warps[slot].live() ? trace::stall_state(why)
                                         : trace::WarpState::done,
                    now);
}

// `cycles` in which no warp can issue (timing_cycle found none ready and
// nothing changes before sleep_until): each live warp keeps its reason.
void Sm::Impl::sleep(uint64_t cycles) {
    for (SubCore &sc : subcores)
        for (size_t i = 0; i < sc.slots.size(); ++i)
            if (sc.live[i])
                account_warp_cycle(sc.slots[i], false, sc.why[i], cycles);
    advance(cycles, resident_warps);
}

// One cycle: each sub-core's scheduler picks among its ready warps and
// issues at most one instruction.
void Sm::Impl::timing_cycle() {
    CycleState c;
    c.warps_resident = resident_warps;
    // Every scheduler sees its warps as they are at the start of the cycle.
    for (SubCore &sc : subcores) {
        sc.any_ready = false;
        for (size_t i = 0; i < sc.slots.size(); ++i) {
            const uint32_t slot = sc.slots[i];
            sc.live[i] = warps[slot].active;
            sc.ready[i] = 0;
            // An empty slot waits for ever: a two-level scheduler must not
            // keep it in its active set while live warps starve outside.
            sc.long_wait[i] = !sc.live[i];
            if (!sc.live[i])
                continue;
            ++c.active;
            Stall why = Stall::stall_not_selected;
            uint64_t until = 0;
            const bool ready_now = warp_ready(slot, sc, why, until);
            if (exception)
                return;
            if (stop_before) { // its code is in host memory: the cycle runs serially
                stop_before = false;
                stopped = true;
                return;
            }
            sc.ready[i] = ready_now;
            sc.why[i] = why;
            sc.any_ready |= ready_now;
            c.any_ready |= ready_now;
            c.wake = std::min(c.wake, until);
            if (!ready_now) {
                sc.long_wait[i] =
                    why == Stall::stall_long_scoreboard || why == Stall::stall_barrier;
                c.blocked += warps[slot].runnable() == 0;
            }
        }
    }
    issue_cycle(c);
}

// Whether the warp's peeked instruction would change what other SMs see at
// once (a global atomic, an access to host memory, a store to decoded
// code): an isolated run stops before it (Sm::run_isolated).
bool Sm::Impl::must_run_serially(uint32_t slot) {
    const WarpTiming &t = timing_warps[slot];
    if (!isolated || t.info.mem == timing::MemOp::none || t.mem_left != 0)
        return false;
    cur = &launches[ctas[warps[slot].cta].launch];
    const Access access = t.info.mem == timing::MemOp::load    ? Access::Read
                          : t.info.mem == timing::MemOp::store ? Access::Write
                                                               : Access::Atomic;
    const int64_t imm = access == Access::Atomic ? 0 : t.insn.imm;
    return needs_serial(t.group.mask, X(warps[slot], t.insn.rs1), imm, t.info.lane_bytes, access);
}

// The issue half of a cycle, from sub-core c.subcore on: each scheduler
// picks among its ready warps and issues at most one instruction. An
// isolated run that meets an instruction that must run serially keeps the
// cycle in resume_cycle, and run() finishes it from there.
void Sm::Impl::issue_cycle(CycleState c) {
    for (; c.subcore < subcores.size(); ++c.subcore, c.pick = -1) {
        SubCore &sc = subcores[c.subcore];
        int issued = -1;
        if (sc.any_ready) {
            const int pick = c.pick >= 0 ? c.pick
                                         : sc.scheduler->pick(sc.ready, sc.age, sc.last, sc.long_wait);
            if (pick >= 0 && warps[sc.slots[size_t(pick)]].active) {
                sc.last = pick;
                if (must_run_serially(sc.slots[size_t(pick)])) {
                    c.pick = pick;
                    resume_cycle = c;
                    stopped = true;
                    return;
                }
                WarpTiming &picked = timing_warps[sc.slots[size_t(pick)]];
                picked.mem_refused = !timing_issue(sc.slots[size_t(pick)], sc);
                picked.refused_epoch = memory_epoch;
                if (picked.mem_refused)
                    sc.why[size_t(pick)] = Stall::stall_memory_throttle;
                else
                    issued = pick;
                if (exception)
                    return;
            }
        }
        for (size_t i = 0; i < sc.slots.size(); ++i)
            if (sc.live[i])
                account_warp_cycle(sc.slots[i], int(i) == issued, sc.why[i], 1);
    }
    if (c.active && c.blocked == c.active) // every live thread waits: a deadlock?
        for (uint32_t cta = 0; cta < ctas.size() && !exception; ++cta)
            if (ctas[cta].active)
                check_deadlock(cta);
    advance(1, c.warps_resident);
    if (!c.any_ready && resident_warps == c.warps_resident)
        sleep_until = c.wake; // memory_done() wakes it earlier
}

// ------------------------------------------------------------ Sm

Sm::Sm(const DeviceConfig &config, uint32_t sm_id) : impl_(std::make_unique<Impl>(config, sm_id)) {}
Sm::~Sm() = default;

std::optional<uint32_t> Sm::attach(const LaunchDesc &launch, GlobalMemory &memory,
                                   uint64_t device_cycle)
{
    Impl &s = *impl_;
    auto free = std::find_if(s.launches.begin(), s.launches.end(),
                             [](const LaunchContext &lc) { return !lc.attached; });
    if (free == s.launches.end()) return std::nullopt;
    if (s.resident_ctas == 0) {
        s.now = device_cycle;
        s.last_issued = -1;
        if (!s.subcores.empty() && (s.own_memory || !s.memory))
            s.make_own_memory(); // its clock starts again
    }
    const simtgpu_sm_resources r{s.config.warps_per_sm, s.config.warp_size, s.config.ctas_per_sm,
                                 s.config.shared_bytes_per_sm};
    LaunchContext &lc = *free;
    lc.attached = true;
    lc.desc = launch;
    lc.memory = &memory;
    lc.warps_per_cta = simtgpu_warps_per_cta(&r, launch.threads_per_cta());
    lc.shared_alloc = simtgpu_shared_alloc_bytes(launch.shared_bytes);
    lc.resident_ctas = lc.ctas_completed = 0;
    lc.ctas_finished = lc.thread_instructions = 0;
    lc.exits = ExitRecord{};
    // Chunks of at least 64 bytes, at most 64 of them per window.
    lc.local_chunk_shift = 6;
    while ((uint64_t(launch.stack_bytes) >> lc.local_chunk_shift) >= 64)
        ++lc.local_chunk_shift;
    for (TlbEntry &e : lc.tlb) e = TlbEntry{};
    lc.clear_code();
    return uint32_t(free - s.launches.begin());
}

void Sm::detach(uint32_t launch)
{
    LaunchContext &lc = impl_->launches[launch];
    lc.attached = false;
    lc.clear_code();
}

bool Sm::can_accept_cta(const LaunchDesc &launch) const
{
    const Impl &s = *impl_;
    const simtgpu_sm_resources r{s.config.warps_per_sm, s.config.warp_size, s.config.ctas_per_sm,
                                 s.config.shared_bytes_per_sm};
    return s.fits(simtgpu_warps_per_cta(&r, launch.threads_per_cta()),
                  simtgpu_shared_alloc_bytes(launch.shared_bytes));
}

bool Sm::can_accept_cta(uint32_t launch) const
{
    const LaunchContext &lc = impl_->launches[launch];
    return impl_->fits(lc.warps_per_cta, lc.shared_alloc);
}

void Sm::add_cta(uint32_t launch, const Dim3 &ctaid) { impl_->add_cta(launch, ctaid); }
SmRunResult Sm::run(uint64_t cycles) { return impl_->run(cycles); }
SmRunResult Sm::run_isolated(uint64_t cycles) { return impl_->run_isolated(cycles); }
bool Sm::stopped() const { return impl_->stopped; }
void Sm::commit() { impl_->commit(); }

void Sm::use_memory_system(mem::MemorySystem &memory)
{
    impl_->own_memory.reset();
    impl_->memory = &memory;
    impl_->memory_sm = impl_->sm_id;
}

void Sm::catch_up(uint64_t cycle) {
    impl_->now = std::max(impl_->now, cycle);
}

std::vector<HeldFault> Sm::take_faults() { return std::exchange(impl_->new_faults, {}); }

uint32_t Sm::held_warps(uint32_t launch) const
{
    const Impl &s = *impl_;
    uint32_t n = 0;
    for (uint32_t slot = 0; slot < s.warps.size(); ++slot)
        n += s.held[slot] && s.warps[slot].active && s.ctas[s.warps[slot].cta].launch == launch;
    return n;
}

bool Sm::waits_for_replay() const
{
    const Impl &s = *impl_;
    if (!s.held_warps || s.exception)
        return false;
    for (uint32_t slot = 0; slot < s.warps.size(); ++slot)
        if (s.warps[slot].active && !s.held[slot] && s.warps[slot].runnable())
            return false;
    return true;
}

void Sm::replay(uint64_t service_cycles, const std::function<bool(uint32_t launch)> &cancel)
{
    Impl &s = *impl_;
    for (uint32_t slot = 0; slot < s.warps.size() && s.held_warps; ++slot) {
        if (!s.held[slot])
            continue;
        s.release_hold(slot);
        const Warp &w = s.warps[slot];
        const Impl::Held &h = s.held_fault[slot];
        if (cancel(s.ctas[w.cta].launch)) {
            s.raise(SIMTGPU_EXC_PAGE_FAULT, slot, h.lane, h.pc, SIMTGPU_FAULT_NOT_PRESENT,
                    h.address, h.access);
            continue;
        }
        const uint64_t resume = std::max(s.now, h.cycle + service_cycles);
        s.ready_at[slot] = resume;
        s.recheck_slot(slot);
        if (!s.subcores.empty()) {
            WarpTiming &t = s.timing_warps[slot];
            t.not_before = resume;
            t.peeked = false;
        }
    }
    s.sleep_until = 0; // the timing model looks at its warps again
}

void Sm::invalidate_tlb()
{
    for (LaunchContext &lc : impl_->launches)
        for (TlbEntry &e : lc.tlb)
            e = TlbEntry{};
}

void Sm::memory_done(const mem::Completion &completion) { impl_->memory_done(completion); }

uint32_t Sm::take_ctas_completed(uint32_t launch)
{
    return std::exchange(impl_->launches[launch].ctas_completed, 0);
}

bool Sm::idle() const { return impl_->resident_ctas == 0; }
uint32_t Sm::resident_warps() const { return impl_->resident_warps; }
uint32_t Sm::resident_ctas(uint32_t launch) const { return impl_->launches[launch].resident_ctas; }

void Sm::abort(uint32_t launch)
{
    Impl &s = *impl_;
    for (uint32_t c = 0; c < s.ctas.size(); ++c)
        if (s.ctas[c].active && s.ctas[c].launch == launch) s.drop_cta(c);
    if (s.trace)
        s.trace->flush(s.now);
    if (s.exception && s.exception_launch == launch) s.exception.reset();
}

void Sm::abort()
{
    Impl &s = *impl_;
    for (uint32_t c = 0; c < s.ctas.size(); ++c)
        if (s.ctas[c].active && s.trace)
            s.trace->cta_left(c, s.ctas[c].warps, false);
    if (s.trace)
        s.trace->flush(s.now);
    for (Cta &c : s.ctas) c.active = false;
    for (Warp &w : s.warps) w.active = false;
    std::fill(s.held.begin(), s.held.end(), 0);
    s.held_warps = 0;
    s.new_faults.clear();
    s.resume_slot = -1;
    s.resume_cycle.reset();
    std::fill(s.can_issue.begin(), s.can_issue.end(), 0);
    std::fill(s.waiting.begin(), s.waiting.end(), 0);
    s.wakes.clear();
    for (LaunchContext &lc : s.launches) {
        lc.attached = false;
        lc.resident_ctas = 0;
        lc.clear_code();
    }
    s.resident_ctas = s.resident_warps = s.shared_used = 0;
    s.exception.reset();
    // The device clock and memory system start again (GridScheduler::reset):
    // the SM's clock, its sub-cores' units and the loads it waited for go
    // with them, or its warps would wait for cycles and answers of before.
    s.now = s.sleep_until = 0;
    s.loads_in_flight = 0;
    s.pending.clear();
    std::fill(s.issued_at.begin(), s.issued_at.end(), 0);
    for (SubCore &sc : s.subcores) {
        sc.unit_free = {};
        sc.last = -1;
    }
}

uint64_t Sm::clock() const { return impl_->now; }

uint64_t Sm::state_fingerprint(uint32_t launch) const {
    const Impl &s = *impl_;
    uint64_t h = 1469598103934665603ull;
    auto mix = [&h](uint64_t v) { h = (h ^ v) * 1099511628211ull; };
    mix(s.launches[launch].ctas_finished);
    for (const Cta &cta : s.ctas) {
        if (!cta.active || cta.launch != launch)
            continue;
        mix(uint64_t(cta.ctaid[0]) | uint64_t(cta.ctaid[1]) << 21 | uint64_t(cta.ctaid[2]) << 42);
        for (const Barrier &bar : cta.bars)
            mix(bar.arrived);
        // Eight bytes at a time: byte by byte was a percent of short kernels.
        const size_t words = cta.shared.size() / 8;
        for (size_t k = 0; k < words; ++k) {
            uint64_t word;
            std::memcpy(&word, cta.shared.data() + 8 * k, 8);
            mix(word);
        }
        for (size_t k = 8 * words; k < cta.shared.size(); ++k)
            mix(cta.shared[k]);
    }
    for (const Warp &w : s.warps) {
        if (!w.active || s.ctas[w.cta].launch != launch)
            continue;
        mix(w.exited);
        mix(w.blocked_bar);
        mix(w.blocked_sync);
        for (uint64_t m = w.live(); m; m &= m - 1) {
            const uint32_t l = uint32_t(std::countr_zero(m));
            for (uint32_t r = 1; r < kRegSink; ++r)
                mix(w.x[size_t(r) * s.W + l]);
            for (uint32_t r = 0; r < 32; ++r)
                mix(w.f[size_t(r) * s.W + l]);
        }
    }
    return h;
}

// Names the first lane of the warp that could issue but has not for
// `starved_cycles`: the one the scheduler keeps from running.
std::optional<Exception> Sm::starved_warp(uint32_t launch, uint64_t starved_cycles) const {
    const Impl &s = *impl_;
    for (uint32_t slot = 0; slot < s.warps.size(); ++slot) {
        const Warp &w = s.warps[slot];
        const uint64_t lanes = w.active && s.ctas[w.cta].launch == launch ? w.runnable() : 0;
        if (!lanes || s.ready_at[slot] > s.now || s.now - s.issued_at[slot] < starved_cycles)
            continue;
        const uint32_t l = uint32_t(std::countr_zero(lanes));
        Exception e;
        e.kind = SIMTGPU_EXC_DEADLOCK;
        e.detail = SIMTGPU_DEADLOCK_NO_PROGRESS;
        e.sm = s.sm_id;
        e.pc = w.pc_of(l);
        e.warp = slot;
        e.lane = l;
        e.ctaid = s.ctas[w.cta].ctaid;
        e.tid = {w.tid[3 * l], w.tid[3 * l + 1], w.tid[3 * l + 2]};
        return e;
    }
    return std::nullopt;
}

const ExitRecord &Sm::exit_record(uint32_t launch) const { return impl_->launches[launch].exits; }
uint64_t Sm::thread_instructions(uint32_t launch) const
{
    return impl_->launches[launch].thread_instructions;
}
const SmStats &Sm::stats() const { return impl_->stats; }
void Sm::reset_stats() { impl_->stats = SmStats{}; }

void Sm::trace_to(trace::TraceWriter *writer) {
    Impl &s = *impl_;
    s.trace = writer ? std::make_unique<trace::SmTrace>(*writer, s.sm_id, s.config.warps_per_sm,
                                                        s.config.ctas_per_sm)
                     : nullptr;
}

} // namespace simtgpu::sim
