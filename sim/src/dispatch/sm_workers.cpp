#include "dispatch/sm_workers.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace simtgpu::sim {
namespace {

// A quantum's work is tens of microseconds: a thread that went to sleep
// between two would cost more than the work. Spin this many times first
// (about 50 us), then sleep until the next batch or the end.
constexpr uint32_t kSpins = 20000;

void relax() {
#if defined(__x86_64__) || defined(__i386__)
    _mm_pause();
#else
    std::this_thread::yield();
#endif
}

} // namespace

SmWorkers::SmWorkers(uint32_t threads) {
    for (uint32_t i = 1; i < threads; ++i)
        pool_.emplace_back([this] { work(); });
}

SmWorkers::~SmWorkers() {
    {
        std::lock_guard lock(mutex_);
        quit_ = true;
        generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    for (std::thread &t : pool_)
        t.join();
}

void SmWorkers::take_jobs() {
    for (uint32_t k; (k = next_.fetch_add(1, std::memory_order_relaxed)) < count_;)
        (*job_)(k);
    finished_.fetch_add(1, std::memory_order_acq_rel);
}

void SmWorkers::run(uint32_t count, const std::function<void(uint32_t)> &job) {
    if (pool_.empty() || count < 2) {
        for (uint32_t k = 0; k < count; ++k)
            job(k);
        return;
    }
    {
        std::lock_guard lock(mutex_);
        job_ = &job;
        count_ = count;
        next_.store(0, std::memory_order_relaxed);
        finished_.store(0, std::memory_order_relaxed);
        generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    take_jobs();
    // Every thread takes part in every batch (one with no job left finds
    // none), so the batch is over when all have counted themselves.
    while (finished_.load(std::memory_order_acquire) < threads())
        relax();
}

void SmWorkers::work() {
    uint64_t seen = 0;
    for (;;) {
        uint32_t spins = 0;
        while (generation_.load(std::memory_order_acquire) == seen && ++spins < kSpins)
            relax();
        if (generation_.load(std::memory_order_acquire) == seen) {
            std::unique_lock lock(mutex_);
            wake_.wait(lock, [&] { return generation_.load() != seen; });
        }
        std::unique_lock lock(mutex_);
        seen = generation_.load();
        if (quit_)
            return;
        lock.unlock();
        take_jobs();
    }
}

} // namespace simtgpu::sim
