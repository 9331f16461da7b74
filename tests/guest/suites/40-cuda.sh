#!/bin/sh
# The CUDA programs again, inside the guest on the kernel driver's render
# node (SIMTGPU_TRANSPORT=drm): every compiler test program of tests/cuda
# (built into BUILD/tests/cuda) and every learner example of examples/
# (built into BUILD/bin). Each checks its results against its own CPU
# reference and prints "<name>: PASS" (or does what its source declares, see
# expected_status); the build tree is reached through the
# host share (SIMTGPU_BUILD_DIR). Prints "cuda: N passed, N failed".
per_program_timeout=${SIMTGPU_CUDA_TIMEOUT:-300}
passed=0
failed=0
failing=

result() {
	echo "cuda: $passed passed, $failed failed"
	[ -z "$failing" ] || echo "cuda: failing:$failing"
	[ "$failed" -eq 0 ]
	exit
}

build=$SIMTGPU_BUILD_DIR
if [ -z "$build" ] || [ ! -d "$build" ]; then
	echo "cuda: SIMTGPU_BUILD_DIR ('$build') is not a directory here (is the host tree shared?)"
	failed=1
	result
fi
if ! grep -q '^simtgpu ' /proc/modules && ! modprobe simtgpu; then
	echo "cuda: cannot load simtgpu.ko"
	failed=1
	result
fi

# The programs: tests/cuda's outputs, then the examples named by examples/*.cu.
source_dir=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt" 2>/dev/null)
programs=
for f in "$build"/tests/cuda/*; do
	[ -f "$f" ] && [ -x "$f" ] && programs="$programs $f"
done
for src in "$source_dir"/examples/*.cu; do
	[ -e "$src" ] || continue
	name=$(basename "$src" .cu)
	programs="$programs $build/bin/$name"
done
if [ -z "$programs" ]; then
	echo "cuda: no CUDA programs in $build (build the cuda_tests and examples targets)"
	failed=1
	result
fi

# What a tests/cuda program must do, as tests/cuda/CMakeLists.txt reads it
# from its source: exit 0 and print "<name>: PASS" unless the source says
# "// expect-exit-status: N" and "// expect-output: REGEX" lines.
expected_status() {
	want=$(sed -n 's|^// expect-exit-status: ||p' "$source_dir/tests/cuda/$1.cu" 2>/dev/null | tail -n 1)
	echo "${want:-0}"
}
output_as_expected() {
	regexes=$(sed -n 's|^// expect-output: ||p' "$source_dir/tests/cuda/$1.cu" 2>/dev/null)
	[ -n "$regexes" ] || regexes="^$1: PASS"
	echo "$regexes" | while IFS= read -r re; do
		grep -qE -- "$re" "$2" || { echo "$1: output does not match /$re/"; exit 1; }
	done
}

log=$(mktemp)
for program in $programs; do
	name=$(basename "$program")
	if [ ! -x "$program" ]; then
		echo "$name: FAIL (not built)"
		failed=$((failed + 1))
		failing="$failing $name"
		continue
	fi
	SIMTGPU_TRANSPORT=drm timeout "$per_program_timeout" "$program" >"$log" 2>&1
	status=$?
	if [ "$status" -eq "$(expected_status "$name")" ] && output_as_expected "$name" "$log"; then
		echo "$name: PASS"
		passed=$((passed + 1))
	else
		cat "$log"
		[ "$status" -eq 143 ] && echo "$name: killed after $per_program_timeout s"
		echo "$name: FAIL (exit status $status, expected $(expected_status "$name"))"
		failed=$((failed + 1))
		failing="$failing $name"
	fi
done
rm -f "$log"

# Two processes on one device (hardware.md, "Grids"): stream_priority
# --role $2 --when GO starts first and sets up, then --role $1 in the
# background; once the first says its kernel runs, GO appears and the second
# launches at once (a process's start-up in a guest under TCG can take longer
# than the first kernel runs). Leaves their output in $first_out and
# $second_out, their statuses in $first_status and $second_status, and
# whether the first was still running when the second ended in
# $first_was_running (0: yes).
run_pair() {
	program=$build/tests/cuda/stream_priority
	first_log=$(mktemp)
	second_log=$(mktemp)
	go=$(mktemp -u)
	SIMTGPU_TRANSPORT=drm timeout "$per_program_timeout" "$program" --role "$2" --when "$go" >"$second_log" 2>&1 &
	second_pid=$!
	wait_for_line ready "$second_log"
	SIMTGPU_TRANSPORT=drm timeout "$per_program_timeout" "$program" --role "$1" >"$first_log" 2>&1 &
	first_pid=$!
	wait_for_line launched "$first_log"
	touch "$go"
	wait $second_pid
	second_status=$?
	kill -0 $first_pid 2>/dev/null
	first_was_running=$?
	wait $first_pid
	first_status=$?
	first_out=$(cat "$first_log")
	second_out=$(cat "$second_log")
	rm -f "$first_log" "$second_log" "$go"
	printf '%s\n%s\n' "$first_out" "$second_out"
}

# wait_for_line LINE FILE: until FILE has LINE, for at most a minute.
wait_for_line() {
	waited=0
	while ! grep -q "^$1" "$2" && [ $waited -lt 600 ]; do
		sleep 0.1
		waited=$((waited + 1))
	done
}

# A long kernel on the least-priority stream of one process holds every SM;
# a short one on the greatest-priority stream of another, started while it
# runs, ends before it, in under half its device time. The long kernel runs
# in four waves of CTAs and an SM takes another context's CTAs once it has
# drained (sm-sharing same-context), so the short one waits for up to a
# wave, a quarter of the long one's time, depending on when it arrives;
# without priorities it would wait for every wave placed before it.
priorities_across_processes() {
	run_pair long short
	long_ms=$(echo "$first_out" | sed -n 's/^long: \([0-9.]*\) ms$/\1/p')
	short_ms=$(echo "$second_out" | sed -n 's/^short: \([0-9.]*\) ms$/\1/p')
	[ $first_status -eq 0 ] && [ $second_status -eq 0 ] && [ $first_was_running -eq 0 ] &&
		[ -n "$long_ms" ] && [ -n "$short_ms" ] &&
		awk -v s="$short_ms" -v l="$long_ms" 'BEGIN { exit !(s < l / 2) }'
}

# Kernels of two processes, each on half the SMs, run at the same time: the
# second starts (device time) before the first ends, and the other way round.
overlap_across_processes() {
	run_pair half half
	first=$(echo "$first_out" | sed -n 's/^half: //p')
	second=$(echo "$second_out" | sed -n 's/^half: //p')
	[ $first_status -eq 0 ] && [ $second_status -eq 0 ] && [ -n "$first" ] && [ -n "$second" ] &&
		echo "$first $second" | awk '{ exit !($3 < $2 && $1 < $4) }'
}

# check NAME WHY FUNCTION: counts FUNCTION's verdict under NAME.
check() {
	if "$3"; then
		echo "$1: PASS"
		passed=$((passed + 1))
	else
		echo "$1: FAIL ($2)"
		failed=$((failed + 1))
		failing="$failing $3"
	fi
}
check "kernels of two processes overlap" \
	"the second kernel must start before the first one ends, in device time" \
	overlap_across_processes
check "stream priorities across two processes" \
	"the short kernel must end while the long one runs, in under half its time" \
	priorities_across_processes
dmesg | grep -E 'simtgpu [0-9a-f]{4}:' | tail -n 10
result
