#!/bin/sh
# The guest half of `make demo` (busybox sh; scripts/demo.sh boots the guest
# with this as its command, in the shared repository).
#
# Usage: sh scripts/demo-guest.sh BUILD_DIR EXAMPLE...
#
# Loads simtgpu.ko if init has not, shows the device and the driver
# (simtgpu-info), runs each example BUILD_DIR/bin/EXAMPLE on the render node
# (SIMTGPU_TRANSPORT=drm) and prints its output, measures the launch round
# trip, and ends with a summary: device, driver version, kernels launched and
# time per example, from the device's own launch counter. Exits non-zero when
# an example fails.
build=$1
shift
[ -n "$build" ] && [ "$#" -gt 0 ] || {
	echo "usage: demo-guest.sh BUILD_DIR EXAMPLE..." >&2
	exit 2
}
read -r boot_s _ </proc/uptime
echo "== simtgpu demo in the guest: $(uname -r), ${boot_s} s after the kernel started"

# Milliseconds since boot (10 ms resolution).
now_ms() {
	read -r up _ </proc/uptime
	echo "$up" | awk '{ printf "%d", $1 * 1000 + 0.5 }'
}
# The value of KEY in simtgpu-info's output.
info() { simtgpu-info 2>/dev/null | sed -n "s/^$1: //p"; }

if ! grep -q '^simtgpu ' /proc/modules; then
	modprobe simtgpu || { echo "demo: cannot load simtgpu.ko"; exit 1; }
fi
if [ ! -e /dev/dri/renderD128 ]; then
	echo "demo: no /dev/dri/renderD128; the driver said:"
	dmesg | grep -i simtgpu
	exit 1
fi
echo
echo "== device and driver"
lspci -nn -d 1234:5347
dmesg | grep -E 'simtgpu [0-9a-f]{4}:' | head -n 5
simtgpu-info | sed '/^launches:/,$d; s/^/  /' # the counters come in the summary
driver=$(info driver)
vram_mib=$(info vram_bytes | awk '{ printf "%d", $1 / 1048576 }')
clock_mhz=$(info clock_khz | awk '{ printf "%g", $1 / 1000 }')
device="simtgpu simt_$(info arch), $(info sms) SMs x $(info warps_per_sm) warps of $(info warp_size) threads, $clock_mhz MHz, $vram_mib MiB VRAM"

# run-qemu.sh names the accelerator it chose on the kernel command line.
accel=$(sed -n 's/.*simtgpu_accel=\([a-z]*\).*/\1/p' /proc/cmdline)
accel=${accel:-unknown}

export SIMTGPU_TRANSPORT=drm
summary=$(mktemp)
failed=0
for name in "$@"; do
	echo
	echo "== $name"
	before=$(info launches)
	start=$(now_ms)
	"$build/bin/$name"
	status=$?
	end=$(now_ms)
	after=$(info launches)
	if [ -n "$before" ] && [ -n "$after" ]; then
		launches=$((after - before))
	else
		launches="?"
	fi
	if [ "$status" -eq 0 ]; then result=PASS; else result="FAIL ($status)"; failed=$((failed + 1)); fi
	printf '  %-16s %-10s %8d ms %8s\n' "$name" "$result" $((end - start)) "$launches" >>"$summary"
done

echo
echo "== launch round trip (empty kernel, cudaLaunchKernel to cudaDeviceSynchronize)"
latency=$("$build/bin/simtgpu-launch-latency" 50 2>&1)
echo "$latency"

echo
echo "== what the timing model measured over all examples (simt-smi -q, docs/counters.md)"
simt-smi -q | sed -n '/^    Derived$/,/^    Processes$/p' | sed '1d;$d'

read -r done_s _ </proc/uptime
echo
echo "== summary"
echo "  device:   $device"
echo "  driver:   $driver"
echo "  QEMU accelerator: $accel"
echo "  kernels launched by the device: $(info launches) ($(info thread_instructions) thread instructions in $(info cycles) device cycles)"
echo "  $latency"
printf '  %-16s %-10s %11s %8s\n' example result time kernels
cat "$summary"
rm -f "$summary"
echo "  guest time: $(awk -v a="$boot_s" -v b="$done_s" 'BEGIN { printf "%.1f", b - a }') s for the demo, $done_s s since the kernel started"
if [ "$failed" -eq 0 ]; then
	echo "  all $# examples passed"
else
	echo "  $failed of $# examples FAILED"
fi
[ "$failed" -eq 0 ]
