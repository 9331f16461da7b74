#!/bin/sh
# The failures users meet (examples/failures, docs/failures.md), each
# reproduced on the kernel driver with the messages of every layer: the
# program's output, the runtime's line, and the kernel log. Needs the build
# tree (SIMTGPU_BUILD_DIR) through the share. Reloads simtgpu.ko: with it
# unloaded for "no module", then with timeout_ms=3000 for the hang.
# On a simt_1 device (run-qemu.sh --device-opts arch=1) the unsupported-GPU
# failure reproduces; on the newest device the same program must just run.
# Prints "failures: N passed, N failed, N skipped".
. /opt/simtgpu/bin/checks.sh
build=${SIMTGPU_BUILD_DIR:-}
dir=$build/examples/failures
tmp=$(mktemp -d)
# The image leaves programs that load LLVM (libsimtgpu does) on the host:
# take the tools from the build tree through the share when not on PATH.
[ -n "$build" ] && PATH=$PATH:$build/bin

# Kernel log lines since mark_log.
mark_log() { dmesg | wc -l >"$tmp/mark"; }
new_log() { dmesg | tail -n +$(($(cat "$tmp/mark") + 1)) >"$tmp/dmesg"; }

if [ -z "$build" ] || [ ! -x "$dir/illegal_address" ]; then
	echo "failures: no examples at $dir (build the failure_examples target)"
	echo "failures: 0 passed, 1 failed"
	exit 1
fi
grep -q ' /sys/kernel/debug ' /proc/mounts || mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null

# --- no module: the runtime, simt-smi and simt-doctor say so, with the fix.
grep -q '^simtgpu ' /proc/modules && rmmod simtgpu
SIMTGPU_TRANSPORT=drm "$dir/device_query" >"$tmp/out" 2>&1
status=$?
show "no module: SIMTGPU_TRANSPORT=drm device_query (exit $status)" "$tmp/out"
if [ $status -ne 0 ] && has "$tmp/out" 'cudaErrorNoDevice' 'module is not loaded' 'modprobe simtgpu'; then
	ok "no module: the runtime names the cause and the fix"
else
	bad "no module: the runtime names the cause and the fix"
fi
"$dir/device_query" >"$tmp/out" 2>&1
status=$?
show "no module: device_query without SIMTGPU_TRANSPORT (exit $status)" "$tmp/out"
if [ $status -ne 0 ] && has "$tmp/out" 'no simtgpu device found' 'module is not loaded' 'modprobe simtgpu'; then
	ok "no module: no silent fallback to the in-process simulator"
else
	bad "no module: no silent fallback to the in-process simulator"
fi
simt-smi >"$tmp/out" 2>&1
status=$?
show "no module: simt-smi (exit $status)" "$tmp/out"
if [ $status -eq 9 ] && has "$tmp/out" '^simt-smi: no simtgpu device found: .*modprobe simtgpu'; then
	ok "no module: simt-smi says no simtgpu device found"
else
	bad "no module: simt-smi says no simtgpu device found"
fi
simt-doctor >"$tmp/out" 2>&1
status=$?
show "no module: simt-doctor (exit $status)" "$tmp/out"
if [ $status -eq 1 ] && has "$tmp/out" '^\[ ok \] PCI device' '^\[FAIL\] kernel module: simtgpu is not loaded' 'fix: modprobe simtgpu'; then
	ok "no module: simt-doctor fails the module check with the fix"
else
	bad "no module: simt-doctor fails the module check with the fix"
fi

if ! modprobe simtgpu timeout_ms=3000; then
	echo "failures: cannot load simtgpu.ko"
	echo "failures: $passed passed, $((failed + 1)) failed"
	exit 1
fi
export SIMTGPU_TRANSPORT=drm

# --- driver and runtime mismatch: libsimtgpu built for the next uAPI major
# (examples/failures/CMakeLists.txt), the module for the tree's own.
uapi=$(cat /sys/module/simtgpu/version)
newer="$((${uapi%%.*} + 1)).${uapi#*.}"
uapi_re=$(echo "$uapi" | sed 's/\./\\./')
newer_re=$(echo "$newer" | sed 's/\./\\./')
LD_LIBRARY_PATH=$dir/newer-uapi:$LD_LIBRARY_PATH "$dir/device_query" >"$tmp/out" 2>&1
status=$?
show "mismatch: device_query with the uAPI $newer libsimtgpu (exit $status)" "$tmp/out"
if [ $status -ne 0 ] && has "$tmp/out" "speaks uAPI $uapi_re, but libsimtgpu was built for uAPI $newer_re" 'cudaErrorInsufficientDriver'; then
	ok "mismatch: the runtime names both uAPI versions"
else
	bad "mismatch: the runtime names both uAPI versions"
fi
LD_LIBRARY_PATH=$dir/newer-uapi:$LD_LIBRARY_PATH simt-doctor >"$tmp/out" 2>&1
status=$?
show "mismatch: simt-doctor (exit $status)" "$tmp/out"
if [ $status -eq 1 ] && has "$tmp/out" "^\\[FAIL\\] uAPI version: the kernel driver speaks uAPI $uapi_re, libsimtgpu was built for uAPI $newer_re"; then
	ok "mismatch: simt-doctor names both versions"
else
	bad "mismatch: simt-doctor names both versions"
fi

