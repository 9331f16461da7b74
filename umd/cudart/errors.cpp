// cudaError_t: names, strings (NVIDIA's wording), the mapping from
// libsimtgpu's results, and the per-thread last error.
#include "runtime.h"

#include <cstdio>

namespace simtgpu::cudart {

namespace {
thread_local cudaError_t last_error = cudaSuccess;

bool is_sticky(simtgpuResult r) {
    switch (r) {
    case SIMTGPU_ERROR_ILLEGAL_ADDRESS:
    case SIMTGPU_ERROR_MISALIGNED_ADDRESS:
    case SIMTGPU_ERROR_ILLEGAL_INSTRUCTION:
    case SIMTGPU_ERROR_ASSERT:
    case SIMTGPU_ERROR_LAUNCH_TIMEOUT:
    case SIMTGPU_ERROR_LAUNCH_FAILED: return true;
    default: return false;
    }
}
} // namespace

cudaError_t to_cuda(simtgpuResult r) {
    switch (r) {
    case SIMTGPU_SUCCESS: return cudaSuccess;
    case SIMTGPU_ERROR_INVALID_VALUE: return cudaErrorInvalidValue;
    case SIMTGPU_ERROR_OUT_OF_MEMORY: return cudaErrorMemoryAllocation;
    case SIMTGPU_ERROR_NOT_INITIALIZED: return cudaErrorInitializationError;
    case SIMTGPU_ERROR_NO_DEVICE: return cudaErrorNoDevice;
    case SIMTGPU_ERROR_INVALID_DEVICE: return cudaErrorInvalidDevice;
    case SIMTGPU_ERROR_VERSION_MISMATCH: return cudaErrorInsufficientDriver;
    case SIMTGPU_ERROR_PERMISSION_DENIED: return cudaErrorDevicesUnavailable;
    case SIMTGPU_ERROR_DRIVER_NOT_LOADED: return cudaErrorNoDevice;
    case SIMTGPU_ERROR_INVALID_HANDLE: return cudaErrorInvalidResourceHandle;
    case SIMTGPU_ERROR_INVALID_IMAGE: return cudaErrorInvalidKernelImage;
    case SIMTGPU_ERROR_NO_BINARY_FOR_GPU: return cudaErrorNoKernelImageForDevice;
    case SIMTGPU_ERROR_NOT_FOUND: return cudaErrorSymbolNotFound;
    case SIMTGPU_ERROR_NOT_READY: return cudaErrorNotReady;
    case SIMTGPU_ERROR_ILLEGAL_ADDRESS: return cudaErrorIllegalAddress;
    case SIMTGPU_ERROR_MISALIGNED_ADDRESS: return cudaErrorMisalignedAddress;
    case SIMTGPU_ERROR_ILLEGAL_INSTRUCTION: return cudaErrorIllegalInstruction;
    case SIMTGPU_ERROR_ASSERT: return cudaErrorAssert;
    case SIMTGPU_ERROR_LAUNCH_TIMEOUT: return cudaErrorLaunchTimeout;
    case SIMTGPU_ERROR_LAUNCH_FAILED: return cudaErrorLaunchFailure;
    case SIMTGPU_ERROR_LAUNCH_OUT_OF_RESOURCES: return cudaErrorLaunchOutOfResources;
    case SIMTGPU_ERROR_INVALID_CONFIGURATION: return cudaErrorInvalidConfiguration;
    case SIMTGPU_ERROR_CONTEXT_IS_DESTROYED: return cudaErrorContextIsDestroyed;
    case SIMTGPU_ERROR_NOT_SUPPORTED: return cudaErrorNotSupported;
    case SIMTGPU_ERROR_HOST_MEMORY_ALREADY_REGISTERED: return cudaErrorHostMemoryAlreadyRegistered;
    case SIMTGPU_ERROR_HOST_MEMORY_NOT_REGISTERED: return cudaErrorHostMemoryNotRegistered;
    case SIMTGPU_ERROR_UNKNOWN: return cudaErrorUnknown;
    }
    return cudaErrorUnknown;
}

cudaError_t record(cudaError_t err) {
    if (err != cudaSuccess && err != cudaErrorNotReady)
        last_error = err;
    return err;
}

cudaError_t record(simtgpuResult r) {
    if (is_sticky(r)) {
        // CUDA only says "an illegal memory access was encountered"; the
        // driver knows where, so say it once per context. Asserts have
        // already printed CUDA's own line.
        Runtime &rt = runtime();
        std::lock_guard<std::recursive_mutex> guard(rt.mu);
        int device = current_device();
        if (device < int(rt.fault_reported.size()) && !rt.fault_reported[device]) {
            rt.fault_reported[device] = true;
            if (r != SIMTGPU_ERROR_ASSERT)
                std::fprintf(stderr, "simtgpu: %s\n", simtgpuGetErrorDetail());
        }
    }
    return record(to_cuda(r));
}

} // namespace simtgpu::cudart

