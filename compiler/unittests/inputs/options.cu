// A whole program for the option tests: it needs include/options_value.h
// (an include path), OPTIONS_SCALE (a macro) and libm (a library).
#include <cmath>
#include <cstdio>
#include "options_value.h"

__global__ void scale(int *out) { *out = OPTIONS_VALUE * OPTIONS_SCALE; }

int main()
{
	int *d = nullptr, h = 0;
	cudaMalloc(&d, sizeof h);
	scale<<<1, 1>>>(d);
	cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost);
	std::printf("%d %.0f\n", h, std::sqrt(double(h)));
	return h == OPTIONS_VALUE * OPTIONS_SCALE ? 0 : 1;
}
