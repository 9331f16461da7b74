#!/usr/bin/env bash
# Runs the host steps of a simulator lab of docs/labs/ as written, for the
# tests (tests/labs/) and for a learner who wants to check a lab end to end:
# extracts the lab's "```sh lab-host" blocks, in order, and runs them as one
# script (stopping at the first failing command) in WORK_DIR, with the
# build's tools first on PATH (simtcc, simt-run, simt-sweep) and the CUDA
# programs on the in-process simulator (SIMTGPU_TRANSPORT=sim). The lab text
# can use $SIMTGPU_SRC (the repository) and $SIMTGPU_BUILD (the build).
#
# Usage: scripts/run-lab.sh LAB.md [BUILD_DIR [WORK_DIR]]
#   BUILD_DIR: default build/ of this repository
#   WORK_DIR:  default a new temporary directory, removed when the lab passes
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
if [[ $# -lt 1 || $# -gt 3 || ! -f $1 ]]; then
	echo "usage: $0 LAB.md [BUILD_DIR [WORK_DIR]] (LAB.md: a lab of docs/labs/)" >&2
	exit 2
fi
lab=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
build=$(cd "${2:-$top/build}" && pwd)
if [[ ! -x $build/bin/simtcc ]]; then
	echo "run-lab: $build/bin/simtcc is missing: build the tools first (cmake --build $build --target simtcc simtcudart)" >&2
	exit 2
fi

steps=$(awk '
	$0 == "```sh lab-host" { inside = 1; next }
	inside && $0 == "```" { inside = 0; next }
	inside { print }' "$lab")
if [[ -z $steps ]]; then
	echo "run-lab: $lab has no \`\`\`sh lab-host blocks" >&2
	exit 1
fi

if [[ $# -eq 3 ]]; then
	work=$3
	mkdir -p "$work"
	keep=1
else
	work=$(mktemp -d "${TMPDIR:-/tmp}/lab.XXXXXX")
	keep=0
fi
echo "run-lab: running the steps of $lab in $work" >&2
status=0
(
	cd "$work"
	export PATH="$build/bin:$PATH" SIMTGPU_TRANSPORT=sim SIMTGPU_SRC="$top" SIMTGPU_BUILD="$build"
	bash -euo pipefail -c "$steps"
) || status=$?
if [[ $status -ne 0 ]]; then
	echo "run-lab: a step of $lab failed (exit $status); its files are in $work" >&2
	exit "$status"
fi
[[ $keep -eq 1 ]] || rm -rf "$work"
