// The in-process implementation of the simtgpu uAPI (see sim_kmd.h).
//
// One SimDevice per process owns the simulator. Like a kernel driver it has a
// big lock (mu_) over all its state, and one scheduler thread that services
// interrupts, retires jobs whose fences the device wrote, pushes jobs whose
// dependencies are met onto the rings, and resets the device when a job runs
// past its timeout. Simulator callbacks (DMA, interrupts) never take mu_:
// they may run while a thread holding mu_ waits for the simulator. Every
// rule it shares with the kernel driver (ioctl argument checks, GET_PARAM's
// registers and constants, limits, VAs, PTE permissions, the page walk,
// ring choice, job packets, faults, guilt, hangs, implicit sync) comes from
// simtgpu/driver_policy.h; DRM core semantics (GEM handles, syncobjs,
// reservations) are said where they are implemented.
#include "simkmd/sim_kmd.h"

#include "simtgpu/driver_policy.h"
#include "simtgpu/hw.h"
#include "simtgpu/sim.h"
#include "uapi/drm/simtgpu_drm.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <dlfcn.h>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

namespace simtgpu::umd::simkmd {

namespace {

using Clock = std::chrono::steady_clock; // CLOCK_MONOTONIC, as the uAPI's timeouts

constexpr uint32_t kRingBytes = SIMTGPU_KERNEL_RING_BYTES;
// A ring with its jobs-in-flight limit reached still has room for a job and
// its padding, so pushing only waits for a job slot
// (SIMTGPU_KERNEL_RING_BYTES).
static_assert((SIMTGPU_JOBS_IN_FLIGHT_PER_RING + 2) * SIMTGPU_JOB_DWORDS * 4 < kRingBytes);

uint64_t env_u64(const char *name, uint64_t fallback) {
    const char *text = std::getenv(name);
    if (!text || !*text)
        return fallback;
    char *end = nullptr;
    unsigned long long v = std::strtoull(text, &end, 0);
    return (end && *end == '\0') ? v : fallback;
}

// An environment string, or nullptr (the simulator's default) when unset or empty.
const char *env_string(const char *name) {
    const char *text = std::getenv(name);
    return text && *text ? text : nullptr;
}

Clock::time_point from_monotonic_ns(int64_t ns) {
    return Clock::time_point(std::chrono::nanoseconds(ns));
}

// The wait of DRM's syncobj ioctls: until one of `count` objects (every one
// with `all`) is signalled by `signaled(i)`, or the absolute CLOCK_MONOTONIC
// deadline. Returns 0 and the first signalled index, or -ETIME.
template <typename Signaled>
int wait_for_syncobjs(std::condition_variable &changed, std::unique_lock<std::mutex> &lock,
                      uint32_t count, bool all, int64_t timeout_nsec, Signaled signaled,
                      uint32_t *first_signaled) {
    uint32_t first = 0;
    auto ready = [&] {
        bool any = false, every = true;
        for (uint32_t i = 0; i < count; ++i) {
            bool s = signaled(i);
            if (s && !any)
                first = i;
            any |= s;
            every &= s;
        }
        return all ? every : any;
    };
    if (!changed.wait_until(lock, from_monotonic_ns(timeout_nsec), ready))
        return -ETIME;
    *first_signaled = first;
    return 0;
}

// The entry points of libsimtgpu-sim.so, found with dlsym.
struct SimLibrary {
    void *handle = nullptr;
    decltype(&simtgpu_sim_abi_version) abi_version = nullptr;
    decltype(&simtgpu_sim_create) create = nullptr;
    decltype(&simtgpu_sim_destroy) destroy = nullptr;
    decltype(&simtgpu_sim_mmio_read) mmio_read = nullptr;
    decltype(&simtgpu_sim_mmio_write) mmio_write = nullptr;
    decltype(&simtgpu_sim_vram) vram = nullptr;
    decltype(&simtgpu_sim_vram_clear) vram_clear = nullptr;
    decltype(&simtgpu_sim_reset) reset = nullptr;
    decltype(&simtgpu_sim_trace_slice) trace_slice = nullptr;
};

// Looks for the library where SIMTGPU_SIM_LIBRARY says, then next to
// libsimtgpu.so (both live in build/lib or PREFIX/lib), then on the loader's
// path.
int load_library(SimLibrary *lib, std::string *error) {
    std::vector<std::string> candidates;
    if (const char *path = std::getenv("SIMTGPU_SIM_LIBRARY"))
        candidates.emplace_back(path);
    Dl_info info{};
    if (dladdr(reinterpret_cast<void *>(&load_library), &info) && info.dli_fname) {
        std::string self = info.dli_fname;
        auto slash = self.rfind('/');
        if (slash != std::string::npos) {
            // build/lib/libsimtgpu.so, or build/bin/<tool> next to build/lib.
            candidates.push_back(self.substr(0, slash + 1) + SIMTGPU_SIM_LIBRARY);
            candidates.push_back(self.substr(0, slash + 1) + "../lib/" + SIMTGPU_SIM_LIBRARY);
        }
    }
    candidates.emplace_back(SIMTGPU_SIM_LIBRARY);
    std::string tried;
    for (const auto &path : candidates) {
        void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!handle) {
            tried += "\n  " + std::string(dlerror());
            continue;
        }
        auto sym = [&](const char *name) { return dlsym(handle, name); };
        lib->handle = handle;
        lib->abi_version = reinterpret_cast<decltype(lib->abi_version)>(
            sym(SIMTGPU_SIM_ABI_VERSION_SYMBOL));
        lib->create = reinterpret_cast<decltype(lib->create)>(sym("simtgpu_sim_create"));
        lib->destroy = reinterpret_cast<decltype(lib->destroy)>(sym("simtgpu_sim_destroy"));
        lib->mmio_read = reinterpret_cast<decltype(lib->mmio_read)>(sym("simtgpu_sim_mmio_read"));
        lib->mmio_write =
            reinterpret_cast<decltype(lib->mmio_write)>(sym("simtgpu_sim_mmio_write"));
        lib->vram = reinterpret_cast<decltype(lib->vram)>(sym("simtgpu_sim_vram"));
        lib->vram_clear =
            reinterpret_cast<decltype(lib->vram_clear)>(sym("simtgpu_sim_vram_clear"));
        lib->reset = reinterpret_cast<decltype(lib->reset)>(sym("simtgpu_sim_reset"));
        lib->trace_slice =
            reinterpret_cast<decltype(lib->trace_slice)>(sym("simtgpu_sim_trace_slice"));
        if (!lib->abi_version || !lib->create || !lib->destroy || !lib->mmio_read ||
            !lib->mmio_write || !lib->vram || !lib->vram_clear || !lib->reset ||
            !lib->trace_slice) {
            *error = path + " lacks part of the simulator C ABI (is it libsimtgpu-sim.so?)";
            dlclose(handle);
            return -ENOENT;
        }
        uint32_t version = lib->abi_version();
        if (version != SIMTGPU_SIM_ABI_VERSION) {
            *error = path + " implements simulator ABI version " + std::to_string(version) +
                     ", but libsimtgpu was built for version " +
                     std::to_string(SIMTGPU_SIM_ABI_VERSION) +
                     ": rebuild both from the same tree";
            dlclose(handle);
            return -ENOEXEC;
        }
        return 0;
    }
    *error = "cannot load the simulator library " + std::string(SIMTGPU_SIM_LIBRARY) +
             " for the in-process transport (build target simtgpu_sim, or set "
             "SIMTGPU_SIM_LIBRARY to its path); tried:" +
             tried;
    return -ENOENT;
}

// Lowest-first-fit allocator of VRAM offsets or VAs, page granular.
class RangeAllocator {
public:
    void init(uint64_t base, uint64_t size) { free_[base] = size; }
    // Returns the offset, or UINT64_MAX when no hole is large enough.
    uint64_t allocate(uint64_t bytes) {
        bytes = round_up(bytes);
        for (auto it = free_.begin(); it != free_.end(); ++it) {
            if (it->second < bytes)
                continue;
            uint64_t offset = it->first;
            uint64_t left = it->second - bytes;
            free_.erase(it);
            if (left)
                free_[offset + bytes] = left;
            used_ += bytes;
            return offset;
        }
        return UINT64_MAX;
    }
    // The lowest fit at or above `low` (in a hole that may start below it).
    uint64_t allocate_from(uint64_t low, uint64_t bytes) {
        bytes = round_up(bytes);
        auto it = free_.upper_bound(low);
        if (it != free_.begin()) {
            auto hole = std::prev(it); // the hole that starts at or below `low`
            const uint64_t end = hole->first + hole->second;
            if (end > low && end - low >= bytes) {
                take(hole, low, bytes);
                return low;
            }
        }
        for (; it != free_.end(); ++it) {
            if (it->second >= bytes) {
                const uint64_t offset = it->first;
                take(it, offset, bytes);
                return offset;
            }
        }
        return UINT64_MAX;
    }
    // Takes exactly [offset, offset + bytes); false when part of it is not free.
    bool reserve(uint64_t offset, uint64_t bytes) {
        bytes = round_up(bytes);
        auto it = free_.upper_bound(offset);
        if (it == free_.begin())
            return false;
        --it;
        if (it->first + it->second < offset + bytes)
            return false;
        take(it, offset, bytes);
        return true;
    }
    void release(uint64_t offset, uint64_t bytes) {
        bytes = round_up(bytes);
        used_ -= bytes;
        auto next = free_.lower_bound(offset);
        if (next != free_.end() && offset + bytes == next->first) {
            bytes += next->second;
            next = free_.erase(next);
        }
        if (next != free_.begin()) {
            auto prev = std::prev(next);
            if (prev->first + prev->second == offset) {
                prev->second += bytes;
                return;
            }
        }
        free_[offset] = bytes;
    }
    uint64_t used() const { return used_; }

private:
    // Cuts [offset, offset + bytes) out of the free hole `it`, which holds it.
    void take(std::map<uint64_t, uint64_t>::iterator it, uint64_t offset, uint64_t bytes) {
        const uint64_t hole = it->first, hole_end = it->first + it->second;
        free_.erase(it);
        if (offset > hole)
            free_[hole] = offset - hole;
        if (offset + bytes < hole_end)
            free_[offset + bytes] = hole_end - (offset + bytes);
        used_ += bytes;
    }
    static uint64_t round_up(uint64_t b) {
        return (b + SIMTGPU_PAGE_SIZE - 1) & ~uint64_t(SIMTGPU_PAGE_SIZE - 1);
    }
    std::map<uint64_t, uint64_t> free_;
    uint64_t used_ = 0;
};

} // namespace

