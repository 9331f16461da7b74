#!/usr/bin/env bash
# Runs a test program and judges it by its exit status AND its output:
# CTest's PASS_REGULAR_EXPRESSION alone ignores the exit status, so a program
# that printed PASS and then exited 1 or crashed would pass.
#
# Usage: check-program.sh [--status N] [--expect REGEX]... [--reject REGEX]... -- PROGRAM ARGS...
#   --status N      the exit status the program must end with (default 0)
#   --expect REGEX  an extended regular expression its output must match
#   --reject REGEX  one its output must not match
# The program's stdout and stderr are passed through. Exits 0 when every
# check holds, 1 otherwise, naming each check that failed.
set -uo pipefail

want_status=0
expects=()
rejects=()
while (($#)); do
	case "$1" in
	--status) want_status=$2; shift 2 ;;
	--expect) expects+=("$2"); shift 2 ;;
	--reject) rejects+=("$2"); shift 2 ;;
	--) shift; break ;;
	*) echo "check-program: unknown option $1" >&2; exit 2 ;;
	esac
done
(($#)) || { echo "check-program: no program given" >&2; exit 2; }

log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$@" >"$log" 2>&1
status=$?
cat "$log"

problems=()
if ((status != want_status)); then
	if ((status > 128)); then
		problems+=("$1 was killed by signal $(kill -l $((status - 128)) 2>/dev/null || echo $((status - 128))) (exit status $status; expected $want_status)")
	else
		problems+=("$1 exited with status $status (expected $want_status)")
	fi
fi
for re in ${expects[@]+"${expects[@]}"}; do
	grep -qaE -- "$re" "$log" || problems+=("the output does not match /$re/")
done
for re in ${rejects[@]+"${rejects[@]}"}; do
	if grep -qaE -- "$re" "$log"; then problems+=("the output matches /$re/"); fi
done
for problem in ${problems[@]+"${problems[@]}"}; do
	echo "check-program: FAIL: $problem"
done
((${#problems[@]} == 0))
