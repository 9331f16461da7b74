#!/usr/bin/env bash
# Runs every test suite of `make test` and prints one summary line:
#   "summary: N passed, N failed, N skipped"
# A skipped test (one this machine cannot run, e.g. without /dev/kvm) is
# neither passed nor failed; a guest check's "skip NAME: WHY" lines are
# repeated before the summary, so the log's tail says what did not run.
# Each suite must run at least the number of tests tests/expected-counts
# gives it (passed, failed and skipped together): one that ran fewer lost
# tests (a glob that matched nothing, a configure check that left a folder
# out) and fails, however its own tests did.
# Usage: scripts/run-tests.sh BUILD_DIR SANITIZER_BUILD_DIR
set -uo pipefail
build_dir=$1
san_dir=$2
top=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc)

passed=0
failed=0
skipped=0
failed_suites=()
# The failing checks' own lines, repeated at the end so that a log's tail
# (all CI keeps) names them.
failed_checks=()
skipped_checks=()

# note_failures SUITE LOG: remembers LOG's failure lines (ctest's
# "N - NAME (Failed)", a check's "FAIL NAME", a guest program's "NAME: FAIL
# (...)" or "umd: NAME FAILED (...)", a script's "guest-tests: ...").
note_failures() {
	local name=$1 log=$2 check
	while IFS= read -r check; do
		failed_checks+=("$name: $check")
	done < <(grep -aE '^[[:space:]]*[0-9]+ - .* \((Failed|Timeout|SEGFAULT|Subprocess aborted|Not Run|Exception)\)$|^FAIL |: FAIL( \(|[[:space:]]*$)|^umd: .* FAILED \(|^guest-tests: |^[A-Za-z0-9_-]+: exited [0-9]+ without a result line' "$log" |
		tr -d '\r' | sed -E 's/^[[:space:]]+//')
}

# expect_count SUITE RAN: fails SUITE if it ran fewer tests than
# tests/expected-counts says it has.
expected_counts=$top/tests/expected-counts
expect_count() {
	local name=$1 ran=$2 want
	want=$(awk -v s="$name" '$1 == s { print $2 }' "$expected_counts" 2>/dev/null)
	if [[ -z "$want" ]]; then
		failed_checks+=("$name: no expected count in tests/expected-counts")
	elif ((ran >= want)); then
		return
	else
		failed_checks+=("$name: ran $ran tests, expected at least $want (tests/expected-counts)")
	fi
	failed=$((failed + 1))
	failed_suites+=("$name")
}

# ctest prints "N% tests passed, F tests failed out of T", where T counts
# the skipped tests too, each listed as "  N - NAME (Skipped)".
run_ctest() {
	local name=$1 dir=$2 log
	log=$(mktemp)
	echo "== $name: ctest in $dir"
	ctest --test-dir "$dir" --output-on-failure -j "$jobs" 2>&1 | tee "$log"
	local line total bad skips
	line=$(grep -E 'tests failed out of [0-9]+' "$log" | tail -n 1)
	skips=$(grep -cE '^[[:space:]]*[0-9]+ - .* \(Skipped\)$' "$log")
	note_failures "$name" "$log"
	rm -f "$log"
	if [[ -z "$line" ]]; then
		echo "$name: ctest did not report a result"
		failed=$((failed + 1))
		failed_suites+=("$name")
		return
	fi
	total=$(sed -E 's/.*out of ([0-9]+).*/\1/' <<<"$line")
	bad=$(sed -E 's/.*, ([0-9]+) tests failed.*/\1/' <<<"$line")
	passed=$((passed + total - bad - skips))
	failed=$((failed + bad))
	skipped=$((skipped + skips))
	((bad == 0)) || failed_suites+=("$name")
	expect_count "$name" "$total"
}

# Suites that print their own "N passed, N failed[, N skipped]" line.
run_counted() {
	local name=$1
	shift
	local log check
	log=$(mktemp)
	echo "== $name: $*"
	"$@" 2>&1 | tee "$log"
	local status=${PIPESTATUS[0]}
	local line
	line=$(grep -E '^([A-Za-z-]+: )?[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
	note_failures "$name" "$log"
	while IFS= read -r check; do
		skipped_checks+=("$name: $check")
	done < <(grep -aE '^skip [^:]+: ' "$log" | tr -d '\r')
	rm -f "$log"
	if [[ -z "$line" ]]; then
		echo "$name: exited $status without a result line"
		failed=$((failed + 1))
		failed_suites+=("$name")
		return
	fi
	local p f s
	p=$(sed -E 's/^([A-Za-z-]+: )?([0-9]+) passed.*/\2/' <<<"$line")
	f=$(sed -E 's/.* ([0-9]+) failed.*/\1/' <<<"$line")
	s=$(sed -nE 's/.*, ([0-9]+) skipped.*/\1/p' <<<"$line")
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + ${s:-0}))
	if ((f != 0 || status != 0)); then
		((f == 0)) && failed=$((failed + 1))
		failed_suites+=("$name")
	fi
	expect_count "$name" "$((p + f + ${s:-0}))"
}

run_ctest unit "$build_dir"
run_ctest sanitizers "$san_dir"
if [[ -x "$top/scripts/guest-tests.sh" ]]; then
	run_counted guest "$top/scripts/guest-tests.sh" "$build_dir"
fi
# After the guest suites, which build QEMU (its checkpatch comes with it).
run_counted style "$top/scripts/check-style.sh"

echo
((${#skipped_checks[@]} == 0)) || printf 'skipped: %s\n' "${skipped_checks[@]}"
if ((${#failed_suites[@]})); then
	((${#failed_checks[@]} == 0)) || printf 'failed: %s\n' "${failed_checks[@]}"
	echo "failing suites: ${failed_suites[*]}"
fi
echo "summary: $passed passed, $failed failed, $skipped skipped"
((failed == 0))
