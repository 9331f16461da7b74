// The C ABI of simtgpu/sim.h over the Device. Nothing here may throw across
// the boundary: allocation failures become -ENOMEM / NULL.
#include "simtgpu/sim.h"

#include "config.h"
#include "device/capi_internal.h"
#include "device/device.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

struct simtgpu_sim {
    std::unique_ptr<simtgpu::sim::Device> device;
};

namespace {

using simtgpu::sim::DeviceStats;

void set_error(char *err, size_t err_size, const std::string &message) {
    if (err && err_size)
        std::snprintf(err, err_size, "%s", message.c_str());
}

// A host built against a newer sim.h passes a larger struct: accept it when
// the fields this library does not know are all zero (so they ask for
// nothing new), as Linux's copy_struct_from_user does.
bool unknown_tail_is_zero(const simtgpu_sim_config *config) {
    const auto *bytes = reinterpret_cast<const unsigned char *>(config);
    for (size_t i = sizeof(simtgpu_sim_config); i < config->struct_size; ++i)
        if (bytes[i])
            return false;
    return true;
}

constexpr const char *kCounterNames[] = {
#define SIMTGPU_X(name, unit, ncu, what) #name,
    SIMTGPU_COUNTERS(SIMTGPU_X)
#undef SIMTGPU_X
};

// One SM's own counters: those of the SM and memory groups.
nlohmann::json sm_json(const simtgpu::sim::SmStats &s, const simtgpu::sim::mem::MemoryCounters &m) {
    nlohmann::json j;
#define SIMTGPU_X(name, unit, ncu, what) j[#name] = s.name;
    SIMTGPU_SM_COUNTERS(SIMTGPU_X)
#undef SIMTGPU_X
#define SIMTGPU_X(name, unit, ncu, what) j[#name] = m.name;
    SIMTGPU_MEMORY_COUNTERS(SIMTGPU_X)
#undef SIMTGPU_X
    return j;
}

} // namespace

