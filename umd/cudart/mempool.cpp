// Stream-ordered allocation: cudaMallocAsync, cudaFreeAsync and memory
// pools, kept by the runtime over libsimtgpu allocations. A freed block
// stays in its pool with an event recorded on the freeing stream at the
// free; an allocation takes it at once on that stream, on another stream
// once the event has completed (cudaMemPoolReuseAllowOpportunistic) or
// with a wait for the event queued first
// (cudaMemPoolReuseAllowInternalDependencies). Synchronising calls give
// free blocks back to the device above the release threshold.
// libstdc++ first: cuda's host_defines.h redefines __noinline__.
#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include "runtime.h"

struct CUmemPoolHandle_st {
    int device = 0;
    bool is_default = false;
    bool destroyed = false; // by cudaMemPoolDestroy, with allocations still out
    uint64_t release_threshold = 0;
    bool follow_events = true, opportunistic = true, internal_dependencies = true;
    uint64_t reserved = 0, reserved_high = 0, used = 0, used_high = 0;
    struct FreeBlock {
        uint64_t ptr;
        size_t size;
        simtgpuStream stream; // freed on; kReleased when that stream was destroyed
        simtgpuEvent ready;   // recorded at the free
    };
    std::multimap<size_t, FreeBlock> free_blocks; // by size
};

