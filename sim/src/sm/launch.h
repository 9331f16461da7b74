// What the command processor hands to the SMs for one grid, and what comes
// back: the boundary between the device model (sim/src/device,
// sim/src/dispatch) and the SIMT core (sim/src/sm).
#pragma once

#include <array>
#include <cstdint>
#include <optional>

namespace simtgpu::sim {

// One LAUNCH packet, validated by the command processor.
struct LaunchDesc {
    uint64_t entry_pc = 0;
    uint64_t param_va = 0;
    std::array<uint32_t, 3> grid{1, 1, 1};
    std::array<uint32_t, 3> block{1, 1, 1};
    uint32_t shared_bytes = 0;
    uint32_t stack_bytes = 0;
    uint64_t env_va = 0;
    uint32_t grid_id = 0; // launch sequence number (CSR gridid)
    uint32_t threads_per_cta() const { return block[0] * block[1] * block[2]; }
    uint64_t ctas() const { return uint64_t(grid[0]) * grid[1] * grid[2]; }
};

using Dim3 = std::array<uint32_t, 3>;

// Why a launch stopped early: the fields of the exception record
// (SIMTGPU_REG_EXC_*). The command processor adds ring and context.
struct Exception {
    uint32_t kind = 0;   // SIMTGPU_EXC_*
    uint32_t access = 0; // SIMTGPU_ACCESS_*
    uint32_t detail = 0; // SIMTGPU_FAULT_*, instruction bits, a7, ...
    uint64_t address = 0;
    uint64_t pc = 0;
    uint32_t sm = 0;
    uint32_t warp = 0; // warp slot within the SM
    uint32_t lane = 0;
    Dim3 ctaid{0, 0, 0};
    Dim3 tid{0, 0, 0};
};

// The first non-zero exit status of a launch (simtgpu_launch_report).
struct ExitRecord {
    uint32_t status = 0;
    uint32_t nonzero_exits = 0;
    Dim3 ctaid{0, 0, 0};
    Dim3 tid{0, 0, 0};
};

} // namespace simtgpu::sim
