// SPDX-License-Identifier: MIT
// The driver API's virtual memory management, as cudaCompressibleMemory and
// allocators that grow a buffer in place use it: reserve a range of
// addresses, create allocations, map them side by side into the range, give
// the device access, run kernels over the whole range, then unmap, release
// and free. Results are checked against the same arithmetic on the host;
// device attributes and bad calls are checked too.
#include "test_util.h"

#include <cuda.h>

#include <cstdint>
#include <string>
#include <vector>

__global__ void fill(unsigned *v, size_t n, unsigned seed)
{
	size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
	if (i < n)
		v[i] = unsigned(i) * 2654435761u + seed;
}

__global__ void add(const unsigned *a, unsigned *b, size_t n)
{
	size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
	if (i < n)
		b[i] += a[i];
}

#define CHECK_CU(call)                                                               \
	do {                                                                         \
		CUresult r_ = (call);                                                \
		if (r_ != CUDA_SUCCESS) {                                            \
			const char *name_ = nullptr;                                 \
			cuGetErrorName(r_, &name_);                                  \
			std::printf("%s:%d: %s: %s\n", __FILE__, __LINE__, #call,    \
				    name_ ? name_ : "?");                            \
			return 1;                                                    \
		}                                                                    \
	} while (0)

int main()
{
	bool ok = true;
	CHECK_CUDA(cudaSetDevice(0));
	CUdevice dev = -1;
	CHECK_CU(cuCtxGetDevice(&dev));
	ok &= dev == 0;
	int vmm = 0, compression = 1, major = 0, sms = 0, runtime_sms = 0;
	CHECK_CU(cuDeviceGetAttribute(&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_ADDRESS_MANAGEMENT_SUPPORTED, dev));
	CHECK_CU(cuDeviceGetAttribute(&compression, CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED, dev));
	CHECK_CU(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
	CHECK_CU(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));
	CHECK_CUDA(cudaDeviceGetAttribute(&runtime_sms, cudaDevAttrMultiProcessorCount, 0));
	ok &= vmm == 1 && compression == 0 && major >= 1 && sms == runtime_sms;

	CUmemAllocationProp prop = {};
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = dev;
	size_t granularity = 0;
	CHECK_CU(cuMemGetAllocationGranularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
	ok &= granularity > 0 && (granularity & (granularity - 1)) == 0;

	// Three allocations mapped end to end in one reserved range of four.
	const size_t piece = 2 * granularity, pieces = 3;
	CUdeviceptr base = 0;
	CHECK_CU(cuMemAddressReserve(&base, (pieces + 1) * piece, 0, 0, 0));
	ok &= base % granularity == 0;
	std::vector<CUmemGenericAllocationHandle> handles(pieces);
	for (size_t i = 0; i < pieces; ++i) {
		CHECK_CU(cuMemCreate(&handles[i], piece, &prop, 0));
		CUmemAllocationProp got = {};
		CHECK_CU(cuMemGetAllocationPropertiesFromHandle(&got, handles[i]));
		ok &= got.type == CU_MEM_ALLOCATION_TYPE_PINNED && got.location.id == dev &&
		      got.allocFlags.compressionType == CU_MEM_ALLOCATION_COMP_NONE;
		CHECK_CU(cuMemMap(base + i * piece, piece, 0, handles[i], 0));
	}
	// The first handle is released at once, the others after unmapping.
	CHECK_CU(cuMemRelease(handles[0]));
	CUmemAccessDesc access = {};
	access.location = prop.location;
	access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	CHECK_CU(cuMemSetAccess(base, pieces * piece, &access, 1));

	const size_t n = pieces * piece / sizeof(unsigned);
	unsigned *v = reinterpret_cast<unsigned *>(base);
	unsigned *other = nullptr;
	CHECK_CUDA(cudaMalloc(&other, n * sizeof(unsigned)));
	fill<<<unsigned((n + 255) / 256), 256>>>(v, n, 7);
	CHECK_LAUNCH();
	fill<<<unsigned((n + 255) / 256), 256>>>(other, n, 1000);
	CHECK_LAUNCH();
	add<<<unsigned((n + 255) / 256), 256>>>(other, v, n);
	CHECK_LAUNCH();
	std::vector<unsigned> host(n);
	// A copy lies within one allocation here (docs/cuda-runtime.md).
	for (size_t i = 0; i < pieces; ++i)
		CHECK_CUDA(cudaMemcpy(host.data() + i * piece / 4, v + i * piece / 4, piece,
				      cudaMemcpyDefault));
	for (size_t i = 0; i < n; ++i)
		ok &= host[i] == 2 * (unsigned(i) * 2654435761u) + 1007u;
	// The runtime sees mapped memory as device memory.
	cudaPointerAttributes attrs;
	CHECK_CUDA(cudaPointerGetAttributes(&attrs, v + n - 1));
	ok &= attrs.type == cudaMemoryTypeDevice;

	// Bad calls: each fails with the code CUDA gives, nothing changes.
	CUmemGenericAllocationHandle extra = 0;
	CHECK_CU(cuMemCreate(&extra, piece, &prop, 0));
	ok &= cuMemMap(base, piece, 0, extra, 0) == CUDA_ERROR_ALREADY_MAPPED; // taken
	ok &= cuMemMap(base + pieces * piece + 4096, piece, 0, extra, 0) == CUDA_ERROR_INVALID_VALUE;
	ok &= cuMemMap(base + (pieces + 1) * piece, piece, 0, extra, 0) ==
	      CUDA_ERROR_INVALID_VALUE; // outside the reservation
	ok &= cuMemMap(base + pieces * piece, piece, granularity, extra, 0) ==
	      CUDA_ERROR_NOT_SUPPORTED; // part of an allocation
	ok &= cuMemCreate(&extra, piece + 1, &prop, 0) == CUDA_ERROR_INVALID_VALUE;
	CUmemAllocationProp shared_prop = prop;
	shared_prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
	ok &= cuMemCreate(&extra, piece, &shared_prop, 0) == CUDA_ERROR_NOT_SUPPORTED;
	ok &= cuMemRelease(handles[0]) == CUDA_ERROR_INVALID_VALUE; // released already
	ok &= cuMemUnmap(base, piece + granularity) == CUDA_ERROR_INVALID_VALUE;
	ok &= cuMemAddressFree(base, (pieces + 1) * piece) == CUDA_ERROR_INVALID_VALUE; // mapped
	access.flags = CU_MEM_ACCESS_FLAGS_PROT_READ;
	ok &= cuMemSetAccess(base, piece, &access, 1) == CUDA_ERROR_NOT_SUPPORTED;
	access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	ok &= cuMemSetAccess(base + pieces * piece, piece, &access, 1) == CUDA_ERROR_INVALID_VALUE;
	size_t dummy = 0;
	ok &= cuMemGetAllocationGranularity(&dummy, nullptr, CU_MEM_ALLOC_GRANULARITY_MINIMUM) ==
	      CUDA_ERROR_INVALID_VALUE;
	int value = 0;
	ok &= cuDeviceGetAttribute(&value, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 99) ==
	      CUDA_ERROR_INVALID_DEVICE;
	const char *name = nullptr;
	CHECK_CU(cuGetErrorName(CUDA_ERROR_ALREADY_MAPPED, &name));
	ok &= name && std::string(name) == "CUDA_ERROR_ALREADY_MAPPED";

	// The fourth slot: map, use, unmap the extra allocation on its own.
	CHECK_CU(cuMemMap(base + pieces * piece, piece, 0, extra, 0));
	CHECK_CU(cuMemSetAccess(base + pieces * piece, piece, &access, 1));
	unsigned *w = reinterpret_cast<unsigned *>(base + pieces * piece);
	fill<<<unsigned((piece / 4 + 255) / 256), 256>>>(w, piece / 4, 3);
	CHECK_LAUNCH();
	std::vector<unsigned> tail(piece / 4);
	CHECK_CUDA(cudaMemcpy(tail.data(), w, piece, cudaMemcpyDeviceToHost));
	for (size_t i = 0; i < tail.size(); ++i)
		ok &= tail[i] == unsigned(i) * 2654435761u + 3u;
	CHECK_CU(cuMemUnmap(base + pieces * piece, piece));
	CHECK_CU(cuMemRelease(extra));

	// Everything goes; the range can be reserved and used again.
	CHECK_CU(cuMemUnmap(base, pieces * piece));
	for (size_t i = 1; i < pieces; ++i)
		CHECK_CU(cuMemRelease(handles[i]));
	CHECK_CU(cuMemAddressFree(base, (pieces + 1) * piece));
	ok &= cuMemAddressFree(base, (pieces + 1) * piece) == CUDA_ERROR_INVALID_VALUE;
	CUdeviceptr again = 0;
	CHECK_CU(cuMemAddressReserve(&again, piece, 0, base, 0));
	ok &= again == base; // the address asked for, free again
	CHECK_CU(cuMemAddressFree(again, piece));
	CHECK_CUDA(cudaFree(other));
	return report("virtual_memory", ok);
}
