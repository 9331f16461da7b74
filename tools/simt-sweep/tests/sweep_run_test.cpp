// simt-sweep run end to end on fake_program (whose statistics follow a known
// formula of the point's configuration): every point runs once, the table
// has a row per point and a column per statistic with the formula's values,
// resume skips done points, failing and hanging points are recorded while
// the others finish, ELFs go through simt-run --config --stats, and the plots
// come out as PNG and SVG.
#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

struct Outcome {
    int status = -1;
    std::string output;
};

Outcome run_command(const std::string &command) {
    Outcome r;
    FILE *p = popen((command + " 2>&1").c_str(), "r");
    if (!p)
        return r;
    char buf[4096];
    for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;)
        r.output.append(buf, n);
    const int status = pclose(p);
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

std::string read_text(const fs::path &p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// RFC 4180 rows as maps from column name to cell.
std::vector<std::map<std::string, std::string>> read_csv(const fs::path &p,
                                                         std::vector<std::string> *header) {
    const std::string text = read_text(p);
    std::vector<std::vector<std::string>> rows(1, std::vector<std::string>(1));
    bool quoted = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted) {
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"')
                rows.back().back() += '"', ++i;
            else if (c == '"')
                quoted = false;
            else
                rows.back().back() += c;
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            rows.back().emplace_back();
        } else if (c == '\n') {
            rows.emplace_back(1);
        } else {
            rows.back().back() += c;
        }
    }
    rows.pop_back(); // after the last newline
    *header = rows.front();
    std::vector<std::map<std::string, std::string>> out;
    for (size_t r = 1; r < rows.size(); ++r) {
        EXPECT_EQ(rows[r].size(), header->size()) << "row " << r;
        std::map<std::string, std::string> row;
        for (size_t c = 0; c < header->size() && c < rows[r].size(); ++c)
            row[(*header)[c]] = rows[r][c];
        out.push_back(row);
    }
    return out;
}

size_t count_lines(const fs::path &p) {
    std::ifstream in(p);
    size_t n = 0;
    for (std::string line; std::getline(in, line);)
        ++n;
    return n;
}

class SweepRun : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() /
               ("simt-sweep-test-" + std::to_string(::getpid()) + "-" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_);
        log_ = dir_ / "runs.log";
    }
    void TearDown() override {
        if (!HasFailure())
            fs::remove_all(dir_);
    }
    fs::path write_sweep(const json &doc) {
        const fs::path p = dir_ / "sweep.json";
        std::ofstream(p) << doc.dump(2);
        return p;
    }
    Outcome sweep(const std::string &args) {
        return run_command("CI=true FAKE_RUN_LOG=" + log_.string() + " " + SIMT_SWEEP + " " + args);
    }
    fs::path dir_, log_;
};

json two_programs() {
    return {
        {"name", "t"},
        {"programs",
         {{{"name", "small"}, {"path", FAKE_PROGRAM}, {"args", {"--size", "{size}"}}, {"size", 2}},
          {{"name", "large"},
           {"path", FAKE_PROGRAM},
           {"args", {"--size", "{size}"}},
           {"size", 8}}}},
        {"base", "teaching"},
        {"parameters",
         {{"warp_scheduler", {"round-robin", "two-level"}}, {"warps_per_sm", {4, 16}}}},
        {"statistics", {"total.device_cycles", "total.thread_instructions", "base"}},
    };
}

TEST_F(SweepRun, EveryPointRunsOnceAndTheTableHoldsItsStatistics) {
    const fs::path file = write_sweep(two_programs());
    const Outcome r = sweep(file.string() + " -o " + (dir_ / "out").string() + " -j 3");
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_EQ(count_lines(log_), 8u) << r.output; // 2 programs x 2 x 2
    std::vector<std::string> header;
    const auto rows = read_csv(dir_ / "out" / "results.csv", &header);
    EXPECT_EQ(header, (std::vector<std::string>{"point", "program", "size", "warp_scheduler",
                                                "warps_per_sm", "status", "error", "exit_status",
                                                "wall_s", "total.device_cycles",
                                                "total.thread_instructions", "base"}));
    ASSERT_EQ(rows.size(), 8u);
    for (const auto &row : rows) {
        EXPECT_EQ(row.at("status"), "ok") << row.at("error");
        const double size = row.at("program") == "small" ? 2 : 8;
        EXPECT_EQ(std::stod(row.at("size")), size);
        EXPECT_DOUBLE_EQ(std::stod(row.at("total.device_cycles")),
                         1000 * size / std::stod(row.at("warps_per_sm")));
        EXPECT_DOUBLE_EQ(std::stod(row.at("total.thread_instructions")), 7 * size);
        EXPECT_EQ(row.at("base"), "teaching");
        // The point's files: its configuration and its full statistics.
        const fs::path point = dir_ / "out" / "points" / row.at("point");
        const json config = json::parse(read_text(point / "config.json"));
        EXPECT_EQ(config["base"], "teaching");
        EXPECT_EQ(config["warp_scheduler"], row.at("warp_scheduler"));
        const json result = json::parse(read_text(point / "result.json"));
        EXPECT_EQ(result["statistics"]["scheduler"], row.at("warp_scheduler"));
    }
}

