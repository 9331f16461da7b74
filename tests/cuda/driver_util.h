// SPDX-License-Identifier: MIT
// The simtgpu driver API behind the CUDA runtime, for the test programs that
// check what the driver did (its counters, its device): the runtime's
// current context (a CUcontext is a simtgpuContext), the device's
// properties, the managed-memory counters. Each exits with a FAIL line when
// the driver refuses. Link with -lsimtgpu.
#ifndef SIMTGPU_TESTS_CUDA_DRIVER_UTIL_H
#define SIMTGPU_TESTS_CUDA_DRIVER_UTIL_H

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <cuda.h>

#include "../../include/simtgpu/hw.h"
#include "../../umd/include/simtgpu/simtgpu.h"

static inline simtgpuContext runtime_context()
{
	CUcontext cu = nullptr;
	if (cuCtxGetCurrent(&cu) != CUDA_SUCCESS || !cu) {
		std::printf("FAIL: cuCtxGetCurrent\n");
		std::exit(1);
	}
	return reinterpret_cast<simtgpuContext>(cu);
}

static inline simtgpuDeviceProperties device_properties()
{
	simtgpuDeviceProperties props{};
	if (simtgpuDeviceGetProperties(&props, 0) != SIMTGPU_SUCCESS) {
		std::printf("FAIL: simtgpuDeviceGetProperties: %s\n", simtgpuGetErrorDetail());
		std::exit(1);
	}
	return props;
}

static inline simtgpuManagedStats managed_stats(simtgpuContext ctx)
{
	simtgpuManagedStats s{};
	if (simtgpuCtxGetManagedStats(ctx, &s) != SIMTGPU_SUCCESS) {
		std::printf("FAIL: simtgpuCtxGetManagedStats: %s\n", simtgpuGetErrorDetail());
		std::exit(1);
	}
	return s;
}

// Whether the runtime migrates managed pages here (managed.cpp): the kernel
// driver, uAPI 1.6, replayable faults, unified addressing.
static inline bool managed_pages_migrate(const simtgpuDeviceProperties &props)
{
	return std::strcmp(props.transport, "drm") == 0 && (props.uapi_version & 0xffff) >= 6 &&
	       (props.caps & SIMTGPU_CAP_REPLAYABLE_FAULTS) && props.unified_addressing;
}

// A managed-memory test checks the driver's counters on every transport,
// never skips them (issue 49): on the kernel driver they must show the
// migration (`moves`: the driver and device have what the test needs), and a
// kernel driver that cannot is a failure; in-process, where the device maps
// host memory and nothing moves, the caller checks every counter is 0.
static inline bool managed_counters_apply(const char *name,
					  const simtgpuDeviceProperties &props, bool moves)
{
	if (moves)
		return true;
	if (std::strcmp(props.transport, "drm") == 0) {
		std::printf("failed: %s: the kernel driver (uAPI %u.%u, hardware %u.%u, caps %#x, "
			    "unified addressing %u) does not migrate managed pages, so its "
			    "counters cannot be checked\n",
			    name, props.uapi_version >> 16, props.uapi_version & 0xffff,
			    props.hw_version >> 16, props.hw_version & 0xffff, props.caps,
			    props.unified_addressing);
		return false;
	}
	std::printf("%s: no page migration on this transport (%s): its counters must stay 0\n",
		    name, props.transport);
	return true;
}

#endif
