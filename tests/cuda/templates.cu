// SPDX-License-Identifier: MIT
// Kernel templates instantiated for several types, with a functor argument
// and a __host__ __device__ helper used on both sides.
#include "test_util.h"

template <typename T> struct Saxpy {
	T a;
	__host__ __device__ T operator()(T x, T y) const { return a * x + y; }
};

template <typename T> __host__ __device__ T clamp_to(T v, T lo, T hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

template <typename T, typename Op> __global__ void apply(const T *x, const T *y, T *out, int n, Op op)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = clamp_to(op(x[i], y[i]), T(-1000), T(1000));
}

template <typename T> bool run(const char *name)
{
	const int n = 777;
	T *x = new T[n], *y = new T[n], *out = new T[n];
	for (int i = 0; i < n; ++i) {
		x[i] = static_cast<T>(i % 50);
		y[i] = static_cast<T>(3 * i - 900);
	}
	T *dx, *dy, *dout;
	CHECK_CUDA(cudaMalloc(&dx, n * sizeof(T)));
	CHECK_CUDA(cudaMalloc(&dy, n * sizeof(T)));
	CHECK_CUDA(cudaMalloc(&dout, n * sizeof(T)));
	CHECK_CUDA(cudaMemcpy(dx, x, n * sizeof(T), cudaMemcpyHostToDevice));
	CHECK_CUDA(cudaMemcpy(dy, y, n * sizeof(T), cudaMemcpyHostToDevice));
	Saxpy<T> op{T(3)};
	apply<<<(n + 63) / 64, 64>>>(dx, dy, dout, n, op);
	CHECK_LAUNCH();
	CHECK_CUDA(cudaMemcpy(out, dout, n * sizeof(T), cudaMemcpyDeviceToHost));
	bool ok = true;
	for (int i = 0; i < n; ++i)
		ok &= out[i] == clamp_to(op(x[i], y[i]), T(-1000), T(1000));
	std::printf("  %s: %s\n", name, ok ? "ok" : "wrong");
	return ok;
}

int main()
{
	bool ok = run<int>("int");
	ok &= run<float>("float");
	ok &= run<double>("double");
	ok &= run<long long>("long long");
	return report("templates", ok);
}
