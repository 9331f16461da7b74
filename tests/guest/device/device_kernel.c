// SPDX-License-Identifier: MIT
/*
 * The device kernel of simtgpu-device-test: every thread computes one
 * element of out[i] = in[i] * multiplier + i, or (fault mode) thread 0
 * stores to an address the test left unmapped.
 */
#include <stdint.h>
#include <simtgpu/device/simt.h>

#include "device_kernel.h"

static void run(const struct device_test_params *p)
{
	uint32_t i = (uint32_t)(simt_ctaid_x() * simt_ntid_x() + simt_tid_x());

	if (p->mode == DEVICE_TEST_FAULT) {
		if (i == 0)
			*(volatile uint32_t *)(uintptr_t)p->fault_va = 1;
		return;
	}
	if (i < p->count) {
		const uint32_t *in = (const uint32_t *)(uintptr_t)p->in_va;
		uint32_t *out = (uint32_t *)(uintptr_t)p->out_va;

		out[i] = in[i] * p->multiplier + i;
	}
}

SIMT_ENTRY(run, struct device_test_params)