// A dma_fence: signalled once, with an error or 0. Guarded by SimDevice::mu_.
struct Fence {
    bool signaled = false;
    int error = 0;
};

// A syncobj's fence: binary, or a timeline (a dma_fence_chain: points in
// submission order on top of the fence they were added to).
struct Syncobj {
    struct Point {
        uint64_t seqno;
        std::shared_ptr<Fence> fence;
    };
    std::shared_ptr<Fence> fence; // binary, or the chain's base; null: none
    std::vector<Point> points;    // non-empty: the fence is a chain
    uint64_t floor = 0;           // last point dropped once all up to it signalled

    bool empty() const { return !fence && points.empty(); }
    void replace(std::shared_ptr<Fence> f) {
        fence = std::move(f);
        points.clear();
        floor = 0;
    }
    // drm_syncobj_add_point: as dma_fence_chain_init, a point not above the
    // last one is folded onto it.
    void add_point(uint64_t point, std::shared_ptr<Fence> f) {
        uint64_t seqno = points.empty() ? point : std::max(points.back().seqno, point);
        points.push_back({seqno, std::move(f)});
        // Signalled links go, as the chain's walk drops them.
        while (points.size() > 1 && (!fence || fence->signaled) && points.front().fence->signaled) {
            floor = points.front().seqno;
            fence.reset();
            points.erase(points.begin());
        }
    }
    // drm_syncobj_find_fence: false if there is no fence for `point` yet;
    // otherwise adds the unsignalled fences its fence waits for to `deps`
    // (a chain node signals once it and every earlier point have).
    bool resolve(uint64_t point, std::vector<std::shared_ptr<Fence>> *deps) const {
        if (empty())
            return false;
        size_t upto = points.size();
        if (point) {
            if (points.empty() || points.back().seqno < point)
                return false;
            if (point <= floor)
                return true;
            auto at = std::find_if(points.begin(), points.end(),
                                   [&](auto &p) { return p.seqno >= point; });
            upto = size_t(at - points.begin()) + 1;
        }
        if (fence && !fence->signaled)
            deps->push_back(fence);
        for (size_t i = 0; i < upto; ++i)
            if (!points[i].fence->signaled)
                deps->push_back(points[i].fence);
        return true;
    }
    bool signaled() const {
        std::vector<std::shared_ptr<Fence>> deps;
        return resolve(0, &deps) && deps.empty();
    }
    // SYNCOBJ_QUERY: the last point up to which everything has signalled.
    uint64_t last_signaled() const {
        uint64_t last = points.empty() ? 0 : floor;
        if (fence && !fence->signaled)
            return last;
        for (auto &p : points) {
            if (!p.fence->signaled)
                break;
            last = p.seqno;
        }
        return last;
    }
};

static std::shared_ptr<Fence> signaled_fence() {
    auto fence = std::make_shared<Fence>();
    fence->signaled = true;
    return fence;
}

struct Bo {
    uint32_t flags = 0;
    uint64_t size = 0;
    uint64_t va = 0;
    uint64_t vram_offset = 0; // when in VRAM
    void *user = nullptr;     // BO_USERPTR: the caller's memory, reached by DMA
    // The fences of the unfinished jobs that listed it (its dma_resv).
    struct Use {
        std::shared_ptr<Fence> fence;
        bool write;
    };
    std::vector<Use> uses;

    void forget_finished_uses() {
        uses.erase(std::remove_if(uses.begin(), uses.end(),
                                  [](const Use &u) { return u.fence->signaled; }),
                   uses.end());
    }
    bool idle() const {
        return std::all_of(uses.begin(), uses.end(),
                           [](const Use &u) { return u.fence->signaled; });
    }
};

struct Queue;

struct Job {
    FileState *file = nullptr;
    std::shared_ptr<Queue> queue;
    uint64_t ib_va = 0;
    uint32_t ib_dwords = 0;
    std::vector<std::shared_ptr<Fence>> deps;
    std::shared_ptr<Fence> done = std::make_shared<Fence>();
    int error = 0;
    unsigned ring = 0;
    uint64_t seqno = 0;        // on its ring, once pushed
    Clock::time_point pushed;  // onto its ring
};

struct Queue {
    uint32_t id = 0;
    uint32_t priority = 0;
    unsigned ring = 0; // where its jobs go while it has any in flight
    std::deque<std::shared_ptr<Job>> waiting; // dependencies not yet met
    simtgpu_queue_health health{};
    unsigned unfinished = 0; // waiting + on a ring
};

struct FileState {
    uint32_t context_id = 0;
    uint64_t root_table = 0; // VRAM offset
    std::vector<uint64_t> tables;
    RangeAllocator va;
    uint64_t vram_limit = 0; // bytes, 0 = none: SIMTGPU_VRAM_LIMIT_MB read at open
    uint64_t vram_bytes = 0; // of its VRAM BOs
    std::map<uint32_t, std::shared_ptr<Bo>> bos;
    uint32_t next_bo = 1;
    std::map<uint32_t, std::shared_ptr<Syncobj>> syncobjs;
    uint32_t next_syncobj = 1;
    std::map<uint32_t, std::shared_ptr<Queue>> queues;
    // Queues being destroyed: their ids are refused already, but the
    // scheduler still runs the jobs they had (drm_sched_entity_destroy).
    std::vector<std::shared_ptr<Queue>> draining;
    uint32_t next_queue = 1;
};

class SimDevice {
public:
    static int get(std::shared_ptr<SimDevice> *out, std::string *error);
    ~SimDevice();

    int open(FileState *file, std::string *error);
    void close(FileState *file);
    int ioctl(FileState *file, unsigned long request, void *arg);
    void *mmap(FileState *file, uint64_t offset, uint64_t size);
    // SIMTGPU_TRACE: the simulator writes a trace, and drivers add slices.
    bool tracing() const { return tracing_; }
    void read_counters(uint64_t *out) {
        std::lock_guard<std::mutex> guard(mu_);
        const uint32_t served = std::min<uint32_t>(reg(SIMTGPU_REG_NUM_COUNTERS), SIMTGPU_NUM_COUNTERS);
        for (uint32_t i = 0; i < SIMTGPU_NUM_COUNTERS; ++i) {
            if (i >= served) {
                out[i] = 0;
                continue;
            }
            const uint32_t lo = reg(SIMTGPU_REG_COUNTER(i)); // latches _HI
            out[i] = uint64_t(reg(SIMTGPU_REG_COUNTER(i) + 4)) << 32 | lo;
        }
    }
    int trace_slice(const char *process, const char *track, const char *name, uint64_t begin_ns,
                    uint64_t end_ns) {
        return lib_.trace_slice(sim_, process, track, name, begin_ns, end_ns);
    }

private:
    struct Ring {
        uint64_t base = 0; // VRAM offset
        uint32_t tail = 0;
        uint64_t fence_offset = 0; // VRAM offset of the fence value
        uint64_t seqno = 0;
        std::deque<std::shared_ptr<Job>> running; // pushed, fence not seen
        // drm_sched's timeout timer: (re)started when running.front() became
        // first, and at each timeout check.
        Clock::time_point front_since;
        simtgpu_ring_watch watch{}; // PROGRESS at the previous timeout check
    };

    int init(std::string *error);
    void program_rings();
    uint32_t reg(uint32_t offset) { return uint32_t(lib_.mmio_read(sim_, offset, 4)); }
    void write_reg(uint32_t offset, uint32_t v) { lib_.mmio_write(sim_, offset, v, 4); }
    uint64_t *vram64(uint64_t offset) { return reinterpret_cast<uint64_t *>(vram_ + offset); }
    // A ring's fence value, which the device's threads write.
    uint64_t fence_value(const Ring &ring) {
        return __atomic_load_n(vram64(ring.fence_offset), __ATOMIC_ACQUIRE);
    }

    // Page tables.
    int map_range(FileState *f, uint64_t va, uint64_t bytes, uint64_t target, uint64_t pte_flags);
    void unmap_range(FileState *f, uint64_t va, uint64_t bytes);
    // simtgpu_pt_walk() over the simulator's VRAM: the leaf PTE of `va`.
    int walk(FileState *f, uint64_t va, bool create, uint64_t **pte);

