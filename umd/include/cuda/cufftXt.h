/* SPDX-License-Identifier: MIT */
/*
 * cuFFT's extended API, the part a one-GPU program uses: plans whose data
 * types are cudaDataType (cufftXtMakePlanMany) and their execution
 * (cufftXtExec), in libcufft (docs/libraries.md). Multi-GPU descriptors,
 * callbacks and half precision are not there: they return
 * CUFFT_NOT_SUPPORTED with a message.
 */
#ifndef SIMTGPU_CUFFTXT_H
#define SIMTGPU_CUFFTXT_H
#define _CUFFTXT_H_

#include "cufft.h"
#include "library_types.h"

#ifdef __cplusplus
extern "C" {
#endif

cufftResult cufftXtMakePlanMany(cufftHandle plan, int rank, long long int *n,
                                long long int *inembed, long long int istride,
                                long long int idist, cudaDataType inputtype,
                                long long int *onembed, long long int ostride,
                                long long int odist, cudaDataType outputtype,
                                long long int batch, size_t *workSize,
                                cudaDataType executiontype);
cufftResult cufftXtGetSizeMany(cufftHandle plan, int rank, long long int *n,
                               long long int *inembed, long long int istride,
                               long long int idist, cudaDataType inputtype,
                               long long int *onembed, long long int ostride,
                               long long int odist, cudaDataType outputtype,
                               long long int batch, size_t *workSize,
                               cudaDataType executiontype);
cufftResult cufftXtExec(cufftHandle plan, void *input, void *output, int direction);

#ifdef __cplusplus
}
#endif

#endif /* SIMTGPU_CUFFTXT_H */
