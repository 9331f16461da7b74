// SPDX-License-Identifier: MIT
// A stream that waits for another stream's event, with no work of its own
// queued after the wait, is still ordered after that event (issue 16; found
// with cuda-samples' graphMemoryNodes): a copy from the device into pageable
// memory on it sees what the other stream's kernel wrote, and synchronising it
// waits for that kernel (the event is complete afterwards); and an event
// destroyed while a stream still waits for it leaves that stream's next work
// able to run. Against the CPU.
#include "test_util.h"

constexpr int kN = 256;

// Long enough that the host gets ahead of it.
__global__ void slow_square(const int *a, int *b)
{
	int i = threadIdx.x;
	int v = 0;
	for (int k = 0; k < 100000; ++k)
		v = a[i] * a[i] + (k & 0);
	b[i] = v;
}

int main()
{
	int h[kN], out[kN];
	for (int i = 0; i < kN; ++i)
		h[i] = i - 100;
	cudaStream_t s, s2;
	CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	CHECK_CUDA(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
	cudaEvent_t e;
	CHECK_CUDA(cudaEventCreate(&e));
	int *a, *b;
	CHECK_CUDA(cudaMalloc(&a, sizeof(h)));
	CHECK_CUDA(cudaMalloc(&b, sizeof(h)));
	bool ok = true;
	for (int round = 0; round < 2; ++round) {
		CHECK_CUDA(cudaMemset(b, 0, sizeof(h)));
		CHECK_CUDA(cudaMemcpy(a, h, sizeof(h), cudaMemcpyHostToDevice));
		slow_square<<<1, kN, 0, s>>>(a, b);
		CHECK_CUDA(cudaEventRecord(e, s));
		CHECK_CUDA(cudaStreamWaitEvent(s2, e, 0));
		if (round == 0) {
			CHECK_CUDA(cudaMemcpyAsync(out, b, sizeof(out), cudaMemcpyDeviceToHost, s2));
		} else {
			CHECK_CUDA(cudaStreamSynchronize(s2));
			ok = ok && cudaEventQuery(e) == cudaSuccess;
			CHECK_CUDA(cudaMemcpy(out, b, sizeof(out), cudaMemcpyDeviceToHost));
		}
		for (int i = 0; i < kN; ++i)
			if (out[i] != h[i] * h[i]) {
				std::printf("round %d: out[%d] = %d, want %d\n", round, i, out[i], h[i] * h[i]);
				ok = false;
				break;
			}
		CHECK_CUDA(cudaDeviceSynchronize());
	}
	// The wait's event goes before the stream has more work.
	cudaEvent_t gone;
	CHECK_CUDA(cudaEventCreate(&gone));
	slow_square<<<1, kN, 0, s>>>(a, b);
	CHECK_CUDA(cudaEventRecord(gone, s));
	CHECK_CUDA(cudaStreamWaitEvent(s2, gone, 0));
	CHECK_CUDA(cudaEventDestroy(gone));
	CHECK_CUDA(cudaMemsetAsync(a, 0, sizeof(h), s2));
	CHECK_CUDA(cudaStreamSynchronize(s2));
	CHECK_CUDA(cudaMemcpy(out, a, sizeof(out), cudaMemcpyDeviceToHost));
	ok = ok && out[0] == 0 && out[kN - 1] == 0;
	return report("stream_wait_host", ok);
}
