#include "gpu_snapshot.h"

#include "simtgpu/hw.h"

#include <cstdio>
#include <sstream>

namespace simtgpu::tools {

namespace {

constexpr const char *kNotAvailable = "[N/A]";

std::string with_unit(uint64_t value, const char *unit, bool units) {
    return units ? std::to_string(value) + " " + unit : std::to_string(value);
}

std::string temperature_c(int64_t mdeg) {
    char text[32];
    std::snprintf(text, sizeof(text), "%lld", static_cast<long long>((mdeg + 500) / 1000));
    return text;
}

std::string pad(const std::string &s, size_t width) {
    return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

constexpr struct {
    const char *name, *unit, *ncu;
} kCounters[] = {
#define SIMTGPU_X(name, unit, ncu, what) {#name, unit, ncu},
    SIMTGPU_COUNTERS(SIMTGPU_X)
#undef SIMTGPU_X
};

constexpr struct {
    const char *name, *unit, *ncu;
} kDerived[] = {
#define SIMTGPU_X(name, unit, ncu, what, num, den) {#name, unit, ncu},
    SIMTGPU_DERIVED(SIMTGPU_X)
#undef SIMTGPU_X
};

// A -q value followed by the Nsight Compute metric it corresponds to.
std::string with_metric(const std::string &value, const char *ncu) {
    return *ncu ? value + "  (" + ncu + ")" : value;
}

} // namespace

std::string arch_name(uint32_t arch) { return "simt_" + std::to_string(arch); }

// "7.0": the compute capability the CUDA runtime reports for the architecture.
std::string compute_capability(uint32_t arch) {
    const uint32_t cc = SIMTGPU_COMPUTE_CAPABILITY(arch);
    return std::to_string(cc / 10) + "." + std::to_string(cc % 10);
}

uint64_t mib(uint64_t bytes) { return bytes >> 20; }

const std::vector<QueryField> &query_fields() {
    static const std::vector<QueryField> fields = {
        {"index", "index", "ordinal of the device, as libsimtgpu counts them"},
        {"name", "name", "device name"},
        {"arch", "arch", "architecture (simt_N), as in simtcc -arch="},
        {"compute_cap", "compute_cap", "CUDA compute capability the runtime reports"},
        {"transport", "transport", "drm (kernel driver) or sim (in-process simulator)"},
        {"node", "node", "render node, or in-process"},
        {"pci.bus_id", "pci.bus_id", "PCI address"},
        {"driver_version", "driver_version", "the kernel driver's version"},
        {"uapi.driver", "uapi.driver", "uAPI version the driver speaks"},
        {"uapi.runtime", "uapi.runtime", "uAPI version libsimtgpu was built for"},
        {"memory.total", "memory.total [MiB]", "VRAM size"},
        {"memory.used", "memory.used [MiB]", "VRAM allocated on the whole device"},
        {"memory.free", "memory.free [MiB]", "VRAM not allocated"},
        {"utilization.gpu", "utilization.gpu [%]",
         "time a job was on the device, over the last interval"},
        {"utilization.sm", "utilization.sm [%]",
         "busy SM cycles over the SM cycles the device ran, over the last interval"},
        {"clocks.sm", "clocks.sm [MHz]", "simulated SM clock"},
        {"clocks.mem", "clocks.mem [MHz]", "simulated DRAM clock ([N/A]: no DRAM modelled)"},
        {"memory.bus_width", "memory.bus_width [bit]", "DRAM interface width"},
        {"memory.bandwidth", "memory.bandwidth [GB/s]",
         "peak DRAM bandwidth, 2 x clock x width / 8 (as deviceQuery computes it)"},
        {"cache.l2", "cache.l2 [KiB]", "L2 cache size ([N/A]: no caches modelled)"},
        {"temperature.gpu", "temperature.gpu", "simulated temperature, degrees C"},
        {"sm_count", "sm_count", "streaming multiprocessors"},
        {"warp_size", "warp_size", "lanes per warp"},
        {"processes", "processes", "processes with the device open"},
#define SIMTGPU_X(name, unit, ncu, what) {"counters." #name, "counters." #name " [" unit "]", what},
        SIMTGPU_COUNTERS(SIMTGPU_X)
#undef SIMTGPU_X
    };
    return fields;
}

std::optional<CsvFormat> parse_csv_format(const std::string &spec) {
    std::stringstream in(spec);
    std::string item;
    CsvFormat format;
    bool csv = false;
    while (std::getline(in, item, ',')) {
        if (item == "csv")
            csv = true;
        else if (item == "noheader")
            format.header = false;
        else if (item == "nounits")
            format.units = false;
        else
            return std::nullopt;
    }
    if (!csv)
        return std::nullopt;
    return format;
}

std::optional<std::vector<std::string>> parse_query(const std::string &spec, std::string *error) {
    std::vector<std::string> names;
    std::stringstream in(spec);
    std::string item;
    while (std::getline(in, item, ',')) {
        bool known = false;
        for (const auto &f : query_fields())
            known |= item == f.name;
        if (!known) {
            *error = "field \"" + item + "\" is not a valid field to query";
            return std::nullopt;
        }
        names.push_back(item);
    }
    if (names.empty()) {
        *error = "no field to query";
        return std::nullopt;
    }
    return names;
}

std::string field_value(const GpuSnapshot &gpu, const std::string &field, bool units) {
    if (field == "index")
        return std::to_string(gpu.index);
    if (field == "name")
        return gpu.name;
    if (field == "arch")
        return arch_name(gpu.arch);
    if (field == "compute_cap")
        return compute_capability(gpu.arch);
    if (field == "transport")
        return gpu.transport;
    if (field == "node")
        return gpu.node;
    if (field == "pci.bus_id")
        return gpu.pci_bus_id.empty() ? kNotAvailable : gpu.pci_bus_id;
    if (field == "driver_version")
        return gpu.driver_version.empty() ? kNotAvailable : gpu.driver_version;
    if (field == "uapi.driver")
        return uapi_version_string(gpu.uapi_driver);
    if (field == "uapi.runtime")
        return uapi_version_string(gpu.uapi_runtime);
    if (field == "memory.total")
        return with_unit(mib(gpu.vram_total), "MiB", units);
    if (field == "memory.used")
        return with_unit(mib(gpu.vram_used), "MiB", units);
    if (field == "memory.free")
        return with_unit(mib(gpu.vram_total - gpu.vram_used), "MiB", units);
    if (field == "utilization.gpu")
        return gpu.utilisation_percent ? with_unit(*gpu.utilisation_percent, "%", units)
                                       : kNotAvailable;
    if (field == "utilization.sm")
        return gpu.sm_activity_percent ? with_unit(*gpu.sm_activity_percent, "%", units)
                                       : kNotAvailable;
    if (field == "clocks.sm")
        return with_unit(gpu.clock_khz / 1000, "MHz", units);
    // The functional model has no memory hierarchy: its figures are 0.
    if (field == "clocks.mem")
        return gpu.mem_clock_khz ? with_unit(gpu.mem_clock_khz / 1000, "MHz", units)
                                 : kNotAvailable;
    if (field == "memory.bus_width")
        return gpu.mem_bus_width ? with_unit(gpu.mem_bus_width, "bit", units) : kNotAvailable;
    if (field == "memory.bandwidth")
        return gpu.mem_clock_khz && gpu.mem_bus_width
                   ? with_unit(2ull * gpu.mem_clock_khz * 1000 * (gpu.mem_bus_width / 8) /
                                   1000000000,
                               "GB/s", units)
                   : kNotAvailable;
    if (field == "cache.l2")
        return gpu.l2_bytes ? with_unit(gpu.l2_bytes / 1024, "KiB", units) : kNotAvailable;
    if (field == "temperature.gpu")
        return gpu.temperature_mdeg ? temperature_c(*gpu.temperature_mdeg) : kNotAvailable;
    if (field == "sm_count")
        return std::to_string(gpu.num_sms);
    if (field == "warp_size")
        return std::to_string(gpu.warp_size);
    if (field == "processes")
        return std::to_string(gpu.processes.size());
    for (uint32_t i = 0; i < SIMTGPU_NUM_COUNTERS; ++i)
        if (field.size() > 9 && field.compare(0, 9, "counters.") == 0 &&
            field.compare(9, std::string::npos, kCounters[i].name) == 0)
            return gpu.counters[i] ? with_unit(*gpu.counters[i], kCounters[i].unit, units)
                                   : kNotAvailable;
    return kNotAvailable;
}

std::string format_csv(const std::vector<GpuSnapshot> &gpus, const std::vector<std::string> &fields,
                       const CsvFormat &format) {
    std::string out;
    auto line = [&](auto value_of) {
        for (size_t i = 0; i < fields.size(); ++i) {
            if (i)
                out += ", ";
            out += value_of(fields[i]);
        }
        out += "\n";
    };
    if (format.header) {
        line([&](const std::string &name) -> std::string {
            for (const auto &f : query_fields())
                if (name == f.name)
                    return format.units ? f.header : f.name;
            return name;
        });
    }
    for (const auto &gpu : gpus)
        line([&](const std::string &name) { return field_value(gpu, name, format.units); });
    return out;
}

std::string format_table(const std::vector<GpuSnapshot> &gpus, const std::string &timestamp) {
    const std::string rule = "+" + std::string(77, '-') + "+\n";
    const std::string thick = "|" + std::string(77, '=') + "|\n";
    auto row = [](const std::string &text) { return "| " + pad(text, 76) + "|\n"; };
    std::string out = timestamp + "\n" + rule;
    std::string driver = "[N/A]", runtime = "[N/A]";
    if (!gpus.empty()) {
        driver = gpus[0].driver_version.empty() ? std::string("in-process simulator")
                                                : gpus[0].driver_version;
        runtime = uapi_version_string(gpus[0].uapi_runtime);
    }
    out += row("SIMT-SMI   Driver Version: " + driver + "   libsimtgpu uAPI: " + runtime);
    out += rule;
    out += row("GPU  Name                  Arch     Bus-Id / Node        Temp  SM clock");
    out += row("     Memory-Usage                   GPU-Util   SMs  uAPI (driver)");
    out += thick;
    for (const auto &g : gpus) {
        std::string bus = g.pci_bus_id.empty() ? g.node : g.pci_bus_id;
        std::string temp = g.temperature_mdeg ? temperature_c(*g.temperature_mdeg) + "C" : "N/A";
        out += row(pad(std::to_string(g.index), 5) + pad("simtgpu", 22) + pad(arch_name(g.arch), 9) +
                   pad(bus, 21) + pad(temp, 6) + std::to_string(g.clock_khz / 1000) + " MHz");
        std::string util = g.utilisation_percent
                               ? std::to_string(*g.utilisation_percent) + " %"
                               : std::string("N/A");
        out += row("     " +
                   pad(std::to_string(mib(g.vram_used)) + " MiB / " +
                           std::to_string(mib(g.vram_total)) + " MiB",
                       31) +
                   pad(util, 11) + pad(std::to_string(g.num_sms), 5) +
                   uapi_version_string(g.uapi_driver));
        out += rule;
    }
    out += "\n" + rule;
    out += row("Processes:");
    out += row(" GPU       PID  Process name                          GPU Memory Usage");
    out += thick;
    bool any = false;
    for (const auto &g : gpus) {
        for (const auto &p : g.processes) {
            any = true;
            std::string text = pad(std::to_string(g.index), 4);
            text += pad(std::to_string(p.pid), 10) + "  " + pad(p.command, 38);
            text += std::to_string(p.vram_kib / 1024) + " MiB";
            out += row(" " + text);
        }
    }
    if (!any)
        out += row(" No running processes found");
    out += rule;
    return out;
}

std::string format_full_report(const std::vector<GpuSnapshot> &gpus, const std::string &timestamp) {
    std::string out;
    auto line = [&](int indent, const std::string &key, const std::string &value) {
        out += std::string(size_t(indent), ' ') + pad(key, size_t(40 - indent)) + ": " + value + "\n";
    };
    out += "==============SIMT-SMI LOG==============\n\n";
    line(0, "Timestamp", timestamp);
    line(0, "libsimtgpu uAPI Version", gpus.empty() ? "[N/A]" : uapi_version_string(gpus[0].uapi_runtime));
    line(0, "Attached GPUs", std::to_string(gpus.size()));
    for (const auto &g : gpus) {
        out += "GPU " + (g.pci_bus_id.empty() ? g.node : g.pci_bus_id) + "\n";
        line(4, "Product Name", g.name);
        line(4, "Product Architecture", arch_name(g.arch));
        line(4, "Compute Capability", compute_capability(g.arch));
        line(4, "Transport", g.transport + " (" + g.node + ")");
        line(4, "Driver Version", field_value(g, "driver_version", true));
        line(4, "Driver uAPI Version", uapi_version_string(g.uapi_driver));
        out += "    PCI\n";
        line(8, "Bus Id", field_value(g, "pci.bus_id", true));
        out += "    FB Memory Usage\n";
        line(8, "Total", field_value(g, "memory.total", true));
        line(8, "Used", field_value(g, "memory.used", true));
        line(8, "Free", field_value(g, "memory.free", true));
        out += "    Utilization\n";
        line(8, "Gpu", field_value(g, "utilization.gpu", true));
        line(8, "SM", field_value(g, "utilization.sm", true));
        out += "    Temperature\n";
        line(8, "GPU Current Temp",
             g.temperature_mdeg ? field_value(g, "temperature.gpu", true) + " C" : "[N/A]");
        out += "    Clocks\n";
        line(8, "SM", field_value(g, "clocks.sm", true));
        line(8, "Memory", field_value(g, "clocks.mem", true));
        out += "    Memory Hierarchy\n";
        line(8, "L2 cache", field_value(g, "cache.l2", true));
        line(8, "Bus width", field_value(g, "memory.bus_width", true));
        line(8, "Peak bandwidth", field_value(g, "memory.bandwidth", true));
        out += "    Compute\n";
        line(8, "SMs", std::to_string(g.num_sms));
        line(8, "Warps per SM", std::to_string(g.warps_per_sm));
        line(8, "Warp size", std::to_string(g.warp_size));
        line(8, "Threads per SM", std::to_string(g.warps_per_sm * g.warp_size));
        line(8, "Blocks per SM", std::to_string(g.ctas_per_sm));
        line(8, "Max threads per block", std::to_string(g.max_threads_per_cta));
        line(8, "Shared memory per SM", std::to_string(g.shared_per_sm / 1024) + " KiB");
        // Every counter, then the figures derived from them (counters.h),
        // since the device's last reset, named after Nsight Compute's metric.
        out += "    Counters\n";
        std::array<uint64_t, SIMTGPU_NUM_COUNTERS> values{};
        bool all = true;
        for (uint32_t i = 0; i < SIMTGPU_NUM_COUNTERS; ++i) {
            line(8, kCounters[i].name,
                 with_metric(field_value(g, std::string("counters.") + kCounters[i].name, true),
                             kCounters[i].ncu));
            all = all && g.counters[i];
            values[i] = g.counters[i].value_or(0);
        }
        out += "    Derived\n";
        for (uint32_t i = 0; i < SIMTGPU_NUM_DERIVED; ++i) {
            char value[64] = "[N/A]";
            if (all)
                std::snprintf(value, sizeof value, "%.3f %s",
                              simtgpu_derived_value(simtgpu_derived(i), values.data(),
                                                    g.warps_per_sm, g.clock_khz),
                              kDerived[i].unit);
            line(8, kDerived[i].name, with_metric(value, kDerived[i].ncu));
        }
        out += "    Processes\n";
        if (g.processes.empty())
            out += "        None\n";
        for (const auto &p : g.processes) {
            line(8, "Process ID", std::to_string(p.pid));
            line(12, "Name", p.command);
            line(12, "Used GPU Memory", std::to_string(p.vram_kib / 1024) + " MiB (" +
                                            std::to_string(p.vram_kib) + " KiB)");
            line(12, "GPU time", std::to_string(p.engine_ns / 1000000) + " ms");
        }
        out += "\n";
    }
    return out;
}

} // namespace simtgpu::tools
