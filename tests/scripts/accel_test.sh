#!/usr/bin/env bash
# Tests of scripts/kvm-probe.c, scripts/choose-accel.sh and run-qemu.sh's
# boot watchdog, without booting a real guest.
#
# Usage: tests/scripts/accel_test.sh CASE BUILD_DIR
# Exits 0 when CASE passed, 1 when it failed, 77 when this host cannot run it.
set -uo pipefail
case_name=$1
build_dir=$2
top=$(cd "$(dirname "$0")/../.." && pwd)
here=$top/tests/scripts
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Each case probes afresh, with its own cache.
export SIMTGPU_CACHE=$work/cache
unset SIMTGPU_ACCEL SIMTGPU_KVM_DEVICE
export FAKE_QEMU_LOG=$work/qemu.log

fail() {
	echo "FAIL: $*"
	exit 1
}
# expect OUTPUT REGEX: OUTPUT matches the extended regular expression.
expect() {
	grep -qE -- "$2" <<<"$1" || fail "expected /$2/ in: $1"
}
probe() {
	cc -O2 -Wall -Wextra -Werror -o "$work/kvm-probe" "$top/scripts/kvm-probe.c" ||
		fail "scripts/kvm-probe.c does not build warning-free"
	"$work/kvm-probe" "$@"
}
# run_qemu ARGS...: run-qemu.sh on the fake QEMU, no kernel or image needed.
run_qemu() {
	"$top/scripts/run-qemu.sh" --build "$build_dir" --qemu "$here/fake-qemu.sh" \
		--kernel /dev/null --initrd /dev/null --share none "$@" -- true 2>&1
}

case $case_name in
probe_no_device)
	out=$(probe --device "$work/no-such-kvm")
	(($? == 1)) || fail "exit status $? for a missing device"
	expect "$out" "^no: cannot open $work/no-such-kvm: No such file or directory$"
	;;
probe_not_kvm)
	out=$(probe --device /dev/null)
	(($? == 1)) || fail "exit status $? for /dev/null"
	expect "$out" "^no: /dev/null does not speak KVM API 12$"
	;;
probe_kvm_run_hangs)
	# KVM_RUN that never returns, as on a host whose /dev/kvm cannot run
	# guests: the probe must give up within its time limit and say so.
	[[ -r /dev/kvm && -w /dev/kvm ]] || { echo "no usable /dev/kvm here"; exit 77; }
	cc -shared -fPIC -O2 -Wall -Wextra -o "$work/hang.so" "$here/kvm_run_hangs.c" -ldl ||
		fail "kvm_run_hangs.c does not build"
	cc -O2 -o "$work/kvm-probe" "$top/scripts/kvm-probe.c" || fail "probe does not build"
	start=$SECONDS
	out=$(LD_PRELOAD=$work/hang.so timeout 10 "$work/kvm-probe" --timeout 1)
	status=$?
	((status == 1)) || fail "exit status $status, output: $out"
	((SECONDS - start <= 3)) || fail "took $((SECONDS - start)) s for a 1 s limit"
	expect "$out" "^no: KVM_RUN did not finish the test guest within 1 s$"
	;;
probe_this_host)
	# Where /dev/kvm runs guests at hardware speed the probe says yes; the
	# guest suites then boot under KVM, which checks that answer.
	[[ -r /dev/kvm && -w /dev/kvm ]] || { echo "no usable /dev/kvm here"; exit 77; }
	out=$(probe)
	status=$?
	echo "$out"
	# Hardware KVM needs the CPU's virtualisation extensions, which Linux
	# lists in /proc/cpuinfo (vmx or svm) wherever kvm_intel or kvm_amd can
	# load; without them the answer must be no, whatever /dev/kvm does.
	if ! grep -qwE 'vmx|svm' /proc/cpuinfo; then
		((status == 1)) || fail "yes without vmx or svm in /proc/cpuinfo: $out"
	fi
	if ((status == 0)); then
		expect "$out" "^yes: ran 2 M instructions of a test guest through KVM_RUN in [0-9.]+ ms$"
	else
		((status == 1)) || fail "exit status $status"
		expect "$out" "^no: "
	fi
	;;
