#!/bin/sh
# The kernel driver's tracepoints (kmd/simtgpu_trace.h, docs/trace.md): with
# events/simtgpu enabled, a run of simt-doctor's tiny kernel leaves a submit,
# a job begin and a job end per job in tracefs, each end with its ring and
# sequence number after its begin; simt-trace turns the text into trace JSON
# with one slice per job end it could match. Then the CUDA streams:
# libsimtgpu's SIMTGPU_TRACE file on the render node holds each stream's
# kernels as launched, and simt-trace --umd merges it with the tracefs jobs
# on the device clock, each kernel inside the job that ran it (both checked
# by umd_trace_tests, which parses the JSON).
# Prints "trace: N passed, N failed, N skipped".
. /opt/simtgpu/bin/checks.sh
build=${SIMTGPU_BUILD_DIR:-}
[ -n "$build" ] && PATH=$PATH:$build/bin
tmp=$(mktemp -d)
tracing=/sys/kernel/tracing

if ! grep -q '^simtgpu ' /proc/modules && ! modprobe simtgpu; then
	echo "trace: cannot load simtgpu.ko"
	echo "trace: 0 passed, 1 failed, 0 skipped"
	exit 1
fi
[ -d "$tracing/events" ] || mount -t tracefs nodev "$tracing" 2>/dev/null
if [ ! -d "$tracing/events/simtgpu" ]; then
	bad "events/simtgpu exists in tracefs (kernel without CONFIG_TRACING, or tracefs not mounted)"
	result trace
	exit 1
fi
for e in simtgpu_submit simtgpu_job_begin simtgpu_job_end simtgpu_preempt simtgpu_reset simtgpu_migrate; do
	if [ -f "$tracing/events/simtgpu/$e/format" ]; then
		ok "tracepoint $e"
	else
		bad "tracepoint $e"
	fi
done

unset SIMTGPU_TRANSPORT
echo 0 >"$tracing/tracing_on"
: >"$tracing/trace"
echo 1 >"$tracing/events/simtgpu/enable"
echo 1 >"$tracing/tracing_on"
simt-doctor >"$tmp/doctor" 2>&1
doctor=$?
echo 0 >"$tracing/tracing_on"
echo 0 >"$tracing/events/simtgpu/enable"
cat "$tracing/trace" >"$tmp/trace"
grep -v '^#' "$tmp/trace" | head -n 20 >"$tmp/head"
show "tracefs (first 20 events)" "$tmp/head"
[ $doctor -eq 0 ] || show "simt-doctor (exit $doctor)" "$tmp/doctor"

submits=$(grep -c 'simtgpu_submit:' "$tmp/trace")
begins=$(grep -c 'simtgpu_job_begin:' "$tmp/trace")
ends=$(grep -c 'simtgpu_job_end:' "$tmp/trace")
if [ "$submits" -ge 1 ] && [ "$submits" -eq "$begins" ] && [ "$begins" -eq "$ends" ]; then
	ok "each of $submits jobs: a submit, a begin and an end"
else
	bad "a submit, a begin and an end per job (submits=$submits begins=$begins ends=$ends)"
fi
# Every end follows the begin of the same ring and seqno, without error.
awk '/simtgpu_job_begin:/ { for (i = 1; i <= NF; i++) { if ($i ~ /^ring=/) r = $i; if ($i ~ /^seqno=/) s = $i }
		begun[r " " s] = 1 }
	/simtgpu_job_end:/ { for (i = 1; i <= NF; i++) { if ($i ~ /^ring=/) r = $i; if ($i ~ /^seqno=/) s = $i; if ($i ~ /^error=/) e = $i }
		if (!begun[r " " s] || e != "error=0") { print "unmatched or failed: " $0; bad = 1 } }
	END { exit bad }' "$tmp/trace" >"$tmp/awk" 2>&1
if [ $? -eq 0 ]; then
	ok "every job end follows its begin on its ring, error=0"
else
	bad "every job end follows its begin"
	show "awk" "$tmp/awk"
fi

if simt-trace "$tmp/trace" -o "$tmp/trace.json" 2>"$tmp/conv"; then
	slices=$(grep -o '"ph":"X"' "$tmp/trace.json" | wc -l)
	if [ "$slices" -eq "$ends" ] && grep -q '"kmd (tracefs)"' "$tmp/trace.json"; then
		ok "simt-trace: $slices job slices, one per job end"
	else
		bad "simt-trace: one job slice per job end (slices=$slices ends=$ends)"
		show "simt-trace" "$tmp/conv"
	fi
else
	bad "simt-trace converts the tracefs text"
	show "simt-trace" "$tmp/conv"
fi

# --- the CUDA streams' tracks, and the merged file.
: >"$tracing/trace"
echo 1 >"$tracing/events/simtgpu/enable"
echo 1 >"$tracing/tracing_on"
SIMTGPU_TRANSPORT=drm SIMTGPU_TEST_TRACE_OUT=$tmp/umd.json \
	umd_trace_tests --gtest_filter=Trace.StreamTracksHoldEachLaunchInOrder >"$tmp/streams" 2>&1
streams=$?
echo 0 >"$tracing/tracing_on"
echo 0 >"$tracing/events/simtgpu/enable"
cat "$tracing/trace" >"$tmp/trace2"
if [ $streams -eq 0 ] && grep -q '^\[       OK \] Trace.StreamTracksHoldEachLaunchInOrder' "$tmp/streams"; then
	ok "SIMTGPU_TRACE on the render node: each stream's kernels as launched, one slice per launch"
else
	bad "SIMTGPU_TRACE on the render node: each stream's kernels as launched"
	show "umd_trace_tests (exit $streams)" "$tmp/streams"
fi
if simt-trace "$tmp/trace2" --umd "$tmp/umd.json" -o "$tmp/merged.json" 2>"$tmp/conv2" &&
	SIMTGPU_TEST_MERGED_TRACE=$tmp/merged.json \
		umd_trace_tests --gtest_filter=Trace.MergedWithTheKernelDriversJobs >"$tmp/merged" 2>&1 &&
	grep -q '^\[       OK \] Trace.MergedWithTheKernelDriversJobs' "$tmp/merged"; then
	ok "simt-trace --umd: the stream tracks and the jobs on one clock, each kernel inside its job"
else
	bad "simt-trace --umd: the stream tracks and the jobs on one clock"
	show "simt-trace --umd" "$tmp/conv2"
	[ -f "$tmp/merged" ] && show "umd_trace_tests" "$tmp/merged"
fi
rm -rf "$tmp"
result trace
[ "$failed" -eq 0 ]
