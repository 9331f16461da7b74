#!/usr/bin/env bash
# Tests of the guest harness without a guest: scripts/guest-tests.sh on a
# stand-in tree (run-qemu.sh runs the guest's command here, the programs are
# small scripts), tests/guest/init/run-suites.sh and tests/guest/suites/72-labs.sh
# on folders made here. Each defect of issue 49 that let a guest test pass by
# accident has a case:
#   guest-tests.sh judged a program by `prog | grep -q PASS` (its exit status
#   and crashes ignored), dropped the suites' skip count, and took a guest
#   that exited non-zero after "0 failed" as a pass;
#   run-suites.sh and 72-labs.sh passed an empty folder as "0 passed, 0 failed".
# Usage: guest_harness_test.sh CASE   (no CASE: every case)
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/scripts/checks.sh"
work=$(mktemp -d /tmp/guest-harness-test.XXXXXX)
trap 'rm -rf "$work"' EXIT

threads_programs="vector_add matmul_tiled histogram_atomic threadfence printf grid_sync"

# program PATH NAME BEHAVIOUR: a stand-in test program that prints
# "NAME: PASS" and then exits 0 ("pass"), exits 1 ("exit1"), or dies of
# SIGSEGV ("crash"); "fail" prints "NAME: FAIL" and exits 1.
program() {
	case $3 in
	pass) printf '#!/bin/sh\necho "%s: PASS"\n' "$2" ;;
	exit1) printf '#!/bin/sh\necho "%s: PASS"\nexit 1\n' "$2" ;;
	crash) printf '#!/bin/sh\necho "%s: PASS"\nkill -SEGV $$\n' "$2" ;;
	fail) printf '#!/bin/sh\necho "%s: FAIL"\nexit 1\n' "$2" ;;
	esac >"$1"
	chmod +x "$1"
}