using namespace simtgpu::cudart;

SIMTCUDA_API cudaError_t cudaGetLastError(void) {
    cudaError_t err = last_error;
    last_error = cudaSuccess;
    // A sticky error stays: the context cannot be used any more.
    if (err == cudaSuccess) {
        Runtime &rt = runtime();
        std::lock_guard<std::recursive_mutex> guard(rt.mu);
        int device = current_device();
        if (device < int(rt.contexts.size()) && rt.contexts[device])
            err = to_cuda(simtgpuCtxGetStickyError(rt.contexts[device]));
    }
    return err;
}

SIMTCUDA_API cudaError_t cudaPeekAtLastError(void) {
    if (last_error != cudaSuccess)
        return last_error;
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    int device = current_device();
    if (device < int(rt.contexts.size()) && rt.contexts[device])
        return to_cuda(simtgpuCtxGetStickyError(rt.contexts[device]));
    return cudaSuccess;
}

SIMTCUDA_API const char *cudaGetErrorName(cudaError_t error) {
    switch (error) {
#define NAME(x) \
    case x: return #x;
        NAME(cudaSuccess)
        NAME(cudaErrorInvalidValue)
        NAME(cudaErrorMemoryAllocation)
        NAME(cudaErrorInitializationError)
        NAME(cudaErrorCudartUnloading)
        NAME(cudaErrorProfilerDisabled)
        NAME(cudaErrorInvalidConfiguration)
        NAME(cudaErrorInvalidPitchValue)
        NAME(cudaErrorInvalidSymbol)
        NAME(cudaErrorInvalidHostPointer)
        NAME(cudaErrorInvalidDevicePointer)
        NAME(cudaErrorInvalidTexture)
        NAME(cudaErrorInvalidTextureBinding)
        NAME(cudaErrorInvalidChannelDescriptor)
        NAME(cudaErrorInvalidMemcpyDirection)
        NAME(cudaErrorInvalidFilterSetting)
        NAME(cudaErrorInvalidNormSetting)
        NAME(cudaErrorInsufficientDriver)
        NAME(cudaErrorCallRequiresNewerDriver)
        NAME(cudaErrorDevicesUnavailable)
        NAME(cudaErrorMissingConfiguration)
        NAME(cudaErrorInvalidDeviceFunction)
        NAME(cudaErrorNoDevice)
        NAME(cudaErrorInvalidDevice)
        NAME(cudaErrorStartupFailure)
        NAME(cudaErrorInvalidKernelImage)
        NAME(cudaErrorNoKernelImageForDevice)
        NAME(cudaErrorUnsupportedLimit)
        NAME(cudaErrorInvalidSource)
        NAME(cudaErrorFileNotFound)
        NAME(cudaErrorInvalidResourceHandle)
        NAME(cudaErrorIllegalState)
        NAME(cudaErrorSymbolNotFound)
        NAME(cudaErrorNotReady)
        NAME(cudaErrorIllegalAddress)
        NAME(cudaErrorLaunchOutOfResources)
        NAME(cudaErrorLaunchTimeout)
        NAME(cudaErrorContextIsDestroyed)
        NAME(cudaErrorAssert)
        NAME(cudaErrorHostMemoryAlreadyRegistered)
        NAME(cudaErrorHostMemoryNotRegistered)
        NAME(cudaErrorIllegalInstruction)
        NAME(cudaErrorMisalignedAddress)
        NAME(cudaErrorLaunchFailure)
        NAME(cudaErrorCooperativeLaunchTooLarge)
        NAME(cudaErrorNotPermitted)
        NAME(cudaErrorNotSupported)
        NAME(cudaErrorSystemDriverMismatch)
        NAME(cudaErrorStreamCaptureUnsupported)
        NAME(cudaErrorStreamCaptureInvalidated)
        NAME(cudaErrorStreamCaptureMerge)
        NAME(cudaErrorStreamCaptureUnmatched)
        NAME(cudaErrorStreamCaptureUnjoined)
        NAME(cudaErrorStreamCaptureIsolation)
        NAME(cudaErrorStreamCaptureImplicit)
        NAME(cudaErrorCapturedEvent)
        NAME(cudaErrorStreamCaptureWrongThread)
        NAME(cudaErrorGraphExecUpdateFailure)
        NAME(cudaErrorUnknown)
        NAME(cudaErrorApiFailureBase)
#undef NAME
    }
    return "cudaErrorUnknown";
}

