#!/usr/bin/env bash
# Runs a lab of docs/labs/ as written, for the tests: copies the parts of
# the repository a kernel-driver lab changes (kmd/, include/, the guest
# kernel's version script) into OUT_DIR, runs the lab's "```sh lab" blocks
# there in order (stopping at the first failing command), and writes its
# "```sh lab-guest" blocks to OUT_DIR/guest.sh for the guest suite
# tests/guest/suites/72-labs.sh. The lab's module is OUT_DIR/kmd/simtgpu.ko.
#
# Usage: scripts/build-lab.sh LAB.md OUT_DIR
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
if [[ $# -ne 2 || ! -f $1 ]]; then
	echo "usage: $0 LAB.md OUT_DIR (LAB.md: a lab of docs/labs/)" >&2
	exit 2
fi
lab=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
out=$2

# The blocks of one kind, in order, as one script.
blocks() { # KIND
	awk -v kind="$1" '
		$0 == "```sh " kind { inside = 1; next }
		inside && $0 == "```" { inside = 0; next }
		inside { print }' "$lab"
}
host_steps=$(blocks lab)
if [[ -z $host_steps ]]; then
	echo "build-lab: $lab has no \`\`\`sh lab blocks" >&2
	exit 1
fi

rm -rf "$out"
mkdir -p "$out/scripts"
cp -r "$top/kmd" "$top/include" "$out/"
cp "$top/scripts/guest-kernel-version.sh" "$out/scripts/"
make -C "$out/kmd" -s clean >/dev/null 2>&1 || true
{
	echo "#!/bin/sh"
	echo "# The guest steps of $(basename "$lab"), extracted by scripts/build-lab.sh."
	echo "set -e"
	blocks lab-guest
} >"$out/guest.sh"
chmod +x "$out/guest.sh"
echo "build-lab: running the steps of $lab in $out" >&2
(cd "$out" && bash -euo pipefail -c "$host_steps")
if [[ ! -f $out/kmd/simtgpu.ko ]]; then
	echo "build-lab: the steps of $lab did not build kmd/simtgpu.ko" >&2
	exit 1
fi
