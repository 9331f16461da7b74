#!/usr/bin/env bash
# SMs on several host threads (SIMTGPU_SIM_THREADS) give the serial run's
# results, statistics and cycle counts exactly, in the functional model and
# under a timing preset: runs a
# CUDA program with 1, 2 and 4 host threads on the in-process transport and
# compares its output, exit status and SIMTGPU_STATS file (every kernel's
# cycles and counters) with the one-thread run's. The program itself checks
# its results against a CPU reference and must print "<name>: PASS".
# usage: sm_threads_test.sh PROGRAM [SIMTGPU_SIM_SMS [SIMTGPU_SIM_CONFIG]]
set -uo pipefail
program=$1
sms=${2:-}
[[ $sms == 0 ]] && sms= # the preset's
preset=${3:-}
name=$(basename "$program")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

run() { # THREADS
	env SIMTGPU_TRANSPORT=sim SIMTGPU_SIM_THREADS="$1" ${sms:+SIMTGPU_SIM_SMS=$sms} \
		${preset:+SIMTGPU_SIM_CONFIG=$preset} \
		SIMTGPU_STATS="$work/stats.$1" "$program" >"$work/out.$1" 2>&1
	echo $? >"$work/status.$1"
}

failures=0
run 1
if [[ $(cat "$work/status.1") != 0 ]] || ! grep -q "^$name: PASS" "$work/out.1"; then
	echo "FAIL $name on one host thread: exit $(cat "$work/status.1"), output:"
	sed 's/^/     | /' "$work/out.1"
	exit 1
fi
for threads in 2 4; do
	run "$threads"
	for part in status out stats; do
		if ! cmp -s "$work/$part.1" "$work/$part.$threads"; then
			echo "FAIL $name: $part on $threads host threads differs from one thread's:"
			diff "$work/$part.1" "$work/$part.$threads" | head -20 | sed 's/^/     | /'
			failures=$((failures + 1))
		fi
	done
	((failures)) || echo "ok   $name: $threads host threads, the same output, status, cycles and counters"
done
((failures == 0))
