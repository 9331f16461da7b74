// SPDX-License-Identifier: MIT
// A __managed__ variable: a pointer variable in the device image, its
// initial value beside it.
__managed__ int counter = 5;

__global__ void bump() { counter += 1; }
