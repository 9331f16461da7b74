#!/usr/bin/env bash
# The guest tests of `make test`: builds QEMU (cached), the kernel module
# (make -C kmd) and the initramfs from BUILD_DIR, boots once, and runs tests/guest/init/run-suites.sh in the guest,
# which runs every tests/guest/suites/*.sh. Ends with one line
# "guest: N passed, N failed" and exits non-zero on any failure (a guest
# that cannot boot or hangs counts as one failure).
#
# Usage: scripts/guest-tests.sh BUILD_DIR
#   SIMTGPU_GUEST_TIMEOUT  seconds before a hung guest is killed (default 1200)
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build_dir=$(cd "${1:-$top/build}" && pwd) || exit 1
timeout_s=${SIMTGPU_GUEST_TIMEOUT:-1200}

fail() {
	echo "guest-tests: $*"
	echo "guest: 0 passed, 1 failed"
	exit 1
}

"$top/scripts/build-qemu.sh" >/dev/null || fail "building QEMU failed"
# The kernel driver (its suites need it; the device suite does not).
if [[ -f "$top/kmd/Makefile" ]] && ! make -C "$top/kmd" -s >/dev/null; then
	echo "guest-tests: building kmd/simtgpu.ko failed; the driver's suites will fail"
fi
# Each lab of docs/labs/, as written: its module and guest steps go into the
# image for tests/guest/suites/72-labs.sh (a lab that fails to build has no
# module there, and that suite fails naming it).
for lab in "$top"/docs/labs/*.md; do
	[[ -f $lab ]] || continue
	name=$(basename "$lab" .md)
	if ! "$top/scripts/build-lab.sh" "$lab" "$build_dir/labs/$name" >"$build_dir/lab-$name.log" 2>&1; then
		echo "guest-tests: the steps of docs/labs/$name.md failed (see $build_dir/lab-$name.log)"
		rm -rf "$build_dir/labs/$name"
		mkdir -p "$build_dir/labs/$name"
	fi
done
"$top/scripts/build-initramfs.sh" "$build_dir" >/dev/null || fail "building the initramfs failed"

log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$top/scripts/run-qemu.sh" --build "$build_dir" --timeout "$timeout_s" -- \
	env SIMTGPU_BUILD_DIR="$build_dir" run-suites.sh 2>&1 | tee "$log"
status=${PIPESTATUS[0]}

line=$(grep -aE '^guest: [0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
if [[ -z $line ]]; then
	fail "the guest ended (status $status) before reporting its suites"
fi
# Repeat the guest's total as the last line, for scripts/run-tests.sh.
echo "$line"
exit "$status"
