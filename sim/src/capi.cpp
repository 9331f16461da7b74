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

nlohmann::json sm_json(const simtgpu::sim::SmStats &s) {
    return {{"busy_cycles", s.busy_cycles},
            {"thread_instructions", s.thread_instructions},
            {"warp_instructions", s.warp_instructions},
            {"mem_reads", s.mem_reads},
            {"mem_writes", s.mem_writes},
            {"tlb_hits", s.tlb_hits},
            {"tlb_misses", s.tlb_misses},
            {"divergent_branches", s.divergent_branches},
            {"barrier_waits", s.barrier_waits},
            {"resident_warp_cycles", s.resident_warp_cycles},
            {"ctas", s.ctas}};
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
        simtgpu::sim::HostBus bus{config->dma_read, config->dma_write, config->raise_irq,
                                  config->opaque};
        auto device = simtgpu::sim::Device::create(*device_config, bus, config->vram);
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
    const DeviceStats s = sim->device->stats();
    simtgpu_sim_stats full{};
    full.struct_size = out->struct_size;
    full.num_sms = sim->device->config().num_sms;
    full.launches = s.engine.launches;
    full.ctas = s.engine.ctas;
    full.cycles = s.engine.device_cycles;
    full.sm_busy_cycles = s.sms.busy_cycles;
    full.thread_instructions = s.sms.thread_instructions;
    full.warp_instructions = s.sms.warp_instructions;
    full.mem_reads = s.sms.mem_reads;
    full.mem_writes = s.sms.mem_writes;
    full.dma_bytes = s.engine.dma_bytes;
    full.exceptions = s.exceptions;
    full.tlb_hits = s.sms.tlb_hits;
    full.tlb_misses = s.sms.tlb_misses;
    full.divergent_branches = s.sms.divergent_branches;
    full.barrier_waits = s.sms.barrier_waits;
    full.ipc = s.ipc();
    full.occupancy = s.occupancy(sim->device->config().warps_per_sm);
    // An older host's smaller struct gets the fields it knows.
    std::memcpy(out, &full, std::min<size_t>(out->struct_size, sizeof full));
    return 0;
}

SIMTGPU_SIM_API char *simtgpu_sim_stats_json(simtgpu_sim *sim) {
    try {
        const DeviceStats s = sim->device->stats();
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
            {"launches", s.engine.launches},
            {"ctas", s.engine.ctas},
            {"packets", s.engine.packets},
            {"cycles", s.engine.device_cycles},
            {"sm_busy_cycles", s.sms.busy_cycles},
            {"thread_instructions", s.sms.thread_instructions},
            {"warp_instructions", s.sms.warp_instructions},
            {"mem_reads", s.sms.mem_reads},
            {"mem_writes", s.sms.mem_writes},
            {"dma_bytes", s.engine.dma_bytes},
            {"exceptions", s.exceptions},
            {"tlb_hits", s.sms.tlb_hits},
            {"tlb_misses", s.sms.tlb_misses},
            {"divergent_branches", s.sms.divergent_branches},
            {"barrier_waits", s.sms.barrier_waits},
            {"ipc", s.ipc()},
            {"occupancy", s.occupancy(config.warps_per_sm)},
            {"temperature_mc", s.temperature_mc},
            {"bad_mmio_accesses", s.bad_mmio_accesses},
        };
        nlohmann::json sms = nlohmann::json::array();
        for (const auto &sm : s.per_sm)
            sms.push_back(sm_json(sm));
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