    // Scheduler.
    void scheduler_main();
    void service_interrupts();
    void retire_completed();
    void push_ready_jobs();
    bool ring_has_job_slot(unsigned index) const {
        return rings_[index].running.size() < SIMTGPU_JOBS_IN_FLIGHT_PER_RING;
    }
    void push_job(const std::shared_ptr<Job> &job);
    unsigned pick_ring(const Queue &queue);
    // Every queue the scheduler serves: each file's, and those being destroyed.
    template <class Fn> void for_each_queue(Fn &&fn)
    {
        for (FileState *f : files_) {
            for (auto &[id, queue] : f->queues)
                fn(*queue);
            for (auto &queue : f->draining)
                fn(*queue);
        }
    }
    uint64_t ring_progress(unsigned index);
    void check_timeouts();
    void reset_after_hang(unsigned hung_ring);
    void finish_job(const std::shared_ptr<Job> &job);
    void wake_scheduler();
    static void on_irq(void *opaque, uint32_t vector);
    static int on_dma_read(void *opaque, uint64_t bus, void *buf, uint64_t len);
    static int on_dma_write(void *opaque, uint64_t bus, const void *buf, uint64_t len);
    static int on_dma_cmpxchg(void *opaque, uint64_t bus, uint32_t size, uint64_t expected,
                              uint64_t desired, uint64_t *old);
    bool host_range_ok(uint64_t bus, uint64_t len);

    // Ioctls.
    int get_param(FileState *f, drm_simtgpu_get_param *a);
    int bo_create(FileState *f, drm_simtgpu_bo_create *a);
    int bo_mmap_offset(FileState *f, drm_simtgpu_bo_mmap_offset *a);
    int bo_info(FileState *f, drm_simtgpu_bo_info *a);
    int bo_userptr(FileState *f, drm_simtgpu_bo_userptr *a);
    int managed_prefetch(FileState *f, drm_simtgpu_managed_prefetch *a);
    int managed_advise(FileState *f, drm_simtgpu_managed_advise *a);
    int place(FileState *f, uint32_t flags, uint64_t fixed_va, uint64_t span, uint64_t *va);
    int gem_close(FileState *f, drm_gem_close *a, std::unique_lock<std::mutex> &lock);
    int submit(FileState *f, drm_simtgpu_submit *a);
    int wait_bo(FileState *f, drm_simtgpu_wait_bo *a, std::unique_lock<std::mutex> &lock);
    int queue_create(FileState *f, drm_simtgpu_queue_create *a);
    int queue_destroy(FileState *f, drm_simtgpu_queue_destroy *a,
                      std::unique_lock<std::mutex> &lock);
    int queue_get_state(FileState *f, drm_simtgpu_queue_get_state *a);
    int syncobj_create(FileState *f, drm_syncobj_create *a);
    int syncobj_destroy(FileState *f, drm_syncobj_destroy *a);
    int syncobj_wait(FileState *f, drm_syncobj_wait *a, std::unique_lock<std::mutex> &lock);
    int syncobj_reset_or_signal(FileState *f, drm_syncobj_array *a, bool signal);
    int syncobj_transfer(FileState *f, drm_syncobj_transfer *a);
    int syncobj_timeline_wait(FileState *f, drm_syncobj_timeline_wait *a,
                              std::unique_lock<std::mutex> &lock);
    int syncobj_query(FileState *f, drm_syncobj_timeline_array *a);
    int syncobj_timeline_signal(FileState *f, drm_syncobj_timeline_array *a);
    void free_bo(FileState *f, Bo &bo);
    uint64_t dmem_current() const;

    SimLibrary lib_;
    simtgpu_sim *sim_ = nullptr;
    uint8_t *vram_ = nullptr;
    uint64_t vram_size_ = 0;
    std::chrono::milliseconds job_timeout_{0};
    bool tracing_ = false;

    std::mutex mu_;                // the driver lock
    std::condition_variable done_; // a job finished or a syncobj changed
    RangeAllocator vram_alloc_;
    uint64_t job_times_ = 0; // VRAM: SIMTGPU_JOB_TIMES_BYTES of job device times
    Ring rings_[SIMTGPU_NUM_RINGS];
    std::vector<FileState *> files_;
    uint32_t next_context_id_ = 1;
    // The cgroup VRAM limit (dmem "max", simtgpu_dmem_allows()) of this
    // process's cgroup: SIMTGPU_DMEM_MAX bytes, read at each allocation;
    // every file of the process is in that cgroup, so its "current" is
    // theirs together.
    static uint64_t dmem_max() { return env_u64("SIMTGPU_DMEM_MAX", SIMTGPU_DMEM_MAX_NONE); }

    std::mutex irq_mu_;
    std::condition_variable irq_cv_;
    bool irq_pending_ = false;
    bool stopping_ = false;
    std::thread scheduler_;

    std::mutex host_mu_; // host-memory BOs the device may reach by DMA
    std::map<uint64_t, uint64_t> host_ranges_;

    static std::mutex instance_mu_;
    static std::weak_ptr<SimDevice> instance_;
};

std::mutex SimDevice::instance_mu_;
std::weak_ptr<SimDevice> SimDevice::instance_;

int SimDevice::get(std::shared_ptr<SimDevice> *out, std::string *error) {
    std::lock_guard<std::mutex> guard(instance_mu_);
    if (auto existing = instance_.lock()) {
        *out = existing;
        return 0;
    }
    auto device = std::shared_ptr<SimDevice>(new SimDevice());
    if (int rc = device->init(error))
        return rc;
    instance_ = device;
    *out = device;
    return 0;
}

int SimDevice::init(std::string *error) {
    if (int rc = load_library(&lib_, error))
        return rc;
    simtgpu_sim_config config{};
    config.struct_size = sizeof(config);
    // Device shape from the environment: docs/umd.md lists these.
    config.arch = uint32_t(env_u64("SIMTGPU_SIM_ARCH", 0));
    config.vram_bytes = env_u64("SIMTGPU_SIM_VRAM_MB", 0) << 20;
    config.num_sms = uint32_t(env_u64("SIMTGPU_SIM_SMS", 0));
    config.placement = env_string("SIMTGPU_SIM_PLACEMENT");
    config.sm_sharing = env_string("SIMTGPU_SIM_SM_SHARING");
    config.config = env_string("SIMTGPU_SIM_CONFIG");
    config.trace = env_string("SIMTGPU_TRACE");
    config.trace_max_events = env_u64("SIMTGPU_TRACE_MAX_EVENTS", 0);
    config.host_threads = uint32_t(env_u64("SIMTGPU_SIM_THREADS", 0));
    tracing_ = config.trace != nullptr;
    config.opaque = this;
    config.dma_read = &SimDevice::on_dma_read;
    config.dma_write = &SimDevice::on_dma_write;
    config.dma_cmpxchg = &SimDevice::on_dma_cmpxchg;
    config.raise_irq = &SimDevice::on_irq;
    char message[1024] = {};
    int rc = lib_.create(&config, &sim_, message, sizeof(message));
    if (rc) {
        *error = std::string("the simulator refused its configuration: ") + message;
        return rc < 0 ? rc : -EINVAL;
    }
    vram_ = static_cast<uint8_t *>(lib_.vram(sim_, &vram_size_));
    if (reg(SIMTGPU_REG_ID) != SIMTGPU_ID_MAGIC || !vram_) {
        *error = "the simulator library does not answer as a simtgpu device (ID register)";
        return -ENODEV;
    }
    job_timeout_ = std::chrono::milliseconds(simtgpu_effective_timeout_ms(
        uint32_t(env_u64("SIMTGPU_JOB_TIMEOUT_MS", SIMTGPU_DEFAULT_TIMEOUT_MS))));
    vram_alloc_.init(0, vram_size_);
    uint64_t fences = vram_alloc_.allocate(SIMTGPU_PAGE_SIZE);
    std::memset(vram_ + fences, 0, SIMTGPU_PAGE_SIZE);
    job_times_ = vram_alloc_.allocate(SIMTGPU_JOB_TIMES_BYTES);
    for (unsigned i = 0; i < SIMTGPU_NUM_RINGS; ++i) {
        rings_[i].base = vram_alloc_.allocate(kRingBytes);
        rings_[i].fence_offset = fences + 8 * i;
    }
    program_rings();
    scheduler_ = std::thread([this] { scheduler_main(); });
    return 0;
}

// Ring registers and interrupt mask, after creation or a reset.
void SimDevice::program_rings() {
    for (unsigned i = 0; i < SIMTGPU_NUM_RINGS; ++i) {
        Ring &ring = rings_[i];
        uint32_t base = SIMTGPU_RING_BASE(i);
        write_reg(base + SIMTGPU_RING_CTRL, 0);
        write_reg(base + SIMTGPU_RING_ADDR_LO, uint32_t(ring.base));
        write_reg(base + SIMTGPU_RING_ADDR_HI, uint32_t(ring.base >> 32));
        write_reg(base + SIMTGPU_RING_SIZE, kRingBytes);
        write_reg(base + SIMTGPU_RING_PRIORITY, simtgpu_ring_priority(i));
        write_reg(base + SIMTGPU_RING_CTRL, SIMTGPU_RING_CTRL_ENABLE);
        ring.tail = reg(base + SIMTGPU_RING_HEAD);
        write_reg(base + SIMTGPU_RING_TAIL, ring.tail);
        *vram64(ring.fence_offset) = ring.seqno;
    }
    write_reg(SIMTGPU_REG_IRQ_ACK, ~0u);
    write_reg(SIMTGPU_REG_IRQ_MASK,
              SIMTGPU_IRQ_FENCE | SIMTGPU_IRQ_EXCEPTION | SIMTGPU_IRQ_RING_ERROR);
}

