#!/usr/bin/env bash
# Runs one libFuzzer target for a bounded time, as ctest's fuzz.* tests and
# `make fuzz` do (docs/testing.md, "Fuzzing").
#
# Usage: tests/fuzz/run-fuzzer.sh FUZZER CORPUS SECONDS [LIBFUZZER-OPTION...]
# First every input of CORPUS runs once (the seeds and each crash kept as a
# regression case), then FUZZER mutates them for SECONDS. New inputs go to a
# scratch folder, never into CORPUS (merge them by hand: FUZZER -merge=1
# CORPUS NEW). Fails on a crash, a sanitizer report, a leak, an input that
# runs over 30 s or an out-of-memory past 2 GiB; the input is kept as
# ./crash-*, ./leak-*, ./timeout-* or ./oom-* (in ctest's folder for the
# test: build/tests/fuzz). Prints libFuzzer's last status line and its
# final statistics (executions, coverage).
set -uo pipefail
fuzzer=$1
corpus=$2
seconds=$3
shift 3
if [[ ! -x $fuzzer ]]; then
	echo "run-fuzzer: $fuzzer is not built (clang-16 and libclang-rt-16-dev, then the build)"
	exit 1
fi
[[ -d $corpus ]] || { echo "run-fuzzer: no corpus folder $corpus"; exit 1; }
artifacts=$PWD/$(basename "$fuzzer")-
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
"$fuzzer" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=2048 -print_final_stats=1 \
	-artifact_prefix="$artifacts" "$@" "$scratch" "$corpus" >"$scratch.log" 2>&1
status=$?
grep -aE '^#[0-9]+[[:space:]]+(INITED|DONE)' "$scratch.log" | tail -n 2
grep -a '^stat::' "$scratch.log"
inputs=$(find "$corpus" -type f | wc -l)
if ((status != 0)); then
	echo "---- libFuzzer's log:"
	tail -n 60 "$scratch.log"
	rm -f "$scratch.log"
	echo "run-fuzzer: $(basename "$fuzzer") FAILED (status $status; the input: ${artifacts}*)"
	exit 1
fi
rm -f "$scratch.log"
echo "run-fuzzer: $(basename "$fuzzer"): PASS ($inputs corpus inputs, then ${seconds} s of fuzzing)"
