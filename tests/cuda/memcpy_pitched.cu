// SPDX-License-Identifier: MIT
// Pitched memory (issue 16): cudaMallocPitch and cudaMalloc3D, cudaMemcpy2D
// (and Async) of every kind, the default kind included, cudaMemcpy3D with
// positions on both sides, cudaMemset2D and cudaMemset3D on sub-boxes, each
// checked byte for byte against copies done with plain loops on the host
// (padding bytes outside the box must stay as they were); and the errors
// CUDA gives for a width beyond the pitch, CUDA arrays, NULL pointers and a
// bad kind.
#include <vector>

#include "test_util.h"

// The host reference: a box of width bytes x height rows x depth slices.
static void ref_copy(unsigned char *dst, size_t dpitch, size_t dysize, cudaPos dpos,
		     const unsigned char *src, size_t spitch, size_t sysize, cudaPos spos,
		     cudaExtent e)
{
	for (size_t z = 0; z < e.depth; ++z)
		for (size_t y = 0; y < e.height; ++y)
			for (size_t x = 0; x < e.width; ++x)
				dst[((dpos.z + z) * dysize + dpos.y + y) * dpitch + dpos.x + x] =
					src[((spos.z + z) * sysize + spos.y + y) * spitch + spos.x + x];
}

static void fill_random(std::vector<unsigned char> &v, uint32_t seed)
{
	Rng rng(seed);
	for (auto &b : v)
		b = (unsigned char)rng.next();
}

static bool same(const std::vector<unsigned char> &a, const std::vector<unsigned char> &b,
		 const char *what)
{
	if (a == b)
		return true;
	for (size_t i = 0; i < a.size(); ++i)
		if (a[i] != b[i]) {
			std::printf("%s: byte %zu is %u, expected %u\n", what, i, a[i], b[i]);
			break;
		}
	return false;
}

static bool expect_error(cudaError_t got, cudaError_t want, const char *what)
{
	cudaGetLastError();
	if (got == want)
		return true;
	std::printf("%s: %s, expected %s\n", what, cudaGetErrorName(got), cudaGetErrorName(want));
	return false;
}

