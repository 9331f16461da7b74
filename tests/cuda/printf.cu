// SPDX-License-Identifier: MIT
// Device printf: integers of every width, doubles, strings and characters
// arrive on the host's stdout. The program captures its own stdout around
// cudaDeviceSynchronize and compares it with what printf on the host gives.
#include <string>
#include <unistd.h>

#include "test_util.h"

__global__ void say(int base)
{
	if (threadIdx.x == 2 && blockIdx.x == 1)
		printf("block %d thread %d: %d %u %lld %.3f %s %c %x\n", blockIdx.x, threadIdx.x, base,
		       4000000000u, -1234567890123ll, 2.5f * base, "str", 'Z', 0xbeef);
}

int main()
{
	std::fflush(stdout);
	char path[] = "/tmp/simtgpu-printf-XXXXXX";
	int fd = mkstemp(path);
	int saved = dup(1);
	dup2(fd, 1);
	say<<<2, 4>>>(7);
	cudaError_t launched = cudaGetLastError();
	cudaError_t synced = cudaDeviceSynchronize();
	std::fflush(stdout);
	dup2(saved, 1);
	close(saved);
	std::string captured;
	char chunk[256];
	lseek(fd, 0, SEEK_SET);
	for (ssize_t got; (got = read(fd, chunk, sizeof(chunk))) > 0;)
		captured.append(chunk, static_cast<size_t>(got));
	close(fd);
	unlink(path);

	char expected[256];
	std::snprintf(expected, sizeof(expected), "block %d thread %d: %d %u %lld %.3f %s %c %x\n", 1, 2, 7,
		      4000000000u, -1234567890123ll, 2.5f * 7, "str", 'Z', 0xbeef);
	std::printf("device wrote: %s", captured.c_str());
	bool ok = launched == cudaSuccess && synced == cudaSuccess && captured == expected;
	return report("printf", ok);
}
