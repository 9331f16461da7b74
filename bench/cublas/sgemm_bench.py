#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Runs BUILD/bin/cublas-sgemm-bench (a 512x512x512 SGEMM by cublasSgemm beside a
naive kernel) under a timing preset (default volta) on the in-process
transport, and prints each kernel's device cycles (SIMTGPU_STATS) and the
share of the preset's peak FP32 rate it reached:

    peak FMAs per cycle = num_sms * schedulers_per_sm * warp_size / fp32.ii

(volta: 80 * 4 * 32 / 2 = 5120 FMAs, 10240 flops a cycle).

    bench/cublas/sgemm_bench.py [--build build] [--config volta] [--size 512]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def preset(name):
    """The preset's fields (comments stripped), following its "base" chain."""
    with open(os.path.join(ROOT, "sim", "presets", name + ".json")) as f:
        text = re.sub(r"^\s*//.*$", "", f.read(), flags=re.M)
    fields = json.loads(text)
    base = preset(fields["base"]) if "base" in fields else {}
    for key, value in fields.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            merged = dict(base[key])
            merged.update(value)
            base[key] = merged
        else:
            base[key] = value
    return base


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--config", default="volta")
    parser.add_argument("--size", type=int, default=512)
    args = parser.parse_args()

    config = preset(args.config)
    timing = config.get("timing", {})
    if "schedulers_per_sm" not in timing:
        sys.exit(f"sgemm_bench: preset {args.config} has no timing model: name a timing preset (volta, teaching)")
    peak_fmas = config["num_sms"] * timing["schedulers_per_sm"] * config["warp_size"] / timing["fp32"]["ii"]
    program = os.path.join(args.build, "bin", "cublas-sgemm-bench")
    with tempfile.TemporaryDirectory() as tmp:
        stats_file = os.path.join(tmp, "stats.json")
        env = dict(os.environ, SIMTGPU_TRANSPORT="sim", SIMTGPU_SIM_CONFIG=args.config,
                   SIMTGPU_STATS=stats_file, SIMTGPU_JOB_TIMEOUT_MS="600000")
        run = subprocess.run([program, str(args.size)], env=env, capture_output=True, text=True)
        sys.stdout.write(run.stdout)
        if run.returncode != 0:
            sys.stderr.write(run.stderr)
            sys.exit(f"sgemm_bench: {program} exited {run.returncode}")
        with open(stats_file) as f:
            stats = json.load(f)
    fmas = float(args.size) ** 3
    print(f"preset {args.config}: peak {peak_fmas:.0f} FP32 FMAs/cycle ({2 * peak_fmas:.0f} flops/cycle)")
    print(f"{'kernel':<40} {'device cycles':>14} {'flops/cycle':>12} {'% of peak':>10}")
    for mangled, kernel in sorted(stats["kernels"].items(), key=lambda kv: kv[1]["device_cycles"]):
        cycles = kernel["device_cycles"] / kernel["launches"]
        name = re.sub(r"^void |\(anonymous namespace\)::", "", kernel["name"])
        name = re.split(r"[<(]", name)[0]
        print(f"{name[:40]:<40} {cycles:>14.0f} {2 * fmas / cycles:>12.1f} {100 * fmas / cycles / peak_fmas:>9.1f}%")


if __name__ == "__main__":
    main()
