#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Runs a handful of tests/cuda programs at the sizes real programs use, on
the in-process transport, and prints per program: the seconds it took (wall,
CPU of the whole process, CPU of the simulator's engine thread), the
simulated thread-instructions (from SIMTGPU_STATS), their rate per CPU second
of each kind, and the peak resident memory. Each program checks its own
results against the CPU, so a wrong answer shows as FAIL.

    cmake --build build --target cuda_tests
    bench/cuda_bench.py [--build build] [--config PRESET] [--only NAME,...]
                        [--threads 1,2] [--markdown]

--threads runs each program once per host-thread count (SIMTGPU_SIM_THREADS:
the SMs on several host threads, in either model) and adds its wall-clock
speedup over the first count, measured in the same run.

The rate per CPU second counts the whole process (setup, copies and the CPU
reference too): what a user waits for. The rate per engine second counts only
the thread that executes kernels: the functional core's speed on real
programs. CPU time rather than wall time because the build machines are
shared.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

# name, arguments, what the size is
PROGRAMS = [
    ("vector_add", ["16777216"], "2^24 floats, 3 arrays of 64 MiB"),
    ("matmul_tiled", ["512"], "512x512 floats, 16x16 shared tiles"),
    ("histogram_atomic", ["16777216"], "2^24 bytes, 64 bins, shared atomics"),
    ("stencil", ["16777216"], "2^24 ints, radius 3"),
    ("transpose", ["4096", "4096"], "4096x4096 floats, 32x32 tiles"),
    ("large_array", [], "2^27 floats (512 MiB) + a 6 GiB buffer"),
]


def thread_cpu_seconds(pid):
    """CPU seconds of each thread of `pid` other than the main one, by id."""
    ticks = os.sysconf("SC_CLK_TCK")
    seconds = {}
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return seconds
    for tid in tids:
        if tid == str(pid):
            continue
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                # Fields after the parenthesised name: utime and stime are 14, 15.
                fields = f.read().rsplit(")", 1)[1].split()
            seconds[tid] = (int(fields[11]) + int(fields[12])) / ticks
        except (OSError, IndexError, ValueError):
            pass
    return seconds


def run(program, args, env):
    """Returns (status, output, wall s, CPU s, engine CPU s, peak RSS bytes).

    The engine is the busiest thread besides the main one: the simulator's
    engine thread, which executes every kernel; sampled every 50 ms."""
    start = time.monotonic()
    engine = {}
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen([program] + args, stdout=out, stderr=subprocess.STDOUT, env=env)
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            for tid, sec in thread_cpu_seconds(proc.pid).items():
                engine[tid] = max(engine.get(tid, 0.0), sec)
            time.sleep(0.05)
        wall = time.monotonic() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        output = out.read().decode(errors="replace")
    return (proc.returncode, output, wall, usage.ru_utime + usage.ru_stime,
            max(engine.values(), default=0.0), usage.ru_maxrss * 1024)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default="build", help="build directory (default: build)")
    parser.add_argument("--config", help="SIMTGPU_SIM_CONFIG: a preset or a JSON file")
    parser.add_argument("--only", help="comma-separated program names")
    parser.add_argument("--threads", default="1",
                        help="comma-separated SIMTGPU_SIM_THREADS values (default: 1)")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    opts = parser.parse_args()

    programs = PROGRAMS
    if opts.only:
        wanted = opts.only.split(",")
        unknown = [w for w in wanted if w not in {p[0] for p in PROGRAMS}]
        if unknown:
            sys.exit(f"cuda_bench: unknown program {', '.join(unknown)}; "
                     f"the programs are {', '.join(p[0] for p in PROGRAMS)}")
        programs = [p for p in PROGRAMS if p[0] in wanted]

    try:
        thread_counts = [int(t) for t in opts.threads.split(",")]
    except ValueError:
        sys.exit(f"cuda_bench: --threads {opts.threads}: expected numbers such as 1,2")

    rows = []
    failed = False
    for name, args, size in programs:
        program = os.path.join(opts.build, "tests", "cuda", name)
        if not os.access(program, os.X_OK):
            sys.exit(f"cuda_bench: {program} is not built "
                     f"(cmake --build {opts.build} --target cuda_tests)")
        first_wall = None
        for threads in thread_counts:
            with tempfile.TemporaryDirectory() as tmp:
                stats_path = os.path.join(tmp, "stats.json")
                env = dict(os.environ, SIMTGPU_TRANSPORT="sim", SIMTGPU_STATS=stats_path,
                           SIMTGPU_SIM_THREADS=str(threads))
                if opts.config:
                    env["SIMTGPU_SIM_CONFIG"] = opts.config
                status, output, wall, cpu, engine, rss = run(program, args, env)
                try:
                    with open(stats_path) as f:
                        instructions = json.load(f)["total"]["thread_instructions"]
                except (OSError, ValueError, KeyError):
                    instructions = 0
            ok = status == 0 and f"{name}: PASS" in output
            if not ok:
                failed = True
                sys.stderr.write(f"cuda_bench: {name} {' '.join(args)} exited {status}:\n{output}")
            first_wall = first_wall or wall
            rows.append((name, size, threads, wall, first_wall / wall, cpu, engine,
                         instructions, rss, ok))

    header = ("program", "size", "threads", "wall s", "speedup", "CPU s", "engine CPU s",
              "thread-instr", "M/s per CPU s", "M/s per engine s", "peak RSS MiB", "result")
    lines = []
    for name, size, threads, wall, speedup, cpu, engine, instructions, rss, ok in rows:
        rate = instructions / cpu / 1e6 if cpu else 0
        engine_rate = instructions / engine / 1e6 if engine else 0
        lines.append((name, size, str(threads), f"{wall:.1f}", f"{speedup:.2f}x", f"{cpu:.1f}",
                      f"{engine:.1f}", f"{instructions / 1e6:.0f} M", f"{rate:.0f}",
                      f"{engine_rate:.0f}", f"{rss / 2**20:.0f}", "PASS" if ok else "FAIL"))
    if opts.markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "|".join(["---"] * 2 + ["--:"] * 9 + ["---"]) + "|")
        for line in lines:
            print("| " + " | ".join(line) + " |")
    else:
        widths = [max(len(str(r[i])) for r in [header] + lines) for i in range(len(header))]
        for line in [header] + lines:
            print("  ".join(str(v).ljust(w) for v, w in zip(line, widths)).rstrip())
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
