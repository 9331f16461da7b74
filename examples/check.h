// SPDX-License-Identifier: MIT
// The one helper every example uses: stop with a readable message when a
// CUDA runtime call fails. Launch errors surface at the next call, so the
// examples follow each launch with cudaGetLastError + cudaDeviceSynchronize.
#ifndef SIMTGPU_EXAMPLES_CHECK_H
#define SIMTGPU_EXAMPLES_CHECK_H

#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                             \
	do {                                                                         \
		cudaError_t cuda_check_error_ = (call);                              \
		if (cuda_check_error_ != cudaSuccess) {                              \
			std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, \
				     #call, cudaGetErrorString(cuda_check_error_));  \
			std::exit(2);                                                \
		}                                                                    \
	} while (0)

#endif