SIMTCUDA_API const char *cudaGetErrorString(cudaError_t error) {
    switch (error) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInitializationError: return "initialization error";
    case cudaErrorCudartUnloading: return "driver shutting down";
    case cudaErrorProfilerDisabled: return "profiler disabled while using external profiling tool";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidPitchValue: return "invalid pitch argument";
    case cudaErrorInvalidSymbol: return "invalid device symbol";
    case cudaErrorInvalidHostPointer: return "invalid host pointer";
    case cudaErrorInvalidDevicePointer: return "invalid device pointer";
    case cudaErrorInvalidTexture: return "invalid texture reference";
    case cudaErrorInvalidTextureBinding: return "texture is not bound to a pointer";
    case cudaErrorInvalidChannelDescriptor: return "invalid channel descriptor";
    case cudaErrorInvalidMemcpyDirection: return "invalid copy direction for memcpy";
    case cudaErrorInvalidFilterSetting: return "linear filtering not supported for non-float type";
    case cudaErrorInvalidNormSetting:
        return "read as normalized float not supported for 32-bit non float type";
    case cudaErrorInsufficientDriver:
        return "CUDA driver version is insufficient for CUDA runtime version";
    case cudaErrorCallRequiresNewerDriver: return "API call is not supported in the installed CUDA driver";
    case cudaErrorDevicesUnavailable: return "CUDA-capable device(s) is/are busy or unavailable";
    case cudaErrorMissingConfiguration: return "__global__ function call is not configured";
    case cudaErrorInvalidDeviceFunction: return "invalid device function";
    case cudaErrorNoDevice: return "no CUDA-capable device is detected";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorStartupFailure: return "initialization error";
    case cudaErrorInvalidKernelImage: return "device kernel image is invalid";
    case cudaErrorNoKernelImageForDevice:
        return "no kernel image is available for execution on the device";
    case cudaErrorUnsupportedLimit: return "limit is not supported on this architecture";
    case cudaErrorInvalidSource: return "device kernel image is invalid";
    case cudaErrorFileNotFound: return "file not found";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
    case cudaErrorIllegalState: return "the operation cannot be performed in the present state";
    case cudaErrorSymbolNotFound: return "named symbol not found";
    case cudaErrorNotReady: return "device not ready";
    case cudaErrorIllegalAddress: return "an illegal memory access was encountered";
    case cudaErrorLaunchOutOfResources: return "too many resources requested for launch";
    case cudaErrorLaunchTimeout: return "the launch timed out and was terminated";
    case cudaErrorContextIsDestroyed: return "context is destroyed";
    case cudaErrorAssert: return "device-side assert triggered";
    case cudaErrorHostMemoryAlreadyRegistered:
        return "part or all of the requested memory range is already mapped";
    case cudaErrorHostMemoryNotRegistered: return "pointer does not correspond to a registered memory region";
    case cudaErrorIllegalInstruction: return "an illegal instruction was encountered";
    case cudaErrorMisalignedAddress: return "misaligned address";
    case cudaErrorLaunchFailure: return "unspecified launch failure";
    case cudaErrorCooperativeLaunchTooLarge:
        return "too many blocks in cooperative launch";
    case cudaErrorNotPermitted: return "operation not permitted";
    case cudaErrorNotSupported: return "operation not supported";
    case cudaErrorSystemDriverMismatch:
        return "system has unsupported display driver / cuda driver combination";
    case cudaErrorStreamCaptureUnsupported:
        return "operation not permitted when stream is capturing";
    case cudaErrorStreamCaptureInvalidated:
        return "operation failed due to a previous error during capture";
    case cudaErrorStreamCaptureMerge:
        return "operation would result in a merge of separate capture sequences";
    case cudaErrorStreamCaptureUnmatched:
        return "capture was not ended in the same stream as it began";
    case cudaErrorStreamCaptureUnjoined:
        return "capturing stream has unjoined work";
    case cudaErrorStreamCaptureIsolation:
        return "dependency created on uncaptured work in another stream";
    case cudaErrorStreamCaptureImplicit:
        return "operation would make the legacy stream depend on a capturing blocking stream";
    case cudaErrorCapturedEvent:
        return "operation not permitted on an event last recorded in a capturing stream";
    case cudaErrorStreamCaptureWrongThread:
        return "attempt to terminate a thread-local capture sequence from another thread";
    case cudaErrorGraphExecUpdateFailure:
        return "the graph update was not performed because it included changes which violated "
               "constraints specific to instantiated graph update";
    case cudaErrorUnknown: return "unknown error";
    case cudaErrorApiFailureBase: return "unknown error";
    }
    return "unrecognized error code";
}
