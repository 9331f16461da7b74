#!/usr/bin/env bash
# Chooses QEMU's accelerator for this host and says why, as one line on
# stdout: "kvm: REASON" or "tcg: REASON".
#
# KVM only where it is proven to run a guest here: /dev/kvm can be present and
# read-writable on a host where KVM_RUN never returns, and QEMU then prints
# nothing at all. scripts/kvm-probe.c runs three instructions through KVM_RUN
# within a few seconds; its answer is cached for this boot of the host
# (keyed by /proc/sys/kernel/random/boot_id) in the simtgpu cache directory.
#
# Usage: scripts/choose-accel.sh
#   SIMTGPU_ACCEL=kvm|tcg   use that accelerator, without probing
#   SIMTGPU_KVM_DEVICE      the KVM device to probe (default /dev/kvm)
#   scripts/choose-accel.sh --forget-kvm REASON
#                           record that KVM failed to boot a guest on this host
#                           in this boot (run-qemu's boot watchdog), so that
#                           later runs choose TCG
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=lib/cache-dir.sh
source "$top/scripts/lib/cache-dir.sh"

device=${SIMTGPU_KVM_DEVICE:-/dev/kvm}
probe_src=$top/scripts/kvm-probe.c
cache=$(simtgpu_cache_dir)/kvm-probe
boot_id=$(cat /proc/sys/kernel/random/boot_id 2>/dev/null || echo unknown-boot)
probe_hash=$(sha256sum "$probe_src" | cut -c1-12)
answer_file=$cache/answer-$boot_id-$probe_hash-$(echo "$device" | sha256sum | cut -c1-8)

if [[ ${1:-} == --forget-kvm ]]; then
	mkdir -p "$cache"
	echo "no: ${2:-KVM failed to boot a guest}" >"$answer_file"
	exit 0
fi
(($# == 0)) || { echo "usage: $0 [--forget-kvm REASON]" >&2; exit 2; }

case "${SIMTGPU_ACCEL:-}" in
kvm | tcg)
	echo "$SIMTGPU_ACCEL: chosen by SIMTGPU_ACCEL=$SIMTGPU_ACCEL"
	exit 0
	;;
"") ;;
*)
	echo "choose-accel: SIMTGPU_ACCEL=$SIMTGPU_ACCEL is not an accelerator (use kvm or tcg, or leave it unset to probe)" >&2
	exit 2
	;;
esac

if [[ ! -e $device ]]; then
	echo "tcg: this host has no $device"
	exit 0
fi
if [[ ! -r $device || ! -w $device ]]; then
	echo "tcg: $device is not readable and writable by $(id -un)"
	exit 0
fi

if [[ ! -f $answer_file ]]; then
	mkdir -p "$cache"
	probe=$cache/kvm-probe-$probe_hash
	if [[ ! -x $probe ]]; then
		cc -O2 -Wall -Wextra -o "$probe.tmp.$$" "$probe_src"
		mv "$probe.tmp.$$" "$probe"
	fi
	# The probe stops itself after 3 s; timeout is for a probe stuck in the
	# kernel beyond the reach of its alarm.
	answer=$(timeout -k 1 5 "$probe" --device "$device" --timeout 3) ||
		answer=${answer:-"no: the probe did not finish within 5 s"}
	echo "$answer" >"$answer_file.tmp.$$"
	mv "$answer_file.tmp.$$" "$answer_file"
fi
answer=$(cat "$answer_file")
case "$answer" in
yes:*) echo "kvm: ${answer#yes: }" ;;
*) echo "tcg: $device is present but KVM cannot run a guest here: ${answer#no: }" ;;
esac
