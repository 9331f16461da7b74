#include "sweep.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

namespace simtgpu::sweep {

namespace fs = std::filesystem;
using json = nlohmann::json;
using ordered_json = nlohmann::ordered_json;

namespace {

const std::set<std::string> kTopFields = {"name",   "base",       "programs",  "parameters",
                                          "points", "statistics", "timeout_s", "comment"};
const std::set<std::string> kProgramFields = {"name", "kind", "path", "args", "size", "comment"};
constexpr const char *kSizeParameter = "program.size";

// "ab" vs "abc": the closest known field, for "did you mean".
std::string closest(const std::string &word, const std::set<std::string> &known) {
    std::string best;
    size_t best_distance = 3; // suggest only near misses
    for (const auto &candidate : known) {
        std::vector<size_t> row(candidate.size() + 1);
        for (size_t j = 0; j <= candidate.size(); ++j)
            row[j] = j;
        for (size_t i = 1; i <= word.size(); ++i) {
            size_t diagonal = row[0];
            row[0] = i;
            for (size_t j = 1; j <= candidate.size(); ++j) {
                const size_t above = row[j];
                row[j] = std::min({row[j] + 1, row[j - 1] + 1,
                                   diagonal + (word[i - 1] == candidate[j - 1] ? 0 : 1)});
                diagonal = above;
            }
        }
        if (row[candidate.size()] < best_distance) {
            best_distance = row[candidate.size()];
            best = candidate;
        }
    }
    return best;
}

Expected<bool> check_fields(const json &object, const std::set<std::string> &known,
                            const std::string &where) {
    for (const auto &[key, value] : object.items()) {
        if (known.count(key))
            continue;
        std::string message = where + key + ": unknown field";
        if (const std::string guess = closest(key, known); !guess.empty())
            message += "; did you mean " + guess + "?";
        else {
            message += " (known:";
            for (const auto &k : known)
                message += " " + k;
            message += ")";
        }
        return Error{message};
    }
    return true;
}

// A parameter name: a dotted path of configuration field names.
Expected<bool> check_parameter_name(const std::string &name, const std::string &where) {
    if (name.empty())
        return Error{where + ": empty parameter name"};
    size_t start = 0;
    while (true) {
        const size_t dot = name.find('.', start);
        const std::string part = name.substr(start, dot == std::string::npos ? dot : dot - start);
        if (part.empty() || !std::all_of(part.begin(), part.end(), [](char c) {
                return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
            }))
            return Error{where + ": '" + name +
                         "' is not a dotted configuration path (lower-case field names joined "
                         "by '.', like memory.l1.size_bytes)"};
        if (dot == std::string::npos)
            return true;
        start = dot + 1;
    }
}

bool is_count(const json &value) {
    return value.is_number_unsigned() || (value.is_number_integer() && value.get<int64_t>() >= 0);
}

Expected<bool> check_value(const std::string &parameter, const json &value,
                           const std::string &where) {
    if (parameter == kSizeParameter) {
        if (!is_count(value))
            return Error{where + ": " + kSizeParameter + " must be a non-negative integer, not " +
                         value.dump()};
        return true;
    }
    if (!value.is_primitive() || value.is_null())
        return Error{where + ": the value of " + parameter +
                     " must be a string, number or boolean, not " + value.dump()};
    return true;
}

bool is_executable(const fs::path &p) {
    std::error_code ec;
    return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0;
}

// A program's path: absolute; with a '/' relative to the sweep file; a bare
// name beside simt-sweep, then on PATH.
Expected<fs::path> resolve_program(const std::string &text, const fs::path &sweep_dir,
                                   const Resolver &resolver, const std::string &where) {
    if (text.empty())
        return Error{where + ": empty path"};
    std::vector<fs::path> tried;
    if (text.find('/') != std::string::npos) {
        tried.push_back(fs::path(text).is_absolute() ? fs::path(text) : sweep_dir / text);
    } else {
        if (!resolver.tool_dir.empty())
            tried.push_back(resolver.tool_dir / text);
        if (const char *path = std::getenv("PATH")) {
            std::stringstream dirs(path);
            for (std::string dir; std::getline(dirs, dir, ':');)
                if (!dir.empty())
                    tried.push_back(fs::path(dir) / text);
        }
    }
    for (const auto &candidate : tried)
        if (is_executable(candidate))
            return fs::absolute(candidate).lexically_normal();
    std::string message = where + ": '" + text + "' is not an executable file (looked at";
    for (size_t i = 0; i < tried.size() && i < 3; ++i)
        message += " " + tried[i].string();
    if (tried.size() > 3)
        message += " and PATH";
    return Error{message + "); build it (make build) or give its path"};
}

Expected<Program> parse_program(const json &j, size_t index, const fs::path &sweep_dir,
                                const Resolver &resolver, const std::string &file) {
    const std::string where = file + ": programs[" + std::to_string(index) + "]";
    if (!j.is_object())
        return Error{where + ": must be an object with name, kind and path"};
    if (auto ok = check_fields(j, kProgramFields, where + "."); !ok)
        return Error{ok.error()};
    Program p;
    if (!j.contains("path") || !j["path"].is_string())
        return Error{where + ".path: missing (the program's file, a string)"};
    const std::string path_text = j["path"].get<std::string>();
    if (j.contains("kind")) {
        if (!j["kind"].is_string())
            return Error{where + ".kind: must be \"cuda\" or \"elf\""};
        const std::string kind = j["kind"].get<std::string>();
        if (kind == "cuda")
            p.kind = ProgramKind::Cuda;
        else if (kind == "elf")
            p.kind = ProgramKind::Elf;
        else
            return Error{where + ".kind: '" + kind +
                         "' is not a program kind (cuda: a program built by simtcc; elf: a "
                         "bare-metal ELF run by simt-run)"};
    }
    if (j.contains("name")) {
        if (!j["name"].is_string() || j["name"].get<std::string>().empty())
            return Error{where + ".name: must be a non-empty string"};
        p.name = j["name"].get<std::string>();
    } else {
        p.name = fs::path(path_text).filename().string();
    }
    auto resolved = resolve_program(path_text, sweep_dir, resolver, where + ".path");
    if (!resolved)
        return Error{resolved.error()};
    p.path = *resolved;
    if (j.contains("args")) {
        if (!j["args"].is_array())
            return Error{where + ".args: must be an array of strings or numbers"};
        for (size_t i = 0; i < j["args"].size(); ++i) {
            const json &a = j["args"][i];
            if (a.is_string())
                p.args.push_back(a.get<std::string>());
            else if (a.is_number())
                p.args.push_back(a.dump());
            else
                return Error{where + ".args[" + std::to_string(i) +
                             "]: must be a string or a number, not " + a.dump()};
        }
    }
    if (j.contains("size")) {
        if (!is_count(j["size"]))
            return Error{where + ".size: must be a non-negative integer (the input size, "
                                 "substituted for {size} in args)"};
        p.size = j["size"].get<uint64_t>();
    }
    return p;
}

// 64-bit FNV-1a, for point ids that do not change when points are added.
std::string hash_hex(const std::string &text) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (const unsigned char c : text) {
        h ^= c;
        h *= 0x100000001b3ull;
    }
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
    return buf;
}

std::string safe_name(const std::string &name) {
    std::string out;
    for (const char c : name)
        out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') ? c : '_';
    return out;
}

void put_dotted(ordered_json &target, const std::string &dotted, const json &value) {
    ordered_json *node = &target;
    size_t start = 0;
    for (size_t dot; (dot = dotted.find('.', start)) != std::string::npos; start = dot + 1) {
        ordered_json &child = (*node)[dotted.substr(start, dot - start)];
        if (!child.is_object())
            child = ordered_json::object();
        node = &child;
    }
    (*node)[dotted.substr(start)] = value;
}

std::string cell_text(const json &value) {
    if (value.is_string())
        return value.get<std::string>();
    if (value.is_null())
        return "";
    return value.dump();
}

} // namespace

