// cuFFT inside libcufft: a plan, and the one function that executes it
// (fft.cu). A transform is gathered from the caller's layout into a work
// buffer of complex numbers in the plan's logical shape, transformed along
// each axis in place by radix stages (Stockham's autosort, radices 2-61)
// or, for a length with a larger prime factor, by Bluestein's chirp
// convolution over a power of two, and scattered to the caller's output
// layout (docs/libraries.md, "cuFFT").
#pragma once

#include "cufft.h"

#include <cstddef>
#include <vector>

namespace simtgpu::cufftlib {

inline constexpr int kMaxRadix = 61; // a larger prime factor: Bluestein
inline constexpr int kMaxRank = 3;

// A data layout (cuFFT's advanced layout): element (i0, i1, i2) of batch b
// at b * dist + ((i0 * embed[1] + i1) * embed[2] + i2) * stride.
struct Layout {
    long long embed[kMaxRank] = {};
    long long stride = 1, dist = 0;
};

// The logical shape of one side of a transform: the plan's lengths, the
// last one n / 2 + 1 on the complex side of a real transform.
struct Shape {
    int rank = 1;
    long long n[kMaxRank] = {};
    __host__ __device__ long long count() const
    {
        long long c = 1;
        for (int i = 0; i < rank; ++i)
            c *= n[i];
        return c;
    }
};

struct Axis {
    long long n = 0;      // its length
    long long stride = 0; // its elements' distance in the work buffer
    std::vector<int> radices; // the stages (of bluestein_m for Bluestein)
    long long bluestein_m = 0; // 0: direct stages; else the convolution's length
    void *filter[2] = {};      // Bluestein: FFT of the conjugate chirp, forward/inverse
};

struct Plan {
    bool made = false;
    cufftType type = CUFFT_C2C;
    bool dbl = false; // double precision
    Shape shape;      // the transform's lengths
    long long batch = 1;
    Layout in, out;
    bool in_default = true, out_default = true; // no inembed/onembed given
    std::vector<Axis> axes;
    long long bluestein_elements = 0; // the largest Bluestein buffer, in complex numbers
    cudaStream_t stream = nullptr;
    bool auto_allocate = true;
    void *work = nullptr;
    bool own_work = false;
    size_t work_bytes = 0;
};

// The radices of n in the order the stages apply them; empty if n has a
// prime factor above kMaxRadix.
std::vector<int> radices_of(long long n);

// Makes the Bluestein filters of the plan's axes that need them.
cudaError_t make_filters(Plan &plan);
void free_filters(Plan &plan);

// Executes the plan on `in` to `out` (sign: CUFFT_FORWARD or CUFFT_INVERSE).
cudaError_t execute(const Plan &plan, const void *in, void *out, int sign);

} // namespace simtgpu::cufftlib