namespace simtgpu::cudart {

namespace {

using Pool = CUmemPoolHandle_st;

// No stream has this handle: a free block whose stream is gone.
const simtgpuStream kReleased = reinterpret_cast<simtgpuStream>(uintptr_t(1));

struct Allocation {
    Pool *pool;
    size_t size;
};

struct Pools {
    std::vector<std::unique_ptr<Pool>> defaults; // by device
    std::vector<Pool *> current;                 // by device: cudaMallocAsync's pool
    std::set<std::unique_ptr<Pool>> created;
    std::map<uint64_t, Allocation> allocations;
    // Events of reused blocks, destroyed once signalled (simtgpuEventDestroy
    // would wait for them), by device.
    std::vector<std::pair<int, simtgpuEvent>> retired;
    // By device: recorded right after an inserted wait, so the stream's next
    // submission carries the wait before the waited-for event is retired.
    std::vector<simtgpuEvent> flush;
};

Pools &pools() {
    static Pools *p = new Pools; // as runtime(): used from exit-time code
    return *p;
}

// The pool's device's default pool created on first use; the device count
// from ensure_init (through current_context).
Pool *default_pool(int device) {
    Pools &ps = pools();
    if (ps.defaults.size() <= size_t(device)) {
        ps.defaults.resize(size_t(device) + 1);
        ps.current.resize(size_t(device) + 1, nullptr);
    }
    if (!ps.defaults[device]) {
        ps.defaults[device] = std::make_unique<Pool>();
        ps.defaults[device]->device = device;
        ps.defaults[device]->is_default = true;
    }
    if (!ps.current[device])
        ps.current[device] = ps.defaults[device].get();
    return ps.defaults[device].get();
}

bool valid(Pool *pool) {
    if (!pool || pool->destroyed)
        return false;
    Pools &ps = pools();
    for (auto &d : ps.defaults)
        if (d.get() == pool)
            return true;
    for (auto &c : ps.created)
        if (c.get() == pool)
            return true;
    return false;
}

bool valid_device(int device) {
    int count = 0;
    return cudaGetDeviceCount(&count) == cudaSuccess && device >= 0 && device < count;
}

simtgpuContext context_of(int device) {
    Runtime &rt = runtime();
    return device < int(rt.contexts.size()) ? rt.contexts[device] : nullptr;
}

void release_block(Pool *pool, const Pool::FreeBlock &b) {
    if (simtgpuContext ctx = context_of(pool->device)) {
        simtgpuEventDestroy(b.ready);
        simtgpuMemFree(ctx, b.ptr);
    }
    pool->reserved -= b.size;
}

// Frees the pool's completed free blocks until at most keep bytes are
// reserved (wait: those still pending too, after their work).
void trim(Pool *pool, uint64_t keep, bool wait) {
    for (auto it = pool->free_blocks.begin();
         it != pool->free_blocks.end() && pool->reserved > keep;) {
        if (wait)
            simtgpuEventSynchronize(it->second.ready);
        else if (simtgpuEventQuery(it->second.ready) != SIMTGPU_SUCCESS) {
            ++it;
            continue;
        }
        release_block(pool, it->second);
        it = pool->free_blocks.erase(it);
    }
}

void reap_retired() {
    auto &retired = pools().retired;
    for (auto it = retired.begin(); it != retired.end();) {
        if (simtgpuEventQuery(it->second) == SIMTGPU_SUCCESS) {
            simtgpuEventDestroy(it->second);
            it = retired.erase(it);
        } else {
            ++it;
        }
    }
}

// Queues a wait for ready on st and submits it at once.
bool insert_wait(simtgpuContext ctx, int device, simtgpuStream st, simtgpuEvent ready) {
    Pools &ps = pools();
    if (ps.flush.size() <= size_t(device))
        ps.flush.resize(size_t(device) + 1, nullptr);
    if (!ps.flush[device] &&
        simtgpuEventCreate(&ps.flush[device], ctx, SIMTGPU_EVENT_DISABLE_TIMING))
        return false;
    return simtgpuStreamWaitEvent(ctx, st, ready, 0) == SIMTGPU_SUCCESS &&
           simtgpuEventRecord(ps.flush[device], st) == SIMTGPU_SUCCESS;
}

// Pools have 256-byte granules, as cudaMalloc's alignment.
size_t granule(size_t size) {
    return (size + 255) & ~size_t(255);
}

cudaError_t allocate(void **ptr, size_t size, Pool *pool, cudaStream_t stream) {
    CONTEXT(ctx);
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    if (!valid(pool) || pool->device != current_device())
        return record(cudaErrorInvalidValue);
    if (is_capturing(stream))
        return capture_mem_alloc(ptr, size, stream); // a graph memory node
    if (size == 0) {
        *ptr = nullptr;
        return cudaSuccess;
    }
    const size_t bytes = granule(size);
    const simtgpuStream st = to_stream(stream);
    reap_retired();
    // Best fit among blocks at most twice the size, by the reuse rules.
    for (auto it = pool->free_blocks.lower_bound(bytes);
         it != pool->free_blocks.end() && it->first <= 2 * bytes; ++it) {
        Pool::FreeBlock &b = it->second;
        bool reuse = b.stream == st;
        if (!reuse && pool->opportunistic)
            reuse = simtgpuEventQuery(b.ready) == SIMTGPU_SUCCESS;
        if (!reuse && pool->internal_dependencies)
            reuse = insert_wait(ctx, pool->device, st, b.ready);
        if (!reuse)
            continue;
        pools().retired.emplace_back(pool->device, b.ready);
        *ptr = reinterpret_cast<void *>(b.ptr);
        pools().allocations[b.ptr] = {pool, it->first};
        pool->used += it->first;
        pool->used_high = std::max(pool->used_high, pool->used);
        pool->free_blocks.erase(it);
        return cudaSuccess;
    }
    uint64_t p = 0;
    simtgpuResult r = simtgpuMemAlloc(ctx, &p, bytes);
    if (r == SIMTGPU_ERROR_OUT_OF_MEMORY) {
        // What the pool holds unused goes back first, as in CUDA.
        trim(pool, 0, true);
        r = simtgpuMemAlloc(ctx, &p, bytes);
    }
    if (r != SIMTGPU_SUCCESS) {
        if (r == SIMTGPU_ERROR_OUT_OF_MEMORY)
            std::fprintf(stderr, "simtgpu: cudaMallocAsync: %s\n", simtgpuGetErrorDetail());
        return record(r);
    }
    *ptr = reinterpret_cast<void *>(p);
    pools().allocations[p] = {pool, bytes};
    pool->reserved += bytes;
    pool->used += bytes;
    pool->reserved_high = std::max(pool->reserved_high, pool->reserved);
    pool->used_high = std::max(pool->used_high, pool->used);
    return cudaSuccess;
}

void erase_pool(Pool *pool) {
    Pools &ps = pools();
    for (auto it = ps.created.begin(); it != ps.created.end(); ++it)
        if (it->get() == pool) {
            ps.created.erase(it);
            return;
        }
}

} // namespace

cudaError_t free_pool_allocation(simtgpuContext ctx, void *p) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    auto it = pools().allocations.find(reinterpret_cast<uint64_t>(p));
    if (it == pools().allocations.end())
        return cudaErrorNotReady;
    // cudaFree of a stream-ordered allocation: after all work, at once.
    if (simtgpuResult r = simtgpuCtxSynchronize(ctx))
        return to_cuda(r);
    Pool *pool = it->second.pool;
    pool->used -= it->second.size;
    pool->reserved -= it->second.size;
    simtgpuMemFree(ctx, it->first);
    pools().allocations.erase(it);
    if (pool->destroyed && pool->reserved == 0)
        erase_pool(pool);
    return cudaSuccess;
}

