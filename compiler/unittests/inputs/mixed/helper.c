/* SPDX-License-Identifier: MIT */
/* C, as nvcc's host compiler compiles it: C's defaults whatever -std the
 * command line gives the .cu files. `new` is a name here, not a keyword. */
int c_checksum(const int *values, int n)
{
	int new = 0;
	for (int i = 0; i < n; ++i)
		new += values[i];
	return new;
}
