// simt-trace: turns the kernel driver's tracepoints, as tracefs prints them,
// into the Chrome/Perfetto trace of docs/trace.md, so that a learner in the
// guest gets one file to open in ui.perfetto.dev:
//
//   echo 1 > /sys/kernel/tracing/events/simtgpu/enable
//   SIMTGPU_TRACE=app.json ./app
//   simt-trace /sys/kernel/tracing/trace --umd app.json -o trace.json
#include "tracefs_trace.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

constexpr const char *kUsage =
    "usage: simt-trace [-o OUT.json] [--max-events N] [--umd APP.json]... [TRACEFS_TEXT]\n"
    "Converts the simtgpu tracepoints of tracefs's text output (a file, or stdin;\n"
    "e.g. /sys/kernel/tracing/trace) into trace-event JSON for ui.perfetto.dev\n"
    "(docs/trace.md): the jobs on each ring, submits, preemptions and resets.\n"
    "  -o OUT.json       where to write it (default stdout)\n"
    "  --max-events N    slices and instants at most (default 1000000)\n"
    "  --umd APP.json    merge libsimtgpu's SIMTGPU_TRACE file (the CUDA streams);\n"
    "                    the jobs are then placed in device time, its clock\n";

} // namespace

int main(int argc, char **argv) {
    std::string input, output;
    std::vector<std::string> umd;
    uint64_t max_events = 1'000'000;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--help" || arg == "-h") {
            std::fputs(kUsage, stdout);
            return 0;
        }
        if ((arg == "-o" || arg == "--max-events" || arg == "--umd") && i + 1 >= argc) {
            std::fprintf(stderr, "simt-trace: %s needs a value (see --help)\n", arg.c_str());
            return 2;
        }
        if (arg == "-o") {
            output = argv[++i];
        } else if (arg == "--umd") {
            std::ifstream in(argv[++i]);
            std::stringstream text;
            if (!(text << in.rdbuf())) {
                std::fprintf(stderr, "simt-trace: cannot read %s\n", argv[i]);
                return 2;
            }
            umd.push_back(text.str());
        } else if (arg == "--max-events") {
            char *end = nullptr;
            max_events = std::strtoull(argv[++i], &end, 10);
            if (*end || max_events == 0) {
                std::fprintf(stderr, "simt-trace: --max-events: '%s' is not a number >= 1\n",
                             argv[i]);
                return 2;
            }
        } else if (arg.size() > 1 && arg[0] == '-') {
            std::fprintf(stderr, "simt-trace: unknown option %s (see --help)\n", arg.c_str());
            return 2;
        } else {
            input = arg;
        }
    }
    std::ifstream file;
    if (!input.empty()) {
        file.open(input);
        if (!file) {
            std::fprintf(stderr, "simt-trace: cannot read %s: %s\n", input.c_str(),
                         std::strerror(errno));
            return 2;
        }
    }
    simtgpu::tools::TracefsCounts counts;
    std::string json = simtgpu::tools::tracefs_to_trace(input.empty() ? std::cin : file, max_events,
                                                        &counts, !umd.empty());
    if (!umd.empty()) {
        std::string error;
        json = simtgpu::tools::merge_traces(json, umd, &error);
        if (json.empty()) {
            std::fprintf(stderr, "simt-trace: --umd: %s\n", error.c_str());
            return 2;
        }
    }
    if (output.empty()) {
        std::fputs(json.c_str(), stdout);
    } else {
        std::ofstream out(output);
        if (!(out << json)) {
            std::fprintf(stderr, "simt-trace: cannot write %s\n", output.c_str());
            return 2;
        }
    }
    std::fprintf(stderr, "simt-trace: %llu simtgpu events of %llu lines, %llu written",
                 static_cast<unsigned long long>(counts.events),
                 static_cast<unsigned long long>(counts.lines),
                 static_cast<unsigned long long>(counts.written));
    if (counts.unmatched)
        std::fprintf(stderr, ", %llu job ends without their begin",
                     static_cast<unsigned long long>(counts.unmatched));
    std::fputs("\n", stderr);
    if (counts.dropped)
        std::fprintf(stderr,
                     "simt-trace: reached the limit of %llu events; %llu later ones are not in "
                     "the trace (raise --max-events)\n",
                     static_cast<unsigned long long>(max_events),
                     static_cast<unsigned long long>(counts.dropped));
    return 0;
}