int main()
{
	bool ok = true;
	const cudaPos origin = make_cudaPos(0, 0, 0);

	// 2-D: 37 rows of 400 bytes; the host rows are 412 bytes apart.
	const size_t W = 400, H = 37, hpitch = 412;
	unsigned char *d1, *d2;
	size_t p1, p2;
	CHECK_CUDA(cudaMallocPitch(&d1, &p1, W, H));
	CHECK_CUDA(cudaMallocPitch(&d2, &p2, W - 100, H));
	ok &= p1 % 512 == 0 && p1 >= W && p2 % 512 == 0 && p2 >= W - 100;
	std::vector<unsigned char> host(hpitch * H), back(hpitch * H), want(hpitch * H);
	fill_random(host, 1);
	std::vector<unsigned char> dev_image(p1 * H), got(p1 * H);
	fill_random(dev_image, 2);
	CHECK_CUDA(cudaMemcpy(d1, dev_image.data(), p1 * H, cudaMemcpyHostToDevice));
	// H2D: the padding of the device rows keeps its bytes.
	CHECK_CUDA(cudaMemcpy2D(d1, p1, host.data(), hpitch, W, H, cudaMemcpyHostToDevice));
	ref_copy(dev_image.data(), p1, H, origin, host.data(), hpitch, H, origin,
		 make_cudaExtent(W, H, 1));
	CHECK_CUDA(cudaMemcpy(got.data(), d1, p1 * H, cudaMemcpyDeviceToHost));
	ok &= same(got, dev_image, "cudaMemcpy2D H2D");
	// D2H with the default kind, into a padded host image.
	fill_random(back, 3);
	want = back;
	CHECK_CUDA(cudaMemcpy2D(back.data(), hpitch, d1, p1, W, H, cudaMemcpyDefault));
	ref_copy(want.data(), hpitch, H, origin, dev_image.data(), p1, H, origin,
		 make_cudaExtent(W, H, 1));
	ok &= same(back, want, "cudaMemcpy2D D2H (default kind)");
	// D2D, a 300 x 30 window from (50, 5) of d1, async on a stream.
	cudaStream_t stream;
	CHECK_CUDA(cudaStreamCreate(&stream));
	std::vector<unsigned char> d2_image(p2 * H), got2(p2 * H);
	fill_random(d2_image, 4);
	CHECK_CUDA(cudaMemcpy(d2, d2_image.data(), p2 * H, cudaMemcpyHostToDevice));
	CHECK_CUDA(cudaMemcpy2DAsync(d2, p2, d1 + 5 * p1 + 50, p1, 300, 30, cudaMemcpyDeviceToDevice,
				     stream));
	CHECK_CUDA(cudaStreamSynchronize(stream));
	ref_copy(d2_image.data(), p2, H, origin, dev_image.data(), p1, H, make_cudaPos(50, 5, 0),
		 make_cudaExtent(300, 30, 1));
	CHECK_CUDA(cudaMemcpy(got2.data(), d2, p2 * H, cudaMemcpyDeviceToHost));
	ok &= same(got2, d2_image, "cudaMemcpy2DAsync D2D");
	// H2H, and H2D async from pageable memory.
	std::vector<unsigned char> h2(hpitch * H);
	fill_random(h2, 5);
	want = h2;
	CHECK_CUDA(cudaMemcpy2D(h2.data(), hpitch, host.data() + 7, hpitch, 100, 20,
				cudaMemcpyHostToHost));
	ref_copy(want.data(), hpitch, H, origin, host.data(), hpitch, H, make_cudaPos(7, 0, 0),
		 make_cudaExtent(100, 20, 1));
	ok &= same(h2, want, "cudaMemcpy2D H2H");
	CHECK_CUDA(cudaMemcpy2DAsync(d1, p1, h2.data(), hpitch, W, H, cudaMemcpyHostToDevice, stream));
	CHECK_CUDA(cudaStreamSynchronize(stream));
	ref_copy(dev_image.data(), p1, H, origin, h2.data(), hpitch, H, origin,
		 make_cudaExtent(W, H, 1));
	CHECK_CUDA(cudaMemcpy(got.data(), d1, p1 * H, cudaMemcpyDeviceToHost));
	ok &= same(got, dev_image, "cudaMemcpy2DAsync H2D");
	// A packed copy (width = both pitches) goes in one piece.
	CHECK_CUDA(cudaMemcpy2D(d1, p1, host.data(), p1, p1, 2, cudaMemcpyHostToDevice));
	ref_copy(dev_image.data(), p1, H, origin, host.data(), p1, 2, origin,
		 make_cudaExtent(p1, 2, 1));
	// Memset2D of a 123 x 11 window at (17, 3).
	CHECK_CUDA(cudaMemset2D(d1 + 3 * p1 + 17, p1, 0xab, 123, 11));
	for (size_t y = 3; y < 14; ++y)
		std::memset(&dev_image[y * p1 + 17], 0xab, 123);
	CHECK_CUDA(cudaMemcpy(got.data(), d1, p1 * H, cudaMemcpyDeviceToHost));
	ok &= same(got, dev_image, "cudaMemset2D");
	CHECK_CUDA(cudaMemset2DAsync(d1, p1, 0x5c, p1, 2, stream));
	CHECK_CUDA(cudaStreamSynchronize(stream));
	std::memset(dev_image.data(), 0x5c, 2 * p1);
	CHECK_CUDA(cudaMemcpy(got.data(), d1, p1 * H, cudaMemcpyDeviceToHost));
	ok &= same(got, dev_image, "cudaMemset2DAsync");

	// 3-D: a 96 x 5 x 4 volume; the host volume has 100-byte rows, 7 per slice.
	const cudaExtent vol = make_cudaExtent(96, 5, 4);
	cudaPitchedPtr dv;
	CHECK_CUDA(cudaMalloc3D(&dv, vol));
	ok &= dv.pitch % 512 == 0 && dv.xsize == 96 && dv.ysize == 5 && dv.ptr;
	const size_t hp = 100, hy = 7, hz = 5;
	std::vector<unsigned char> hv(hp * hy * hz), vimage(dv.pitch * 5 * 4), vgot(dv.pitch * 5 * 4);
	fill_random(hv, 6);
	fill_random(vimage, 7);
	CHECK_CUDA(cudaMemcpy(dv.ptr, vimage.data(), vimage.size(), cudaMemcpyHostToDevice));
	cudaMemcpy3DParms p = {};
	p.srcPtr = make_cudaPitchedPtr(hv.data(), hp, 100, hy);
	p.srcPos = make_cudaPos(4, 1, 1);
	p.dstPtr = dv;
	p.dstPos = make_cudaPos(8, 1, 0);
	p.extent = make_cudaExtent(80, 4, 3);
	p.kind = cudaMemcpyHostToDevice;
	CHECK_CUDA(cudaMemcpy3D(&p));
	ref_copy(vimage.data(), dv.pitch, 5, p.dstPos, hv.data(), hp, hy, p.srcPos, p.extent);
	CHECK_CUDA(cudaMemcpy(vgot.data(), dv.ptr, vgot.size(), cudaMemcpyDeviceToHost));
	ok &= same(vgot, vimage, "cudaMemcpy3D H2D");
	// D2H of the whole volume with the default kind, async.
	std::vector<unsigned char> hv2(hp * hy * hz), hv2_want;
	fill_random(hv2, 8);
	hv2_want = hv2;
	p = {};
	p.srcPtr = dv;
	p.dstPtr = make_cudaPitchedPtr(hv2.data(), hp, 100, hy);
	p.extent = vol;
	p.kind = cudaMemcpyDefault;
	CHECK_CUDA(cudaMemcpy3DAsync(&p, stream));
	CHECK_CUDA(cudaStreamSynchronize(stream));
	ref_copy(hv2_want.data(), hp, hy, origin, vimage.data(), dv.pitch, 5, origin, vol);
	ok &= same(hv2, hv2_want, "cudaMemcpy3DAsync D2H (default kind)");
	// D2D into a second volume, and H2H.
	cudaPitchedPtr dv2;
	CHECK_CUDA(cudaMalloc3D(&dv2, vol));
	std::vector<unsigned char> v2image(dv2.pitch * 5 * 4), v2got(v2image.size());
	fill_random(v2image, 9);
	CHECK_CUDA(cudaMemcpy(dv2.ptr, v2image.data(), v2image.size(), cudaMemcpyHostToDevice));
	p = {};
	p.srcPtr = dv;
	p.srcPos = make_cudaPos(1, 2, 1);
	p.dstPtr = dv2;
	p.dstPos = make_cudaPos(0, 0, 2);
	p.extent = make_cudaExtent(95, 3, 2);
	p.kind = cudaMemcpyDeviceToDevice;
	CHECK_CUDA(cudaMemcpy3D(&p));
	ref_copy(v2image.data(), dv2.pitch, 5, p.dstPos, vimage.data(), dv.pitch, 5, p.srcPos,
		 p.extent);
	CHECK_CUDA(cudaMemcpy(v2got.data(), dv2.ptr, v2got.size(), cudaMemcpyDeviceToHost));
	ok &= same(v2got, v2image, "cudaMemcpy3D D2D");
	std::vector<unsigned char> hv3(hp * hy * hz), hv3_want;
	fill_random(hv3, 10);
	hv3_want = hv3;
	p = {};
	p.srcPtr = make_cudaPitchedPtr(hv.data(), hp, 100, hy);
	p.dstPtr = make_cudaPitchedPtr(hv3.data(), hp, 100, hy);
	p.dstPos = make_cudaPos(10, 3, 1);
	p.extent = make_cudaExtent(50, 4, 4);
	p.kind = cudaMemcpyHostToHost;
	CHECK_CUDA(cudaMemcpy3D(&p));
	ref_copy(hv3_want.data(), hp, hy, p.dstPos, hv.data(), hp, hy, origin, p.extent);
	ok &= same(hv3, hv3_want, "cudaMemcpy3D H2H");
	// Memset3D of a 40 x 3 x 2 box at slice 1, row 1, byte 0 (pitched ptr moved there).
	cudaPitchedPtr at = dv;
	at.ptr = (char *)dv.ptr + (1 * dv.ysize + 1) * dv.pitch;
	CHECK_CUDA(cudaMemset3D(at, 0x77, make_cudaExtent(40, 3, 2)));
	for (size_t z = 1; z < 3; ++z)
		for (size_t y = 1; y < 4; ++y)
			std::memset(&vimage[(z * 5 + y) * dv.pitch], 0x77, 40);
	CHECK_CUDA(cudaMemset3DAsync(dv, 0x01, make_cudaExtent(dv.pitch, 1, 1), stream));
	CHECK_CUDA(cudaStreamSynchronize(stream));
	std::memset(vimage.data(), 0x01, dv.pitch);
	CHECK_CUDA(cudaMemcpy(vgot.data(), dv.ptr, vgot.size(), cudaMemcpyDeviceToHost));
	ok &= same(vgot, vimage, "cudaMemset3D");

	// Errors, as CUDA returns them.
	ok &= expect_error(cudaMemcpy2D(d1, 100, host.data(), hpitch, 101, 2, cudaMemcpyHostToDevice),
			   cudaErrorInvalidPitchValue, "width > dpitch");
	ok &= expect_error(cudaMemcpy2D(d1, p1, host.data(), 64, 100, 2, cudaMemcpyHostToDevice),
			   cudaErrorInvalidPitchValue, "width > spitch");
	ok &= expect_error(cudaMemcpy2D(nullptr, p1, host.data(), hpitch, 10, 2, cudaMemcpyHostToDevice),
			   cudaErrorInvalidValue, "NULL dst");
	ok &= expect_error(cudaMemcpy2D(d1, p1, host.data(), hpitch, 10, 2, (cudaMemcpyKind)7),
			   cudaErrorInvalidMemcpyDirection, "bad kind");
	ok &= expect_error(cudaMemset2D(d1, 16, 0, 17, 2), cudaErrorInvalidValue,
			   "memset width > pitch");
	p = {};
	p.srcArray = (cudaArray_t)d1;
	p.dstPtr = dv;
	p.extent = make_cudaExtent(1, 1, 1);
	p.kind = cudaMemcpyDeviceToDevice;
	ok &= expect_error(cudaMemcpy3D(&p), cudaErrorInvalidValue, "a CUDA array");
	p.srcArray = nullptr;
	ok &= expect_error(cudaMemcpy3D(&p), cudaErrorInvalidValue, "NULL srcPtr");
	p.srcPtr = dv;
	p.srcPos = make_cudaPos(dv.pitch - 10, 0, 0);
	p.extent = make_cudaExtent(11, 1, 1);
	ok &= expect_error(cudaMemcpy3D(&p), cudaErrorInvalidPitchValue, "x + width > pitch");
	p.srcPos = origin;
	p.extent = make_cudaExtent(8, 6, 2);
	ok &= expect_error(cudaMemcpy3D(&p), cudaErrorInvalidValue, "height > ysize");
	ok &= expect_error(cudaMemcpy3D(nullptr), cudaErrorInvalidValue, "NULL parameters");
	ok &= expect_error(cudaMallocPitch((void **)nullptr, &p1, 10, 10), cudaErrorInvalidValue,
			   "NULL devPtr");
	// Nothing changed by the refused calls.
	CHECK_CUDA(cudaMemcpy(vgot.data(), dv.ptr, vgot.size(), cudaMemcpyDeviceToHost));
	ok &= same(vgot, vimage, "volume after refused calls");
	ok &= std::strcmp(cudaGetErrorString(cudaErrorInvalidPitchValue), "invalid pitch argument") == 0;

	CHECK_CUDA(cudaStreamDestroy(stream));
	CHECK_CUDA(cudaFree(d1));
	CHECK_CUDA(cudaFree(d2));
	CHECK_CUDA(cudaFree(dv.ptr));
	CHECK_CUDA(cudaFree(dv2.ptr));
	return report("memcpy_pitched", ok);
}
