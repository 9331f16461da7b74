#!/bin/sh
# libsimtgpu in the guest: the same uAPI conformance and driver API test
# binaries, and CUDA runtime programs, that ctest runs on the in-process
# transport, here on the kernel driver's render node (SIMTGPU_TRANSPORT=drm).
# Prints "umd: N passed, N failed, N skipped" from GoogleTest's counts and
# each CUDA program's "<name>: PASS". A test binary or program that exits
# non-zero fails even where its output looks fine.
passed=0
failed=0
skipped=0
if ! grep -q '^simtgpu ' /proc/modules && ! modprobe simtgpu; then
	echo "umd: cannot load simtgpu.ko"
	echo "umd: 0 passed, 1 failed"
	exit 1
fi
log=$(mktemp)
# The device's configuration file (QEMU's config=, which run-qemu.sh puts on
# the kernel command line; none: the simulator's defaults, functional.json),
# with which umd_uapi_tests and umd_device_props_tests compare what the
# driver and the CUDA runtime report.
SIMTGPU_SIM_CONFIG=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^simtgpu_config=//p')
export SIMTGPU_SIM_CONFIG
echo "umd: the device's configuration: ${SIMTGPU_SIM_CONFIG:-functional (no config=)}"
for test in umd_uapi_tests umd_unit_tests umd_driver_tests umd_device_props_tests; do
	if ! command -v "$test" >/dev/null 2>&1; then
		echo "umd: $test is not in the image"
		failed=$((failed + 1))
		continue
	fi
	SIMTGPU_TRANSPORT=drm "$test" >"$log" 2>&1
	status=$?
	cat "$log"
	p=$(grep -cE '^\[       OK \]' "$log")
	f=$(grep -cE '^\[  FAILED  \] .*\([0-9]+ ms\)$' "$log")
	s=$(grep -cE '^\[  SKIPPED \] .*\([0-9]+ ms\)$' "$log")
	if [ "$p" -eq 0 ] && [ "$f" -eq 0 ] && [ "$s" -eq 0 ]; then
		echo "umd: $test ran no tests"
		f=1
	elif [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "umd: $test exited with status $status"
		f=1
	fi
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + s))
done
# CUDA programs built by simtcc (the timeout and arch cases stay on the host:
# they need the in-process driver's settings).
for name in runtime_api sticky_errors; do
	program=umd-cuda-$name
	if ! command -v "$program" >/dev/null 2>&1; then
		echo "umd: $program is not in the image"
		failed=$((failed + 1))
		continue
	fi
	SIMTGPU_TRANSPORT=drm "$program" >"$log" 2>&1
	status=$?
	cat "$log"
	if [ "$status" -eq 0 ] && grep -q "^$name: PASS" "$log"; then
		echo "umd: $program passed"
		passed=$((passed + 1))
	else
		echo "umd: $program FAILED (exit status $status)"
		failed=$((failed + 1))
	fi
done
rm -f "$log"
dmesg | grep -i simtgpu | tail -n 10
echo "umd: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
