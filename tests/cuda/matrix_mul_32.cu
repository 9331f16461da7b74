// Issue 19: cuda-samples' matrixMul in its default 32x32 configuration, in
// the same spirit (not its code): C = A * B with 32x32 tiles of A and B
// staged in shared memory, one 1024-thread block per tile of C, checked
// against a CPU product. Integers times quarters keep every sum exact.
#include "test_util.h"

#include <cuda_runtime.h>
#include <vector>

constexpr int kBlock = 32;

template <int BLOCK_SIZE>
__global__ void matrix_mul(float *c, const float *a, const float *b, int wa, int wb)
{
	__shared__ float as[BLOCK_SIZE][BLOCK_SIZE];
	__shared__ float bs[BLOCK_SIZE][BLOCK_SIZE];
	const int tx = threadIdx.x, ty = threadIdx.y;
	const int a_begin = wa * BLOCK_SIZE * blockIdx.y, a_end = a_begin + wa - 1;
	const int b_begin = BLOCK_SIZE * blockIdx.x, b_step = BLOCK_SIZE * wb;
	float sum = 0;
	for (int ia = a_begin, ib = b_begin; ia <= a_end; ia += BLOCK_SIZE, ib += b_step) {
		as[ty][tx] = a[ia + wa * ty + tx];
		bs[ty][tx] = b[ib + wb * ty + tx];
		__syncthreads();
#pragma unroll
		for (int k = 0; k < BLOCK_SIZE; ++k)
			sum += as[ty][k] * bs[k][tx];
		__syncthreads();
	}
	c[wb * BLOCK_SIZE * blockIdx.y + BLOCK_SIZE * blockIdx.x + wb * ty + tx] = sum;
}

int main()
{
	// A is ha x wa, B is wa x wb; every size a multiple of the tile.
	const int ha = 3 * kBlock, wa = 2 * kBlock, wb = 4 * kBlock;
	std::vector<float> a(ha * wa), b(wa * wb), c(ha * wb), ref(ha * wb, 0.0f);
	Rng rng(19);
	for (float &x : a)
		x = float(rng.range(-8, 9));
	for (float &x : b)
		x = float(rng.range(-8, 9)) * 0.25f;
	for (int r = 0; r < ha; ++r)
		for (int k = 0; k < wa; ++k)
			for (int col = 0; col < wb; ++col)
				ref[r * wb + col] += a[r * wa + k] * b[k * wb + col];

	float *da, *db, *dc;
	CHECK_CUDA(cudaMalloc(&da, a.size() * sizeof(float)));
	CHECK_CUDA(cudaMalloc(&db, b.size() * sizeof(float)));
	CHECK_CUDA(cudaMalloc(&dc, c.size() * sizeof(float)));
	CHECK_CUDA(cudaMemcpy(da, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice));
	CHECK_CUDA(cudaMemcpy(db, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice));
	CHECK_CUDA(cudaMemset(dc, 0, c.size() * sizeof(float)));

	const dim3 threads(kBlock, kBlock), grid(wb / kBlock, ha / kBlock);
	matrix_mul<kBlock><<<grid, threads>>>(dc, da, db, wa, wb);
	CHECK_LAUNCH();
	CHECK_CUDA(cudaMemcpy(c.data(), dc, c.size() * sizeof(float), cudaMemcpyDeviceToHost));

	int wrong = 0;
	for (size_t i = 0; i < c.size(); ++i)
		if (c[i] != ref[i] && wrong++ < 5)
			std::printf("C[%zu] = %g, expected %g\n", i, c[i], ref[i]);
	CHECK_CUDA(cudaFree(da));
	CHECK_CUDA(cudaFree(db));
	CHECK_CUDA(cudaFree(dc));
	return report("matrix_mul_32", wrong == 0);
}
