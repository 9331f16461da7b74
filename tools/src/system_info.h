// What simt-smi and simt-doctor read outside libsimtgpu: the PCI function in
// sysfs, the kernel driver's sysfs attributes, and the DRM fdinfo of every
// process that has the render node open. Roots are parameters so the tests
// can point them at a fake tree.
#pragma once

#include "simtgpu/counters.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace simtgpu::tools {

// One PCI function with the simtgpu IDs (include/simtgpu/hw.h).
struct PciFunction {
    std::string address;     // "0000:01:00.0"
    std::string sysfs_path;  // <sysfs>/bus/pci/devices/<address>
    uint32_t vendor = 0;
    uint32_t device = 0;
    uint32_t revision = 0;
    uint32_t class_code = 0; // 0x030200
    std::string driver;      // bound driver's name, "" when none
    std::string render_node; // "renderD128", "" when the driver made none
};

std::vector<PciFunction> find_simtgpu_functions(const std::string &sysfs_root);

std::optional<std::string> read_trimmed(const std::string &path);
std::optional<uint64_t> read_u64(const std::string &path);

// The kernel driver's attributes on the PCI device (docs/kmd.md).
struct DriverAttributes {
    std::optional<uint64_t> vram_total;
    std::optional<uint64_t> vram_used;
    std::optional<uint64_t> utilisation_percent; // resets the interval on read
    std::optional<uint64_t> sm_count;
    std::optional<std::string> arch; // "simt_2"
    // hwmon temp1_input or a plain `temperature` attribute, in millidegrees.
    std::optional<int64_t> temperature_mdeg;
    // The device's counters: counters/NAME for every NAME of
    // include/simtgpu/counters.h, by SIMTGPU_COUNTER_* index.
    std::array<std::optional<uint64_t>, SIMTGPU_NUM_COUNTERS> counters;
};
// Percent of the SMs' cycles that were busy between two readings, or none
// when the device did not run in between or the counters are missing.
std::optional<uint64_t> sm_activity_percent(const DriverAttributes &before,
                                            const DriverAttributes &after);
DriverAttributes read_driver_attributes(const PciFunction &function);

// The keys of DRM fdinfo that matter here (Documentation/gpu/drm-usage-stats).
struct DrmFdinfo {
    std::string driver;
    std::string pdev;
    uint64_t client_id = 0;
    uint64_t vram_kib = 0;
    uint64_t engine_ns = 0; // summed over the engine classes
};
// Parses the text of /proc/PID/fdinfo/FD; nullopt when it is not a DRM file.
std::optional<DrmFdinfo> parse_drm_fdinfo(std::string_view text);

// A process holding simtgpu clients (open files) of one PCI device.
struct ClientProcess {
    int pid = 0;
    std::string command;   // /proc/PID/comm
    uint64_t vram_kib = 0; // summed over its distinct clients
    uint64_t engine_ns = 0;
    unsigned clients = 0;
};
// Walks <proc_root>/*/fdinfo; a client open through several fds counts once.
std::vector<ClientProcess> find_client_processes(const std::string &proc_root,
                                                 const std::string &driver,
                                                 const std::string &pdev);

// "major.minor" of a uAPI version encoded as major << 16 | minor.
std::string uapi_version_string(uint32_t version);

} // namespace simtgpu::tools
