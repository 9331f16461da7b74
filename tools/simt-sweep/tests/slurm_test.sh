#!/usr/bin/env bash
# simt-sweep --slurm against a real single-node Slurm: starts munged,
# slurmctld and slurmd on a slurm.conf generated in a temporary directory
# (ports of their own, so that nothing else on the machine is touched), runs
# a small sweep through a job array, checks that its table equals the same
# sweep run locally (bar wall times), and stops the daemons.
# usage: slurm_test.sh SIMT_SWEEP FAKE_PROGRAM [CUDA_PROGRAM]
# Exit 77 (skipped) only when not root: the daemons need it.
set -euo pipefail

SIMT_SWEEP=$1
FAKE_PROGRAM=$2
CUDA_PROGRAM=${3:-}

if [[ $(id -u) -ne 0 ]]; then
	echo "slurm_test: SKIPPED: starting munged, slurmctld and slurmd needs root (run as root)"
	exit 77
fi
for tool in munged munge slurmctld slurmd sbatch sinfo; do
	if ! command -v "$tool" >/dev/null; then
		echo "slurm_test: $tool is missing: install slurm-wlm and munge (scripts/install-deps.sh)" >&2
		exit 1
	fi
done

work=$(mktemp -d /tmp/simt-sweep-slurm.XXXXXX)
pids=()
stop_daemons() {
	local pid
	for pid in "${pids[@]}"; do
		kill "$pid" 2>/dev/null || true
	done
	for pid in "${pids[@]}"; do
		wait "$pid" 2>/dev/null || true
	done
}
cleanup() {
	local status=$?
	stop_daemons
	if ((status != 0)); then
		echo "slurm_test: FAILED; daemons' logs:" >&2
		tail -n 20 "$work"/log/* >&2 || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT

mkdir -p "$work"/{munge,state,spool,log}
chmod 755 "$work" "$work/munge"
head -c 1024 /dev/urandom >"$work/munge/munge.key"
chmod 400 "$work/munge/munge.key"
socket=$work/munge/munge.socket
munged -F --force --socket="$socket" --key-file="$work/munge/munge.key" \
	--pid-file="$work/munge/munged.pid" --log-file="$work/log/munged.log" \
	--seed-file="$work/munge/munged.seed" >"$work/log/munged.out" 2>&1 &
pids+=($!)
for _ in $(seq 50); do
	[[ -S $socket ]] && break
	sleep 0.1
done
munge -S "$socket" -n | unmunge -S "$socket" >/dev/null

# Ports of this run's own, away from Slurm's defaults (6817/6818).
port=$((20000 + ($$ % 10000) * 2))
host=$(hostname -s)
node=$(slurmd -C | head -n 1) # NodeName=HOST CPUs=... RealMemory=...
cat >"$work/slurm.conf" <<CONF
ClusterName=simtsweeptest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$socket
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=sweep Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$work/slurm.conf
slurmctld -D -i >"$work/log/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D >"$work/log/slurmd.out" 2>&1 &
pids+=($!)
for _ in $(seq 100); do
	[[ $(sinfo -h -o %t 2>/dev/null) == idle ]] && break
	sleep 0.2
done
if [[ $(sinfo -h -o %t 2>/dev/null) != idle ]]; then
	echo "slurm_test: the node did not come up idle: $(sinfo 2>&1)" >&2
	exit 1
fi

programs="{\"name\": \"fake\", \"path\": \"$FAKE_PROGRAM\", \"args\": [\"--size\", \"{size}\"], \"size\": 6}"
if [[ -n $CUDA_PROGRAM ]]; then
	programs+=", {\"name\": \"cuda\", \"path\": \"$CUDA_PROGRAM\"}"
fi
cat >"$work/sweep.json" <<SWEEP
{
  "name": "slurm-test",
  "programs": [$programs],
  "parameters": {"warp_scheduler": ["round-robin", "two-level"], "program.size": [2, 6, 9]},
  "statistics": ["total.device_cycles", "total.thread_instructions"],
  "timeout_s": 120
}
SWEEP

export CI=true
"$SIMT_SWEEP" "$work/sweep.json" -o "$work/local" -j 2
"$SIMT_SWEEP" "$work/sweep.json" -o "$work/slurm" --slurm
# Every task ran on the cluster: one log per array task.
tasks=$(find "$work/slurm/slurm" -name 'task-*.log' | wc -l)
points=$(($(wc -l <"$work/local/results.csv") - 1))
if ((tasks != points)); then
	echo "slurm_test: $tasks array tasks for $points points" >&2
	exit 1
fi
# The same table, bar the wall-time column.
without_wall() {
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "wall_s") w = i }
		{ $w = ""; print }' OFS=, "$1"
}
if ! diff <(without_wall "$work/local/results.csv") <(without_wall "$work/slurm/results.csv"); then
	echo "slurm_test: the Slurm table differs from the local one" >&2
	exit 1
fi
if grep -q ',not-run,\|,failed,\|,timeout,' "$work/slurm/results.csv"; then
	echo "slurm_test: some points did not finish ok:" >&2
	cat "$work/slurm/results.csv" >&2
	exit 1
fi
# Resuming through Slurm submits nothing when every point is done.
"$SIMT_SWEEP" "$work/sweep.json" -o "$work/slurm" --slurm | grep -q "every point already has a result"
echo "slurm_test: PASS: $points points through a Slurm job array, table equal to the local run's"
