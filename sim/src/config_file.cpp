// read_config_file: resolve a preset or a file, follow "base" (relative to
// the file that names it), merge object by object, validate once. Every
// error reads "FILE: FIELD.PATH: problem; fix", because it reaches a person
// editing JSON through simt-run, a CUDA program or QEMU's command line.
#include "config_file.h"

#include "support/suggest.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <utility>
#include <vector>

namespace simtgpu::sim {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The sections: objects with a parser of their own, which fills its part of
// the DeviceConfig and returns the problem (empty: none). Adding a section is
// one line in kSections.
using SectionParser = std::string (*)(const json &section, const std::string &where,
                                      DeviceConfig &config);

std::string parse_memory(const json &section, const std::string &where, DeviceConfig &config) {
    auto memory = mem::MemoryConfig::from_json(section, where);
    if (!memory)
        return memory.error();
    config.memory = *memory;
    return {};
}

std::string parse_timing(const json &section, const std::string &where, DeviceConfig &config) {
    auto timing = timing::PipelineConfig::from_json(section, where);
    if (!timing)
        return timing.error();
    config.timing = *timing;
    return {};
}

constexpr std::pair<std::string_view, SectionParser> kSections[] = {
    {"memory", parse_memory},
    {"timing", parse_timing},
};

// Fields with rules of their own, besides the tables of config.h.
constexpr std::string_view kOtherFields[] = {
    "base", "name", "model", "vram_bytes", "max_threads_per_cta", "livelock_cycles",
    "fault_service_ns"};

std::vector<std::string_view> known_fields() {
    std::vector<std::string_view> names(std::begin(kOtherFields), std::end(kOtherFields));
    for (const NumericField &f : numeric_fields())
        names.push_back(f.name);
    for (const NameField &f : name_fields())
        names.push_back(f.name);
    for (auto &[name, parser] : kSections)
        names.push_back(name);
    return names;
}

std::string preset_list() {
    std::string out;
    for (const Preset &p : presets())
        out += (out.empty() ? "" : ", ") + std::string(p.name);
    return out;
}

const Preset *find_preset(std::string_view name) {
    for (const Preset &p : presets())
        if (p.name == name)
            return &p;
    return nullptr;
}

// One file of a base chain.
struct Source {
    std::string where;    // how errors name it: the path, or "preset NAME"
    std::string identity; // the same file reached another way compares equal
    std::string stem;     // the default "name"
    fs::path dir;         // what its own "base" is relative to
    std::string text;
};

// `ref` as a preset name or a path (relative to `dir`); `referrer` prefixes
// the errors when another file's "base" names it.
Expected<Source> open_source(std::string_view ref, const fs::path &dir,
                             const std::string &referrer) {
    const bool looks_like_path =
        ref.find('/') != std::string_view::npos || fs::path(ref).extension() == ".json";
    if (!looks_like_path) {
        if (const Preset *p = find_preset(ref))
            return Source{"preset " + std::string(ref),
                          "preset:" + std::string(ref),
                          std::string(ref),
                          {},
                          std::string(p->text)};
    }
    const fs::path path = dir.empty() || fs::path(ref).is_absolute() ? fs::path(ref) : dir / ref;
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        const std::string why = std::strerror(errno);
        if (!looks_like_path)
            return Error{referrer + "no preset or file '" + std::string(ref) + "' (presets: " +
                         preset_list() + "; a file path has a '/' or ends in .json)"};
        return Error{referrer + path.string() + ": cannot read: " + why +
                     "; check the path (a relative base is relative to the file naming it)"};
    }
    std::ostringstream text;
    text << in.rdbuf();
    std::error_code ec;
    fs::path canonical = fs::weakly_canonical(path, ec);
    return Source{path.string(), ec ? path.string() : canonical.string(), path.stem().string(),
                  path.parent_path(), text.str()};
}

// The merged object of `source` and its bases; `chain` holds the identities
// on the way here, to refuse a cycle.
Expected<json> merged_object(const Source &source, std::vector<std::string> &chain,
                             std::vector<std::string> &names) {
    if (std::find(chain.begin(), chain.end(), source.identity) != chain.end()) {
        std::string cycle;
        for (const std::string &name : names)
            cycle += name + " -> ";
        return Error{names.back() + ": base: " + source.where + " is already in the chain (" +
                     cycle + source.where + "); remove one of these bases"};
    }
    chain.push_back(source.identity);
    names.push_back(source.where);

    json doc;
    try {
        doc = json::parse(source.text, nullptr, true, /*ignore_comments=*/true);
    } catch (const json::parse_error &e) {
        return Error{source.where + ": not valid JSON: " + e.what() + "; fix the syntax"};
    }
    if (!doc.is_object())
        return Error{source.where + ": expected a JSON object ({...}) at the top, got " +
                     std::string(doc.type_name())};

    json merged = json::object();
    if (auto base = doc.find("base"); base != doc.end()) {
        if (!base->is_string() || base->get<std::string>().empty())
            return Error{source.where + ": base: expected a preset name (" + preset_list() +
                         ") or a file path, got " + base->dump()};
        auto parent = open_source(base->get<std::string>(), source.dir, source.where + ": base: ");
        if (!parent)
            return Error{parent.error()};
        auto parent_object = merged_object(*parent, chain, names);
        if (!parent_object)
            return Error{parent_object.error()};
        merged = std::move(*parent_object);
        doc.erase("base");
    }
    // "name" names this file only: a file based on volta is not volta.
    merged.erase("name");
    merged.merge_patch(doc); // objects merge field by field; null restores a default
    return merged;
}

