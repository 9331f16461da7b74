// The Device behind a simtgpu_sim handle, for in-tree C++ users (tests)
// that need more than the C ABI shows. Not exported from the shared library.
#pragma once

#include "device/device.h"
#include "simtgpu/sim.h"

namespace simtgpu::sim {
Device &device_of(simtgpu_sim *sim);
}
