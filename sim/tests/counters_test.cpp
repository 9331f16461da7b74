// The one list of counters (include/simtgpu/counters.h) against every layer
// of the simulator built from it: the counter structs, the C ABI's names
// and array, the BAR0 counter block, the stats JSON and docs/counters.md;
// and the counters a known kernel must produce, computed by hand from its
// code.
#include "device/capi_internal.h"
#include "device/device.h"
#include "device_harness.h"
#include "device_kernels.h"
#include "mem/memory_counters.h"
#include "simtgpu/counters.h"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

using namespace simtgpu;

namespace {

struct Entry {
    std::string name, unit, ncu, meaning;
};

std::vector<Entry> entries_of_group(int group) {
    std::vector<Entry> out;
#define SIMTGPU_X(name, unit, ncu, what) out.push_back({#name, unit, ncu, what});
    switch (group) {
    case 0:
        SIMTGPU_ENGINE_COUNTERS(SIMTGPU_X) break;
    case 1:
        SIMTGPU_DEVICE_COUNTERS(SIMTGPU_X) break;
    case 2:
        SIMTGPU_SM_COUNTERS(SIMTGPU_X) break;
    case 3:
        SIMTGPU_MEMORY_COUNTERS(SIMTGPU_X) break;
    default:
        SIMTGPU_COUNTERS(SIMTGPU_X) break;
    }
#undef SIMTGPU_X
    return out;
}
const std::vector<Entry> kAll = entries_of_group(-1);

// The names of a struct's fields in the order of their offsets, as the
// X-macro generated them: offsetof must step by 8 through the list.
template <typename Struct>
void expect_fields_in_list_order(const std::vector<size_t> &offsets, size_t extra_bytes = 0) {
    for (size_t i = 0; i < offsets.size(); ++i)
        EXPECT_EQ(offsets[i], 8 * i) << "field " << i;
    EXPECT_EQ(sizeof(Struct), 8 * offsets.size() + extra_bytes);
}

TEST(CounterList, GroupsMakeTheWholeListAndEveryNameIsUnique) {
    size_t n = 0;
    for (int g = 0; g < 4; ++g)
        n += entries_of_group(g).size();
    EXPECT_EQ(n, kAll.size());
    EXPECT_EQ(kAll.size(), size_t(SIMTGPU_NUM_COUNTERS));
    EXPECT_LE(SIMTGPU_NUM_COUNTERS, SIMTGPU_MAX_COUNTERS);
    for (size_t i = 0; i < kAll.size(); ++i) {
        EXPECT_FALSE(kAll[i].unit.empty()) << kAll[i].name;
        EXPECT_FALSE(kAll[i].meaning.empty()) << kAll[i].name;
        for (size_t j = i + 1; j < kAll.size(); ++j)
            EXPECT_NE(kAll[i].name, kAll[j].name);
    }
    // The enum follows the list.
    size_t i = 0;
#define SIMTGPU_X(name, unit, ncu, what) EXPECT_EQ(size_t(SIMTGPU_COUNTER_##name), i++) << #name;
    SIMTGPU_COUNTERS(SIMTGPU_X)
#undef SIMTGPU_X
}

TEST(CounterList, SimulatorStructsHoldTheirGroupInOrder) {
    std::vector<size_t> offsets;
#define SIMTGPU_X(name, unit, ncu, what) offsets.push_back(offsetof(sim::SmStats, name));
    SIMTGPU_SM_COUNTERS(SIMTGPU_X)
#undef SIMTGPU_X
    EXPECT_EQ(offsets.size(), entries_of_group(2).size());
    expect_fields_in_list_order<sim::SmStats>(offsets);

    offsets.clear();
#define SIMTGPU_X(name, unit, ncu, what)                                                           \
    offsets.push_back(offsetof(sim::mem::MemoryCounters, name));
    SIMTGPU_MEMORY_COUNTERS(SIMTGPU_X)
#undef SIMTGPU_X
    expect_fields_in_list_order<sim::mem::MemoryCounters>(offsets);
    const auto memory = entries_of_group(3);
    ASSERT_EQ(sim::mem::kMemoryCounterFields.size(), memory.size());
    for (size_t i = 0; i < memory.size(); ++i)
        EXPECT_EQ(sim::mem::kMemoryCounterFields[i].name, memory[i].name);

    offsets.clear();
#define SIMTGPU_X(name, unit, ncu, what) offsets.push_back(offsetof(sim::EngineCounters, name));
    SIMTGPU_ENGINE_COUNTERS(SIMTGPU_X)
#undef SIMTGPU_X
    expect_fields_in_list_order<sim::EngineCounters>(offsets, 16); // + the temperature samples

    offsets.clear();
#define SIMTGPU_X(name, unit, ncu, what) offsets.push_back(offsetof(sim::DeviceCounters, name));
    SIMTGPU_DEVICE_COUNTERS(SIMTGPU_X)
#undef SIMTGPU_X
    expect_fields_in_list_order<sim::DeviceCounters>(offsets);

    // The stall reasons are the SM group's last entries, in the enum's order.
    std::vector<std::string> stalls;
#define SIMTGPU_X(name, unit, ncu, what) stalls.push_back(#name);
    SIMTGPU_SM_STALLS(SIMTGPU_X)
#undef SIMTGPU_X
    const auto sm = entries_of_group(2);
    for (size_t i = 0; i < stalls.size(); ++i)
        EXPECT_EQ(sm[sm.size() - stalls.size() + i].name, stalls[i]);
    EXPECT_EQ(std::size(sim::kStallCounters), stalls.size());
}

TEST(CounterList, CAbiNamesEveryCounterInOrder) {
    ASSERT_EQ(simtgpu_sim_num_counters(), kAll.size());
    for (uint32_t i = 0; i < kAll.size(); ++i) {
        ASSERT_NE(simtgpu_sim_counter_name(i), nullptr) << i;
        EXPECT_EQ(simtgpu_sim_counter_name(i), kAll[i].name);
        EXPECT_EQ(simtgpu_sim_counter_index(kAll[i].name.c_str()), int(i));
    }
    EXPECT_EQ(simtgpu_sim_counter_name(uint32_t(kAll.size())), nullptr);
    EXPECT_EQ(simtgpu_sim_counter_index("no_such_counter"), -1);
    EXPECT_EQ(simtgpu_sim_counter_index(nullptr), -1);
}

// docs/counters.md holds the list's one table; this is the table the header
// makes (paste it from the failure message after changing the list).
std::string expected_docs_table() {
    std::ostringstream out;
    out << "| # | counter | unit | Nsight Compute | meaning |\n|---|---|---|---|---|\n";
    for (size_t i = 0; i < kAll.size(); ++i)
        out << "| " << i << " | `" << kAll[i].name << "` | " << kAll[i].unit << " | "
            << (kAll[i].ncu.empty() ? "" : "`" + kAll[i].ncu + "`") << " | " << kAll[i].meaning
            << " |\n";
    out << "\n| figure | unit | Nsight Compute | meaning | formula |\n|---|---|---|---|---|\n";
    const auto strip = [](std::string s) {
        s = std::regex_replace(s, std::regex(R"(SIMTGPU_C\((\w+)\))"), "$1");
        return std::regex_replace(s, std::regex(R"(\s+)"), " ");
    };
#define SIMTGPU_X(name, unit, ncu, what, num, den)                                                 \
    out << "| `" #name "` | " unit " | " << (*ncu ? "`" ncu "`" : "") << " | " what " | ("         \
        << strip(#num) << ") / (" << strip(#den) << ") |\n";
    SIMTGPU_DERIVED(SIMTGPU_X)
#undef SIMTGPU_X
    return out.str();
}

TEST(CounterList, DocsTableIsTheHeaders) {
    std::ifstream in(SIMTGPU_DOCS_DIR "/counters.md");
    ASSERT_TRUE(in) << SIMTGPU_DOCS_DIR "/counters.md";
    std::stringstream text;
    text << in.rdbuf();
    const std::string doc = text.str();
    const std::string begin = "<!-- counters.h table -->\n", end = "<!-- end -->";
    const size_t a = doc.find(begin), b = doc.find(end);
    ASSERT_NE(a, std::string::npos);
    ASSERT_NE(b, std::string::npos);
    EXPECT_EQ(doc.substr(a + begin.size(), b - a - begin.size()), expected_docs_table());
}

// ------------------------------------------------- a known kernel's counters ---

constexpr uint64_t kCode = 0x10000, kData = 0x20000;
constexpr uint32_t kCtas = 3, kThreads = 64, kIterations = 10;

// What kRecordKernel (device_kernels.h) executes, counted from its code:
// every thread runs 7 instructions to the first branch on tid.x, the loop
// of 2 `kIterations` times, the second branch and the 3 of the exit; thread
// 0 of each CTA also the 4 after each branch. Under min-PC reconvergence a
// warp issues what its thread with the most instructions runs: warp 0 of a
// CTA as thread 0, the others as any thread.
struct Expected {
    uint64_t thread_instructions, warp_instructions, mem_reads, mem_writes, branches, divergent;
};
Expected expected_counters(uint32_t warp_size) {
    const uint64_t other = 7 + 2 * kIterations + 1 + 3, first = other + 4 + 4;
    const uint64_t warps = (kThreads + warp_size - 1) / warp_size;
    Expected e{};
    e.thread_instructions = kCtas * (first + (kThreads - 1) * other);
    e.warp_instructions = kCtas * (first + (warps - 1) * other);
    e.mem_reads = kCtas * (2 * kThreads + 1); // out and iterations; thread 0 the tag
    e.mem_writes = kCtas * 4;                 // thread 0's record
    e.branches = kCtas * warps * (2 + kIterations);
    e.divergent = kCtas * 2; // warp 0 splits at both branches on tid.x
    return e;
}

class KnownKernel : public ::testing::TestWithParam<const char *> {
protected:
    static simtgpu_sim_config config_of(const char *preset) {
        simtgpu_sim_config c{};
        c.config = preset;
        c.num_sms = 2;
        return c;
    }
    KnownKernel() : h(config_of(GetParam())) {}
    void run() {
        h.setup_ring(0);
        const uint64_t code = h.map_new(kCode, code_bytes(), SIMTGPU_PTE_R | SIMTGPU_PTE_X);
        std::memcpy(h.vram + code, test::kRecordKernel.data(), code_bytes());
        const uint64_t data = h.map_new(kData, 4096, SIMTGPU_PTE_R | SIMTGPU_PTE_W);
        const uint64_t params[3] = {kData + 1024, kIterations, 7};
        std::memcpy(h.vram + data, params, sizeof params);
        simtgpu_pkt_launch l = test::launch_1d(kCode, kCtas, kThreads);
        l.param_va = kData;
        h.submit({test::pkt_set_context(1, h.root), test::pkt_launch(l)});
    }
    static size_t code_bytes() { return test::kRecordKernel.size() * 4; }
    uint64_t bar0(uint32_t index) {
        const uint64_t lo = h.reg(SIMTGPU_REG_COUNTER(index));
        return lo | uint64_t(h.reg(SIMTGPU_REG_COUNTER(index) + 4)) << 32;
    }
    test::DeviceHarness h;
};

TEST_P(KnownKernel, EveryLayerReadsTheSimulatorsOwnCounters) {
    run();
    const sim::CounterValues own = sim::device_of(h.sim).stats().values();
    const simtgpu_sim_stats s = h.stats();
    ASSERT_EQ(s.num_counters, uint32_t(SIMTGPU_NUM_COUNTERS));
    ASSERT_EQ(h.reg(SIMTGPU_REG_NUM_COUNTERS), uint32_t(SIMTGPU_NUM_COUNTERS));
    char *text = simtgpu_sim_stats_json(h.sim);
    ASSERT_NE(text, nullptr);
    const nlohmann::json json = nlohmann::json::parse(text);
    simtgpu_sim_free_string(text);
    for (uint32_t i = 0; i < SIMTGPU_NUM_COUNTERS; ++i) {
        EXPECT_EQ(s.counters[i], own[i]) << kAll[i].name;
        EXPECT_EQ(bar0(i), own[i]) << kAll[i].name;
        EXPECT_EQ(json.at(kAll[i].name).get<uint64_t>(), own[i]) << kAll[i].name;
    }
    // Per SM, the JSON's SM and memory counters sum to the device's.
    for (const auto &group : {entries_of_group(2), entries_of_group(3)})
        for (const Entry &e : group) {
            uint64_t sum = 0;
            for (const auto &sm : json.at("sms"))
                sum += sm.at(e.name).get<uint64_t>();
            EXPECT_EQ(sum, own[simtgpu_sim_counter_index(e.name.c_str())]) << e.name;
        }
    // ABI 4's named fields are the counters of the same name.
    EXPECT_EQ(s.thread_instructions, own[SIMTGPU_COUNTER_thread_instructions]);
    EXPECT_EQ(s.cycles, own[SIMTGPU_COUNTER_cycles]);
    EXPECT_EQ(s.barrier_waits, own[SIMTGPU_COUNTER_barrier_waits]);
    // Derived figures: the JSON's are the header's function of the counters.
    EXPECT_DOUBLE_EQ(json.at("ipc").get<double>(), double(own[SIMTGPU_COUNTER_warp_instructions]) /
                                                       double(own[SIMTGPU_COUNTER_sm_busy_cycles]));
    EXPECT_DOUBLE_EQ(s.ipc, json.at("ipc").get<double>());
}

TEST_P(KnownKernel, CountsWhatTheKernelsCodeMakes) {
    run();
    const simtgpu_sim_stats s = h.stats();
    const uint32_t warp_size = h.reg(SIMTGPU_REG_WARP_SIZE);
    const Expected e = expected_counters(warp_size);
    const uint64_t *c = s.counters;
    EXPECT_EQ(c[SIMTGPU_COUNTER_launches], 1u);
    EXPECT_EQ(c[SIMTGPU_COUNTER_ctas], kCtas);
    EXPECT_EQ(c[SIMTGPU_COUNTER_thread_instructions], e.thread_instructions);
    EXPECT_EQ(c[SIMTGPU_COUNTER_warp_instructions], e.warp_instructions);
    EXPECT_EQ(c[SIMTGPU_COUNTER_mem_reads], e.mem_reads);
    EXPECT_EQ(c[SIMTGPU_COUNTER_mem_writes], e.mem_writes);
    EXPECT_EQ(c[SIMTGPU_COUNTER_branches], e.branches);
    EXPECT_EQ(c[SIMTGPU_COUNTER_divergent_branches], e.divergent);
    EXPECT_EQ(c[SIMTGPU_COUNTER_exceptions], 0u);
    EXPECT_GT(c[SIMTGPU_COUNTER_cycles], 0u);
    EXPECT_LE(c[SIMTGPU_COUNTER_sm_busy_cycles], c[SIMTGPU_COUNTER_cycles] * s.num_sms);
    // Branch efficiency: all but the two divergent branches of each CTA.
    EXPECT_DOUBLE_EQ(
        simtgpu_derived_value(SIMTGPU_DERIVED_branch_efficiency, c, s.warps_per_sm, s.clock_khz),
        100.0 * double(e.branches - e.divergent) / double(e.branches));
    EXPECT_DOUBLE_EQ(simtgpu_derived_value(SIMTGPU_DERIVED_threads_per_instruction, c,
                                           s.warps_per_sm, s.clock_khz),
                     double(e.thread_instructions) / double(e.warp_instructions));
    const double occupancy =
        simtgpu_derived_value(SIMTGPU_DERIVED_achieved_occupancy, c, s.warps_per_sm, s.clock_khz);
    EXPECT_GT(occupancy, 0.0);
    EXPECT_LE(occupancy, 100.0);
    // Presets select the timing model once their files can (docs/timing.md).
    if (sim::device_of(h.sim).config().model == sim::Model::functional) {
        // No memory system: its counters and the stall reasons stay zero.
        for (const char *name : {"l1_sector_hits", "dram_read_bytes", "stall_long_scoreboard"})
            EXPECT_EQ(c[simtgpu_sim_counter_index(name)], 0u) << name;
    } else {
        // Each thread's two parameter loads and thread 0's stores reach L1/L2.
        EXPECT_GT(c[SIMTGPU_COUNTER_l1_sector_hits] + c[SIMTGPU_COUNTER_l1_sector_misses], 0u);
        EXPECT_GT(c[SIMTGPU_COUNTER_l2_sector_hits] + c[SIMTGPU_COUNTER_l2_sector_misses], 0u);
        EXPECT_GT(c[SIMTGPU_COUNTER_stall_long_scoreboard], 0u);
    }
}

TEST_P(KnownKernel, AnAbi4SizedStructGetsItsFieldsOnly) {
    run();
    simtgpu_sim_stats s;
    std::memset(&s, 0xab, sizeof s);
    s.struct_size = offsetof(simtgpu_sim_stats, num_counters); // ABI 4's size
    ASSERT_EQ(simtgpu_sim_get_stats(h.sim, &s), 0);
    EXPECT_EQ(s.launches, 1u);
    EXPECT_EQ(s.ctas, kCtas);
    EXPECT_EQ(s.num_counters, 0xababababu) << "beyond the caller's struct_size: untouched";
    EXPECT_EQ(s.counters[0], 0xababababababababull);
    // One with room for only the first three counters says so.
    s.struct_size = uint32_t(offsetof(simtgpu_sim_stats, counters) + 3 * 8);
    ASSERT_EQ(simtgpu_sim_get_stats(h.sim, &s), 0);
    EXPECT_EQ(s.num_counters, 3u);
    EXPECT_EQ(s.counters[SIMTGPU_COUNTER_launches], 1u);
    EXPECT_EQ(s.counters[3], 0xababababababababull);
}

INSTANTIATE_TEST_SUITE_P(Models, KnownKernel, ::testing::Values("functional", "teaching"),
                         [](const auto &info) { return std::string(info.param); });

} // namespace