Expected<Sweep> load_sweep(const fs::path &file, const Resolver &resolver) {
    std::ifstream in(file);
    if (!in)
        return Error{file.string() + ": cannot read the sweep file"};
    if (file.extension() == ".toml")
        return Error{file.string() +
                     ": TOML sweep files are not supported by this build; write it as JSON "
                     "(the same fields, docs/sweeps.md)"};
    json doc;
    try {
        doc = json::parse(in, nullptr, true, /*ignore_comments=*/true);
    } catch (const json::parse_error &e) {
        return Error{file.string() + ": not valid JSON: " + e.what()};
    }
    return parse_sweep(doc, fs::absolute(file).lexically_normal(), resolver);
}

Expected<Sweep> parse_sweep(const json &doc, const fs::path &file, const Resolver &resolver) {
    const std::string name = file.filename().string();
    if (!doc.is_object())
        return Error{name + ": the sweep must be a JSON object with programs and parameters"};
    if (auto ok = check_fields(doc, kTopFields, name + ": "); !ok)
        return Error{ok.error()};
    Sweep s;
    s.file = file;
    const fs::path dir = file.parent_path();
    s.name = file.stem().string();
    if (doc.contains("name")) {
        if (!doc["name"].is_string() || doc["name"].get<std::string>().empty())
            return Error{name + ": name: must be a non-empty string"};
        s.name = doc["name"].get<std::string>();
    }
    if (doc.contains("base")) {
        if (!doc["base"].is_string() || doc["base"].get<std::string>().empty())
            return Error{name + ": base: must be a preset name (ampere, functional, teaching, volta) or "
                                "a configuration file"};
        s.base = doc["base"].get<std::string>();
        // A path (relative to the sweep file) rather than a preset name.
        if (s.base.find('/') != std::string::npos || fs::path(s.base).extension() == ".json") {
            const fs::path base = fs::path(s.base).is_absolute() ? fs::path(s.base) : dir / s.base;
            std::error_code ec;
            if (!fs::is_regular_file(base, ec))
                return Error{name + ": base: " + base.string() +
                             " is not a file (a preset name has no '/' and no .json)"};
            s.base = fs::absolute(base).lexically_normal().string();
        }
    }
    if (doc.contains("timeout_s")) {
        if (!doc["timeout_s"].is_number() || doc["timeout_s"].get<double>() <= 0)
            return Error{name + ": timeout_s: must be a positive number of seconds"};
        s.timeout_s = doc["timeout_s"].get<double>();
    }

    if (!doc.contains("programs") || !doc["programs"].is_array() || doc["programs"].empty())
        return Error{name + ": programs: missing or empty (an array of {name, kind, path, args, "
                            "size})"};
    std::set<std::string> program_names;
    for (size_t i = 0; i < doc["programs"].size(); ++i) {
        auto p = parse_program(doc["programs"][i], i, dir, resolver, name);
        if (!p)
            return Error{p.error()};
        if (!program_names.insert(p->name).second)
            return Error{name + ": programs[" + std::to_string(i) + "].name: '" + p->name +
                         "' names two programs; give each a distinct name"};
        s.programs.push_back(std::move(*p));
    }

    const bool has_product = doc.contains("parameters"), has_list = doc.contains("points");
    if (has_product && has_list)
        return Error{name + ": parameters and points: give one (parameters: every combination "
                            "of the values; points: a list of configurations)"};
    if (has_product) {
        const json &params = doc["parameters"];
        if (!params.is_object())
            return Error{name + ": parameters: must be an object of dotted path -> array of "
                                "values"};
        // Product of the value lists, the first parameter varying slowest.
        s.configurations.push_back(ordered_json::object());
        for (const auto &[key, values] : params.items()) {
            const std::string where = name + ": parameters." + key;
            if (auto ok = check_parameter_name(key, where); !ok)
                return Error{ok.error()};
            if (!values.is_array() || values.empty())
                return Error{where + ": must be a non-empty array of values"};
            for (size_t i = 0; i < values.size(); ++i)
                if (auto ok = check_value(key, values[i], where + "[" + std::to_string(i) + "]");
                    !ok)
                    return Error{ok.error()};
            s.parameters.push_back(key);
            std::vector<ordered_json> next;
            for (const auto &partial : s.configurations)
                for (const auto &v : values) {
                    ordered_json c = partial;
                    c[key] = v;
                    next.push_back(std::move(c));
                }
            s.configurations = std::move(next);
        }
    } else if (has_list) {
        const json &points = doc["points"];
        if (!points.is_array() || points.empty())
            return Error{name + ": points: must be a non-empty array of objects (dotted path -> "
                                "value)"};
        for (size_t i = 0; i < points.size(); ++i) {
            const std::string where = name + ": points[" + std::to_string(i) + "]";
            if (!points[i].is_object())
                return Error{where + ": must be an object of dotted path -> value"};
            ordered_json c = ordered_json::object();
            for (const auto &[key, value] : points[i].items()) {
                if (auto ok = check_parameter_name(key, where + "." + key); !ok)
                    return Error{ok.error()};
                if (auto ok = check_value(key, value, where + "." + key); !ok)
                    return Error{ok.error()};
                if (std::find(s.parameters.begin(), s.parameters.end(), key) == s.parameters.end())
                    s.parameters.push_back(key);
                c[key] = value;
            }
            s.configurations.push_back(std::move(c));
        }
    } else {
        s.configurations.push_back(ordered_json::object()); // the base configuration alone
    }

    if (doc.contains("statistics")) {
        const json &stats = doc["statistics"];
        if (!stats.is_array())
            return Error{name + ": statistics: must be an array of dotted paths into the "
                                "statistics JSON (like total.device_cycles)"};
        for (size_t i = 0; i < stats.size(); ++i) {
            const std::string where = name + ": statistics[" + std::to_string(i) + "]";
            if (!stats[i].is_string() || stats[i].get<std::string>().empty())
                return Error{where + ": must be a non-empty string (a dotted path)"};
            s.statistics.push_back(stats[i].get<std::string>());
        }
    }
    return s;
}

