// MemoryConfig::from_json: the documented defaults, the format of
// docs/timing-memory.md, and an error naming the field for each bad input.
#include "mem/memory_config.h"
#include "mem/memory_system.h"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

namespace simtgpu::sim::mem {
namespace {

using nlohmann::json;

std::string refusal(const json &memory) {
    auto r = MemoryConfig::from_json(memory, "test.json");
    EXPECT_FALSE(r) << memory.dump();
    return r ? std::string() : r.error();
}

TEST(MemConfig, AnEmptyObjectIsAV100) {
    auto r = MemoryConfig::from_json(json::object(), "test.json");
    ASSERT_TRUE(r) << r.error();
    EXPECT_EQ(r->l1.size_bytes, 128u << 10);
    EXPECT_EQ(r->l1.hit_latency, 28u);
    EXPECT_EQ(r->l2.size_bytes, 6u << 20);
    EXPECT_EQ(r->l2.hit_latency, 212u);
    EXPECT_EQ(r->dram.latency, 460u);
    EXPECT_EQ(r->dram.bandwidth_gbps, 900);
    EXPECT_EQ(r->dram.scheduler, DramScheduler::fr_fcfs);
    EXPECT_EQ(r->sectors_per_line(), 4u);
}

TEST(MemConfig, ReadsEveryFieldOfTheAgreedFormat) {
    json memory = json::parse(R"({
        "l1": {"size_bytes": 65536, "assoc": 8, "line_bytes": 128, "sector_bytes": 32,
               "mshrs": 64, "mshr_merge": 4, "hit_latency": 30, "write_policy": "write-evict"},
        "shared": {"banks": 16, "bank_bytes": 8, "latency": 24},
        "l2": {"size_bytes": 4194304, "assoc": 8, "slices": 16, "hit_latency": 180},
        "dram": {"channels": 4, "bus_width_bits": 256, "clock_khz": 1750000,
                 "bandwidth_gbps": 448.5, "latency": 400, "row_bytes": 1024,
                 "banks_per_channel": 8, "t_rcd": 10, "t_rp": 11, "scheduler": "fcfs"}
    })");
    auto r = MemoryConfig::from_json(memory, "test.json");
    ASSERT_TRUE(r) << r.error();
    EXPECT_EQ(r->l1.size_bytes, 65536u);
    EXPECT_EQ(r->l1.assoc, 8u);
    EXPECT_EQ(r->l1.mshrs, 64u);
    EXPECT_EQ(r->l1.mshr_merge, 4u);
    EXPECT_EQ(r->l1.hit_latency, 30u);
    EXPECT_EQ(r->l1.write_policy, L1WritePolicy::write_evict);
    EXPECT_EQ(r->shared.banks, 16u);
    EXPECT_EQ(r->shared.bank_bytes, 8u);
    EXPECT_EQ(r->shared.latency, 24u);
    EXPECT_EQ(r->l2.size_bytes, 4194304u);
    EXPECT_EQ(r->l2.assoc, 8u);
    EXPECT_EQ(r->l2.slices, 16u);
    EXPECT_EQ(r->l2.hit_latency, 180u);
    EXPECT_EQ(r->dram.channels, 4u);
    EXPECT_EQ(r->dram.bus_width_bits, 256u);
    EXPECT_EQ(r->dram.clock_khz, 1750000u);
    EXPECT_EQ(r->dram.bandwidth_gbps, 448.5);
    EXPECT_EQ(r->dram.latency, 400u);
    EXPECT_EQ(r->dram.row_bytes, 1024u);
    EXPECT_EQ(r->dram.banks_per_channel, 8u);
    EXPECT_EQ(r->dram.t_rcd, 10u);
    EXPECT_EQ(r->dram.t_rp, 11u);
    EXPECT_EQ(r->dram.scheduler, DramScheduler::fcfs);
    EXPECT_STREQ(to_string(r->dram.scheduler), "fcfs");
    EXPECT_STREQ(to_string(r->l1.write_policy), "write-evict");
}

TEST(MemConfig, UnknownFieldsSuggestTheClosestName) {
    EXPECT_EQ(refusal({{"l1", {{"sise_bytes", 1}}}}),
              "test.json: memory.l1.sise_bytes: unknown field; did you mean size_bytes?");
    EXPECT_EQ(refusal({{"dram", {{"sheduler", "fcfs"}}}}),
              "test.json: memory.dram.sheduler: unknown field; did you mean scheduler?");
    EXPECT_EQ(refusal({{"l3", json::object()}}),
              "test.json: memory.l3: unknown field; did you mean l1?");
    std::string far = refusal({{"texture", json::object()}});
    EXPECT_NE(far.find("memory.texture: unknown field; known fields are \"l1\", \"shared\""),
              std::string::npos)
        << far;
}

TEST(MemConfig, OutOfRangeValuesNameFieldValueAndRange) {
    EXPECT_EQ(refusal({{"l1", {{"assoc", 0}}}}),
              "test.json: memory.l1.assoc: 0 is out of range: allowed 1..64");
    EXPECT_EQ(refusal({{"shared", {{"banks", 65}}}}),
              "test.json: memory.shared.banks: 65 is out of range: allowed 1..64");
    std::string bw = refusal({{"dram", {{"bandwidth_gbps", 0}}}});
    EXPECT_NE(bw.find("memory.dram.bandwidth_gbps: 0 is out of range"), std::string::npos) << bw;
}

TEST(MemConfig, WrongTypesAreNamed) {
    EXPECT_EQ(refusal({{"l1", {{"mshrs", "many"}}}}),
              "test.json: memory.l1.mshrs: expected an unsigned integer, got \"many\"");
    EXPECT_EQ(refusal({{"l2", {{"slices", -4}}}}),
              "test.json: memory.l2.slices: expected an unsigned integer, got -4");
    EXPECT_EQ(refusal({{"l2", 3}}), "test.json: memory.l2: expected an object, got 3");
    EXPECT_EQ(refusal(json::array()), "test.json: memory: expected an object, got []");
    EXPECT_EQ(refusal({{"dram", {{"scheduler", "random"}}}}),
              "test.json: memory.dram.scheduler: \"random\" is not one of \"fcfs\", \"fr-fcfs\"");
    EXPECT_EQ(refusal({{"l1", {{"write_policy", "write-back"}}}}),
              "test.json: memory.l1.write_policy: \"write-back\" is not one of "
              "\"write-through-no-allocate\", \"write-evict\"");
}

TEST(MemConfig, FieldsThatMustAgree) {
    auto expect_names = [](const json &memory, std::initializer_list<const char *> fields) {
        std::string e = refusal(memory);
        for (const char *field : fields)
            EXPECT_NE(e.find(field), std::string::npos) << field << " in " << e;
    };
    expect_names({{"l2", {{"hit_latency", 28}}}},
                 {"memory.l2.hit_latency", "memory.l1.hit_latency"});
    // An answer from L2 must take two cycles or more back: the engine's quanta are half that.
    expect_names({{"l2", {{"hit_latency", 29}}}},
                 {"memory.l2.hit_latency = 29", "at least memory.l1.hit_latency + 2 = 30"});
    EXPECT_TRUE(MemoryConfig::from_json(json{{"l2", {{"hit_latency", 30}}}}, "test.json"));
    expect_names({{"dram", {{"latency", 200}}}}, {"memory.dram.latency", "memory.l2.hit_latency"});
    expect_names({{"l2", {{"slices", 12}}}}, {"memory.l2.slices = 12", "power of two"});
    expect_names({{"l2", {{"slices", 4}}}}, {"memory.l2.slices = 4", "memory.dram.channels = 8"});
    expect_names({{"l1", {{"size_bytes", 3000}}}}, {"memory.l1.size_bytes = 3000"});
    expect_names({{"l1", {{"sector_bytes", 8}}}}, {"memory.l1.line_bytes", "1..8 sectors"});
    expect_names({{"dram", {{"row_bytes", 64}}}}, {"memory.dram.row_bytes = 64"});
    expect_names({{"dram", {{"banks_per_channel", 6}}}}, {"memory.dram.banks_per_channel"});
}

TEST(MemConfig, TheSystemRefusesADramLatencyItCannotMeet) {
    // 213 cycles leave one for a row activation and a burst: too few.
    auto config = MemoryConfig::from_json({{"dram", {{"latency", 213}}}}, "test.json");
    ASSERT_TRUE(config) << config.error();
    auto system = MemorySystem::create(*config, 4, 1530000);
    ASSERT_FALSE(system);
    EXPECT_NE(system.error().find("memory.dram.latency = 213"), std::string::npos)
        << system.error();
    EXPECT_FALSE(MemorySystem::create(MemoryConfig{}, 0, 1530000));
    EXPECT_TRUE(MemorySystem::create(MemoryConfig{}, 80, 1530000));
}

} // namespace
} // namespace simtgpu::sim::mem
