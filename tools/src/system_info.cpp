#include "system_info.h"

#include "simtgpu/hw.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace simtgpu::tools {

namespace fs = std::filesystem;

std::optional<std::string> read_trimmed(const std::string &path) {
    std::ifstream in(path);
    if (!in)
        return std::nullopt;
    std::stringstream text;
    text << in.rdbuf();
    std::string s = text.str();
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\t'))
        s.pop_back();
    return s;
}

namespace {

std::optional<uint64_t> parse_u64(const std::string &text) {
    if (text.empty())
        return std::nullopt;
    char *end = nullptr;
    unsigned long long v = std::strtoull(text.c_str(), &end, 0);
    if (end == text.c_str() || *end != '\0')
        return std::nullopt;
    return v;
}

std::string basename_of_link(const fs::path &link) {
    std::error_code ec;
    fs::path target = fs::read_symlink(link, ec);
    return ec ? std::string() : target.filename().string();
}

std::string first_render_node(const fs::path &device_dir) {
    std::error_code ec;
    std::vector<std::string> names;
    for (const auto &entry : fs::directory_iterator(device_dir / "drm", ec)) {
        std::string name = entry.path().filename().string();
        if (name.rfind("renderD", 0) == 0)
            names.push_back(name);
    }
    std::sort(names.begin(), names.end());
    return names.empty() ? std::string() : names.front();
}

std::optional<int64_t> read_temperature(const fs::path &device_dir) {
    if (auto v = read_u64((device_dir / "temperature").string()))
        return int64_t(*v);
    std::error_code ec;
    for (const auto &entry : fs::directory_iterator(device_dir / "hwmon", ec)) {
        if (auto text = read_trimmed((entry.path() / "temp1_input").string())) {
            char *end = nullptr;
            long long v = std::strtoll(text->c_str(), &end, 10);
            if (end != text->c_str() && *end == '\0')
                return v;
        }
    }
    return std::nullopt;
}

// "123 KiB" / "123 ns" / "123": the number, scaled to the unit asked for.
std::optional<uint64_t> leading_number(std::string_view value) {
    size_t i = 0;
    while (i < value.size() && (value[i] == ' ' || value[i] == '\t'))
        ++i;
    size_t start = i;
    while (i < value.size() && value[i] >= '0' && value[i] <= '9')
        ++i;
    if (i == start)
        return std::nullopt;
    return parse_u64(std::string(value.substr(start, i - start)));
}

uint64_t kib_of(std::string_view value) {
    auto n = leading_number(value);
    if (!n)
        return 0;
    if (value.find("MiB") != std::string_view::npos)
        return *n * 1024;
    if (value.find("GiB") != std::string_view::npos)
        return *n * 1024 * 1024;
    if (value.find("KiB") != std::string_view::npos)
        return *n;
    return *n / 1024; // bytes
}

} // namespace

std::optional<uint64_t> read_u64(const std::string &path) {
    auto text = read_trimmed(path);
    return text ? parse_u64(*text) : std::nullopt;
}

std::vector<PciFunction> find_simtgpu_functions(const std::string &sysfs_root) {
    std::vector<PciFunction> found;
    std::error_code ec;
    for (const auto &entry : fs::directory_iterator(fs::path(sysfs_root) / "bus/pci/devices", ec)) {
        const fs::path &dir = entry.path();
        auto vendor = read_u64((dir / "vendor").string());
        auto device = read_u64((dir / "device").string());
        if (!vendor || !device || *vendor != SIMTGPU_PCI_VENDOR_ID ||
            *device != SIMTGPU_PCI_DEVICE_ID)
            continue;
        PciFunction f;
        f.address = dir.filename().string();
        f.sysfs_path = dir.string();
        f.vendor = uint32_t(*vendor);
        f.device = uint32_t(*device);
        f.revision = uint32_t(read_u64((dir / "revision").string()).value_or(0));
        f.class_code = uint32_t(read_u64((dir / "class").string()).value_or(0));
        f.driver = basename_of_link(dir / "driver");
        f.render_node = first_render_node(dir);
        found.push_back(std::move(f));
    }
    std::sort(found.begin(), found.end(),
              [](const PciFunction &a, const PciFunction &b) { return a.address < b.address; });
    return found;
}

