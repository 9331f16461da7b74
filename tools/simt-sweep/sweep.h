// simt-sweep's model: a sweep file (programs x configuration points), its
// expansion into points, each point's configuration file, and the results
// table. Pure code, no processes: unit-tested in tests/sweep_test.cpp.
// docs/sweeps.md describes the file format.
#pragma once

#include "support/expected.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace simtgpu::sweep {

enum class ProgramKind {
    Cuda, // a host program built by simtcc, run on the in-process transport
    Elf,  // a bare-metal RV64 ELF, run by simt-run
};

struct Program {
    std::string name;
    ProgramKind kind = ProgramKind::Cuda;
    std::filesystem::path path; // resolved: absolute
    // For CUDA programs the program's arguments; for ELFs simt-run's options
    // (--grid, --block, ...). "{size}" in an argument is replaced by the size.
    std::vector<std::string> args;
    std::optional<uint64_t> size;
};

// One run: a program on one configuration.
struct Point {
    std::string id; // stable across runs: a hash of what the point runs
    size_t program = 0;
    std::optional<uint64_t> size;
    // Parameter name (dotted configuration path, or "program.size") -> value,
    // in the sweep's parameter order.
    nlohmann::ordered_json parameters = nlohmann::ordered_json::object();
};

struct Sweep {
    std::string name;
    std::filesystem::path file;      // the sweep file, absolute
    std::string base = "functional"; // a preset name or an absolute file path
    std::vector<Program> programs;
    std::vector<std::string> parameters; // names, in column order
    // Configuration points (parameter -> value); every program runs on each.
    std::vector<nlohmann::ordered_json> configurations;
    std::vector<std::string> statistics; // dotted paths; empty: every number
    double timeout_s = 600;

    std::vector<Point> points() const;
    const Program &program_of(const Point &p) const { return programs[p.program]; }
};

// Where bare program names are looked up before PATH: the directory of the
// simt-sweep binary (build/bin, or PREFIX/bin once installed).
struct Resolver {
    std::filesystem::path tool_dir;
};

// Parses a sweep file (JSON; TOML when the name ends in .toml is not
// supported and says so). Errors name the file and the field.
Expected<Sweep> load_sweep(const std::filesystem::path &file, const Resolver &resolver);
Expected<Sweep> parse_sweep(const nlohmann::json &doc, const std::filesystem::path &file,
                            const Resolver &resolver);

// {"base": BASE, ...the point's configuration overrides as nested objects}.
nlohmann::ordered_json point_config(const Sweep &sweep, const Point &point);

// The program's arguments with {size} substituted.
std::vector<std::string> point_args(const Sweep &sweep, const Point &point);

// The value at a dotted path ("total.device_cycles", "sms.0.cycles"), or
// nullopt when a step is missing.
std::optional<nlohmann::json> lookup(const nlohmann::json &doc, const std::string &dotted);

// Every numeric leaf of doc as dotted paths (object keys sorted).
std::vector<std::string> numeric_leaves(const nlohmann::json &doc);

// Status of a finished point, as result.json and the table spell it.
inline constexpr const char *kStatusOk = "ok";
inline constexpr const char *kStatusFailed = "failed";
inline constexpr const char *kStatusTimeout = "timeout";
inline constexpr const char *kStatusNotRun = "not-run";

// The results table: a row per point (from its result.json, or not-run when
// it has none), a column per parameter and statistic.
std::string results_csv(const Sweep &sweep, const std::vector<Point> &points,
                        const std::vector<std::optional<nlohmann::json>> &results);

std::string csv_field(const std::string &text);

} // namespace simtgpu::sweep
