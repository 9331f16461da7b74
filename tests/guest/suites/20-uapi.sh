#!/bin/sh
# The kernel driver's uAPI tests (tests/guest/uapi), run in the guest.
# simtgpu-uapi-test prints one line per test and "N passed, N failed"; it
# unloads and reloads simtgpu.ko itself (the hang test wants a short
# timeout), so nothing else may hold the device open meanwhile.
if ! command -v simtgpu-uapi-test >/dev/null 2>&1; then
	echo "uapi: simtgpu-uapi-test is not in the image"
	echo "uapi: 0 passed, 1 failed"
	exit 1
fi
if ! grep -q '^simtgpu ' /proc/modules; then
	if ! modprobe simtgpu; then
		echo "uapi: cannot load simtgpu.ko"
		echo "uapi: 0 passed, 1 failed"
		exit 1
	fi
fi
grep -q ' /sys/kernel/debug ' /proc/mounts ||
	mount -t debugfs debugfs /sys/kernel/debug
simtgpu-uapi-test
status=$?
# What the driver said while the tests ran (faults, the reset).
dmesg | grep -i simtgpu | tail -n 20
exit $status
