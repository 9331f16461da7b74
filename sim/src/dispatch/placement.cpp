#include "dispatch/placement.h"

#include <algorithm>
#include <numeric>
#include <vector>

namespace simtgpu::sim {
namespace {

// One CTA per SM per pass over the SMs, least loaded first (then by index),
// until none takes more: a small grid spreads over every SM instead of
// piling onto SM 0, and a grid launched beside another starts on the SMs
// that one leaves idle (the GigaThread engine's behaviour).
void spread(Placement &p) {
    std::vector<uint32_t> order(p.num_sms());
    for (bool placed = true; placed && p.more();) {
        placed = false;
        std::iota(order.begin(), order.end(), 0u);
        std::stable_sort(order.begin(), order.end(),
                         [&](uint32_t a, uint32_t b) { return p.load(a) < p.load(b); });
        for (uint32_t sm : order) {
            if (!p.more())
                break;
            if (p.fits(sm)) {
                p.place(sm);
                placed = true;
            }
        }
    }
}

class BreadthFirst final : public PlacementPolicy {
public:
    bool may_place(const Grid &, std::span<const Grid *const>) const override { return true; }
    void place(Placement &p) const override { spread(p); }
};

// Fills SM 0 to its occupancy limit, then SM 1, ...: a small grid leaves
// whole SMs free for the grids behind it.
class FillFirst final : public PlacementPolicy {
public:
    bool may_place(const Grid &, std::span<const Grid *const>) const override { return true; }
    void place(Placement &p) const override {
        for (uint32_t sm = 0; sm < p.num_sms() && p.more(); ++sm)
            while (p.more() && p.fits(sm))
                p.place(sm);
    }
};

// Breadth-first, but a grid places nothing while a grid of a higher
// priority class is unfinished, even on SMs that one leaves idle: lower
// classes get only what the higher ones no longer run on.
class StrictPriority final : public PlacementPolicy {
public:
    bool may_place(const Grid &grid, std::span<const Grid *const> ahead) const override {
        for (const Grid *g : ahead)
            if (g->priority > grid.priority)
                return false;
        return true;
    }
    void place(Placement &p) const override { spread(p); }
};

} // namespace

SmSharing sm_sharing_mode(std::string_view name) {
    if (name == "exclusive")
        return SmSharing::Exclusive;
    if (name == "any")
        return SmSharing::Any;
    return SmSharing::SameContext;
}

bool may_share_sm(SmSharing mode, const Grid &a, const Grid &b) {
    switch (mode) {
    case SmSharing::Exclusive: return &a == &b;
    case SmSharing::SameContext: return a.address_space == b.address_space;
    case SmSharing::Any: return true;
    }
    return false;
}

std::unique_ptr<PlacementPolicy> make_placement_policy(std::string_view name) {
    if (name == "fill-first")
        return std::make_unique<FillFirst>();
    if (name == "strict-priority")
        return std::make_unique<StrictPriority>();
    return std::make_unique<BreadthFirst>();
}

} // namespace simtgpu::sim
