// SPDX-License-Identifier: MIT
// A __managed__ variable: refused by name until simtcc builds them.
__managed__ int counter = 5;

__global__ void bump() { counter += 1; }
