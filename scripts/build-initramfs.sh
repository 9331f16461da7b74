#!/usr/bin/env bash
# Builds the guest's initramfs and prints its path as the last line of stdout.
#
# Usage: scripts/build-initramfs.sh [BUILD_DIR]   (default: build)
#
# Contents:
#   /init                       tests/guest/init/init
#   /bin/busybox and its applets (busybox-static)
#   /usr/bin/lspci              with pci.ids and its shared libraries
#   /lib/modules/<kver>/        Debian's DRM and 9p modules with everything they
#                               depend on (modules.dep), kmd/simtgpu.ko as
#                               extra/simtgpu.ko when it exists, and depmod's
#                               indexes
#   /opt/simtgpu/bin, lib       BUILD_DIR/bin/* (except programs that load
#                               LLVM: the compiler) and BUILD_DIR/lib/*.so*
#   /opt/simtgpu/bin/run-suites.sh, /opt/simtgpu/bin/checks.sh (helpers the
#   suites source), /opt/simtgpu/suites/*.sh
#   /opt/simtgpu/labs/NAME/     simtgpu.ko and guest.sh of each lab built by
#                               scripts/build-lab.sh into BUILD_DIR/labs/NAME
#                               (empty for a lab whose steps failed)
#   the shared libraries of all these programs (found with ldd)
#
# <kver> is the kernel of Debian's linux-image-amd64 (scripts/guest-kernel-version.sh),
# not necessarily the running one. The image goes to
# BUILD_DIR/guest/initramfs.cpio.gz and is rebuilt only when the hash of its
# inputs changes. BUILD_DIR/guest/initramfs.kernel names the kernel version
# it was built for.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${1:-$top/build}
build_dir=$(cd "$build_dir" 2>/dev/null && pwd) || {
	echo "build-initramfs: no build directory ${1:-$top/build}" >&2
	exit 1
}
log() { echo "build-initramfs: $*" >&2; }

# Modules loaded at boot (/etc/simtgpu/modules) and, with their
# dependencies, copied into the image. simtgpu.ko's own dependencies are
# added from its modinfo.
BOOT_MODULES=(virtio_pci drm drm_buddy gpu-sched)
EXTRA_MODULES=(9pnet_virtio 9p drm_kms_helper drm_shmem_helper drm_ttm_helper)

# The kernel version linux-image-amd64 depends on, e.g. 6.1.0-57-amd64.
kver=$("$top/scripts/guest-kernel-version.sh")
moddir=/lib/modules/$kver
if [[ ! -f $moddir/modules.dep ]]; then
	log "no modules for kernel $kver in $moddir (install linux-image-amd64)"
	exit 1
fi
kmod_ko=$top/kmd/simtgpu.ko

# Programs that load LLVM (simtcc and its tests) stay on the host: they would
# add about 150 MB of libraries, and the guest runs compiled programs only.
programs=()
if [[ -d $build_dir/bin ]]; then
	while IFS= read -r -d '' f; do
		if [[ $(ldd "$f" 2>/dev/null) =~ lib(LLVM|clang-cpp) ]]; then
			continue
		fi
		programs+=("$f")
	done < <(find "$build_dir/bin" -maxdepth 1 -type f -perm -u+x -print0 | sort -z)
fi
libraries=()
if [[ -d $build_dir/lib ]]; then
	while IFS= read -r -d '' f; do libraries+=("$f"); done < \
		<(find "$build_dir/lib" -maxdepth 1 -name '*.so*' \( -type f -o -type l \) -print0 | sort -z)
fi
suites=()
while IFS= read -r -d '' f; do suites+=("$f"); done < \
	<(find "$top/tests/guest/suites" -maxdepth 1 -name '*.sh' -print0 2>/dev/null | sort -z)

labs=()
while IFS= read -r -d '' f; do labs+=("$f"); done < \
	<(find "$build_dir/labs" -mindepth 1 -maxdepth 1 -type d -print0 2>/dev/null | sort -z)

out_dir=$build_dir/guest
image=$out_dir/initramfs.cpio.gz
stamp=$out_dir/initramfs.stamp

# Everything that goes into the image, by content (names included).
inputs_hash=$(
	{
		echo "$kver ${BOOT_MODULES[*]} ${EXTRA_MODULES[*]} labs: ${labs[*]}"
		for f in "$0" "$top/tests/guest/init/init" "$top/tests/guest/init/run-suites.sh" \
			"$top/tests/guest/init/checks.sh" \
			/bin/busybox /usr/bin/lspci "$kmod_ko" "${programs[@]}" "${libraries[@]}" \
			"${suites[@]}" "${labs[@]/%//kmd/simtgpu.ko}" "${labs[@]/%//guest.sh}"; do
			if [[ -e "$f" ]]; then
				echo "$f"
				sha256sum <"$f"
			fi
		done
	} | sha256sum | cut -c1-16
)
if [[ -f $image && -f $out_dir/initramfs.kernel && -f $stamp && $(cat "$stamp") == "$inputs_hash" ]]; then
	echo "$image"
	exit 0
fi

log "building $image (kernel $kver)"
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,root,etc/simtgpu} \
	"$root/opt/simtgpu/bin" "$root/opt/simtgpu/lib" "$root/opt/simtgpu/suites"

# busybox and a link per applet.
cp /bin/busybox "$root/bin/busybox"
while read -r applet; do
	[[ -e "$root/$applet" ]] || ln -s /bin/busybox "$root/$applet"
