// SPDX-License-Identifier: MIT
// Defines the __device__ function rdc_extern.cu calls (and not its
// variable): linked with it without -rdc, simtcc must say that this file
// defines it and that -rdc is what is missing.
__device__ int undefined_twice(int x) { return 2 * x; }
