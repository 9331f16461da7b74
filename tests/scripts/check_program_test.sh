#!/usr/bin/env bash
# Tests of cmake/check-program.sh, the judge of every program test: a program
# that prints PASS but exits non-zero or crashes must fail.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
check=$top/cmake/check-program.sh
failures=0

# verdict WANT DESCRIPTION CHECK-ARGS... -- SHELL-CODE
verdict() {
	local want=$1 what=$2 out status
	shift 2
	out=$("$check" "$@" 2>&1)
	status=$?
	if { [[ $want == pass ]] && ((status == 0)); } || { [[ $want == fail ]] && ((status == 1)); }; then
		echo "ok   $what"
	else
		echo "FAIL $what: check-program exited $status; it said:"
		sed 's/^/     | /' <<<"$out"
		failures=$((failures + 1))
	fi
}

verdict pass "PASS and exit 0 passes" --expect '^t: PASS' -- sh -c 'echo "t: PASS"'
verdict fail "PASS and exit 1 fails" --expect '^t: PASS' -- sh -c 'echo "t: PASS"; exit 1'
verdict fail "PASS and a crash fails" --expect '^t: PASS' -- sh -c 'echo "t: PASS"; kill -SEGV $$'
verdict fail "exit 0 without PASS fails" --expect '^t: PASS' -- sh -c 'echo "t: FAIL"'
verdict fail "every expected line is needed" --expect '^a$' --expect '^b$' -- sh -c 'echo a'
verdict fail "a rejected line fails" --expect '^t: PASS' --reject 'FAIL' -- sh -c 'echo "t: PASS"; echo "x: FAIL"'
verdict pass "an expected failure status passes" --status 1 --expect '^error: out of memory$' -- sh -c 'echo "error: out of memory"; exit 1'
verdict fail "an expected failure status must be that status" --status 1 --expect 'error' -- sh -c 'echo "error"; exit 0'
verdict fail "stderr counts as output" --expect '^nowhere$' -- sh -c 'echo "t: PASS" >&2'
verdict pass "stderr is seen" --expect '^t: PASS' -- sh -c 'echo "t: PASS" >&2'
out=$("$check" --expect x -- sh -c 'kill -SEGV $$' 2>&1)
if grep -q 'killed by signal SEGV' <<<"$out"; then echo "ok   a crash is named"; else
	echo "FAIL a crash is named: $out"; failures=$((failures + 1)); fi
((failures == 0))