TEST_F(SweepRun, ResumeRunsOnlyThePointsWithoutAResult) {
    const fs::path file = write_sweep(two_programs());
    const std::string args = file.string() + " -o " + (dir_ / "out").string() + " -j 2";
    ASSERT_EQ(sweep(args).status, 0);
    ASSERT_EQ(count_lines(log_), 8u);
    const std::string table = read_text(dir_ / "out" / "results.csv");
    Outcome again = sweep(args);
    ASSERT_EQ(again.status, 0) << again.output;
    EXPECT_EQ(count_lines(log_), 8u) << "a done point ran again: " << again.output;
    EXPECT_NE(again.output.find("8 already done"), std::string::npos) << again.output;
    // A point cut short (no result.json) runs again, alone.
    std::vector<std::string> header;
    const auto rows = read_csv(dir_ / "out" / "results.csv", &header);
    fs::remove(dir_ / "out" / "points" / rows[3].at("point") / "result.json");
    ASSERT_EQ(sweep(args).status, 0);
    EXPECT_EQ(count_lines(log_), 9u);
    // The same table, bar the rerun point's wall time.
    auto without_wall = [&](const fs::path &p) {
        std::vector<std::string> h;
        auto rs = read_csv(p, &h);
        for (auto &row : rs)
            row.erase("wall_s");
        return rs;
    };
    const fs::path first = dir_ / "first.csv";
    std::ofstream(first) << table;
    EXPECT_EQ(without_wall(first), without_wall(dir_ / "out" / "results.csv"));
}

TEST_F(SweepRun, FailingAndHangingPointsAreRecordedAndTheOthersFinish) {
    json doc = two_programs();
    doc.erase("parameters");
    doc["points"] = json::array({{{"warps_per_sm", 4}},
                                 {{"fake.fail", true}},
                                 {{"fake.hang", true}},
                                 {{"warps_per_sm", 16}},
                                 {{"warps_per_sm", 8}, {"fake.ignore", true}}});
    doc["timeout_s"] = 1;
    const fs::path file = write_sweep(doc);
    const Outcome r = sweep(file.string() + " -o " + (dir_ / "out").string() + " -j 2");
    EXPECT_EQ(r.status, 1) << r.output; // some points failed
    std::vector<std::string> header;
    const auto rows = read_csv(dir_ / "out" / "results.csv", &header);
    ASSERT_EQ(rows.size(), 10u);
    size_t ok = 0, failed = 0, timeouts = 0, ignored = 0;
    for (const auto &row : rows) {
        if (row.at("fake.ignore") == "true") {
            ++ignored;
            EXPECT_EQ(row.at("status"), "failed");
            EXPECT_NE(row.at("error").find("the configuration was not applied: warps_per_sm=8 "
                                           "asked, the device reports 64"),
                      std::string::npos)
                << row.at("error");
        } else if (row.at("fake.fail") == "true") {
            ++failed;
            EXPECT_EQ(row.at("status"), "failed");
            EXPECT_EQ(row.at("exit_status"), "3");
            EXPECT_NE(row.at("error").find("exit status 3: fake_program: failing as asked"),
                      std::string::npos)
                << row.at("error");
        } else if (row.at("fake.hang") == "true") {
            ++timeouts;
            EXPECT_EQ(row.at("status"), "timeout");
            EXPECT_NE(row.at("error").find("timed out after 1 s"), std::string::npos);
            EXPECT_LT(std::stod(row.at("wall_s")), 10.0);
        } else {
            ++ok;
            EXPECT_EQ(row.at("status"), "ok");
        }
    }
    EXPECT_EQ(ok, 4u);
    EXPECT_EQ(failed, 2u);
    EXPECT_EQ(timeouts, 2u);
    EXPECT_EQ(ignored, 2u);
    // Failed points are done too, unless asked to run them again.
    const size_t runs = count_lines(log_);
    sweep(file.string() + " -o " + (dir_ / "out").string());
    EXPECT_EQ(count_lines(log_), runs);
    sweep(file.string() + " -o " + (dir_ / "out").string() + " --rerun-failed -j 4");
    EXPECT_EQ(count_lines(log_), runs + 6);
}

