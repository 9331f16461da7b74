#include "dispatch/grid_scheduler.h"

#include "simtgpu/hw.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

namespace simtgpu::sim {
namespace {

Dim3 cta_coordinates(const LaunchDesc &launch, uint64_t linear) {
    const uint64_t x = launch.grid[0], y = launch.grid[1];
    return {uint32_t(linear % x), uint32_t(linear / x % y), uint32_t(linear / (x * y))};
}

uint64_t linear_cta(const LaunchDesc &launch, const Dim3 &c) {
    return (uint64_t(c[2]) * launch.grid[1] + c[1]) * launch.grid[0] + c[0];
}

uint64_t linear_tid(const LaunchDesc &launch, const Dim3 &t) {
    return (uint64_t(t[2]) * launch.block[1] + t[1]) * launch.block[0] + t[0];
}

// "First" non-zero exit across SMs: the lowest CTA, then the lowest thread,
// so the answer does not depend on how CTAs were spread over SMs.
void merge_exits(const LaunchDesc &launch, ExitRecord &into, const ExitRecord &from) {
    if (from.nonzero_exits == 0)
        return;
    const bool earlier =
        into.nonzero_exits == 0 ||
        std::pair(linear_cta(launch, from.ctaid), linear_tid(launch, from.tid)) <
            std::pair(linear_cta(launch, into.ctaid), linear_tid(launch, into.tid));
    const uint32_t total = into.nonzero_exits + from.nonzero_exits;
    if (earlier)
        into = from;
    into.nonzero_exits = total;
}

// Higher priority first, then launch order.
bool offered_before(const Grid *a, const Grid *b) {
    if (a->priority != b->priority)
        return a->priority > b->priority;
    return a->arrival < b->arrival;
}

} // namespace

// The SMs one grid may use during one step.
class GridScheduler::GridPlacement final : public Placement {
public:
    GridPlacement(GridScheduler &s, Grid &grid, const std::vector<const Grid *> &reserved,
                  uint64_t now)
        : s_(s), grid_(grid), reserved_(reserved), now_(now) {}

