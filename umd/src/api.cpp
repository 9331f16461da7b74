// The C entry points of simtgpu.h: argument checks, then the Context.
#include "driver.h"

#include "simtgpu/counters.h"
#include "simtgpu/hw.h"
#include "simtgpu/occupancy.h"
#include "uapi/drm/simtgpu_drm.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>

namespace simtgpu::umd {

namespace {

struct DriverState {
    std::mutex mu;
    bool initialized = false;
    simtgpuResult result = SIMTGPU_ERROR_NOT_INITIALIZED;
    std::string detail;
    std::vector<DeviceEntry> devices;
    // One open file per device keeps it (and an in-process simulator) alive
    // for device-wide queries.
    std::vector<std::unique_ptr<Transport>> probes;
};

DriverState &driver() {
    static DriverState state;
    return state;
}

std::string arch_name(uint32_t arch) { return "simt_" + std::to_string(arch); }

simtgpuResult probe(const DeviceNode &node, DeviceEntry *entry, std::unique_ptr<Transport> *out) {
    std::string error;
    std::unique_ptr<Transport> t;
    if (int rc = transport_open(node, &t, &error)) {
        if (rc == -EACCES || rc == -EPERM)
            return fail(SIMTGPU_ERROR_PERMISSION_DENIED, error);
        return fail(SIMTGPU_ERROR_NO_DEVICE, error);
    }
    auto get = [&](uint32_t param, uint64_t *value) {
        drm_simtgpu_get_param p{param, 0, 0};
        int rc = t->ioctl(DRM_IOCTL_SIMTGPU_GET_PARAM, &p);
        *value = p.value;
        return rc;
    };
    uint64_t version = 0;
    if (int rc = get(SIMTGPU_PARAM_UAPI_VERSION, &version))
        return fail(SIMTGPU_ERROR_VERSION_MISMATCH,
                    node.path + " did not answer GET_PARAM(UAPI_VERSION) (" +
                        std::strerror(-rc) + "): its driver is not the simtgpu driver this "
                        "libsimtgpu was built for");
    uint32_t major = uint32_t(version >> 16), minor = uint32_t(version & 0xffff);
    if (major != SIMTGPU_UAPI_VERSION_MAJOR)
        return fail(SIMTGPU_ERROR_VERSION_MISMATCH,
                    "the simtgpu driver at " + node.path + " speaks uAPI " +
                        std::to_string(major) + "." + std::to_string(minor) +
                        ", but libsimtgpu was built for uAPI " +
                        std::to_string(SIMTGPU_UAPI_VERSION_MAJOR) + "." +
                        std::to_string(SIMTGPU_UAPI_VERSION_MINOR) +
                        ": build and install simtgpu.ko and libsimtgpu from the same tree");
    simtgpuDeviceProperties &p = entry->props;
    p = {};
    uint64_t v = 0;
    struct {
        uint32_t param;
        uint32_t *field;
    } fields[] = {
        {SIMTGPU_PARAM_HW_VERSION, &p.hw_version},
        {SIMTGPU_PARAM_ARCH, &p.arch},
        {SIMTGPU_PARAM_CAPS, &p.caps},
        {SIMTGPU_PARAM_NUM_SMS, &p.num_sms},
        {SIMTGPU_PARAM_WARPS_PER_SM, &p.warps_per_sm},
        {SIMTGPU_PARAM_WARP_SIZE, &p.warp_size},
        {SIMTGPU_PARAM_CTAS_PER_SM, &p.ctas_per_sm},
        {SIMTGPU_PARAM_SHARED_PER_SM, &p.shared_per_sm},
        {SIMTGPU_PARAM_MAX_THREADS_PER_CTA, &p.max_threads_per_cta},
        {SIMTGPU_PARAM_MAX_STACK_PER_THREAD, &p.max_stack_per_thread},
        {SIMTGPU_PARAM_CLOCK_KHZ, &p.clock_khz},
        {SIMTGPU_PARAM_NUM_QUEUES_MAX, &p.max_queues},
    };
    for (auto &f : fields) {
        if (int rc = get(f.param, &v))
            return fail_errno(rc, "GET_PARAM(" + std::to_string(f.param) + ") on " + node.path);
        *f.field = uint32_t(v);
    }
    if (int rc = get(SIMTGPU_PARAM_VRAM_SIZE, &p.vram_size))
        return fail_errno(rc, "GET_PARAM(VRAM_SIZE) on " + node.path);
    // uAPI 1.4: a driver before it answers -EINVAL, and the device is
    // reported to model no memory hierarchy (0).
    struct {
        uint32_t param;
        uint32_t *field;
    } memory[] = {
        {SIMTGPU_PARAM_L2_SIZE, &p.l2_size},
        {SIMTGPU_PARAM_MEM_BUS_WIDTH, &p.mem_bus_width},
        {SIMTGPU_PARAM_MEM_CLOCK_KHZ, &p.mem_clock_khz},
        // uAPI 1.7, likewise: no persisting L2 lines.
        {SIMTGPU_PARAM_L2_PERSISTING_MAX, &p.l2_persisting_max},
        {SIMTGPU_PARAM_L2_WINDOW_MAX, &p.l2_window_max},
    };
    for (auto &f : memory) {
        int rc = get(f.param, &v);
        if (rc && rc != -EINVAL)
            return fail_errno(rc, "GET_PARAM(" + std::to_string(f.param) + ") on " + node.path);
        *f.field = rc ? 0 : uint32_t(v);
    }
    if (p.arch == 0 || p.arch > SIMTGPU_ARCH_NEWEST)
        return fail(SIMTGPU_ERROR_INVALID_DEVICE,
                    "the device at " + node.path + " reports architecture " +
                        arch_name(p.arch) + ", which this libsimtgpu does not know (it knows "
                        "simt_1.." + arch_name(SIMTGPU_ARCH_NEWEST) + "): update libsimtgpu");
    p.uapi_version = uint32_t(version);
    // Device memory goes above 2^47 (SIMTGPU_BO_HIGH_VA), host memory at its
    // own address (SIMTGPU_BO_FIXED_VA): that needs a host whose user
    // addresses stay below 2^47, which x86-64 Linux guarantees unless a
    // program asks mmap for an address above it.
#if defined(__x86_64__)
    p.unified_addressing = (version >> 16) == 1 && (version & 0xffff) >= 5;
#else
    p.unified_addressing = 0;
#endif
    std::snprintf(p.name, sizeof(p.name), "simtgpu %s (%u SMs, %s)", arch_name(p.arch).c_str(),
                  p.num_sms,
                  node.kind == TransportKind::Sim ? "in-process simulator" : node.path.c_str());
    std::snprintf(p.transport, sizeof(p.transport), "%s", transport_name(node.kind));
    std::snprintf(p.node, sizeof(p.node), "%s", node.path.c_str());
    entry->node = node;
    *out = std::move(t);
    return SIMTGPU_SUCCESS;
}

simtgpuResult init_locked(DriverState &d) {
    std::vector<DeviceNode> nodes;
    std::string error;
    if (int rc = transport_discover(&nodes, &error)) {
        if (rc == -EACCES)
            return fail(SIMTGPU_ERROR_PERMISSION_DENIED, error);
        if (rc == -EINVAL)
            return fail(SIMTGPU_ERROR_INVALID_VALUE, error);
        return fail(rc == -ENOENT ? SIMTGPU_ERROR_DRIVER_NOT_LOADED : SIMTGPU_ERROR_NO_DEVICE,
                    error);
    }
    for (const auto &node : nodes) {
        DeviceEntry entry;
        std::unique_ptr<Transport> t;
        if (simtgpuResult r = probe(node, &entry, &t))
            return r;
        d.devices.push_back(entry);
        d.probes.push_back(std::move(t));
    }
    return SIMTGPU_SUCCESS;
}

simtgpuResult check_init() {
    DriverState &d = driver();
    std::lock_guard<std::mutex> guard(d.mu);
    if (!d.initialized)
        return fail(SIMTGPU_ERROR_NOT_INITIALIZED, "call simtgpuInit first");
    if (d.result)
        return fail(d.result, d.detail);
    return SIMTGPU_SUCCESS;
}

// A hit ratio in [0, 1] in SIMTGPU_L2_HIT_RATIO_ONE-ths, rounded.
uint32_t l2_hit_ratio(float ratio) {
    return uint32_t(std::lround(double(ratio) * SIMTGPU_L2_HIT_RATIO_ONE));
}

simtgpuResult bad_range(const char *what, uint64_t va, uint64_t bytes) {
    char text[160];
    std::snprintf(text, sizeof(text),
                  "%s range 0x%llx + %llu bytes is not inside one allocation of this context",
                  what, static_cast<unsigned long long>(va),
                  static_cast<unsigned long long>(bytes));
    return fail(SIMTGPU_ERROR_INVALID_VALUE, text);
}

// The managed BO holding [va, va + bytes), under a kernel driver whose uAPI
// has `ioctl` (1.`minor`).
simtgpuResult managed_range(Context &c, uint64_t va, uint64_t bytes, uint32_t minor,
                            const char *ioctl, Bo **out) {
    Bo *bo = c.find_device(va, bytes);
    if (!bo || bo->kind != BoKind::Managed)
        return bad_range("managed memory", va, bytes);
    if ((c.props().uapi_version >> 16) == 1 && (c.props().uapi_version & 0xffff) < minor)
        return fail(SIMTGPU_ERROR_NOT_SUPPORTED,
                    std::string("the kernel driver's uAPI predates ") + ioctl + " (1." +
                        std::to_string(minor) +
                        "): load the simtgpu.ko built with this library");
    *out = bo;
    return SIMTGPU_SUCCESS;
}

} // namespace

const std::vector<DeviceEntry> *devices() {
    DriverState &d = driver();
    return d.initialized && d.result == SIMTGPU_SUCCESS ? &d.devices : nullptr;
}

} // namespace simtgpu::umd

