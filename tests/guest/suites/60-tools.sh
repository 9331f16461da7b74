#!/bin/sh
# simt-smi and simt-doctor on the kernel driver. Values simt-smi reports
# (through libsimtgpu's GET_PARAM and fdinfo) are checked against the
# driver's sysfs attributes and /proc/PID/fdinfo read here. A program from
# examples/failures (bystander) keeps the GPU busy for the process checks.
# Prints "tools: N passed, N failed, N skipped".
. /opt/simtgpu/bin/checks.sh
build=${SIMTGPU_BUILD_DIR:-}
bystander=$build/examples/failures/bystander
tmp=$(mktemp -d)
# The image leaves programs that load LLVM (libsimtgpu does) on the host:
# take the tools from the build tree through the share when not on PATH.
[ -n "$build" ] && PATH=$PATH:$build/bin


if ! command -v simt-smi >/dev/null 2>&1 || ! command -v simt-doctor >/dev/null 2>&1; then
	echo "tools: simt-smi or simt-doctor is not in the image"
	echo "tools: 0 passed, 1 failed"
	exit 1
fi
if ! grep -q '^simtgpu ' /proc/modules && ! modprobe simtgpu; then
	echo "tools: cannot load simtgpu.ko"
	echo "tools: 0 passed, 1 failed"
	exit 1
fi
unset SIMTGPU_TRANSPORT
node=$(ls -d /sys/class/drm/renderD* 2>/dev/null | head -n 1)
sysdev=$node/device

# --- simt-doctor: every check passes on a healthy guest.
simt-doctor >"$tmp/out" 2>&1
status=$?
show "simt-doctor (exit $status)" "$tmp/out"
n_ok=$(grep -c '^\[ ok \]' "$tmp/out")
if [ $status -eq 0 ] && [ "$n_ok" -ge 9 ] && ! grep -q '^\[FAIL\]' "$tmp/out" &&
	grep -q '^\[ ok \] tiny kernel' "$tmp/out"; then
	ok "simt-doctor: $n_ok checks ok, exit 0"
else
	bad "simt-doctor: all checks ok, exit 0"
fi

# --- simt-smi --query-gpu against sysfs.
simt-smi --query-gpu=pci.bus_id,arch,memory.total,sm_count,transport,uapi.driver,uapi.runtime \
	--format=csv,noheader,nounits >"$tmp/out" 2>&1
status=$?
show "simt-smi --query-gpu (exit $status)" "$tmp/out"
expected="$(basename "$(readlink -f "$sysdev")"), $(cat "$sysdev/arch"), $(($(cat "$sysdev/vram_total") >> 20)), $(cat "$sysdev/sm_count"), drm, $(cat /sys/module/simtgpu/version), $(cat /sys/module/simtgpu/version)"
if [ $status -eq 0 ] && [ "$(cat "$tmp/out")" = "$expected" ]; then
	ok "simt-smi --query-gpu matches sysfs ($expected)"
else
	echo "     expected: $expected"
	bad "simt-smi --query-gpu matches sysfs"
fi

# --- a running process: listed with the VRAM its fdinfo shows.
"$bystander" 12 >"$tmp/bystander" 2>&1 &
pid=$!
sleep 3
simt-smi >"$tmp/table" 2>&1
# Three one-second samples: on one guest CPU the program spends some
# intervals on its host side only.
timeout -s INT 4 simt-smi -l 1 --query-gpu=utilization.gpu,processes --format=csv,noheader,nounits \
	>"$tmp/util" 2>&1
kib=0
for f in /proc/$pid/fdinfo/*; do
	v=$(awk '/^drm-driver:/ {d = $2} /^drm-memory-vram:/ {m = $2} END {if (d == "simtgpu") print m}' "$f" 2>/dev/null)
	[ -n "$v" ] && kib=$((kib + v))
done
wait $pid
bystander_status=$?
show "simt-smi while bystander (pid $pid, $kib KiB in fdinfo) runs" "$tmp/table"
show "utilization.gpu, processes" "$tmp/util"
if grep -qE "^\| +0 +$pid +bystander +$((kib / 1024)) MiB" "$tmp/table"; then
	ok "simt-smi lists the process with its VRAM ($((kib / 1024)) MiB)"
else
	bad "simt-smi lists the process with its VRAM"
fi
util=$(cut -d, -f1 "$tmp/util" | sort -n | tail -n 1)
procs=$(cut -d, -f2 "$tmp/util" | tr -d ' ' | sort -u)
if [ "$procs" = 1 ] && [ "$util" -gt 0 ] 2>/dev/null; then
	ok "simt-smi: utilisation up to $util % with one process"
else
	bad "simt-smi: utilisation > 0 with one process"
fi
if [ $bystander_status -eq 0 ]; then
	ok "the process ran correctly meanwhile"
else
	show "bystander" "$tmp/bystander"
	bad "the process ran correctly meanwhile"
fi

# --- -l: one header, a line per interval; -q: the full report.
timeout -s INT 5 simt-smi -l 1 --query-gpu=index,memory.used --format=csv >"$tmp/out" 2>&1
show "simt-smi -l 1 for 5 s" "$tmp/out"
headers=$(grep -c '^index' "$tmp/out")
lines=$(grep -c '^0, ' "$tmp/out")
if [ "$headers" -eq 1 ] && [ "$lines" -ge 2 ]; then
	ok "simt-smi -l 1: $lines samples, one header"
else
	bad "simt-smi -l 1: samples with one header"
fi
simt-smi -q >"$tmp/out" 2>&1
status=$?
show "simt-smi -q (exit $status)" "$tmp/out"
if [ $status -eq 0 ] && grep -q 'FB Memory Usage' "$tmp/out" && grep -q "Bus Id .*: $(basename "$(readlink -f "$sysdev")")" "$tmp/out"; then
	ok "simt-smi -q: full report"
else
	bad "simt-smi -q: full report"
fi

rm -rf "$tmp"
result tools
[ "$failed" -eq 0 ]
