# Shell helpers for guest suites (installed as /opt/simtgpu/bin/checks.sh;
# a suite sources it). Each check is reported as "ok   NAME" or "FAIL NAME"
# and counted in $passed and $failed for the suite's closing line.
passed=0
failed=0

ok() {
	echo "ok   $1"
	passed=$((passed + 1))
}
bad() {
	echo "FAIL $1"
	failed=$((failed + 1))
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
