// The timing pipeline of one SM (DeviceConfig::model == timing,
// docs/timing.md): each cycle each sub-core's warp scheduler picks a warp
// whose next instruction's registers are not pending on the scoreboard and
// whose functional unit is free; that instruction executes at issue (so
// results never depend on timing), its destination is pending for the class
// latency, and memory instructions go to the memory system (sim/src/mem),
// their loads pending until it answers.
//
// The seam with the functional model (docs/simulator.md, "The timing-model
// seam"): the pipeline owns every piece of timing state (sub-cores,
// scoreboards, loads in flight, the memory system's port) and sees the
// functional SM only through FunctionalSm below: instruction records
// (timing/insn_record.h) to issue, and each warp slot's state. It never
// reads a register, and the functional model never writes timing state.
#pragma once

#include "config.h"
#include "mem/memory_system.h"
#include "sm/sm.h"
#include "sm/warp_scheduler.h"
#include "timing/insn_record.h"

#include <concepts>
#include <memory>
#include <optional>
#include <vector>

namespace simtgpu::sim::timing {

// A warp slot as the pipeline sees it at the start of a cycle.
struct SlotState {
    bool resident = false; // a warp is placed in the slot
    bool held = false;     // its access waits for the driver (a replayable fault)
    uint64_t runnable = 0; // lanes not exited, not waiting at a barrier or a sync
    uint64_t live = 0;     // lanes not exited
};

// What the pipeline asks of the functional SM (sm/timing_port.cpp is the
// one implementation).
template <class F>
concept FunctionalSm = requires(F &f, const F &cf, uint32_t slot, InsnRecord &record,
                                const InsnRecord &next, uint64_t cycles, Stall why) {
    // The SM's clock, and time passing with this many warps resident.
    { cf.clock() } -> std::same_as<uint64_t>;
    { f.advance(cycles, slot) } -> std::same_as<void>;
    { cf.resident_warps() } -> std::same_as<uint32_t>;
    { cf.resident_ctas() } -> std::same_as<uint32_t>;
    { cf.slot_state(slot) } -> std::same_as<SlotState>;
    // The record of the warp's next instruction, made without executing it
    // (false: its fetch raised an exception or asked to stop).
    { f.next_record(slot, record) } -> std::same_as<bool>;
    // Executes exactly the recorded instruction; returns the cycles the warp
    // then sleeps (warp.nanosleep), 0 if none.
    { f.execute_record(slot, next) } -> std::same_as<uint64_t>;
    // An isolated run (Sm::run_isolated) must stop before this instruction:
    // other SMs would see its effect at once.
    { f.must_run_serially(slot, next) } -> std::same_as<bool>;
    // Bytes of local memory per thread of the slot's launch.
    { cf.stack_bytes(slot) } -> std::same_as<uint64_t>;
    // An exception was raised; the run stops.
    { cf.exception_raised() } -> std::same_as<bool>;
    // The run stopped (an isolated run, before an instruction that must run
    // serially); stop() stops it, take_stop_request() the fetch's request.
    { cf.stopped() } -> std::same_as<bool>;
    { f.stop() } -> std::same_as<void>;
    { f.take_stop_request() } -> std::same_as<bool>;
    // A warp's cycle: it issued, or did not for `why` (statistics, trace).
    { f.account_warp_cycle(slot, true, why, cycles) } -> std::same_as<void>;
    // Every live thread waits at a barrier or a sync: a deadlock?
    { f.check_deadlocks() } -> std::same_as<void>;
};

// The timing model's view of a warp slot.
struct WarpTiming {
    // The next instruction, looked at before it issues (peek): valid while
    // the warp's runnable lanes are those it was chosen from.
    bool peeked = false;
    uint64_t peek_runnable = 0;
    InsnRecord next;
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
    std::array<uint64_t, kScoreboardRegs> reg_ready{};
    std::array<Stall, kScoreboardRegs> reg_reason{};
    std::array<uint8_t, kScoreboardRegs> reg_parts{};
    std::array<uint64_t, kScoreboardRegs> reg_arrival{};
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
    std::array<uint64_t, kInsnClasses> unit_free{};
};

// A memory access whose answer a register (or nothing) waits for.
struct PendingLoad {
    uint32_t slot = 0, generation = 0;
    uint8_t reg = 0;
    bool valid = false;
};

// Local memory is per thread at the same addresses; to the caches it is
// interleaved by lane as on NVIDIA GPUs, in a range of its own per warp.
inline constexpr uint64_t kLocalTimingBase = uint64_t(1) << 47;

template <class F> class SmPipeline {
public:
    SmPipeline(F functional, const DeviceConfig &config, uint32_t sm_id);

    // Runs until `end` (the SM's clock), every CTA is gone, an exception is
    // raised or the run stops.
    void run(uint64_t end);
    // A warp placed in the slot: nothing pending, nothing peeked; `age` is
    // its launch order on the SM (the schedulers' oldest-first).
    void warp_placed(uint32_t slot, uint64_t age);
    // A held warp's access was replayed: it issues again from `resume`.
    void warp_resumed(uint32_t slot, uint64_t resume);
    // Warps changed outside the pipeline (replays): the next cycle looks at
    // them again rather than sleeping on.
    void look_again();
    // The memory system answered an access of this SM.
    void memory_done(const mem::Completion &c);
    // The device's memory system, shared by its SMs; without one the SM
    // makes its own when its first launch is attached.
    void use_memory_system(mem::MemorySystem &memory, uint32_t memory_sm);
    void start_own_memory_if_alone();
    // The device clock and memory system start again: sub-cores' units and
    // the loads waited for go with them.
    void reset();

private:
    // A timing cycle between its two halves: what the first found.
    struct CycleState {
        uint32_t warps_resident = 0;
        uint32_t blocked = 0, active = 0; // warps with no runnable lane, live warps
        uint64_t wake = UINT64_MAX;       // when the first reason not to issue ends
        bool any_ready = false;
        size_t subcore = 0; // the next sub-core to issue
        int pick = -1;      // its pick, made before the run stopped
    };

    void cycle();
    void issue_cycle(CycleState c);
    bool peek(uint32_t slot, const SlotState &state);
    inline bool warp_ready(uint32_t slot, const SlotState &state, const SubCore &sc, Stall &why,
                           uint64_t &until);
    bool issue_memory(uint32_t slot);
    inline bool issue(uint32_t slot, SubCore &sc);
    bool must_run_serially(uint32_t slot);
    void sleep(uint64_t cycles);
    void make_own_memory();

    F sm_;
    const DeviceConfig &config_;
    const uint32_t sm_id_;
    std::vector<WarpTiming> warps_;
    std::vector<SubCore> subcores_;
    std::unique_ptr<mem::MemorySystem> own_memory_; // a lone SM's
    mem::MemorySystem *memory_ = nullptr;
    uint32_t memory_sm_ = 0;           // this SM's index in *memory_
    std::vector<PendingLoad> pending_; // by token
    uint32_t loads_in_flight_ = 0;     // global and local loads the memory system holds
    uint64_t sleep_until_ = 0;         // no warp can issue before this cycle
    uint64_t memory_epoch_ = 0;        // answers of the memory system so far
    mem::WarpAccess access_;
    // The cycle an isolated run stopped in, to finish when run() is next called.
    std::optional<CycleState> resume_cycle_;
};

} // namespace simtgpu::sim::timing