SimDevice::~SimDevice() {
    if (scheduler_.joinable()) {
        {
            std::lock_guard<std::mutex> guard(irq_mu_);
            stopping_ = true;
        }
        irq_cv_.notify_all();
        scheduler_.join();
    }
    if (sim_)
        lib_.destroy(sim_);
    if (lib_.handle)
        dlclose(lib_.handle);
}

// ------------------------------------------------------ callbacks ---

void SimDevice::on_irq(void *opaque, uint32_t) { static_cast<SimDevice *>(opaque)->wake_scheduler(); }

void SimDevice::wake_scheduler() {
    {
        std::lock_guard<std::mutex> guard(irq_mu_);
        irq_pending_ = true;
    }
    irq_cv_.notify_one();
}

// In-process bus addresses of host memory are host virtual addresses; only
// ranges inside a host-memory BO are reachable.
bool SimDevice::host_range_ok(uint64_t bus, uint64_t len) {
    std::lock_guard<std::mutex> guard(host_mu_);
    auto it = host_ranges_.upper_bound(bus);
    if (it == host_ranges_.begin())
        return false;
    --it;
    return bus >= it->first && bus + len <= it->first + it->second && bus + len >= bus;
}

int SimDevice::on_dma_read(void *opaque, uint64_t bus, void *buf, uint64_t len) {
    auto *self = static_cast<SimDevice *>(opaque);
    if (!self->host_range_ok(bus, len))
        return -EFAULT;
    std::memcpy(buf, reinterpret_cast<const void *>(bus), len);
    return 0;
}

int SimDevice::on_dma_write(void *opaque, uint64_t bus, const void *buf, uint64_t len) {
    auto *self = static_cast<SimDevice *>(opaque);
    if (!self->host_range_ok(bus, len))
        return -EFAULT;
    std::memcpy(reinterpret_cast<void *>(bus), buf, len);
    return 0;
}
// The bus address is the process's own address: the CPU's atomic, so that
// the kernel's *_system atomics and the program's threads' combine.
int SimDevice::on_dma_cmpxchg(void *opaque, uint64_t bus, uint32_t size, uint64_t expected,
                              uint64_t desired, uint64_t *old) {
    auto *self = static_cast<SimDevice *>(opaque);
    if ((size != 4 && size != 8) || bus % size != 0 || !self->host_range_ok(bus, size))
        return -EFAULT;
    if (size == 8) {
        std::atomic_ref<uint64_t>(*reinterpret_cast<uint64_t *>(bus))
            .compare_exchange_strong(expected, desired);
        *old = expected;
    } else {
        uint32_t expected32 = uint32_t(expected);
        std::atomic_ref<uint32_t>(*reinterpret_cast<uint32_t *>(bus))
            .compare_exchange_strong(expected32, uint32_t(desired));
        *old = expected32;
    }
    return 0;
}

// ---------------------------------------------------- page tables ---

int SimDevice::walk(FileState *f, uint64_t va, bool create, uint64_t **pte) {
    struct Tables {
        SimDevice *device;
        FileState *file;
    } tables{this, f};
    simtgpu_pt_access access{};
    access.ctx = &tables;
    access.read = [](void *ctx, uint64_t offset) {
        return *static_cast<Tables *>(ctx)->device->vram64(offset);
    };
    access.write = [](void *ctx, uint64_t offset, uint64_t entry) {
        *static_cast<Tables *>(ctx)->device->vram64(offset) = entry;
    };
    access.alloc_table = [](void *ctx, uint64_t *table) {
        auto *t = static_cast<Tables *>(ctx);
        *table = t->device->vram_alloc_.allocate(SIMTGPU_PAGE_SIZE);
        if (*table == UINT64_MAX)
            return -ENOSPC;
        std::memset(t->device->vram_ + *table, 0, SIMTGPU_PAGE_SIZE);
        t->file->tables.push_back(*table);
        return 0;
    };
    uint64_t offset = 0;
    if (int rc = simtgpu_pt_walk(&access, f->root_table, va, create, &offset))
        return rc;
    *pte = vram64(offset);
    return 0;
}

int SimDevice::map_range(FileState *f, uint64_t va, uint64_t bytes, uint64_t target,
                         uint64_t pte_flags) {
    for (uint64_t off = 0; off < bytes; off += SIMTGPU_PAGE_SIZE) {
        uint64_t *pte = nullptr;
        if (int rc = walk(f, va + off, true, &pte)) {
            unmap_range(f, va, off);
            return rc;
        }
        *pte = SIMTGPU_PTE_MAKE(target + off, pte_flags);
    }
    return 0;
}

void SimDevice::unmap_range(FileState *f, uint64_t va, uint64_t bytes) {
    uint64_t *pte = nullptr;
    for (uint64_t off = 0; off < bytes; off += SIMTGPU_PAGE_SIZE)
        if (walk(f, va + off, false, &pte) == 0)
            *pte = 0;
}

// ---------------------------------------------------------- files ---

int SimDevice::open(FileState *f, std::string *error) {
    std::lock_guard<std::mutex> guard(mu_);
    f->root_table = vram_alloc_.allocate(SIMTGPU_PAGE_SIZE);
    if (f->root_table == UINT64_MAX) {
        *error = "out of VRAM for a page table";
        return -ENOMEM;
    }
    std::memset(vram_ + f->root_table, 0, SIMTGPU_PAGE_SIZE);
    f->context_id = next_context_id_++;
    f->va.init(SIMTGPU_USER_VA_START, SIMTGPU_USER_VA_END - SIMTGPU_USER_VA_START);
    f->vram_limit = env_u64("SIMTGPU_VRAM_LIMIT_MB", SIMTGPU_DEFAULT_VRAM_LIMIT_MB) << 20;
    files_.push_back(f);
    return 0;
}

// Like closing a render node: waiting jobs are cancelled, running ones
// finish (or time out), then the address space and its memory go.
void SimDevice::close(FileState *f) {
    std::unique_lock<std::mutex> lock(mu_);
    for (auto &[id, queue] : f->queues) {
        for (auto &job : queue->waiting) {
            job->error = -ECANCELED;
            job->done->error = -ECANCELED;
            job->done->signaled = true;
            --queue->unfinished;
        }
        queue->waiting.clear();
    }
    done_.wait(lock, [&] {
        for (auto &[id, queue] : f->queues)
            if (queue->unfinished)
                return false;
        return true;
    });
    for (auto &[handle, bo] : f->bos)
        free_bo(f, *bo);
    f->bos.clear();
    for (uint64_t table : f->tables)
        vram_alloc_.release(table, SIMTGPU_PAGE_SIZE);
    vram_alloc_.release(f->root_table, SIMTGPU_PAGE_SIZE);
    files_.erase(std::find(files_.begin(), files_.end(), f));
    done_.notify_all();
}

void SimDevice::free_bo(FileState *f, Bo &bo) {
    unmap_range(f, bo.va, bo.size);
    f->va.release(bo.va, simtgpu_bo_va_span(bo.flags, bo.size));
    if (bo.user) {
        std::lock_guard<std::mutex> guard(host_mu_);
        host_ranges_.erase(reinterpret_cast<uint64_t>(bo.user));
    } else {
        vram_alloc_.release(bo.vram_offset, bo.size);
        f->vram_bytes -= bo.size;
    }
}

void *SimDevice::mmap(FileState *f, uint64_t offset, uint64_t size) {
    std::lock_guard<std::mutex> guard(mu_);
    auto it = f->bos.find(uint32_t(offset >> 32));
    if ((offset & 0xffffffffu) || it == f->bos.end() || size > it->second->size)
        return nullptr;
    Bo &bo = *it->second;
    return bo.user ? nullptr : vram_ + bo.vram_offset;
}

// --------------------------------------------------------- ioctls ---

