// SPDX-License-Identifier: MIT
// C = A * B with 16x16 shared-memory tiles; sizes not multiples of the tile.
#include "test_util.h"

constexpr int kTile = 16;

__global__ void matmul(const float *a, const float *b, float *c, int m, int k, int n)
{
	__shared__ float ta[kTile][kTile];
	__shared__ float tb[kTile][kTile];
	int row = blockIdx.y * kTile + threadIdx.y;
	int col = blockIdx.x * kTile + threadIdx.x;
	float sum = 0.0f;
	for (int t = 0; t < (k + kTile - 1) / kTile; ++t) {
		int ac = t * kTile + threadIdx.x, br = t * kTile + threadIdx.y;
		ta[threadIdx.y][threadIdx.x] = row < m && ac < k ? a[row * k + ac] : 0.0f;
		tb[threadIdx.y][threadIdx.x] = br < k && col < n ? b[br * n + col] : 0.0f;
		__syncthreads();
		for (int i = 0; i < kTile; ++i)
			sum += ta[threadIdx.y][i] * tb[i][threadIdx.x];
		__syncthreads();
	}
	if (row < m && col < n)
		c[row * n + col] = sum;
}

int main(int argc, char **argv)
{
	// bench/cuda_bench.py: one argument, square matrices of that size.
	const int size = argc > 1 ? std::atoi(argv[1]) : 0;
	const int m = size ? size : 37, k = size ? size : 50, n = size ? size : 29;
	float *a = new float[m * k], *b = new float[k * n], *c = new float[m * n];
	Rng rng(2);
	for (int i = 0; i < m * k; ++i)
		a[i] = static_cast<float>(rng.range(-8, 8));
	for (int i = 0; i < k * n; ++i)
		b[i] = static_cast<float>(rng.range(-8, 8));
	float *da, *db, *dc;
	CHECK_CUDA(cudaMalloc(&da, m * k * sizeof(float)));
	CHECK_CUDA(cudaMalloc(&db, k * n * sizeof(float)));
	CHECK_CUDA(cudaMalloc(&dc, m * n * sizeof(float)));
	CHECK_CUDA(cudaMemcpy(da, a, m * k * sizeof(float), cudaMemcpyHostToDevice));
	CHECK_CUDA(cudaMemcpy(db, b, k * n * sizeof(float), cudaMemcpyHostToDevice));
	dim3 block(kTile, kTile), grid((n + kTile - 1) / kTile, (m + kTile - 1) / kTile);
	matmul<<<grid, block>>>(da, db, dc, m, k, n);
	CHECK_LAUNCH();
	CHECK_CUDA(cudaMemcpy(c, dc, m * n * sizeof(float), cudaMemcpyDeviceToHost));
	bool ok = true; // small integers: every sum is exact
	for (int i = 0; i < m; ++i)
		for (int j = 0; j < n; ++j) {
			float ref = 0;
			for (int x = 0; x < k; ++x)
				ref += a[i * k + x] * b[x * n + j];
			ok &= c[i * n + j] == ref;
		}
	return report("matmul_tiled", ok);
}
