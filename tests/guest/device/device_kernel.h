/* SPDX-License-Identifier: MIT */
/* The parameter block shared by the device test and its device kernel. */
#ifndef SIMTGPU_DEVICE_TEST_KERNEL_H
#define SIMTGPU_DEVICE_TEST_KERNEL_H

#include <stdint.h>

enum device_test_mode {
	DEVICE_TEST_AFFINE = 0, /* out[i] = in[i] * multiplier + i */
	DEVICE_TEST_FAULT = 1, /* thread 0 stores to fault_va */
};

struct device_test_params {
	uint64_t in_va;
	uint64_t out_va;
	uint64_t fault_va;
	uint32_t count;
	uint32_t mode;
	uint32_t multiplier;
	uint32_t reserved;
};

#endif
