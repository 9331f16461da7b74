#!/usr/bin/env bash
# The guest tests of `make test`: builds QEMU (cached), the kernel module
# (make -C kmd) and the initramfs from BUILD_DIR, boots once, and runs tests/guest/init/run-suites.sh in the guest,
# which runs every tests/guest/suites/*.sh, then boots again with the device's
# SMs on two host threads (threads=2) to run a few CUDA programs that check
# their results against the CPU, through the kernel driver, again with
# config=ampere for tests/cuda/l2_persisting (persisting L2 lines), and a fourth time
# with the device's trace=FILE to check the trace QEMU writes on the host
# (tests/guest/device_trace). Ends with one line
# "guest: N passed, N failed, N skipped" (the skips are the suites' own,
# each shown in the log as "skip NAME: WHY") and exits non-zero on any
# failure (a guest that cannot boot or hangs counts as one failure). A
# program passes only when it exits 0 AND prints its PASS line: one that
# prints PASS and then exits non-zero or dies of a signal fails.
#
# Usage: scripts/guest-tests.sh BUILD_DIR
#   SIMTGPU_GUEST_TIMEOUT  seconds before a hung guest is killed (default 1200)
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build_dir=$(cd "${1:-$top/build}" && pwd) || exit 1
timeout_s=${SIMTGPU_GUEST_TIMEOUT:-1200}

fail() {
	echo "guest-tests: $*"
	echo "guest: 0 passed, 1 failed, 0 skipped"
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
# Simulator labs (only "```sh lab-host" blocks) run on the host: tests/labs
# runs most; those marked "lab-test: guest-tests" (too slow for ctest) run
# here and count as one failure each if they fail.
host_lab_failures=0
for lab in "$top"/docs/labs/*.md; do
	[[ -f $lab ]] || continue
	name=$(basename "$lab" .md)
	if ! grep -qx '```sh lab' "$lab"; then
		if grep -q '^<!-- lab-test: guest-tests' "$lab" &&
			! "$top/scripts/run-lab.sh" "$lab" "$build_dir" >"$build_dir/lab-$name.log" 2>&1; then
			echo "guest-tests: the steps of docs/labs/$name.md failed (see $build_dir/lab-$name.log)"
			host_lab_failures=$((host_lab_failures + 1))
		fi
		continue
	fi
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

line=$(grep -aE '^guest: [0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1 | tr -d '\r')
if [[ -z $line ]]; then
	fail "the guest ended (status $status) before reporting its suites"
fi
read -r passed failed < <(sed -E 's/^guest: ([0-9]+) passed, ([0-9]+) failed.*/\1 \2/' <<<"$line")
skipped=$(sed -nE 's/.*, ([0-9]+) skipped.*/\1/p' <<<"$line")
skipped=${skipped:-0}
failed=$((failed + host_lab_failures))
# The suites' line says how they ended; a guest that exited non-zero with
# no failure counted (run-suites.sh killed, a panic after the line) is one.
if ((status != 0 && failed == 0)); then
	echo "guest-tests: the guest suites exited with status $status after reporting no failure"
	failed=1
fi

# The QEMU device's threads= property: the same programs pass with the
# functional model's SMs on two host threads (docs/simulator.md).
threads_programs="vector_add matmul_tiled histogram_atomic threadfence printf grid_sync"
"$top/scripts/run-qemu.sh" --build "$build_dir" --timeout 600 --device-opts threads=2 -- \
	env SIMTGPU_BUILD_DIR="$build_dir" sh -c 'for p in '"$threads_programs"'; do
		"$SIMTGPU_BUILD_DIR/tests/cuda/$p" >/tmp/threads.out 2>&1
		s=$?
		cat /tmp/threads.out
		if [ "$s" -eq 0 ] && grep -q "^$p: PASS" /tmp/threads.out; then
			echo "threads=2: $p: PASS"
		else
			echo "threads=2: $p: FAIL (exit status $s)"
		fi
	done' 2>&1 | tee "$log"
threads_passed=$(grep -ac '^threads=2: .*: PASS' "$log")
for p in $threads_programs; do
	if ! grep -aq "^threads=2: $p: PASS" "$log"; then
		echo "guest-tests: $p failed on a device with threads=2 (or the guest ended first)"
		failed=$((failed + 1))
	fi
done
passed=$((passed + threads_passed))

# The QEMU device's config=ampere (an A100, the one preset with persisting
# L2 lines): tests/cuda/l2_persisting through the kernel driver, its counters
# read from sysfs. The driver is loaded again with a job timeout that lets a
# sweep of 1.5 x 40 MiB of L2, cycle by cycle on 108 SMs, finish.
"$top/scripts/run-qemu.sh" --build "$build_dir" --timeout 900 --device-opts config=ampere -- \
	env SIMTGPU_BUILD_DIR="$build_dir" sh -c 'rmmod simtgpu; modprobe simtgpu timeout_ms=600000 &&
		SIMTGPU_TRANSPORT=drm "$SIMTGPU_BUILD_DIR/tests/cuda/l2_persisting"' >"$log" 2>&1
l2_status=$?
if ((l2_status == 0)) && grep -aq '^l2_persisting: PASS' "$log"; then
	echo "config=ampere: l2_persisting: PASS"
	passed=$((passed + 1))
else
	cat "$log"
	echo "guest-tests: l2_persisting failed on a device with config=ampere (exit status $l2_status; or the guest ended first)"
	failed=$((failed + 1))
fi

# The QEMU device's trace=FILE property: the device writes its own trace on
# the host while the guest runs one program with SIMTGPU_STATS on the kernel
# driver; device_trace_check then holds the file against those statistics
# (its grid, CTAs and issued instructions; docs/trace.md).
device_trace=$build_dir/guest-device-trace.json
device_stats=$build_dir/guest-device-stats.json
rm -f "$device_trace" "$device_stats"
"$top/scripts/run-qemu.sh" --build "$build_dir" --timeout 600 \
	--device-opts "trace=$device_trace,trace-max-events=200000" -- \
	env SIMTGPU_BUILD_DIR="$build_dir" sh -c \
	'SIMTGPU_STATS="$SIMTGPU_BUILD_DIR/guest-device-stats.json" "$SIMTGPU_BUILD_DIR/tests/cuda/vector_add"' \
	>"$log" 2>&1
if SIMTGPU_DEVICE_TRACE=$device_trace SIMTGPU_DEVICE_STATS=$device_stats \
	"$build_dir/bin/device_trace_check" >"$log" 2>&1; then
	echo "device trace: PASS"
	passed=$((passed + 1))
else
	cat "$log"
	echo "guest-tests: the device's trace=FILE did not match the guest's statistics"
	failed=$((failed + 1))
fi
line="guest: $passed passed, $failed failed, $skipped skipped"
((failed == 0)) || status=1
# Repeat the guest's total as the last line, for scripts/run-tests.sh.
echo "$line"
exit "$status"
