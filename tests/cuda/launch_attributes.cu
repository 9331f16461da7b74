// SPDX-License-Identifier: MIT
// Stream and launch attributes (issue 16): CUDA's stream priority range
// (least 0, the default; greatest below it) and clamping outside it;
// the access policy window kept per stream and its refused values; the L2
// limits; and a __grid_constant__ kernel parameter of 32000 bytes (as
// LargeKernelParameter passes), summed on the device against the CPU.
#include "test_util.h"

struct Large {
	int v[8000];
};

__global__ void sum_param(__grid_constant__ const Large p, long long *out)
{
	long long s = 0;
	for (int i = 0; i < 8000; ++i)
		s += p.v[i];
	*out = s;
}

int main()
{
	bool ok = true;
	int least = 7, greatest = 7;
	CHECK_CUDA(cudaDeviceGetStreamPriorityRange(&least, &greatest));
	ok = expect(least == 0 && greatest < least, "the least priority is 0, the greatest below") && ok;
	cudaStream_t s;
	CHECK_CUDA(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, greatest - 10));

	cudaStreamAttrValue w{};
	CHECK_CUDA(cudaStreamGetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &w));
	ok = expect(w.accessPolicyWindow.num_bytes == 0, "no window by default") && ok;
	long long *out;
	CHECK_CUDA(cudaMalloc(&out, sizeof(long long)));
	w.accessPolicyWindow.base_ptr = out;
	w.accessPolicyWindow.num_bytes = sizeof(long long);
	w.accessPolicyWindow.hitRatio = 0.6f;
	w.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
	w.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
	CHECK_CUDA(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &w));
	cudaStreamAttrValue back{};
	CHECK_CUDA(cudaStreamGetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &back));
	ok = expect(back.accessPolicyWindow.base_ptr == out && back.accessPolicyWindow.hitRatio == 0.6f &&
			    back.accessPolicyWindow.hitProp == cudaAccessPropertyPersisting,
		    "the window set is the window read") &&
	     ok;
	cudaStreamAttrValue bad = w;
	bad.accessPolicyWindow.hitRatio = 1.5f;
	ok = expect(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &bad) ==
			    cudaErrorInvalidValue,
		    "a hit ratio above 1 is refused") &&
	     ok;
	bad = w;
	bad.accessPolicyWindow.missProp = cudaAccessPropertyPersisting;
	ok = expect(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &bad) ==
			    cudaErrorInvalidValue,
		    "a persisting miss property is refused") &&
	     ok;
	cudaGetLastError();
	cudaDeviceProp prop;
	CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
	CHECK_CUDA(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, prop.persistingL2CacheMaxSize));
	size_t limit = 1;
	CHECK_CUDA(cudaDeviceGetLimit(&limit, cudaLimitPersistingL2CacheSize));
	ok = expect(limit == size_t(prop.persistingL2CacheMaxSize), "the persisting L2 limit") && ok;
	CHECK_CUDA(cudaCtxResetPersistingL2Cache());

	static Large p;
	long long want = 0;
	Rng rng(3);
	for (int &v : p.v) {
		v = rng.range(-1000000, 1000000);
		want += v;
	}
	sum_param<<<1, 1, 0, s>>>(p, out);
	CHECK_LAUNCH();
	long long got = 0;
	CHECK_CUDA(cudaMemcpy(&got, out, sizeof(got), cudaMemcpyDeviceToHost));
	ok = expect(got == want, "the 32000-byte parameter's sum") && ok;
	CHECK_CUDA(cudaStreamDestroy(s));
	return report("launch_attributes", ok);
}
