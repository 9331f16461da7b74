// PipelineConfig::from_json: every rejection names the file and the field as
// the dotted path a sweep uses ("timing.fp32.ii"), the value and what is
// allowed, because the message reaches a person editing a JSON file.
#include "timing/pipeline_config.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <string_view>
#include <vector>

namespace simtgpu::sim::timing {
namespace {

using nlohmann::json;

constexpr uint32_t kMaxCycles = 100'000;

constexpr std::array<std::string_view, kInsnClasses> kClassNames{
#define SIMTGPU_X(name, latency, ii) #name,
    SIMTGPU_INSN_CLASSES(SIMTGPU_X)
#undef SIMTGPU_X
};

size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j)
        row[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        size_t diagonal = row[0];
        row[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            const size_t above = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
            diagonal = above;
        }
    }
    return row[b.size()];
}

// "unknown field; did you mean X?" or the list of known fields.
std::string unknown_field(std::string_view key, const std::vector<std::string_view> &names) {
    std::string_view best;
    size_t best_distance = SIZE_MAX;
    std::string all;
    for (std::string_view name : names) {
        const size_t d = edit_distance(key, name);
        if (d < best_distance)
            best_distance = d, best = name;
        all += (all.empty() ? "\"" : ", \"") + std::string(name) + "\"";
    }
    if (best_distance <= std::max<size_t>(2, key.size() / 3))
        return "unknown field; did you mean " + std::string(best) + "?";
    return "unknown field; known fields are " + all;
}

// An unsigned field in lo..hi, or the error naming it.
std::string read_unsigned(const json &value, const std::string &path, uint32_t lo, uint32_t hi,
                          uint32_t &out) {
    if (!value.is_number_unsigned() && !(value.is_number_integer() && value.get<int64_t>() >= 0))
        return path + ": expected an unsigned integer, got " + value.dump();
    const uint64_t v = value.get<uint64_t>();
    if (v < lo || v > hi)
        return path + ": " + std::to_string(v) + " is out of range: allowed " + std::to_string(lo) +
               ".." + std::to_string(hi);
    out = uint32_t(v);
    return {};
}

std::string read_unit(const json &value, const std::string &path, InsnClass c, Unit &unit) {
    if (!value.is_object())
        return path + ": expected an object, got " + value.dump();
    for (auto &[key, field] : value.items()) {
        std::string problem;
        if (key == "ii")
            problem = read_unsigned(field, path + ".ii", 1, kMaxCycles, unit.ii);
        else if (key == "latency" && is_memory(c))
            problem = path + ".latency: memory instructions take their latency from the memory "
                             "system; set memory.l1, memory.shared, memory.l2 or memory.dram";
        else if (key == "latency")
            problem = read_unsigned(field, path + ".latency", 1, kMaxCycles, unit.latency);
        else
            problem =
                path + "." + key + ": " +
                unknown_field(key, is_memory(c) ? std::vector<std::string_view>{"ii"}
                                                : std::vector<std::string_view>{"latency", "ii"});
        if (!problem.empty())
            return problem;
    }
    return {};
}

} // namespace

const char *to_string(InsnClass c) {
    return kClassNames[size_t(c)].data();
}

Expected<PipelineConfig> PipelineConfig::from_json(const json &timing, const std::string &where) {
    PipelineConfig c;
    if (!timing.is_object())
        return Error{where + ": timing: expected an object, got " + timing.dump()};
    std::vector<std::string_view> names{"schedulers_per_sm"};
    names.insert(names.end(), kClassNames.begin(), kClassNames.end());
    for (auto &[key, value] : timing.items()) {
        const std::string path = "timing." + key;
        std::string problem;
        const auto cls = std::find(kClassNames.begin(), kClassNames.end(), key);
        if (key == "schedulers_per_sm")
            problem = read_unsigned(value, path, 1, 64, c.schedulers_per_sm);
        else if (cls != kClassNames.end())
            problem = read_unit(value, path, InsnClass(cls - kClassNames.begin()),
                                c.units[size_t(cls - kClassNames.begin())]);
        else
            problem = path + ": " + unknown_field(key, names);
        if (!problem.empty())
            return Error{where + ": " + problem};
    }
    return c;
}

} // namespace simtgpu::sim::timing