std::vector<Point> Sweep::points() const {
    std::vector<Point> out;
    for (size_t p = 0; p < programs.size(); ++p)
        for (const auto &configuration : configurations) {
            Point point;
            point.program = p;
            point.size = programs[p].size;
            point.parameters = configuration;
            if (auto it = configuration.find(kSizeParameter); it != configuration.end())
                point.size = it->get<uint64_t>();
            out.push_back(std::move(point));
        }
    for (auto &point : out) {
        const Program &program = programs[point.program];
        const ordered_json identity = {
            {"program", program.name},
            {"kind", program.kind == ProgramKind::Cuda ? "cuda" : "elf"},
            {"path", program.path.string()},
            {"args", point_args(*this, point)},
            {"config", point_config(*this, point)},
        };
        point.id = safe_name(program.name) + "-" + hash_hex(identity.dump()).substr(0, 12);
    }
    return out;
}

ordered_json point_config(const Sweep &sweep, const Point &point) {
    ordered_json config = {{"base", sweep.base}};
    for (const auto &[key, value] : point.parameters.items())
        if (key != kSizeParameter)
            put_dotted(config, key, value);
    return config;
}

std::vector<std::string> point_args(const Sweep &sweep, const Point &point) {
    std::vector<std::string> args = sweep.programs[point.program].args;
    if (!point.size)
        return args;
    const std::string size = std::to_string(*point.size);
    for (auto &arg : args)
        for (size_t at; (at = arg.find("{size}")) != std::string::npos;)
            arg.replace(at, 6, size);
    return args;
}

