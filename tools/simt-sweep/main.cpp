// simt-sweep: runs a parameter sweep (programs x configurations) on this
// machine or as a Slurm job array, gathers each point's statistics into one
// CSV table, and plots it. docs/sweeps.md.
#include "run.h"
#include "sweep.h"

#include <sched.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace fs = std::filesystem;
using namespace simtgpu::sweep;
using simtgpu::Error;
using simtgpu::Expected;

constexpr const char *kUsage =
    "usage: simt-sweep [run] SWEEP.json [options]   run the sweep's points not yet done\n"
    "       simt-sweep gather SWEEP.json [-o DIR]    (re)write DIR/results.csv\n"
    "       simt-sweep list SWEEP.json [-o DIR]      the points, their ids and state\n"
    "       simt-sweep run-point SWEEP.json -o DIR --id ID   one point (a Slurm task)\n"
    "       simt-sweep plot KIND CSV [options]       plots (simt-sweep plot --help)\n"
    "\n"
    "Runs every program of the sweep file on every configuration point, the program\n"
    "on the in-process transport with SIMTGPU_SIM_CONFIG (CUDA programs) or under\n"
    "simt-run --config (ELFs); stores each point's statistics in DIR/points/ID/ and\n"
    "the table of all of them in DIR/results.csv. A point with a result is not run\n"
    "again: rerunning the command resumes an interrupted sweep.\n"
    "\n"
    "options:\n"
    "  -o, --output DIR    output directory (default ./NAME.sweep, NAME the sweep's)\n"
    "  -j, --jobs N        points at a time (default: the CPUs available)\n"
    "  --rerun-failed      also run again points that failed or timed out\n"
    "  --simt-run PATH     simt-run for ELF programs (default: beside simt-sweep)\n"
    "  --slurm             submit the points as a Slurm job array (sbatch) and wait\n"
    "  --sbatch-arg ARG    pass ARG to sbatch (repeatable: --sbatch-arg=--partition=x)\n"
    "  --no-wait           with --slurm: submit and return; `gather` writes the table\n"
    "  --help              show this text\n"
    "\n"
    "Exit status: 0 every point ok, 1 some failed or did not run, 2 bad usage/sweep.\n";

struct Options {
    std::string command = "run";
    std::string sweep, output, id, simt_run;
    unsigned jobs = 0;
    bool rerun_failed = false, slurm = false, wait = true;
    std::vector<std::string> sbatch_args;
};

Expected<Options> parse_args(const std::vector<std::string> &args) {
    Options o;
    size_t i = 0;
    if (i < args.size() &&
        (args[i] == "run" || args[i] == "gather" || args[i] == "list" || args[i] == "run-point"))
        o.command = args[i++];
    auto value = [&](const std::string &option) -> Expected<std::string> {
        if (i + 1 >= args.size())
            return Error{option + " needs a value"};
        return args[++i];
    };
    for (; i < args.size(); ++i) {
        const std::string &a = args[i];
        std::string inline_value;
        const size_t eq = a.find('=');
        const std::string name =
            a.rfind("--", 0) == 0 && eq != std::string::npos ? a.substr(0, eq) : a;
        const bool has_inline = name != a;
        if (has_inline)
            inline_value = a.substr(eq + 1);
        auto take = [&]() -> Expected<std::string> {
            if (has_inline)
                return inline_value;
            return value(name);
        };
        if (name == "-o" || name == "--output") {
            auto v = take();
            if (!v)
                return Error{v.error()};
            o.output = *v;
        } else if (name == "-j" || name == "--jobs") {
            auto v = take();
            if (!v)
                return Error{v.error()};
            char *end = nullptr;
            const unsigned long n = std::strtoul(v->c_str(), &end, 10);
            if (v->empty() || *end || n == 0 || n > 4096)
                return Error{name + ": '" + *v + "' is not a number of jobs in 1..4096"};
            o.jobs = unsigned(n);
        } else if (name == "--id") {
            auto v = take();
            if (!v)
                return Error{v.error()};
            o.id = *v;
        } else if (name == "--simt-run") {
            auto v = take();
            if (!v)
                return Error{v.error()};
            o.simt_run = *v;
        } else if (name == "--sbatch-arg") {
            auto v = take();
            if (!v)
                return Error{v.error()};
            o.sbatch_args.push_back(*v);
        } else if (a == "--rerun-failed") {
            o.rerun_failed = true;
        } else if (a == "--slurm") {
            o.slurm = true;
        } else if (a == "--no-wait") {
            o.wait = false;
        } else if (a == "--help" || a == "-h") {
            o.command = "help";
        } else if (!a.empty() && a[0] == '-') {
            return Error{"unknown option " + a + " (simt-sweep --help lists them)"};
        } else if (o.sweep.empty()) {
            o.sweep = a;
        } else {
            return Error{"unexpected argument '" + a + "' (one sweep file per run)"};
        }
    }
    if (o.command == "help")
        return o;
    if (o.sweep.empty())
        return Error{"no sweep file given (simt-sweep SWEEP.json; --help for more)"};
    if (o.command == "run-point" && (o.id.empty() || o.output.empty()))
        return Error{"run-point needs -o DIR and --id ID"};
    if (!o.wait && !o.slurm)
        return Error{"--no-wait is for --slurm"};
    return o;
}