TEST_F(SweepRun, ElfProgramsRunUnderSimtRunWithConfigAndStats) {
    // fake_program acts as simt-run: it gets --config FILE --stats ARGS ELF.
    json doc = {{"programs",
                 {{{"name", "kernel"},
                   {"kind", "elf"},
                   {"path", FAKE_PROGRAM},
                   {"args", {"--size", "{size}"}},
                   {"size", 3}}}},
                {"parameters", {{"warps_per_sm", {2, 5}}}},
                {"statistics", {"total.device_cycles"}}};
    const fs::path file = write_sweep(doc);
    const Outcome r =
        sweep(file.string() + " -o " + (dir_ / "out").string() + " --simt-run " + FAKE_PROGRAM);
    ASSERT_EQ(r.status, 0) << r.output;
    std::vector<std::string> header;
    const auto rows = read_csv(dir_ / "out" / "results.csv", &header);
    ASSERT_EQ(rows.size(), 2u);
    for (const auto &row : rows)
        EXPECT_DOUBLE_EQ(std::stod(row.at("total.device_cycles")),
                         1000 * 3 / std::stod(row.at("warps_per_sm")));
    const json result =
        json::parse(read_text(dir_ / "out" / "points" / rows[0].at("point") / "result.json"));
    const auto command = result["command"].get<std::vector<std::string>>();
    ASSERT_GE(command.size(), 5u);
    EXPECT_EQ(command[1], "--config");
    EXPECT_EQ(command[3], "--stats");
    EXPECT_EQ(command.back(), FAKE_PROGRAM);
}

TEST_F(SweepRun, BadSweepFileIsAnErrorNamingTheField) {
    json doc = two_programs();
    doc["statistcs"] = doc["statistics"];
    const Outcome r = sweep(write_sweep(doc).string());
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.output.find("sweep.json: statistcs: unknown field; did you mean statistics?"),
              std::string::npos)
        << r.output;
}

#ifdef CUDA_VECTOR_ADD
// A real CUDA program on the in-process transport: its statistics come from
// SIMTGPU_STATS. vector_add launches its kernel once.
TEST_F(SweepRun, CudaProgramsReportThroughSimtgpuStats) {
    json doc = {{"programs", {{{"name", "vector_add"}, {"path", CUDA_VECTOR_ADD}}}},
                {"points", json::array({json::object()})},
                {"statistics",
                 {"total.launches", "total.kernels", "total.device_cycles", "device.transport"}}};
    const Outcome r = sweep(write_sweep(doc).string() + " -o " + (dir_ / "out").string());
    ASSERT_EQ(r.status, 0) << r.output;
    std::vector<std::string> header;
    const auto rows = read_csv(dir_ / "out" / "results.csv", &header);
    ASSERT_EQ(rows.size(), 1u);
    EXPECT_EQ(rows[0].at("status"), "ok") << rows[0].at("error");
    EXPECT_EQ(rows[0].at("total.launches"), "1");
    EXPECT_EQ(rows[0].at("total.kernels"), "1");
    EXPECT_GT(std::stoull(rows[0].at("total.device_cycles")), 0u);
    EXPECT_EQ(rows[0].at("device.transport"), "sim");
    const std::string out = read_text(dir_ / "out" / "points" / rows[0].at("point") / "stdout.txt");
    EXPECT_NE(out.find("vector_add: PASS"), std::string::npos) << out;
}

// Each point's configuration reaches the device (SIMTGPU_SIM_CONFIG): the
// device the program saw has the preset's shape with the point's overrides.
TEST_F(SweepRun, CudaPointsGetTheirConfiguration) {
    json doc = {{"base", "volta"},
                {"programs", {{{"name", "vector_add"}, {"path", CUDA_VECTOR_ADD}}}},
                {"points", json::array({json::object(), {{"num_sms", 2}, {"warps_per_sm", 8}}})},
                {"statistics", {"device.num_sms", "device.warps_per_sm", "device.clock_khz"}}};
    const Outcome r = sweep(write_sweep(doc).string() + " -o " + (dir_ / "out").string());
    ASSERT_EQ(r.status, 0) << r.output;
    std::vector<std::string> header;
    const auto rows = read_csv(dir_ / "out" / "results.csv", &header);
    ASSERT_EQ(rows.size(), 2u);
    std::set<std::string> shapes;
    for (const auto &row : rows) {
        EXPECT_EQ(row.at("status"), "ok") << row.at("error");
        EXPECT_EQ(row.at("device.clock_khz"), "1530000"); // volta's 1530 MHz either way
        shapes.insert(row.at("device.num_sms") + "x" + row.at("device.warps_per_sm"));
    }
    EXPECT_EQ(shapes, (std::set<std::string>{"80x64", "2x8"}));
}