extern "C" {

SIMTGPU_SIM_API uint32_t simtgpu_sim_abi_version(void) {
    return SIMTGPU_SIM_ABI_VERSION;
}

SIMTGPU_SIM_API int simtgpu_sim_create(const simtgpu_sim_config *config, simtgpu_sim **out,
                                       char *err, size_t err_size) {
    if (!config || !out) {
        set_error(err, err_size, "simtgpu_sim_create: config and out must not be NULL");
        return -EINVAL;
    }
    *out = nullptr;
    if (config->struct_size > sizeof(simtgpu_sim_config) && !unknown_tail_is_zero(config)) {
        set_error(err, err_size,
                  "simtgpu_sim_config.struct_size = " + std::to_string(config->struct_size) +
                      ": the host uses fields this library (ABI " +
                      std::to_string(SIMTGPU_SIM_ABI_VERSION) + ", " +
                      std::to_string(sizeof(simtgpu_sim_config)) + " bytes) does not know");
        return -EINVAL;
    }
    // An older host's smaller struct: the fields it lacks read as zero.
    simtgpu_sim_config full{};
    std::memcpy(&full, config, std::min<size_t>(config->struct_size, sizeof full));
    try {
        auto device_config = simtgpu::sim::DeviceConfig::from(full);
        if (!device_config) {
            set_error(err, err_size, device_config.error());
            return -EINVAL;
        }
        simtgpu::sim::HostBus bus{full.dma_read, full.dma_write, full.raise_irq, full.opaque,
                                  full.vram_discard, full.dma_cmpxchg};
        std::unique_ptr<simtgpu::sim::trace::TraceWriter> trace;
        if (full.trace) {
            auto opened = simtgpu::sim::trace::TraceWriter::open(full.trace, full.trace_max_events,
                                                                 device_config->clock_khz);
            if (!opened) {
                set_error(err, err_size, opened.error());
                return -EINVAL;
            }
            trace = std::move(*opened);
        }
        auto device =
            simtgpu::sim::Device::create(*device_config, bus, config->vram, std::move(trace));
        if (!device) {
            set_error(err, err_size, device.error());
            return -ENOMEM;
        }
        *out = new simtgpu_sim{std::move(*device)};
        return 0;
    } catch (const std::bad_alloc &) {
        set_error(err, err_size, "simtgpu_sim_create: out of memory");
        return -ENOMEM;
    } catch (const std::system_error &e) {
        set_error(err, err_size, std::string("simtgpu_sim_create: ") + e.what());
        return -EAGAIN; // the engine thread could not start
    }
}

SIMTGPU_SIM_API int simtgpu_sim_trace_slice(simtgpu_sim *sim, const char *process,
                                            const char *track, const char *name, uint64_t begin_ns,
                                            uint64_t end_ns) {
    if (!process || !track || !name || end_ns < begin_ns)
        return -EINVAL;
    simtgpu::sim::trace::TraceWriter *trace = sim->device->trace();
    if (!trace)
        return -ENOENT;
    try {
        const auto [pid, tid] = trace->host_track(process, track);
        trace->slice_ns(pid, tid, name, begin_ns, end_ns);
        trace->checkpoint();
        return 0;
    } catch (const std::bad_alloc &) {
        return -ENOMEM;
    }
}

SIMTGPU_SIM_API void simtgpu_sim_destroy(simtgpu_sim *sim) {
    delete sim;
}

SIMTGPU_SIM_API uint64_t simtgpu_sim_mmio_read(simtgpu_sim *sim, uint64_t offset, unsigned size) {
    return sim->device->mmio_read(offset, size);
}

SIMTGPU_SIM_API void simtgpu_sim_mmio_write(simtgpu_sim *sim, uint64_t offset, uint64_t value,
                                            unsigned size) {
    sim->device->mmio_write(offset, value, size);
}

SIMTGPU_SIM_API void *simtgpu_sim_vram(simtgpu_sim *sim, uint64_t *size) {
    if (size)
        *size = sim->device->vram().size();
    return sim->device->vram().data();
}

SIMTGPU_SIM_API int simtgpu_sim_vram_clear(simtgpu_sim *sim, uint64_t offset, uint64_t bytes) {
    simtgpu::sim::Vram &vram = sim->device->vram();
    if (!vram.contains(offset, bytes))
        return -EINVAL;
    vram.clear(offset, bytes);
    return 0;
}

SIMTGPU_SIM_API void simtgpu_sim_reset(simtgpu_sim *sim) {
    sim->device->reset();
}

SIMTGPU_SIM_API int simtgpu_sim_wait_idle(simtgpu_sim *sim, uint32_t timeout_ms) {
    return sim->device->wait_idle(timeout_ms) ? 1 : 0;
}

SIMTGPU_SIM_API int simtgpu_sim_get_stats(simtgpu_sim *sim, simtgpu_sim_stats *out) {
    if (!out || out->struct_size < offsetof(simtgpu_sim_stats, num_sms) + sizeof(uint32_t))
        return -EINVAL;
    const auto &config = sim->device->config();
    const simtgpu::sim::CounterValues v = sim->device->stats().values();
    simtgpu_sim_stats full{};
    full.struct_size = out->struct_size;
    full.num_sms = config.num_sms;
    // ABI 4's fields: the counters of the same name.
#define SIMTGPU_ABI4(name) full.name = v[SIMTGPU_COUNTER_##name];
    SIMTGPU_ABI4(launches)
    SIMTGPU_ABI4(ctas)
    SIMTGPU_ABI4(cycles) SIMTGPU_ABI4(sm_busy_cycles) SIMTGPU_ABI4(thread_instructions)
        SIMTGPU_ABI4(warp_instructions) SIMTGPU_ABI4(mem_reads) SIMTGPU_ABI4(mem_writes)
            SIMTGPU_ABI4(dma_bytes) SIMTGPU_ABI4(exceptions) SIMTGPU_ABI4(tlb_hits)
                SIMTGPU_ABI4(tlb_misses) SIMTGPU_ABI4(divergent_branches)
                    SIMTGPU_ABI4(barrier_waits)
#undef SIMTGPU_ABI4
                        full.ipc =
        simtgpu_derived_value(SIMTGPU_DERIVED_ipc, v.data(), config.warps_per_sm, config.clock_khz);
    full.occupancy = simtgpu_derived_value(SIMTGPU_DERIVED_achieved_occupancy, v.data(),
                                           config.warps_per_sm, config.clock_khz) /
                     100;
    // ABI 5: every counter, as many as the caller's struct holds.
    const size_t room = out->struct_size > offsetof(simtgpu_sim_stats, counters)
                            ? (out->struct_size - offsetof(simtgpu_sim_stats, counters)) / 8
                            : 0;
    full.num_counters = uint32_t(std::min<size_t>(room, SIMTGPU_NUM_COUNTERS));
    full.warps_per_sm = config.warps_per_sm;
    full.clock_khz = config.clock_khz;
    std::copy(v.begin(), v.end(), full.counters);
    // An older host's smaller struct gets the fields it knows.
    std::memcpy(out, &full, std::min<size_t>(out->struct_size, sizeof full));
    return 0;
}

SIMTGPU_SIM_API uint32_t simtgpu_sim_num_counters(void) {
    return SIMTGPU_NUM_COUNTERS;
}

SIMTGPU_SIM_API const char *simtgpu_sim_counter_name(uint32_t index) {
    return index < SIMTGPU_NUM_COUNTERS ? kCounterNames[index] : nullptr;
}

SIMTGPU_SIM_API int simtgpu_sim_counter_index(const char *name) {
    for (uint32_t i = 0; name && i < SIMTGPU_NUM_COUNTERS; ++i)
        if (std::strcmp(kCounterNames[i], name) == 0)
            return int(i);
    return -1;
}

SIMTGPU_SIM_API char *simtgpu_sim_stats_json(simtgpu_sim *sim) {
    try {
        const DeviceStats s = sim->device->stats();
        const simtgpu::sim::CounterValues v = s.values();
        const auto &config = sim->device->config();
        nlohmann::json j = {
            // What the device is: its configuration's name and shape.
            {"config", config.name.empty() ? nlohmann::json() : nlohmann::json(config.name)},
            {"num_sms", config.num_sms},
            {"warps_per_sm", config.warps_per_sm},
            {"warp_size", config.warp_size},
            {"ctas_per_sm", config.ctas_per_sm},
            {"shared_bytes_per_sm", config.shared_bytes_per_sm},
            {"clock_khz", config.clock_khz},
            {"warp_scheduler", config.warp_scheduler},
            {"temperature_mc", s.temperature_mc},
        };
        // Every counter, then every derived figure, by name (counters.h).
        for (uint32_t i = 0; i < SIMTGPU_NUM_COUNTERS; ++i)
            j[kCounterNames[i]] = v[i];
#define SIMTGPU_X(name, unit, ncu, what, num, den)                                                 \
    j[#name] = simtgpu_derived_value(SIMTGPU_DERIVED_##name, v.data(), config.warps_per_sm,        \
                                     config.clock_khz);
        SIMTGPU_DERIVED(SIMTGPU_X)
#undef SIMTGPU_X
        nlohmann::json sms = nlohmann::json::array();
        for (size_t i = 0; i < s.per_sm.size(); ++i)
            sms.push_back(sm_json(s.per_sm[i], s.per_sm_memory[i]));
        j["sms"] = std::move(sms);
        const std::string text = j.dump(2);
        char *out = static_cast<char *>(std::malloc(text.size() + 1));
        if (out)
            std::memcpy(out, text.c_str(), text.size() + 1);
        return out;
    } catch (const std::exception &) {
        return nullptr;
    }
}

SIMTGPU_SIM_API void simtgpu_sim_free_string(char *s) {
    std::free(s);
}

} // extern "C"

simtgpu::sim::Device &simtgpu::sim::device_of(simtgpu_sim *sim) {
    return *sim->device;
}
