// SPDX-License-Identifier: MIT
// __shfl_sync, __shfl_up_sync, __shfl_down_sync and __shfl_xor_sync on int,
// float, long long and double, for the whole warp and for sub-warp widths.
#include "test_util.h"

__global__ void shuffles(int *out, float *fout, long long *lout, double *dout, int width)
{
	int lane = threadIdx.x % 32;
	int v = lane * 10 + 1;
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	out[4 * i + 0] = __shfl_sync(0xffffffffu, v, 3, width);
	out[4 * i + 1] = __shfl_up_sync(0xffffffffu, v, 2, width);
	out[4 * i + 2] = __shfl_down_sync(0xffffffffu, v, 3, width);
	out[4 * i + 3] = __shfl_xor_sync(0xffffffffu, v, 5, width);
	fout[i] = __shfl_xor_sync(0xffffffffu, lane * 0.5f, 1, width);
	lout[i] = __shfl_down_sync(0xffffffffu, (1ll << 40) + lane, 1, width);
	dout[i] = __shfl_sync(0xffffffffu, lane * 0.25, width - 1, width);
}

int main()
{
	const int threads = 64;
	bool ok = true;
	int *dout;
	float *dfout;
	long long *dlout;
	double *ddout;
	CHECK_CUDA(cudaMalloc(&dout, 4 * threads * sizeof(int)));
	CHECK_CUDA(cudaMalloc(&dfout, threads * sizeof(float)));
	CHECK_CUDA(cudaMalloc(&dlout, threads * sizeof(long long)));
	CHECK_CUDA(cudaMalloc(&ddout, threads * sizeof(double)));
	const int widths[] = {32, 16, 8, 4};
	for (int width : widths) {
		shuffles<<<1, threads>>>(dout, dfout, dlout, ddout, width);
		CHECK_LAUNCH();
		int out[4 * threads];
		float fout[threads];
		long long lout[threads];
		double dvals[threads];
		CHECK_CUDA(cudaMemcpy(out, dout, sizeof(out), cudaMemcpyDeviceToHost));
		CHECK_CUDA(cudaMemcpy(fout, dfout, sizeof(fout), cudaMemcpyDeviceToHost));
		CHECK_CUDA(cudaMemcpy(lout, dlout, sizeof(lout), cudaMemcpyDeviceToHost));
		CHECK_CUDA(cudaMemcpy(dvals, ddout, sizeof(dvals), cudaMemcpyDeviceToHost));
		bool w_ok = true;
		for (int t = 0; t < threads; ++t) {
			int lane = t % 32, base = lane - lane % width, sub = lane % width;
			auto value = [](int l) { return l * 10 + 1; };
			w_ok &= out[4 * t + 0] == value(base + 3 % width);
			w_ok &= out[4 * t + 1] == value(sub >= 2 ? lane - 2 : lane);
			w_ok &= out[4 * t + 2] == value(sub + 3 < width ? lane + 3 : lane);
			// A butterfly may reach into an earlier group, never a later one.
			int x = lane ^ 5;
			w_ok &= out[4 * t + 3] == value(x <= base + width - 1 ? x : lane);
			w_ok &= fout[t] == (base + (sub ^ 1)) * 0.5f;
			w_ok &= lout[t] == (1ll << 40) + (sub + 1 < width ? lane + 1 : lane);
			w_ok &= dvals[t] == (base + width - 1) * 0.25;
		}
		std::printf("  width %d: %s\n", width, w_ok ? "ok" : "wrong");
		ok &= w_ok;
	}
	return report("shuffle_variants", ok);
}
