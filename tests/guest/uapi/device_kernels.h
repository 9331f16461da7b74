/* SPDX-License-Identifier: MIT */
/* The parameter block shared by device_kernels.c and the uAPI test. */
#ifndef UAPI_DEVICE_KERNELS_H
#define UAPI_DEVICE_KERNELS_H

#include <stdint.h>

enum uapi_kernel_mode {
	UAPI_KERNEL_FILL = 1, /* out[i] = value + i * i for i < count */
	UAPI_KERNEL_STORE = 2, /* *out = value, by thread 0 */
	UAPI_KERNEL_SPIN = 3, /* loop forever */
	UAPI_KERNEL_WORK = 4, /* out[i] = count LCG steps from value + i */
	UAPI_KERNEL_ADD = 5, /* out[i] += value + i for i < count */
};

struct uapi_kernel_params {
	uint32_t mode;
	uint32_t count;
	uint64_t out_va;
	uint32_t value;
	uint32_t reserved;
};

#endif