unsigned cpus_available() {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        return unsigned(CPU_COUNT(&set));
    const unsigned n = std::thread::hardware_concurrency();
    return n ? n : 1;
}

fs::path self_path() {
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::path() : self;
}

fs::path find_simt_run(const fs::path &tool_dir) {
    if (fs::path beside = tool_dir / "simt-run"; ::access(beside.c_str(), X_OK) == 0)
        return beside;
    if (const char *path = std::getenv("PATH")) {
        std::string dirs = path;
        for (size_t start = 0; start <= dirs.size();) {
            size_t colon = dirs.find(':', start);
            if (colon == std::string::npos)
                colon = dirs.size();
            const fs::path candidate = fs::path(dirs.substr(start, colon - start)) / "simt-run";
            if (colon > start && ::access(candidate.c_str(), X_OK) == 0)
                return candidate;
            start = colon + 1;
        }
    }
    return {};
}

// `simt-sweep plot ...`: the matplotlib script installed beside the binary,
// run with Debian's python3 (where python3-matplotlib lives).
int run_plot(const fs::path &tool_dir, int argc, char **argv) {
    const fs::path script = tool_dir / "simt-sweep-plot.py";
    if (::access(script.c_str(), R_OK) != 0) {
        std::fprintf(stderr, "simt-sweep: %s is missing; reinstall simt-sweep\n", script.c_str());
        return 2;
    }
    const char *python = std::getenv("SIMT_SWEEP_PYTHON");
    if (!python || !*python)
        python = ::access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
    std::vector<char *> args = {const_cast<char *>(python), const_cast<char *>(script.c_str())};
    for (int i = 2; i < argc; ++i)
        args.push_back(argv[i]);
    args.push_back(nullptr);
    execvp(python, args.data());
    std::fprintf(stderr, "simt-sweep: cannot run %s: %s (install python3-matplotlib)\n", python,
                 std::strerror(errno));
    return 2;
}

bool live_progress() {
    const char *ci = std::getenv("CI");
    const bool in_ci = ci && (std::strcmp(ci, "true") == 0 || std::strcmp(ci, "1") == 0);
    return isatty(1) && !in_ci;
}

int report_table(const Sweep &sweep, const std::vector<Point> &points,
                 const RunSettings &settings) {
    auto tally = write_table(sweep, points, settings);
    if (!tally) {
        std::fprintf(stderr, "simt-sweep: %s\n", tally.error().c_str());
        return 2;
    }
    std::printf("simt-sweep: %s: %zu ok, %zu failed, %zu not run\n",
                (settings.output / "results.csv").c_str(), tally->ok, tally->failed,
                tally->not_run);
    return tally->failed || tally->not_run ? 1 : 0;
}

} // namespace

