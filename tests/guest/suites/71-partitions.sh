#!/bin/sh
# MIG-like partitions on the kernel driver (docs/sharing.md): simt-smi
# creates two partitions, each with its own render node; a program there
# sees the partition's SMs and memory; a partition's throughput with and
# without a noisy neighbour in the other (simtgpu-share-bench prints the
# figures); a fault and a hang in one partition while the other completes
# its work, and the hang resets only that partition's work. Reloads
# simtgpu.ko with timeout_ms=3000 for the hang, and with its defaults at
# the end. Needs the build tree (SIMTGPU_BUILD_DIR) for examples/failures.
# Prints "partitions: N passed, N failed".
passed=0
failed=0
pass() { echo "ok $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1"; failed=$((failed + 1)); }
result() {
	grep -q '^simtgpu ' /proc/modules && rmmod simtgpu
	modprobe simtgpu || echo "partitions: could not reload simtgpu.ko with its defaults"
	echo "partitions: $passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit
}
failures=${SIMTGPU_BUILD_DIR:-}/examples/failures
tmp=$(mktemp -d)
export SIMTGPU_TRANSPORT=drm

grep -q '^simtgpu ' /proc/modules && rmmod simtgpu
if ! modprobe simtgpu timeout_ms=3000; then
	fail "load simtgpu.ko timeout_ms=3000"
	result
fi
dev=
for d in /sys/class/drm/renderD*/device; do
	[ -w "$d/partition_create" ] && dev=$d && break
done
if [ -z "$dev" ] || [ ! -x "$failures/bystander" ]; then
	fail "find the device's partition files and $failures"
	result
fi
sms=$(cat "$dev/sm_count")

refuses() { # FILE TEXT
	if (echo "$2" >"$dev/$1") 2>/dev/null; then fail "$1 refuses '$2'"; else pass "$1 refuses '$2'"; fi
}
refuses partition_create "0 64M"
refuses partition_create "$sms 64M"
refuses partition_create "1 1M"
refuses partition_create "1 lots"
refuses partition_create "1"
refuses partition_destroy "9"
if simt-smi partition create --sms 1 >"$tmp/out" 2>&1; then
	fail "simt-smi partition create without --vram is refused"
else
	grep -q 'needs --sms N --vram SIZE' "$tmp/out" && pass "simt-smi partition create without --vram is refused" ||
		{ cat "$tmp/out"; fail "simt-smi partition create without --vram is refused"; }
fi

# Two partitions of half the SMs and 256 MiB each.
half=$((sms / 2))
simt-smi partition create --sms $half --vram 256M && simt-smi partition create --sms $half --vram 256M
simt-smi partition list | tee "$tmp/list"
node() { sed -n "s/^$1 .*node=\(renderD[0-9]*\).*/\1/p" "$dev/partitions"; }
a=$(node 0)
b=$(node 1)
if [ -n "$a" ] && [ -n "$b" ] && [ -e "/dev/dri/$a" ] && [ -e "/dev/dri/$b" ] &&
	grep -q "^0 sms=0-$((half - 1)) vram=268435456 " "$tmp/list" &&
	grep -q "^1 sms=$half-$((2 * half - 1)) vram=268435456 " "$tmp/list"; then
	pass "two partitions, each with its own render node ($a, $b)"
else
	fail "two partitions, each with its own render node"
	result
fi
refuses partition_create "1 64M" # no SM left

# A program in a partition sees its SMs and memory.
SIMTGPU_RENDER_NODE=/dev/dri/$a simtgpu-share-bench throughput --seconds 1 >"$tmp/alone" 2>&1
cat "$tmp/alone"
if grep -q ", $half SMs, 256 MiB:" "$tmp/alone"; then
	pass "cudaGetDeviceProperties in a partition: $half SMs, 256 MiB"
else
	fail "cudaGetDeviceProperties in a partition: $half SMs, 256 MiB"
fi
whole=$(ls "$dev/drm" | grep -m1 "^renderD")
SIMTGPU_RENDER_NODE=/dev/dri/$whole "$failures/bystander" 0.2 >"$tmp/out" 2>&1
if [ $? -ne 0 ] && grep -q "split into partitions.*use a partition's render node" "$tmp/out"; then
	pass "the whole GPU's node runs no work while partitioned, and says which node to use"
else
	cat "$tmp/out"; fail "the whole GPU's node runs no work while partitioned, and says which node to use"
fi

# Isolation: throughput in partition A alone, then beside a noisy neighbour.
rate() { sed -n 's/.* \([0-9.]*\) kernels per device second.*/\1/p' "$1"; }
SIMTGPU_RENDER_NODE=/dev/dri/$a simtgpu-share-bench throughput --seconds 4 >"$tmp/alone" 2>&1
SIMTGPU_RENDER_NODE=/dev/dri/$b simtgpu-share-bench throughput --seconds 9 --iters 8000 >"$tmp/noise" 2>&1 &
noise=$!
sleep 1
SIMTGPU_RENDER_NODE=/dev/dri/$a simtgpu-share-bench throughput --seconds 4 >"$tmp/noisy" 2>&1
wait $noise
echo "alone:      $(cat "$tmp/alone")"
echo "with noise: $(cat "$tmp/noisy")"
echo "neighbour:  $(cat "$tmp/noise")"
if awk -v x="$(rate "$tmp/alone")" -v y="$(rate "$tmp/noisy")" 'BEGIN {
	e = (x > y ? x - y : y - x) / x * 100
	printf "isolation: %.1f kernels per device second alone, %.1f with a noisy neighbour: %.2f%% apart\n", x, y, e
	exit !(x > 0 && e <= 5) }'; then
	pass "a partition's throughput with a noisy neighbour is within 5% of alone"