DriverAttributes read_driver_attributes(const PciFunction &function) {
    fs::path dir(function.sysfs_path);
    DriverAttributes a;
    a.vram_total = read_u64((dir / "vram_total").string());
    a.vram_used = read_u64((dir / "vram_used").string());
    a.utilisation_percent = read_u64((dir / "utilisation").string());
    a.sm_count = read_u64((dir / "sm_count").string());
    a.arch = read_trimmed((dir / "arch").string());
    a.temperature_mdeg = read_temperature(dir);
    static constexpr const char *kNames[] = {
#define SIMTGPU_X(name, unit, ncu, what) #name,
        SIMTGPU_COUNTERS(SIMTGPU_X)
#undef SIMTGPU_X
    };
    for (size_t i = 0; i < SIMTGPU_NUM_COUNTERS; ++i)
        a.counters[i] = read_u64((dir / "counters" / kNames[i]).string());
    return a;
}

std::optional<uint64_t> sm_activity_percent(const DriverAttributes &before,
                                            const DriverAttributes &after) {
    const auto &cycles_before = before.counters[SIMTGPU_COUNTER_cycles];
    const auto &cycles_after = after.counters[SIMTGPU_COUNTER_cycles];
    const auto &busy_before = before.counters[SIMTGPU_COUNTER_sm_busy_cycles];
    const auto &busy_after = after.counters[SIMTGPU_COUNTER_sm_busy_cycles];
    if (!cycles_before || !cycles_after || !busy_before || !busy_after || !after.sm_count ||
        *after.sm_count == 0)
        return std::nullopt;
    // A reset in between restarts the counters: no figure for that interval.
    if (*cycles_after <= *cycles_before || *busy_after < *busy_before)
        return std::nullopt;
    const uint64_t sm_cycles = (*cycles_after - *cycles_before) * *after.sm_count;
    const uint64_t busy = *busy_after - *busy_before;
    return std::min<uint64_t>(100, busy * 100 / sm_cycles);
}

std::optional<DrmFdinfo> parse_drm_fdinfo(std::string_view text) {
    DrmFdinfo info;
    bool has_driver = false;
    while (!text.empty()) {
        size_t eol = text.find('\n');
        std::string_view line = text.substr(0, eol);
        text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
        size_t colon = line.find(':');
        if (colon == std::string_view::npos)
            continue;
        std::string_view key = line.substr(0, colon);
        std::string_view value = line.substr(colon + 1);
        while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
            value.remove_prefix(1);
        if (key == "drm-driver") {
            info.driver = std::string(value);
            has_driver = true;
        } else if (key == "drm-pdev") {
            info.pdev = std::string(value);
        } else if (key == "drm-client-id") {
            info.client_id = leading_number(value).value_or(0);
        } else if (key == "drm-memory-vram") {
            info.vram_kib = kib_of(value);
        } else if (key.rfind("drm-engine-", 0) == 0) {
            info.engine_ns += leading_number(value).value_or(0);
        }
    }
    if (!has_driver)
        return std::nullopt;
    return info;
}

std::vector<ClientProcess> find_client_processes(const std::string &proc_root,
                                                 const std::string &driver,
                                                 const std::string &pdev) {
    std::vector<ClientProcess> processes;
    std::error_code ec;
    for (const auto &entry : fs::directory_iterator(proc_root, ec)) {
        std::string name = entry.path().filename().string();
        if (name.empty() || !std::all_of(name.begin(), name.end(), ::isdigit))
            continue;
        ClientProcess p;
        p.pid = std::atoi(name.c_str());
        std::set<uint64_t> seen;
        std::error_code fd_ec;
        for (const auto &fd : fs::directory_iterator(entry.path() / "fdinfo", fd_ec)) {
            auto text = read_trimmed(fd.path().string());
            if (!text)
                continue;
            auto info = parse_drm_fdinfo(*text);
            if (!info || info->driver != driver || info->pdev != pdev)
                continue;
            if (!seen.insert(info->client_id).second)
                continue; // the same open file through a dup'ed fd
            p.vram_kib += info->vram_kib;
            p.engine_ns += info->engine_ns;
            ++p.clients;
        }
        if (p.clients == 0)
            continue;
        p.command = read_trimmed((entry.path() / "comm").string()).value_or("?");
        processes.push_back(std::move(p));
    }
    std::sort(processes.begin(), processes.end(),
              [](const ClientProcess &a, const ClientProcess &b) { return a.pid < b.pid; });
    return processes;
}

std::string uapi_version_string(uint32_t version) {
    return std::to_string(version >> 16) + "." + std::to_string(version & 0xffff);
}

} // namespace simtgpu::tools