int SimDevice::ioctl(FileState *f, unsigned long request, void *arg) {
    if (!arg)
        return -EFAULT;
    std::unique_lock<std::mutex> lock(mu_);
    switch (request) {
    case DRM_IOCTL_SIMTGPU_GET_PARAM:
        return get_param(f, static_cast<drm_simtgpu_get_param *>(arg));
    case DRM_IOCTL_SIMTGPU_BO_CREATE:
        return bo_create(f, static_cast<drm_simtgpu_bo_create *>(arg));
    case DRM_IOCTL_SIMTGPU_BO_MMAP_OFFSET:
        return bo_mmap_offset(f, static_cast<drm_simtgpu_bo_mmap_offset *>(arg));
    case DRM_IOCTL_SIMTGPU_BO_INFO:
        return bo_info(f, static_cast<drm_simtgpu_bo_info *>(arg));
    case DRM_IOCTL_SIMTGPU_BO_USERPTR:
        return bo_userptr(f, static_cast<drm_simtgpu_bo_userptr *>(arg));
    case DRM_IOCTL_SIMTGPU_MANAGED_PREFETCH:
        return managed_prefetch(f, static_cast<drm_simtgpu_managed_prefetch *>(arg));
    case DRM_IOCTL_SIMTGPU_MANAGED_ADVISE:
        return managed_advise(f, static_cast<drm_simtgpu_managed_advise *>(arg));
    case DRM_IOCTL_SIMTGPU_SUBMIT:
        return submit(f, static_cast<drm_simtgpu_submit *>(arg));
    case DRM_IOCTL_SIMTGPU_WAIT_BO:
        return wait_bo(f, static_cast<drm_simtgpu_wait_bo *>(arg), lock);
    case DRM_IOCTL_SIMTGPU_QUEUE_CREATE:
        return queue_create(f, static_cast<drm_simtgpu_queue_create *>(arg));
    case DRM_IOCTL_SIMTGPU_QUEUE_DESTROY:
        return queue_destroy(f, static_cast<drm_simtgpu_queue_destroy *>(arg), lock);
    case DRM_IOCTL_SIMTGPU_QUEUE_GET_STATE:
        return queue_get_state(f, static_cast<drm_simtgpu_queue_get_state *>(arg));
    case DRM_IOCTL_GEM_CLOSE:
        return gem_close(f, static_cast<drm_gem_close *>(arg), lock);
    case DRM_IOCTL_SYNCOBJ_CREATE:
        return syncobj_create(f, static_cast<drm_syncobj_create *>(arg));
    case DRM_IOCTL_SYNCOBJ_DESTROY:
        return syncobj_destroy(f, static_cast<drm_syncobj_destroy *>(arg));
    case DRM_IOCTL_SYNCOBJ_WAIT:
        return syncobj_wait(f, static_cast<drm_syncobj_wait *>(arg), lock);
    case DRM_IOCTL_SYNCOBJ_RESET:
        return syncobj_reset_or_signal(f, static_cast<drm_syncobj_array *>(arg), false);
    case DRM_IOCTL_SYNCOBJ_SIGNAL:
        return syncobj_reset_or_signal(f, static_cast<drm_syncobj_array *>(arg), true);
    case DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT:
        return syncobj_timeline_wait(f, static_cast<drm_syncobj_timeline_wait *>(arg), lock);
    case DRM_IOCTL_SYNCOBJ_QUERY:
        return syncobj_query(f, static_cast<drm_syncobj_timeline_array *>(arg));
    case DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL:
        return syncobj_timeline_signal(f, static_cast<drm_syncobj_timeline_array *>(arg));
    case DRM_IOCTL_SYNCOBJ_TRANSFER:
        return syncobj_transfer(f, static_cast<drm_syncobj_transfer *>(arg));
    default:
        return -ENOTTY;
    }
}

int SimDevice::get_param(FileState *f, drm_simtgpu_get_param *a) {
    if (a->pad)
        return -EINVAL;
    if (simtgpu_param_constant(a))
        return 0;
    if (uint32_t r = 0; simtgpu_param_register(a->param, reg(SIMTGPU_REG_HW_VERSION), &r)) {
        a->value = r ? reg(r) : 0;
        return 0;
    }
    switch (a->param) {
    case SIMTGPU_PARAM_VRAM_SIZE: a->value = vram_size_; return 0;
    case SIMTGPU_PARAM_VRAM_USED: a->value = vram_alloc_.used(); return 0;
    case SIMTGPU_PARAM_VRAM_LIMIT: a->value = f->vram_limit; return 0;
    case SIMTGPU_PARAM_TIMESTAMP: {
        uint64_t lo = reg(SIMTGPU_REG_TIMER_LO); // latches HI
        a->value = lo | (uint64_t(reg(SIMTGPU_REG_TIMER_HI)) << 32);
        return 0;
    }
    case SIMTGPU_PARAM_CGROUP_VRAM_MAX: a->value = dmem_max(); return 0;
    case SIMTGPU_PARAM_CGROUP_VRAM_CURRENT: a->value = dmem_current(); return 0;
    // No partitions here (docs/sharing.md): the whole GPU, never split.
    case SIMTGPU_PARAM_PARTITION: a->value = 0; return 0;
    case SIMTGPU_PARAM_NUM_PARTITIONS: a->value = 0; return 0;
    // No managed BOs here (bo_create): nothing ever faults or migrates.
    case SIMTGPU_PARAM_MANAGED_GPU_FAULTS:
    case SIMTGPU_PARAM_MANAGED_TO_VRAM:
    case SIMTGPU_PARAM_MANAGED_TO_HOST:
    case SIMTGPU_PARAM_MANAGED_DUPLICATED:
    case SIMTGPU_PARAM_MANAGED_REMOTE:
    case SIMTGPU_PARAM_MANAGED_EVICTED: a->value = 0; return 0;
    default: return -EINVAL;
    }
}

// VRAM charged to the process's cgroup: every file's BOs and page tables.
uint64_t SimDevice::dmem_current() const {
    uint64_t sum = 0;
    for (const FileState *file : files_)
        sum += file->vram_bytes + (file->tables.size() + 1) * SIMTGPU_PAGE_SIZE;
    return sum;
}

// A BO's VA range: at `fixed_va` with SIMTGPU_BO_FIXED_VA (-EEXIST when
// taken), else the lowest free range from simtgpu_bo_va_search_start().
int SimDevice::place(FileState *f, uint32_t flags, uint64_t fixed_va, uint64_t span,
                     uint64_t *va) {
    if (flags & SIMTGPU_BO_FIXED_VA) {
        if (!f->va.reserve(fixed_va, span))
            return -EEXIST;
        *va = fixed_va;
        return 0;
    }
    *va = f->va.allocate_from(simtgpu_bo_va_search_start(flags), span);
    return *va == UINT64_MAX ? -ENOSPC : 0;
}

int SimDevice::bo_create(FileState *f, drm_simtgpu_bo_create *a) {
    if (int rc = simtgpu_bo_create_check(a))
        return rc;
    // Managed BOs move pages on GPU page faults, which only the kernel
    // driver services: here no device has replayable faults (docs/umd.md).
    if (a->flags & SIMTGPU_BO_MANAGED) {
        if (a->flags & (SIMTGPU_BO_EXEC | SIMTGPU_BO_READ_ONLY))
            return -EINVAL;
        return -ENODEV;
    }
    uint64_t size = (a->size + SIMTGPU_PAGE_SIZE - 1) & ~uint64_t(SIMTGPU_PAGE_SIZE - 1);
    if (int rc = simtgpu_bo_placement_check(a->flags, a->gpu_va, size))
        return rc;
    // The file's limit, then VRAM exhaustion: -ENOSPC (the allocator's
    // answer, drm_buddy's in the kernel).
    if (!simtgpu_vram_limit_allows(f->vram_bytes + size, f->vram_limit) || size > vram_size_)
        return -ENOSPC;
    // The cgroup's limit, with dmem semantics: -ENOMEM.
    if (!simtgpu_dmem_allows(dmem_current(), size, dmem_max()))
        return -ENOMEM;
    const uint64_t span = simtgpu_bo_va_span(a->flags, size);
    uint64_t va = 0;
    if (int rc = place(f, a->flags, a->gpu_va, span, &va))
        return rc;
    auto bo = std::make_shared<Bo>();
    bo->flags = a->flags;
    bo->size = size;
    bo->va = va;
    bo->vram_offset = vram_alloc_.allocate(size);
    if (bo->vram_offset == UINT64_MAX) {
        f->va.release(va, span);
        return -ENOSPC;
    }
    // Never leak another file's data; untouched pages stay unbacked.
    lib_.vram_clear(sim_, bo->vram_offset, size);
    if (int rc = map_range(f, bo->va, size, bo->vram_offset, simtgpu_bo_pte_flags(a->flags))) {
        vram_alloc_.release(bo->vram_offset, size);
        f->va.release(va, span);
        return rc;
    }
    f->vram_bytes += size;
    a->handle = f->next_bo++;
    a->gpu_va = bo->va;
    f->bos[a->handle] = bo;
    return 0;
}

// Whether [begin, end) is mapped in this process, and writable if `write`:
// what pin_user_pages() checks in the kernel, read from /proc/self/maps.
static bool user_range_mapped(uint64_t begin, uint64_t end, bool write) {
    std::FILE *maps = std::fopen("/proc/self/maps", "r");
    if (!maps)
        return false;
    char line[512];
    uint64_t covered = begin;
    while (covered < end && std::fgets(line, sizeof line, maps)) {
        unsigned long long lo = 0, hi = 0;
        char perms[5] = {};
        if (std::sscanf(line, "%llx-%llx %4s", &lo, &hi, perms) != 3)
            continue;
        if (lo > covered)
            break; // a hole (the lines are sorted by address)
        if (hi <= covered)
            continue;
        if (perms[0] != 'r' || (write && perms[1] != 'w'))
            break;
        covered = hi;
    }
    std::fclose(maps);
    return covered >= end;
}

