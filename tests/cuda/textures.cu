// SPDX-License-Identifier: MIT
// Texture and surface objects (issue 16). A 2-D float texture in a CUDA
// array, in pitched memory and (1-D) in linear memory is sampled at points
// inside and outside it with every address mode (wrap, clamp, mirror,
// border), both filter modes (point, linear) and normalized and texel
// coordinates; each sample is compared with the CPU's, computed from CUDA's
// definitions (programming guide, "Texture Fetching"). Also: uchar4 texels
// read as normalized floats and as elements, tex1Dfetch of ints, and a
// surface written by one kernel and read by another.
#include <vector>

#include "test_util.h"

constexpr int kW = 13, kH = 7, kSamples = 512;

__global__ void sample2d(cudaTextureObject_t t, const float2 *at, float *out)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < kSamples)
		out[i] = tex2D<float>(t, at[i].x, at[i].y);
}

__global__ void sample1d(cudaTextureObject_t t, const float2 *at, float *out)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < kSamples)
		out[i] = tex1D<float>(t, at[i].x);
}

__global__ void sample_uchar4(cudaTextureObject_t norm, cudaTextureObject_t elem, float4 *f,
			      uchar4 *e)
{
	int x = threadIdx.x, y = blockIdx.x;
	f[y * kW + x] = tex2D<float4>(norm, x + 0.5f, y + 0.5f);
	e[y * kW + x] = tex2D<uchar4>(elem, x + 0.5f, y + 0.5f);
}

__global__ void fetch_ints(cudaTextureObject_t t, int *out, int n)
{
	int i = threadIdx.x;
	out[i] = tex1Dfetch<int>(t, i - 4); // clamped below 0 and beyond n - 1
	(void)n;
}

__global__ void surface_write(cudaSurfaceObject_t s)
{
	int x = threadIdx.x, y = blockIdx.x;
	surf2Dwrite(float(x * 100 + y), s, x * 4, y);
}

__global__ void surface_read(cudaSurfaceObject_t s, float *out)
{
	int x = threadIdx.x, y = blockIdx.x;
	out[y * kW + x] = surf2Dread<float>(s, x * 4, y) + surf2Dread<float>(s, (x + 20) * 4, y,
									     cudaBoundaryModeZero);
}

// ------------------------------------------------------------- the CPU ---

static float texel(const std::vector<float> &img, int w, int h, int x, int y)
{
	return img[size_t(y) * w + x];
}

// Index i along n texels under mode; -1 is the border.
static int cpu_address(int i, int n, cudaTextureAddressMode mode, bool normalized)
{
	if (!normalized && mode != cudaAddressModeBorder)
		mode = cudaAddressModeClamp; // wrap and mirror need normalized coordinates
	if (mode == cudaAddressModeWrap)
		return ((i % n) + n) % n;
	if (mode == cudaAddressModeMirror) {
		// The image, its mirror image, the image, ...: period 2n.
		int period = ((i % (2 * n)) + 2 * n) % (2 * n);
		return period < n ? period : 2 * n - 1 - period;
	}
	if (mode == cudaAddressModeBorder)
		return i >= 0 && i < n ? i : -1;
	return std::min(std::max(i, 0), n - 1);
}

struct Mode {
	cudaTextureAddressMode address;
	cudaTextureFilterMode filter;
	bool normalized;
};

static float cpu_fetch(const std::vector<float> &img, int w, int h, const Mode &m, int x, int y,
		       float border)
{
	x = cpu_address(x, w, m.address, m.normalized);
	y = cpu_address(y, h, m.address, m.normalized);
	return x < 0 || y < 0 ? border : texel(img, w, h, x, y);
}

