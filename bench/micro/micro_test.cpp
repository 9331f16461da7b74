// The microbenchmarks of bench/micro under the `volta` preset, against the
// figures published for a real V100 (not against our own output):
//   Jia, Maggioni, Staiger, Scarpazza, "Dissecting the NVIDIA Volta GPU
//   Architecture via Microbenchmarking", arXiv:1804.06826, 2018: L1 hit 28
//   cycles, dependent FFMA 4 cycles;
//   Accel-Sim's tuned QV100 configuration (Khairy et al., ISCA 2020) and the
//   microbenchmark studies it was tuned against: L2 hit about 212 cycles,
//   DRAM about 460, shared memory 20;
//   NVIDIA's Volta whitepaper (WP-08608-001): 64 FP32 lanes per SM in 4
//   processing blocks, so an independent warp FFMA every 2 cycles per
//   scheduler; 32 shared-memory banks of 4 bytes.
// Latencies must be within 10% of these; the bank-conflict, latency-hiding
// and bandwidth figures are ratios that follow from the hardware's rules
// (docs/timing.md, "Validation").
#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct MicroRun {
    int status = -1;
    std::string output;
    std::map<std::string, double> figures; // "micro: NAME VALUE ..." lines
};

// Runs a shell command line; its status and output (stdout and stderr).
MicroRun run_command(const std::string &command) {
    MicroRun r;
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

std::string read_text(const std::filesystem::path &p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// Runs BUILD/bin/micro-NAME under a preset on the in-process transport. A
// timing simulation of a STREAM copy takes longer than the driver's default
// 20 s job timeout on a loaded machine; ctest's timeout bounds the test.
MicroRun run_micro(const std::string &name, const std::string &preset = "volta") {
    const std::string command =
        "SIMTGPU_TRANSPORT=sim SIMTGPU_JOB_TIMEOUT_MS=600000 SIMTGPU_SIM_CONFIG=" + preset + " " +
        MICRO_BIN_DIR "/micro-" + name + " 2>&1";
    MicroRun r;
    FILE *p = popen(command.c_str(), "r");
    if (!p)
        return r;
    char buf[4096];
    for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;)
        r.output.append(buf, n);
    const int status = pclose(p);
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    static const std::regex line(R"(^micro: (\S+)\s+(-?[0-9.]+))");
    std::istringstream in(r.output);
    for (std::string l; std::getline(in, l);) {
        std::smatch m;
        if (std::regex_search(l, m, line))
            r.figures[m[1]] = std::stod(m[2]);
    }
    return r;
}

// The program passed its own check of the work it timed, and printed `names`.
void expect_ran(const MicroRun &r, const std::string &program,
                std::initializer_list<const char *> names) {
    EXPECT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find(program + ": PASS"), std::string::npos) << r.output;
    for (const char *n : names)
        EXPECT_TRUE(r.figures.count(n)) << n << " missing from:\n" << r.output;
}

// A figure's value; NaN (which fails every comparison) when it is missing.
double figure(const MicroRun &r, const std::string &name) {
    const auto it = r.figures.find(name);
    return it == r.figures.end() ? std::nan("") : it->second;
}

void expect_within_10_percent(const MicroRun &r, const char *name, double published) {
    const double measured = figure(r, name);
    EXPECT_NEAR(measured, published, 0.1 * published)
        << name << ": measured " << measured << ", published " << published << "\n"
        << r.output;
}

TEST(MicroVolta, LoadLatencies) {
    const MicroRun r = run_micro("latency");
    expect_ran(r, "latency",
               {"l1_hit_latency", "l2_hit_latency", "dram_latency", "shared_latency"});
    expect_within_10_percent(r, "l1_hit_latency", 28);
    expect_within_10_percent(r, "l2_hit_latency", 212);
    expect_within_10_percent(r, "dram_latency", 460);
    expect_within_10_percent(r, "shared_latency", 20);
}

TEST(MicroVolta, Ffma) {
    const MicroRun r = run_micro("ffma");
    expect_ran(r, "ffma", {"ffma_dependent", "ffma_independent"});
    expect_within_10_percent(r, "ffma_dependent", 4);
    expect_within_10_percent(r, "ffma_independent", 32.0 / 16); // 32 lanes on 16 FP32 lanes
}

// 32 banks of 4 bytes: a stride-2 warp access needs 2 bank passes, a
// stride-32 one 32, a broadcast 1, as a stride-1 one.
TEST(MicroVolta, SharedBankConflicts) {
    const MicroRun r = run_micro("shared_banks");
    expect_ran(r, "shared_banks",
               {"shared_stride1", "shared_stride2", "shared_stride32", "shared_broadcast"});
    const double one = figure(r, "shared_stride1");
    ASSERT_GT(one, 0);
    EXPECT_NEAR(figure(r, "shared_stride2") / one, 2, 0.2) << r.output;
    EXPECT_GE(figure(r, "shared_stride32") / one, 16) << r.output;
    EXPECT_NEAR(figure(r, "shared_broadcast") / one, 1, 0.1) << r.output;
}

