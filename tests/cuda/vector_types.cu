// SPDX-License-Identifier: MIT
// CUDA vector types and make_ functions on the device: float2/float4/int4/
// double2/uchar4 loads and stores (with __ldg) and component arithmetic.
#include "test_util.h"

__global__ void combine(const float4 *a, const int4 *b, const double2 *c, const uchar4 *d, float2 *out,
			int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float4 fa = __ldg(&a[i]);
	int4 ib = __ldg(&b[i]);
	double2 dc = c[i];
	uchar4 ud = d[i];
	float2 r = make_float2(fa.x * ib.x + fa.y * ib.y + static_cast<float>(dc.x),
			       fa.z * ib.z - fa.w * ib.w + static_cast<float>(dc.y) + ud.x + ud.y + ud.z + ud.w);
	out[i] = r;
}

int main()
{
	const int n = 500;
	float4 *a = new float4[n];
	int4 *b = new int4[n];
	double2 *c = new double2[n];
	uchar4 *d = new uchar4[n];
	float2 *out = new float2[n];
	for (int i = 0; i < n; ++i) {
		a[i] = make_float4(i * 0.5f, -i * 0.25f, 1.0f + i, 2.0f);
		b[i] = make_int4(i, 2, -3, i % 5);
		c[i] = make_double2(i * 0.125, -0.5);
		d[i] = make_uchar4(i % 256, 1, 2, 255);
	}
	float4 *da;
	int4 *db;
	double2 *dc;
	uchar4 *dd;
	float2 *dout;
	CHECK_CUDA(cudaMalloc(&da, n * sizeof(float4)));
	CHECK_CUDA(cudaMalloc(&db, n * sizeof(int4)));
	CHECK_CUDA(cudaMalloc(&dc, n * sizeof(double2)));
	CHECK_CUDA(cudaMalloc(&dd, n * sizeof(uchar4)));
	CHECK_CUDA(cudaMalloc(&dout, n * sizeof(float2)));
	CHECK_CUDA(cudaMemcpy(da, a, n * sizeof(float4), cudaMemcpyHostToDevice));
	CHECK_CUDA(cudaMemcpy(db, b, n * sizeof(int4), cudaMemcpyHostToDevice));
	CHECK_CUDA(cudaMemcpy(dc, c, n * sizeof(double2), cudaMemcpyHostToDevice));
	CHECK_CUDA(cudaMemcpy(dd, d, n * sizeof(uchar4), cudaMemcpyHostToDevice));
	combine<<<(n + 127) / 128, 128>>>(da, db, dc, dd, dout, n);
	CHECK_LAUNCH();
	CHECK_CUDA(cudaMemcpy(out, dout, n * sizeof(float2), cudaMemcpyDeviceToHost));
	bool ok = sizeof(float4) == 16 && alignof(float4) == 16 && sizeof(double2) == 16 && sizeof(uchar4) == 4;
	for (int i = 0; i < n; ++i) {
		float x = std::fma(a[i].x, b[i].x, a[i].y * b[i].y) + static_cast<float>(c[i].x);
		float y = a[i].z * b[i].z - a[i].w * b[i].w + static_cast<float>(c[i].y) + d[i].x + d[i].y + d[i].z +
			  d[i].w;
		// The device may contract a * b + c into one fma: allow 1e-5 relative.
		ok &= std::fabs(out[i].x - x) <= 1e-5f * (1 + std::fabs(x));
		ok &= std::fabs(out[i].y - y) <= 1e-5f * (1 + std::fabs(y));
	}
	return report("vector_types", ok);
}