std::optional<json> lookup(const json &doc, const std::string &dotted) {
    const json *node = &doc;
    size_t start = 0;
    while (true) {
        const size_t dot = dotted.find('.', start);
        const std::string key = dotted.substr(start, dot == std::string::npos ? dot : dot - start);
        if (node->is_object()) {
            auto it = node->find(key);
            if (it == node->end())
                return std::nullopt;
            node = &*it;
        } else if (node->is_array() && !key.empty() &&
                   std::all_of(key.begin(), key.end(), ::isdigit)) {
            const size_t index = std::stoul(key);
            if (index >= node->size())
                return std::nullopt;
            node = &(*node)[index];
        } else {
            return std::nullopt;
        }
        if (dot == std::string::npos)
            return *node;
        start = dot + 1;
    }
}

std::vector<std::string> numeric_leaves(const json &doc) {
    std::vector<std::string> out;
    auto walk = [&](auto &self, const json &node, const std::string &prefix) -> void {
        if (node.is_number() || node.is_boolean()) {
            out.push_back(prefix);
        } else if (node.is_object()) {
            for (const auto &[key, child] : node.items())
                self(self, child, prefix.empty() ? key : prefix + "." + key);
        } else if (node.is_array()) {
            for (size_t i = 0; i < node.size(); ++i)
                self(self, node[i], prefix + "." + std::to_string(i));
        }
    };
    walk(walk, doc, "");
    return out;
}