int main(int argc, char **argv) {
    const fs::path self = self_path();
    const fs::path tool_dir = self.parent_path();
    if (argc >= 2 && std::strcmp(argv[1], "plot") == 0)
        return run_plot(tool_dir, argc, argv);
    auto options = parse_args(std::vector<std::string>(argv + 1, argv + argc));
    if (!options) {
        std::fprintf(stderr, "simt-sweep: %s\n", options.error().c_str());
        return 2;
    }
    if (options->command == "help") {
        std::fputs(kUsage, stdout);
        return 0;
    }
    auto sweep = load_sweep(options->sweep, Resolver{tool_dir});
    if (!sweep) {
        std::fprintf(stderr, "simt-sweep: %s\n", sweep.error().c_str());
        return 2;
    }
    RunSettings settings;
    settings.output =
        fs::absolute(options->output.empty() ? sweep->name + ".sweep" : options->output)
            .lexically_normal();
    settings.simt_run =
        options->simt_run.empty() ? find_simt_run(tool_dir) : fs::absolute(options->simt_run);
    settings.self = self;
    settings.jobs = options->jobs ? options->jobs : cpus_available();
    settings.live_progress = live_progress();
    settings.rerun_failed = options->rerun_failed;
    const std::vector<Point> points = sweep->points();

    if (options->command == "list") {
        for (const auto &point : points) {
            const auto result = read_result(settings, point);
            std::printf("%s %-10s %s", point.id.c_str(),
                        result ? (*result)["status"].get<std::string>().c_str() : kStatusNotRun,
                        sweep->program_of(point).name.c_str());
            for (const auto &[key, value] : point.parameters.items())
                std::printf(" %s=%s", key.c_str(),
                            value.is_string() ? value.get<std::string>().c_str()
                                              : value.dump().c_str());
            std::printf("\n");
        }
        return 0;
    }
    if (options->command == "gather")
        return report_table(*sweep, points, settings);

    if (auto ok = prepare_output(*sweep, settings); !ok) {
        std::fprintf(stderr, "simt-sweep: %s\n", ok.error().c_str());
        return 2;
    }
    if (options->command == "run-point") {
        for (const auto &point : points)
            if (point.id == options->id) {
                const auto result = run_one(*sweep, point, settings);
                std::printf("simt-sweep: %s: %s %s\n", point.id.c_str(),
                            result["status"].get<std::string>().c_str(),
                            result["error"].get<std::string>().c_str());
                return 0; // recorded: the point's failure is not the task's
            }
        std::fprintf(stderr, "simt-sweep: %s has no point %s (simt-sweep list shows them)\n",
                     options->sweep.c_str(), options->id.c_str());
        return 2;
    }
    if (options->slurm) {
        auto job = run_slurm(*sweep, points, settings, options->sbatch_args, options->wait);
        if (!job) {
            std::fprintf(stderr, "simt-sweep: %s\n", job.error().c_str());
            return 2;
        }
        if (job->empty())
            std::printf("simt-sweep: every point already has a result\n");
        else if (!options->wait) {
            std::printf("simt-sweep: submitted job %s; when it has finished run: simt-sweep "
                        "gather %s -o %s\n",
                        job->c_str(), options->sweep.c_str(), settings.output.c_str());
            return 0;
        } else {
            std::printf("simt-sweep: job %s finished\n", job->c_str());
        }
    } else {
        std::printf("simt-sweep: %s: %zu points (%zu programs x %zu configurations), %u at a "
                    "time, into %s\n",
                    sweep->name.c_str(), points.size(), sweep->programs.size(),
                    sweep->configurations.size(), settings.jobs, settings.output.c_str());
        std::fflush(stdout);
        run_local(*sweep, points, settings);
    }
    return report_table(*sweep, points, settings);
}
