// libFuzzer target: the in-process implementation of the uAPI
// (umd/src/simkmd), the kernel driver's stand-in for host-only runs, fed
// random but structurally plausible ioctl sequences as syzkaller feeds a
// DRM driver. Each input opens a fresh file on the one device, runs its
// operations and closes the file. Handles, GPU addresses, queues and
// syncobjs that calls return go into pools that later calls pick from, so a
// sequence can create, use, close and then reuse a handle. What a real
// driver reaches through copy_from_user (arrays of BO references, syncs,
// handles and points; a userptr range) lies here in the harness's own
// buffers of the sizes the call claims, so that every memory error ASan
// reports is the implementation's; the timeouts of waits are clamped to
// 20 ms ahead. The simulator is this build's instrumented copy
// (libsimtgpu-sim-fuzz.so through SIMTGPU_SIM_LIBRARY).
#include "simkmd/sim_kmd.h"
#include "uapi/drm/simtgpu_drm.h"

#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

using simtgpu::umd::simkmd::SimFile;

namespace {

struct Bo {
    uint32_t handle;
    uint64_t va, size;
};

struct Pools {
    std::vector<Bo> bos;
    std::vector<uint32_t> queues, syncobjs;
};

// A value from `pool`, or (one time in eight, or with an empty pool) any.
uint32_t pick(FuzzedDataProvider &in, const std::vector<uint32_t> &pool) {
    if (pool.empty() || in.ConsumeIntegralInRange(0, 7) == 0)
        return in.ConsumeIntegral<uint32_t>();
    return pool[in.ConsumeIntegralInRange<size_t>(0, pool.size() - 1)];
}
uint32_t pick_bo(FuzzedDataProvider &in, const Pools &p) {
    std::vector<uint32_t> handles;
    for (const Bo &b : p.bos)
        handles.push_back(b.handle);
    return pick(in, handles);
}
// Mostly 0 (the rule), now and then anything: pads, extensions, flags.
template <class T> T mostly_zero(FuzzedDataProvider &in) {
    return in.ConsumeIntegralInRange(0, 15) == 0 ? in.ConsumeIntegral<T>() : T(0);
}
int64_t soon(FuzzedDataProvider &in) {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec +
           in.ConsumeIntegralInRange<int64_t>(0, 20000000);
}

// An array the call reads or writes: `count` records of `stride` bytes,
// sized to what the call is told.
struct Array {
    std::vector<uint8_t> bytes;
    uint32_t count = 0, stride = 0;
    uint64_t ptr() { return bytes.empty() ? 0 : uint64_t(uintptr_t(bytes.data())); }
};
Array array_of(FuzzedDataProvider &in, uint32_t natural, uint32_t max_count) {
    Array a;
    a.count = in.ConsumeIntegralInRange<uint32_t>(0, max_count);
    a.stride = in.ConsumeIntegralInRange(0, 7) ? natural : in.ConsumeIntegralInRange<uint32_t>(0, 64);
    a.bytes.resize(size_t(a.count) * a.stride + 1);
    // Zero (valid flags and pads) but one time in eight; the caller writes
    // the handles.
    if (in.ConsumeIntegralInRange(0, 7) == 0)
        for (auto &b : a.bytes)
            b = in.ConsumeIntegral<uint8_t>();
    return a;
}
// count handles (from the pool, mostly) and, with points, their points.
std::vector<uint32_t> handles_of(FuzzedDataProvider &in, const std::vector<uint32_t> &pool,
                                 uint32_t count) {
    std::vector<uint32_t> h(count + 1);
    for (auto &x : h)
        x = pick(in, pool);
    return h;
}
std::vector<uint64_t> points_of(FuzzedDataProvider &in, uint32_t count) {
    std::vector<uint64_t> p(count + 1);
    for (auto &x : p)
        x = in.ConsumeIntegralInRange<uint64_t>(0, 8);
    return p;
}

alignas(4096) uint8_t user_memory[16 * 4096];

// One ioctl; SIMTGPU_FUZZ_VERBOSE=1 prints each with its result (to check
// what the corpus reaches).
int call(SimFile &f, unsigned long request, void *arg) {
    const int rc = f.ioctl(request, arg);
    static const bool verbose = std::getenv("SIMTGPU_FUZZ_VERBOSE") != nullptr;
    if (verbose)
        std::fprintf(stderr, "ioctl %#lx: %d\n", request, rc);
    return rc;
}

void one_call(SimFile &f, FuzzedDataProvider &in, Pools &p) {
    switch (in.ConsumeIntegralInRange(0, 21)) {
    case 0: {
        drm_simtgpu_get_param a{in.ConsumeIntegralInRange<uint32_t>(0, 40), mostly_zero<uint32_t>(in), 0};
        call(f, DRM_IOCTL_SIMTGPU_GET_PARAM, &a);
        break;
    }
    case 1: {
        drm_simtgpu_bo_create a{};
        a.size = in.ConsumeBool() ? in.ConsumeIntegralInRange<uint64_t>(1, 1 << 20)
                                  : in.ConsumeIntegral<uint64_t>();
        a.flags = in.ConsumeIntegralInRange<uint32_t>(0, 31) | mostly_zero<uint32_t>(in);
        a.gpu_va = in.ConsumeIntegral<uint64_t>();
        a.extensions = mostly_zero<uint64_t>(in);
        if (call(f, DRM_IOCTL_SIMTGPU_BO_CREATE, &a) == 0)
            p.bos.push_back({a.handle, a.gpu_va, a.size});
        break;
    }
    case 2: {
        // A range of the harness's own memory, as a process would pass.
        drm_simtgpu_bo_userptr a{};
        const uint64_t first = in.ConsumeIntegralInRange<uint64_t>(0, sizeof user_memory - 1);
        a.user_ptr = uint64_t(uintptr_t(user_memory + first));
        a.size = in.ConsumeIntegralInRange<uint64_t>(0, sizeof user_memory - first);
        a.flags = in.ConsumeIntegralInRange<uint32_t>(0, 15) | mostly_zero<uint32_t>(in);
        a.gpu_va = in.ConsumeIntegral<uint64_t>();
        a.extensions = mostly_zero<uint64_t>(in);
        if (call(f, DRM_IOCTL_SIMTGPU_BO_USERPTR, &a) == 0)
            p.bos.push_back({a.handle, a.gpu_va, a.size});
        break;
    }
    case 3: {
        drm_simtgpu_managed_prefetch a{};
        a.handle = pick_bo(in, p);
        a.flags = in.ConsumeIntegralInRange<uint32_t>(0, 3);
        a.offset = in.ConsumeIntegralInRange<uint64_t>(0, 3 * 4096);
        a.size = in.ConsumeIntegralInRange<uint64_t>(0, 8 * 4096);
        a.extensions = mostly_zero<uint64_t>(in);
        call(f, DRM_IOCTL_SIMTGPU_MANAGED_PREFETCH, &a);
        break;
    }
    case 4: {
        drm_simtgpu_managed_advise a{};
        a.handle = pick_bo(in, p);
        a.advice = in.ConsumeIntegralInRange<uint32_t>(0, 8);
        a.offset = in.ConsumeIntegralInRange<uint64_t>(0, 3 * 4096);
        a.size = in.ConsumeIntegralInRange<uint64_t>(0, 8 * 4096);
        a.extensions = mostly_zero<uint64_t>(in);
        call(f, DRM_IOCTL_SIMTGPU_MANAGED_ADVISE, &a);
        break;
    }
    case 5: {
        // Map a BO and write into it (packets for a later SUBMIT, data).
        drm_simtgpu_bo_mmap_offset a{pick_bo(in, p), mostly_zero<uint32_t>(in), 0};
        if (call(f, DRM_IOCTL_SIMTGPU_BO_MMAP_OFFSET, &a) != 0)
            break;
        drm_simtgpu_bo_info info{a.handle, 0, 0, 0};
        if (call(f, DRM_IOCTL_SIMTGPU_BO_INFO, &info) != 0)
            break;
        const uint64_t ask = in.ConsumeBool() ? info.size : in.ConsumeIntegral<uint64_t>();
        auto *cpu = static_cast<uint8_t *>(f.mmap(a.offset, ask));
        if (!cpu || ask > info.size)
            break; // a mapping longer than the BO must be refused, and was
        const std::vector<uint8_t> bytes = in.ConsumeBytes<uint8_t>(
            in.ConsumeIntegralInRange<size_t>(0, std::min<uint64_t>(ask, 4096)));
        const uint64_t at = in.ConsumeIntegralInRange<uint64_t>(0, ask - bytes.size());
        if (!bytes.empty())
            std::memcpy(cpu + at, bytes.data(), bytes.size());
        break;
    }
    case 6: {
        drm_simtgpu_bo_info a{pick_bo(in, p), 0, 0, 0};
        call(f, DRM_IOCTL_SIMTGPU_BO_INFO, &a);
        break;
    }
    case 7: {
        drm_simtgpu_queue_create a{in.ConsumeIntegralInRange<uint32_t>(0, 3),
                                   mostly_zero<uint32_t>(in), 0, mostly_zero<uint32_t>(in)};
        if (call(f, DRM_IOCTL_SIMTGPU_QUEUE_CREATE, &a) == 0)
            p.queues.push_back(a.queue_id);
        break;
    }
    case 8: {
        drm_simtgpu_queue_destroy a{pick(in, p.queues), mostly_zero<uint32_t>(in)};
        call(f, DRM_IOCTL_SIMTGPU_QUEUE_DESTROY, &a);
        break;
    }
    case 9: {
        drm_simtgpu_queue_get_state a{};
        a.queue_id = pick(in, p.queues);
        a.pad = mostly_zero<uint32_t>(in);
        call(f, DRM_IOCTL_SIMTGPU_QUEUE_GET_STATE, &a);
        break;
    }
    case 10: {
        drm_simtgpu_submit a{};
        // Mostly a buffer inside one of the file's BOs, of up to 1024 dwords.
        if (!p.bos.empty() && in.ConsumeIntegralInRange(0, 7)) {
            const Bo &b = p.bos[in.ConsumeIntegralInRange<size_t>(0, p.bos.size() - 1)];
            const uint64_t dwords = std::max<uint64_t>(b.size / 4, 1);
            const uint64_t first = in.ConsumeIntegralInRange<uint64_t>(0, dwords - 1);
            a.ib_va = b.va + 4 * first;
            a.ib_dwords = uint32_t(
                in.ConsumeIntegralInRange<uint64_t>(1, std::min<uint64_t>(dwords - first, 1024)));
        } else {
            a.ib_va = in.ConsumeIntegral<uint64_t>();
            a.ib_dwords = in.ConsumeIntegral<uint32_t>();
        }
        a.queue_id = pick(in, p.queues);
        Array bos = array_of(in, sizeof(drm_simtgpu_bo_ref), 16);
        for (uint32_t i = 0; i < bos.count && bos.stride >= 4; ++i) {
            const uint32_t h = pick_bo(in, p);
            std::memcpy(bos.bytes.data() + size_t(i) * bos.stride, &h, 4);
        }
        Array in_syncs = array_of(in, sizeof(drm_simtgpu_sync), 8);
        Array out_syncs = array_of(in, sizeof(drm_simtgpu_sync), 8);
        for (Array *s : {&in_syncs, &out_syncs})
            for (uint32_t i = 0; i < s->count && s->stride >= 4; ++i) {
                const uint32_t h = pick(in, p.syncobjs);
                std::memcpy(s->bytes.data() + size_t(i) * s->stride, &h, 4);
            }
        a.bos = bos.ptr();
        a.bo_count = bos.count;
        a.bo_stride = bos.stride;
        a.in_syncs = in_syncs.ptr();
        a.in_sync_count = in_syncs.count;
        // One stride for both arrays: the in array's.
        a.sync_stride = in_syncs.stride;
        if (out_syncs.stride != in_syncs.stride)
            out_syncs.count = 0;
        a.out_syncs = out_syncs.ptr();
        a.out_sync_count = out_syncs.count;
        a.flags = in.ConsumeIntegralInRange<uint32_t>(0, 1) | mostly_zero<uint32_t>(in);
        a.extensions = mostly_zero<uint64_t>(in);
        const int rc = call(f, DRM_IOCTL_SIMTGPU_SUBMIT, &a);
        if (std::getenv("SIMTGPU_FUZZ_VERBOSE"))
            std::fprintf(stderr, "  submit %d: ib %#llx+%u bos %u/%u syncs %u,%u/%u flags %#x ext %llu\n",
                         rc, (unsigned long long)a.ib_va, a.ib_dwords, a.bo_count, a.bo_stride,
                         a.in_sync_count, a.out_sync_count, a.sync_stride, a.flags,
                         (unsigned long long)a.extensions);
        break;
    }
    case 11: {
        drm_simtgpu_wait_bo a{pick_bo(in, p), mostly_zero<uint32_t>(in), soon(in)};
        call(f, DRM_IOCTL_SIMTGPU_WAIT_BO, &a);
        break;
    }
    case 12: {
        drm_gem_close a{pick_bo(in, p), mostly_zero<uint32_t>(in)};
        call(f, DRM_IOCTL_GEM_CLOSE, &a);
        break;
    }
    case 13: {
        drm_syncobj_create a{0, in.ConsumeIntegralInRange<uint32_t>(0, 3)};
        if (call(f, DRM_IOCTL_SYNCOBJ_CREATE, &a) == 0)
            p.syncobjs.push_back(a.handle);
        break;
    }
    case 14: {
        drm_syncobj_destroy a{pick(in, p.syncobjs), mostly_zero<uint32_t>(in)};
        call(f, DRM_IOCTL_SYNCOBJ_DESTROY, &a);
        break;
    }
    case 15: {
        const uint32_t n = in.ConsumeIntegralInRange<uint32_t>(0, 8);
        std::vector<uint32_t> h = handles_of(in, p.syncobjs, n);
        drm_syncobj_wait a{};
        a.handles = uint64_t(uintptr_t(h.data()));
        a.count_handles = n;
        a.timeout_nsec = soon(in);
        a.flags = in.ConsumeIntegralInRange<uint32_t>(0, 15);
        a.pad = mostly_zero<uint32_t>(in);
        call(f, DRM_IOCTL_SYNCOBJ_WAIT, &a);
        break;
    }
    case 16:
    case 17: {
        const uint32_t n = in.ConsumeIntegralInRange<uint32_t>(0, 8);
        std::vector<uint32_t> h = handles_of(in, p.syncobjs, n);
        drm_syncobj_array a{uint64_t(uintptr_t(h.data())), n, mostly_zero<uint32_t>(in)};
        call(f, in.ConsumeBool() ? DRM_IOCTL_SYNCOBJ_RESET : DRM_IOCTL_SYNCOBJ_SIGNAL, &a);
        break;
    }
    case 18: {
        const uint32_t n = in.ConsumeIntegralInRange<uint32_t>(0, 8);
        std::vector<uint32_t> h = handles_of(in, p.syncobjs, n);
        std::vector<uint64_t> pts = points_of(in, n);
        drm_syncobj_timeline_wait a{};
        a.handles = uint64_t(uintptr_t(h.data()));
        a.points = uint64_t(uintptr_t(pts.data()));
        a.count_handles = n;
        a.timeout_nsec = soon(in);
        a.flags = in.ConsumeIntegralInRange<uint32_t>(0, 15);
        a.pad = mostly_zero<uint32_t>(in);
        call(f, DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT, &a);
        break;
    }
    case 19:
    case 20: {
        const uint32_t n = in.ConsumeIntegralInRange<uint32_t>(0, 8);
        std::vector<uint32_t> h = handles_of(in, p.syncobjs, n);
        std::vector<uint64_t> pts = points_of(in, n);
        drm_syncobj_timeline_array a{uint64_t(uintptr_t(h.data())), uint64_t(uintptr_t(pts.data())),
                                     n, in.ConsumeIntegralInRange<uint32_t>(0, 3)};
        call(f, in.ConsumeBool() ? DRM_IOCTL_SYNCOBJ_QUERY : DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL, &a);
        break;
    }
    case 21: {
        drm_syncobj_transfer a{};
        a.src_handle = pick(in, p.syncobjs);
        a.dst_handle = pick(in, p.syncobjs);
        a.src_point = in.ConsumeIntegralInRange<uint64_t>(0, 8);
        a.dst_point = in.ConsumeIntegralInRange<uint64_t>(0, 8);
        a.flags = in.ConsumeIntegralInRange<uint32_t>(0, 3);
        a.pad = mostly_zero<uint32_t>(in);
        call(f, DRM_IOCTL_SYNCOBJ_TRANSFER, &a);
        break;
    }
    }
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***argv) {
    // The instrumented simulator beside this executable, unless one is named.
    std::string self = (*argv)[0];
    const size_t slash = self.rfind('/');
    const std::string dir = slash == std::string::npos ? "." : self.substr(0, slash);
    setenv("SIMTGPU_SIM_LIBRARY", (dir + "/libsimtgpu-sim-fuzz.so").c_str(), 0);
    // A small device (the fuzzer's memory is the concern, not VRAM's size),
    // and a job that hangs reset in 250 ms rather than 20 s.
    setenv("SIMTGPU_SIM_VRAM_MB", "64", 0);
    setenv("SIMTGPU_JOB_TIMEOUT_MS", "250", 0);
    return 0;
}

std::unique_ptr<SimFile> open_or_abort() {
    std::unique_ptr<SimFile> file;
    std::string error;
    if (simtgpu::umd::simkmd::open_file(&file, &error) != 0) {
        std::fprintf(stderr, "fuzz_uapi: cannot open the in-process device: %s\n", error.c_str());
        abort();
    }
    return file;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    // One file stays open for the whole run: the device (and the simulator
    // library, whose coverage counters libFuzzer holds) lives as long as a
    // file does, and is not to be unloaded between inputs.
    static const std::unique_ptr<SimFile> keeper = open_or_abort();
    FuzzedDataProvider in(data, size);
    const std::unique_ptr<SimFile> file = open_or_abort();
    // What most sequences start with, made here so that the fuzzer need not
    // find it first: a queue, a syncobj and a BO of 16 pages (the calls may
    // destroy them like any other).
    Pools pools;
    drm_simtgpu_queue_create q{SIMTGPU_PRIORITY_NORMAL, 0, 0, 0};
    drm_syncobj_create s{0, 0};
    drm_simtgpu_bo_create bo{};
    bo.size = 16 * 4096;
    if (call(*file, DRM_IOCTL_SIMTGPU_QUEUE_CREATE, &q) || call(*file, DRM_IOCTL_SYNCOBJ_CREATE, &s) ||
        call(*file, DRM_IOCTL_SIMTGPU_BO_CREATE, &bo))
        abort();
    pools.queues.push_back(q.queue_id);
    pools.syncobjs.push_back(s.handle);
    pools.bos.push_back({bo.handle, bo.gpu_va, bo.size});
    for (int calls = 0; calls < 64 && in.remaining_bytes(); ++calls)
        one_call(*file, in, pools);
    return 0; // the file closes: its BOs, queues and syncobjs go
}
