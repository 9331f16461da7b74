// libsimtgpu's objects behind the C handles of simtgpu.h: the device list,
// contexts (one transport file each), BOs, streams (uAPI queues), events,
// modules and functions. Every kernel call goes through the context's
// Transport.
#pragma once

#include "device_image.h"
#include "simtgpu/device_abi.h"
#include "simtgpu/hw.h"
#include "simtgpu/simtgpu.h"
#include "transport.h"

#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <deque>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace simtgpu::umd {

// Records `detail` as this thread's error detail and returns `code`.
simtgpuResult fail(simtgpuResult code, const std::string &detail);
const char *last_detail_c();
// The result for a negative errno from an ioctl, with its detail.
simtgpuResult fail_errno(int rc, const std::string &what);

// Appends a packet (include/simtgpu/hw.h) of `opcode` with body `body`.
template <typename T>
void put_packet(std::vector<uint32_t> &ib, uint32_t opcode, const T &body, uint32_t flags = 0) {
    static_assert(sizeof(T) % 4 == 0);
    ib.push_back(SIMTGPU_PKT_HEADER(opcode, flags, sizeof(T) / 4));
    size_t at = ib.size();
    ib.resize(at + sizeof(T) / 4);
    std::memcpy(&ib[at], &body, sizeof(T));
}

struct DeviceEntry {
    DeviceNode node;
    simtgpuDeviceProperties props{};
};

// The devices found by simtgpuInit; nullptr until it succeeded.
const std::vector<DeviceEntry> *devices();

enum class BoKind {
    Internal, // indirect buffers, staging, launch env, event timestamps
    Device,   // simtgpuMemAlloc
    Host,       // simtgpuMemHostAlloc; handle 0 when the driver stages instead
    Registered, // simtgpuMemHostRegister: the caller's memory
    Managed,    // simtgpuMemAllocManaged: a managed BO mapped at its GPU address
    Module,   // a loaded device image
};

// A buffer object of a context, mapped for the CPU.
struct Bo {
    uint32_t handle = 0;
    uint64_t va = 0;
    uint64_t size = 0;        // mapped bytes (whole pages)
    uint64_t user_size = 0;   // bytes asked for: the valid range of a user allocation
    uint8_t *cpu = nullptr;
    BoKind kind = BoKind::Internal;
    uint64_t valid_bytes() const { return user_size ? user_size : size; }
};

class Context;

// One unit of work on a stream: an indirect buffer submitted with an out
// syncobj, and what must live until it completes.
struct Submission {
    uint32_t syncobj = 0;
    Bo ib;
    std::vector<Bo> transient; // staging and parameter buffers
    // A launch: its kernel, and where in transient[0] the device writes its
    // simtgpu_launch_report.
    std::string kernel;
    uint32_t report_offset = 0;
    // SIMTGPU_TRACE: where in `ib` the device writes the work's start and
    // end times (0: not traced), and the slice's name.
    uint32_t times_offset = 0;
    std::string label;
};

// Work of another stream that must have left that stream's held queue
// (below) first: its stream and the sequence number of that work.
struct HeldAfter {
    simtgpuStream_st *stream;
    uint64_t seq;
};

// What a stream holds back while a host function before it has not returned
// (simtgpuLaunchHostFunc). The kernel driver's fences must signal without
// help from user space (a dma_fence may not wait for a process), so a job
// cannot wait for a host function; the stream keeps what comes after it
// here, as Mesa's submit thread does for Vulkan's wait-before-signal, and
// submits it when the function returns. Each entry is a submission or a host
// function, with the waits it was given when it was queued.
struct HeldWork {
    uint64_t seq = 0;
    std::vector<uint32_t> waits;  // the stream's pending waits then
    std::vector<HeldAfter> after; // held work of other streams it follows
    // A submission:
    std::vector<uint32_t> packets;
    Submission sub;
    // Also given its fence: the event's syncobj of a record, and a syncobj
    // of each stream wait made for that record while it was held.
    std::vector<uint32_t> extra_out_syncobjs;
    // Or a host function, and whether it is on the host-function thread.
    simtgpuHostFn host_fn = nullptr;
    void *user = nullptr;
    unsigned host_flags = 0;
    bool started = false;
};

}  // namespace simtgpu::umd