using namespace simtgpu::umd;

#define CHECK_INIT()                                \
    do {                                            \
        if (simtgpuResult r_ = check_init())        \
            return r_;                              \
    } while (0)
#define CHECK_ARG(cond, what)                                   \
    do {                                                        \
        if (!(cond))                                            \
            return fail(SIMTGPU_ERROR_INVALID_VALUE, what);     \
    } while (0)
#define LOCK(ctx) std::lock_guard<std::recursive_mutex> guard_((ctx)->mutex())

extern "C" {

// ------------------------------------------------------------ devices ---

SIMTGPU_API simtgpuResult simtgpuInit(unsigned flags) {
    CHECK_ARG(flags == 0, "simtgpuInit flags must be 0");
    DriverState &d = driver();
    std::lock_guard<std::mutex> guard(d.mu);
    if (!d.initialized) {
        d.initialized = true;
        d.result = init_locked(d);
        d.detail = last_detail_c();
        if (d.result) {
            d.devices.clear();
            d.probes.clear();
        }
    }
    return d.result ? fail(d.result, d.detail) : SIMTGPU_SUCCESS;
}

SIMTGPU_API simtgpuResult simtgpuDriverGetVersion(int *version) {
    CHECK_ARG(version, "version is NULL");
    *version = SIMTGPU_UAPI_VERSION_MAJOR * 1000 + SIMTGPU_UAPI_VERSION_MINOR * 10;
    return SIMTGPU_SUCCESS;
}

SIMTGPU_API simtgpuResult simtgpuDeviceGetCount(int *count) {
    CHECK_ARG(count, "count is NULL");
    CHECK_INIT();
    *count = int(devices()->size());
    return SIMTGPU_SUCCESS;
}

SIMTGPU_API simtgpuResult simtgpuDeviceGet(simtgpuDevice *device, int ordinal) {
    CHECK_ARG(device, "device is NULL");
    CHECK_INIT();
    if (ordinal < 0 || size_t(ordinal) >= devices()->size())
        return fail(SIMTGPU_ERROR_INVALID_DEVICE,
                    "device ordinal " + std::to_string(ordinal) + " out of range (" +
                        std::to_string(devices()->size()) + " devices)");
    *device = ordinal;
    return SIMTGPU_SUCCESS;
}

SIMTGPU_API simtgpuResult simtgpuDeviceGetProperties(simtgpuDeviceProperties *props,
                                                    simtgpuDevice device) {
    CHECK_ARG(props, "props is NULL");
    CHECK_INIT();
    if (device < 0 || size_t(device) >= devices()->size())
        return fail(SIMTGPU_ERROR_INVALID_DEVICE, "device ordinal out of range");
    *props = (*devices())[device].props;
    return SIMTGPU_SUCCESS;
}

SIMTGPU_API simtgpuResult simtgpuDeviceGetMemInfo(simtgpuDevice device, uint64_t *used,
                                                 uint64_t *total) {
    CHECK_ARG(used && total, "used/total is NULL");
    CHECK_INIT();
    DriverState &d = driver();
    if (device < 0 || size_t(device) >= d.devices.size())
        return fail(SIMTGPU_ERROR_INVALID_DEVICE, "device ordinal out of range");
    std::lock_guard<std::mutex> guard(d.mu);
    drm_simtgpu_get_param p{SIMTGPU_PARAM_VRAM_USED, 0, 0};
    if (int rc = d.probes[device]->ioctl(DRM_IOCTL_SIMTGPU_GET_PARAM, &p))
        return fail_errno(rc, "GET_PARAM(VRAM_USED)");
    *used = p.value;
    *total = d.devices[device].props.vram_size;
    return SIMTGPU_SUCCESS;
}

// ----------------------------------------------------------- contexts ---

SIMTGPU_API simtgpuResult simtgpuCtxCreate(simtgpuContext *ctx, unsigned flags,
                                          simtgpuDevice device) {
    CHECK_ARG(ctx, "ctx is NULL");
    CHECK_ARG(flags == 0, "context flags must be 0");
    CHECK_INIT();
    if (device < 0 || size_t(device) >= devices()->size())
        return fail(SIMTGPU_ERROR_INVALID_DEVICE, "device ordinal out of range");
    std::unique_ptr<Transport> t;
    std::string error;
    if (int rc = transport_open((*devices())[device].node, &t, &error))
        return fail(rc == -EACCES ? SIMTGPU_ERROR_PERMISSION_DENIED : SIMTGPU_ERROR_NO_DEVICE,
                    error);
    auto *c = new simtgpuContext_st;
    c->impl = std::make_unique<Context>(device, std::move(t));
    *ctx = c;
    return SIMTGPU_SUCCESS;
}

namespace {
// An access policy window as the device takes it, or INVALID_VALUE naming
// what is wrong with it.
simtgpuResult check_window(Context &c, const simtgpuAccessPolicyWindow &w) {
    const uint32_t max = c.props().l2_window_max;
    auto property = [](simtgpuAccessProperty p) {
        return p == SIMTGPU_ACCESS_PROPERTY_NORMAL || p == SIMTGPU_ACCESS_PROPERTY_STREAMING ||
               p == SIMTGPU_ACCESS_PROPERTY_PERSISTING;
    };
    if (w.bytes > max)
        return fail(SIMTGPU_ERROR_INVALID_VALUE,
                    "access policy window of " + std::to_string(w.bytes) +
                        " bytes exceeds the device's maximum of " + std::to_string(max));
    if (w.bytes && w.base + w.bytes < w.base)
        return fail(SIMTGPU_ERROR_INVALID_VALUE, "access policy window wraps around");
    if (!(w.hit_ratio >= 0.0f && w.hit_ratio <= 1.0f))
        return fail(SIMTGPU_ERROR_INVALID_VALUE,
                    "hit_ratio " + std::to_string(w.hit_ratio) + " is outside [0, 1]");
    if (!property(w.hit_prop) || !property(w.miss_prop) || w.reserved)
        return fail(SIMTGPU_ERROR_INVALID_VALUE,
                    "unknown access property (or reserved is not 0)");
    return SIMTGPU_SUCCESS;
}

// Sets the device's persisting L2 set-aside and turns every persisting line
// back into a normal one (the device has one set-aside, which the context
// that set it owns).
simtgpuResult set_l2_set_aside(Context &c, size_t value) {
    std::vector<uint32_t> ib;
    put_packet(ib, SIMTGPU_PKT_L2_POLICY, simtgpu_pkt_l2_policy{0, 0, 0, 0, 0, 0, value},
               SIMTGPU_PKTF_L2_SET_ASIDE | SIMTGPU_PKTF_L2_RESET);
    if (simtgpuResult r = c.submit(*c.stream(nullptr), ib, {}))
        return r;
    c.l2_set_aside = value;
    return SIMTGPU_SUCCESS;
}
} // namespace

SIMTGPU_API simtgpuResult simtgpuCtxDestroy(simtgpuContext ctx) {
    if (!ctx)
        return fail(SIMTGPU_ERROR_INVALID_HANDLE, "ctx is NULL");
    // As CUDA's context teardown (cudaDeviceReset): the next context starts
    // with no set-aside. A failure here is the device's, already reported.
    if (ctx->impl->l2_set_aside) {
        LOCK(ctx->impl);
        set_l2_set_aside(*ctx->impl, 0);
    }
    delete ctx;
    return SIMTGPU_SUCCESS;
}

SIMTGPU_API simtgpuResult simtgpuCtxSynchronize(simtgpuContext ctx) {
    if (!ctx)
        return fail(SIMTGPU_ERROR_INVALID_HANDLE, "ctx is NULL");
    LOCK(ctx->impl);
    return ctx->impl->synchronize_all();
}

SIMTGPU_API simtgpuResult simtgpuCtxGetStickyError(simtgpuContext ctx) {
    if (!ctx)
        return fail(SIMTGPU_ERROR_INVALID_HANDLE, "ctx is NULL");
    LOCK(ctx->impl);
    return ctx->impl->sticky_error();
}

SIMTGPU_API simtgpuResult simtgpuCtxGetDevice(simtgpuContext ctx, simtgpuDevice *device) {
    if (!ctx || !device)
        return fail(SIMTGPU_ERROR_INVALID_VALUE, "ctx or device is NULL");
    *device = ctx->impl->device();
    return SIMTGPU_SUCCESS;
}

SIMTGPU_API simtgpuResult simtgpuCtxSetLimit(simtgpuContext ctx, simtgpuLimit limit,
                                            size_t value) {
    CHECK_ARG(ctx, "ctx is NULL");
    LOCK(ctx->impl);
    Context &c = *ctx->impl;
    switch (limit) {
    case SIMTGPU_LIMIT_STACK_SIZE:
        if (value > c.props().max_stack_per_thread)
            return fail(SIMTGPU_ERROR_INVALID_VALUE,
                        "stack size " + std::to_string(value) + " exceeds the device's " +
                            std::to_string(c.props().max_stack_per_thread) + " bytes per thread");
        c.stack_floor = uint32_t(value);
        return SIMTGPU_SUCCESS;
    case SIMTGPU_LIMIT_PRINTF_FIFO_SIZE:
        if (c.launched)
            return fail(SIMTGPU_ERROR_INVALID_VALUE,
                        "the printf buffer size is fixed once the context has launched a kernel");
        if (value < 4096 || value > (1u << 30))
            return fail(SIMTGPU_ERROR_INVALID_VALUE, "printf buffer size must be 4 KiB..1 GiB");
        c.printf_bytes = value;
        return SIMTGPU_SUCCESS;
    case SIMTGPU_LIMIT_PERSISTING_L2_CACHE_SIZE: {
        const uint32_t max = c.props().l2_persisting_max;
        if (max == 0)
            return fail(SIMTGPU_ERROR_NOT_SUPPORTED,
                        "the device has no persisting L2 lines (l2_persisting_max is 0)");
        if (value > max)
            return fail(SIMTGPU_ERROR_INVALID_VALUE,
                        "persisting L2 set-aside " + std::to_string(value) +
                            " exceeds the device's " + std::to_string(max) + " bytes");
        return set_l2_set_aside(c, value);
    }
    }
    return fail(SIMTGPU_ERROR_INVALID_VALUE, "unknown limit");
}

SIMTGPU_API simtgpuResult simtgpuCtxGetLimit(simtgpuContext ctx, simtgpuLimit limit,
                                            size_t *value) {
    CHECK_ARG(ctx && value, "ctx or value is NULL");
    LOCK(ctx->impl);
    switch (limit) {
    case SIMTGPU_LIMIT_STACK_SIZE: *value = ctx->impl->stack_floor; return SIMTGPU_SUCCESS;
    case SIMTGPU_LIMIT_PRINTF_FIFO_SIZE: *value = ctx->impl->printf_bytes; return SIMTGPU_SUCCESS;
    case SIMTGPU_LIMIT_PERSISTING_L2_CACHE_SIZE:
        *value = ctx->impl->l2_set_aside;
        return SIMTGPU_SUCCESS;
    }
    return fail(SIMTGPU_ERROR_INVALID_VALUE, "unknown limit");
}

// ------------------------------------------------------------- memory ---

SIMTGPU_API simtgpuResult simtgpuMemAlloc(simtgpuContext ctx, simtgpuDevicePtr *dptr,
                                         size_t bytes) {
    CHECK_ARG(ctx && dptr, "ctx or dptr is NULL");
    CHECK_ARG(bytes > 0, "allocation of 0 bytes");
    LOCK(ctx->impl);
    if (simtgpuResult r = ctx->impl->sticky_error())
        return fail(r, "the context has a sticky error");
    return ctx->impl->mem_alloc(bytes, dptr);
}

SIMTGPU_API simtgpuResult simtgpuMemAllocAt(simtgpuContext ctx, simtgpuDevicePtr va,
                                           size_t bytes) {
    CHECK_ARG(ctx, "ctx is NULL");
    CHECK_ARG(bytes > 0, "allocation of 0 bytes");
    CHECK_ARG(va % SIMTGPU_PAGE_SIZE == 0 && bytes % SIMTGPU_PAGE_SIZE == 0,
              "address and size must be multiples of the page size (4096)");
    LOCK(ctx->impl);
    if (simtgpuResult r = ctx->impl->sticky_error())
        return fail(r, "the context has a sticky error");
    return ctx->impl->mem_alloc_at(va, bytes);
}

SIMTGPU_API simtgpuResult simtgpuMemFree(simtgpuContext ctx, simtgpuDevicePtr dptr) {
    CHECK_ARG(ctx, "ctx is NULL");
    if (!dptr)
        return SIMTGPU_SUCCESS;
    LOCK(ctx->impl);
    return ctx->impl->mem_free(dptr);
}

SIMTGPU_API simtgpuResult simtgpuMemGetAddressRange(simtgpuContext ctx, simtgpuDevicePtr *base,
                                                   size_t *bytes, simtgpuDevicePtr dptr) {
    CHECK_ARG(ctx, "ctx is NULL");
    LOCK(ctx->impl);
    Bo *bo = ctx->impl->find_device(dptr, 1);
    if (!bo)
        return bad_range("pointer", dptr, 1);
    if (base)
        *base = bo->va;
    if (bytes)
        *bytes = bo->valid_bytes();
    return SIMTGPU_SUCCESS;
}

SIMTGPU_API simtgpuResult simtgpuMemHostAlloc(simtgpuContext ctx, void **ptr, size_t bytes,
                                             unsigned flags) {
    CHECK_ARG(ctx && ptr, "ctx or ptr is NULL");
    CHECK_ARG(bytes > 0, "allocation of 0 bytes");
    CHECK_ARG(!(flags & ~(SIMTGPU_MEMHOSTALLOC_PORTABLE | SIMTGPU_MEMHOSTALLOC_DEVICEMAP |
                          SIMTGPU_MEMHOSTALLOC_WRITECOMBINED)),
              "unknown host allocation flags");
    LOCK(ctx->impl);
    return ctx->impl->host_alloc(bytes, ptr);
}

SIMTGPU_API simtgpuResult simtgpuMemHostFree(simtgpuContext ctx, void *ptr) {
    CHECK_ARG(ctx, "ctx is NULL");
    if (!ptr)
        return SIMTGPU_SUCCESS;
    LOCK(ctx->impl);
    return ctx->impl->host_free(ptr);
}

SIMTGPU_API simtgpuResult simtgpuMemHostGetDevicePointer(simtgpuContext ctx,
                                                        simtgpuDevicePtr *dptr, void *ptr) {
    CHECK_ARG(ctx && dptr, "ctx or dptr is NULL");
    LOCK(ctx->impl);
    if (Bo *bo = ctx->impl->find_host(ptr, 1)) {
        *dptr = bo->va + (static_cast<uint8_t *>(ptr) - bo->cpu);
        return SIMTGPU_SUCCESS;
    }
    if (ctx->impl->is_host_allocated(ptr))
        return fail(SIMTGPU_ERROR_NOT_SUPPORTED,
                    "the kernel driver cannot map host memory for the device (its uAPI "
                    "predates user-pointer BOs, 1.3); copies to and from it are staged instead");
    return fail(SIMTGPU_ERROR_INVALID_VALUE,
                "pointer was not allocated by simtgpuMemHostAlloc nor registered with "
                "simtgpuMemHostRegister");
}

SIMTGPU_API simtgpuResult simtgpuMemHostRegister(simtgpuContext ctx, void *ptr, size_t bytes,
                                                unsigned flags) {
    CHECK_ARG(ctx && ptr, "ctx or ptr is NULL");
    CHECK_ARG(bytes > 0, "registration of 0 bytes");
    CHECK_ARG(reinterpret_cast<uintptr_t>(ptr) + bytes > reinterpret_cast<uintptr_t>(ptr),
              "the range wraps around the address space");
    CHECK_ARG(!(flags & ~(SIMTGPU_MEMHOSTREGISTER_PORTABLE | SIMTGPU_MEMHOSTREGISTER_DEVICEMAP |
                          SIMTGPU_MEMHOSTREGISTER_READ_ONLY)),
              "unknown host registration flags");
    LOCK(ctx->impl);
    return ctx->impl->host_register(ptr, bytes, flags & SIMTGPU_MEMHOSTREGISTER_READ_ONLY);
}

SIMTGPU_API simtgpuResult simtgpuMemHostUnregister(simtgpuContext ctx, void *ptr) {
    CHECK_ARG(ctx && ptr, "ctx or ptr is NULL");
    LOCK(ctx->impl);
    return ctx->impl->host_unregister(ptr);
}

SIMTGPU_API int simtgpuMemIsHostAllocated(simtgpuContext ctx, const void *ptr) {
    if (!ctx)
        return 0;
    LOCK(ctx->impl);
    return ctx->impl->is_host_allocated(ptr);
}

SIMTGPU_API simtgpuResult simtgpuMemAllocManaged(simtgpuContext ctx, void **ptr, size_t bytes) {
    CHECK_ARG(ctx && ptr, "ctx or ptr is NULL");
    CHECK_ARG(bytes > 0, "allocation of 0 bytes");
    LOCK(ctx->impl);
    return ctx->impl->managed_alloc(bytes, ptr);
}

SIMTGPU_API simtgpuResult simtgpuMemFreeManaged(simtgpuContext ctx, void *ptr) {
    CHECK_ARG(ctx, "ctx is NULL");
    if (!ptr)
        return SIMTGPU_SUCCESS;
    LOCK(ctx->impl);
    return ctx->impl->managed_free(ptr);
}

SIMTGPU_API simtgpuResult simtgpuMemPrefetchManaged(simtgpuContext ctx, const void *ptr,
                                                   size_t bytes, int to_host,
                                                   simtgpuStream stream, size_t *moved) {
    CHECK_ARG(ctx && ptr && bytes, "ctx or ptr is NULL, or bytes is 0");
    CHECK_ARG(to_host == 0 || to_host == 1, "to_host must be 0 or 1");
    LOCK(ctx->impl);
    Context &c = *ctx->impl;
    CHECK_ARG(!stream || stream->ctx == &c, "the stream belongs to another context");
    const uint64_t va = reinterpret_cast<uint64_t>(ptr);
    Bo *bo = nullptr;
    if (simtgpuResult r = managed_range(c, va, bytes, 8, "MANAGED_PREFETCH", &bo))
        return r;
    // The stream's work first, as CUDA orders a prefetch in its stream.
    if (simtgpuResult r = c.synchronize(*c.stream(stream)))
        return r;
    drm_simtgpu_managed_prefetch prefetch{};
    prefetch.handle = bo->handle;
    prefetch.flags = to_host ? SIMTGPU_PREFETCH_TO_HOST : 0;
    prefetch.offset = va - bo->va;
    prefetch.size = bytes;
    if (int rc = c.transport().ioctl(DRM_IOCTL_SIMTGPU_MANAGED_PREFETCH, &prefetch))
        return fail_errno(rc, "MANAGED_PREFETCH");
    if (moved)
        *moved = size_t(prefetch.moved);
    return SIMTGPU_SUCCESS;
}

SIMTGPU_API simtgpuResult simtgpuMemAdviseManaged(simtgpuContext ctx, const void *ptr,
                                                 size_t bytes, simtgpuManagedAdvice advice) {
    CHECK_ARG(ctx && ptr && bytes, "ctx or ptr is NULL, or bytes is 0");
    CHECK_ARG(advice >= SIMTGPU_MANAGED_PREFER_HOST &&
                  advice <= SIMTGPU_MANAGED_UNSET_READ_MOSTLY,
              "unknown managed-memory advice");
    LOCK(ctx->impl);
    Context &c = *ctx->impl;
    const uint64_t va = reinterpret_cast<uint64_t>(ptr);
    const bool read_mostly =
        advice == SIMTGPU_MANAGED_READ_MOSTLY || advice == SIMTGPU_MANAGED_UNSET_READ_MOSTLY;
    Bo *bo = nullptr;
    if (simtgpuResult r = managed_range(c, va, bytes, read_mostly ? 10 : 9,
                                        read_mostly ? "MANAGED_ADVISE READ_MOSTLY" : "MANAGED_ADVISE",
                                        &bo))
        return r;
    // The uAPI's values are the driver API's (static_asserts below).
    drm_simtgpu_managed_advise a{};
    a.handle = bo->handle;
    a.advice = uint32_t(advice);
    a.offset = va - bo->va;
    a.size = bytes;
    if (int rc = c.transport().ioctl(DRM_IOCTL_SIMTGPU_MANAGED_ADVISE, &a))
        return fail_errno(rc, "MANAGED_ADVISE");
    return SIMTGPU_SUCCESS;
}
static_assert(int(SIMTGPU_MANAGED_PREFER_HOST) == SIMTGPU_ADVISE_PREFER_HOST &&
              int(SIMTGPU_MANAGED_PREFER_VRAM) == SIMTGPU_ADVISE_PREFER_VRAM &&
              int(SIMTGPU_MANAGED_UNSET_PREFERRED) == SIMTGPU_ADVISE_UNSET_PREFERRED &&
              int(SIMTGPU_MANAGED_ACCESSED_BY_GPU) == SIMTGPU_ADVISE_ACCESSED_BY_GPU &&
              int(SIMTGPU_MANAGED_UNSET_ACCESSED_BY_GPU) == SIMTGPU_ADVISE_UNSET_ACCESSED_BY_GPU &&
              int(SIMTGPU_MANAGED_READ_MOSTLY) == SIMTGPU_ADVISE_READ_MOSTLY &&
              int(SIMTGPU_MANAGED_UNSET_READ_MOSTLY) == SIMTGPU_ADVISE_UNSET_READ_MOSTLY);

SIMTGPU_API simtgpuResult simtgpuCtxGetManagedStats(simtgpuContext ctx,
                                                   simtgpuManagedStats *stats) {
    CHECK_ARG(ctx && stats, "ctx or stats is NULL");
    LOCK(ctx->impl);
    return ctx->impl->managed_stats(stats);
}

SIMTGPU_API simtgpuResult simtgpuMemcpyHtoD(simtgpuContext ctx, simtgpuDevicePtr dst,
                                           const void *src, size_t bytes) {
    CHECK_ARG(ctx, "ctx is NULL");
    if (!bytes)
        return SIMTGPU_SUCCESS;
    CHECK_ARG(src, "src is NULL");
    LOCK(ctx->impl);
    if (!ctx->impl->find_device(dst, bytes))
        return bad_range("destination", dst, bytes);
    return ctx->impl->memcpy_htod(dst, src, bytes);
}

SIMTGPU_API simtgpuResult simtgpuMemcpyDtoH(simtgpuContext ctx, void *dst, simtgpuDevicePtr src,
                                           size_t bytes) {
    CHECK_ARG(ctx, "ctx is NULL");
    if (!bytes)
        return SIMTGPU_SUCCESS;
    CHECK_ARG(dst, "dst is NULL");
    LOCK(ctx->impl);
    if (!ctx->impl->find_device(src, bytes))
        return bad_range("source", src, bytes);
    return ctx->impl->memcpy_dtoh(dst, src, bytes);
}

SIMTGPU_API simtgpuResult simtgpuMemcpyDtoDAsync(simtgpuContext ctx, simtgpuDevicePtr dst,
                                                simtgpuDevicePtr src, size_t bytes,
                                                simtgpuStream stream) {
    CHECK_ARG(ctx, "ctx is NULL");
    if (!bytes)
        return SIMTGPU_SUCCESS;
    LOCK(ctx->impl);
    Context &c = *ctx->impl;
    if (!c.find_device(dst, bytes))
        return bad_range("destination", dst, bytes);
    if (!c.find_device(src, bytes))
        return bad_range("source", src, bytes);
    return c.memcpy_dtod_async(*c.stream(stream), dst, src, bytes);
}

SIMTGPU_API simtgpuResult simtgpuMemcpyDtoD(simtgpuContext ctx, simtgpuDevicePtr dst,
                                           simtgpuDevicePtr src, size_t bytes) {
    if (simtgpuResult r = simtgpuMemcpyDtoDAsync(ctx, dst, src, bytes, nullptr))
        return r;
    LOCK(ctx->impl);
    return ctx->impl->synchronize_all();
}

SIMTGPU_API simtgpuResult simtgpuMemcpyHtoDAsync(simtgpuContext ctx, simtgpuDevicePtr dst,
                                                const void *src, size_t bytes,
                                                simtgpuStream stream) {
    CHECK_ARG(ctx, "ctx is NULL");
    if (!bytes)
        return SIMTGPU_SUCCESS;
    CHECK_ARG(src, "src is NULL");
    LOCK(ctx->impl);
    Context &c = *ctx->impl;
    if (!c.find_device(dst, bytes))
        return bad_range("destination", dst, bytes);
    return c.memcpy_htod_async(*c.stream(stream), dst, src, bytes);
}

SIMTGPU_API simtgpuResult simtgpuMemcpyDtoHAsync(simtgpuContext ctx, void *dst,
                                                simtgpuDevicePtr src, size_t bytes,
                                                simtgpuStream stream) {
    CHECK_ARG(ctx, "ctx is NULL");
    if (!bytes)
        return SIMTGPU_SUCCESS;
    CHECK_ARG(dst, "dst is NULL");
    LOCK(ctx->impl);
    Context &c = *ctx->impl;
    if (!c.find_device(src, bytes))
        return bad_range("source", src, bytes);
    return c.memcpy_dtoh_async(*c.stream(stream), dst, src, bytes);
}

SIMTGPU_API simtgpuResult simtgpuMemsetD8Async(simtgpuContext ctx, simtgpuDevicePtr dst,
                                              uint8_t value, size_t bytes,
                                              simtgpuStream stream) {
    CHECK_ARG(ctx, "ctx is NULL");
    if (!bytes)
        return SIMTGPU_SUCCESS;
    LOCK(ctx->impl);
    Context &c = *ctx->impl;
    if (!c.find_device(dst, bytes))
        return bad_range("destination", dst, bytes);
    return c.memset8_async(*c.stream(stream), dst, value, bytes);
}

SIMTGPU_API simtgpuResult simtgpuMemsetD8(simtgpuContext ctx, simtgpuDevicePtr dst,
                                         uint8_t value, size_t bytes) {
    if (simtgpuResult r = simtgpuMemsetD8Async(ctx, dst, value, bytes, nullptr))
        return r;
    LOCK(ctx->impl);
    return ctx->impl->synchronize_all();
}

SIMTGPU_API simtgpuResult simtgpuMemsetD32(simtgpuContext ctx, simtgpuDevicePtr dst,
                                          uint32_t value, size_t count) {
    CHECK_ARG(ctx, "ctx is NULL");
    CHECK_ARG(!(dst & 3), "simtgpuMemsetD32 needs a 4-byte aligned address");
    if (!count)
        return SIMTGPU_SUCCESS;
    LOCK(ctx->impl);
    Context &c = *ctx->impl;
    if (!c.find_device(dst, count * 4))
        return bad_range("destination", dst, count * 4);
    return c.memset32(dst, value, count);
}

// ------------------------------------------------------------ modules ---

SIMTGPU_API simtgpuResult simtgpuModuleLoadData(simtgpuModule *module, simtgpuContext ctx,
                                               const void *image, size_t bytes) {
    CHECK_ARG(module && ctx && image, "module, ctx or image is NULL");
    LOCK(ctx->impl);
    Context &c = *ctx->impl;
    DeviceImage parsed;
    std::string error;
    if (!parse_device_image(image, bytes, &parsed, &error))
        return fail(SIMTGPU_ERROR_INVALID_IMAGE, error);
    if (parsed.arch > c.props().arch)
        return fail(SIMTGPU_ERROR_NO_BINARY_FOR_GPU,
                    "the device image was built for simt_" + std::to_string(parsed.arch) +
                        ", but the device is simt_" + std::to_string(c.props().arch) +
                        ": rebuild it with simtcc -arch=simt_" +
                        std::to_string(c.props().arch));
    Bo bo;
    if (simtgpuResult r = c.create_bo(parsed.bytes.size(), SIMTGPU_BO_EXEC, &bo))
        return r;
    bo.kind = BoKind::Module;
    simtgpuModule_st &m = c.modules.emplace_back();
    m.ctx = &c;
    m.image = std::move(parsed);
    m.loaded = m.image.relocated(bo.va);
    m.bo = bo;
    std::memcpy(bo.cpu, m.loaded.data(), m.loaded.size());
    for (const auto &k : m.image.kernels)
        m.functions.push_back({&m, &k, bo.va + k.entry_offset});
    c.track_module_bo(bo);
    *module = &m;
    return SIMTGPU_SUCCESS;
}

SIMTGPU_API simtgpuResult simtgpuModuleLoad(simtgpuModule *module, simtgpuContext ctx,
                                           const char *path) {
    CHECK_ARG(path, "path is NULL");
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return fail(SIMTGPU_ERROR_NOT_FOUND, std::string("cannot open ") + path);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    simtgpuResult r = simtgpuModuleLoadData(module, ctx, bytes.data(), bytes.size());
    if (r == SIMTGPU_ERROR_INVALID_IMAGE)
        return fail(r, std::string(path) + ": " + last_detail_c());
    return r;
}

SIMTGPU_API simtgpuResult simtgpuModuleUnload(simtgpuModule module) {
    if (!module)
        return fail(SIMTGPU_ERROR_INVALID_HANDLE, "module is NULL");
    Context &c = *module->ctx;
    LOCK(&c);
    c.synchronize_all();
    c.untrack_module_bo(module->bo.va);
    c.destroy_bo(module->bo);
    c.modules.remove_if([module](const simtgpuModule_st &m) { return &m == module; });
    return SIMTGPU_SUCCESS;
}

SIMTGPU_API simtgpuResult simtgpuModuleGetFunction(simtgpuFunction *function,
                                                  simtgpuModule module, const char *name) {
    CHECK_ARG(function && module && name, "function, module or name is NULL");
    for (auto &f : module->functions)
        if (f.info->name == name) {
            *function = &f;
            return SIMTGPU_SUCCESS;
        }
    return fail(SIMTGPU_ERROR_NOT_FOUND, std::string("no kernel named ") + name + " in the module");
}

SIMTGPU_API simtgpuResult simtgpuModuleGetGlobal(simtgpuDevicePtr *dptr, size_t *bytes,
                                                simtgpuModule module, const char *name) {
    CHECK_ARG(module && name, "module or name is NULL");
    auto it = module->image.symbols.find(name);
    if (it == module->image.symbols.end())
        return fail(SIMTGPU_ERROR_NOT_FOUND, std::string("no symbol named ") + name + " in the module");
    if (dptr)
        *dptr = module->bo.va + it->second.offset;
    if (bytes)
        *bytes = it->second.size;
    return SIMTGPU_SUCCESS;
}

SIMTGPU_API simtgpuResult simtgpuModuleGetArch(simtgpuModule module, uint32_t *arch) {
    CHECK_ARG(module && arch, "module or arch is NULL");
    *arch = module->image.arch;
    return SIMTGPU_SUCCESS;
}

SIMTGPU_API simtgpuResult simtgpuFuncGetAttribute(int *value, simtgpuFunctionAttribute attr,
                                                 simtgpuFunction f) {
    CHECK_ARG(value && f, "value or function is NULL");
    const KernelInfo &k = *f->info;
    switch (attr) {
    case SIMTGPU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: {
        uint32_t device_max = f->module->ctx->props().max_threads_per_cta;
        *value = int(k.max_threads_per_cta ? std::min(k.max_threads_per_cta, device_max)
                                           : device_max);
        return SIMTGPU_SUCCESS;
    }
    case SIMTGPU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *value = int(k.static_shared_bytes); return SIMTGPU_SUCCESS;
    case SIMTGPU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: *value = int(k.stack_bytes); return SIMTGPU_SUCCESS;
    case SIMTGPU_FUNC_ATTRIBUTE_PARAM_BYTES: *value = int(k.param_bytes); return SIMTGPU_SUCCESS;
    case SIMTGPU_FUNC_ATTRIBUTE_NUM_PARAMS: *value = int(k.params.size()); return SIMTGPU_SUCCESS;
    case SIMTGPU_FUNC_ATTRIBUTE_ARCH: *value = int(f->module->image.arch); return SIMTGPU_SUCCESS;
    }
    return fail(SIMTGPU_ERROR_INVALID_VALUE, "unknown function attribute");
}

SIMTGPU_API simtgpuResult simtgpuFuncGetName(const char **name, simtgpuFunction f) {
    CHECK_ARG(name && f, "name or function is NULL");
    *name = f->info->name.c_str();
    return SIMTGPU_SUCCESS;
}

SIMTGPU_API simtgpuResult simtgpuFuncGetParamInfo(simtgpuFunction f, unsigned index,
                                                 size_t *offset, size_t *size) {
    CHECK_ARG(f, "function is NULL");
    if (index >= f->info->params.size())
        return fail(SIMTGPU_ERROR_INVALID_VALUE, "parameter index out of range");
    if (offset)
        *offset = f->info->params[index].offset;
    if (size)
        *size = f->info->params[index].size;
    return SIMTGPU_SUCCESS;
}

SIMTGPU_API simtgpuResult simtgpuOccupancyMaxActiveBlocksPerMultiprocessor(
    int *num_blocks, simtgpuFunction f, int block_size, size_t dynamic_shared) {
    CHECK_ARG(num_blocks && f, "num_blocks or function is NULL");
    CHECK_ARG(block_size > 0, "block size must be positive");
    const simtgpuDeviceProperties &p = f->module->ctx->props();
    simtgpu_sm_resources r{p.warps_per_sm, p.warp_size, p.ctas_per_sm, p.shared_per_sm};
    uint64_t shared = f->info->static_shared_bytes + dynamic_shared;
    uint32_t max_threads = f->info->max_threads_per_cta ? f->info->max_threads_per_cta
                                                        : p.max_threads_per_cta;
    if (shared > UINT32_MAX || uint32_t(block_size) > max_threads) {
        *num_blocks = 0;
        return SIMTGPU_SUCCESS;
    }
    *num_blocks = int(simtgpu_max_ctas_per_sm(&r, uint32_t(block_size), uint32_t(shared)));
    return SIMTGPU_SUCCESS;
}

// ----------------------------------------------------------- launches ---

SIMTGPU_API simtgpuResult simtgpuLaunchKernel(simtgpuFunction f, unsigned gx, unsigned gy,
                                             unsigned gz, unsigned bx, unsigned by, unsigned bz,
                                             unsigned dynamic_shared, simtgpuStream stream,
                                             void **params, void **extra) {
    CHECK_ARG(!extra, "extra must be NULL");
    const simtgpuLaunchConfig config{{gx, gy, gz}, {bx, by, bz}, dynamic_shared, stream, nullptr};
    return simtgpuLaunchKernelEx(f, &config, params);
}

SIMTGPU_API simtgpuResult simtgpuLaunchKernelEx(simtgpuFunction f,
                                               const simtgpuLaunchConfig *config, void **params) {
    CHECK_ARG(f && config, "function or config is NULL");
    const unsigned gx = config->grid[0], gy = config->grid[1], gz = config->grid[2];
    const unsigned bx = config->block[0], by = config->block[1], bz = config->block[2];
    const unsigned dynamic_shared = config->dynamic_shared;
    Context &c = *f->module->ctx;
    LOCK(&c);
    CHECK_ARG(!config->stream || config->stream->ctx == &c,
              "the stream belongs to another context");
    if (config->l2_window)
        if (simtgpuResult r = check_window(c, *config->l2_window))
            return r;
    if (simtgpuResult r = c.sticky_error())
        return fail(r, "the context has a sticky error from an earlier failure");
    const KernelInfo &k = *f->info;
    const simtgpuDeviceProperties &p = c.props();
    uint64_t threads = uint64_t(bx) * by * bz;
    uint32_t max_threads = k.max_threads_per_cta ? std::min(k.max_threads_per_cta,
                                                            p.max_threads_per_cta)
                                                 : p.max_threads_per_cta;
    if (!gx || !gy || !gz || !bx || !by || !bz || gx > 0x7fffffffu || gy > 65535 ||
        gz > 65535 || bz > SIMTGPU_MAX_BLOCK_DIM_Z || threads > max_threads)
        return fail(SIMTGPU_ERROR_INVALID_CONFIGURATION,
                    "kernel " + k.name + ": grid (" + std::to_string(gx) + "," +
                        std::to_string(gy) + "," + std::to_string(gz) + ") block (" +
                        std::to_string(bx) + "," + std::to_string(by) + "," +
                        std::to_string(bz) + "): every dimension must be >= 1 and a block "
                        "at most " + std::to_string(max_threads) + " threads");
    uint64_t shared = uint64_t(k.static_shared_bytes) + dynamic_shared;
    if (shared > p.shared_per_sm)
        return fail(SIMTGPU_ERROR_LAUNCH_OUT_OF_RESOURCES,
                    "kernel " + k.name + " needs " + std::to_string(shared) +
                        " bytes of shared memory per block; an SM has " +
                        std::to_string(p.shared_per_sm));
    uint32_t stack = (std::max(k.stack_bytes, c.stack_floor) + 15) & ~15u;
    if (stack > p.max_stack_per_thread)
        return fail(SIMTGPU_ERROR_LAUNCH_OUT_OF_RESOURCES,
                    "kernel " + k.name + " needs " + std::to_string(stack) +
                        " bytes of stack per thread; the device allows " +
                        std::to_string(p.max_stack_per_thread));
    if (f->module->image.arch > p.arch)
        return fail(SIMTGPU_ERROR_NO_BINARY_FOR_GPU,
                    "kernel " + k.name + " was built for simt_" +
                        std::to_string(f->module->image.arch) + ", the device is simt_" +
                        std::to_string(p.arch));
    CHECK_ARG(params || k.params.empty(), "kernel " + k.name + " takes parameters: params is NULL");

    simtgpuStream_st &s = *c.stream(config->stream);
    if (simtgpuResult r = c.ensure_env(s))
        return r;
    c.launched = true;
    // Parameters, then the launch report the device writes.
    const uint32_t report_offset = (std::max<uint32_t>(k.param_bytes, 16) + 15) & ~15u;
    Bo param_bo;
    if (simtgpuResult r =
            c.create_bo(report_offset + sizeof(simtgpu_launch_report), 0, &param_bo))
        return r;
    for (size_t i = 0; i < k.params.size(); ++i)
        std::memcpy(param_bo.cpu + k.params[i].offset, params[i], k.params[i].size);

    simtgpu_pkt_launch launch{};
    launch.entry_pc = f->entry_va;
    launch.param_va = param_bo.va;
    launch.grid[0] = gx;
    launch.grid[1] = gy;
    launch.grid[2] = gz;
    launch.block[0] = bx;
    launch.block[1] = by;
    launch.block[2] = bz;
    launch.shared_bytes = uint32_t(shared);
    launch.stack_bytes = stack;
    launch.env_va = s.env.va;
    launch.report_va = param_bo.va + report_offset;
    launch.arch = f->module->image.arch;
    std::vector<uint32_t> ib;
    const simtgpuAccessPolicyWindow &w = config->l2_window ? *config->l2_window : s.l2_window;
    if (w.bytes) {
        // The window holds for the launches after it in this indirect
        // buffer: this one.
        put_packet(ib, SIMTGPU_PKT_L2_POLICY,
                   simtgpu_pkt_l2_policy{w.base, w.bytes, l2_hit_ratio(w.hit_ratio),
                                         uint32_t(w.hit_prop), uint32_t(w.miss_prop), 0, 0},
                   SIMTGPU_PKTF_L2_WINDOW);
    }
    put_packet(ib, SIMTGPU_PKT_LAUNCH, launch);
    return c.submit_launch(s, ib, param_bo, k.name, report_offset);
}

SIMTGPU_API simtgpuResult simtgpuCtxGetKernelStats(simtgpuContext ctx, const char *kernel,
                                                  simtgpuKernelStats *stats) {
    CHECK_ARG(ctx && kernel && stats, "ctx, kernel or stats is NULL");
    LOCK(ctx->impl);
    ctx->impl->poll_all();
    const auto &all = ctx->impl->kernel_stats();
    auto it = all.find(kernel);
    *stats = it == all.end() ? simtgpuKernelStats{} : it->second;
    return SIMTGPU_SUCCESS;
}

// ------------------------------------------------------------ streams ---

SIMTGPU_API simtgpuResult simtgpuStreamCreate(simtgpuStream *stream, simtgpuContext ctx,
                                             unsigned flags, int priority) {
    CHECK_ARG(stream && ctx, "stream or ctx is NULL");
    CHECK_ARG(!(flags & ~SIMTGPU_STREAM_NON_BLOCKING), "unknown stream flags");
    LOCK(ctx->impl);
    return ctx->impl->create_stream(flags, priority, stream);
}

SIMTGPU_API simtgpuResult simtgpuStreamGetPriority(simtgpuStream stream, int *priority) {
    CHECK_ARG(stream && priority, "stream or priority is NULL");
    *priority = stream->priority;
    return SIMTGPU_SUCCESS;
}

SIMTGPU_API simtgpuResult simtgpuStreamSetAccessPolicyWindow(
    simtgpuContext ctx, simtgpuStream stream, const simtgpuAccessPolicyWindow *window) {
    CHECK_ARG(ctx && window, "ctx or window is NULL");
    LOCK(ctx->impl);
    Context &c = *ctx->impl;
    CHECK_ARG(!stream || stream->ctx == &c, "the stream belongs to another context");
    if (simtgpuResult r = check_window(c, *window))
        return r;
    c.stream(stream)->l2_window = *window;
    return SIMTGPU_SUCCESS;
}

SIMTGPU_API simtgpuResult simtgpuStreamGetAccessPolicyWindow(simtgpuContext ctx,
                                                            simtgpuStream stream,
                                                            simtgpuAccessPolicyWindow *window) {
    CHECK_ARG(ctx && window, "ctx or window is NULL");
    LOCK(ctx->impl);
    CHECK_ARG(!stream || stream->ctx == ctx->impl.get(), "the stream belongs to another context");
    *window = ctx->impl->stream(stream)->l2_window;
    return SIMTGPU_SUCCESS;
}

SIMTGPU_API simtgpuResult simtgpuCtxReadCounters(simtgpuContext ctx, uint64_t *values,
                                                size_t count) {
    CHECK_ARG(ctx && (values || !count), "ctx or values is NULL");
    LOCK(ctx->impl);
    std::vector<uint64_t> all(SIMTGPU_NUM_COUNTERS);
    if (ctx->impl->transport().read_counters(all.data()) != 0)
        return fail(SIMTGPU_ERROR_NOT_SUPPORTED,
                    "the driver serves no counters (no sysfs counters/ directory)");
    std::copy_n(all.begin(), std::min<size_t>(count, all.size()), values);
    return SIMTGPU_SUCCESS;
}

SIMTGPU_API simtgpuResult simtgpuCtxResetPersistingL2Cache(simtgpuContext ctx) {
    CHECK_ARG(ctx, "ctx is NULL");
    LOCK(ctx->impl);
    Context &c = *ctx->impl;
    if (c.props().l2_persisting_max == 0)
        return SIMTGPU_SUCCESS; // no persisting line can exist
    std::vector<uint32_t> ib;
    put_packet(ib, SIMTGPU_PKT_L2_POLICY, simtgpu_pkt_l2_policy{}, SIMTGPU_PKTF_L2_RESET);
    return c.submit(*c.stream(nullptr), ib, {});
}

SIMTGPU_API simtgpuResult simtgpuStreamDestroy(simtgpuStream stream) {
    if (!stream)
        return fail(SIMTGPU_ERROR_INVALID_HANDLE, "cannot destroy the default stream");
    Context &c = *stream->ctx;
    LOCK(&c);
    return c.destroy_stream(stream);
}

SIMTGPU_API simtgpuResult simtgpuStreamSynchronize(simtgpuContext ctx, simtgpuStream stream) {
    CHECK_ARG(ctx, "ctx is NULL");
    LOCK(ctx->impl);
    return ctx->impl->synchronize(*ctx->impl->stream(stream));
}

SIMTGPU_API simtgpuResult simtgpuStreamQuery(simtgpuContext ctx, simtgpuStream stream) {
    CHECK_ARG(ctx, "ctx is NULL");
    LOCK(ctx->impl);
    return ctx->impl->query(*ctx->impl->stream(stream));
}

SIMTGPU_API simtgpuResult simtgpuStreamWaitEvent(simtgpuContext ctx, simtgpuStream stream,
                                                simtgpuEvent event, unsigned flags) {
    CHECK_ARG(ctx && event, "ctx or event is NULL");
    CHECK_ARG(flags == 0, "flags must be 0");
    LOCK(ctx->impl);
    if (!event->recorded)
        return SIMTGPU_SUCCESS;
    simtgpuStream_st &s = *ctx->impl->stream(stream);
    // The record current now, not one made before the stream's next work.
    uint32_t snapshot = 0;
    if (Context::pending(event->held)) { // its record waits behind a host function
        if (simtgpuResult r = ctx->impl->follow_held_record(event->held, &snapshot))
            return r;
        s.pending_after.push_back(event->held);
    } else if (simtgpuResult r = ctx->impl->snapshot_syncobj(event->syncobj, &snapshot)) {
        return r;
    }
    s.pending_waits.push_back(snapshot);
    return SIMTGPU_SUCCESS;
}

SIMTGPU_API simtgpuResult simtgpuLaunchHostFunc(simtgpuContext ctx, simtgpuStream stream,
                                               simtgpuHostFn fn, void *user, unsigned flags) {
    CHECK_ARG(ctx && fn, "ctx or fn is NULL");
    CHECK_ARG(!(flags & ~SIMTGPU_HOST_FN_AFTER_ERROR), "unknown host function flags");
    LOCK(ctx->impl);
    return ctx->impl->launch_host_func(*ctx->impl->stream(stream), fn, user, flags);
}

SIMTGPU_API simtgpuResult simtgpuStreamGetFlags(simtgpuStream stream, unsigned *flags) {
    CHECK_ARG(flags, "flags is NULL");
    *flags = stream ? stream->flags : 0;
    return SIMTGPU_SUCCESS;
}

// ------------------------------------------------------------- events ---

SIMTGPU_API simtgpuResult simtgpuEventCreate(simtgpuEvent *event, simtgpuContext ctx,
                                            unsigned flags) {
    CHECK_ARG(event && ctx, "event or ctx is NULL");
    CHECK_ARG(!(flags & ~(SIMTGPU_EVENT_BLOCKING_SYNC | SIMTGPU_EVENT_DISABLE_TIMING)),
              "unknown event flags");
    LOCK(ctx->impl);
    Context &c = *ctx->impl;
    Bo timestamp;
    if (!(flags & SIMTGPU_EVENT_DISABLE_TIMING))
        if (simtgpuResult r = c.create_bo(8, 0, &timestamp))
            return r;
    drm_syncobj_create create{};
    if (int rc = c.transport().ioctl(DRM_IOCTL_SYNCOBJ_CREATE, &create)) {
        c.destroy_bo(timestamp);
        return fail_errno(rc, "SYNCOBJ_CREATE");
    }
    simtgpuEvent_st &e = c.events.emplace_back();
    e.ctx = &c;
    e.flags = flags;
    e.syncobj = create.handle;
    e.timestamp = timestamp;
    *event = &e;
    return SIMTGPU_SUCCESS;
}

SIMTGPU_API simtgpuResult simtgpuEventDestroy(simtgpuEvent event) {
    if (!event)
        return fail(SIMTGPU_ERROR_INVALID_HANDLE, "event is NULL");
    Context &c = *event->ctx;
    LOCK(&c);
    if (event->recorded) { // its timestamp BO may still be written
        c.wait_held([event] { return !Context::pending(event->held); });
        bool signaled = false;
        c.wait_syncobj(event->syncobj, true, &signaled);
    }
    drm_syncobj_destroy d{event->syncobj, 0};
    c.transport().ioctl(DRM_IOCTL_SYNCOBJ_DESTROY, &d);
    c.destroy_bo(event->timestamp);
    c.events.remove_if([event](const simtgpuEvent_st &e) { return &e == event; });
    return SIMTGPU_SUCCESS;
}

SIMTGPU_API simtgpuResult simtgpuEventRecord(simtgpuEvent event, simtgpuStream stream) {
    if (!event)
        return fail(SIMTGPU_ERROR_INVALID_HANDLE, "event is NULL");
    Context &c = *event->ctx;
    LOCK(&c);
    std::vector<uint32_t> ib;
    if (event->timestamp.handle)
        put_packet(ib, SIMTGPU_PKT_TIMESTAMP, simtgpu_pkt_timestamp{event->timestamp.va});
    else
        ib.push_back(SIMTGPU_PKT_HEADER(SIMTGPU_PKT_NOP, 0, 0));
    simtgpuStream_st &s = *c.stream(stream);
    if (simtgpuResult r = c.submit(s, ib, {}, {event->syncobj}))
        return r;
    event->recorded = true;
    // Held behind a host function, the record is the stream's last held work.
    event->held = s.held.empty() ? HeldAfter{nullptr, 0} : HeldAfter{&s, s.held.back().seq};
    return SIMTGPU_SUCCESS;
}

SIMTGPU_API simtgpuResult simtgpuEventSynchronize(simtgpuEvent event) {
    if (!event)
        return fail(SIMTGPU_ERROR_INVALID_HANDLE, "event is NULL");
    Context &c = *event->ctx;
    LOCK(&c);
    if (!event->recorded)
        return SIMTGPU_SUCCESS;
    c.wait_held([event] { return !Context::pending(event->held); });
    bool signaled = false;
    if (simtgpuResult r = c.wait_syncobj(event->syncobj, true, &signaled))
        return r;
    // As CUDA, an event synchronisation flushes device printf (of the work
    // that is complete) and reports failures.
    return c.poll_all();
}

SIMTGPU_API simtgpuResult simtgpuEventQuery(simtgpuEvent event) {
    if (!event)
        return fail(SIMTGPU_ERROR_INVALID_HANDLE, "event is NULL");
    Context &c = *event->ctx;
    LOCK(&c);
    if (!event->recorded)
        return SIMTGPU_SUCCESS;
    if (Context::pending(event->held))
        return SIMTGPU_ERROR_NOT_READY;
    bool signaled = false;
    if (simtgpuResult r = c.wait_syncobj(event->syncobj, false, &signaled))
        return r;
    return signaled ? SIMTGPU_SUCCESS : SIMTGPU_ERROR_NOT_READY;
}

SIMTGPU_API simtgpuResult simtgpuEventElapsedTime(float *ms, simtgpuEvent start,
                                                 simtgpuEvent end) {
    CHECK_ARG(ms, "ms is NULL");
    if (!start || !end || start->ctx != end->ctx)
        return fail(SIMTGPU_ERROR_INVALID_HANDLE, "events are NULL or of different contexts");
    if (!start->timestamp.handle || !end->timestamp.handle)
        return fail(SIMTGPU_ERROR_INVALID_HANDLE, "an event was created with DISABLE_TIMING");
    if (!start->recorded || !end->recorded)
        return fail(SIMTGPU_ERROR_INVALID_HANDLE, "an event has not been recorded");
    Context &c = *start->ctx;
    LOCK(&c);
    for (simtgpuEvent e : {start, end}) {
        if (Context::pending(e->held))
            return fail(SIMTGPU_ERROR_NOT_READY, "an event has not completed yet");
        bool signaled = false;
        if (simtgpuResult r = c.wait_syncobj(e->syncobj, false, &signaled))
            return r;
        if (!signaled)
            return fail(SIMTGPU_ERROR_NOT_READY, "an event has not completed yet");
    }
    uint64_t t0, t1;
    std::memcpy(&t0, start->timestamp.cpu, 8);
    std::memcpy(&t1, end->timestamp.cpu, 8);
    *ms = float(double(int64_t(t1 - t0)) / 1e6);
    return SIMTGPU_SUCCESS;
}

} // extern "C"
