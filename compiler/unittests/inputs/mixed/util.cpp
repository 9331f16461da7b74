// SPDX-License-Identifier: MIT
// C++17 (an if with an initialiser): the command line's -std reaches it.
int cxx_expected(int n)
{
	if (int sum = (n - 1) * n * (2 * n - 1) / 6; sum > 0)
		return sum;
	return 0;
}
