# Shared by the script tests (sourced): `check DESCRIPTION COMMAND...` runs
# COMMAND and reports "ok   DESCRIPTION" or "FAIL DESCRIPTION", counting
# failures in $failures.
failures=0
check() {
	local what=$1
	shift
	if "$@"; then echo "ok   $what"; else echo "FAIL $what"; failures=$((failures + 1)); fi
}
