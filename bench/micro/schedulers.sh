#!/usr/bin/env bash
# Scheduler sensitivity: runs examples/sweeps/schedulers.json (the example
# kernels x 4 warp schedulers x 3 occupancies on `teaching`) with simt-sweep and
# prints device cycles as a table, a column per scheduler, the fewest marked
# with a *, and the thread instructions (the same under every scheduler).
#
# Usage: bench/micro/schedulers.sh [BUILD_DIR [OUT_DIR]]
#   BUILD_DIR: default build/; OUT_DIR: default BUILD_DIR/micro-schedulers.sweep
#   (a rerun reuses its points: delete it, or pass another, to measure again)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
out=${2:-$build/micro-schedulers.sweep}
"$build/bin/simt-sweep" "$top/examples/sweeps/schedulers.json" -o "$out" >&2
awk -F, '
	NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i; next }
	$col["status"] != "ok" { printf "failed: %s %s %s: %s\n", $col["program"],
		$col["warp_scheduler"], $col["warps_per_sm"], $col["error"] > "/dev/stderr"; next }
	{
		key = $col["program"] SUBSEP $col["warps_per_sm"]
		if (!(key in seen)) { seen[key] = 1; order[++rows] = key }
		cycles[key, $col["warp_scheduler"]] = $col["total.device_cycles"]
		insns[key] = $col["total.thread_instructions"]
	}
	END {
		n = split("round-robin gto oldest-first two-level", sched, " ")
		printf "| program | warps/SM |"
		for (s = 1; s <= n; ++s) printf " %s |", sched[s]
		printf " thread instructions |\n|---|---|"
		for (s = 1; s <= n; ++s) printf "---|"
		printf "---|\n"
		for (r = 1; r <= rows; ++r) {
			split(order[r], k, SUBSEP)
			best = ""
			for (s = 1; s <= n; ++s) {
				c = cycles[order[r], sched[s]]
				if (c != "" && (best == "" || c + 0 < best + 0)) best = c
			}
			printf "| %s | %s |", k[1], k[2]
			for (s = 1; s <= n; ++s) {
				c = cycles[order[r], sched[s]]
				printf " %s%s |", c, (c == best ? "*" : "")
			}
			printf " %s |\n", insns[order[r]]
		}
	}' "$out/results.csv"
