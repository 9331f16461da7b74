// SPDX-License-Identifier: MIT
// Matrix transpose through a padded shared-memory tile (the classic
// bank-conflict-free version), non-square and not a tile multiple.
#include "test_util.h"

constexpr int kTile = 32, kRows = 8;

__global__ void transpose(float *out, const float *in, int width, int height)
{
	__shared__ float tile[kTile][kTile + 1];
	int x = blockIdx.x * kTile + threadIdx.x;
	int y = blockIdx.y * kTile + threadIdx.y;
	for (int j = 0; j < kTile; j += kRows)
		if (x < width && y + j < height)
			tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
	__syncthreads();
	x = blockIdx.y * kTile + threadIdx.x;
	y = blockIdx.x * kTile + threadIdx.y;
	for (int j = 0; j < kTile; j += kRows)
		if (x < height && y + j < width)
			out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

int main(int argc, char **argv)
{
	// bench/cuda_bench.py: width and height.
	const int width = argc > 2 ? std::atoi(argv[1]) : 100;
	const int height = argc > 2 ? std::atoi(argv[2]) : 70;
	float *in = new float[width * height], *out = new float[width * height];
	for (int i = 0; i < width * height; ++i)
		in[i] = static_cast<float>(i) * 0.25f;
	float *din, *dout;
	CHECK_CUDA(cudaMalloc(&din, width * height * sizeof(float)));
	CHECK_CUDA(cudaMalloc(&dout, width * height * sizeof(float)));
	CHECK_CUDA(cudaMemcpy(din, in, width * height * sizeof(float), cudaMemcpyHostToDevice));
	dim3 grid((width + kTile - 1) / kTile, (height + kTile - 1) / kTile), block(kTile, kRows);
	transpose<<<grid, block>>>(dout, din, width, height);
	CHECK_LAUNCH();
	CHECK_CUDA(cudaMemcpy(out, dout, width * height * sizeof(float), cudaMemcpyDeviceToHost));
	bool ok = true;
	for (int y = 0; y < height; ++y)
		for (int x = 0; x < width; ++x)
			ok &= out[x * height + y] == in[y * width + x];
	return report("transpose", ok);
}