void release_pool_memory() {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    reap_retired();
    Pools &ps = pools();
    for (auto &d : ps.defaults)
        if (d)
            trim(d.get(), d->release_threshold, false);
    for (auto &c : ps.created)
        trim(c.get(), c->release_threshold, false);
}

void forget_pool_stream(simtgpuStream stream) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    auto forget = [stream](Pool &pool) {
        for (auto &[size, b] : pool.free_blocks)
            if (b.stream == stream)
                b.stream = kReleased;
    };
    Pools &ps = pools();
    for (auto &d : ps.defaults)
        if (d)
            forget(*d);
    for (auto &c : ps.created)
        forget(*c);
}

void forget_pools(int device) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    Pools &ps = pools();
    for (auto it = ps.allocations.begin(); it != ps.allocations.end();)
        it = it->second.pool->device == device ? ps.allocations.erase(it) : std::next(it);
    for (auto it = ps.retired.begin(); it != ps.retired.end();)
        it = it->first == device ? ps.retired.erase(it) : std::next(it);
    if (size_t(device) < ps.flush.size())
        ps.flush[device] = nullptr;
    // The handles of created pools become invalid, as in CUDA; the default
    // pool stays, empty, with its attributes reset.
    for (auto it = ps.created.begin(); it != ps.created.end();)
        it = (*it)->device == device ? ps.created.erase(it) : std::next(it);
    if (size_t(device) < ps.defaults.size() && ps.defaults[device]) {
        ps.defaults[device] = nullptr;
        ps.current[device] = nullptr;
    }
}

} // namespace simtgpu::cudart

using namespace simtgpu::cudart;

SIMTCUDA_API cudaError_t cudaMallocFromPoolAsync(void **ptr, size_t size, cudaMemPool_t memPool,
                                                 cudaStream_t stream) {
    if (!ptr)
        return record(cudaErrorInvalidValue);
    return allocate(ptr, size, memPool, stream);
}

SIMTCUDA_API cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t hStream) {
    if (!devPtr)
        return record(cudaErrorInvalidValue);
    CONTEXT(ctx);
    (void)ctx;
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    default_pool(current_device());
    return allocate(devPtr, size, pools().current[current_device()], hStream);
}

SIMTCUDA_API cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t hStream) {
    CONTEXT(ctx);
    if (!devPtr)
        return cudaSuccess;
    if (is_graph_allocation(devPtr))
        return is_capturing(hStream) ? capture_mem_free(devPtr, hStream)
                                     : free_graph_allocation(devPtr, hStream, false);
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    auto it = pools().allocations.find(reinterpret_cast<uint64_t>(devPtr));
    if (it == pools().allocations.end())
        return record(cudaErrorInvalidValue); // not from cudaMallocAsync, or freed
    if (is_capturing(hStream))
        return capture_refuse(hStream); // a free node of memory not from a graph
    Pool *pool = it->second.pool;
    const size_t size = it->second.size;
    const simtgpuStream st = to_stream(hStream);
    simtgpuEvent ready = nullptr;
    if (simtgpuResult r = simtgpuEventCreate(&ready, ctx, SIMTGPU_EVENT_DISABLE_TIMING))
        return record(r);
    if (simtgpuResult r = simtgpuEventRecord(ready, st)) {
        simtgpuEventDestroy(ready);
        return record(r);
    }
    pools().allocations.erase(it);
    pool->used -= size;
    if (pool->destroyed) {
        // Its pool is gone: back to the device once the stream gets there.
        simtgpuEventSynchronize(ready);
        release_block(pool, {reinterpret_cast<uint64_t>(devPtr), size, st, ready});
        if (pool->reserved == 0)
            erase_pool(pool);
        return cudaSuccess;
    }
    pool->free_blocks.insert({size, {reinterpret_cast<uint64_t>(devPtr), size, st, ready}});
    return cudaSuccess;
}

SIMTCUDA_API cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *memPool, int device) {
    if (!memPool)
        return record(cudaErrorInvalidValue);
    if (!valid_device(device))
        return record(cudaErrorInvalidDevice);
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    *memPool = default_pool(device);
    return cudaSuccess;
}

SIMTCUDA_API cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *memPool, int device) {
    if (!memPool)
        return record(cudaErrorInvalidValue);
    if (!valid_device(device))
        return record(cudaErrorInvalidDevice);
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    default_pool(device);
    *memPool = pools().current[device];
    return cudaSuccess;
}

SIMTCUDA_API cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t memPool) {
    if (!valid_device(device))
        return record(cudaErrorInvalidDevice);
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    default_pool(device);
    if (!valid(memPool) || memPool->device != device)
        return record(cudaErrorInvalidValue);
    pools().current[device] = memPool;
    return cudaSuccess;
}