# --- illegal address, with another process running meanwhile.
mark_log
"$dir/bystander" 6 >"$tmp/bystander" 2>&1 &
bystander=$!
sleep 1
"$dir/illegal_address" >"$tmp/out" 2>&1 &
culprit=$!
wait $culprit
status=$?
wait $bystander
bystander_status=$?
new_log
show "illegal_address (pid $culprit, exit $status)" "$tmp/out"
show "kernel log" "$tmp/dmesg"
show "bystander (exit $bystander_status)" "$tmp/bystander"
if [ $status -ne 0 ] && has "$tmp/out" 'simtgpu: illegal address: write of 0x[0-9a-f]+ at pc 0x[0-9a-f]+, block \[0,0,0\], thread \[[0-9]+,0,0\]' 'cudaErrorIllegalAddress: an illegal memory access was encountered' 'cudaMemset afterwards: cudaErrorIllegalAddress'; then
	ok "illegal address: cudaErrorIllegalAddress, sticky"
else
	bad "illegal address: cudaErrorIllegalAddress, sticky"
fi
if has "$tmp/dmesg" "GPU exception: pid=$culprit, name=illegal_address, .*page fault @ 0x[0-9a-f]+, access write"; then
	ok "illegal address: the kernel log names process, address and access"
else
	bad "illegal address: the kernel log names process, address and access"
fi
if [ $bystander_status -eq 0 ] && has "$tmp/bystander" 'bystander: PASS'; then
	ok "illegal address: the other process is unaffected"
else
	bad "illegal address: the other process is unaffected"
fi

# --- hang: timeout, reset, and the next job runs.
mark_log
"$dir/hang" >"$tmp/out" 2>&1 &
culprit=$!
wait $culprit
status=$?
new_log
show "hang (pid $culprit, exit $status)" "$tmp/out"
show "kernel log" "$tmp/dmesg"
if [ $status -ne 0 ] && has "$tmp/out" 'cudaErrorLaunchTimeout: the launch timed out and was terminated'; then
	ok "hang: cudaErrorLaunchTimeout"
else
	bad "hang: cudaErrorLaunchTimeout"
fi
if has "$tmp/dmesg" "GPU hang: pid=$culprit, name=hang, .*no progress for 3000 ms, resetting the GPU"; then
	ok "hang: the kernel log names the process and the reset"
else
	bad "hang: the kernel log names the process and the reset"
fi
"$dir/bystander" 0 >"$tmp/out" 2>&1
status=$?
show "bystander after the reset (exit $status)" "$tmp/out"
if [ $status -eq 0 ] && has "$tmp/out" 'bystander: PASS'; then
	ok "hang: the GPU serves the next job"
else
	bad "hang: the GPU serves the next job"
fi

# --- device-side assert (device code with assert needs simt_2).
arch=$(cat /sys/class/drm/renderD*/device/arch 2>/dev/null | head -n 1)
if [ "$arch" = simt_1 ]; then
	skip "device assert" "asserts need a simt_2 device"
else
	"$dir/device_assert" >"$tmp/out" 2>&1
	status=$?
	show "device_assert (exit $status)" "$tmp/out"
	if [ $status -ne 0 ] && has "$tmp/out" 'device_assert\.cu:14: .*block: \[0,0,0\], thread: \[77,0,0\] Assertion `weights\[i\] > 0\.0f` failed' 'cudaErrorAssert: device-side assert triggered'; then
		ok "device assert: cudaErrorAssert with file and line"
	else
		bad "device assert: cudaErrorAssert with file and line"
	fi
fi

# --- a shuffle whose mask names lanes that never call it: a deadlock.
"$dir/shuffle_mask" >"$tmp/out" 2>&1
status=$?
show "shuffle_mask (exit $status)" "$tmp/out"
if [ $status -ne 0 ] && has "$tmp/out" 'deadlock: every live thread of block \[0,0,0\] waits at a barrier or warp-level sync' 'cudaErrorLaunchFailure: unspecified launch failure'; then
	ok "shuffle mask naming absent lanes: a deadlock naming the block"
else
	bad "shuffle mask naming absent lanes: a deadlock naming the block"
fi

# --- out of VRAM.
"$dir/out_of_vram" >"$tmp/out" 2>&1
status=$?
show "out_of_vram (exit $status)" "$tmp/out"
if [ $status -ne 0 ] && has "$tmp/out" 'out of device memory allocating [0-9]+ bytes: [0-9]+ bytes free \([0-9]+ of [0-9]+ bytes of VRAM in use\)' 'cudaErrorMemoryAllocation: out of memory' 'afterwards: cudaSuccess'; then
	ok "out of VRAM: cudaErrorMemoryAllocation with the sizes"
else
	bad "out of VRAM: cudaErrorMemoryAllocation with the sizes"
fi

# --- unsupported GPU: built for the newest arch.
"$dir/unsupported_gpu" >"$tmp/out" 2>&1
status=$?
show "unsupported_gpu on a $arch device (exit $status)" "$tmp/out"
if [ "$arch" = simt_1 ]; then
	if [ $status -ne 0 ] && has "$tmp/out" 'built for simt_2, but the device is simt_1' 'cudaErrorNoKernelImageForDevice: no kernel image is available for execution on the device'; then
		ok "unsupported GPU: cudaErrorNoKernelImageForDevice naming both architectures"
	else
		bad "unsupported GPU: cudaErrorNoKernelImageForDevice naming both architectures"
	fi
elif [ $status -eq 0 ]; then
	ok "unsupported GPU: runs on $arch (boot with --device-opts arch=1 to see the failure)"
else
	bad "unsupported GPU: the program fails on $arch"
fi

# Leave the module as the next suites expect it: loaded with its defaults.
rmmod simtgpu && modprobe simtgpu || echo "failures: could not reload simtgpu.ko with its defaults"

rm -rf "$tmp"
result failures
[ "$failed" -eq 0 ]