// One SM's 16 warps chasing DRAM overlap their waits: about the time of one.
TEST(MicroVolta, LatencyHiding) {
    const MicroRun r = run_micro("latency_hiding");
    expect_ran(r, "latency_hiding",
               {"dram_chase_1_warp", "dram_chase_16_warps", "latency_hiding_ratio"});
    EXPECT_GT(figure(r, "latency_hiding_ratio"), 0.9) << r.output;
    EXPECT_LT(figure(r, "latency_hiding_ratio"), 1.25) << r.output;
    // And one warp's loads each take a DRAM latency.
    EXPECT_NEAR(figure(r, "dram_chase_1_warp") / 256, 460, 46) << r.output;
}

// A STREAM copy reaches 60-100% of the bandwidth the preset configures.
TEST(MicroVolta, StreamCopyBandwidth) {
    std::ifstream in(MICRO_PRESET_DIR "/volta.json");
    ASSERT_TRUE(in) << MICRO_PRESET_DIR "/volta.json";
    const auto preset = nlohmann::json::parse(in, nullptr, true, /*ignore_comments=*/true);
    const double configured = preset.at("memory").at("dram").at("bandwidth_gbps").get<double>();
    const MicroRun r = run_micro("stream_copy");
    expect_ran(r, "stream_copy", {"stream_copy"});
    const double achieved = figure(r, "stream_copy");
    EXPECT_GE(achieved, 0.6 * configured) << r.output;
    EXPECT_LE(achieved, configured) << r.output;
}

// The shipped example sweep (examples/sweeps/schedulers.json, through
// simt-sweep): the example kernels under every warp scheduler and three
// occupancies on `teaching`. The order in which warps issue must not change
// what a program computes, and must change how long it takes.
// A program's output without the lines that report clock64() figures
// (divergence prints the cycles each path took: they are timing, not results).
std::string without_cycle_lines(const std::string &text) {
    std::stringstream in(text);
    std::string out;
    for (std::string line; std::getline(in, line);)
        if (line.find("cycles") == std::string::npos)
            out += line + "\n";
    return out;
}

TEST(MicroSchedulers, SameResultsDifferentCycles) {
    namespace fs = std::filesystem;
    const fs::path out = fs::path(::testing::TempDir()) / "micro-schedulers.sweep";
    fs::remove_all(out);
    const MicroRun sweep = run_command(
        MICRO_BIN_DIR "/simt-sweep " MICRO_SWEEPS_DIR "/schedulers.json -j 2 -o " + out.string());
    ASSERT_EQ(sweep.status, 0) << sweep.output;

    std::ifstream csv(out / "results.csv");
    std::vector<std::string> header;
    std::map<std::string, std::map<std::string, std::string>> rows_by_point;
    struct Group {
        std::set<std::string> cycles, outputs, instructions;
    };
    std::map<std::string, Group> by_program;                           // every point of a program
    std::map<std::pair<std::string, std::string>, Group> by_occupancy; // program, warps/SM
    size_t rows = 0;
    for (std::string line; std::getline(csv, line);) {
        std::vector<std::string> cells;
        std::stringstream cell(line);
        for (std::string c; std::getline(cell, c, ',');)
            cells.push_back(c);
        if (header.empty()) {
            header = cells;
            continue;
        }
        std::map<std::string, std::string> row;
        for (size_t i = 0; i < header.size() && i < cells.size(); ++i)
            row[header[i]] = cells[i];
        ++rows;
        ASSERT_EQ(row["status"], "ok") << line;
        const std::string stdout_text =
            without_cycle_lines(read_text(out / "points" / row["point"] / "stdout.txt"));
        EXPECT_NE(stdout_text.find(row["program"] + ": PASS"), std::string::npos) << stdout_text;
        for (Group *g :
             {&by_program[row["program"]], &by_occupancy[{row["program"], row["warps_per_sm"]}]}) {
            g->cycles.insert(row["total.device_cycles"]);
            g->outputs.insert(stdout_text);
            g->instructions.insert(row["total.thread_instructions"]);
        }
    }
    EXPECT_EQ(rows, 5u * 4 * 3) << read_text(out / "results.csv");
    for (const auto &[program, g] : by_program) {
        // The same work and the same printed results whatever the scheduler.
        EXPECT_EQ(g.instructions.size(), 1u) << program;
        EXPECT_EQ(g.outputs.size(), 1u) << program;
    }
    // The schedulers take different times, except where they have no choice:
    // divergence launches a single warp.
    for (const auto &[key, g] : by_occupancy) {
        if (key.first == "divergence")
            EXPECT_EQ(g.cycles.size(), 1u) << "one warp, at " << key.second << " warps/SM";
        else
            EXPECT_GE(g.cycles.size(), 2u) << key.first << " at " << key.second << " warps/SM";
    }
}

} // namespace