else
	fail "a partition's throughput with a noisy neighbour is within 5% of alone"
fi

# A fault in partition A while partition B completes its work.
SIMTGPU_RENDER_NODE=/dev/dri/$b "$failures/bystander" 6 >"$tmp/bystander" 2>&1 &
bystander=$!
sleep 1
SIMTGPU_RENDER_NODE=/dev/dri/$a "$failures/illegal_address" >"$tmp/out" 2>&1
status=$?
wait $bystander
bystander_status=$?
cat "$tmp/out" "$tmp/bystander"
if [ $status -ne 0 ] && grep -q cudaErrorIllegalAddress "$tmp/out" && [ $bystander_status -eq 0 ] &&
	grep -q 'bystander: PASS' "$tmp/bystander"; then
	pass "a fault in one partition: cudaErrorIllegalAddress there, the other completes"
else
	fail "a fault in one partition: cudaErrorIllegalAddress there, the other completes"
fi

# A hang in partition A: only its work is reset; partition B completes.
resets0=$(cat "$dev/gpu_resets")
dmesg -c >/dev/null 2>&1
SIMTGPU_RENDER_NODE=/dev/dri/$b "$failures/bystander" 12 >"$tmp/bystander" 2>&1 &
bystander=$!
sleep 1
SIMTGPU_RENDER_NODE=/dev/dri/$a "$failures/hang" >"$tmp/out" 2>&1
status=$?
wait $bystander
bystander_status=$?
cat "$tmp/out" "$tmp/bystander"
dmesg | grep -i 'hang' | tail -3
if [ $status -ne 0 ] && grep -q cudaErrorLaunchTimeout "$tmp/out" && [ $bystander_status -eq 0 ] &&
	grep -q 'bystander: PASS' "$tmp/bystander"; then
	pass "a hang in one partition: cudaErrorLaunchTimeout there, the other completes"
else
	fail "a hang in one partition: cudaErrorLaunchTimeout there, the other completes"
fi
if [ "$(cat "$dev/gpu_resets")" = "$resets0" ] && grep -q '^0 .* resets=1$' "$dev/partitions" &&
	dmesg | grep -q 'GPU hang in partition 0: .*name=hang, .*resetting the partition.s work only'; then
	pass "the hang reset only partition 0's work (no GPU reset)"
else
	cat "$dev/partitions"; fail "the hang reset only partition 0's work (no GPU reset)"
fi
if SIMTGPU_RENDER_NODE=/dev/dri/$a "$failures/bystander" 0.2 >"$tmp/out" 2>&1; then
	pass "the partition serves the next job after its hang"
else
	cat "$tmp/out"; fail "the partition serves the next job after its hang"
fi

# simt-smi shows the partitions and the clients.
SIMTGPU_RENDER_NODE=/dev/dri/$b "$failures/bystander" 4 >/dev/null 2>&1 &
bystander=$!
sleep 2
simt-smi sharing | tee "$tmp/out"
wait $bystander
if grep -q '^Partitions:' "$tmp/out" && grep -q "node=$a" "$tmp/out" && grep -q "node=$b" "$tmp/out" &&
	grep -q ' bystander ' "$tmp/out"; then
	pass "simt-smi sharing shows the partitions and the client"
else
	fail "simt-smi sharing shows the partitions and the client"
fi

simt-smi partition destroy 1 && simt-smi partition destroy 0
if [ -z "$(cat "$dev/partitions")" ] && [ ! -e "/dev/dri/$a" ] && [ ! -e "/dev/dri/$b" ] &&
	"$failures/bystander" 0.2 >"$tmp/out" 2>&1; then
	pass "destroyed: the nodes are gone and the whole GPU runs work again"
else
	cat "$tmp/out"; fail "destroyed: the nodes are gone and the whole GPU runs work again"
fi

# For comparison: the same on the whole GPU, without partitions.
simtgpu-share-bench throughput --seconds 4 >"$tmp/alone" 2>&1
simtgpu-share-bench throughput --seconds 9 --iters 8000 >"$tmp/noise" 2>&1 &
noise=$!
sleep 1
simtgpu-share-bench throughput --seconds 4 >"$tmp/noisy" 2>&1
wait $noise
awk -v x="$(rate "$tmp/alone")" -v y="$(rate "$tmp/noisy")" 'BEGIN {
	printf "no partitions: %.1f kernels per device second alone, %.1f with a noisy neighbour\n", x, y }'
result
