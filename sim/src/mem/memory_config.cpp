// MemoryConfig::from_json: every rejection names the file, the field (as the
// dotted path a sweep uses), the value and what is allowed, because the
// message reaches a person editing a JSON file.
#include "mem/memory_config.h"

#include "support/suggest.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <initializer_list>
#include <string_view>
#include <utility>
#include <vector>

namespace simtgpu::sim::mem {
namespace {

using nlohmann::json;

constexpr uint32_t kMaxLatency = 100'000;

// Reads one JSON object after another, keeping the first error.
class Reader {
public:
    explicit Reader(const std::string &where) : where_(where) {}

    bool failed() const { return !error_.empty(); }
    const std::string &error() const { return error_; }

    void fail(const std::string &path, const std::string &message) {
        if (error_.empty())
            error_ = where_ + ": " + path + ": " + message;
    }

    // The object at `path` (absent = nothing to read), refusing fields not
    // in `names` with the closest known name as a suggestion.
    const json *object(const json &parent, const std::string &path, std::string_view name,
                       std::initializer_list<std::string_view> names) {
        auto it = parent.find(name);
        if (it == parent.end())
            return nullptr;
        return check_object(*it, path, names) ? &*it : nullptr;
    }

    bool check_object(const json &value, const std::string &path,
                      std::initializer_list<std::string_view> names) {
        if (!value.is_object()) {
            fail(path, "expected an object, got " + value.dump());
            return false;
        }
        for (auto &[key, unused] : value.items()) {
            (void)unused;
            if (std::find(names.begin(), names.end(), key) != names.end())
                continue;
            fail(path + "." + key, "unknown field; " + unknown_field_fix(key, names));
            return false;
        }
        return true;
    }

    template <typename T>
    void unsigned_field(const json *object, const std::string &path, const char *name, T &out,
                        uint64_t lo, uint64_t hi) {
        if (!object || failed())
            return;
        auto it = object->find(name);
        if (it == object->end())
            return;
        std::string field = path + "." + name;
        if (!it->is_number_unsigned() && !(it->is_number_integer() && it->get<int64_t>() >= 0)) {
            fail(field, "expected an unsigned integer, got " + it->dump());
            return;
        }
        uint64_t value = it->get<uint64_t>();
        if (value < lo || value > hi) {
            fail(field, std::to_string(value) + " is out of range: allowed " + std::to_string(lo) +
                            ".." + std::to_string(hi));
            return;
        }
        out = T(value);
    }

    void number_field(const json *object, const std::string &path, const char *name, double &out,
                      double lo, double hi) {
        if (!object || failed())
            return;
        auto it = object->find(name);
        if (it == object->end())
            return;
        std::string field = path + "." + name;
        if (!it->is_number()) {
            fail(field, "expected a number, got " + it->dump());
            return;
        }
        double value = it->get<double>();
        if (!(value >= lo && value <= hi)) {
            fail(field, it->dump() + " is out of range: allowed " + json(lo).dump() + ".." +
                            json(hi).dump());
            return;
        }
        out = value;
    }

