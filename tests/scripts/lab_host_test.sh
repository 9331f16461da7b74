#!/usr/bin/env bash
# Runs the ```sh lab-host blocks of a lab page (docs/labs/NAME.md) in order,
# as one bash script with -e, from the repository root, with BUILD set to the
# build directory: the lab's host steps, as written, are a test.
# Usage: lab_host_test.sh LAB.md BUILD_DIR
set -euo pipefail
lab=$1
build=$2
top=$(cd "$(dirname "$0")/../.." && pwd)
script=$(mktemp)
trap 'rm -f "$script"' EXIT
awk '/^```sh lab-host$/ { on = 1; next } /^```$/ { on = 0 } on' "$lab" >"$script"
if [ ! -s "$script" ]; then
	echo "$lab has no \`\`\`sh lab-host blocks" >&2
	exit 1
fi
cd "$top"
BUILD=$build bash -euo pipefail "$script"