std::string csv_field(const std::string &text) {
    if (text.find_first_of(",\"\n\r") == std::string::npos)
        return text;
    std::string out = "\"";
    for (const char c : text)
        out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
}

std::string results_csv(const Sweep &sweep, const std::vector<Point> &points,
                        const std::vector<std::optional<json>> &results) {
    std::vector<std::string> statistics = sweep.statistics;
    if (statistics.empty()) {
        // Every number any point reported, in first-seen order.
        std::set<std::string> seen;
        for (const auto &r : results)
            if (r && r->contains("statistics"))
                for (const auto &leaf : numeric_leaves((*r)["statistics"]))
                    if (seen.insert(leaf).second)
                        statistics.push_back(leaf);
    }
    std::vector<std::string> params;
    for (const auto &p : sweep.parameters)
        if (p != kSizeParameter)
            params.push_back(p);
    std::string out = "point,program,size";
    // Appended piecewise: GCC 12 warns (falsely) on "," + string temporaries.
    auto cell = [&out](const std::string &text) {
        out += ',';
        out += csv_field(text);
    };
    for (const auto &p : params)
        cell(p);
    out += ",status,error,exit_status,wall_s";
    for (const auto &s : statistics)
        cell(s);
    out += '\n';
    for (size_t i = 0; i < points.size(); ++i) {
        const Point &point = points[i];
        out += point.id;
        cell(sweep.program_of(point).name);
        cell(point.size ? std::to_string(*point.size) : "");
        for (const auto &p : params)
            cell(point.parameters.contains(p) ? cell_text(point.parameters[p]) : "");
        const auto &r = results[i];
        if (!r) {
            cell(kStatusNotRun);
            out.append(3 + statistics.size(), ',');
            out += '\n';
            continue;
        }
        cell(r->value("status", ""));
        cell(r->value("error", ""));
        cell(cell_text(r->value("exit_status", json())));
        cell(cell_text(r->value("wall_s", json())));
        const json stats = r->value("statistics", json());
        for (const auto &s : statistics) {
            const auto v = lookup(stats, s);
            cell(v && v->is_primitive() ? cell_text(*v) : "");
        }
        out += '\n';
    }
    return out;
}

} // namespace simtgpu::sweep