std::string unsigned_problem(const json &value, uint64_t lo, uint64_t hi, uint64_t &out) {
    if (!value.is_number_unsigned() && !(value.is_number_integer() && value.get<int64_t>() >= 0))
        return "expected an unsigned integer, got " + value.dump();
    out = value.get<uint64_t>();
    if (out < lo || out > hi)
        return std::to_string(out) + " is out of range: allowed " + std::to_string(lo) + ".." +
               std::to_string(hi);
    return {};
}

// One top-level field into `c`; returns the problem (without the prefix).
std::string read_field(const std::string &key, const json &value, const std::string &where,
                       ConfigFile &file, bool &section_failed) {
    DeviceConfig &c = file.config;
    uint64_t v = 0;
    for (const NumericField &f : numeric_fields()) {
        if (key != f.name)
            continue;
        std::string problem = unsigned_problem(value, f.lo, f.hi, v);
        c.*f.member = uint32_t(v);
        return problem;
    }
    for (const NameField &f : name_fields()) {
        if (key != f.name)
            continue;
        std::string allowed;
        for (std::string_view name : f.allowed) {
            if (value.is_string() && value.get<std::string>() == name) {
                c.*f.member = name;
                return {};
            }
            allowed += (allowed.empty() ? "\"" : ", \"") + std::string(name) + "\"";
        }
        return value.dump() + " is not one of " + allowed;
    }
    for (auto &[name, parser] : kSections) {
        if (key != name)
            continue;
        std::string problem = parser(value, where, c);
        section_failed = !problem.empty();
        return problem;
    }
    if (key == "name") {
        if (!value.is_string() || value.get<std::string>().empty())
            return "expected a non-empty string, got " + value.dump();
        c.name = value.get<std::string>();
        return {};
    }
    if (key == "model") {
        if (value == "functional" || value == "timing") {
            c.model = value == "timing" ? Model::timing : Model::functional;
            return {};
        }
        return value.dump() + " is not one of \"functional\", \"timing\"";
    }
    if (key == "vram_bytes") {
        std::string problem = unsigned_problem(value, kVramGranule, kVramMax, v);
        if (problem.empty() && v % kVramGranule != 0)
            problem = std::to_string(v) + " is not a multiple of 2 MiB (2097152)";
        c.vram_bytes = v;
        return problem;
    }
    if (key == "max_threads_per_cta") {
        std::string problem = unsigned_problem(value, 1, UINT32_MAX, v);
        file.max_threads_per_cta = uint32_t(v);
        return problem;
    }
    if (key == "livelock_cycles") {
        std::string problem = unsigned_problem(value, kMinLivelockCycles, kMaxLivelockCycles, v);
        c.livelock_cycles = v;
        return problem;
    }
    if (key == "fault_service_ns") {
        std::string problem = unsigned_problem(value, 0, kMaxFaultServiceNs, v);
        c.fault_service_ns = uint32_t(v);
        return problem;
    }
    return "unknown field; " + unknown_field_fix(key, known_fields());
}

} // namespace

Expected<ConfigFile> read_config_file(std::string_view preset_or_path) {
    auto source = open_source(preset_or_path, {}, "");
    if (!source)
        return Error{source.error()};
    std::vector<std::string> chain, names;
    auto merged = merged_object(*source, chain, names);
    if (!merged)
        return Error{merged.error()};

    ConfigFile file;
    file.config.name = source->stem;
    for (auto &[key, value] : merged->items()) {
        bool section_failed = false;
        std::string problem = read_field(key, value, source->where, file, section_failed);
        if (section_failed)
            return Error{problem}; // the section's parser names the file and the path
        if (!problem.empty())
            return Error{source->where + ": " + key + ": " + problem};
    }
    if (std::string problem = settle_max_threads_per_cta(file.config, file.max_threads_per_cta);
        !problem.empty())
        return Error{source->where + ": max_threads_per_cta: " + problem};
    return file;
}

Expected<DeviceConfig> load_device_config(std::string_view preset_or_path) {
    auto file = read_config_file(preset_or_path);
    if (!file)
        return Error{file.error()};
    return file->config;
}

} // namespace simtgpu::sim
