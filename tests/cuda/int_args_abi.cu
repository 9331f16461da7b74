// SPDX-License-Identifier: MIT
// 32-bit integers reach the device runtime's functions (compiled for RISC-V,
// whose psABI passes them sign-extended) with their sign: negative values
// from a shuffle, a reduction and a match were once passed with zero upper
// bits, so max(-20, 17) was -20 (found with cooperative groups, issue 18).
#include "test_util.h"

__global__ void minmax(const int *in, int *out)
{
	int t = threadIdx.x;
	int v = __shfl_sync(0xffffffffu, in[t], (t + 1) % 32);
	int r = __reduce_min_sync(0xffffffffu, in[t]);
	int m = (int)__match_any_sync(0xffffffffu, in[t] < 0) - 1; // lane masks, as ints
	out[4 * t] = max(v, 3);
	out[4 * t + 1] = min(v, -3);
	out[4 * t + 2] = max(r, -1000) + abs(v);
	out[4 * t + 3] = max(m, -5);
}

int main()
{
	int in[32], out[128];
	for (int i = 0; i < 32; ++i)
		in[i] = (i * 37) % 50 - 25;
	int *din, *dout;
	CHECK_CUDA(cudaMalloc(&din, sizeof(in)));
	CHECK_CUDA(cudaMalloc(&dout, sizeof(out)));
	CHECK_CUDA(cudaMemcpy(din, in, sizeof(in), cudaMemcpyHostToDevice));
	minmax<<<1, 32>>>(din, dout);
	CHECK_LAUNCH();
	CHECK_CUDA(cudaMemcpy(out, dout, sizeof(out), cudaMemcpyDeviceToHost));
	int least = in[0];
	unsigned negative = 0;
	for (int i = 0; i < 32; ++i) {
		least = in[i] < least ? in[i] : least;
		negative |= (in[i] < 0 ? 1u : 0u) << i;
	}
	bool ok = true;
	for (int t = 0; t < 32; ++t) {
		int v = in[(t + 1) % 32];
		int m = (int)((in[t] < 0 ? negative : ~negative) - 1);
		int ref[4] = {v > 3 ? v : 3, v < -3 ? v : -3, (least > -1000 ? least : -1000) + (v < 0 ? -v : v),
			      m > -5 ? m : -5};
		for (int k = 0; k < 4; ++k)
			if (out[4 * t + k] != ref[k]) {
				if (ok)
					std::printf("thread %d value %d: %d, expected %d\n", t, k, out[4 * t + k],
						    ref[k]);
				ok = false;
			}
	}
	return report("int_args_abi", ok);
}
