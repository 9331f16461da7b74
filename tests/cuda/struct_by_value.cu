// SPDX-License-Identifier: MIT
// Kernel parameters of every shape: structs by value with mixed member
// types and padding, a large struct, an array inside a struct, vector
// types, bool, char, double and pointers, in one parameter list.
#include "test_util.h"

struct Mixed {
	char tag;
	double weight;
	short count;
	int values[3];
};

struct Big {
	float data[40];
	long long id;
};

__global__ void use(char c, Mixed m, bool flag, Big big, double d, float4 v, short s, int2 pair,
		    long long *out)
{
	long long sum = c + static_cast<long long>(m.weight * 8) + m.count + m.tag;
	for (int i = 0; i < 3; ++i)
		sum += m.values[i] * (i + 1);
	for (int i = 0; i < 40; ++i)
		sum += static_cast<long long>(big.data[i]);
	sum += big.id + (flag ? 1000000 : 0) + static_cast<long long>(d * 4);
	sum += static_cast<long long>(v.x + 2 * v.y + 3 * v.z + 4 * v.w) + s + pair.x * pair.y;
	out[threadIdx.x] = sum;
}

int main()
{
	Mixed m{'q', 2.625, -300, {7, -8, 9}};
	Big big{};
	for (int i = 0; i < 40; ++i)
		big.data[i] = static_cast<float>(i * i);
	big.id = 1ll << 40;
	float4 v = make_float4(1.0f, 2.0f, 3.0f, 4.5f);
	int2 pair = make_int2(-6, 7);
	long long ref = 'x' + static_cast<long long>(m.weight * 8) + m.count + m.tag;
	for (int i = 0; i < 3; ++i)
		ref += m.values[i] * (i + 1);
	for (int i = 0; i < 40; ++i)
		ref += static_cast<long long>(big.data[i]);
	ref += big.id + 1000000 + static_cast<long long>(-3.75 * 4);
	ref += static_cast<long long>(v.x + 2 * v.y + 3 * v.z + 4 * v.w) + 12345 + pair.x * pair.y;
	long long *dout, out[8];
	CHECK_CUDA(cudaMalloc(&dout, sizeof(out)));
	use<<<1, 8>>>('x', m, true, big, -3.75, v, static_cast<short>(12345), pair, dout);
	CHECK_LAUNCH();
	CHECK_CUDA(cudaMemcpy(out, dout, sizeof(out), cudaMemcpyDeviceToHost));
	bool ok = true;
	for (long long o : out)
		ok &= o == ref;
	std::printf("got %lld want %lld\n", out[0], ref);
	return report("struct_by_value", ok);
}
