// Two kernels, shared memory and a byval struct: the driver tests inspect
// the device image simtcc makes of it.
struct Pair {
	int a;
	double b;
};

__global__ void scale(float *x, float s, int n)
{
	__shared__ float tile[32];
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	tile[threadIdx.x % 32] = i < n ? x[i] : 0.0f;
	__syncthreads();
	if (i < n)
		x[i] = tile[threadIdx.x % 32] * s;
}

__global__ void add_pair(Pair p, double *out) { out[threadIdx.x] = p.a + p.b; }
