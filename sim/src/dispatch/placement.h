// Block placement: which SMs the next CTAs of a grid go to. The grid
// scheduler (dispatch/grid_scheduler.h) offers each grid in turn, highest ring
// priority first and in launch order among equals, a Placement: the SMs
// that grid may use now and a way to put its next CTA on one. A policy only
// decides the order; the scheduler enforces masks, occupancy and ownership.
#pragma once

#include "dispatch/grid.h"

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

namespace simtgpu::sim {

class Placement {
public:
    virtual ~Placement() = default;
    virtual uint32_t num_sms() const = 0;
    // Whether the grid has CTAs left to place.
    virtual bool more() const = 0;
    // Whether SM `sm` takes one more CTA of this grid now.
    virtual bool fits(uint32_t sm) const = 0;
    // Warps resident on SM `sm`, of every grid: how loaded it is.
    virtual uint32_t load(uint32_t sm) const = 0;
    // Puts the grid's next CTA on `sm` (fits(sm) must hold).
    virtual void place(uint32_t sm) = 0;
};

class PlacementPolicy {
public:
    virtual ~PlacementPolicy() = default;
    // Whether `grid` may place at all now; `ahead` are the unfinished grids
    // the scheduler offers before it (higher priority, or earlier).
    virtual bool may_place(const Grid &grid, std::span<const Grid *const> ahead) const = 0;
    virtual void place(Placement &p) const = 0;
};

// The names DeviceConfig accepts, the default first; tests run under each.
inline constexpr std::array<std::string_view, 3> kPlacementPolicies{
    "breadth-first", "fill-first", "strict-priority"};
std::unique_ptr<PlacementPolicy> make_placement_policy(std::string_view name);

// Which grids may have CTAs on one SM at the same time (the scheduler's
// rule, under every placement policy): grids of one address space, as
// concurrent kernels of one CUDA context share an SM (the default); one grid
// per SM; or any grids, as under MPS. The default first.
enum class SmSharing { SameContext, Exclusive, Any };
inline constexpr std::array<std::string_view, 3> kSmSharingModes{"same-context", "exclusive",
                                                                 "any"};
SmSharing sm_sharing_mode(std::string_view name);
// Whether CTAs of `a` and `b` may be resident on one SM together.
bool may_share_sm(SmSharing mode, const Grid &a, const Grid &b);

} // namespace simtgpu::sim
