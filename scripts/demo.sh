#!/usr/bin/env bash
# `make demo`: from a fresh Debian 12 machine to the CUDA examples running in
# the guest on the kernel driver, then a summary.
#
# Usage: scripts/demo.sh [--build DIR] [--jobs N]
#   --build DIR  userspace build directory (default: build)
#   --jobs N     parallel build jobs (default: nproc)
#
# Steps, each timed: Debian packages (scripts/install-deps.sh), the userspace
# build (CMake/Ninja target `demo`: simulator, runtime, simtcc, tools and
# examples; the test programs are `make test`'s), the kernel
# module (make -C kmd), QEMU (scripts/build-qemu.sh, cached), the initramfs
# (scripts/build-initramfs.sh, rebuilt only when its inputs change), then one
# boot, with the device on the `teaching` preset of the timing model, that
# runs scripts/demo-guest.sh: load the driver, run every example of
# examples/ through /dev/dri/renderD128, print the summary, power off. Every
# step after the first run is a no-op unless something changed.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build_dir=$top/build
jobs=$(nproc)
while (($#)); do
	case "$1" in
	--build) build_dir=$2; shift 2 ;;
	--jobs) jobs=$2; shift 2 ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "demo: unknown option $1" >&2; exit 2 ;;
	esac
done
[[ $build_dir = /* ]] || build_dir=$top/$build_dir

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
demo_start=$(now)
step_times=()
# step NAME CMD...: runs CMD, records its time, returns its status.
step() {
	local name=$1 start status=0
	shift
	echo "== demo: $name"
	start=$(now)
	"$@" || status=$?
	step_times+=("$(printf '%-22s %6s s' "$name" "$(elapsed "$start" "$(now)")")")
	return "$status"
}
# The build scripts print their product's path on stdout; progress is on stderr.
quiet() { "$@" >/dev/null; }

configure_and_build() {
	if [[ ! -f $build_dir/build.ninja ]]; then
		cmake -S "$top" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release
	fi
	cmake --build "$build_dir" -j "$jobs" --target demo
}

step "packages" "$top/scripts/install-deps.sh"
step "userspace build" configure_and_build
step "kernel module" make -s -C "$top/kmd"
step "QEMU" quiet "$top/scripts/build-qemu.sh"
step "initramfs" quiet "$top/scripts/build-initramfs.sh" "$build_dir"

# The examples in teaching order, then any other examples/*.cu.
examples=(vector_add matmul_shared reduction histogram divergence)
for src in "$top"/examples/*.cu; do
	name=$(basename "$src" .cu)
	[[ " ${examples[*]} " == *" $name "* ]] || examples+=("$name")
done

# The device runs the timing model's small teaching GPU (docs/timing.md), so
# the examples' times and counters are those of a pipeline and caches.
boot_and_run() {
	"$top/scripts/run-qemu.sh" --build "$build_dir" --timeout 900 \
		--device-opts config=teaching -- \
		sh scripts/demo-guest.sh "$build_dir" "${examples[@]}"
}
status=0
step "boot, run, power off" boot_and_run || status=$?

echo
echo "== demo: time taken (host)"
printf '  %s\n' "${step_times[@]}"
printf '  %-22s %6s s\n' "total" "$(elapsed "$demo_start" "$(now)")"
if ((status != 0)); then
	echo "demo: FAILED (the guest reported status $status)"
fi
exit "$status"