choose_override)
	expect "$(SIMTGPU_ACCEL=tcg "$top/scripts/choose-accel.sh")" "^tcg: chosen by SIMTGPU_ACCEL=tcg$"
	expect "$(SIMTGPU_ACCEL=kvm "$top/scripts/choose-accel.sh")" "^kvm: chosen by SIMTGPU_ACCEL=kvm$"
	out=$(SIMTGPU_ACCEL=hvf "$top/scripts/choose-accel.sh" 2>&1)
	(($? == 2)) || fail "SIMTGPU_ACCEL=hvf was accepted"
	expect "$out" "SIMTGPU_ACCEL=hvf is not an accelerator \(use kvm or tcg"
	;;
choose_without_kvm)
	out=$(SIMTGPU_KVM_DEVICE=$work/no-such-kvm "$top/scripts/choose-accel.sh")
	expect "$out" "^tcg: this host has no $work/no-such-kvm$"
	out=$(SIMTGPU_KVM_DEVICE=/dev/null "$top/scripts/choose-accel.sh")
	expect "$out" "^tcg: /dev/null is present but KVM cannot run a guest here: /dev/null does not speak KVM API 12"
	# The answer is cached for this boot of the host.
	ls "$SIMTGPU_CACHE"/kvm-probe/answer-"$(cat /proc/sys/kernel/random/boot_id)"-* >/dev/null ||
		fail "no cached answer for this boot in $SIMTGPU_CACHE/kvm-probe"
	;;
choose_forget_kvm)
	[[ -r /dev/kvm && -w /dev/kvm ]] || { echo "no usable /dev/kvm here"; exit 77; }
	"$top/scripts/choose-accel.sh" --forget-kvm "test: KVM printed nothing"
	expect "$("$top/scripts/choose-accel.sh")" "^tcg: /dev/kvm is present but KVM cannot run a guest here: test: KVM printed nothing"
	;;
watchdog_tcg)
	start=$SECONDS
	out=$(SIMTGPU_ACCEL=tcg SIMTGPU_BOOT_TIMEOUT=2 FAKE_QEMU_TCG=silent run_qemu)
	status=$?
	echo "$out"
	((status == 124)) || fail "exit status $status, not 124"
	((SECONDS - start < 20)) || fail "the watchdog took $((SECONDS - start)) s"
	expect "$out" "accelerator tcg: chosen by SIMTGPU_ACCEL=tcg"
	expect "$out" "printed nothing in 2 s under TCG"
	expect "$out" "SIMTGPU_ACCEL=tcg or kvm"
	;;
watchdog_boots)
	out=$(SIMTGPU_ACCEL=tcg SIMTGPU_BOOT_TIMEOUT=2 FAKE_QEMU_TCG=boots run_qemu)
	status=$?
	echo "$out"
	((status == 0)) || fail "exit status $status for a guest that booted"
	expect "$out" "^fake guest booted$"
	;;
watchdog_kvm_falls_back)
	# KVM that passes the probe but cannot boot the guest: stopped, recorded,
	# and the command runs under TCG in the same invocation.
	[[ -r /dev/kvm && -w /dev/kvm ]] || { echo "no usable /dev/kvm here"; exit 77; }
	[[ $("$top/scripts/choose-accel.sh") == kvm:* ]] || { echo "the KVM probe says no on this host"; exit 77; }
	out=$(SIMTGPU_BOOT_TIMEOUT=2 FAKE_QEMU_KVM=silent FAKE_QEMU_TCG=boots run_qemu)
	status=$?
	echo "$out"
	((status == 0)) || fail "exit status $status"
	expect "$(cat "$FAKE_QEMU_LOG")" "^accel=kvm$"
	expect "$(tail -n 1 "$FAKE_QEMU_LOG")" "^accel=tcg$"
	expect "$out" "printed nothing in 2 s under KVM"
	expect "$out" "SIMTGPU_ACCEL=kvm forces KVM"
	expect "$out" "retrying under TCG"
	expect "$("$top/scripts/choose-accel.sh")" "^tcg: .*printed nothing in 2 s"
	;;
*)
	echo "accel_test: unknown case $case_name" >&2
	exit 2
	;;
esac
echo "PASS: $case_name"
