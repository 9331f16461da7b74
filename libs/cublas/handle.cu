// SPDX-License-Identifier: MIT
// cuBLAS's helper functions: handles, their stream and modes, status names,
// and the host <-> device copies of vectors and matrices (docs/libraries.md).
#include "blas_internal.h"

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <set>

namespace simtblas {

namespace {

std::mutex live_handles_mutex;
std::set<cublasHandle_t> &live_handles() {
    static std::set<cublasHandle_t> handles;
    return handles;
}

void vreport(const char *function, const char *format, va_list args) {
    char message[512];
    vsnprintf(message, sizeof message, format, args);
    fprintf(stderr, "cuBLAS error: %s: %s\n", function, message);
}

} // namespace

// A handle is checked against the live set before it is dereferenced, so a
// destroyed or never-created handle is NOT_INITIALIZED rather than a crash.
bool handle_is_live(cublasHandle_t handle) {
    std::lock_guard<std::mutex> lock(live_handles_mutex);
    return live_handles().count(handle) != 0;
}

cublasStatus_t report(cublasStatus_t status, const char *function, const char *format, ...) {
    va_list args;
    va_start(args, format);
    vreport(function, format, args);
    va_end(args);
    return status;
}

ArgCheck::ArgCheck(const char *function, cublasHandle_t handle) : function_(function) {
    if (!handle_is_live(handle))
        fail(CUBLAS_STATUS_NOT_INITIALIZED,
             "handle %p is not a live cuBLAS handle: create one with cublasCreate first",
             (void *)handle);
}

ArgCheck &ArgCheck::fail(cublasStatus_t status, const char *format, ...) {
    if (!ok())
        return *this;
    status_ = status;
    va_list args;
    va_start(args, format);
    vreport(function_, format, args);
    va_end(args);
    return *this;
}

ArgCheck &ArgCheck::op(const char *name, cublasOperation_t value, bool conjugate_allowed) {
    if (value == CUBLAS_OP_N || value == CUBLAS_OP_T || (conjugate_allowed && value == CUBLAS_OP_C))
        return *this;
    return fail(CUBLAS_STATUS_INVALID_VALUE, "%s = %d is invalid: use %s", name, (int)value,
                conjugate_allowed ? "CUBLAS_OP_N, CUBLAS_OP_T or CUBLAS_OP_C"
                                  : "CUBLAS_OP_N or CUBLAS_OP_T (this routine is symmetric, "
                                    "not Hermitian)");
}

ArgCheck &ArgCheck::fill(const char *name, cublasFillMode_t value) {
    if (value == CUBLAS_FILL_MODE_LOWER || value == CUBLAS_FILL_MODE_UPPER)
        return *this;
    return fail(CUBLAS_STATUS_INVALID_VALUE,
                "%s = %d is invalid: use CUBLAS_FILL_MODE_LOWER or CUBLAS_FILL_MODE_UPPER", name,
                (int)value);
}

ArgCheck &ArgCheck::diag(const char *name, cublasDiagType_t value) {
    if (value == CUBLAS_DIAG_NON_UNIT || value == CUBLAS_DIAG_UNIT)
        return *this;
    return fail(CUBLAS_STATUS_INVALID_VALUE,
                "%s = %d is invalid: use CUBLAS_DIAG_NON_UNIT or CUBLAS_DIAG_UNIT", name,
                (int)value);
}

ArgCheck &ArgCheck::side(const char *name, cublasSideMode_t value) {
    if (value == CUBLAS_SIDE_LEFT || value == CUBLAS_SIDE_RIGHT)
        return *this;
    return fail(CUBLAS_STATUS_INVALID_VALUE,
                "%s = %d is invalid: use CUBLAS_SIDE_LEFT or CUBLAS_SIDE_RIGHT", name, (int)value);
}

ArgCheck &ArgCheck::nonnegative(const char *name, long long value) {
    if (value >= 0)
        return *this;
    return fail(CUBLAS_STATUS_INVALID_VALUE, "%s = %lld is invalid: it must be 0 or more", name,
                value);
}

ArgCheck &ArgCheck::leading_dimension(const char *name, long long value, const char *rows_name,
                                      long long rows) {
    const long long least = rows > 1 ? rows : 1;
    if (value >= least)
        return *this;
    return fail(CUBLAS_STATUS_INVALID_VALUE,
                "%s = %lld is invalid: it must be at least max(1, %s) = %lld (the stored matrix's "
                "rows, column-major)",
                name, value, rows_name, least);
}

ArgCheck &ArgCheck::increment(const char *name, int value) {
    if (value != 0)
        return *this;
    return fail(CUBLAS_STATUS_INVALID_VALUE,
                "%s = 0 is invalid: a vector's increment must be nonzero", name);
}

ArgCheck &ArgCheck::pointer(const char *name, const void *value, bool needed) {
    if (!needed || value)
        return *this;
    return fail(CUBLAS_STATUS_INVALID_VALUE, "%s is NULL: pass a valid pointer", name);
}

cublasStatus_t launched(const char *function) {
    const cudaError_t error = cudaGetLastError();
    if (error == cudaSuccess)
        return CUBLAS_STATUS_SUCCESS;
    return report(CUBLAS_STATUS_EXECUTION_FAILED, function, "kernel launch failed: %s (%s)",
                  cudaGetErrorName(error), cudaGetErrorString(error));
}

cublasStatus_t copy_result_to_host(const char *function, cublasHandle_t handle, void *result,
                                   size_t bytes) {
    cudaError_t error = cudaMemcpyAsync(result, handle->result_scratch, bytes,
                                        cudaMemcpyDeviceToHost, handle->stream);
    if (error == cudaSuccess)
        error = cudaStreamSynchronize(handle->stream);
    if (error == cudaSuccess)
        return CUBLAS_STATUS_SUCCESS;
    return report(CUBLAS_STATUS_EXECUTION_FAILED, function, "reading the result failed: %s (%s)",
                  cudaGetErrorName(error), cudaGetErrorString(error));
}

} // namespace simtblas

