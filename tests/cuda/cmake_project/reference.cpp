// SPDX-License-Identifier: MIT
// The CPU's answer for affine_map, in a C++ source of the CUDA executable.
int affine_reference(int scale, int x, int offset) { return scale * x + offset; }
