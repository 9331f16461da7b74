// --slurm: the pending points as one job array. Task i runs the i-th line of
// OUT/slurm/pending.txt with `simt-sweep run-point`, which writes the same
// result.json a local run does; the table is then gathered from them. The
// output directory and the programs must be on a file system the nodes share.
#include "run.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

namespace simtgpu::sweep {

namespace fs = std::filesystem;

namespace {

// Quoted for sh: every byte literal.
std::string shell_quote(const std::string &text) {
    std::string out = "'";
    for (const char c : text)
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

// Runs argv, returns its exit status and stdout.
Expected<std::pair<int, std::string>> capture(const std::vector<std::string> &argv) {
    int pipe_fds[2];
    if (pipe(pipe_fds) != 0)
        return Error{std::string("pipe: ") + std::strerror(errno)};
    std::fflush(nullptr);
    const pid_t pid = fork();
    if (pid < 0)
        return Error{std::string("fork: ") + std::strerror(errno)};
    if (pid == 0) {
        dup2(pipe_fds[1], 1);
        close(pipe_fds[0]);
        close(pipe_fds[1]);
        std::vector<char *> args;
        for (const auto &a : argv)
            args.push_back(const_cast<char *>(a.c_str()));
        args.push_back(nullptr);
        execvp(args[0], args.data());
        std::fprintf(stderr, "simt-sweep: cannot run %s: %s\n", args[0], std::strerror(errno));
        _exit(127);
    }
    close(pipe_fds[1]);
    std::string out;
    char buf[4096];
    for (ssize_t n; (n = read(pipe_fds[0], buf, sizeof buf)) > 0;)
        out.append(buf, size_t(n));
    close(pipe_fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    return std::pair{WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), out};
}

} // namespace

Expected<std::string> run_slurm(const Sweep &sweep, const std::vector<Point> &points,
                                const RunSettings &settings,
                                const std::vector<std::string> &extra_args, bool wait) {
    const std::vector<size_t> pending = pending_points(points, settings);
    if (pending.empty())
        return std::string(); // nothing to submit
    const fs::path dir = settings.output / "slurm";
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec)
        return Error{dir.string() + ": cannot create: " + ec.message()};
    {
        std::ofstream list(dir / "pending.txt", std::ios::trunc);
        for (const size_t i : pending)
            list << points[i].id << "\n";
        if (!list.flush())
            return Error{(dir / "pending.txt").string() + ": cannot write"};
    }
    // Slurm's time limit: the point's own timeout and a minute to spare.
    const long minutes = long(std::ceil(sweep.timeout_s / 60.0)) + 1;
    const fs::path script = dir / "job.sh";
    {
        std::ofstream job(script, std::ios::trunc);
        job << "#!/bin/sh\n"
            << "# simt-sweep " << sweep.name << ": one array task per point of pending.txt\n"
            << "#SBATCH --job-name=" << shell_quote("simt-sweep-" + sweep.name) << "\n"
            << "#SBATCH --array=0-" << pending.size() - 1 << "\n"
            << "#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n"
            << "#SBATCH --time=" << minutes << "\n"
            << "#SBATCH --output=" << (dir / "task-%a.log").string() << "\n"
            << "id=$(sed -n \"$((SLURM_ARRAY_TASK_ID + 1))p\" "
            << shell_quote((dir / "pending.txt").string()) << ")\n"
            << "exec " << shell_quote(settings.self.string()) << " run-point "
            << shell_quote(sweep.file.string()) << " -o " << shell_quote(settings.output.string())
            << (settings.simt_run.empty()
                    ? ""
                    : " --simt-run " + shell_quote(settings.simt_run.string()))
            << " --id \"$id\"\n";
        if (!job.flush())
            return Error{script.string() + ": cannot write"};
    }
    std::vector<std::string> argv = {"sbatch", "--parsable"};
    if (wait)
        argv.push_back("--wait");
    argv.insert(argv.end(), extra_args.begin(), extra_args.end());
    argv.push_back(script.string());
    std::printf("simt-sweep: submitting %zu points as a Slurm job array (%s)%s\n", pending.size(),
                script.c_str(), wait ? "; waiting for it to finish" : "");
    std::fflush(stdout);
    auto run = capture(argv);
    if (!run)
        return Error{run.error()};
    std::string job_id = run->second.substr(0, run->second.find_first_of(";\n"));
    if (run->first == 127)
        return Error{"sbatch not found: install Slurm's client (slurm-client) or run without "
                     "--slurm"};
    // With --wait a non-zero status can be a task's: the points' results say.
    if (job_id.empty() || (run->first != 0 && !wait))
        return Error{"sbatch failed (exit status " + std::to_string(run->first) +
                     "): see its message above; is SLURM_CONF or the cluster reachable?"};
    return job_id;
}

} // namespace simtgpu::sweep