static float cpu_sample(const std::vector<float> &img, int w, int h, const Mode &m, float x,
			float y, float border)
{
	if (m.normalized) {
		x *= w;
		y *= h;
	}
	if (m.filter == cudaFilterModePoint)
		return cpu_fetch(img, w, h, m, int(std::floor(x)), int(std::floor(y)), border);
	// tex(x, y) = (1-a)(1-b) T[i, j] + a(1-b) T[i+1, j] + (1-a)b T[i, j+1] + ab T[i+1, j+1],
	// a and b in 9-bit fixed point with 8 fractional bits.
	const float xb = x - 0.5f, yb = y - 0.5f;
	const int i = int(std::floor(xb)), j = int(std::floor(yb));
	const float a = std::nearbyint((xb - std::floor(xb)) * 256.f) / 256.f;
	const float b = std::nearbyint((yb - std::floor(yb)) * 256.f) / 256.f;
	return (1 - a) * (1 - b) * cpu_fetch(img, w, h, m, i, j, border) +
	       a * (1 - b) * cpu_fetch(img, w, h, m, i + 1, j, border) +
	       (1 - a) * b * cpu_fetch(img, w, h, m, i, j + 1, border) +
	       a * b * cpu_fetch(img, w, h, m, i + 1, j + 1, border);
}

static bool close(float got, float want)
{
	return std::fabs(got - want) <= 1e-4f * std::max(1.f, std::fabs(want));
}