int SimDevice::bo_userptr(FileState *f, drm_simtgpu_bo_userptr *a) {
    if (a->extensions || (a->flags & ~SIMTGPU_BO_USERPTR_FLAGS))
        return -EINVAL;
    if (!a->size || a->size % SIMTGPU_PAGE_SIZE || a->user_ptr % SIMTGPU_PAGE_SIZE)
        return -EINVAL;
    if (int rc = simtgpu_bo_placement_check(a->flags, a->gpu_va, a->size))
        return rc;
    if (a->user_ptr + a->size < a->user_ptr ||
        !user_range_mapped(a->user_ptr, a->user_ptr + a->size,
                           !(a->flags & SIMTGPU_BO_READ_ONLY)))
        return -EFAULT;
    const uint64_t span = simtgpu_bo_va_span(a->flags, a->size);
    uint64_t va = 0;
    if (int rc = place(f, a->flags, a->gpu_va, span, &va))
        return rc;
    auto bo = std::make_shared<Bo>();
    bo->flags = a->flags;
    bo->size = a->size;
    bo->va = va;
    bo->user = reinterpret_cast<void *>(a->user_ptr);
    if (int rc = map_range(f, va, a->size, a->user_ptr,
                           simtgpu_bo_pte_flags(a->flags) | SIMTGPU_PTE_HOST)) {
        f->va.release(va, span);
        return rc;
    }
    {
        std::lock_guard<std::mutex> guard(host_mu_);
        host_ranges_[a->user_ptr] = a->size;
    }
    a->handle = f->next_bo++;
    a->gpu_va = va;
    f->bos[a->handle] = bo;
    return 0;
}

int SimDevice::bo_mmap_offset(FileState *f, drm_simtgpu_bo_mmap_offset *a) {
    if (a->flags)
        return -EINVAL;
    auto it = f->bos.find(a->handle);
    if (it == f->bos.end())
        return -ENOENT;
    if (it->second->user)
        return -EINVAL; // the caller's own memory already
    a->offset = uint64_t(a->handle) << 32;
    return 0;
}

int SimDevice::bo_info(FileState *f, drm_simtgpu_bo_info *a) {
    auto it = f->bos.find(a->handle);
    if (it == f->bos.end())
        return -ENOENT;
    a->flags = it->second->flags;
    a->size = it->second->size;
    a->gpu_va = it->second->va;
    return 0;
}

// The arguments' checks, then the handle's: since no BO here is managed
// (bo_create), every BO that exists is -EINVAL.
int SimDevice::managed_prefetch(FileState *f, drm_simtgpu_managed_prefetch *a) {
    if (int rc = simtgpu_managed_prefetch_check(a))
        return rc;
    return f->bos.count(a->handle) ? -EINVAL : -ENOENT;
}

int SimDevice::managed_advise(FileState *f, drm_simtgpu_managed_advise *a) {
    if (int rc = simtgpu_managed_advise_check(a))
        return rc;
    return f->bos.count(a->handle) ? -EINVAL : -ENOENT;
}

int SimDevice::gem_close(FileState *f, drm_gem_close *a, std::unique_lock<std::mutex> &lock) {
    auto it = f->bos.find(a->handle);
    if (it == f->bos.end())
        return -EINVAL; // as drm_gem_handle_delete
    // The GPU may still use the BO: the kernel keeps it alive until its
    // fences signal, and so do we, by waiting.
    std::shared_ptr<Bo> bo = it->second;
    f->bos.erase(it);
    done_.wait(lock, [&] { return bo->idle(); });
    free_bo(f, *bo);
    return 0;
}

int SimDevice::submit(FileState *f, drm_simtgpu_submit *a) {
    if (int rc = simtgpu_submit_check(a))
        return rc;
    auto qit = f->queues.find(a->queue_id);
    if (qit == f->queues.end())
        return -ENOENT;
    std::shared_ptr<Queue> queue = qit->second;
    if (!simtgpu_queue_usable(&queue->health))
        return -ECANCELED;
    uint64_t ib_bytes = uint64_t(a->ib_dwords) * 4;
    bool ib_mapped = std::any_of(f->bos.begin(), f->bos.end(), [&](auto &entry) {
        const Bo &bo = *entry.second;
        return a->ib_va >= bo.va && a->ib_va + ib_bytes <= bo.va + bo.size;
    });
    if (!ib_mapped)
        return -EINVAL;

    auto job = std::make_shared<Job>();
    job->file = f;
    job->queue = queue;
    job->ib_va = a->ib_va;
    job->ib_dwords = a->ib_dwords;

    std::vector<std::pair<std::shared_ptr<Bo>, uint32_t>> bos;
    for (uint32_t i = 0; i < a->bo_count; ++i) {
        drm_simtgpu_bo_ref ref;
        std::memcpy(&ref, reinterpret_cast<const uint8_t *>(a->bos) + size_t(i) * a->bo_stride,
                    sizeof(ref));
        if (ref.flags & ~SIMTGPU_BO_REF_WRITE)
            return -EINVAL;
        auto it = f->bos.find(ref.handle);
        if (it == f->bos.end())
            return -ENOENT;
        bos.emplace_back(it->second, ref.flags & SIMTGPU_BO_REF_WRITE);
    }
    auto read_sync = [&](uint64_t array, uint32_t i, drm_simtgpu_sync *out) {
        std::memcpy(out, reinterpret_cast<const uint8_t *>(array) + size_t(i) * a->sync_stride,
                    sizeof(*out));
    };
    for (uint32_t i = 0; i < a->in_sync_count; ++i) {
        drm_simtgpu_sync sync;
        read_sync(a->in_syncs, i, &sync);
        if (sync.pad)
            return -EINVAL;
        auto it = f->syncobjs.find(sync.handle);
        if (it == f->syncobjs.end())
            return -ENOENT;
        // As DRM's drm_syncobj_find_fence without WAIT_FOR_SUBMIT: no fence
        // (or no such point yet) is nothing to wait for.
        if (!it->second->resolve(sync.point, &job->deps))
            return -EINVAL;
    }
    std::vector<std::pair<std::shared_ptr<Syncobj>, uint64_t>> outs;
    for (uint32_t i = 0; i < a->out_sync_count; ++i) {
        drm_simtgpu_sync sync;
        read_sync(a->out_syncs, i, &sync);
        if (sync.pad)
            return -EINVAL;
        auto it = f->syncobjs.find(sync.handle);
        if (it == f->syncobjs.end())
            return -ENOENT;
        outs.emplace_back(it->second, sync.point);
    }
    // A BO listed twice is -EINVAL (the kernel's reservation locking
    // finds it locked already).
    for (size_t i = 0; i < bos.size(); ++i)
        for (size_t j = 0; j < i; ++j)
            if (bos[i].first == bos[j].first)
                return -EINVAL;
    for (auto &[bo, write] : bos) {
        bo->forget_finished_uses();
        if (!(a->flags & SIMTGPU_SUBMIT_NO_IMPLICIT_SYNC))
            for (const Bo::Use &use : bo->uses)
                if (simtgpu_implicit_dependency(write, use.write))
                    job->deps.push_back(use.fence);
    }
    for (auto &[bo, write] : bos)
        bo->uses.push_back({job->done, bool(write)});
    for (auto &[syncobj, point] : outs) {
        if (point)
            syncobj->add_point(point, job->done);
        else
            syncobj->replace(job->done);
    }

    if (queue->unfinished == 0)
        queue->ring = pick_ring(*queue);
    job->ring = queue->ring;
    queue->waiting.push_back(job);
    ++queue->unfinished;
    wake_scheduler();
    return 0;
}

// As drm_sched_pick_best() scores rings: queues that have jobs on it, plus
// the jobs on it.
unsigned SimDevice::pick_ring(const Queue &queue) {
    uint32_t load[SIMTGPU_NUM_RINGS] = {};
    for (unsigned i = 0; i < SIMTGPU_NUM_RINGS; ++i)
        load[i] = uint32_t(rings_[i].running.size());
    for_each_queue([&](Queue &q) {
        if (q.unfinished)
            ++load[q.ring];
    });
    return simtgpu_pick_ring(queue.priority, load);
}

int SimDevice::wait_bo(FileState *f, drm_simtgpu_wait_bo *a, std::unique_lock<std::mutex> &lock) {
    if (a->flags)
        return -EINVAL;
    auto it = f->bos.find(a->handle);
    if (it == f->bos.end())
        return -ENOENT;
    std::shared_ptr<Bo> bo = it->second;
    bool ok = done_.wait_until(lock, from_monotonic_ns(a->timeout_ns), [&] { return bo->idle(); });
    return ok ? 0 : -ETIME;
}

int SimDevice::queue_create(FileState *f, drm_simtgpu_queue_create *a) {
    if (a->flags || a->pad || a->priority > SIMTGPU_PRIORITY_HIGH)
        return -EINVAL;
    if (f->queues.size() >= SIMTGPU_MAX_QUEUES_PER_FILE)
        return -EBUSY; // as xa_alloc on a full range
    auto queue = std::make_shared<Queue>();
    queue->id = f->next_queue++;
    queue->priority = a->priority;
    queue->ring = simtgpu_class_first_ring(a->priority); // picked again at each idle submit
    f->queues[queue->id] = queue;
    a->queue_id = queue->id;
    return 0;
}

int SimDevice::queue_destroy(FileState *f, drm_simtgpu_queue_destroy *a,
                             std::unique_lock<std::mutex> &lock) {
    if (a->pad)
        return -EINVAL;
    auto it = f->queues.find(a->queue_id);
    if (it == f->queues.end())
        return -ENOENT;
    std::shared_ptr<Queue> queue = it->second;
    f->queues.erase(it);
    // Like drm_sched_entity_destroy: the queue's submitted jobs still run,
    // waiting ones included, so the scheduler must still see the queue.
    f->draining.push_back(queue);
    wake_scheduler();
    done_.wait(lock, [&] { return queue->unfinished == 0; });
    f->draining.erase(std::find(f->draining.begin(), f->draining.end(), queue));
    return 0;
}

