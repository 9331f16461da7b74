// SPDX-License-Identifier: MIT
/*
 * The device code of the uAPI tests: one image, one entry, the parameter
 * block's `mode` chooses what every thread does. It uses no global data and
 * no jump tables, so its code is position independent (medany is
 * pc-relative): the test loads it at whatever VA the kernel gives the BO.
 */
#include <stdint.h>
#include <simtgpu/device/simt.h>

#include "device_kernels.h"

static void run(const struct uapi_kernel_params *p)
{
	uint32_t i = (uint32_t)(simt_ctaid_x() * simt_ntid_x() + simt_tid_x());

	switch (p->mode) {
	case UAPI_KERNEL_FILL:
		/* out[i] = value + i * i, a result only a real run produces. */
		if (i < p->count)
			((volatile uint32_t *)(uintptr_t)p->out_va)[i] =
				p->value + i * i;
		break;
	case UAPI_KERNEL_STORE:
		/* One store to an arbitrary address: a fault when unmapped. */
		if (i == 0)
			*(volatile uint32_t *)(uintptr_t)p->out_va = p->value;
		break;
	case UAPI_KERNEL_WORK: {
		/* Long but finite: for preemption, which lets CTAs finish. */
		uint32_t v = p->value + i;

		for (uint32_t k = 0; k < p->count; k++)
			v = v * 1664525u + 1013904223u;
		((volatile uint32_t *)(uintptr_t)p->out_va)[i] = v;
		break;
	}
	case UAPI_KERNEL_ADD:
		/* Reads what the host wrote: managed memory's round trip. */
		if (i < p->count)
			((volatile uint32_t *)(uintptr_t)p->out_va)[i] +=
				p->value + i;
		break;
	case UAPI_KERNEL_SPIN:
		/* Never ends: the driver's timeout must reset the engine. */
		for (;;)
			__asm__ volatile("" ::: "memory");
	default:
		simt_exit(1);
	}
}

SIMT_ENTRY(run, struct uapi_kernel_params)
