// a * b + c in device code: clang's CUDA mode contracts it into a fused
// multiply-add unless nvcc's -fmad=false says not to.
__global__ void axpb(float *p) { p[0] = p[1] * p[2] + p[3]; }
