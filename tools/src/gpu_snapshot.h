// One device's state as simt-smi shows it, and the --query-gpu fields.
#pragma once

#include "system_info.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace simtgpu::tools {

struct GpuSnapshot {
    int index = 0;
    std::string name;
    std::string transport; // "drm" or "sim"
    std::string node;      // "/dev/dri/renderD128" or "in-process"
    std::string pci_bus_id; // "" on the in-process transport
    std::string driver_version; // the kernel driver's DRM version, "" in-process
    uint32_t uapi_driver = 0;   // uAPI the driver answers
    uint32_t uapi_runtime = 0;  // uAPI libsimtgpu was built for
    uint32_t arch = 0;
    uint32_t num_sms = 0;
    uint32_t warp_size = 0;
    uint32_t warps_per_sm = 0;
    uint32_t ctas_per_sm = 0;
    uint32_t shared_per_sm = 0; // bytes
    uint32_t max_threads_per_cta = 0;
    uint32_t clock_khz = 0;
    // The memory hierarchy the device models; 0 where it models none.
    uint32_t l2_bytes = 0;
    uint32_t mem_bus_width = 0; // bits
    uint32_t mem_clock_khz = 0;
    uint64_t vram_total = 0;
    uint64_t vram_used = 0;
    std::optional<uint64_t> utilisation_percent;
    // SM busy cycles over the SM cycles the device ran, in the last
    // interval (the device's performance counters).
    std::optional<uint64_t> sm_activity_percent;
    std::optional<int64_t> temperature_mdeg;
    // The device's counters since its last reset (counters.h; the driver's
    // counters/ directory), absent on the in-process transport.
    std::array<std::optional<uint64_t>, SIMTGPU_NUM_COUNTERS> counters;
    std::vector<ClientProcess> processes;
};

// A --query-gpu field: its CSV header (with unit) and its value. Every
// counter of include/simtgpu/counters.h is one, "counters.NAME".
struct QueryField {
    const char *name;
    const char *header; // nvidia-smi style: "memory.total [MiB]"
    const char *help;
};
const std::vector<QueryField> &query_fields();

struct CsvFormat {
    bool header = true;
    bool units = true;
};
// Parses --format=csv[,noheader][,nounits]; nullopt for anything else.
std::optional<CsvFormat> parse_csv_format(const std::string &spec);

// Splits "a,b,c" and checks each name; on failure *error names the field.
std::optional<std::vector<std::string>> parse_query(const std::string &spec, std::string *error);

// The value of one field ("[N/A]" when the device does not report it).
std::string field_value(const GpuSnapshot &gpu, const std::string &field, bool units);

// CSV lines: the header (unless disabled) and one line per GPU.
std::string format_csv(const std::vector<GpuSnapshot> &gpus, const std::vector<std::string> &fields,
                       const CsvFormat &format);

// The default table and the -q report.
std::string format_table(const std::vector<GpuSnapshot> &gpus, const std::string &timestamp);
std::string format_full_report(const std::vector<GpuSnapshot> &gpus, const std::string &timestamp);

std::string arch_name(uint32_t arch);
uint64_t mib(uint64_t bytes);

} // namespace simtgpu::tools