struct simtgpuStream_st {
    simtgpu::umd::Context *ctx = nullptr;
    uint32_t queue_id = 0;
    unsigned flags = 0;
    int priority = 0; // 1 high, 0 normal, -1 low (simtgpuStreamCreate's)
    std::deque<simtgpu::umd::Submission> inflight;
    // Syncobjs of its own that the next submission waits for, one per
    // simtgpuStreamWaitEvent: the event's fence at the call (CUDA waits for
    // the record current then); destroyed once a submission has them.
    std::vector<uint32_t> pending_waits;
    // Held work (HeldWork): in order; sequence numbers count it, and every
    // entry up to `flushed_seq` has been submitted or has run.
    std::deque<simtgpu::umd::HeldWork> held;
    uint64_t next_seq = 1, flushed_seq = 0;
    // Held work of other streams the next entry follows (cudaStreamWaitEvent
    // for an event whose record is held).
    std::vector<simtgpu::umd::HeldAfter> pending_after;
    simtgpu::umd::Bo env;                // launch env + printf buffer, on first launch
    simtgpuAccessPolicyWindow l2_window{}; // bytes 0: none (simtgpuStreamSetAccessPolicyWindow)
};

struct simtgpuEvent_st {
    simtgpu::umd::Context *ctx = nullptr;
    unsigned flags = 0;
    uint32_t syncobj = 0;
    bool recorded = false;
    simtgpu::umd::Bo timestamp; // 8 bytes of it: the device timer, ns
    // A record held behind a host function: not submitted until that
    // stream's flushed_seq reaches `held.seq`.
    simtgpu::umd::HeldAfter held{nullptr, 0};
};

struct simtgpuFunction_st {
    simtgpuModule module = nullptr;
    const simtgpu::umd::KernelInfo *info = nullptr;
    uint64_t entry_va = 0;
};

struct simtgpuModule_st {
    simtgpu::umd::Context *ctx = nullptr;
    simtgpu::umd::DeviceImage image;
    std::vector<uint8_t> loaded; // the relocated image, for reading strings
    simtgpu::umd::Bo bo;
    std::list<simtgpuFunction_st> functions;
};

namespace simtgpu::umd {

class Context {
public:
    Context(simtgpuDevice device, std::unique_ptr<Transport> transport);
    ~Context();

    simtgpuDevice device() const { return device_; }
    const simtgpuDeviceProperties &props() const;
    Transport &transport() { return *transport_; }
    std::recursive_mutex &mutex() { return mu_; }

    // Memory.
    // A VRAM BO mapped for the CPU too; at fixed_va when that is not 0.
    simtgpuResult create_bo(uint64_t size, uint32_t flags, Bo *out, uint64_t fixed_va = 0);
    void destroy_bo(Bo &bo);
    simtgpuResult mem_alloc(size_t bytes, simtgpuDevicePtr *out);
    simtgpuResult mem_alloc_at(uint64_t va, size_t bytes);
    simtgpuResult mem_free(simtgpuDevicePtr ptr);
    simtgpuResult host_alloc(size_t bytes, void **out);
    simtgpuResult host_free(void *ptr);
    simtgpuResult host_register(void *ptr, size_t bytes, bool read_only);
    simtgpuResult host_unregister(void *ptr);
    // Managed memory by page migration (uAPI 1.6, the kernel driver): a
    // managed BO mapped for the CPU at its own GPU address.
    bool has_managed_bos() const;
    simtgpuResult managed_alloc(size_t bytes, void **out);
    simtgpuResult managed_free(void *ptr);
    simtgpuResult managed_stats(simtgpuManagedStats *out);
    // The BO holding [va, va + bytes), or nullptr.
    Bo *find_device(uint64_t va, uint64_t bytes);
    // A user-pointer BO of the whole pages around [ptr, ptr + bytes): `out`
    // describes [ptr, ptr + bytes) itself (cpu = ptr, va = its device address).
    simtgpuResult create_userptr_bo(void *ptr, uint64_t bytes, bool read_only, Bo *out);
    // Whether the driver has BO_USERPTR (uAPI 1.3).
    bool has_userptr() const { return (props().uapi_version & 0xffff) >= 3; }
    // Unified addressing: device memory in the upper half of the GPU's
    // address space, host memory mapped at its own address (simtgpu.h).
    bool unified_addressing() const { return props().unified_addressing != 0; }
    // The pinned host BO holding [ptr, ptr + bytes), or nullptr.
    Bo *find_host(const void *ptr, uint64_t bytes);
    bool is_host_allocated(const void *ptr);
    bool read_string(uint64_t va, std::string *out);
    // Module images: reachable by find_device, freed only with their module.
    void track_module_bo(const Bo &bo) { device_bos_[bo.va] = bo; }
    void untrack_module_bo(uint64_t va) { device_bos_.erase(va); }

