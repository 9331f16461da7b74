// SPDX-License-Identifier: MIT
// NVTX annotations as real CUDA code writes them (cudaGraphsPerfScaling,
// most libraries): nvtx3's and the old include path, markers, push/pop and
// start/end ranges with attributes, a domain with a registered string and a
// category, names for threads, streams and devices, around a kernel whose
// result is checked against the CPU. No tool is attached, so NVTX answers
// as it does without one: push and pop return NVTX_NO_PUSH_POP_TRACKING
// (-2 in NVIDIA's nvToolsExt.h), range ids and handles are 0.
#include <cuda_runtime.h>
#include <nvToolsExt.h>
#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtCudaRt.h>

#include "test_util.h"

namespace {

// The RAII range libraries wrap NVTX in.
struct ScopedRange {
	explicit ScopedRange(const char *name) : level(nvtxRangePushA(name)) {}
	~ScopedRange() { nvtxRangePop(); }
	int level;
};

__global__ void cube(const int *in, int *out, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = in[i] * in[i] * in[i];
}

} // namespace

int main()
{
	bool ok = nvtxInitialize(nullptr) == NVTX_SUCCESS;
	nvtxNameOsThreadA(0, "main");
	nvtxNameCategoryA(1, "copies");
	nvtxDomainHandle_t domain = nvtxDomainCreateA("simtgpu.nvtx_test");
	nvtxStringHandle_t launch_name = nvtxDomainRegisterStringA(domain, "launch");
	nvtxDomainNameCategoryA(domain, 2, "kernels");

	const int n = 777;
	int in[n], out[n];
	for (int i = 0; i < n; ++i)
		in[i] = i % 50 - 25;
	int *din, *dout;
	cudaStream_t stream;
	CHECK_CUDA(cudaStreamCreate(&stream));
	nvtxNameCudaStreamA(stream, "work");
	nvtxNameCudaDeviceA(0, "simtgpu");
	{
		ScopedRange whole("whole run");
		ok &= whole.level == NVTX_NO_PUSH_POP_TRACKING;
		nvtxEventAttributes_t attributes = {};
		attributes.version = NVTX_VERSION;
		attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
		attributes.category = 1;
		attributes.colorType = NVTX_COLOR_ARGB;
		attributes.color = 0xff00ff00u;
		attributes.payloadType = NVTX_PAYLOAD_TYPE_INT32;
		attributes.payload.iValue = n;
		attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
		attributes.message.ascii = "copy in";
		nvtxRangeId_t copy_in = nvtxRangeStartEx(&attributes);
		CHECK_CUDA(cudaMalloc(&din, sizeof(in)));
		CHECK_CUDA(cudaMalloc(&dout, sizeof(out)));
		CHECK_CUDA(cudaMemcpyAsync(din, in, sizeof(in), cudaMemcpyHostToDevice, stream));
		nvtxRangeEnd(copy_in);
		ok &= copy_in == 0;

		attributes.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
		attributes.message.registered = launch_name;
		ok &= nvtxDomainRangePushEx(domain, &attributes) == NVTX_NO_PUSH_POP_TRACKING;
		nvtxDomainMarkEx(domain, &attributes);
		cube<<<(n + 127) / 128, 128, 0, stream>>>(din, dout, n);
		ok &= nvtxDomainRangePop(domain) == NVTX_NO_PUSH_POP_TRACKING;

		nvtxMarkA("launched");
		nvtxRangeId_t copy_out = nvtxRangeStartA("copy out");
		CHECK_CUDA(cudaMemcpyAsync(out, dout, sizeof(out), cudaMemcpyDeviceToHost, stream));
		CHECK_CUDA(cudaStreamSynchronize(stream));
		nvtxRangeEnd(copy_out);
	}
	ok &= nvtxRangePop() == NVTX_NO_PUSH_POP_TRACKING; // unbalanced: still no tracking
	nvtxDomainDestroy(domain);
	for (int i = 0; i < n; ++i)
		ok &= out[i] == in[i] * in[i] * in[i];
	CHECK_CUDA(cudaFree(din));
	CHECK_CUDA(cudaFree(dout));
	CHECK_CUDA(cudaStreamDestroy(stream));
	return report("nvtx", ok);
}
