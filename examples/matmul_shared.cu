// SPDX-License-Identifier: MIT
// Matrix multiplication C = A x B with shared-memory tiles.
//
// Teaches: 2-D grids and blocks, __shared__ memory, __syncthreads(), and why
// tiling helps: each block loads a TILE x TILE piece of A and of B once into
// shared memory, and every thread of the block then reads it TILE times from
// there instead of from global memory. Matrix sizes are not multiples of the
// tile, so the loads are guarded and pad with zeros.
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#include "check.h"

constexpr int TILE = 16;

// A is rows x inner, B is inner x cols, C is rows x cols; row-major.
__global__ void matmul(const float *a, const float *b, float *c, int rows, int inner, int cols)
{
	__shared__ float tile_a[TILE][TILE];
	__shared__ float tile_b[TILE][TILE];
	int row = blockIdx.y * TILE + threadIdx.y;
	int col = blockIdx.x * TILE + threadIdx.x;
	float sum = 0.0f;
	for (int t = 0; t < inner; t += TILE) {
		// Each thread loads one element of each tile.
		int a_col = t + threadIdx.x, b_row = t + threadIdx.y;
		tile_a[threadIdx.y][threadIdx.x] = row < rows && a_col < inner ? a[row * inner + a_col] : 0.0f;
		tile_b[threadIdx.y][threadIdx.x] = b_row < inner && col < cols ? b[b_row * cols + col] : 0.0f;
		__syncthreads(); // the whole tile is loaded before anyone reads it
		for (int k = 0; k < TILE; ++k)
			sum += tile_a[threadIdx.y][k] * tile_b[k][threadIdx.x];
		__syncthreads(); // everyone is done with the tile before it is overwritten
	}
	if (row < rows && col < cols)
		c[row * cols + col] = sum;
}

int main()
{
	const int rows = 72, inner = 50, cols = 90;
	std::vector<float> a(rows * inner), b(inner * cols), c(rows * cols), ref(rows * cols);
	// Small integers: every product and partial sum is exact in float, so
	// the GPU must match the CPU bit for bit whatever the summation order.
	for (int i = 0; i < rows * inner; ++i)
		a[i] = static_cast<float>((i * 7) % 9 - 4);
	for (int i = 0; i < inner * cols; ++i)
		b[i] = static_cast<float>((i * 5) % 7 - 3);
	for (int r = 0; r < rows; ++r)
		for (int col = 0; col < cols; ++col) {
			float s = 0;
			for (int k = 0; k < inner; ++k)
				s += a[r * inner + k] * b[k * cols + col];
			ref[r * cols + col] = s;
		}

	float *da, *db, *dc;
	CUDA_CHECK(cudaMalloc(&da, a.size() * sizeof(float)));
	CUDA_CHECK(cudaMalloc(&db, b.size() * sizeof(float)));
	CUDA_CHECK(cudaMalloc(&dc, c.size() * sizeof(float)));
	CUDA_CHECK(cudaMemcpy(da, a.data(), a.size() * sizeof(float), cudaMemcpyHostToDevice));
	CUDA_CHECK(cudaMemcpy(db, b.data(), b.size() * sizeof(float), cudaMemcpyHostToDevice));

	dim3 block(TILE, TILE);
	dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
	matmul<<<grid, block>>>(da, db, dc, rows, inner, cols);
	CUDA_CHECK(cudaGetLastError());
	CUDA_CHECK(cudaDeviceSynchronize());
	CUDA_CHECK(cudaMemcpy(c.data(), dc, c.size() * sizeof(float), cudaMemcpyDeviceToHost));

	int wrong = 0;
	for (size_t i = 0; i < c.size(); ++i)
		wrong += c[i] != ref[i];
	std::printf("matmul_shared: (%d x %d) x (%d x %d), grid %u x %u of %d x %d threads, "
		    "%zu bytes of shared memory per block\n",
		    rows, inner, inner, cols, grid.x, grid.y, TILE, TILE, 2 * sizeof(float) * TILE * TILE);
	std::printf("  C[0][0] = %g, C[%d][%d] = %g (CPU: %g, %g)\n", c[0], rows - 1, cols - 1,
		    c[rows * cols - 1], ref[0], ref[rows * cols - 1]);
	std::printf("  %d of %d elements differ from the CPU\n", wrong, rows * cols);

	CUDA_CHECK(cudaFree(da));
	CUDA_CHECK(cudaFree(db));
	CUDA_CHECK(cudaFree(dc));
	std::printf("matmul_shared: %s\n", wrong == 0 ? "PASS" : "FAIL");
	return wrong == 0 ? 0 : 1;
}
