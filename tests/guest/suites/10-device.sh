#!/bin/sh
# The device itself, from userspace, without the kernel driver: registers,
# a launch through a ring and page tables in VRAM, a DMA copy, a fault.
# simtgpu-device-test prints per-check results and "N passed, N failed".
if [ -e /sys/module/simtgpu ]; then
	# The driver owns the device; the test drives it by hand.
	rmmod simtgpu || { echo "10-device: cannot unload simtgpu"; exit 1; }
	reload=1
fi
simtgpu-device-test
status=$?
[ -z "$reload" ] || modprobe simtgpu
exit $status