    uint32_t num_sms() const override { return s_.num_sms(); }
    bool more() const override { return grid_.unplaced(); }
    bool fits(uint32_t sm) const override {
        if (!grid_.sm_allowed[sm] || (reserved_[sm] && reserved_[sm] != &grid_))
            return false;
        const Sm &m = *s_.sms_[sm];
        if (const Attachment *a = s_.attachment(sm, grid_))
            return m.can_accept_cta(a->launch);
        return s_.may_join(sm, grid_) && m.can_accept_cta(grid_.desc);
    }
    uint32_t load(uint32_t sm) const override { return s_.sms_[sm]->resident_warps(); }
    void place(uint32_t sm) override {
        Attachment *a = s_.attachment(sm, grid_);
        if (!a)
            a = &s_.attach(sm, grid_, now_);
        s_.sms_[sm]->add_cta(a->launch, cta_coordinates(grid_.desc, grid_.next_cta++));
        ++grid_.resident_ctas;
        ++grid_.outcome.ctas_per_sm[sm];
        uint32_t &peak = grid_.outcome.peak_resident_ctas[sm];
        peak = std::max(peak, ++a->resident);
    }

private:
    GridScheduler &s_;
    Grid &grid_;
    const std::vector<const Grid *> &reserved_;
    uint64_t now_;
};

GridScheduler::GridScheduler(const DeviceConfig &config)
    : config_(config), policy_(make_placement_policy(config.placement)),
      sharing_(sm_sharing_mode(config.sm_sharing)), attached_(config.num_sms),
      ctas_completed_(config.num_sms, 0) {
    for (uint32_t i = 0; i < config.num_sms; ++i)
        sms_.push_back(std::make_unique<Sm>(config, i));
    make_memory_system();
    if (config.host_threads > 1)
        workers_ = std::make_unique<SmWorkers>(config.host_threads);
}

// Timing model: one memory system that every SM shares.
void GridScheduler::make_memory_system() {
    if (config_.model != Model::timing)
        return;
    auto created = mem::MemorySystem::create(config_.memory, config_.num_sms, config_.clock_khz);
    if (!created) { // DeviceConfig's builders validate it
        std::fprintf(stderr, "simtgpu: DeviceConfig.memory is invalid: %s\n",
                     created.error().c_str());
        std::abort();
    }
    memory_ = std::make_unique<mem::MemorySystem>(std::move(*created));
    for (auto &sm : sms_)
        sm->use_memory_system(*memory_);
}

Grid *GridScheduler::add(std::unique_ptr<Grid> grid, uint64_t now) {
    grid->arrival = arrivals_++;
    grid->start_cycle = now;
    grid->total_ctas = grid->desc.ctas();
    grid->watchdog = LivelockWatchdog(config_.livelock_cycles);
    grid->outcome.ctas_per_sm.assign(sms_.size(), 0);
    grid->outcome.peak_resident_ctas.assign(sms_.size(), 0);
    if (memory_)
        memory_->invalidate_l1(); // Volta's L1 is not coherent: a kernel starts cold
    grids_.push_back(std::move(grid));
    if (grids_.back()->l2_window.bytes)
        update_l2_windows();
    return grids_.back().get();
}

void GridScheduler::update_l2_windows() {
    if (!memory_)
        return;
    std::vector<mem::L2AccessWindow> windows;
    for (auto &g : grids_)
        if (g->l2_window.bytes && std::find(windows.begin(), windows.end(), g->l2_window) ==
                                      windows.end())
            windows.push_back(g->l2_window);
    memory_->set_l2_windows(std::move(windows));
}

void GridScheduler::set_l2_set_aside(uint64_t bytes) {
    if (memory_)
        memory_->set_l2_set_aside(bytes);
}

void GridScheduler::reset_persisting_l2() {
    if (memory_)
        memory_->reset_persisting_l2();
}

const GridScheduler::Attachment *GridScheduler::attachment(uint32_t sm, const Grid &grid) const {
    for (const Attachment &a : attached_[sm])
        if (a.grid == &grid)
            return &a;
    return nullptr;
}

GridScheduler::Attachment *GridScheduler::attachment(uint32_t sm, const Grid &grid) {
    return const_cast<Attachment *>(std::as_const(*this).attachment(sm, grid));
}

bool GridScheduler::may_join(uint32_t sm, const Grid &grid) const {
    return std::all_of(attached_[sm].begin(), attached_[sm].end(), [&](const Attachment &a) {
        return a.resident == 0 || may_share_sm(sharing_, *a.grid, grid);
    });
}

GridScheduler::Attachment &GridScheduler::attach(uint32_t sm, Grid &grid, uint64_t now) {
    std::vector<Attachment> &list = attached_[sm];
    for (size_t i = list.size(); i-- > 0;)
        if (list[i].resident == 0)
            release(sm, *list[i].grid);
    // A CTA slot per launch slot: a grid whose CTA fits finds a free one.
    const uint32_t launch = *sms_[sm]->attach(grid.desc, *grid.memory, now);
    return list.emplace_back(Attachment{&grid, launch, 0});
}

void GridScheduler::release(uint32_t sm, const Grid &grid) {
    std::vector<Attachment> &list = attached_[sm];
    auto it = std::find_if(list.begin(), list.end(),
                           [&](const Attachment &a) { return a.grid == &grid; });
    if (it == list.end())
        return;
    Sm &m = *sms_[sm];
    merge_exits(it->grid->desc, it->grid->outcome.exits, m.exit_record(it->launch));
    it->grid->outcome.thread_instructions += m.thread_instructions(it->launch);
    m.detach(it->launch);
    list.erase(it);
}

void GridScheduler::release_all(Grid &grid) {
    for (uint32_t sm = 0; sm < sms_.size(); ++sm)
        release(sm, grid);
}

// SMs that grids behind `grid` hold, as many as its unplaced CTAs need
// beyond the SMs it holds itself, lowest index first.
void GridScheduler::reserve(const Grid &grid, const std::vector<const Grid *> &order,
                            std::vector<const Grid *> &reserved) const {
    const auto behind = [&](const Grid *owner) {
        return std::find(order.begin(), order.end(), owner) >
               std::find(order.begin(), order.end(), &grid);
    };
    const uint64_t unplaced = grid.total_ctas - grid.next_cta;
    uint64_t need = (unplaced + grid.ctas_per_sm - 1) / grid.ctas_per_sm;
    for (uint32_t sm = 0; sm < sms_.size() && need; ++sm)
        if (attachment(sm, grid))
            --need;
    for (uint32_t sm = 0; sm < sms_.size() && need; ++sm) {
        if (!grid.sm_allowed[sm] || reserved[sm] || attachment(sm, grid))
            continue;
        const bool held_behind = std::any_of(attached_[sm].begin(), attached_[sm].end(),
                                             [&](const Attachment &a) { return behind(a.grid); });
        if (held_behind) {
            reserved[sm] = &grid;
            --need;
        }
    }
}

uint64_t GridScheduler::step(uint64_t now) {
    std::vector<const Grid *> order;
    for (auto &g : grids_)
        if (g->state == GridState::Running || g->state == GridState::Draining)
            order.push_back(g.get());
    std::sort(order.begin(), order.end(), offered_before);

    std::vector<const Grid *> reserved(sms_.size(), nullptr);
    for (size_t i = 0; i < order.size(); ++i) {
        Grid &grid = const_cast<Grid &>(*order[i]);
        if (grid.state != GridState::Running || !grid.unplaced() ||
            !policy_->may_place(grid, std::span(order.data(), i)))
            continue;
        GridPlacement placement(*this, grid, reserved, now);
        policy_->place(placement);
        if (grid.unplaced())
            reserve(grid, order, reserved);
    }

    const uint64_t advanced = memory_ ? step_timing(now) : step_functional();
    now_ = now + advanced;
    for (auto &g : grids_)
        settle(*g, now + advanced);
    return advanced;
}

// The SMs with CTAs run the quantum isolated, on as many host threads as
// configured, then their stores are committed in SM order, then the SMs
// that stopped before an instruction that must run serially (Sm::run_isolated)
// finish the quantum one after the other. The same three phases on one
// thread give the same result, by construction. Returns the cycles the
// quantum took: fewer than `quantum` when every SM ran out of CTAs.
uint64_t GridScheduler::run_quantum(uint64_t quantum, const std::function<void()> &beside) {
    std::vector<uint32_t> &busy = busy_list_;
    busy.clear();
    for (uint32_t i = 0; i < sms_.size(); ++i)
        if (!sms_[i]->idle())
            busy.push_back(i);
    isolated_.resize(sms_.size());
    starts_.resize(sms_.size());
    // Job 0 is `beside`, handed out first: the longest job.
    const uint32_t first_sm = beside ? 1 : 0;
    auto isolated_run = [&](uint32_t k) {
        if (k < first_sm) {
            beside();
            return;
        }
        Sm &sm = *sms_[busy[k - first_sm]];
        starts_[busy[k - first_sm]] = sm.clock();
        isolated_[busy[k - first_sm]] = sm.run_isolated(quantum);
    };
    const uint32_t jobs = first_sm + uint32_t(busy.size());
    // A trace's SM tracks go to one writer: one thread then.
    if (workers_ && !trace_)
        workers_->run(jobs, isolated_run);
    else
        for (uint32_t k = 0; k < jobs; ++k)
            isolated_run(k);
    for (uint32_t i : busy)
        sms_[i]->commit();
    uint64_t advanced = 0;
    for (uint32_t i : busy) {
        Sm &sm = *sms_[i];
        SmRunResult r = isolated_[i];
        if (sm.stopped() && !sm.idle()) {
            const uint64_t rest = starts_[i] + quantum - sm.clock();
            SmRunResult more = sm.run(rest);
            more.ctas_completed += r.ctas_completed;
            r = more;
        }
        collect(i, r);
        advanced = std::max(advanced, sm.clock() - starts_[i]);
    }
    return advanced;
}

uint64_t GridScheduler::step_functional() { return run_quantum(kFunctionalQuantum); }

// The timing model: each SM runs the quantum beside its own side of the
// memory system (L1, shared memory), isolated as in the functional model,
// while the shared side (L2, DRAM) runs the cycles of the step before with
// the requests the SMs sent then, or first when the step before was longer
// than half the memory system's lookahead (MemorySystem::plan_step). The
// SMs get the shared side's answers at the exchange that ends the step,
// before any is due (docs/simulator.md).
uint64_t GridScheduler::step_timing(uint64_t now) {
    for (auto &sm : sms_)
        if (!sm->idle())
            sm->catch_up(now); // an SM behind the device's cycle joins it
    const mem::MemorySystem::StepPlan plan = memory_->plan_step(now, last_advance_, kQuantum);
    if (plan.catch_up_first) {
        memory_->advance_shared(now - 1);
        memory_->exchange();
    }
    std::function<void()> shared_side;
    if (plan.shared_beside)
        shared_side = [&] { memory_->advance_shared(now - 1); };
    const uint64_t advanced = run_quantum(plan.cycles, shared_side);
    const uint64_t last = now + advanced - 1;
    for (uint32_t i = 0; i < sms_.size(); ++i) {
        Sm &sm = *sms_[i];
        if (!sm.idle()) {
            sm.catch_up(now + advanced);
            continue;
        }
        // Answers to accesses of warps that have exited still arrive.
        if (advanced)
            for (const mem::Completion &c : memory_->tick_sm(i, last))
                sm.memory_done(c);
    }
    memory_->exchange();
    last_advance_ = advanced;
    return advanced;
}

// Folds one SM's run into its grids: completed CTAs, an exception.
void GridScheduler::collect(uint32_t i, const SmRunResult &r) {
    Sm &sm = *sms_[i];
    ctas_completed_[i] += r.ctas_completed;
    Grid *failed = nullptr;
    for (Attachment &a : attached_[i]) {
        const uint32_t done = sm.take_ctas_completed(a.launch);
        a.grid->resident_ctas -= done;
        a.resident -= done;
        a.grid->outcome.ctas_completed += done;
        if (r.exception && r.exception_launch == a.launch)
            failed = a.grid;
    }
    if (failed && !failed->outcome.exception)
        fail(*failed, *r.exception);
}

// After a step: a livelock fails the grid; a grid with nothing resident is
// done or parked.
void GridScheduler::settle(Grid &grid, uint64_t now) {
    if (grid.state == GridState::Done || grid.state == GridState::Parked)
        return;
    if (grid.resident_ctas) {
        if (!grid.watchdog.due(now - grid.start_cycle))
            return;
        std::vector<SmLaunch> held;
        bool waits_for_driver = false; // warps held for a replay are not stuck
        for (uint32_t sm = 0; sm < sms_.size(); ++sm)
            if (const Attachment *a = attachment(sm, grid)) {
                held.push_back({sms_[sm].get(), a->launch});
                waits_for_driver |= sms_[sm]->held_warps(a->launch) != 0;
            }
        if (waits_for_driver)
            return;
        if (auto livelock = grid.watchdog.check(now - grid.start_cycle, held))
            fail(grid, *livelock);
        return;
    }
    if (grid.state == GridState::Draining) {
        grid.state = GridState::Parked;
        release_all(grid);
        if (trace_)
            trace_->instant(trace::kRingsPid, grid.ring, "parked", now);
    } else if (!grid.unplaced()) {
        grid.state = GridState::Done;
        grid.outcome.cycles = now - grid.start_cycle;
        release_all(grid);
        if (trace_)
            trace_grid(grid, now, "done");
    }
}

void GridScheduler::fail(Grid &grid, const Exception &e) {
    grid.outcome.exception = e;
    abort(grid);
}

std::vector<GridScheduler::Fault> GridScheduler::take_faults() {
    std::vector<Fault> faults;
    for (uint32_t i = 0; i < sms_.size(); ++i)
        for (const HeldFault &f : sms_[i]->take_faults())
            for (const Attachment &a : attached_[i])
                if (a.launch == f.launch)
                    faults.push_back({a.grid->context_id, a.grid->ring, f.access, f.address});
    return faults;
}

bool GridScheduler::waiting_for_replay() const {
    bool held = false;
    for (const auto &sm : sms_) {
        if (sm->idle())
            continue;
        if (!sm->waits_for_replay())
            return false;
        held = true;
    }
    return held;
}

void GridScheduler::replay(bool cancel, uint32_t cancel_context) {
    const uint64_t service_cycles =
        uint64_t(config_.fault_service_ns) * config_.clock_khz / 1'000'000;
    for (uint32_t i = 0; i < sms_.size(); ++i)
        sms_[i]->replay(service_cycles, [&](uint32_t launch) {
            for (const Attachment &a : attached_[i])
                if (a.launch == launch)
                    return cancel && a.grid->context_id == cancel_context;
            return false;
        });
}

void GridScheduler::invalidate_tlbs() {
    for (auto &sm : sms_)
        sm->invalidate_tlb();
}

bool GridScheduler::busy() const {
    return std::any_of(grids_.begin(), grids_.end(), [](auto &g) {
        return g->state == GridState::Running || g->state == GridState::Draining;
    });
}

void GridScheduler::park(Grid &grid) {
    if (grid.state == GridState::Running) {
        grid.state = GridState::Draining;
        if (trace_)
            trace_->instant(trace::kRingsPid, grid.ring, "preempt: draining", now_);
    }
}

void GridScheduler::resume(Grid &grid) {
    if (grid.state == GridState::Draining || grid.state == GridState::Parked) {
        grid.state = GridState::Running;
        if (trace_)
            trace_->instant(trace::kRingsPid, grid.ring, "resumed", now_);
    }
}

void GridScheduler::abort(Grid &grid) {
    for (uint32_t sm = 0; sm < sms_.size(); ++sm) {
        if (const Attachment *a = attachment(sm, grid)) {
            sms_[sm]->abort(a->launch);
            release(sm, grid);
        }
    }
    grid.resident_ctas = 0;
    if (trace_ && grid.state != GridState::Done)
        trace_grid(grid, std::max(now_, grid.start_cycle), "aborted");
    grid.state = GridState::Done;
}

// A grid's slice on its ring's track: from LAUNCH to its last CTA.
void GridScheduler::trace_grid(const Grid &grid, uint64_t now, const char *how) {
    const LaunchDesc &d = grid.desc;
    char args[320];
    std::snprintf(args, sizeof args,
                  "{\"entry_pc\":\"0x%llx\",\"grid\":[%u,%u,%u],\"block\":[%u,%u,%u],"
                  "\"ctas\":%llu,\"ctas_completed\":%llu,\"end\":\"%s\",\"launch\":%llu}",
                  static_cast<unsigned long long>(d.entry_pc), d.grid[0], d.grid[1], d.grid[2],
                  d.block[0], d.block[1], d.block[2],
                  static_cast<unsigned long long>(grid.total_ctas),
                  static_cast<unsigned long long>(grid.outcome.ctas_completed), how,
                  static_cast<unsigned long long>(grid.arrival));
    char name[64];
    std::snprintf(name, sizeof name, "grid %llu @0x%llx",
                  static_cast<unsigned long long>(grid.arrival),
                  static_cast<unsigned long long>(d.entry_pc));
    trace_->slice(trace::kRingsPid, grid.ring, name, grid.start_cycle, now, args);
}

void GridScheduler::trace_to(trace::TraceWriter *writer) {
    trace_ = writer;
    if (writer)
        for (uint32_t r = 0; r < SIMTGPU_NUM_RINGS; ++r)
            writer->name_thread(trace::kRingsPid, r, "ring " + std::to_string(r), int(r));
    for (auto &sm : sms_)
        sm->trace_to(writer);
}

void GridScheduler::retire(Grid *grid) {
    const bool windowed = grid->l2_window.bytes != 0;
    std::erase_if(grids_, [grid](auto &g) { return g.get() == grid; });
    if (windowed)
        update_l2_windows();
}

SmStats GridScheduler::total_stats() const {
    SmStats total;
    for (auto &sm : sms_)
        total.add(sm->stats());
    return total;
}

void GridScheduler::reset() {
    if (trace_)
        for (auto &g : grids_)
            if (g->state != GridState::Done)
                trace_grid(*g, std::max(now_, g->start_cycle), "reset");
    for (uint32_t sm = 0; sm < sms_.size(); ++sm) {
        sms_[sm]->abort();
        sms_[sm]->reset_stats();
        attached_[sm].clear();
    }
    grids_.clear();
    std::fill(ctas_completed_.begin(), ctas_completed_.end(), 0);
    make_memory_system(); // the device clock may start again
    if (trace_)           // the device clock starts again at 0; the trace's goes on
        trace_->restart_clock(now_);
    now_ = 0;
}

} // namespace simtgpu::sim
