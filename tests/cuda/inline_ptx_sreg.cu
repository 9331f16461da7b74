// SPDX-License-Identifier: MIT
// The one-instruction inline PTX idiom that reads a special register
// (cuda-samples' inlinePTX): mov.u32 %0, %%laneid; and friends read what the
// built-in variables and intrinsics give.
#include "test_util.h"

__global__ void sregs(unsigned *lane, unsigned *tid, unsigned *smid_ok, unsigned long long *clk)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	unsigned l, t, sm, nsm, lt;
	unsigned long long c0, c1;
	asm("mov.u32 %0, %%laneid;" : "=r"(l));
	asm("mov.u32 %0, %%tid.x;" : "=r"(t));
	asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
	asm("mov.u32 %0, %%nsmid;" : "=r"(nsm));
	asm("mov.u32 %0, %%lanemask_lt;" : "=r"(lt));
	asm volatile("mov.u64 %0, %%clock64;" : "=l"(c0));
	asm volatile("mov.u64 %0, %%clock64;" : "=l"(c1));
	lane[i] = l;
	tid[i] = t;
	smid_ok[i] = sm < nsm && lt == (1u << l) - 1;
	clk[i] = c1 >= c0;
}

int main()
{
	const int blocks = 4, threads = 96, n = blocks * threads;
	cudaDeviceProp prop;
	CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
	unsigned *lane, *tid, *smid_ok;
	unsigned long long *clk;
	CHECK_CUDA(cudaMalloc(&lane, n * sizeof(unsigned)));
	CHECK_CUDA(cudaMalloc(&tid, n * sizeof(unsigned)));
	CHECK_CUDA(cudaMalloc(&smid_ok, n * sizeof(unsigned)));
	CHECK_CUDA(cudaMalloc(&clk, n * sizeof(unsigned long long)));
	sregs<<<blocks, threads>>>(lane, tid, smid_ok, clk);
	CHECK_LAUNCH();
	unsigned h_lane[n], h_tid[n], h_smid_ok[n];
	unsigned long long h_clk[n];
	CHECK_CUDA(cudaMemcpy(h_lane, lane, sizeof(h_lane), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(h_tid, tid, sizeof(h_tid), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(h_smid_ok, smid_ok, sizeof(h_smid_ok), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(h_clk, clk, sizeof(h_clk), cudaMemcpyDeviceToHost));
	bool ok = true;
	for (int i = 0; i < n; ++i) {
		unsigned t = i % threads;
		ok &= h_tid[i] == t && h_lane[i] == t % unsigned(prop.warpSize) && h_smid_ok[i] == 1 &&
		      h_clk[i] == 1;
	}
	return report("inline_ptx_sreg", ok);
}
