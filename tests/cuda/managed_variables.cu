// SPDX-License-Identifier: MIT
// __managed__ variables: one variable for the host and the device, in
// managed memory. Initialisers (scalar, array, struct, none) are seen by the
// host before any other CUDA call and by kernels; a host write before a
// launch reaches the kernel and the kernel's writes reach the host after the
// synchronisation; the address of the variable is the same on both sides
// (passed to a kernel, cudaGetSymbolAddress) and is managed memory (advice
// and prefetches accept it; host memcpy into it, cudaMemcpyToSymbol and
// FromSymbol); a static one and one
// touched only in __host__ __device__ code work too; after cudaDeviceReset
// the values are kept and kernels reach them again, and a static destructor
// still reads them at exit. Every value is checked
// against the same steps done on the CPU.
#include <cuda_runtime.h>

#include "test_util.h"

namespace {

constexpr int n = 512;

struct Stats {
	int count;
	long long sum;
	float scale;
};

__managed__ int counter = 7;
__device__ __managed__ int histogram[8] = {1, 2, 3, 4, 5, 6, 7, 8};
__managed__ Stats stats = {3, 100, 0.5f};
__managed__ unsigned zeroed[n]; // no initialiser: zeros
static __managed__ int file_local = -4;
__managed__ double both_sides = 1.25;

__host__ __device__ double twice_both_sides()
{
	return 2 * both_sides;
}

// Checked by a static destructor, after the runtime has shut down at exit:
// the host still reads the variable's last value.
int counter_at_exit = -1;
struct CheckAtExit {
	~CheckAtExit()
	{
		if (counter != counter_at_exit) {
			std::printf("at exit: counter %d (want %d)\n", counter, counter_at_exit);
			std::_Exit(1);
		}
	}
} check_at_exit;

__global__ void count(const int *values)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	atomicAdd(&counter, 1);
	atomicAdd(&histogram[values[i] & 7], 1);
	atomicAdd(reinterpret_cast<unsigned long long *>(&stats.sum),
		  static_cast<unsigned long long>(values[i]));
	zeroed[i] = values[i] * stats.scale + file_local;
}

__global__ void add_through_pointer(int *where, int value)
{
	atomicAdd(where, value);
}

__global__ void read_both_sides(double *out)
{
	*out = twice_both_sides();
}

} // namespace

int main()
{
	bool ok = true;
	// Host reads before any other CUDA call: the initialisers.
	ok &= counter == 7 && histogram[0] == 1 && histogram[7] == 8;
	ok &= stats.count == 3 && stats.sum == 100 && stats.scale == 0.5f;
	ok &= file_local == -4 && both_sides == 1.25;
	for (int i = 0; i < n; ++i)
		ok &= zeroed[i] == 0;
	if (!ok)
		std::printf("initial values differ from the initialisers\n");

	// Host writes before the launch, which the kernel must see.
	counter = 1000;
	stats.scale = 2.0f;
	file_local = 3;
	int expect_counter = 1000;
	int expect_histogram[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	long long expect_sum = 100;
	unsigned expect_zeroed[n];

	Rng rng(2026);
	int values[n];
	for (int i = 0; i < n; ++i) {
		values[i] = rng.range(0, 1000);
		++expect_counter;
		++expect_histogram[values[i] & 7];
		expect_sum += values[i];
		expect_zeroed[i] = values[i] * 2.0f + 3;
	}
	int *d_values;
	CHECK_CUDA(cudaMalloc(&d_values, sizeof(values)));
	CHECK_CUDA(cudaMemcpy(d_values, values, sizeof(values), cudaMemcpyHostToDevice));
	count<<<n / 128, 128>>>(d_values);
	CHECK_LAUNCH();
	bool counted = counter == expect_counter && stats.sum == expect_sum && stats.count == 3;
	for (int b = 0; b < 8; ++b)
		counted &= histogram[b] == expect_histogram[b];
	for (int i = 0; i < n; ++i)
		counted &= zeroed[i] == expect_zeroed[i];
	if (!counted)
		std::printf("kernel results differ: counter %d (want %d), sum %lld (want %lld)\n",
			    counter, expect_counter, stats.sum, expect_sum);
	ok &= counted;

	// The host's address of a managed variable is its device address.
	add_through_pointer<<<2, 64>>>(&counter, 2);
	CHECK_LAUNCH();
	expect_counter += 2 * 128;
	void *symbol = nullptr;
	CHECK_CUDA(cudaGetSymbolAddress(&symbol, counter));
	bool addresses = counter == expect_counter && symbol == &counter;
	// Managed memory: advice and prefetches accept only managed ranges.
	addresses &= cudaMemAdvise(&counter, sizeof(counter), cudaMemAdviseSetReadMostly, 0) ==
		     cudaSuccess;
	addresses &= cudaMemPrefetchAsync(histogram, sizeof(histogram), 0, 0) == cudaSuccess;
	if (!addresses)
		std::printf("address: counter %d (want %d), symbol %p, &counter %p\n", counter,
			    expect_counter, symbol, (void *)&counter);
	ok &= addresses;

	// Copies to and from the symbol, and a plain host copy into it.
	int replacement[8] = {80, 70, 60, 50, 40, 30, 20, 10};
	CHECK_CUDA(cudaMemcpyToSymbol(histogram, replacement, sizeof(replacement)));
	int copied[8] = {};
	CHECK_CUDA(cudaMemcpyFromSymbol(copied, histogram, sizeof(copied)));
	const double minus_three_and_a_half = -3.5;
	std::memcpy(&both_sides, &minus_three_and_a_half, sizeof(double));
	double *d_out;
	CHECK_CUDA(cudaMalloc(&d_out, sizeof(double)));
	read_both_sides<<<1, 1>>>(d_out);
	CHECK_LAUNCH();
	double from_device = 0;
	CHECK_CUDA(cudaMemcpy(&from_device, d_out, sizeof(double), cudaMemcpyDeviceToHost));
	bool copies = from_device == -7.0 && twice_both_sides() == -7.0;
	for (int b = 0; b < 8; ++b)
		copies &= copied[b] == replacement[b] && histogram[b] == replacement[b];
	if (!copies)
		std::printf("copies: device read %g (want -7)\n", from_device);
	ok &= copies;

	CHECK_CUDA(cudaFree(d_values));
	CHECK_CUDA(cudaFree(d_out));

	// cudaDeviceReset: the values stay; the next context gets them in its
	// own managed memory, where kernels reach them again.
	CHECK_CUDA(cudaDeviceReset());
	bool reset = counter == expect_counter && histogram[2] == replacement[2];
	add_through_pointer<<<1, 32>>>(&counter, 1);
	CHECK_LAUNCH();
	expect_counter += 32;
	reset &= counter == expect_counter && histogram[2] == replacement[2];
	if (!reset)
		std::printf("after cudaDeviceReset: counter %d (want %d)\n", counter, expect_counter);
	ok &= reset;
	counter_at_exit = expect_counter;
	return report("managed_variables", ok);
}
