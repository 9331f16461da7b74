/* SPDX-License-Identifier: MIT */
/*
 * One block solves M x = alpha b in place for a triangular n x n M given as
 * a MatrixView of A (trsv: one block; trsm: a block per right-hand side).
 * Column by column: x_j is final once the columns before it are applied,
 * then every thread takes its share of the update of the rest, so the
 * block synchronises twice per column and reads M a column at a time.
 */
#ifndef SIMTGPU_LIBS_CUBLAS_TRIANGULAR_SOLVE_H
#define SIMTGPU_LIBS_CUBLAS_TRIANGULAR_SOLVE_H

#include "blas_internal.h"

namespace simtblas {

// lower: whether M (op(A) as the view gives it) is lower triangular.
template <class T>
__device__ void block_triangular_solve(const T *A, MatrixView m_view, bool lower, bool unit_diag,
                                       int n, T alpha, T *x, long long x_stride) {
    if (is_zero(alpha)) { // BLAS: A is not read
        for (int i = threadIdx.x; i < n; i += blockDim.x)
            x[i * x_stride] = zero<T>();
        return;
    }
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        x[i * x_stride] = alpha * x[i * x_stride];
    __syncthreads();
    for (int step = 0; step < n; ++step) {
        const int j = lower ? step : n - 1 - step;
        if (threadIdx.x == 0 && !unit_diag)
            x[j * x_stride] = x[j * x_stride] / element(A, m_view, j, j);
        __syncthreads();
        const T xj = x[j * x_stride];
        const int first = lower ? j + 1 : 0, end = lower ? n : j;
        for (int i = first + threadIdx.x; i < end; i += blockDim.x)
            x[i * x_stride] = x[i * x_stride] - element(A, m_view, i, j) * xj;
        __syncthreads();
    }
}

} // namespace simtblas

#endif