SIMTCUDA_API cudaError_t cudaMemPoolCreate(cudaMemPool_t *memPool,
                                           const struct cudaMemPoolProps *poolProps) {
    if (!memPool || !poolProps || poolProps->allocType != cudaMemAllocationTypePinned ||
        poolProps->location.type != cudaMemLocationTypeDevice)
        return record(cudaErrorInvalidValue);
    if (!valid_device(poolProps->location.id))
        return record(cudaErrorInvalidDevice);
    if (poolProps->handleTypes != cudaMemHandleTypeNone)
        return record(cudaErrorNotSupported); // no IPC: one process per context
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    auto pool = std::make_unique<Pool>();
    pool->device = poolProps->location.id;
    *memPool = pool.get();
    pools().created.insert(std::move(pool));
    return cudaSuccess;
}

SIMTCUDA_API cudaError_t cudaMemPoolDestroy(cudaMemPool_t memPool) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    if (!valid(memPool) || memPool->is_default)
        return record(cudaErrorInvalidValue);
    Pools &ps = pools();
    for (auto &current : ps.current)
        if (current == memPool)
            current = ps.defaults[memPool->device].get();
    // Free blocks go once their streams reach them; allocations still out
    // go when freed (the pool lives on, hidden, until then), as in CUDA.
    trim(memPool, 0, true);
    memPool->destroyed = true;
    if (memPool->reserved == 0)
        erase_pool(memPool);
    return cudaSuccess;
}

SIMTCUDA_API cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr,
                                                 void *value) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    if (!valid(memPool) || !value)
        return record(cudaErrorInvalidValue);
    const int flag = *static_cast<int *>(value);
    switch (attr) {
    case cudaMemPoolReuseFollowEventDependencies:
        memPool->follow_events = flag != 0;
        break;
    case cudaMemPoolReuseAllowOpportunistic:
        memPool->opportunistic = flag != 0;
        break;
    case cudaMemPoolReuseAllowInternalDependencies:
        memPool->internal_dependencies = flag != 0;
        break;
    case cudaMemPoolAttrReleaseThreshold:
        memPool->release_threshold = *static_cast<uint64_t *>(value);
        break;
    case cudaMemPoolAttrReservedMemHigh:
    case cudaMemPoolAttrUsedMemHigh:
        // Only a reset to 0, which sets the mark to the current amount.
        if (*static_cast<uint64_t *>(value) != 0)
            return record(cudaErrorInvalidValue);
        if (attr == cudaMemPoolAttrReservedMemHigh)
            memPool->reserved_high = memPool->reserved;
        else
            memPool->used_high = memPool->used;
        break;
    default:
        return record(cudaErrorInvalidValue); // the current amounts are read-only
    }
    return cudaSuccess;
}

SIMTCUDA_API cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr,
                                                 void *value) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    if (!valid(memPool) || !value)
        return record(cudaErrorInvalidValue);
    auto *u64 = static_cast<uint64_t *>(value);
    auto *i32 = static_cast<int *>(value);
    switch (attr) {
    case cudaMemPoolReuseFollowEventDependencies:
        *i32 = memPool->follow_events;
        break;
    case cudaMemPoolReuseAllowOpportunistic:
        *i32 = memPool->opportunistic;
        break;
    case cudaMemPoolReuseAllowInternalDependencies:
        *i32 = memPool->internal_dependencies;
        break;
    case cudaMemPoolAttrReleaseThreshold:
        *u64 = memPool->release_threshold;
        break;
    case cudaMemPoolAttrReservedMemCurrent:
        *u64 = memPool->reserved;
        break;
    case cudaMemPoolAttrReservedMemHigh:
        *u64 = memPool->reserved_high;
        break;
    case cudaMemPoolAttrUsedMemCurrent:
        *u64 = memPool->used;
        break;
    case cudaMemPoolAttrUsedMemHigh:
        *u64 = memPool->used_high;
        break;
    default:
        return record(cudaErrorInvalidValue);
    }
    return cudaSuccess;
}

SIMTCUDA_API cudaError_t cudaMemPoolTrimTo(cudaMemPool_t memPool, size_t minBytesToKeep) {
    Runtime &rt = runtime();
    std::lock_guard<std::recursive_mutex> guard(rt.mu);
    if (!valid(memPool))
        return record(cudaErrorInvalidValue);
    // Only blocks whose frees have completed, as in CUDA.
    trim(memPool, minBytesToKeep, false);
    return cudaSuccess;
}