    // Copies and fills (copies.cpp), of ranges the caller has checked lie
    // inside allocations of this context: each picks the engine that moves
    // the bytes (the CPU, a COPY or FILL packet, a staging BO).
    simtgpuResult memcpy_htod(uint64_t dst, const void *src, uint64_t bytes);
    simtgpuResult memcpy_dtoh(void *dst, uint64_t src, uint64_t bytes);
    simtgpuResult memcpy_dtod_async(simtgpuStream_st &s, uint64_t dst, uint64_t src,
                                    uint64_t bytes);
    simtgpuResult memcpy_htod_async(simtgpuStream_st &s, uint64_t dst, const void *src,
                                    uint64_t bytes);
    simtgpuResult memcpy_dtoh_async(simtgpuStream_st &s, void *dst, uint64_t src, uint64_t bytes);
    simtgpuResult memset8_async(simtgpuStream_st &s, uint64_t dst, uint8_t value, uint64_t bytes);
    simtgpuResult memset32(uint64_t dst, uint32_t value, uint64_t count);

    // Work.
    simtgpuStream_st *stream(simtgpuStream s) { return s ? s : &default_stream_; }
    simtgpuResult create_stream(unsigned flags, int priority, simtgpuStream *out);
    simtgpuResult destroy_stream(simtgpuStream s);
    // Submits `packets` as one indirect buffer on a stream; `transient` BOs
    // are freed when it completes, `extra_out_syncobjs` signalled with it.
    simtgpuResult submit(simtgpuStream_st &s, const std::vector<uint32_t> &packets,
                         std::vector<Bo> transient,
                         const std::vector<uint32_t> &extra_out_syncobjs = {});
    // A launch: as submit, with the kernel and its report in transient[0].
    simtgpuResult submit_launch(simtgpuStream_st &s, const std::vector<uint32_t> &packets,
                                Bo params, const std::string &kernel, uint32_t report_offset);
    // Launch reports summed per kernel, as they complete.
    const std::map<std::string, simtgpuKernelStats> &kernel_stats() const { return kernel_stats_; }
    simtgpuResult synchronize(simtgpuStream_st &s);
    simtgpuResult synchronize_all();
    // Retires whatever has completed on every stream, without waiting: idle
    // streams print their device printf output, failures become sticky.
    simtgpuResult poll_all();
    simtgpuResult query(simtgpuStream_st &s);
    simtgpuResult sticky_error() const { return sticky_; }
    simtgpuResult ensure_env(simtgpuStream_st &s);
    simtgpuResult wait_syncobj(uint32_t syncobj, bool block, bool *signaled);
    // A new syncobj holding `syncobj`'s fence now (SYNCOBJ_TRANSFER).
    simtgpuResult snapshot_syncobj(uint32_t syncobj, uint32_t *out);
    // A new syncobj that gets the fence of the held record `record` (an
    // event's, behind a host function) when that is submitted.
    simtgpuResult follow_held_record(const HeldAfter &record, uint32_t *out);
    // A host function in stream order (simtgpuLaunchHostFunc).
    simtgpuResult launch_host_func(simtgpuStream_st &s, simtgpuHostFn fn, void *user,
                                   unsigned flags);
    // Whether held work before `after` is still to leave its stream.
    static bool pending(const HeldAfter &after) {
        return after.stream && after.stream->flushed_seq < after.seq;
    }
    // Blocks (the context's lock released meanwhile) until `done` holds;
    // checked again whenever held work moves.
    template <class Done> void wait_held(Done done) {
        while (!done())
            held_moved_.wait(mu_);
    }

    std::list<simtgpuModule_st> modules;
    std::list<simtgpuEvent_st> events;

