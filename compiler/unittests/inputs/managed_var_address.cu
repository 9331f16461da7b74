// SPDX-License-Identifier: MIT
// A __managed__ variable's address in a device variable's initialiser.
__managed__ int counter = 5;
__device__ int *where = &counter;

__global__ void bump() { *where += 1; }
