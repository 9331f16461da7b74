#!/usr/bin/env bash
# Builds qemu-system-x86_64 (QEMU 7.2 from Debian's source package) with the
# simtgpu PCIe device of qemu-device/ compiled in, and prints its path as the
# last line of stdout. Progress goes to stderr.
#
# Usage: scripts/build-qemu.sh [--print-path]
#   --print-path  print the path of an up-to-date build and exit 0, or exit 1
#                 when the inputs changed since the last build (builds nothing)
#
# The build lives outside the repository, in
#   ${SIMTGPU_CACHE:-/var/cache/simtgpu}/qemu-<debian version>-<configure hash>/
#     src/    Debian's source with its patches applied, plus our device
#     build/  the meson/ninja build directory
# keyed by the QEMU source version and the configure options. The device
# (qemu-device/, the shared headers it includes and this script) is hashed
# into build/simtgpu.stamp: when that changes, the changed files are copied
# into src/ and ninja rebuilds only what depends on them.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)

print_only=0
case "${1:-}" in
--print-path) print_only=1 ;;
"") ;;
*)
	echo "usage: $0 [--print-path]" >&2
	exit 2
	;;
esac

log() { echo "build-qemu: $*" >&2; }

# A minimal TCG build for one target, with virtio-9p to share the host tree.
CONFIGURE_ARGS=(
	--target-list=x86_64-softmmu
	--without-default-features
	--enable-tcg --enable-kvm
	--enable-virtfs --enable-attr --enable-cap-ng
	--enable-fdt=system
	--disable-install-blobs
	--disable-docs
	--disable-werror
)

# shellcheck source=lib/cache-dir.sh
source "$top/scripts/lib/cache-dir.sh"
cache=$(simtgpu_cache_dir)

as_root() {
	if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi
}

# Adds deb-src entries mirroring the deb ones when apt knows no qemu source.
ensure_deb_src() {
	if [[ -n $(apt-cache showsrc qemu 2>/dev/null | sed -n 's/^Version: //p') ]]; then
		return
	fi
	local src=/etc/apt/sources.list.d/debian.sources
	local dst=/etc/apt/sources.list.d/simtgpu-deb-src.sources
	log "adding deb-src entries ($dst) and running apt-get update"
	if [[ -f $src ]]; then
		sed 's/^Types: deb$/Types: deb-src/' "$src" | as_root tee "$dst" >/dev/null
	else
		grep -h '^deb ' /etc/apt/sources.list 2>/dev/null | sed 's/^deb /deb-src /' |
			as_root tee /etc/apt/sources.list.d/simtgpu-deb-src.list >/dev/null
	fi
	as_root apt-get update -q >&2
}

# The newest qemu source version apt offers, e.g. 1:7.2+dfsg-7+deb12u18.
newest_qemu_version() {
	local best="" v
	while read -r v; do
		if [[ -z "$best" ]] || dpkg --compare-versions "$v" gt "$best"; then
			best=$v
		fi
	done < <(apt-cache showsrc qemu | sed -n 's/^Version: //p')
	echo "$best"
}

# Copies $1 to $2 only when the content differs, so ninja sees no change
# (and rebuilds nothing) for identical files.
install_if_changed() {
	if ! cmp -s "$1" "$2"; then
		mkdir -p "$(dirname "$2")"
		cp "$1" "$2"
	fi
}

# Appends our fragment $2 to the pristine copy of QEMU's $1 (kept as $1.orig).
append_fragment() {
	local file=$1 fragment=$2 tmp
	[[ -f "$file.orig" ]] || cp "$file" "$file.orig"
	tmp=$(mktemp)
	cat "$file.orig" "$fragment" >"$tmp"
	install_if_changed "$tmp" "$file"
	rm -f "$tmp"
}

# What goes into the device build, besides QEMU itself.
device_inputs=(
	"$top/qemu-device/simtgpu.c"
	"$top/qemu-device/Kconfig"
	"$top/qemu-device/meson.build"
	"$top/qemu-device/trace-events"
	"$top/include/simtgpu/hw.h"
	"$top/include/simtgpu/counters.h"
	"$top/sim/include/simtgpu/sim.h"
	"$top/scripts/build-qemu.sh"
)
device_hash=$(cat "${device_inputs[@]}" | sha256sum | cut -c1-16)
config_hash=$(echo "${CONFIGURE_ARGS[*]}" | sha256sum | cut -c1-12)

ensure_deb_src
version=$(newest_qemu_version)
if [[ -z "$version" ]]; then
	log "apt knows no source package for qemu (check the deb-src entries)"
	exit 1
fi
dir=$cache/qemu-${version#*:}-$config_hash
binary=$dir/build/qemu-system-x86_64
stamp=$dir/build/simtgpu.stamp

up_to_date() {
	[[ -x "$binary" && -f "$stamp" && $(cat "$stamp") == "$device_hash" ]]
}

if ((print_only)); then
	if up_to_date; then
		echo "$binary"
		exit 0
	fi
	log "no up-to-date build in $dir"
	exit 1
fi

mkdir -p "$dir"
exec 9>"$dir/lock"
flock 9 # one build at a time per cache directory

if up_to_date; then
	echo "$binary"
	exit 0
fi

if [[ ! -f "$dir/src/configure" ]]; then
	log "fetching Debian's qemu $version source (apt-get source applies its patches)"
	rm -rf "$dir/fetch" "$dir/src"
	mkdir -p "$dir/fetch"
	(cd "$dir/fetch" && apt-get source -q "qemu=$version" >&2)
	mv "$dir/fetch"/qemu-*/ "$dir/src"
	rm -rf "$dir/fetch"
fi

# Our device, as if it were part of QEMU's tree.
src=$dir/src
install_if_changed "$top/qemu-device/simtgpu.c" "$src/hw/misc/simtgpu.c"
install_if_changed "$top/include/simtgpu/hw.h" "$src/include/simtgpu/hw.h"
install_if_changed "$top/include/simtgpu/counters.h" "$src/include/simtgpu/counters.h"
install_if_changed "$top/sim/include/simtgpu/sim.h" "$src/include/simtgpu/sim.h"
append_fragment "$src/hw/misc/meson.build" "$top/qemu-device/meson.build"
append_fragment "$src/hw/misc/Kconfig" "$top/qemu-device/Kconfig"
append_fragment "$src/hw/misc/trace-events" "$top/qemu-device/trace-events"

mkdir -p "$dir/build"
if [[ ! -f "$dir/build/build.ninja" ]]; then
	log "configuring in $dir/build"
	if ! (cd "$dir/build" && ../src/configure "${CONFIGURE_ARGS[@]}") >"$dir/configure.log" 2>&1; then
		tail -n 30 "$dir/configure.log" >&2
		log "configure failed (log: $dir/configure.log)"
		rm -f "$dir/build/build.ninja"
		exit 1
	fi
fi

log "building $binary (log: $dir/build.log)"
start=$(date +%s)
if ! ninja -C "$dir/build" -k 0 -j "$(nproc)" qemu-system-x86_64 >"$dir/build.log" 2>&1; then
	grep -E 'error|Error' "$dir/build.log" | head -n 30 >&2 || true
	tail -n 20 "$dir/build.log" >&2
	log "build failed (log: $dir/build.log)"
	exit 1
fi
log "built in $(($(date +%s) - start)) s"
echo "$device_hash" >"$stamp"
echo "$binary"
