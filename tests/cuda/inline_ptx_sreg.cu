// SPDX-License-Identifier: MIT
// The one-instruction inline PTX idiom that reads a special register
// (cuda-samples' inlinePTX): mov.u32 %0, %%laneid; and friends read what the
// built-in variables and intrinsics give; and the same with one `%` before
// the register, as nvcc accepts (cuda-samples' cudaGraphsPerfScaling reads
// %globaltimer so), also from a macro and across string literals.
#include "test_util.h"

#define READ_SREG_U32(reg, out) asm volatile("mov.u32 %0, %" #reg ";" : "=r"(out))

__global__ void sregs(unsigned *lane, unsigned *tid, unsigned *smid_ok, unsigned long long *clk,
		      unsigned *lone_ok)
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

	// One `%`: every register the forms above read, and %globaltimer.
	unsigned l1, t1, ty1, ctaid1, ntid1, nctaid1, sm1, nsm1, lt1, w1;
	unsigned long long g0, g1, k0, k1;
	asm("mov.u32 %0, %laneid;" : "=r"(l1));
	asm("mov.u32 %0, %tid.x;" : "=r"(t1));
	asm("mov.u32 %0, %" "tid.y;" : "=r"(ty1));
	READ_SREG_U32(ctaid.x, ctaid1);
	READ_SREG_U32(ntid.x, ntid1);
	READ_SREG_U32(nctaid.x, nctaid1);
	asm volatile("mov.u32 %0, %smid;\n" : "=r"(sm1));
	asm("mov.u32 %0, %nsmid;" : "=r"(nsm1));
	asm("mov.u32 %0, %lanemask_lt;" : "=r"(lt1));
	asm volatile("mov.u32 %0, %warpid;" : "=r"(w1));
	asm volatile("mov.u64 %0, %globaltimer;" : "=l"(g0));
	asm volatile("mov.u64 %0, %clock64;" : "=l"(k0));
	asm volatile("mov.u64 %0, %clock64;" : "=l"(k1));
	asm volatile("mov.u64 %0, %globaltimer;" : "=l"(g1));
	lone_ok[i] = (l1 == l) << 0 | (t1 == threadIdx.x) << 1 | (ty1 == threadIdx.y) << 2 |
		     (ctaid1 == blockIdx.x) << 3 | (ntid1 == blockDim.x) << 4 |
		     (nctaid1 == gridDim.x) << 5 | (sm1 < nsm1 && nsm1 == nsm) << 6 |
		     (lt1 == lt) << 7 | (w1 < (blockDim.x + warpSize - 1) / warpSize) << 8 | (k1 >= k0) << 9 |
		     (g1 >= g0 && g0 != 0) << 10;
}

int main()
{
	const int blocks = 4, threads = 96, n = blocks * threads;
	cudaDeviceProp prop;
	CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
	unsigned *lane, *tid, *smid_ok;
	unsigned long long *clk;
	unsigned *lone_ok;
	CHECK_CUDA(cudaMalloc(&lone_ok, n * sizeof(unsigned)));
	CHECK_CUDA(cudaMalloc(&lane, n * sizeof(unsigned)));
	CHECK_CUDA(cudaMalloc(&tid, n * sizeof(unsigned)));
	CHECK_CUDA(cudaMalloc(&smid_ok, n * sizeof(unsigned)));
	CHECK_CUDA(cudaMalloc(&clk, n * sizeof(unsigned long long)));
	sregs<<<blocks, threads>>>(lane, tid, smid_ok, clk, lone_ok);
	CHECK_LAUNCH();
	unsigned h_lane[n], h_tid[n], h_smid_ok[n];
	unsigned long long h_clk[n];
	unsigned h_lone_ok[n];
	CHECK_CUDA(cudaMemcpy(h_lone_ok, lone_ok, sizeof(h_lone_ok), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(h_lane, lane, sizeof(h_lane), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(h_tid, tid, sizeof(h_tid), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(h_smid_ok, smid_ok, sizeof(h_smid_ok), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(h_clk, clk, sizeof(h_clk), cudaMemcpyDeviceToHost));
	bool ok = true;
	for (int i = 0; i < n; ++i) {
		unsigned t = i % threads;
		ok &= h_tid[i] == t && h_lane[i] == t % unsigned(prop.warpSize) && h_smid_ok[i] == 1 &&
		      h_clk[i] == 1;
		// Each of the eleven single-`%` reads agreed (one bit each).
		if (h_lone_ok[i] != 0x7ff) {
			fprintf(stderr, "thread %d: single-%% reads that disagree: mask %#x\n", i,
				~h_lone_ok[i] & 0x7ff);
			ok = false;
		}
	}
	return report("inline_ptx_sreg", ok);
}
