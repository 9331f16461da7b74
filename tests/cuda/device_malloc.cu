// SPDX-License-Identifier: MIT
// Device-side malloc/free and new/delete (issue 16): each thread allocates a
// list of its own size with malloc, a second kernel reads and frees them;
// objects made with new in one kernel and deleted in another (virtual
// destructor calls counted); the freed blocks are reused (twelve rounds of 276 KiB
// fit in a 1 MiB heap); a request larger than the heap gets NULL; and
// cudaLimitMallocHeapSize is fixed once an image using malloc is loaded.
#include <vector>

#include "test_util.h"

constexpr int kThreads = 2048, kRounds = 12;

__global__ void make_lists(int **lists)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	int n = 1 + t % 37;
	int *p = (int *)malloc(n * sizeof(int));
	if (p)
		for (int i = 0; i < n; ++i)
			p[i] = t * 1000 + i;
	lists[t] = p;
}

__global__ void sum_and_free(int **lists, long long *sums)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	int *p = lists[t];
	long long s = -1;
	if (p) {
		s = 0;
		for (int i = 0; i < 1 + t % 37; ++i)
			s += p[i];
	}
	free(p);
	sums[t] = s;
}

struct Shape {
	__device__ virtual ~Shape() { atomicAdd(destroyed, 1); }
	__device__ virtual int area() const = 0;
	int *destroyed;
};
struct Square : Shape {
	int side;
	__device__ Square(int s, int *d) : side(s) { destroyed = d; }
	__device__ int area() const override { return side * side; }
};
struct Rect : Shape {
	int w, h;
	__device__ Rect(int a, int b, int *d) : w(a), h(b) { destroyed = d; }
	__device__ int area() const override { return w * h; }
};

__global__ void make_shapes(Shape **shapes, int *destroyed)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	if (t % 2)
		shapes[t] = new Square(t % 13, destroyed);
	else
		shapes[t] = new Rect(t % 7, t % 11, destroyed);
}

__global__ void areas_and_delete(Shape **shapes, int *areas)
{
	int t = blockIdx.x * blockDim.x + threadIdx.x;
	areas[t] = shapes[t] ? shapes[t]->area() : -1;
	delete shapes[t];
}

__global__ void too_big(void **out) { *out = malloc(size_t(64) << 20); }

int main()
{
	bool ok = true;
	const size_t heap = size_t(1) << 20;
	CHECK_CUDA(cudaDeviceSetLimit(cudaLimitMallocHeapSize, heap));
	size_t got_limit = 0;
	CHECK_CUDA(cudaDeviceGetLimit(&got_limit, cudaLimitMallocHeapSize));
	ok = expect(got_limit == heap, "cudaDeviceGetLimit gives the heap size set") && ok;

	int **lists;
	long long *sums;
	CHECK_CUDA(cudaMalloc(&lists, kThreads * sizeof(int *)));
	CHECK_CUDA(cudaMalloc(&sums, kThreads * sizeof(long long)));
	std::vector<long long> got(kThreads);
	void **dptr;
	CHECK_CUDA(cudaMalloc(&dptr, 2 * sizeof(void *)));
	// Each round takes 276 KiB (2048 blocks of 32 to 256 bytes): twelve
	// rounds fit in the 1 MiB heap only if freed blocks are reused.
	for (int round = 0; round < kRounds; ++round) {
		make_lists<<<kThreads / 256, 256>>>(lists);
		sum_and_free<<<kThreads / 256, 256>>>(lists, sums);
		CHECK_LAUNCH();
		CHECK_CUDA(cudaMemcpy(got.data(), sums, kThreads * sizeof(long long),
				      cudaMemcpyDeviceToHost));
		for (int t = 0; t < kThreads; ++t) {
			long long want = 0;
			for (int i = 0; i < 1 + t % 37; ++i)
				want += t * 1000 + i;
			if (got[t] != want) {
				std::printf("round %d thread %d: sum %lld, want %lld\n", round, t, got[t], want);
				ok = false;
				break;
			}
		}
	}

	Shape **shapes;
	int *areas, *destroyed;
	CHECK_CUDA(cudaMalloc(&shapes, kThreads * sizeof(Shape *)));
	CHECK_CUDA(cudaMalloc(&areas, kThreads * sizeof(int)));
	CHECK_CUDA(cudaMalloc(&destroyed, sizeof(int)));
	CHECK_CUDA(cudaMemset(destroyed, 0, sizeof(int)));
	make_shapes<<<kThreads / 256, 256>>>(shapes, destroyed);
	areas_and_delete<<<kThreads / 256, 256>>>(shapes, areas);
	CHECK_LAUNCH();
	std::vector<int> garea(kThreads);
	int gdestroyed = 0;
	CHECK_CUDA(cudaMemcpy(garea.data(), areas, kThreads * sizeof(int), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(&gdestroyed, destroyed, sizeof(int), cudaMemcpyDeviceToHost));
	for (int t = 0; t < kThreads; ++t) {
		int want = t % 2 ? (t % 13) * (t % 13) : (t % 7) * (t % 11);
		if (garea[t] != want) {
			std::printf("thread %d: area %d, want %d\n", t, garea[t], want);
			ok = false;
			break;
		}
	}
	ok = expect(gdestroyed == kThreads, "every delete runs the destructor") && ok;

	too_big<<<1, 1>>>(dptr);
	CHECK_LAUNCH();
	void *big = (void *)1;
	CHECK_CUDA(cudaMemcpy(&big, dptr, sizeof(void *), cudaMemcpyDeviceToHost));
	ok = expect(big == nullptr, "malloc of more than the heap gives NULL") && ok;
	ok = expect(cudaDeviceSetLimit(cudaLimitMallocHeapSize, heap * 2) == cudaErrorInvalidValue,
		    "the heap size is fixed once a kernel using malloc is loaded") && ok;
	cudaGetLastError();
	return report("device_malloc", ok);
}