    template <typename E, size_t N>
    void choice_field(const json *object, const std::string &path, const char *name, E &out,
                      const std::array<std::pair<std::string_view, E>, N> &choices) {
        if (!object || failed())
            return;
        auto it = object->find(name);
        if (it == object->end())
            return;
        std::string field = path + "." + name;
        std::string allowed;
        for (auto &[text, value] : choices) {
            if (it->is_string() && it->get<std::string>() == text) {
                out = value;
                return;
            }
            allowed += (allowed.empty() ? "\"" : ", \"") + std::string(text) + "\"";
        }
        fail(field, it->dump() + " is not one of " + allowed);
    }

private:
    const std::string &where_;
    std::string error_;
};

constexpr std::array kWritePolicies{
    std::pair{std::string_view("write-through-no-allocate"),
              L1WritePolicy::write_through_no_allocate},
    std::pair{std::string_view("write-evict"), L1WritePolicy::write_evict},
};
constexpr std::array kDramSchedulers{
    std::pair{std::string_view("fcfs"), DramScheduler::fcfs},
    std::pair{std::string_view("fr-fcfs"), DramScheduler::fr_fcfs},
};

bool power_of_two(uint64_t v) {
    return std::has_single_bit(v);
}

// Checks that need more than one field, once every field is in range.
std::string relations(const MemoryConfig &c) {
    auto n = [](uint64_t v) { return std::to_string(v); };
    const auto &l1 = c.l1;
    if (!power_of_two(l1.line_bytes) || !power_of_two(l1.sector_bytes))
        return "memory.l1.line_bytes (" + n(l1.line_bytes) + ") and memory.l1.sector_bytes (" +
               n(l1.sector_bytes) + ") must be powers of two";
    if (l1.line_bytes < l1.sector_bytes || l1.sector_bytes * 8 < l1.line_bytes)
        return "memory.l1.line_bytes = " + n(l1.line_bytes) + " must hold 1..8 sectors of " +
               "memory.l1.sector_bytes = " + n(l1.sector_bytes);
    uint64_t l1_way_bytes = uint64_t(l1.line_bytes) * l1.assoc;
    if (l1.size_bytes % l1_way_bytes != 0)
        return "memory.l1.size_bytes = " + n(l1.size_bytes) +
               " must be a multiple of line_bytes * assoc = " + n(l1_way_bytes);
    if (!power_of_two(c.shared.bank_bytes))
        return "memory.shared.bank_bytes = " + n(c.shared.bank_bytes) + " must be a power of two";
    if (!power_of_two(c.l2.slices))
        return "memory.l2.slices = " + n(c.l2.slices) + " must be a power of two";
    uint64_t l2_slice_way_bytes = uint64_t(l1.line_bytes) * c.l2.assoc * c.l2.slices;
    if (c.l2.size_bytes % l2_slice_way_bytes != 0)
        return "memory.l2.size_bytes = " + n(c.l2.size_bytes) +
               " must be a multiple of memory.l1.line_bytes * assoc * slices = " +
               n(l2_slice_way_bytes);
    if (c.l2.persisting_max_bytes > c.l2.size_bytes)
        return "memory.l2.persisting_max_bytes = " + n(c.l2.persisting_max_bytes) +
               " exceeds memory.l2.size_bytes = " + n(c.l2.size_bytes);
    if ((c.l2.persisting_max_bytes == 0) != (c.l2.access_window_max_bytes == 0))
        return "memory.l2.persisting_max_bytes (" + n(c.l2.persisting_max_bytes) +
               ") and memory.l2.access_window_max_bytes (" + n(c.l2.access_window_max_bytes) +
               ") must both be 0 (no persisting lines) or both above 0";
    // The engine runs the SMs beside L2 in quanta of half this difference.
    if (c.l2.hit_latency < l1.hit_latency + 2)
        return "memory.l2.hit_latency = " + n(c.l2.hit_latency) +
               " must be at least memory.l1.hit_latency + 2 = " + n(l1.hit_latency + 2) +
               " (an L2 hit first misses L1, and its answer takes two or more cycles back)";
    const auto &d = c.dram;
    if (!power_of_two(d.channels) || !power_of_two(d.banks_per_channel))
        return "memory.dram.channels (" + n(d.channels) + ") and memory.dram.banks_per_channel (" +
               n(d.banks_per_channel) + ") must be powers of two";
    if (c.l2.slices % d.channels != 0)
        return "memory.l2.slices = " + n(c.l2.slices) +
               " must be a multiple of memory.dram.channels = " + n(d.channels) +
               " (each L2 slice sits in front of one channel)";
    if (!power_of_two(d.row_bytes) || d.row_bytes < l1.line_bytes)
        return "memory.dram.row_bytes = " + n(d.row_bytes) +
               " must be a power of two of at least memory.l1.line_bytes = " + n(l1.line_bytes);
    if (d.latency <= c.l2.hit_latency)
        return "memory.dram.latency = " + n(d.latency) +
               " must exceed memory.l2.hit_latency = " + n(c.l2.hit_latency) +
               " (a DRAM access first misses L2)";
    return {};
}

} // namespace

const char *to_string(L1WritePolicy policy) {
    for (auto &[text, value] : kWritePolicies)
        if (value == policy)
            return text.data();
    return "?";
}

const char *to_string(DramScheduler scheduler) {
    for (auto &[text, value] : kDramSchedulers)
        if (value == scheduler)
            return text.data();
    return "?";
}

Expected<MemoryConfig> MemoryConfig::from_json(const json &memory, const std::string &where) {
    MemoryConfig c;
    Reader r(where);
    if (!r.check_object(memory, "memory", {"l1", "shared", "l2", "dram"}))
        return Error{r.error()};

    const json *l1 = r.object(memory, "memory.l1", "l1",
                              {"size_bytes", "assoc", "line_bytes", "sector_bytes", "mshrs",
                               "mshr_merge", "hit_latency", "write_policy"});
    r.unsigned_field(l1, "memory.l1", "size_bytes", c.l1.size_bytes, 1024, 64ull << 20);
    r.unsigned_field(l1, "memory.l1", "assoc", c.l1.assoc, 1, 64);
    r.unsigned_field(l1, "memory.l1", "line_bytes", c.l1.line_bytes, 32, 1024);
    r.unsigned_field(l1, "memory.l1", "sector_bytes", c.l1.sector_bytes, 4, 1024);
    r.unsigned_field(l1, "memory.l1", "mshrs", c.l1.mshrs, 1, 4096);
    r.unsigned_field(l1, "memory.l1", "mshr_merge", c.l1.mshr_merge, 1, 64);
    r.unsigned_field(l1, "memory.l1", "hit_latency", c.l1.hit_latency, 1, kMaxLatency);
    r.choice_field(l1, "memory.l1", "write_policy", c.l1.write_policy, kWritePolicies);

    const json *shared =
        r.object(memory, "memory.shared", "shared", {"banks", "bank_bytes", "latency"});
    r.unsigned_field(shared, "memory.shared", "banks", c.shared.banks, 1, 64);
    r.unsigned_field(shared, "memory.shared", "bank_bytes", c.shared.bank_bytes, 1, 16);
    r.unsigned_field(shared, "memory.shared", "latency", c.shared.latency, 1, kMaxLatency);

    const json *l2 = r.object(memory, "memory.l2", "l2",
                              {"size_bytes", "assoc", "slices", "hit_latency",
                               "persisting_max_bytes", "access_window_max_bytes"});
    r.unsigned_field(l2, "memory.l2", "size_bytes", c.l2.size_bytes, 4096, 1ull << 32);
    r.unsigned_field(l2, "memory.l2", "assoc", c.l2.assoc, 1, 64);
    r.unsigned_field(l2, "memory.l2", "slices", c.l2.slices, 1, 256);
    r.unsigned_field(l2, "memory.l2", "hit_latency", c.l2.hit_latency, 2, kMaxLatency);
    // Both reach 32-bit registers (hw.h: L2_PERSISTING_MAX, L2_WINDOW_MAX).
    r.unsigned_field(l2, "memory.l2", "persisting_max_bytes", c.l2.persisting_max_bytes, 0,
                     UINT32_MAX);
    r.unsigned_field(l2, "memory.l2", "access_window_max_bytes", c.l2.access_window_max_bytes, 0,
                     UINT32_MAX);

    const json *dram =
        r.object(memory, "memory.dram", "dram",
                 {"channels", "bus_width_bits", "clock_khz", "bandwidth_gbps", "latency",
                  "row_bytes", "banks_per_channel", "t_rcd", "t_rp", "scheduler"});
    r.unsigned_field(dram, "memory.dram", "channels", c.dram.channels, 1, 256);
    r.unsigned_field(dram, "memory.dram", "bus_width_bits", c.dram.bus_width_bits, 8, 65536);
    r.unsigned_field(dram, "memory.dram", "clock_khz", c.dram.clock_khz, 1000, 10'000'000);
    r.number_field(dram, "memory.dram", "bandwidth_gbps", c.dram.bandwidth_gbps, 0.001, 1e6);
    r.unsigned_field(dram, "memory.dram", "latency", c.dram.latency, 3, kMaxLatency);
    r.unsigned_field(dram, "memory.dram", "row_bytes", c.dram.row_bytes, 32, 1 << 20);
    r.unsigned_field(dram, "memory.dram", "banks_per_channel", c.dram.banks_per_channel, 1, 256);
    r.unsigned_field(dram, "memory.dram", "t_rcd", c.dram.t_rcd, 0, 10'000);
    r.unsigned_field(dram, "memory.dram", "t_rp", c.dram.t_rp, 0, 10'000);
    r.choice_field(dram, "memory.dram", "scheduler", c.dram.scheduler, kDramSchedulers);

    if (r.failed())
        return Error{r.error()};
    if (std::string problem = relations(c); !problem.empty())
        return Error{where + ": " + problem};
    return c;
}

} // namespace simtgpu::sim::mem