int main()
{
	std::vector<float> img(kW * kH);
	Rng rng(11);
	for (float &v : img)
		v = rng.uniform(-10.f, 10.f);
	// Sample points: in, around and far outside the texture.
	std::vector<float2> at(kSamples);
	for (float2 &p : at)
		p = make_float2(rng.uniform(-2.f * kW, 3.f * kW), rng.uniform(-2.f * kH, 3.f * kH));
	std::vector<float2> at_normalized(kSamples);
	for (int i = 0; i < kSamples; ++i)
		at_normalized[i] = make_float2(at[i].x / kW, at[i].y / kH);

	cudaChannelFormatDesc fdesc = cudaCreateChannelDesc<float>();
	cudaArray_t array;
	CHECK_CUDA(cudaMallocArray(&array, &fdesc, kW, kH));
	CHECK_CUDA(cudaMemcpy2DToArray(array, 0, 0, img.data(), kW * sizeof(float), kW * sizeof(float),
				       kH, cudaMemcpyHostToDevice));
	float *pitched;
	size_t pitch;
	CHECK_CUDA(cudaMallocPitch(&pitched, &pitch, kW * sizeof(float), kH));
	CHECK_CUDA(cudaMemcpy2D(pitched, pitch, img.data(), kW * sizeof(float), kW * sizeof(float), kH,
				cudaMemcpyHostToDevice));
	float *linear;
	CHECK_CUDA(cudaMalloc(&linear, kW * sizeof(float)));
	CHECK_CUDA(cudaMemcpy(linear, img.data(), kW * sizeof(float), cudaMemcpyHostToDevice));
	float2 *dat, *datn;
	float *dout;
	CHECK_CUDA(cudaMalloc(&dat, kSamples * sizeof(float2)));
	CHECK_CUDA(cudaMalloc(&datn, kSamples * sizeof(float2)));
	CHECK_CUDA(cudaMalloc(&dout, kSamples * sizeof(float)));
	CHECK_CUDA(cudaMemcpy(dat, at.data(), kSamples * sizeof(float2), cudaMemcpyHostToDevice));
	CHECK_CUDA(cudaMemcpy(datn, at_normalized.data(), kSamples * sizeof(float2),
			      cudaMemcpyHostToDevice));

	bool ok = true;
	const float border = 42.5f;
	std::vector<float> got(kSamples);
	const cudaTextureAddressMode modes[] = {cudaAddressModeWrap, cudaAddressModeClamp,
						cudaAddressModeMirror, cudaAddressModeBorder};
	for (int res = 0; res < 3; ++res)
		for (cudaTextureAddressMode address : modes)
			for (cudaTextureFilterMode filter : {cudaFilterModePoint, cudaFilterModeLinear})
				for (bool normalized : {false, true}) {
					const Mode m{address, filter, normalized};
					cudaResourceDesc rd{};
					if (res == 0) {
						rd.resType = cudaResourceTypeArray;
						rd.res.array.array = array;
					} else if (res == 1) {
						rd.resType = cudaResourceTypePitch2D;
						rd.res.pitch2D.devPtr = pitched;
						rd.res.pitch2D.desc = fdesc;
						rd.res.pitch2D.width = kW;
						rd.res.pitch2D.height = kH;
						rd.res.pitch2D.pitchInBytes = pitch;
					} else {
						rd.resType = cudaResourceTypeLinear;
						rd.res.linear.devPtr = linear;
						rd.res.linear.desc = fdesc;
						rd.res.linear.sizeInBytes = kW * sizeof(float);
					}
					cudaTextureDesc td{};
					td.addressMode[0] = td.addressMode[1] = address;
					td.filterMode = filter;
					td.readMode = cudaReadModeElementType;
					td.normalizedCoords = normalized;
					td.borderColor[0] = border;
					cudaTextureObject_t t;
					CHECK_CUDA(cudaCreateTextureObject(&t, &rd, &td, nullptr));
					if (res == 2)
						sample1d<<<kSamples / 128, 128>>>(t, normalized ? datn : dat, dout);
					else
						sample2d<<<kSamples / 128, 128>>>(t, normalized ? datn : dat, dout);
					CHECK_LAUNCH();
					CHECK_CUDA(cudaMemcpy(got.data(), dout, kSamples * sizeof(float),
							      cudaMemcpyDeviceToHost));
					CHECK_CUDA(cudaDestroyTextureObject(t));
					const int h = res == 2 ? 1 : kH;
					for (int i = 0; i < kSamples; ++i) {
						const float2 p = normalized ? at_normalized[i] : at[i];
						// 1-D: the y coordinate is that of row 0's centre.
						const float y = res == 2 ? (normalized ? 0.5f : 0.5f) : p.y;
						float want = cpu_sample(img, kW, h, m, p.x, y, border);
						if (res == 2 && filter == cudaFilterModeLinear) {
							// A 1-D texture blends along x only.
							Mode m1 = m;
							want = cpu_sample(img, kW, 1, m1, p.x, normalized ? 0.5f : 0.5f,
									  border);
						}
						if (!close(got[i], want)) {
							std::printf("resource %d, address %d, filter %d, normalized %d: "
								    "(%g, %g) gave %g, want %g\n",
								    res, int(address), int(filter), int(normalized), p.x,
								    p.y, got[i], want);
							ok = false;
							break;
						}
					}
				}

	// uchar4 texels: normalized floats (x / 255) and the elements themselves.
	std::vector<uchar4> pix(kW * kH);
	for (uchar4 &p : pix)
		p = make_uchar4(rng.next() & 255, rng.next() & 255, rng.next() & 255, rng.next() & 255);
	cudaChannelFormatDesc cdesc = cudaCreateChannelDesc<uchar4>();
	cudaArray_t carray;
	CHECK_CUDA(cudaMallocArray(&carray, &cdesc, kW, kH));
	CHECK_CUDA(cudaMemcpyToArray(carray, 0, 0, pix.data(), pix.size() * sizeof(uchar4),
				     cudaMemcpyHostToDevice));
	cudaResourceDesc crd{};
	crd.resType = cudaResourceTypeArray;
	crd.res.array.array = carray;
	cudaTextureDesc ntd{};
	ntd.addressMode[0] = ntd.addressMode[1] = cudaAddressModeClamp;
	ntd.filterMode = cudaFilterModePoint;
	ntd.readMode = cudaReadModeNormalizedFloat;
	cudaTextureDesc etd = ntd;
	etd.readMode = cudaReadModeElementType;
	cudaTextureObject_t tn, te;
	CHECK_CUDA(cudaCreateTextureObject(&tn, &crd, &ntd, nullptr));
	CHECK_CUDA(cudaCreateTextureObject(&te, &crd, &etd, nullptr));
	float4 *df;
	uchar4 *de;
	CHECK_CUDA(cudaMalloc(&df, kW * kH * sizeof(float4)));
	CHECK_CUDA(cudaMalloc(&de, kW * kH * sizeof(uchar4)));
	sample_uchar4<<<kH, kW>>>(tn, te, df, de);
	CHECK_LAUNCH();
	std::vector<float4> gf(kW * kH);
	std::vector<uchar4> ge(kW * kH);
	CHECK_CUDA(cudaMemcpy(gf.data(), df, gf.size() * sizeof(float4), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy(ge.data(), de, ge.size() * sizeof(uchar4), cudaMemcpyDeviceToHost));
	for (int i = 0; i < kW * kH; ++i) {
		const uchar4 p = pix[i];
		ok = ok && close(gf[i].x, p.x / 255.f) && close(gf[i].y, p.y / 255.f) &&
		     close(gf[i].z, p.z / 255.f) && close(gf[i].w, p.w / 255.f);
		ok = ok && ge[i].x == p.x && ge[i].y == p.y && ge[i].z == p.z && ge[i].w == p.w;
	}
	// Linear filtering of element reads of integers is refused, as in CUDA.
	cudaTextureDesc bad = etd;
	bad.filterMode = cudaFilterModeLinear;
	cudaTextureObject_t tb;
	ok = ok && cudaCreateTextureObject(&tb, &crd, &bad, nullptr) == cudaErrorInvalidFilterSetting;
	cudaGetLastError();

	// tex1Dfetch of ints: clamped at both ends.
	const int n = 20;
	std::vector<int> ints(n);
	for (int i = 0; i < n; ++i)
		ints[i] = int(rng.next()) - (1 << 30);
	int *dints, *dfetched;
	CHECK_CUDA(cudaMalloc(&dints, n * sizeof(int)));
	CHECK_CUDA(cudaMalloc(&dfetched, 32 * sizeof(int)));
	CHECK_CUDA(cudaMemcpy(dints, ints.data(), n * sizeof(int), cudaMemcpyHostToDevice));
	cudaResourceDesc ird{};
	ird.resType = cudaResourceTypeLinear;
	ird.res.linear.devPtr = dints;
	ird.res.linear.desc = cudaCreateChannelDesc<int>();
	ird.res.linear.sizeInBytes = n * sizeof(int);
	cudaTextureDesc itd{};
	itd.addressMode[0] = cudaAddressModeClamp;
	cudaTextureObject_t ti;
	CHECK_CUDA(cudaCreateTextureObject(&ti, &ird, &itd, nullptr));
	fetch_ints<<<1, 32>>>(ti, dfetched, n);
	CHECK_LAUNCH();
	int fetched[32];
	CHECK_CUDA(cudaMemcpy(fetched, dfetched, sizeof(fetched), cudaMemcpyDeviceToHost));
	for (int i = 0; i < 32; ++i)
		ok = ok && fetched[i] == ints[std::min(std::max(i - 4, 0), n - 1)];

	// A surface: written, then read back (and zero outside with cudaBoundaryModeZero).
	cudaArray_t sarray;
	CHECK_CUDA(cudaMallocArray(&sarray, &fdesc, kW, kH, cudaArraySurfaceLoadStore));
	cudaResourceDesc srd{};
	srd.resType = cudaResourceTypeArray;
	srd.res.array.array = sarray;
	cudaSurfaceObject_t s;
	CHECK_CUDA(cudaCreateSurfaceObject(&s, &srd));
	float *dsurf;
	CHECK_CUDA(cudaMalloc(&dsurf, kW * kH * sizeof(float)));
	surface_write<<<kH, kW>>>(s);
	surface_read<<<kH, kW>>>(s, dsurf);
	CHECK_LAUNCH();
	std::vector<float> gs(kW * kH), back(kW * kH);
	CHECK_CUDA(cudaMemcpy(gs.data(), dsurf, gs.size() * sizeof(float), cudaMemcpyDeviceToHost));
	CHECK_CUDA(cudaMemcpy2DFromArray(back.data(), kW * sizeof(float), sarray, 0, 0,
					 kW * sizeof(float), kH, cudaMemcpyDeviceToHost));
	for (int y = 0; y < kH; ++y)
		for (int x = 0; x < kW; ++x) {
			const float want = float(x * 100 + y);
			ok = ok && gs[y * kW + x] == want && back[y * kW + x] == want;
		}
	// A surface needs an array made for surface access.
	cudaSurfaceObject_t s2;
	ok = ok && cudaCreateSurfaceObject(&s2, &crd) == cudaErrorInvalidValue;
	cudaGetLastError();
	CHECK_CUDA(cudaDestroySurfaceObject(s));
	CHECK_CUDA(cudaFreeArray(array));
	CHECK_CUDA(cudaFreeArray(carray));
	CHECK_CUDA(cudaFreeArray(sarray));
	return report("textures", ok);
}
