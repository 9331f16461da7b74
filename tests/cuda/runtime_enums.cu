// SPDX-License-Identifier: MIT
// The runtime API's enumerators as CUDA 11.8/12 number them (Thrust's
// error.h names every cudaError_t), their names and messages, and the
// cache and shared-memory-bank preferences CUB's radix rank sets: what was
// set is read back, and an enumerator out of range is cudaErrorInvalidValue.
#include <cstring>

#include "test_util.h"

__global__ void nothing() {}

int main()
{
	bool ok = true;
	struct {
		cudaError_t value;
		int number;
		const char *name;
	} errors[] = {
		{cudaErrorPriorLaunchFailure, 53, "cudaErrorPriorLaunchFailure"},
		{cudaErrorAddressOfConstant, 22, "cudaErrorAddressOfConstant"},
		{cudaErrorTextureFetchFailed, 23, "cudaErrorTextureFetchFailed"},
		{cudaErrorMapBufferObjectFailed, 205, "cudaErrorMapBufferObjectFailed"},
		{cudaErrorSynchronizationError, 25, "cudaErrorSynchronizationError"},
		{cudaErrorLaunchPendingCountExceeded, 69, "cudaErrorLaunchPendingCountExceeded"},
		{cudaErrorInvalidPtx, 218, "cudaErrorInvalidPtx"},
		{cudaErrorPeerAccessAlreadyEnabled, 704, "cudaErrorPeerAccessAlreadyEnabled"},
		{cudaErrorMpsClientTerminated, 810, "cudaErrorMpsClientTerminated"},
		{cudaErrorTimeout, 909, "cudaErrorTimeout"},
		{cudaErrorInvalidClusterSize, 912, "cudaErrorInvalidClusterSize"},
	};
	for (const auto &e : errors) {
		bool same = int(e.value) == e.number && !std::strcmp(cudaGetErrorName(e.value), e.name) &&
			    std::strcmp(cudaGetErrorString(e.value), "unrecognized error code") != 0;
		if (!same)
			std::printf("%s: number %d (want %d), name %s\n", e.name, int(e.value), e.number,
				    cudaGetErrorName(e.value));
		ok &= expect(same, "cudaError_t number, name and message");
	}
	ok &= expect(!std::strcmp(cudaGetErrorName(cudaError_t(12345)), "unrecognized error code"),
		     "an unknown error code is named so");

	cudaSharedMemConfig bank;
	CHECK_CUDA(cudaDeviceGetSharedMemConfig(&bank));
	ok &= expect(bank == cudaSharedMemBankSizeFourByte, "default bank size is 4 bytes");
	CHECK_CUDA(cudaDeviceSetSharedMemConfig(cudaSharedMemBankSizeEightByte));
	CHECK_CUDA(cudaDeviceGetSharedMemConfig(&bank));
	ok &= expect(bank == cudaSharedMemBankSizeEightByte, "bank size set is read back");
	ok &= expect(cudaDeviceSetSharedMemConfig(cudaSharedMemConfig(7)) == cudaErrorInvalidValue,
		     "a bank size out of range is cudaErrorInvalidValue");
	cudaGetLastError();
	CHECK_CUDA(cudaFuncSetSharedMemConfig(reinterpret_cast<const void *>(nothing),
					      cudaSharedMemBankSizeFourByte));
	CHECK_CUDA(cudaDeviceSetCacheConfig(cudaFuncCachePreferShared));
	cudaFuncCache cache;
	CHECK_CUDA(cudaDeviceGetCacheConfig(&cache));
	ok &= expect(cache == cudaFuncCachePreferShared, "cache preference set is read back");
	ok &= expect(cudaDeviceGetCacheConfig(nullptr) == cudaErrorInvalidValue,
		     "a null cache pointer is cudaErrorInvalidValue");
	cudaGetLastError();
	nothing<<<1, 1>>>();
	CHECK_LAUNCH();
	return report("runtime_enums", ok);
}