int SimDevice::queue_get_state(FileState *f, drm_simtgpu_queue_get_state *a) {
    if (a->pad)
        return -EINVAL;
    auto it = f->queues.find(a->queue_id);
    if (it == f->queues.end())
        return -ENOENT;
    a->state = it->second->health.state;
    a->last_error = it->second->health.last_error;
    a->fault = it->second->health.fault;
    return 0;
}

int SimDevice::syncobj_create(FileState *f, drm_syncobj_create *a) {
    if (a->flags & ~DRM_SYNCOBJ_CREATE_SIGNALED)
        return -EINVAL;
    auto syncobj = std::make_shared<Syncobj>();
    if (a->flags & DRM_SYNCOBJ_CREATE_SIGNALED)
        syncobj->replace(signaled_fence());
    a->handle = f->next_syncobj++;
    f->syncobjs[a->handle] = syncobj;
    return 0;
}

int SimDevice::syncobj_destroy(FileState *f, drm_syncobj_destroy *a) {
    if (a->pad)
        return -EINVAL;
    return f->syncobjs.erase(a->handle) ? 0 : -EINVAL; // drm_syncobj_destroy: -EINVAL
}

int SimDevice::syncobj_wait(FileState *f, drm_syncobj_wait *a,
                            std::unique_lock<std::mutex> &lock) {
    constexpr uint32_t known =
        DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL | DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT;
    if ((a->flags & ~known) || a->pad || a->count_handles == 0)
        return -EINVAL;
    std::vector<std::shared_ptr<Syncobj>> objs;
    const auto *handles = reinterpret_cast<const uint32_t *>(a->handles);
    for (uint32_t i = 0; i < a->count_handles; ++i) {
        auto it = f->syncobjs.find(handles[i]);
        if (it == f->syncobjs.end())
            return -ENOENT;
        if (it->second->empty() && !(a->flags & DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT))
            return -EINVAL;
        objs.push_back(it->second);
    }
    bool all = a->flags & DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL;
    return wait_for_syncobjs(
        done_, lock, uint32_t(objs.size()), all, a->timeout_nsec,
        [&](uint32_t i) { return objs[i]->signaled(); }, &a->first_signaled);
}

int SimDevice::syncobj_reset_or_signal(FileState *f, drm_syncobj_array *a, bool signal) {
    if (a->pad || a->count_handles == 0)
        return -EINVAL;
    const auto *handles = reinterpret_cast<const uint32_t *>(a->handles);
    std::vector<std::shared_ptr<Syncobj>> objs;
    for (uint32_t i = 0; i < a->count_handles; ++i) {
        auto it = f->syncobjs.find(handles[i]);
        if (it == f->syncobjs.end())
            return -ENOENT;
        objs.push_back(it->second);
    }
    for (auto &obj : objs)
        obj->replace(signal ? signaled_fence() : nullptr);
    done_.notify_all();
    wake_scheduler();
    return 0;
}

// drm_syncobj_transfer_ioctl: the fence of src at src_point becomes dst's
// (dst_point 0) or dst's point dst_point. A fence made of several unsignalled
// links (a timeline point) goes over as links at one point, which signal
// together as the kernel's dma_fence_chain does. Waiting for a fence to be
// submitted (WAIT_FOR_SUBMIT) is not emulated: -EINVAL, as without the flag.
int SimDevice::syncobj_transfer(FileState *f, drm_syncobj_transfer *a) {
    if (a->pad || a->flags)
        return -EINVAL;
    auto src = f->syncobjs.find(a->src_handle), dst = f->syncobjs.find(a->dst_handle);
    if (src == f->syncobjs.end() || dst == f->syncobjs.end())
        return -ENOENT;
    std::vector<std::shared_ptr<Fence>> deps;
    if (!src->second->resolve(a->src_point, &deps))
        return -EINVAL; // drm_syncobj_find_fence: no fence (yet)
    if (deps.empty())
        deps.push_back(signaled_fence());
    Syncobj &to = *dst->second;
    if (!a->dst_point && deps.size() == 1) {
        to.replace(deps[0]);
    } else {
        if (!a->dst_point)
            to.replace(nullptr);
        for (auto &fence : deps)
            to.add_point(a->dst_point ? a->dst_point : 1, fence);
    }
    done_.notify_all();
    wake_scheduler();
    return 0;
}

// drm_syncobj_array_find: unknown handles are -ENOENT.
static int find_syncobjs(FileState *f, uint64_t handles, uint32_t count,
                         std::vector<std::shared_ptr<Syncobj>> *objs) {
    const auto *h = reinterpret_cast<const uint32_t *>(handles);
    for (uint32_t i = 0; i < count; ++i) {
        auto it = f->syncobjs.find(h[i]);
        if (it == f->syncobjs.end())
            return -ENOENT;
        objs->push_back(it->second);
    }
    return 0;
}

int SimDevice::syncobj_timeline_wait(FileState *f, drm_syncobj_timeline_wait *a,
                                     std::unique_lock<std::mutex> &lock) {
    constexpr uint32_t known = DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL |
                               DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT |
                               DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE;
    // The kernel does not check pad here.
    if ((a->flags & ~known) || a->count_handles == 0)
        return -EINVAL;
    std::vector<std::shared_ptr<Syncobj>> objs;
    if (int err = find_syncobjs(f, a->handles, a->count_handles, &objs))
        return err;
    const auto *points = reinterpret_cast<const uint64_t *>(a->points); // null: all 0
    bool later = a->flags & (DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT |
                             DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE);
    bool available = a->flags & DRM_SYNCOBJ_WAIT_FLAGS_WAIT_AVAILABLE;
    bool all = a->flags & DRM_SYNCOBJ_WAIT_FLAGS_WAIT_ALL;
    // As the kernel, a point's fence is taken once it exists and waited on
    // even if the syncobj changes afterwards.
    struct Entry {
        bool found = false;
        std::vector<std::shared_ptr<Fence>> deps;
    };
    std::vector<Entry> entries(objs.size());
    auto find = [&](uint32_t i) {
        if (!entries[i].found)
            entries[i].found = objs[i]->resolve(points ? points[i] : 0, &entries[i].deps);
        return entries[i].found;
    };
    for (uint32_t i = 0; i < objs.size(); ++i)
        if (!find(i) && !later)
            return -EINVAL;
    return wait_for_syncobjs(
        done_, lock, uint32_t(objs.size()), all, a->timeout_nsec,
        [&](uint32_t i) {
            return find(i) && (available ||
                               std::all_of(entries[i].deps.begin(), entries[i].deps.end(),
                                           [](auto &d) { return d->signaled; }));
        },
        &a->first_signaled);
}

int SimDevice::syncobj_query(FileState *f, drm_syncobj_timeline_array *a) {
    if ((a->flags & ~DRM_SYNCOBJ_QUERY_FLAGS_LAST_SUBMITTED) || a->count_handles == 0)
        return -EINVAL;
    std::vector<std::shared_ptr<Syncobj>> objs;
    if (int err = find_syncobjs(f, a->handles, a->count_handles, &objs))
        return err;
    auto *points = reinterpret_cast<uint64_t *>(a->points);
    for (uint32_t i = 0; i < objs.size(); ++i) {
        const Syncobj &s = *objs[i];
        if (a->flags & DRM_SYNCOBJ_QUERY_FLAGS_LAST_SUBMITTED)
            points[i] = s.points.empty() ? 0 : s.points.back().seqno;
        else
            points[i] = s.last_signaled();
    }
    return 0;
}

int SimDevice::syncobj_timeline_signal(FileState *f, drm_syncobj_timeline_array *a) {
    if (a->flags || a->count_handles == 0)
        return -EINVAL;
    std::vector<std::shared_ptr<Syncobj>> objs;
    if (int err = find_syncobjs(f, a->handles, a->count_handles, &objs))
        return err;
    const auto *points = reinterpret_cast<const uint64_t *>(a->points); // null: all 0
    for (uint32_t i = 0; i < objs.size(); ++i)
        objs[i]->add_point(points ? points[i] : 0, signaled_fence());
    done_.notify_all();
    wake_scheduler();
    return 0;
}

// ------------------------------------------------------- scheduler ---

void SimDevice::scheduler_main() {
    for (;;) {
        {
            std::unique_lock<std::mutex> lock(irq_mu_);
            // Interrupts wake us; polling every few ms is the backstop for a
            // missed one and drives timeouts.
            irq_cv_.wait_for(lock, std::chrono::milliseconds(2),
                             [&] { return irq_pending_ || stopping_; });
            if (stopping_)
                return;
            irq_pending_ = false;
        }
        std::lock_guard<std::mutex> guard(mu_);
        service_interrupts();
        retire_completed();
        push_ready_jobs();
        check_timeouts();
    }
}

