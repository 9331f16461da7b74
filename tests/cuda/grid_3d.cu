// SPDX-License-Identifier: MIT
// 3D grids and blocks: threadIdx, blockIdx, blockDim and gridDim in all
// three dimensions, their dim3/uint3 conversions, and warpSize.
#include "test_util.h"

__global__ void coordinates(unsigned *out)
{
	dim3 block = blockDim;
	uint3 thread = threadIdx;
	unsigned bx = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
	unsigned tx = thread.x + block.x * (thread.y + block.y * thread.z);
	unsigned linear = bx * (block.x * block.y * block.z) + tx;
	unsigned *rec = out + 8 * linear;
	rec[0] = threadIdx.x;
	rec[1] = threadIdx.y;
	rec[2] = threadIdx.z;
	rec[3] = blockIdx.x;
	rec[4] = blockIdx.y;
	rec[5] = blockIdx.z;
	rec[6] = gridDim.x * 100 + gridDim.y * 10 + gridDim.z;
	rec[7] = warpSize * 1000 + blockDim.x * 100 + blockDim.y * 10 + blockDim.z;
}

int main()
{
	dim3 grid(3, 2, 2), block(4, 3, 5);
	const unsigned total = 3 * 2 * 2 * 4 * 3 * 5;
	unsigned *dout, *out = new unsigned[8 * total];
	CHECK_CUDA(cudaMalloc(&dout, 8 * total * sizeof(unsigned)));
	coordinates<<<grid, block>>>(dout);
	CHECK_LAUNCH();
	CHECK_CUDA(cudaMemcpy(out, dout, 8 * total * sizeof(unsigned), cudaMemcpyDeviceToHost));
	bool ok = true;
	for (unsigned bz = 0; bz < 2; ++bz)
		for (unsigned by = 0; by < 2; ++by)
			for (unsigned bx = 0; bx < 3; ++bx)
				for (unsigned tz = 0; tz < 5; ++tz)
					for (unsigned ty = 0; ty < 3; ++ty)
						for (unsigned tx = 0; tx < 4; ++tx) {
							unsigned b = bx + 3 * (by + 2 * bz);
							unsigned t = tx + 4 * (ty + 3 * tz);
							unsigned *rec = out + 8 * (b * 60 + t);
							ok &= rec[0] == tx && rec[1] == ty && rec[2] == tz;
							ok &= rec[3] == bx && rec[4] == by && rec[5] == bz;
							ok &= rec[6] == 322 && rec[7] == 32000 + 435;
						}
	return report("grid_3d", ok);
}
