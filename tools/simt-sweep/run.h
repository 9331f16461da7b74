// Running a sweep's points: each as a child process (the program on the
// in-process transport, or simt-run), here with up to -j at a time, or as
// tasks of a Slurm job array. Each point's files live in OUT/points/ID/:
// config.json, stdout.txt, stderr.txt, stats.json and, once it has finished,
// result.json (written last, atomically: a point with one is done).
#pragma once

#include "sweep.h"

#include <filesystem>
#include <string>
#include <vector>

namespace simtgpu::sweep {

struct RunSettings {
    std::filesystem::path output;   // the sweep's output directory
    std::filesystem::path simt_run; // for ELF programs
    std::filesystem::path self;     // this simt-sweep binary, for Slurm tasks
    unsigned jobs = 1;
    bool live_progress = false; // a redrawn bar (tty) rather than a line per point
    bool rerun_failed = false;  // also run points whose result is a failure
};

std::filesystem::path point_dir(const RunSettings &settings, const Point &point);

// The point's result.json, if it has finished (ok, failed or timed out).
std::optional<nlohmann::json> read_result(const RunSettings &settings, const Point &point);

// Copies the sweep file into OUT and creates OUT/points.
Expected<bool> prepare_output(const Sweep &sweep, const RunSettings &settings);

// The points still to run: those with no result (or a failed one, with
// rerun_failed).
std::vector<size_t> pending_points(const std::vector<Point> &points, const RunSettings &settings);

// Runs the pending points, jobs at a time.
// Failures are recorded in each point's result, never stop the others.
void run_local(const Sweep &sweep, const std::vector<Point> &points, const RunSettings &settings);

// Runs one point in the foreground (a Slurm task). Returns its result.
nlohmann::json run_one(const Sweep &sweep, const Point &point, const RunSettings &settings);

// Submits the points without a result as one Slurm job array; with wait,
// blocks until it has finished (sbatch --wait). extra_args go to sbatch.
Expected<std::string> run_slurm(const Sweep &sweep, const std::vector<Point> &points,
                                const RunSettings &settings,
                                const std::vector<std::string> &extra_args, bool wait);

struct Tally {
    size_t ok = 0, failed = 0, not_run = 0;
};

// Writes OUT/results.csv from the points' results.
Expected<Tally> write_table(const Sweep &sweep, const std::vector<Point> &points,
                            const RunSettings &settings);

} // namespace simtgpu::sweep