void SimDevice::service_interrupts() {
    for (int guard = 0; guard < 64; ++guard) {
        uint32_t status = reg(SIMTGPU_REG_IRQ_STATUS);
        if (status & SIMTGPU_IRQ_FENCE)
            write_reg(SIMTGPU_REG_IRQ_ACK, SIMTGPU_IRQ_FENCE);
        if (!(status & SIMTGPU_IRQ_EXCEPTION))
            return;
        uint32_t ring_index = reg(SIMTGPU_REG_EXC_RING);
        uint32_t context = reg(SIMTGPU_REG_EXC_CONTEXT);
        drm_simtgpu_fault_info fault{};
        fault.kind = reg(SIMTGPU_REG_EXC_KIND);
        fault.access = reg(SIMTGPU_REG_EXC_ACCESS);
        fault.address = reg(SIMTGPU_REG_EXC_ADDR_LO) |
                        (uint64_t(reg(SIMTGPU_REG_EXC_ADDR_HI)) << 32);
        fault.pc = reg(SIMTGPU_REG_EXC_PC_LO) | (uint64_t(reg(SIMTGPU_REG_EXC_PC_HI)) << 32);
        fault.sm = reg(SIMTGPU_REG_EXC_SM);
        fault.warp = reg(SIMTGPU_REG_EXC_WARP);
        fault.lane = reg(SIMTGPU_REG_EXC_LANE);
        fault.detail = reg(SIMTGPU_REG_EXC_DETAIL);
        for (int i = 0; i < 3; ++i) {
            fault.ctaid[i] = reg(SIMTGPU_REG_EXC_CTAID_X + 4 * i);
            fault.tid[i] = reg(SIMTGPU_REG_EXC_TID_X + 4 * i);
        }
        if (ring_index < SIMTGPU_NUM_RINGS) {
            // Retire what the fence slot has passed: the oldest job left was
            // executing.
            Ring &ring = rings_[ring_index];
            uint64_t completed = fence_value(ring);
            retire_completed();
            if (!ring.running.empty()) {
                Job &job = *ring.running.front();
                if (simtgpu_exception_belongs_to_job(job.seqno, completed,
                                                     job.file->context_id, context)) {
                    job.error = -EFAULT;
                    simtgpu_queue_record_fault(&job.queue->health, &fault);
                }
            }
        }
        // The ring resumes with the packet after the aborted IB: our FENCE.
        write_reg(SIMTGPU_REG_IRQ_ACK, SIMTGPU_IRQ_EXCEPTION);
    }
}

void SimDevice::finish_job(const std::shared_ptr<Job> &job) {
    if (tracing_ && job->seqno) { // the job on its ring, from its two TIMESTAMPs
        const uint64_t *t = vram64(simtgpu_job_time_slot(job_times_, job->ring, job->seqno));
        if (simtgpu_job_device_ns(t[0], t[1]))
            trace_slice("in-process driver", ("ring " + std::to_string(job->ring)).c_str(),
                        ("job " + std::to_string(job->seqno) + " (queue " +
                         std::to_string(job->queue->id) + ")")
                            .c_str(),
                        t[0], t[1]);
    }
    job->done->error = job->error;
    job->done->signaled = true;
    --job->queue->unfinished;
}

void SimDevice::retire_completed() {
    bool any = false;
    for (Ring &ring : rings_) {
        uint64_t completed = fence_value(ring);
        while (!ring.running.empty() && ring.running.front()->seqno <= completed) {
            finish_job(ring.running.front());
            ring.running.pop_front();
            ring.front_since = Clock::now();
            any = true;
        }
    }
    if (any)
        done_.notify_all();
}

// The caller checked ring_has_job_slot(): the job then fits (see kRingBytes).
void SimDevice::push_job(const std::shared_ptr<Job> &job) {
    Ring &ring = rings_[job->ring];
    job->seqno = ++ring.seqno;
    const uint64_t slot = simtgpu_job_time_slot(job_times_, job->ring, job->seqno);
    std::memset(vram_ + slot, 0, 16);
    uint32_t packets[SIMTGPU_JOB_DWORDS];
    simtgpu_job_packets(packets, job->file->context_id, job->file->root_table, job->ib_va,
                        job->ib_dwords, ring.fence_offset, job->seqno, slot);
    if (uint32_t pad; simtgpu_ring_pad(ring.tail, kRingBytes, &pad)) {
        std::memcpy(vram_ + ring.base + ring.tail, &pad, 4);
        ring.tail = 0;
    }
    std::memcpy(vram_ + ring.base + ring.tail, packets, sizeof(packets));
    ring.tail = (ring.tail + uint32_t(sizeof(packets))) & (kRingBytes - 1);
    job->pushed = Clock::now();
    if (ring.running.empty())
        ring.front_since = job->pushed;
    ring.running.push_back(job);
    write_reg(SIMTGPU_RING_BASE(job->ring) + SIMTGPU_RING_TAIL, ring.tail);
}

void SimDevice::push_ready_jobs() {
    // Higher priority queues go first when rings are short of space.
    std::vector<Queue *> queues;
    for_each_queue([&](Queue &queue) { queues.push_back(&queue); });
    std::stable_sort(queues.begin(), queues.end(),
                     [](Queue *a, Queue *b) { return a->priority > b->priority; });
    for (Queue *queue : queues) {
        if (!simtgpu_queue_usable(&queue->health)) {
            // Jobs queued behind a failure are cancelled
            // (simtgpu_queue_usable()).
            for (auto &job : queue->waiting) {
                job->error = -ECANCELED;
                finish_job(job);
            }
            queue->waiting.clear();
            done_.notify_all();
            continue;
        }
        while (!queue->waiting.empty()) {
            auto &job = queue->waiting.front();
            bool ready = std::all_of(job->deps.begin(), job->deps.end(),
                                     [](auto &fence) { return fence->signaled; });
            if (!ready || !ring_has_job_slot(job->ring))
                break;
            push_job(job);
            job->deps.clear();
            queue->waiting.pop_front();
        }
    }
}

uint64_t SimDevice::ring_progress(unsigned index) {
    const uint32_t lo = reg(SIMTGPU_RING_BASE(index) + SIMTGPU_RING_PROGRESS_LO);
    return lo | uint64_t(reg(SIMTGPU_RING_BASE(index) + SIMTGPU_RING_PROGRESS_HI)) << 32;
}

// As drm_sched's timeout: a ring whose first job has been first for the
// timeout is checked by the shared hang rule, and its timer restarts; a
// hung ring's first job is guilty and the device is reset.
void SimDevice::check_timeouts() {
    auto now = Clock::now();
    for (unsigned i = 0; i < SIMTGPU_NUM_RINGS; ++i) {
        Ring &ring = rings_[i];
        if (ring.running.empty() || now - ring.front_since < job_timeout_)
            continue;
        ring.front_since = now;
        uint32_t resident[SIMTGPU_NUM_RINGS];
        for (unsigned k = 0; k < SIMTGPU_NUM_RINGS; ++k)
            resident[k] = reg(SIMTGPU_RING_BASE(k) + SIMTGPU_RING_RESIDENT);
        const bool parked = reg(SIMTGPU_RING_BASE(i) + SIMTGPU_RING_STATUS) ==
                            SIMTGPU_RING_STATUS_PARKED;
        if (simtgpu_ring_hung(&ring.watch, i, ring_progress(i), parked, resident)) {
            reset_after_hang(i);
            return;
        }
    }
}

// The hung ring's first job fails with -ETIMEDOUT and its queue is guilty;
// the device is reset; the other jobs that were on the rings run again,
// unless their queue is faulted or guilty (-ECANCELED): drm_sched's
// resubmission after a reset.
void SimDevice::reset_after_hang(unsigned hung_ring) {
    std::shared_ptr<Job> guilty = rings_[hung_ring].running.front();
    guilty->error = -ETIMEDOUT;
    simtgpu_queue_record_hang(&guilty->queue->health);

    lib_.reset(sim_);
    std::vector<std::shared_ptr<Job>> innocent[SIMTGPU_NUM_RINGS];
    for (unsigned i = 0; i < SIMTGPU_NUM_RINGS; ++i) {
        uint64_t completed = fence_value(rings_[i]);
        for (auto &job : rings_[i].running) {
            if (job != guilty && job->seqno > completed) {
                if (simtgpu_queue_usable(&job->queue->health)) {
                    innocent[i].push_back(job);
                    continue;
                }
                job->error = -ECANCELED;
            }
            finish_job(job);
        }
        rings_[i].running.clear();
        rings_[i].seqno = std::max(rings_[i].seqno, completed);
        rings_[i].watch = {}; // PROGRESS starts again from 0
    }
    program_rings();
    for (auto &jobs : innocent)
        for (auto &job : jobs)
            push_job(job);
    done_.notify_all();
}

// ------------------------------------------------------- SimFile ---

SimFile::SimFile(std::shared_ptr<SimDevice> device, std::unique_ptr<FileState> state)
    : device_(std::move(device)), state_(std::move(state)) {}

SimFile::~SimFile() { device_->close(state_.get()); }

int SimFile::ioctl(unsigned long request, void *arg) {
    return device_->ioctl(state_.get(), request, arg);
}

bool SimFile::tracing() const {
    return device_->tracing();
}

void SimFile::read_counters(uint64_t *out) const {
    device_->read_counters(out);
}

int SimFile::trace_slice(const char *process, const char *track, const char *name,
                         uint64_t begin_ns, uint64_t end_ns) {
    return device_->trace_slice(process, track, name, begin_ns, end_ns);
}

void *SimFile::mmap(uint64_t offset, uint64_t size) {
    return device_->mmap(state_.get(), offset, size);
}

int open_file(std::unique_ptr<SimFile> *out, std::string *error) {
    std::shared_ptr<SimDevice> device;
    if (int rc = SimDevice::get(&device, error))
        return rc;
    auto state = std::make_unique<FileState>();
    if (int rc = device->open(state.get(), error))
        return rc;
    *out = std::make_unique<SimFile>(std::move(device), std::move(state));
    return 0;
}

} // namespace simtgpu::umd::simkmd
