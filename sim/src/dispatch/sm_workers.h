// Host threads that run the SMs of one quantum at once (their isolated
// runs, GridScheduler::run_quantum), and under the timing model the memory
// system's shared side beside them: a pool made once per device, whose
// caller works beside its threads. Which thread runs which job does not
// matter to the results: Sm::run_isolated changes nothing another SM sees,
// and the shared side nothing an SM reads before the next exchange.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace simtgpu::sim {

class SmWorkers {
public:
    // threads: the host threads in all, the caller's included (>= 1).
    explicit SmWorkers(uint32_t threads);
    ~SmWorkers();
    SmWorkers(const SmWorkers &) = delete;
    SmWorkers &operator=(const SmWorkers &) = delete;

    uint32_t threads() const { return uint32_t(pool_.size()) + 1; }
    // Calls job(k) for every k in [0, count), spread over the threads;
    // returns when every call has returned.
    void run(uint32_t count, const std::function<void(uint32_t)> &job);

private:
    void work();
    void take_jobs();

    std::vector<std::thread> pool_;
    std::mutex mutex_;
    std::condition_variable wake_;
    // A batch: generation_ changes when one is posted; next_ hands out its
    // jobs; finished_ counts the threads done with it.
    std::atomic<uint64_t> generation_{0};
    std::atomic<uint32_t> next_{0};
    std::atomic<uint32_t> finished_{0};
    uint32_t count_ = 0;
    const std::function<void(uint32_t)> *job_ = nullptr;
    bool quit_ = false;
};

} // namespace simtgpu::sim