# guest_tree: a copy of scripts/guest-tests.sh beside stand-ins for the
# steps around it; the "guest" runs the command on this host, with
# tests/guest/init/run-suites.sh replaced by $work/guest/run-suites.sh.
guest_tree() {
	local t=$work/tree
	rm -rf "$t"
	mkdir -p "$t/scripts" "$t/build/tests/cuda" "$t/build/bin" "$t/guest"
	cp "$top/scripts/guest-tests.sh" "$t/scripts/"
	printf '#!/bin/sh\nexit 0\n' >"$t/scripts/build-qemu.sh"
	printf '#!/bin/sh\nexit 0\n' >"$t/scripts/build-initramfs.sh"
	# run-qemu.sh [options] -- CMD...: CMD's output and exit status, as the
	# real one gives them.
	cat >"$t/scripts/run-qemu.sh" <<'SH'
#!/usr/bin/env bash
while (($#)) && [[ $1 != -- ]]; do shift; done
shift
PATH=$(dirname "$0")/../guest:$PATH "$@"
SH
	printf '#!/bin/sh\nexit 0\n' >"$t/guest/rmmod"
	printf '#!/bin/sh\nexit 0\n' >"$t/guest/modprobe"
	printf '#!/bin/sh\nexit 0\n' >"$t/build/bin/device_trace_check"
	chmod +x "$t/scripts/"*.sh "$t/guest/"* "$t/build/bin/"*
	for p in $threads_programs l2_persisting; do
		program "$t/build/tests/cuda/$p" "$p" pass
	done
	suites "guest: 5 passed, 0 failed, 0 skipped" 0
}

# suites LINE STATUS [MORE]: the guest's run-suites.sh prints MORE, then
# LINE, and exits STATUS.
suites() {
	{
		echo '#!/bin/sh'
		[[ -z ${3:-} ]] || echo "echo '$3'"
		echo "echo '$1'"
		echo "exit $2"
	} >"$work/tree/guest/run-suites.sh"
	chmod +x "$work/tree/guest/run-suites.sh"
}

# guest_tests: runs the copy; sets $status and $last (its last line).
guest_tests() {
	SIMTGPU_GUEST_TIMEOUT=60 "$work/tree/scripts/guest-tests.sh" "$work/tree/build" \
		>"$work/out" 2>&1
	status=$?
	last=$(tail -n 1 "$work/out")
}

expect_line() { grep -qxF -- "$1" "$work/out"; }

case_all_pass() {
	guest_tree
	guest_tests
	check "all pass: exit 0" test "$status" -eq 0
	check "all pass: 5 + 6 + 1 + 1 passed" test "$last" = "guest: 13 passed, 0 failed, 0 skipped"
}

case_threads_exit_status() {
	guest_tree
	program "$work/tree/build/tests/cuda/vector_add" vector_add exit1
	guest_tests
	check "PASS then exit 1: the run fails" test "$status" -ne 0
	check "PASS then exit 1: named with its status" \
		expect_line "threads=2: vector_add: FAIL (exit status 1)"
	check "PASS then exit 1: counted" test "$last" = "guest: 12 passed, 1 failed, 0 skipped"
}

case_threads_crash() {
	guest_tree
	program "$work/tree/build/tests/cuda/grid_sync" grid_sync crash
	guest_tests
	check "PASS then SIGSEGV: the run fails" test "$status" -ne 0
	check "PASS then SIGSEGV: named with its status" \
		expect_line "threads=2: grid_sync: FAIL (exit status 139)"
	check "PASS then SIGSEGV: counted" test "$last" = "guest: 12 passed, 1 failed, 0 skipped"
}

case_l2_exit_status() {
	guest_tree
	program "$work/tree/build/tests/cuda/l2_persisting" l2_persisting exit1
	guest_tests
	check "l2_persisting PASS then exit 1: the run fails" test "$status" -ne 0
	check "l2_persisting PASS then exit 1: counted" \
		test "$last" = "guest: 12 passed, 1 failed, 0 skipped"
}

case_skips_counted() {
	guest_tree
	suites "guest: 5 passed, 0 failed, 2 skipped" 0 'skip uapi: hot unplug: no second device'
	guest_tests
	check "skips: exit 0" test "$status" -eq 0
	check "skips: the suites' count reaches the summary" \
		test "$last" = "guest: 13 passed, 0 failed, 2 skipped"
	check "skips: the reason is in the log" expect_line "skip uapi: hot unplug: no second device"
}

case_suites_status() {
	guest_tree
	suites "guest: 5 passed, 0 failed, 0 skipped" 3
	guest_tests
	check "suites exit 3 after 0 failed: the run fails" test "$status" -ne 0
	check "suites exit 3 after 0 failed: one failure" \
		test "$last" = "guest: 13 passed, 1 failed, 0 skipped"
}

# run-suites.sh on a folder of stand-in suites.
run_suites() {
	sh "$top/tests/guest/init/run-suites.sh" "$1" >"$work/out" 2>&1
	status=$?
	last=$(tail -n 1 "$work/out")
}

case_no_suites() {
	mkdir -p "$work/none"
	run_suites "$work/none"
	check "no suites: run-suites.sh fails" test "$status" -ne 0
	check "no suites: one failure" test "$last" = "guest: 0 passed, 1 failed, 0 skipped"
	check "no suites: says why" expect_line "run-suites: no guest suite in $work/none"
}

case_suite_skips() {
	mkdir -p "$work/suites"
	cat >"$work/suites/10-a.sh" <<SH
. "$top/tests/guest/init/checks.sh"
ok "one"
skip "two" "no device here"
result a
SH
	printf 'echo "b: 2 passed, 0 failed"\nexit 1\n' >"$work/suites/20-b.sh"
	run_suites "$work/suites"
	check "suites: skip counted, a suite exiting 1 after 0 failed is a failure" \
		test "$last" = "guest: 3 passed, 1 failed, 1 skipped"
	check "suites: the skip's reason is shown" expect_line "skip two: no device here"
}

case_no_labs() {
	mkdir -p "$work/labs"
	SIMTGPU_LABS_DIR=$work/labs sh "$top/tests/guest/suites/72-labs.sh" >"$work/out" 2>&1
	status=$?
	check "no labs: 72-labs.sh fails" test "$status" -ne 0
	check "no labs: one failure" test "$(tail -n 1 "$work/out")" = "labs: 0 passed, 1 failed"
}

cases=${1:-all_pass threads_exit_status threads_crash l2_exit_status skips_counted suites_status no_suites suite_skips no_labs}
for c in $cases; do
	before=$failures
	"case_$c"
	((failures == before)) || { echo "---- output of the last run ($c):"; sed 's/^/| /' "$work/out"; }
done
echo "$((failures == 0 ? 1 : 0)) passed, $failures failed"
((failures == 0))
