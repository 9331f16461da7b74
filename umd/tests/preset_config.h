// The device a test expects, read from the simulator's configuration file
// itself (sim/presets/*.json, or a file) rather than from the device: the
// preset that SIMTGPU_SIM_CONFIG names (in-process, the transport reads the
// same variable; on the render node the guest suite sets it to the QEMU
// device's config=). Unset means no file: the simulator's zeros, which
// functional.json spells out.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>

namespace simtgpu::umd::test {

struct ExpectedDevice {
    std::string name; // the preset, or the file's path
    uint32_t num_sms = 0, warps_per_sm = 0, warp_size = 0, ctas_per_sm = 0;
    uint32_t shared_bytes_per_sm = 0, clock_khz = 0;
    bool timing = false;
    // The memory hierarchy; 0 under the functional model, which has none.
    uint64_t l2_bytes = 0;
    uint32_t bus_width_bits = 0, mem_clock_khz = 0;
    // Persisting L2 lines (the ampere preset); 0 elsewhere.
    uint32_t l2_persisting_max = 0, l2_window_max = 0;
    std::string error; // non-empty: the file could not be read
};

// A file with "base" is that preset with the file's fields on top.
inline nlohmann::json read_config_file(const std::string &spec, std::string *error) {
    const std::string path = spec.find('/') == std::string::npos
                                 ? std::string(SIMTGPU_PRESETS_DIR) + "/" + spec + ".json"
                                 : spec;
    std::ifstream in(path);
    if (!in) {
        *error = "cannot read " + path;
        return {};
    }
    nlohmann::json j = nlohmann::json::parse(in, nullptr, false, /*ignore_comments=*/true);
    if (j.is_discarded() || !j.is_object()) {
        *error = path + " is not a JSON object";
        return {};
    }
    if (j.contains("base")) {
        nlohmann::json base = read_config_file(j["base"].get<std::string>(), error);
        base.merge_patch(j);
        return base;
    }
    return j;
}

inline ExpectedDevice expected_device() {
    ExpectedDevice d;
    const char *spec = std::getenv("SIMTGPU_SIM_CONFIG");
    d.name = spec && *spec ? spec : "functional";
    nlohmann::json j = read_config_file(d.name, &d.error);
    if (!d.error.empty())
        return d;
    auto u32 = [&](const char *key) { return j.value(key, 0u); };
    d.num_sms = u32("num_sms");
    d.warps_per_sm = u32("warps_per_sm");
    d.warp_size = u32("warp_size");
    d.ctas_per_sm = u32("ctas_per_sm");
    d.shared_bytes_per_sm = u32("shared_bytes_per_sm");
    d.clock_khz = u32("clock_khz");
    d.timing = j.value("model", std::string("functional")) == "timing";
    if (d.timing) {
        const nlohmann::json &m = j.at("memory");
        d.l2_bytes = m.at("l2").at("size_bytes").get<uint64_t>();
        d.bus_width_bits = m.at("dram").at("bus_width_bits").get<uint32_t>();
        d.mem_clock_khz = m.at("dram").at("clock_khz").get<uint32_t>();
        d.l2_persisting_max = m.at("l2").value("persisting_max_bytes", 0u);
        d.l2_window_max = m.at("l2").value("access_window_max_bytes", 0u);
    }
    return d;
}

} // namespace simtgpu::umd::test
