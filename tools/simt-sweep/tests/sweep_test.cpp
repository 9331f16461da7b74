// The sweep model: parsing (errors name the field), expansion into points,
// each point's configuration file, lookups and the table's quoting.
#include "sweep.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>

namespace simtgpu::sweep {
namespace {

using json = nlohmann::json;

// The fake program beside the tests stands for any executable.
Resolver resolver() {
    return Resolver{FAKE_PROGRAM_DIR};
}

json minimal() {
    return json::parse(R"({"programs": [{"name": "a", "path": "fake_program"}]})");
}

std::string parse_error(const json &doc) {
    auto s = parse_sweep(doc, "/tmp/sweep.json", resolver());
    return s ? std::string("(parsed)") : s.error();
}

TEST(SweepParse, UnknownTopFieldNamesItAndSuggests) {
    json doc = minimal();
    doc["paramters"] = json::object();
    const std::string e = parse_error(doc);
    EXPECT_NE(e.find("sweep.json: paramters: unknown field"), std::string::npos) << e;
    EXPECT_NE(e.find("did you mean parameters?"), std::string::npos) << e;
}

TEST(SweepParse, ProgramFieldsAreNamedWithTheirIndex) {
    json doc = minimal();
    doc["programs"].push_back({{"name", "b"}, {"path", "fake_program"}, {"kind", "ptx"}});
    EXPECT_NE(parse_error(doc).find("programs[1].kind: 'ptx' is not a program kind"),
              std::string::npos)
        << parse_error(doc);
    doc["programs"][1] = {{"name", "b"}, {"path", "no-such-program-anywhere"}};
    EXPECT_NE(parse_error(doc).find("programs[1].path: 'no-such-program-anywhere' is not an "
                                    "executable file"),
              std::string::npos)
        << parse_error(doc);
    doc["programs"][1] = {{"name", "b"}, {"path", "fake_program"}, {"size", -4}};
    EXPECT_NE(parse_error(doc).find("programs[1].size: must be a non-negative integer"),
              std::string::npos);
    doc["programs"][1] = {{"name", "a"}, {"path", "fake_program"}};
    EXPECT_NE(parse_error(doc).find("programs[1].name: 'a' names two programs"), std::string::npos);
    doc["programs"][1] = {{"nme", "b"}, {"path", "fake_program"}};
    EXPECT_NE(parse_error(doc).find("programs[1].nme: unknown field; did you mean name?"),
              std::string::npos)
        << parse_error(doc);
}

TEST(SweepParse, ParameterErrorsNameTheParameter) {
    json doc = minimal();
    doc["parameters"] = {{"memory.L1.size_bytes", {1}}};
    EXPECT_NE(parse_error(doc).find("parameters.memory.L1.size_bytes: 'memory.L1.size_bytes' is "
                                    "not a dotted configuration path"),
              std::string::npos)
        << parse_error(doc);
    doc["parameters"] = {{"warps_per_sm", json::array()}};
    EXPECT_NE(parse_error(doc).find("parameters.warps_per_sm: must be a non-empty array"),
              std::string::npos);
    doc["parameters"] = {{"warps_per_sm", {8, json::object()}}};
    EXPECT_NE(parse_error(doc).find("parameters.warps_per_sm[1]: the value of warps_per_sm must "
                                    "be a string, number or boolean"),
              std::string::npos)
        << parse_error(doc);
    doc["parameters"] = {{"warps_per_sm", {8}}};
    doc["points"] = json::array({json::object()});
    EXPECT_NE(parse_error(doc).find("parameters and points: give one"), std::string::npos);
    doc.erase("parameters");
    doc["points"] = json::array({{{"warp_scheduler", "gto"}}, 3});
    EXPECT_NE(parse_error(doc).find("points[1]: must be an object"), std::string::npos);
    doc["points"] = minimal()["programs"];
    doc["points"] = json::array({{{"program.size", "big"}}});
    EXPECT_NE(parse_error(doc).find("points[0].program.size: program.size must be a "
                                    "non-negative integer"),
              std::string::npos)
        << parse_error(doc);
}

TEST(SweepParse, BaseAndStatisticsAndTimeout) {
    json doc = minimal();
    doc["base"] = "configs/missing.json";
    EXPECT_NE(parse_error(doc).find("base: /tmp/configs/missing.json is not a file"),
              std::string::npos)
        << parse_error(doc);
    doc["base"] = "teaching";
    doc["statistics"] = {"total.device_cycles", 4};
    EXPECT_NE(parse_error(doc).find("statistics[1]: must be a non-empty string"),
              std::string::npos);
    doc["statistics"] = {"total.device_cycles"};
    doc["timeout_s"] = 0;
    EXPECT_NE(parse_error(doc).find("timeout_s: must be a positive number"), std::string::npos);
    doc.erase("timeout_s");
    auto s = parse_sweep(doc, "/tmp/sweep.json", resolver());
    ASSERT_TRUE(s) << s.error();
    EXPECT_EQ(s->base, "teaching");
    EXPECT_EQ(s->statistics, std::vector<std::string>{"total.device_cycles"});
    EXPECT_EQ(s->name, "sweep");
}

TEST(SweepExpand, ProductIsEveryCombinationForEveryProgram) {
    json doc = minimal();
    doc["programs"].push_back({{"name", "b"}, {"path", "fake_program"}});
    doc["programs"].push_back({{"name", "c"}, {"path", "fake_program"}});
    doc["parameters"] = {{"warp_scheduler", {"round-robin", "oldest-first", "two-level"}},
                         {"warps_per_sm", {8, 16, 32, 64}},
                         {"memory.l1.size_bytes", {16384, 131072}}};
    auto s = parse_sweep(doc, "/tmp/sweep.json", resolver());
    ASSERT_TRUE(s) << s.error();
    const auto points = s->points();
    ASSERT_EQ(points.size(), size_t(3 * 3 * 4 * 2));
    // Each (program, scheduler, warps, l1) combination exactly once.
    std::set<std::string> combos, ids;
    for (const auto &p : points) {
        combos.insert(s->program_of(p).name + p.parameters.dump());
        ids.insert(p.id);
        EXPECT_EQ(p.parameters.size(), 3u);
    }
    EXPECT_EQ(combos.size(), points.size());
    EXPECT_EQ(ids.size(), points.size());
}

TEST(SweepExpand, ListOfPointsKeepsEachAsGiven) {
    json doc = minimal();
    doc["points"] = json::array({{{"warp_scheduler", "two-level"}, {"warps_per_sm", 8}},
                                 {{"memory.dram.scheduler", "fcfs"}},
                                 {{"program.size", 4096}}});
    auto s = parse_sweep(doc, "/tmp/sweep.json", resolver());
    ASSERT_TRUE(s) << s.error();
    const auto points = s->points();
    ASSERT_EQ(points.size(), 3u);
    EXPECT_EQ(s->parameters, (std::vector<std::string>{"warp_scheduler", "warps_per_sm",
                                                       "memory.dram.scheduler", "program.size"}));
    EXPECT_EQ(point_config(*s, points[0]).dump(),
              R"({"base":"functional","warp_scheduler":"two-level","warps_per_sm":8})");
    EXPECT_EQ(point_config(*s, points[1]).dump(),
              R"({"base":"functional","memory":{"dram":{"scheduler":"fcfs"}}})");
    // program.size is the program's input size, not a configuration field.
    EXPECT_EQ(point_config(*s, points[2]).dump(), R"({"base":"functional"})");
    EXPECT_EQ(points[2].size, 4096u);
}

TEST(SweepExpand, ConfigNestsDottedPathsAndSubstitutesSize) {
    json doc = minimal();
    doc["base"] = "volta";
    doc["programs"][0]["args"] = {"--n", "{size}", 3, "x{size}y"};
    doc["programs"][0]["size"] = 100;
    doc["parameters"] = {{"memory.l1.size_bytes", {32768}},
                         {"memory.l1.assoc", {8}},
                         {"timing.schedulers_per_sm", {2}}};
    auto s = parse_sweep(doc, "/tmp/sweep.json", resolver());
    ASSERT_TRUE(s) << s.error();
    const auto points = s->points();
    ASSERT_EQ(points.size(), 1u);
    const auto config = point_config(*s, points[0]);
    EXPECT_EQ(config["base"], "volta");
    EXPECT_EQ(config["memory"]["l1"]["size_bytes"], 32768);
    EXPECT_EQ(config["memory"]["l1"]["assoc"], 8);
    EXPECT_EQ(config["timing"]["schedulers_per_sm"], 2);
    EXPECT_EQ(point_args(*s, points[0]), (std::vector<std::string>{"--n", "100", "3", "x100y"}));
}

TEST(SweepExpand, IdsDoNotChangeWhenValuesAreAdded) {
    json doc = minimal();
    doc["parameters"] = {{"warps_per_sm", {8, 16}}};
    auto before = parse_sweep(doc, "/tmp/sweep.json", resolver());
    doc["parameters"] = {{"warps_per_sm", {4, 8, 16, 32}}};
    auto after = parse_sweep(doc, "/tmp/sweep.json", resolver());
    ASSERT_TRUE(before && after);
    std::set<std::string> ids_after;
    for (const auto &p : after->points())
        ids_after.insert(p.id);
    for (const auto &p : before->points())
        EXPECT_TRUE(ids_after.count(p.id)) << p.id;
}

TEST(SweepStats, LookupFollowsObjectsAndArrays) {
    const json doc = json::parse(R"({"total": {"cycles": 5}, "sms": [{"busy": 1}, {"busy": 2}]})");
    EXPECT_EQ(*lookup(doc, "total.cycles"), 5);
    EXPECT_EQ(*lookup(doc, "sms.1.busy"), 2);
    EXPECT_FALSE(lookup(doc, "sms.2.busy"));
    EXPECT_FALSE(lookup(doc, "total.instructions"));
    EXPECT_EQ(numeric_leaves(doc),
              (std::vector<std::string>{"sms.0.busy", "sms.1.busy", "total.cycles"}));
}

TEST(SweepTable, FieldsAreQuotedAsRfc4180) {
    EXPECT_EQ(csv_field("plain"), "plain");
    EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
    EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
}

#ifdef SWEEP_EXAMPLES_BIN_DIR
// The shipped example: every program it names is built, and it expands to
// every program on every combination of its parameters.
TEST(SweepExample, SchedulersSweepLoadsAndExpands) {
    const std::string file = std::string(SWEEP_EXAMPLES_DIR) + "/schedulers.json";
    auto s = load_sweep(file, Resolver{SWEEP_EXAMPLES_BIN_DIR});
    ASSERT_TRUE(s) << s.error();
    std::ifstream in(file);
    const json doc = json::parse(in, nullptr, true, true);
    size_t combinations = 1;
    for (const auto &[name, values] : doc["parameters"].items())
        combinations *= values.size();
    EXPECT_EQ(s->points().size(), doc["programs"].size() * combinations);
    EXPECT_EQ(s->base, doc["base"]);
}
#endif

} // namespace
} // namespace simtgpu::sweep
