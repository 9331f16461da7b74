// Simulator configuration files and presets (docs/timing.md, "Configuration
// files and presets"): JSON objects whose fields are DeviceConfig's, which
// may start from another file or a preset ("base"), merged object by object
// and validated once, with errors that name the file and the field.
#pragma once

#include "config.h"
#include "support/expected.h"

#include <cstdint>
#include <span>
#include <string_view>

namespace simtgpu::sim {

// A preset: a configuration file shipped in sim/presets/ and embedded in the
// library when it is built, so that a relocated library still has it.
struct Preset {
    std::string_view name; // the file's stem: "functional", "teaching", "volta"
    std::string_view text; // the file's JSON
};
// Every embedded preset, sorted by name (generated from sim/presets/*.json).
std::span<const Preset> presets();

struct ConfigFile {
    DeviceConfig config; // max_threads_per_cta settled from the file's SM shape
    // The file's max_threads_per_cta, 0 when it leaves it to follow the SM's
    // size (so a caller that resizes the SM resizes the largest CTA too).
    uint32_t max_threads_per_cta = 0;
};

// Reads a preset (a name of presets()) or a file (any other name, or one
// with a '/' or ending in .json), follows its base chain and validates the
// merged object. Fields no file sets keep DeviceConfig's defaults.
Expected<ConfigFile> read_config_file(std::string_view preset_or_path);
Expected<DeviceConfig> load_device_config(std::string_view preset_or_path);

} // namespace simtgpu::sim
