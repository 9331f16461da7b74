#include "run.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <deque>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

namespace simtgpu::sweep {

namespace fs = std::filesystem;
using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

volatile std::sig_atomic_t g_interrupted = 0;

void on_interrupt(int) {
    g_interrupted = 1;
}

Expected<bool> write_file(const fs::path &path, const std::string &text) {
    // Written to a temporary name and renamed: a reader sees all or nothing.
    // The name is the writer's own: Slurm tasks write sweep.json at once.
    const fs::path tmp = path.string() + "." + std::to_string(getpid()) + ".tmp";
    {
        std::ofstream out(tmp, std::ios::trunc);
        out << text;
        if (!out.flush())
            return Error{tmp.string() + ": cannot write"};
    }
    std::error_code ec;
    fs::rename(tmp, path, ec);
    if (ec)
        return Error{path.string() + ": cannot write: " + ec.message()};
    return true;
}

std::string read_text(const fs::path &path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// The last non-empty line a failing program wrote on stderr: usually why.
std::string last_line(const fs::path &path) {
    std::stringstream in(read_text(path));
    std::string line, last;
    while (std::getline(in, line))
        if (line.find_first_not_of(" \t\r") != std::string::npos)
            last = line;
    if (last.size() > 300)
        last = last.substr(0, 300) + "...";
    return last;
}

// simt-run --stats prints the statistics as the last JSON object on stdout.
std::optional<json> parse_stats(const std::string &text) {
    try {
        return json::parse(text);
    } catch (const json::exception &) {
    }
    for (size_t at = text.rfind("\n{"); at != std::string::npos;
         at = at == 0 ? std::string::npos : text.rfind("\n{", at - 1)) {
        try {
            return json::parse(text.substr(at + 1));
        } catch (const json::exception &) {
        }
    }
    return std::nullopt;
}

struct Running {
    size_t index = 0; // into the points
    pid_t pid = 0;
    Clock::time_point start;
};

std::vector<std::string> command_of(const Sweep &sweep, const Point &point,
                                    const RunSettings &settings, const fs::path &dir) {
    const Program &program = sweep.program_of(point);
    std::vector<std::string> argv;
    if (program.kind == ProgramKind::Elf) {
        argv = {settings.simt_run.string(), "--config", (dir / "config.json").string(), "--stats"};
        for (auto &a : point_args(sweep, point))
            argv.push_back(a);
        argv.push_back(program.path.string());
    } else {
        argv = {program.path.string()};
        for (auto &a : point_args(sweep, point))
            argv.push_back(a);
    }
    return argv;
}

// Starts a point: writes its config.json, forks the program in a process
// group of its own (so that a timeout kills all of it).
Expected<pid_t> start_point(const Sweep &sweep, const Point &point, const RunSettings &settings) {
    const fs::path dir = point_dir(settings, point);
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec)
        return Error{dir.string() + ": cannot create: " + ec.message()};
    for (const char *stale : {"stats.json", "result.json"})
        fs::remove(dir / stale, ec);
    if (auto ok = write_file(dir / "config.json", point_config(sweep, point).dump(2) + "\n"); !ok)
        return Error{ok.error()};
    const Program &program = sweep.program_of(point);
    if (program.kind == ProgramKind::Elf && settings.simt_run.empty())
        return Error{"simt-run not found beside simt-sweep or on PATH; give --simt-run PATH"};
    const std::vector<std::string> argv = command_of(sweep, point, settings, dir);
    const std::string out = (dir / "stdout.txt").string(), err = (dir / "stderr.txt").string();
    const std::string config = (dir / "config.json").string(),
                      stats = (dir / "stats.json").string();
    std::fflush(nullptr);
    const pid_t pid = fork();
    if (pid < 0)
        return Error{std::string("fork: ") + std::strerror(errno)};
    if (pid == 0) {
        setpgid(0, 0);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        const int in_fd = open("/dev/null", O_RDONLY);
        const int out_fd = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        const int err_fd = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (in_fd < 0 || out_fd < 0 || err_fd < 0)
            _exit(126);
        dup2(in_fd, 0);
        dup2(out_fd, 1);
        dup2(err_fd, 2);
        if (program.kind == ProgramKind::Cuda) {
            setenv("SIMTGPU_TRANSPORT", "sim", 1);
            setenv("SIMTGPU_SIM_CONFIG", config.c_str(), 1);
            setenv("SIMTGPU_STATS", stats.c_str(), 1);
        }
        std::vector<char *> args;
        for (const auto &a : argv)
            args.push_back(const_cast<char *>(a.c_str()));
        args.push_back(nullptr);
        execv(args[0], args.data());
        std::fprintf(stderr, "simt-sweep: cannot run %s: %s\n", args[0], std::strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid); // also here: no race with the child's own call
    return pid;
}

// A program that ignored its configuration (a build whose simulator does not
// read SIMTGPU_SIM_CONFIG / --config) would make every point the same: the
// device's shape, which the statistics report, must be what was asked.
std::optional<std::string> unapplied_parameter(const json &stats, ProgramKind kind,
                                               const Point &point) {
    const json *device = &stats;
    if (kind == ProgramKind::Cuda) {
        auto it = stats.find("device");
        if (it == stats.end())
            return std::nullopt;
        device = &*it;
    }
    for (const char *field : {"num_sms", "warps_per_sm", "warp_size", "ctas_per_sm"}) {
        auto asked = point.parameters.find(field);
        auto got = device->find(field);
        if (asked == point.parameters.end() || got == device->end() || json(*asked) == *got)
            continue;
        return std::string("the configuration was not applied: ") + field + "=" + asked->dump() +
               " asked, the device reports " + got->dump() +
               " (does this build's simulator read SIMTGPU_SIM_CONFIG / simt-run --config?)";
    }
    return std::nullopt;
}

// Turns a finished child into the point's result.json.
json finish_point(const Sweep &sweep, const Point &point, const RunSettings &settings,
                  int wait_status, double wall_s, bool timed_out) {
    const fs::path dir = point_dir(settings, point);
    const Program &program = sweep.program_of(point);
    json result = {
        {"id", point.id},
        {"program", program.name},
        {"kind", program.kind == ProgramKind::Cuda ? "cuda" : "elf"},
        {"size", point.size ? json(*point.size) : json()},
        {"parameters", point.parameters},
        {"command", command_of(sweep, point, settings, dir)},
        {"wall_s", std::round(wall_s * 1000) / 1000},
        {"exit_status", json()},
        {"statistics", json()},
    };
    std::string status = kStatusOk, error;
    if (timed_out) {
        status = kStatusTimeout;
        char limit[32];
        std::snprintf(limit, sizeof limit, "%g", sweep.timeout_s);
        error = std::string("timed out after ") + limit + " s (raise timeout_s in the sweep file)";
    } else if (WIFSIGNALED(wait_status)) {
        status = kStatusFailed;
        error = std::string("killed by signal ") + std::to_string(WTERMSIG(wait_status)) + " (" +
                strsignal(WTERMSIG(wait_status)) + ")";
    } else {
        const int code = WEXITSTATUS(wait_status);
        result["exit_status"] = code;
        if (code != 0) {
            status = kStatusFailed;
            error = "exit status " + std::to_string(code);
        }
    }
    // The statistics: SIMTGPU_STATS's file (CUDA), or simt-run's stdout.
    std::optional<json> stats;
    if (program.kind == ProgramKind::Cuda) {
        std::error_code ec;
        if (fs::exists(dir / "stats.json", ec))
            stats = parse_stats(read_text(dir / "stats.json"));
    } else {
        stats = parse_stats(read_text(dir / "stdout.txt"));
        if (stats)
            (void)write_file(dir / "stats.json", stats->dump(2) + "\n");
    }
    if (stats)
        result["statistics"] = *stats;
    else if (status == kStatusOk) {
        status = kStatusFailed;
        error = program.kind == ProgramKind::Cuda
                    ? "no statistics: the program exited without writing SIMTGPU_STATS (is it "
                      "linked with this build's libsimtgpu?)"
                    : "no statistics: simt-run --stats printed no JSON";
    }
    if (stats && status == kStatusOk) {
        if (auto mismatch = unapplied_parameter(*stats, program.kind, point)) {
            status = kStatusFailed;
            error = *mismatch;
        }
    }
    if (status == kStatusFailed && !timed_out) {
        if (const std::string why = last_line(dir / "stderr.txt"); !why.empty())
            error += ": " + why;
    }
    result["status"] = status;
    result["error"] = error;
    (void)write_file(dir / "result.json", result.dump(2) + "\n");
    return result;
}

std::string duration_text(double s) {
    char buf[32];
    if (s < 60)
        std::snprintf(buf, sizeof buf, "%.0fs", s);
    else if (s < 3600)
        std::snprintf(buf, sizeof buf, "%dm%02ds", int(s) / 60, int(s) % 60);
    else
        std::snprintf(buf, sizeof buf, "%dh%02dm", int(s) / 3600, int(s) / 60 % 60);
    return buf;
}

std::string point_label(const Sweep &sweep, const Point &point) {
    std::string label = sweep.program_of(point).name;
    for (const auto &[key, value] : point.parameters.items())
        label += " " + key + "=" + (value.is_string() ? value.get<std::string>() : value.dump());
    return label;
}

class Progress {
public:
    Progress(size_t total, size_t skipped, bool live)
        : total_(total), skipped_(skipped), live_(live), start_(Clock::now()) {}

    void finished(const std::string &label, const json &result) {
        ++done_;
        if (result["status"] != kStatusOk)
            ++failed_;
        const bool ok = result["status"] == kStatusOk;
        if (live_ && ok)
            return; // the bar shows it
        clear();
        std::printf("simt-sweep: [%zu/%zu] %s: %s", done_ + skipped_, total_, label.c_str(),
                    result["status"].get<std::string>().c_str());
        if (!ok)
            std::printf(" (%s)", result["error"].get<std::string>().c_str());
        std::printf(" %.1fs\n", result["wall_s"].get<double>());
        std::fflush(stdout);
    }

    void draw(size_t running) {
        if (!live_)
            return;
        const size_t finished = done_ + skipped_;
        constexpr int kWidth = 30;
        const int filled = total_ ? int(kWidth * finished / total_) : kWidth;
        std::printf("\r\033[K[%s%s] %zu/%zu done, %zu running, %zu failed, %s left",
                    std::string(filled, '#').c_str(), std::string(kWidth - filled, '.').c_str(),
                    finished, total_, running, failed_, time_left().c_str());
        std::fflush(stdout);
        drawn_ = true;
    }

    void end() {
        clear();
        const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
        std::printf("simt-sweep: %zu points: %zu run now (%zu failed), %zu already done; %s\n",
                    total_, done_, failed_, skipped_, duration_text(elapsed).c_str());
    }

private:
    std::string time_left() const {
        const size_t remaining = total_ - skipped_ - done_;
        if (done_ == 0)
            return remaining ? "?" : "0s";
        const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
        return duration_text(elapsed / double(done_) * double(remaining));
    }
    void clear() {
        if (drawn_)
            std::printf("\r\033[K");
        drawn_ = false;
    }

    size_t total_, skipped_, done_ = 0, failed_ = 0;
    bool live_, drawn_ = false;
    Clock::time_point start_;
};

json failed_to_start(const Sweep &sweep, const Point &point, const RunSettings &settings,
                     const std::string &why) {
    json result = {{"id", point.id},
                   {"program", sweep.program_of(point).name},
                   {"status", kStatusFailed},
                   {"error", why},
                   {"parameters", point.parameters},
                   {"wall_s", 0.0},
                   {"exit_status", json()},
                   {"statistics", json()}};
    (void)write_file(point_dir(settings, point) / "result.json", result.dump(2) + "\n");
    return result;
}

} // namespace

fs::path point_dir(const RunSettings &settings, const Point &point) {
    return settings.output / "points" / point.id;
}

std::optional<json> read_result(const RunSettings &settings, const Point &point) {
    const fs::path path = point_dir(settings, point) / "result.json";
    std::error_code ec;
    if (!fs::exists(path, ec))
        return std::nullopt;
    try {
        return json::parse(read_text(path));
    } catch (const json::exception &) {
        return std::nullopt; // torn by a crash: run it again
    }
}

Expected<bool> prepare_output(const Sweep &sweep, const RunSettings &settings) {
    std::error_code ec;
    fs::create_directories(settings.output / "points", ec);
    if (ec)
        return Error{settings.output.string() +
                     ": cannot create the output directory: " + ec.message()};
    return write_file(settings.output / "sweep.json", read_text(sweep.file));
}

std::vector<size_t> pending_points(const std::vector<Point> &points, const RunSettings &settings) {
    std::vector<size_t> out;
    for (size_t i = 0; i < points.size(); ++i) {
        const auto result = read_result(settings, points[i]);
        if (!result || (settings.rerun_failed && (*result)["status"] != kStatusOk))
            out.push_back(i);
    }
    return out;
}

void run_local(const Sweep &sweep, const std::vector<Point> &points, const RunSettings &settings) {
    std::deque<size_t> pending;
    for (const size_t i : pending_points(points, settings))
        pending.push_back(i);
    Progress progress(points.size(), points.size() - pending.size(), settings.live_progress);
    struct sigaction action {};
    action.sa_handler = on_interrupt;
    sigaction(SIGINT, &action, nullptr);
    sigaction(SIGTERM, &action, nullptr);

    std::map<pid_t, Running> running;
    const auto timeout = std::chrono::duration<double>(sweep.timeout_s);
    auto last_draw = Clock::time_point{};
    while ((!pending.empty() || !running.empty()) && !g_interrupted) {
        while (!pending.empty() && running.size() < settings.jobs) {
            const size_t i = pending.front();
            pending.pop_front();
            auto pid = start_point(sweep, points[i], settings);
            if (!pid) {
                progress.finished(point_label(sweep, points[i]),
                                  failed_to_start(sweep, points[i], settings, pid.error()));
                continue;
            }
            running[*pid] = Running{i, *pid, Clock::now()};
        }
        int status = 0;
        const pid_t pid = waitpid(-1, &status, WNOHANG);
        if (pid > 0 && running.count(pid)) {
            const Running r = running[pid];
            running.erase(pid);
            const double wall = std::chrono::duration<double>(Clock::now() - r.start).count();
            progress.finished(point_label(sweep, points[r.index]),
                              finish_point(sweep, points[r.index], settings, status, wall, false));
            continue;
        }
        for (auto it = running.begin(); it != running.end();) {
            if (Clock::now() - it->second.start < timeout) {
                ++it;
                continue;
            }
            kill(-it->first, SIGKILL);
            waitpid(it->first, &status, 0);
            const double wall =
                std::chrono::duration<double>(Clock::now() - it->second.start).count();
            progress.finished(
                point_label(sweep, points[it->second.index]),
                finish_point(sweep, points[it->second.index], settings, status, wall, true));
            it = running.erase(it);
        }
        if (Clock::now() - last_draw > std::chrono::milliseconds(250)) {
            progress.draw(running.size());
            last_draw = Clock::now();
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (g_interrupted) {
        // The points cut short have no result: a rerun runs them.
        for (const auto &[pid, r] : running) {
            kill(-pid, SIGKILL);
            int status = 0;
            waitpid(pid, &status, 0);
        }
        std::printf("\nsimt-sweep: interrupted; %zu points left to run (run the same command "
                    "again to resume)\n",
                    pending.size() + running.size());
    }
    progress.end();
}

json run_one(const Sweep &sweep, const Point &point, const RunSettings &settings) {
    const auto start = Clock::now();
    auto pid = start_point(sweep, point, settings);
    if (!pid)
        return failed_to_start(sweep, point, settings, pid.error());
    const auto timeout = std::chrono::duration<double>(sweep.timeout_s);
    int status = 0;
    bool timed_out = false;
    while (waitpid(*pid, &status, WNOHANG) == 0) {
        if (Clock::now() - start >= timeout) {
            kill(-*pid, SIGKILL);
            waitpid(*pid, &status, 0);
            timed_out = true;
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    const double wall = std::chrono::duration<double>(Clock::now() - start).count();
    return finish_point(sweep, point, settings, status, wall, timed_out);
}

Expected<Tally> write_table(const Sweep &sweep, const std::vector<Point> &points,
                            const RunSettings &settings) {
    std::vector<std::optional<json>> results;
    Tally tally;
    for (const auto &point : points) {
        results.push_back(read_result(settings, point));
        if (!results.back())
            ++tally.not_run;
        else if ((*results.back())["status"] == kStatusOk)
            ++tally.ok;
        else
            ++tally.failed;
    }
    if (auto ok = write_file(settings.output / "results.csv", results_csv(sweep, points, results));
        !ok)
        return Error{ok.error()};
    return tally;
}

} // namespace simtgpu::sweep