done < <(/bin/busybox --list-full)
# The kernel needs a console before init mounts devtmpfs (init copes if not).
mknod -m 600 "$root/dev/console" c 5 1 2>/dev/null || true

install -m 755 "$top/tests/guest/init/init" "$root/init"
if [[ -f "$top/tests/guest/init/run-suites.sh" ]]; then
	install -m 755 "$top/tests/guest/init/run-suites.sh" "$root/opt/simtgpu/bin/run-suites.sh"
fi
install -m 644 "$top/tests/guest/init/checks.sh" "$root/opt/simtgpu/bin/checks.sh"
for f in "${suites[@]}"; do install -m 755 "$f" "$root/opt/simtgpu/suites/"; done
for lab_dir in "${labs[@]}"; do
	mkdir -p "$root/opt/simtgpu/labs/${lab_dir##*/}"
	if [[ -f $lab_dir/kmd/simtgpu.ko && -f $lab_dir/guest.sh ]]; then
		cp "$lab_dir/kmd/simtgpu.ko" "$lab_dir/guest.sh" "$root/opt/simtgpu/labs/${lab_dir##*/}/"
	fi
done
for f in "${programs[@]}"; do cp "$f" "$root/opt/simtgpu/bin/"; done
for f in "${libraries[@]}"; do cp -P "$f" "$root/opt/simtgpu/lib/"; done

elf_files=("${programs[@]}" "${libraries[@]}")
# The CUDA test programs run from the shared build directory (40-cuda.sh);
# the libraries they need beyond ours (libomp for -fopenmp) come in the image.
while IFS= read -r -d '' f; do elf_files+=("$f"); done < \
	<(find "$build_dir/tests/cuda" -maxdepth 1 -type f -perm -u+x -print0 2>/dev/null | sort -z)
if [[ -x /usr/bin/lspci ]]; then
	cp /usr/bin/lspci "$root/usr/bin/lspci"
	mkdir -p "$root/usr/share/misc"
	cp /usr/share/misc/pci.ids "$root/usr/share/misc/" 2>/dev/null || true
	elf_files+=(/usr/bin/lspci)
fi

# Shared libraries, at the paths the dynamic loader looks for them.
declare -A copied_libs=()
for f in "${elf_files[@]}"; do
	[[ -f "$f" ]] || continue
	while read -r lib; do
		[[ -n "$lib" && -z "${copied_libs[$lib]:-}" ]] || continue
		copied_libs[$lib]=1
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done < <(LD_LIBRARY_PATH=$build_dir/lib ldd "$f" 2>/dev/null |
		sed -nE 's/.*=> (\/[^ ]+) .*/\1/p; s/^[[:space:]]*(\/[^ ]+) \(.*/\1/p' |
		grep -v "^$build_dir/lib/")
done

# Kernel modules: resolve dependencies through modules.dep.
declare -A dep_of=()
declare -A path_of=()
while IFS=: read -r path deps; do
	name=${path##*/}
	name=${name%%.ko*}
	name=${name//-/_}
	path_of[$name]=$path
	dep_of[$name]=$deps
done <"$moddir/modules.dep"

declare -A wanted=()
want_module() {
	local name=${1//-/_} dep
	[[ -z "${wanted[$name]:-}" ]] || return 0
	if [[ -z "${path_of[$name]:-}" ]]; then
		grep -qE "/${name//_/[-_]}\.ko" "$moddir/modules.builtin" 2>/dev/null ||
			log "warning: module $1 not found for $kver"
		return 0
	fi
	wanted[$name]=1
	for dep in ${dep_of[$name]}; do
		dep=${dep##*/}
		want_module "${dep%%.ko*}"
	done
}
for m in "${BOOT_MODULES[@]}" "${EXTRA_MODULES[@]}"; do want_module "$m"; done
if [[ -f $kmod_ko ]]; then
	for m in $(modinfo -F depends "$kmod_ko" | tr ',' ' '); do want_module "$m"; done
fi

# Modules may be compressed (.ko.xz, .ko.zst, .ko.gz): store them plain, so
# busybox modprobe needs no decompressor.
for name in "${!wanted[@]}"; do
	rel=${path_of[$name]}
	dst=$root$moddir/${rel%%.ko*}.ko
	mkdir -p "$(dirname "$dst")"
	case "$rel" in
	*.ko) cp "$moddir/$rel" "$dst" ;;
	*.ko.xz) xz -dc "$moddir/$rel" >"$dst" ;;
	*.ko.zst) zstd -qdc "$moddir/$rel" >"$dst" ;;
	*.ko.gz) gzip -dc "$moddir/$rel" >"$dst" ;;
	esac
done
cp "$moddir"/modules.{order,builtin,builtin.modinfo} "$root$moddir/" 2>/dev/null || true
if [[ -f $kmod_ko ]]; then
	mkdir -p "$root$moddir/extra"
	cp "$kmod_ko" "$root$moddir/extra/simtgpu.ko"
	log "including $kmod_ko"
fi
depmod -b "$root" "$kver"
printf '%s\n' "${BOOT_MODULES[@]}" >"$root/etc/simtgpu/modules"

mkdir -p "$out_dir"
(cd "$root" && find . -print0 | cpio --null -o -H newc -R 0:0 --quiet) | gzip -1 >"$image.tmp"
mv "$image.tmp" "$image"
echo "$inputs_hash" >"$stamp"
echo "$kver" >"$out_dir/initramfs.kernel"
log "$(du -h "$image" | cut -f1) in $image"
echo "$image"