// The device's counters reach a sweep's table through SIMTGPU_STATS: they
// agree with the launch reports (two independent paths: the counter block
// and each job's report), and the stall reasons are counted by the timing
// model only.
TEST_F(SweepRun, CudaPointsReportTheDeviceCounters) {
    json doc = {{"programs", {{{"name", "vector_add"}, {"path", CUDA_VECTOR_ADD}}}},
                {"points", json::array({{{"model", "functional"}}, {{"model", "timing"}}})},
                {"base", "teaching"},
                {"statistics",
                 {"total.launches", "total.thread_instructions", "counters.launches",
                  "counters.thread_instructions", "counters.stall_long_scoreboard",
                  "derived.branch_efficiency"}}};
    const Outcome r = sweep(write_sweep(doc).string() + " -o " + (dir_ / "out").string());
    ASSERT_EQ(r.status, 0) << r.output;
    std::vector<std::string> header;
    const auto rows = read_csv(dir_ / "out" / "results.csv", &header);
    ASSERT_EQ(rows.size(), 2u);
    for (const auto &row : rows) {
        EXPECT_EQ(row.at("status"), "ok") << row.at("error");
        EXPECT_EQ(row.at("counters.launches"), row.at("total.launches"));
        EXPECT_EQ(row.at("counters.thread_instructions"), row.at("total.thread_instructions"));
        EXPECT_GT(std::stod(row.at("derived.branch_efficiency")), 0.0);
        const uint64_t stalls = std::stoull(row.at("counters.stall_long_scoreboard"));
        if (row.at("model") == "timing")
            EXPECT_GT(stalls, 0u);
        else
            EXPECT_EQ(stalls, 0u);
    }
}
#endif

bool starts_with(const std::string &text, const std::string &prefix) {
    return text.compare(0, prefix.size(), prefix) == 0;
}

TEST_F(SweepRun, PlotsComeOutAsPngAndSvg) {
    json doc = two_programs();
    doc["statistics"] = {"total.device_cycles", "stalls.memory", "stalls.barrier"};
    const fs::path file = write_sweep(doc);
    const fs::path out = dir_ / "out";
    ASSERT_EQ(sweep(file.string() + " -o " + out.string()).status, 0);
    const std::string csv = (out / "results.csv").string();
    const std::vector<std::pair<std::string, std::string>> plots = {
        {"line", "--stat total.device_cycles --param warps_per_sm"},
        {"speedup", "--stat total.device_cycles --param warp_scheduler --baseline round-robin"},
        {"stalls", "--param warps_per_sm --fraction"},
    };
    for (const auto &[kind, args] : plots) {
        const fs::path prefix = dir_ / kind;
        const Outcome r = sweep("plot " + kind + " " + csv + " " + args + " -o " + prefix.string());
        ASSERT_EQ(r.status, 0) << kind << ": " << r.output;
        EXPECT_TRUE(starts_with(read_text(prefix.string() + ".png"), "\x89PNG\r\n\x1a\n")) << kind;
        const std::string svg = read_text(prefix.string() + ".svg");
        EXPECT_TRUE(starts_with(svg, "<?xml")) << kind;
        EXPECT_NE(svg.find("<svg"), std::string::npos) << kind;
    }
    // Without stall columns, stalls says where they come from.
    doc["statistics"] = {"total.device_cycles"};
    ASSERT_EQ(sweep(write_sweep(doc).string() + " -o " + (dir_ / "plain").string()).status, 0);
    const Outcome r = sweep("plot stalls " + (dir_ / "plain" / "results.csv").string() +
                            " --param warps_per_sm -o " + (dir_ / "none").string());
    EXPECT_EQ(r.status, 2);
    EXPECT_NE(r.output.find("no stall-reason columns"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(dir_ / "none.png"));
    // A statistic the table lacks is named with the columns it has.
    const Outcome bad = sweep("plot line " + csv + " --stat total.cycles --param warps_per_sm -o " +
                              (dir_ / "bad").string());
    EXPECT_EQ(bad.status, 2);
    EXPECT_NE(bad.output.find("no column 'total.cycles'"), std::string::npos) << bad.output;
}

} // namespace
