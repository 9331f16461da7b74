#!/usr/bin/env bash
# Test of scripts/run-tests.sh, the summary of `make test`, on stand-in
# suites: a ctest with one failing test, a guest suite with a failing check and
# two failing programs and a skipped check, and a style suite that passes. The counts must
# add up and the end of the output (all a CI log keeps) must name each failure and each
# skipped guest check with its reason.
#   run_tests_test.sh
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tree=$(mktemp -d /tmp/run-tests-test.XXXXXX)
trap 'rm -rf "$tree"' EXIT
. "$top/tests/scripts/checks.sh"

mkdir -p "$tree/scripts" "$tree/bin" "$tree/unit" "$tree/san" "$tree/tests"
cp "$top/scripts/run-tests.sh" "$tree/scripts/"
# Each stand-in suite runs exactly what it is expected to.
printf 'unit 3\nsanitizers 2\nguest 8\nstyle 2\n' >"$tree/tests/expected-counts"
# ctest as the real one prints it: a failing test in the unit build only.
cat >"$tree/bin/ctest" <<'SH'
#!/bin/sh
case "$2" in
*/unit)
	printf '67%% tests passed, 1 tests failed out of 3\n\n'
	printf 'The following tests FAILED:\n\t  2 - sim.Broken (Failed)\n' ;;
*)
	printf '100%% tests passed, 0 tests failed out of 2\n\n'
	printf 'The following tests did not run:\n\t  1 - sim.NeedsKvm (Skipped)\n' ;;
esac
SH
# The guest suite's output comes from a serial console: CR LF line ends.
cat >"$tree/scripts/guest-tests.sh" <<'SH'
#!/bin/sh
printf 'ok   device: probe\r\nFAIL sharing: fair shares GPU time 1,3 within tolerance\r\n'
printf 'vector_add: PASS\r\nstencil: FAIL (exit status 1, expected 0)\r\n'
printf 'umd: umd_driver_tests FAILED (exit status 1)\r\n'
printf 'skip hot unplug, rescan: no second device\r\n'
printf 'guest: 4 passed, 3 failed, 1 skipped\n'
exit 1
SH
cat >"$tree/scripts/check-style.sh" <<'SH'
#!/bin/sh
echo "style: 2 passed, 0 failed"
SH
chmod +x "$tree/bin/ctest" "$tree/scripts/"*.sh

PATH="$tree/bin:$PATH" "$tree/scripts/run-tests.sh" "$tree/unit" "$tree/san" >"$tree/out" 2>&1
status=$?
tail_lines=$(tail -n 7 "$tree/out")
check "exits non-zero on a failure" test "$status" -ne 0
check "counts every suite" grep -qx 'summary: 9 passed, 4 failed, 2 skipped' "$tree/out"
check "the tail names the skipped guest check and why" \
	grep -qx 'skipped: guest: skip hot unplug, rescan: no second device' <<<"$tail_lines"
check "the tail names the failing unit test" grep -qx 'failed: unit: 2 - sim.Broken (Failed)' <<<"$tail_lines"
check "the tail names the failing guest check" \
	grep -qx 'failed: guest: FAIL sharing: fair shares GPU time 1,3 within tolerance' <<<"$tail_lines"
check "the tail names the failing guest program" \
	grep -qx 'failed: guest: stencil: FAIL (exit status 1, expected 0)' <<<"$tail_lines"
check "the tail names the failing umd program" \
	grep -qx 'failed: guest: umd: umd_driver_tests FAILED (exit status 1)' <<<"$tail_lines"
check "the tail names the failing suites" grep -qx 'failing suites: unit guest' <<<"$tail_lines"
((failures == 0)) || cat "$tree/out"

# A suite that ran fewer tests than it is expected to fails, named in the tail,
# though its own tests passed; so does one with no expected count.
printf 'unit 3\nsanitizers 2\nguest 8\nstyle 3\n' >"$tree/tests/expected-counts"
PATH="$tree/bin:$PATH" "$tree/scripts/run-tests.sh" "$tree/unit" "$tree/san" >"$tree/out2" 2>&1
tail_lines=$(tail -n 9 "$tree/out2")
check "a suite that ran fewer tests than expected fails" \
	grep -qx 'failed: style: ran 2 tests, expected at least 3 (tests/expected-counts)' <<<"$tail_lines"
check "... and is among the failing suites" grep -qx 'failing suites: unit guest style' <<<"$tail_lines"
check "... and counts as a failure" grep -qx 'summary: 9 passed, 5 failed, 2 skipped' "$tree/out2"
printf 'unit 3\nsanitizers 2\nguest 8\n' >"$tree/tests/expected-counts"
PATH="$tree/bin:$PATH" "$tree/scripts/run-tests.sh" "$tree/unit" "$tree/san" >"$tree/out3" 2>&1
check "a suite with no expected count fails" \
	grep -qx 'failed: style: no expected count in tests/expected-counts' "$tree/out3"
((failures == 0)) || cat "$tree/out2" "$tree/out3"
echo "$((failures == 0 ? 1 : 0)) passed, $failures failed"
((failures == 0))
