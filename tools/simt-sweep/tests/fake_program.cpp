// A stand-in for a simulated program, so that the runner's tests control
// what a point does: it reads the point's configuration (SIMTGPU_SIM_CONFIG,
// or simt-run's --config when called as simt-run), and from it reports
// statistics by a known formula, fails, or hangs. Each run appends a line to
// $FAKE_RUN_LOG, so that tests count the runs.
//   cycles = 1000 * size / warps_per_sm; instructions = 7 * size
//   stalls.memory = cycles / 2, stalls.barrier = cycles / 4
//   device.warps_per_sm = warps_per_sm (64, the default, with "fake.ignore")
//   "fake.fail": true -> exit 3 after a message; "fake.hang": true -> sleeps
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>

int main(int argc, char **argv) {
    std::string config_path, size_text = "1";
    bool as_simt_run = false;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--config") == 0 && i + 1 < argc) {
            config_path = argv[++i];
            as_simt_run = true;
        } else if (std::strcmp(argv[i], "--size") == 0 && i + 1 < argc) {
            size_text = argv[++i];
        }
    }
    if (!as_simt_run) {
        const char *env = std::getenv("SIMTGPU_SIM_CONFIG");
        if (!env) {
            std::fprintf(stderr, "fake_program: SIMTGPU_SIM_CONFIG is not set\n");
            return 4;
        }
        config_path = env;
    }
    std::ifstream in(config_path);
    const nlohmann::json config = nlohmann::json::parse(in);
    if (const char *log = std::getenv("FAKE_RUN_LOG")) {
        std::ofstream out(log, std::ios::app);
        out << config.dump() << "\n";
    }
    const nlohmann::json fake = config.value("fake", nlohmann::json::object());
    if (fake.value("hang", false))
        std::this_thread::sleep_for(std::chrono::seconds(60));
    if (fake.value("fail", false)) {
        std::fprintf(stderr, "fake_program: failing as asked\n");
        return 3;
    }
    const double size = std::stod(size_text);
    const double warps = config.value("warps_per_sm", 1);
    const double cycles = 1000 * size / warps;
    nlohmann::json stats = {
        {"base", config.value("base", "")},
        {"scheduler", config.value("warp_scheduler", "none")},
        {"total", {{"device_cycles", cycles}, {"thread_instructions", 7 * size}}},
        {"stalls", {{"memory", cycles / 2}, {"barrier", cycles / 4}}},
    };
    // What a build that ignores its configuration would report.
    const int device_warps = fake.value("ignore", false) ? 64 : config.value("warps_per_sm", 64);
    if (as_simt_run)
        stats["warps_per_sm"] = device_warps;
    else
        stats["device"] = {{"warps_per_sm", device_warps}};
    if (as_simt_run) {
        std::printf("program output\n%s\n", stats.dump(2).c_str());
        return 0;
    }
    const char *stats_path = std::getenv("SIMTGPU_STATS");
    if (!stats_path) {
        std::fprintf(stderr, "fake_program: SIMTGPU_STATS is not set\n");
        return 4;
    }
    std::ofstream(stats_path) << stats.dump(2) << "\n";
    return 0;
}
