#!/bin/sh
# GPU sharing on the kernel driver (docs/sharing.md): the fair policy's
# shares by cgroup weight (simtgpu-share-bench prints its figures), the
# latency of a small kernel under a batch per policy, a cgroup VRAM limit
# refused with -ENOMEM and named, managed memory beyond such a limit
# (eviction), the driver files' refusals of bad input,
# and nothing left charged or allocated after a process is killed. Prints
# "sharing: N passed, N failed".
passed=0
failed=0
pass() { echo "ok $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1"; failed=$((failed + 1)); }
result() {
	echo "sharing: $passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit
}

if ! grep -q '^simtgpu ' /proc/modules && ! modprobe simtgpu; then
	fail "load simtgpu.ko"
	result
fi
grep -q ' /sys/kernel/debug ' /proc/mounts || mount -t debugfs debugfs /sys/kernel/debug
[ -e /sys/fs/cgroup/cgroup.procs ] || mount -t cgroup2 none /sys/fs/cgroup
dev=
for d in /sys/class/drm/renderD*/device; do
	[ -w "$d/sched_policy" ] && dev=$d && break
done
dbg=
for d in /sys/kernel/debug/dri/*; do
	[ -e "$d/cgroups" ] && dbg=$d && break
done
if [ -z "$dev" ] || [ -z "$dbg" ]; then
	fail "find the device's sysfs and debugfs directories"
	result
fi

# An object count from debugfs "objects".
count() { sed -n "s/^$1 //p" "$dbg/objects"; }

# Writes must fail (with the shell's write error) for bad input.
refuses() { # FILE TEXT
	if (echo "$2" >"$1") 2>/dev/null; then fail "$(basename "$1") refuses '$2'"; else pass "$(basename "$1") refuses '$2'"; fi
}
mkdir -p /sys/fs/cgroup/share-test
refuses "$dev/sched_policy" "no-such-policy"
refuses "$dev/dmem_max" "/share-test"
refuses "$dev/dmem_max" "/share-test lots"
refuses "$dev/dmem_max" "share-test 1M"
refuses "$dev/dmem_max" "/no-such-cgroup 1M"
refuses "$dev/gpu_weight" "/share-test 0"
refuses "$dev/gpu_weight" "/share-test 10001"
refuses "$dev/client_weight" "999999 100"
refuses "$dev/client_weight" "1"
if grep -qw 'fair' "$dev/sched_policy"; then
	pass "sched_policy lists fair"
else
	fail "sched_policy lists fair"
fi
echo "/share-test 3M" >"$dev/dmem_max" && grep -q '^/share-test 3145728$' "$dev/dmem_max" &&
	pass "dmem_max reads back a limit" || fail "dmem_max reads back a limit"
echo "/share-test max" >"$dev/dmem_max"
grep -q '^/share-test ' "$dev/dmem_max" && fail "dmem_max 'max' lifts the limit" ||
	pass "dmem_max 'max' lifts the limit"
rmdir /sys/fs/cgroup/share-test

# The cgroup VRAM limit on the render node: the uAPI and the CUDA error.
if SIMTGPU_TRANSPORT=drm umd_uapi_tests --gtest_filter='*CgroupVram*' >/tmp/share.log 2>&1 &&
	grep -q '^\[       OK \] Uapi.CgroupVramLimitRefusesBosBeyondItWithEnomem' /tmp/share.log; then
	pass "cgroup VRAM limit: -ENOMEM beyond max, GET_PARAM"
else
	cat /tmp/share.log; fail "cgroup VRAM limit: -ENOMEM beyond max, GET_PARAM"
fi
if SIMTGPU_TRANSPORT=drm umd_driver_tests --gtest_filter='*CgroupVram*' >/tmp/share.log 2>&1 &&
	grep -q '^\[       OK \] DriverApi.CgroupVramLimitErrorNamesTheLimitAndTheCgroup' /tmp/share.log; then
	pass "cgroup VRAM limit: the error names the limit and the cgroup"
else
	cat /tmp/share.log; fail "cgroup VRAM limit: the error names the limit and the cgroup"
fi

# Managed memory beyond a cgroup VRAM limit: the driver evicts the
# process's oldest managed pages instead of mapping new ones over the bus
# (the program joins its own limited cgroup and checks the counters).
oversub=$SIMTGPU_BUILD_DIR/tests/cuda/managed_oversubscription
if SIMTGPU_TRANSPORT=drm "$oversub" --oversubscribe >/tmp/share.log 2>&1 &&
	grep -q '^managed_oversubscription: PASS' /tmp/share.log; then
	grep '^managed_oversubscription: drm' /tmp/share.log
	pass "managed memory over a cgroup VRAM limit evicts its oldest pages"
else
	cat /tmp/share.log; fail "managed memory over a cgroup VRAM limit evicts its oldest pages"
fi
# Oldest first on a loop over more than fits: the second pass finds none of
# the pages it starts with, and every page moves again (docs/labs/eviction.md).
if SIMTGPU_TRANSPORT=drm "$oversub" --oversubscribe --passes 2 >/tmp/share.log 2>&1 &&
	grep -q '^managed_oversubscription: PASS' /tmp/share.log &&
	grep -q ' 384 pages, 2 passes: .* 768 to VRAM,' /tmp/share.log; then
	grep '^managed_oversubscription: drm' /tmp/share.log
	pass "oldest-first eviction moves every page again on a second pass"
else
	cat /tmp/share.log; fail "oldest-first eviction moves every page again on a second pass"
fi

# Killed while holding VRAM in a limited cgroup: everything is returned.
bos0=$(count bos); vms0=$(count vms); pts0=$(count page_tables); used0=$(count vram_used)
mkdir -p /sys/fs/cgroup/share-kill
: >/tmp/hold.log
echo "/share-kill 64M" >"$dev/dmem_max"
(
	echo 0 >/sys/fs/cgroup/share-kill/cgroup.procs
	exec simtgpu-share-bench hold --seconds 60
) >/tmp/hold.log 2>&1 &
holder=$!
i=0
while [ $i -lt 600 ] && ! grep -q holding /tmp/hold.log; do sleep 0.1; i=$((i + 1)); done
held=$(sed -n 's|^/share-kill ||p' "$dev/dmem_current")
kill -9 $holder
wait $holder 2>/dev/null
i=0
while [ $i -lt 100 ] && [ "$(count bos)" != "$bos0" ]; do sleep 0.1; i=$((i + 1)); done
left=$(sed -n 's|^/share-kill ||p' "$dev/dmem_current")
echo "held $held bytes in /share-kill; after kill -9: current '${left:-0}', bos $(count bos) (was $bos0), vms $(count vms) ($vms0), page tables $(count page_tables) ($pts0), vram_used $(count vram_used) ($used0)"
if [ "${held:-0}" -ge 4194304 ] && [ "${left:-0}" -eq 0 ] && [ "$(count bos)" = "$bos0" ] &&
	[ "$(count vms)" = "$vms0" ] && [ "$(count page_tables)" = "$pts0" ] &&
	[ "$(count vram_used)" = "$used0" ]; then
	pass "kill -9 leaves nothing charged or allocated"
else
	cat /tmp/hold.log; cat "$dbg/cgroups"; fail "kill -9 leaves nothing charged or allocated"
fi
echo "/share-kill max" >"$dev/dmem_max"
rmdir /sys/fs/cgroup/share-kill

# Fairness by weight under "fair", and what "fifo" gives for the same.
for w in 1,1 1,3; do
	if simtgpu-share-bench fairness --policy fair --weights $w --seconds ${SIMTGPU_SHARE_SECONDS:-6} \
		--tolerance ${SIMTGPU_SHARE_TOLERANCE:-5}; then
		pass "fair shares GPU time $w within tolerance"
	else
		fail "fair shares GPU time $w within tolerance"
	fi
done
simtgpu-share-bench fairness --policy fifo --weights 1,3 --seconds ${SIMTGPU_SHARE_SECONDS:-6} &&
	pass "fifo with weights 1,3 (for comparison)" || fail "fifo with weights 1,3 (for comparison)"

# Latency of a small kernel under a batch, per policy (docs/sharing.md):
# "priority" against fifo with the small kernel at high priority and a
# batch of one wave of long blocks (fifo waits for the batch kernel's end;
# priority keeps SMs free for it); round-robin against fifo with both at
# normal priority and a batch of many short blocks (fifo waits for the
# batch's last wave; a time slice parks it after one block).
latency() { # SCENARIO POLICY
	if simtgpu-share-bench latency --scenario $1 --policy $2 --seconds 4 >/tmp/lat-$1-$2.log 2>&1; then
		cat /tmp/lat-$1-$2.log; pass "latency ($1) under $2"
	else
		cat /tmp/lat-$1-$2.log; fail "latency ($1) under $2"
	fi
}
# The 95th percentile: under fifo a small kernel either finds an SM idle
# between two batch kernels or waits for a whole one, and which of the two
# the median lands on depends on the phase of the two loops.
p95() { sed -n 's/.*, p95 \([0-9]*\) us.*/\1/p' /tmp/lat-$1-$2.log; }
beats_fifo() { # SCENARIO POLICY
	us=$(p95 $1 $2); fifo_us=$(p95 $1 fifo)
	if [ -n "$fifo_us" ] && [ -n "$us" ] && [ "$us" -lt "$fifo_us" ]; then
		pass "$2 p95 ($us us) beats fifo ($fifo_us us), $1 scenario"
	else
		fail "$2 p95 (${us:-?} us) beats fifo (${fifo_us:-?} us), $1 scenario"
	fi
}
for p in fifo priority fair; do latency priority $p; done
for p in fifo round-robin; do latency timeslice $p; done
beats_fifo priority priority
beats_fifo timeslice round-robin
grep -q '^\[fifo\]' "$dev/sched_policy" && pass "back to fifo" || fail "back to fifo"
result
