# Shell helpers for guest suites (installed as /opt/simtgpu/bin/checks.sh;
# a suite sources it). Each check is reported as "ok   NAME", "FAIL NAME" or
# "skip NAME: WHY" and counted in $passed, $failed and $skipped for the
# suite's closing line (result).
passed=0
failed=0
skipped=0

ok() {
	echo "ok   $1"
	passed=$((passed + 1))
}
bad() {
	echo "FAIL $1"
	failed=$((failed + 1))
}
# skip NAME WHY: a check this guest cannot run.
skip() {
	echo "skip $1: $2"
	skipped=$((skipped + 1))
}
# result SUITE: the closing line, "SUITE: N passed, N failed, N skipped".
result() {
	echo "$1: $passed passed, $failed failed, $skipped skipped"
}
# show TITLE FILE: a program's output, indented, for the log.
show() {
	echo "---- $1"
	sed 's/^/  /' "$2"
}
# has FILE REGEX...: every regex matches somewhere in FILE.
has() {
	file=$1
	shift
	for re in "$@"; do
		if ! grep -qE -- "$re" "$file"; then
			echo "     missing /$re/ in:"
			sed 's/^/     | /' "$file"
			return 1
		fi
	done
}
