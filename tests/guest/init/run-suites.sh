#!/bin/sh
# Runs every guest test suite (SUITES_DIR/*.sh, default /opt/simtgpu/suites)
# in name order and sums their results. Each suite prints its own
# "N passed, N failed[, N skipped]" line (the last such line counts); a suite
# that exits non-zero with no failures counted, or prints no such line,
# counts as one failure, and so does a folder with no suite at all (an
# image built without them must not pass as "0 passed, 0 failed"). Ends
# with "guest: N passed, N failed, N skipped"; exits 1 on any failure.
suites_dir=${1:-/opt/simtgpu/suites}
passed=0
failed=0
skipped=0
failing=
ran=0
tmp=$(mktemp -d)

for suite in "$suites_dir"/*.sh; do
	[ -e "$suite" ] || continue
	name=$(basename "$suite" .sh)
	ran=$((ran + 1))
	echo "== guest suite $name"
	{
		sh "$suite"
		echo $? >"$tmp/status"
	} 2>&1 | tee "$tmp/log"
	status=$(cat "$tmp/status")
	line=$(grep -E '^([A-Za-z0-9_-]+: )?[0-9]+ passed, [0-9]+ failed' "$tmp/log" | tail -n 1)
	if [ -z "$line" ]; then
		echo "$name: exited $status without a result line"
		failed=$((failed + 1))
		failing="$failing $name"
		continue
	fi
	p=$(echo "$line" | sed -E 's/^([A-Za-z0-9_-]+: )?([0-9]+) passed.*/\2/')
	f=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
	s=$(echo "$line" | sed -nE 's/.*, ([0-9]+) skipped.*/\1/p')
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + ${s:-0}))
	if [ "$f" -ne 0 ] || [ "$status" -ne 0 ]; then
		[ "$f" -eq 0 ] && failed=$((failed + 1))
		failing="$failing $name"
	fi
done
rm -rf "$tmp"
if [ "$ran" -eq 0 ]; then
	echo "run-suites: no guest suite in $suites_dir"
	failed=$((failed + 1))
	failing=" (none)"
fi

[ -z "$failing" ] || echo "failing guest suites:$failing"
echo "guest: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