using namespace simtblas;

extern "C" {

cublasStatus_t cublasCreate_v2(cublasHandle_t *handle) {
    if (!handle)
        return report(CUBLAS_STATUS_INVALID_VALUE, "cublasCreate_v2",
                      "handle is NULL: pass the address of a cublasHandle_t");
    *handle = nullptr;
    void *scratch = nullptr;
    const cudaError_t error = cudaMalloc(&scratch, kResultScratchBytes);
    if (error == cudaErrorMemoryAllocation)
        return report(CUBLAS_STATUS_ALLOC_FAILED, "cublasCreate_v2",
                      "no device memory for the handle's %zu bytes", kResultScratchBytes);
    if (error != cudaSuccess)
        return report(CUBLAS_STATUS_NOT_INITIALIZED, "cublasCreate_v2",
                      "the CUDA runtime did not initialise: %s (%s)", cudaGetErrorName(error),
                      cudaGetErrorString(error));
    cublasHandle_t created = new cublasContext;
    created->result_scratch = scratch;
    int device = 0;
    if (cudaGetDevice(&device) == cudaSuccess)
        cudaDeviceGetAttribute(&created->sm_count, cudaDevAttrMultiProcessorCount, device);
    {
        std::lock_guard<std::mutex> lock(live_handles_mutex);
        live_handles().insert(created);
    }
    *handle = created;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasDestroy_v2(cublasHandle_t handle) {
    {
        std::lock_guard<std::mutex> lock(live_handles_mutex);
        if (!live_handles().erase(handle))
            return report(CUBLAS_STATUS_NOT_INITIALIZED, "cublasDestroy_v2",
                          "handle %p is not a live cuBLAS handle (destroyed twice?)",
                          (void *)handle);
    }
    // The handle's work finishes before its memory goes: cuBLAS's destroy
    // synchronises the device (the user may have destroyed the stream already).
    cudaDeviceSynchronize();
    cudaFree(handle->result_scratch);
    delete handle;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetVersion_v2(cublasHandle_t handle, int *version) {
    ArgCheck check("cublasGetVersion_v2", handle);
    check.pointer("version", version);
    if (!check.ok())
        return check.status();
    *version = CUBLAS_VERSION;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetProperty(libraryPropertyType type, int *value) {
    if (!value)
        return report(CUBLAS_STATUS_INVALID_VALUE, "cublasGetProperty", "value is NULL");
    switch (type) {
    case MAJOR_VERSION:
        *value = CUBLAS_VER_MAJOR;
        return CUBLAS_STATUS_SUCCESS;
    case MINOR_VERSION:
        *value = CUBLAS_VER_MINOR;
        return CUBLAS_STATUS_SUCCESS;
    case PATCH_LEVEL:
        *value = CUBLAS_VER_PATCH;
        return CUBLAS_STATUS_SUCCESS;
    }
    return report(CUBLAS_STATUS_INVALID_VALUE, "cublasGetProperty",
                  "type = %d is invalid: use MAJOR_VERSION, MINOR_VERSION or PATCH_LEVEL",
                  (int)type);
}

size_t cublasGetCudartVersion(void) {
    return CUDART_VERSION;
}

cublasStatus_t cublasSetWorkspace_v2(cublasHandle_t handle, void *workspace,
                                     size_t workspaceSizeInBytes) {
    ArgCheck check("cublasSetWorkspace_v2", handle);
    check.pointer("workspace", workspace, workspaceSizeInBytes > 0);
    if (check.ok() && (uintptr_t)workspace % 256 != 0)
        check.fail(CUBLAS_STATUS_INVALID_VALUE,
                   "workspace %p is not 256-byte aligned: cudaMalloc's pointers are", workspace);
    if (!check.ok())
        return check.status();
    handle->workspace = workspace;
    handle->workspace_bytes = workspaceSizeInBytes;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t streamId) {
    ArgCheck check("cublasSetStream_v2", handle);
    if (!check.ok())
        return check.status();
    handle->stream = streamId;
    // As CUDA 12's cuBLAS: a new stream returns the handle to its default workspace.
    handle->workspace = nullptr;
    handle->workspace_bytes = 0;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetStream_v2(cublasHandle_t handle, cudaStream_t *streamId) {
    ArgCheck check("cublasGetStream_v2", handle);
    check.pointer("streamId", streamId);
    if (!check.ok())
        return check.status();
    *streamId = handle->stream;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetPointerMode_v2(cublasHandle_t handle, cublasPointerMode_t *mode) {
    ArgCheck check("cublasGetPointerMode_v2", handle);
    check.pointer("mode", mode);
    if (!check.ok())
        return check.status();
    *mode = handle->pointer_mode;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetPointerMode_v2(cublasHandle_t handle, cublasPointerMode_t mode) {
    ArgCheck check("cublasSetPointerMode_v2", handle);
    if (check.ok() && mode != CUBLAS_POINTER_MODE_HOST && mode != CUBLAS_POINTER_MODE_DEVICE)
        check.fail(CUBLAS_STATUS_INVALID_VALUE,
                   "mode = %d is invalid: use CUBLAS_POINTER_MODE_HOST or "
                   "CUBLAS_POINTER_MODE_DEVICE",
                   (int)mode);
    if (!check.ok())
        return check.status();
    handle->pointer_mode = mode;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetAtomicsMode(cublasHandle_t handle, cublasAtomicsMode_t *mode) {
    ArgCheck check("cublasGetAtomicsMode", handle);
    check.pointer("mode", mode);
    if (!check.ok())
        return check.status();
    *mode = handle->atomics_mode;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetAtomicsMode(cublasHandle_t handle, cublasAtomicsMode_t mode) {
    ArgCheck check("cublasSetAtomicsMode", handle);
    if (check.ok() && mode != CUBLAS_ATOMICS_NOT_ALLOWED && mode != CUBLAS_ATOMICS_ALLOWED)
        check.fail(CUBLAS_STATUS_INVALID_VALUE,
                   "mode = %d is invalid: use CUBLAS_ATOMICS_NOT_ALLOWED or CUBLAS_ATOMICS_ALLOWED",
                   (int)mode);
    if (!check.ok())
        return check.status();
    handle->atomics_mode = mode;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetMathMode(cublasHandle_t handle, cublasMath_t *mode) {
    ArgCheck check("cublasGetMathMode", handle);
    check.pointer("mode", mode);
    if (!check.ok())
        return check.status();
    *mode = handle->math_mode;
    return CUBLAS_STATUS_SUCCESS;
}

// The modes are kept and reported; every routine computes in its full
// precision whatever the mode allows (docs/libraries.md).
cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode) {
    ArgCheck check("cublasSetMathMode", handle);
    const int base = (int)mode & ~(int)CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION;
    if (check.ok() && (base < CUBLAS_DEFAULT_MATH || base > CUBLAS_TF32_TENSOR_OP_MATH))
        check.fail(CUBLAS_STATUS_INVALID_VALUE,
                   "mode = %d is invalid: use CUBLAS_DEFAULT_MATH, CUBLAS_TENSOR_OP_MATH, "
                   "CUBLAS_PEDANTIC_MATH or CUBLAS_TF32_TENSOR_OP_MATH, optionally with "
                   "CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION",
                   (int)mode);
    if (!check.ok())
        return check.status();
    handle->math_mode = mode;
    return CUBLAS_STATUS_SUCCESS;
}

const char *cublasGetStatusName(cublasStatus_t status) {
    switch (status) {
    case CUBLAS_STATUS_SUCCESS:
        return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED:
        return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED:
        return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE:
        return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH:
        return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_MAPPING_ERROR:
        return "CUBLAS_STATUS_MAPPING_ERROR";
    case CUBLAS_STATUS_EXECUTION_FAILED:
        return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR:
        return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED:
        return "CUBLAS_STATUS_NOT_SUPPORTED";
    case CUBLAS_STATUS_LICENSE_ERROR:
        return "CUBLAS_STATUS_LICENSE_ERROR";
    }
    return "CUBLAS_STATUS_UNKNOWN";
}

const char *cublasGetStatusString(cublasStatus_t status) {
    switch (status) {
    case CUBLAS_STATUS_SUCCESS:
        return "success";
    case CUBLAS_STATUS_NOT_INITIALIZED:
        return "the library was not initialized";
    case CUBLAS_STATUS_ALLOC_FAILED:
        return "the resource allocation failed";
    case CUBLAS_STATUS_INVALID_VALUE:
        return "an invalid numeric value was used as an argument";
    case CUBLAS_STATUS_ARCH_MISMATCH:
        return "an absent device architectural feature is required";
    case CUBLAS_STATUS_MAPPING_ERROR:
        return "an access to GPU memory space failed";
    case CUBLAS_STATUS_EXECUTION_FAILED:
        return "the GPU program failed to execute";
    case CUBLAS_STATUS_INTERNAL_ERROR:
        return "an internal operation failed";
    case CUBLAS_STATUS_NOT_SUPPORTED:
        return "the functionality requested is not supported";
    case CUBLAS_STATUS_LICENSE_ERROR:
        return "error detected trying to check the license";
    }
    return "unknown error";
}

} // extern "C"

// ---- Host <-> device copies (no handle: cuBLAS's own checks, then cudaMemcpy2D) ----

namespace {

// rows x cols elements of elem_size bytes, the source's columns ld_src
// elements apart and the destination's ld_dst; a vector is rows = 1 with
// its increments as leading dimensions.
cublasStatus_t copy_matrix(const char *function, int rows, int cols, int elem_size, const void *src,
                           int ld_src, const char *ld_src_name, void *dst, int ld_dst,
                           const char *ld_dst_name, bool is_vector, cudaStream_t stream,
                           bool async) {
    if (is_vector && cols < 0)
        return report(CUBLAS_STATUS_INVALID_VALUE, function,
                      "n = %d is invalid: it must be 0 or more", cols);
    if (rows < 0 || cols < 0)
        return report(CUBLAS_STATUS_INVALID_VALUE, function,
                      "rows = %d, cols = %d: both must be 0 or more", rows, cols);
    if (elem_size <= 0)
        return report(CUBLAS_STATUS_INVALID_VALUE, function,
                      "elemSize = %d is invalid: it must be the element's size in bytes",
                      elem_size);
    if (is_vector) {
        if (ld_src <= 0 || ld_dst <= 0)
            return report(CUBLAS_STATUS_INVALID_VALUE, function,
                          "%s = %d, %s = %d: increments must be more than 0", ld_src_name, ld_src,
                          ld_dst_name, ld_dst);
    } else if (ld_src < (rows > 1 ? rows : 1) || ld_dst < (rows > 1 ? rows : 1)) {
        return report(CUBLAS_STATUS_INVALID_VALUE, function,
                      "%s = %d, %s = %d: leading dimensions must be at least max(1, rows) = %d",
                      ld_src_name, ld_src, ld_dst_name, ld_dst, rows > 1 ? rows : 1);
    }
    if (rows == 0 || cols == 0)
        return CUBLAS_STATUS_SUCCESS;
    if (!src || !dst)
        return report(CUBLAS_STATUS_INVALID_VALUE, function, "%s is NULL: pass a valid pointer",
                      src ? "the destination" : "the source");
    const size_t width = (size_t)rows * elem_size;
    const size_t src_pitch = (size_t)ld_src * elem_size, dst_pitch = (size_t)ld_dst * elem_size;
    const cudaError_t error =
        async ? cudaMemcpy2DAsync(dst, dst_pitch, src, src_pitch, width, cols, cudaMemcpyDefault,
                                  stream)
              : cudaMemcpy2D(dst, dst_pitch, src, src_pitch, width, cols, cudaMemcpyDefault);
    if (error == cudaSuccess)
        return CUBLAS_STATUS_SUCCESS;
    return report(CUBLAS_STATUS_MAPPING_ERROR, function, "the copy failed: %s (%s)",
                  cudaGetErrorName(error), cudaGetErrorString(error));
}

} // namespace

extern "C" {

// A vector of n elements with increment inc is n columns of one element, inc elements apart.
cublasStatus_t cublasSetVector(int n, int elemSize, const void *x, int incx, void *devicePtr,
                               int incy) {
    return copy_matrix("cublasSetVector", 1, n, elemSize, x, incx, "incx", devicePtr, incy, "incy",
                       true, 0, false);
}

cublasStatus_t cublasGetVector(int n, int elemSize, const void *x, int incx, void *y, int incy) {
    return copy_matrix("cublasGetVector", 1, n, elemSize, x, incx, "incx", y, incy, "incy", true, 0,
                       false);
}

cublasStatus_t cublasSetMatrix(int rows, int cols, int elemSize, const void *A, int lda, void *B,
                               int ldb) {
    return copy_matrix("cublasSetMatrix", rows, cols, elemSize, A, lda, "lda", B, ldb, "ldb", false,
                       0, false);
}

cublasStatus_t cublasGetMatrix(int rows, int cols, int elemSize, const void *A, int lda, void *B,
                               int ldb) {
    return copy_matrix("cublasGetMatrix", rows, cols, elemSize, A, lda, "lda", B, ldb, "ldb", false,
                       0, false);
}

cublasStatus_t cublasSetVectorAsync(int n, int elemSize, const void *hostPtr, int incx,
                                    void *devicePtr, int incy, cudaStream_t stream) {
    return copy_matrix("cublasSetVectorAsync", 1, n, elemSize, hostPtr, incx, "incx", devicePtr,
                       incy, "incy", true, stream, true);
}

cublasStatus_t cublasGetVectorAsync(int n, int elemSize, const void *devicePtr, int incx,
                                    void *hostPtr, int incy, cudaStream_t stream) {
    return copy_matrix("cublasGetVectorAsync", 1, n, elemSize, devicePtr, incx, "incx", hostPtr,
                       incy, "incy", true, stream, true);
}

cublasStatus_t cublasSetMatrixAsync(int rows, int cols, int elemSize, const void *A, int lda,
                                    void *B, int ldb, cudaStream_t stream) {
    return copy_matrix("cublasSetMatrixAsync", rows, cols, elemSize, A, lda, "lda", B, ldb, "ldb",
                       false, stream, true);
}

cublasStatus_t cublasGetMatrixAsync(int rows, int cols, int elemSize, const void *A, int lda,
                                    void *B, int ldb, cudaStream_t stream) {
    return copy_matrix("cublasGetMatrixAsync", rows, cols, elemSize, A, lda, "lda", B, ldb, "ldb",
                       false, stream, true);
}

} // extern "C"
