// simt-doctor's tiny kernel: built into simt-doctor with -arch=simt_1 (runs
// on every device), and compiled again at run time with simtcc's defaults.
extern "C" __global__ void doctor_axpy(int n, int a, const int *x, int *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}
