#include "driver.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace simtgpu::umd {

namespace {
// A plain array, not a std::string: a thread's thread_local objects with
// destructors are destroyed before exit() runs atexit handlers, and those
// (the CUDA runtime's shutdown destroying contexts) still record details.
thread_local char last_detail[2048];
}

const char *last_detail_c() { return last_detail; }

simtgpuResult fail(simtgpuResult code, const std::string &detail) {
    std::snprintf(last_detail, sizeof(last_detail), "%s", detail.c_str());
    return code;
}

simtgpuResult fail_errno(int rc, const std::string &what) {
    std::string detail = what + " failed: " + std::strerror(-rc);
    switch (rc) {
    case -ENOMEM: return fail(SIMTGPU_ERROR_OUT_OF_MEMORY, detail);
    case -ENOENT: return fail(SIMTGPU_ERROR_INVALID_HANDLE, detail);
    case -EACCES:
    case -EPERM: return fail(SIMTGPU_ERROR_PERMISSION_DENIED, detail);
    case -ENODEV: return fail(SIMTGPU_ERROR_NO_DEVICE, detail);
    case -EINVAL: return fail(SIMTGPU_ERROR_INVALID_VALUE, detail);
    case -ETIMEDOUT: return fail(SIMTGPU_ERROR_LAUNCH_TIMEOUT, detail);
    default: return fail(SIMTGPU_ERROR_UNKNOWN, detail);
    }
}

} // namespace simtgpu::umd

using namespace simtgpu::umd;

extern "C" {

SIMTGPU_API const char *simtgpuGetErrorName(simtgpuResult result) {
    switch (result) {
#define NAME(x) \
    case x: return #x;
        NAME(SIMTGPU_SUCCESS)
        NAME(SIMTGPU_ERROR_INVALID_VALUE)
        NAME(SIMTGPU_ERROR_OUT_OF_MEMORY)
        NAME(SIMTGPU_ERROR_NOT_INITIALIZED)
        NAME(SIMTGPU_ERROR_NO_DEVICE)
        NAME(SIMTGPU_ERROR_INVALID_DEVICE)
        NAME(SIMTGPU_ERROR_VERSION_MISMATCH)
        NAME(SIMTGPU_ERROR_PERMISSION_DENIED)
        NAME(SIMTGPU_ERROR_DRIVER_NOT_LOADED)
        NAME(SIMTGPU_ERROR_INVALID_HANDLE)
        NAME(SIMTGPU_ERROR_INVALID_IMAGE)
        NAME(SIMTGPU_ERROR_NO_BINARY_FOR_GPU)
        NAME(SIMTGPU_ERROR_NOT_FOUND)
        NAME(SIMTGPU_ERROR_NOT_READY)
        NAME(SIMTGPU_ERROR_ILLEGAL_ADDRESS)
        NAME(SIMTGPU_ERROR_MISALIGNED_ADDRESS)
        NAME(SIMTGPU_ERROR_ILLEGAL_INSTRUCTION)
        NAME(SIMTGPU_ERROR_ASSERT)
        NAME(SIMTGPU_ERROR_LAUNCH_TIMEOUT)
        NAME(SIMTGPU_ERROR_LAUNCH_FAILED)
        NAME(SIMTGPU_ERROR_LAUNCH_OUT_OF_RESOURCES)
        NAME(SIMTGPU_ERROR_INVALID_CONFIGURATION)
        NAME(SIMTGPU_ERROR_CONTEXT_IS_DESTROYED)
        NAME(SIMTGPU_ERROR_NOT_SUPPORTED)
        NAME(SIMTGPU_ERROR_HOST_MEMORY_ALREADY_REGISTERED)
        NAME(SIMTGPU_ERROR_HOST_MEMORY_NOT_REGISTERED)
        NAME(SIMTGPU_ERROR_UNKNOWN)
#undef NAME
    }
    return "SIMTGPU_ERROR_UNRECOGNIZED";
}

SIMTGPU_API const char *simtgpuGetErrorString(simtgpuResult result) {
    switch (result) {
    case SIMTGPU_SUCCESS: return "no error";
    case SIMTGPU_ERROR_INVALID_VALUE: return "invalid argument";
    case SIMTGPU_ERROR_OUT_OF_MEMORY: return "out of memory";
    case SIMTGPU_ERROR_NOT_INITIALIZED: return "initialization error";
    case SIMTGPU_ERROR_NO_DEVICE: return "no simtgpu device is available";
    case SIMTGPU_ERROR_INVALID_DEVICE: return "invalid device ordinal";
    case SIMTGPU_ERROR_VERSION_MISMATCH:
        return "the kernel driver's uAPI version is not the one libsimtgpu was built for";
    case SIMTGPU_ERROR_PERMISSION_DENIED: return "permission denied opening the device";
    case SIMTGPU_ERROR_DRIVER_NOT_LOADED: return "the simtgpu kernel driver is not loaded";
    case SIMTGPU_ERROR_INVALID_HANDLE: return "invalid resource handle";
    case SIMTGPU_ERROR_INVALID_IMAGE: return "device kernel image is invalid";
    case SIMTGPU_ERROR_NO_BINARY_FOR_GPU: return "no kernel image is available for execution on the device";
    case SIMTGPU_ERROR_NOT_FOUND: return "named symbol not found";
    case SIMTGPU_ERROR_NOT_READY: return "device not ready";
    case SIMTGPU_ERROR_ILLEGAL_ADDRESS: return "an illegal memory access was encountered";
    case SIMTGPU_ERROR_MISALIGNED_ADDRESS: return "misaligned address";
    case SIMTGPU_ERROR_ILLEGAL_INSTRUCTION: return "an illegal instruction was encountered";
    case SIMTGPU_ERROR_ASSERT: return "device-side assert triggered";
    case SIMTGPU_ERROR_LAUNCH_TIMEOUT: return "the launch timed out and was terminated";
    case SIMTGPU_ERROR_LAUNCH_FAILED: return "unspecified launch failure";
    case SIMTGPU_ERROR_LAUNCH_OUT_OF_RESOURCES: return "too many resources requested for launch";
    case SIMTGPU_ERROR_INVALID_CONFIGURATION: return "invalid configuration argument";
    case SIMTGPU_ERROR_CONTEXT_IS_DESTROYED: return "context is destroyed";
    case SIMTGPU_ERROR_NOT_SUPPORTED: return "operation not supported";
    case SIMTGPU_ERROR_HOST_MEMORY_ALREADY_REGISTERED:
        return "part or all of the host memory range is already registered";
    case SIMTGPU_ERROR_HOST_MEMORY_NOT_REGISTERED: return "host memory is not registered";
    case SIMTGPU_ERROR_UNKNOWN: return "unknown error";
    }
    return "unrecognized error code";
}

SIMTGPU_API const char *simtgpuGetErrorDetail(void) { return last_detail_c(); }

} // extern "C"