    // Limits (simtgpuCtxSetLimit).
    uint64_t printf_bytes = 1 << 20; // CUDA's default printf FIFO
    uint32_t stack_floor = 0;
    uint64_t l2_set_aside = 0; // SIMTGPU_LIMIT_PERSISTING_L2_CACHE_SIZE
    bool launched = false; // printf_bytes is fixed from the first launch

private:
    // What submit and submit_launch share: `sub` brings the transient BOs
    // and the launch, if it is one.
    simtgpuResult submit_work(simtgpuStream_st &s, const std::vector<uint32_t> &packets,
                              Submission sub, const std::vector<uint32_t> &extra_out_syncobjs);
    // submit_work without holding: to the kernel driver now, after `waits`.
    simtgpuResult submit_now(simtgpuStream_st &s, const std::vector<uint32_t> &packets,
                             Submission sub, const std::vector<uint32_t> &extra_out_syncobjs,
                             const std::vector<uint32_t> &waits);
    // Destroys `waits` (a submission has them now).
    void release_waits(std::vector<uint32_t> &waits);
    // Held work of other streams that `s`'s next work must follow: its
    // pending_after and, for the legacy default stream, the blocking
    // streams' (and theirs, the default stream's).
    std::vector<HeldAfter> held_before(simtgpuStream_st &s);
    // Calls visit(other) for each stream `s` is ordered with as CUDA's
    // legacy default stream (or a blocking stream beside it).
    template <class Visit> void for_each_legacy_peer(simtgpuStream_st &s, Visit visit);
    // Queues `work` on `s`'s held queue, then moves what can move.
    void hold(simtgpuStream_st &s, HeldWork work, std::vector<HeldAfter> after);
    // Submits held work whose turn has come and starts host functions.
    void pump();
    void start_host_function(simtgpuStream_st &s, HeldWork &work);
    void host_function_thread();
    // Waits until nothing of `s` is held, then retires its work.
    simtgpuResult drain(simtgpuStream_st &s);
    void print_kernel_stats() const;
    void orphan_managed(Bo &bo);
    // The CPU's view of [va, va + bytes) when it is managed memory, else
    // nullptr: copies and fills of managed memory are the CPU's.
    uint8_t *managed_cpu(uint64_t va, uint64_t bytes);
    simtgpuResult retire(simtgpuStream_st &s, bool block);
    simtgpuResult check_queue(simtgpuStream_st &s);
    void drain_printf(simtgpuStream_st &s);
    simtgpuResult poison(simtgpuResult code, const std::string &detail);

    simtgpuDevice device_;
    std::unique_ptr<Transport> transport_;
    std::recursive_mutex mu_;
    std::condition_variable_any held_moved_; // with mu_: held work moved
    // The host-function thread (as CUDA's callback thread), made on first
    // use: it waits for a function's turn, runs it, then releases what its
    // stream held behind it.
    struct HostCall {
        simtgpuStream_st *stream;
        uint32_t syncobj; // signalled when the work before it is done; 0: none
        simtgpuHostFn fn;
        void *user;
        unsigned flags;
    };
    std::mutex host_mu_;
    std::condition_variable host_calls_changed_;
    std::deque<HostCall> host_calls_;
    bool host_thread_stop_ = false;
    std::thread host_thread_;
    simtgpuStream_st default_stream_;
    std::list<simtgpuStream_st> streams_;
    std::map<uint64_t, Bo> device_bos_; // by VA
    std::map<uint64_t, Bo> host_bos_;   // by CPU address
    // Unified addressing: the host pages mapped at their own address, by
    // first page. Registrations may share a page (each covers the whole
    // pages around its range), so a run of pages is one BO that lives while
    // any registration touching it does.
    struct HostPages {
        uint64_t end;
        uint32_t handle;
        uint32_t users;
    };
    std::map<uint64_t, HostPages> host_pages_;
    simtgpuResult map_host_pages(uint64_t begin, uint64_t end, bool read_only, uint32_t *handle);
    void unmap_host_pages(uint64_t begin, uint64_t end);
    simtgpuResult sticky_ = SIMTGPU_SUCCESS;
    std::string sticky_detail_;
    std::map<std::string, simtgpuKernelStats> kernel_stats_;
    // SIMTGPU_STATS, read when the context is made: the file it writes.
    std::string stats_path_;
    // SIMTGPU_STATS: the device's counters when the context was made (the
    // JSON reports what changed while it lived); empty when unreadable.
    std::vector<uint64_t> counters_at_start_;
    // SIMTGPU_STATS with readable counters: what they moved across each
    // kernel's launches, summed per kernel (launches are then serialised).
    std::map<std::string, std::vector<uint64_t>> kernel_counters_;
};

} // namespace simtgpu::umd

struct simtgpuContext_st {
    std::unique_ptr<simtgpu::umd::Context> impl;
};
