// SPDX-License-Identifier: MIT
// cooperative_groups::grid_group::sync(): a barrier of every thread of the
// grid, on the word grid_barrier of the launch environment (one per stream,
// include/simtgpu/device_abi.h). Needs a cooperative launch: every CTA
// resident at once (cudaLaunchCooperativeKernel checks that), else the
// CTAs that arrived wait for ones that cannot be placed.
#include <stdint.h>

#include "simtgpu/device/simt.h"
#include "simtgpu/device_abi.h"

// As CUDA's own grid barrier: thread 0 of each CTA adds 1, that of CTA 0
// adds 0x80000000 - (CTAs - 1), so the last arrival flips bit 31 and every
// waiter sees it change. The low bits come back to where they were, so the
// word needs no reset between syncs or between launches.
void __simt_grid_sync(void)
{
	simt_bar_sync();
	if (simt_thread_linear() == 0) {
		struct simtgpu_launch_env *env =
			(struct simtgpu_launch_env *)(uintptr_t)simt_envptr();
		if (!env || env->magic != SIMTGPU_ENV_MAGIC)
			simt_trap(); // no launch environment: not a runtime launch
		uint32_t ctas = (uint32_t)(simt_nctaid_x() * simt_nctaid_y() * simt_nctaid_z());
		int first = simt_ctaid_x() == 0 && simt_ctaid_y() == 0 && simt_ctaid_z() == 0;
		uint32_t add = first ? 0x80000000u - (ctas - 1) : 1u;
		__atomic_thread_fence(__ATOMIC_SEQ_CST); // this CTA's writes before the arrival
		uint32_t old = __atomic_fetch_add(&env->grid_barrier, add, __ATOMIC_SEQ_CST);
		// Back off while others arrive, as libcu++'s barriers do: a waiting
		// warp that polls every few cycles costs the simulator (and a real
		// GPU's memory system) for nothing while the last CTA finishes.
		for (uint32_t pause = 32;
		     ((old ^ __atomic_load_n(&env->grid_barrier, __ATOMIC_SEQ_CST)) & 0x80000000u) == 0;
		     pause = pause < 1024 ? 2 * pause : pause)
			simt_nanosleep(pause);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
	}
	simt_bar_sync();
}
